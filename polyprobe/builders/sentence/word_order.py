"""``word_order`` / ``word_order_permuted``: is the corpus's most frequent noun at the
beginning, in the middle or at the end of the sentence? (Wehner 2019, WO.)

Every qualifying sentence yields three copies in one group, one per label: the original and two
copies in which only the target noun moved into the other two windows. A probe that separates
them must encode where the noun is. Because the original copy is the only fluent one and nouns
sit unevenly across windows in natural text, fluency alone predicts part of the label in that
default variant; ``word_order_permuted`` also shuffles the other words (identically in all three
copies), so that every copy is equally disfluent and only the noun's position differs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import movable, permute, render
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import cached_lexical_key, choice_index, lexical_key, stable_rng
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

LABELS: tuple[str, ...] = ("beginning", "middle", "end")
# L = the median sentence length clipped to this range; W = round(WINDOW_SHARE * L). With L in
# [9, 13] this gives W = 4, 4, 4, 5, 5, i.e. Wehner's 13/5 (en) and 9/4 (tr).
LENGTH_CLIP: tuple[int, int] = (9, 13)
WINDOW_SHARE = 0.4
# Lemmas that carry no lemma (UD's "_", e.g. 83 NOUNs of tr-PUD) cannot be a target.
_NO_LEMMA = frozenset({"", "_"})
# How often the permuted variant redraws a shuffle that left the other words' order unchanged.
_MAX_SHUFFLES = 20


def median_low(histogram: Counter[int]) -> int | None:
    """The lower median of a length histogram (an actual sentence length, never x.5).

    A histogram rather than a list keeps the first pass in constant memory.
    """
    total = sum(histogram.values())
    if total == 0:
        return None
    rank = (total + 1) // 2  # 1-based rank of the lower median
    seen = 0
    for length in sorted(histogram):
        seen += histogram[length]
        if seen >= rank:
            return length
    raise AssertionError("unreachable")


def window_width(min_length: int) -> int:
    """W = round(0.4 * L). ``0.4 * L`` is never x.5 for an integer L, so rounding has no ties."""
    return int(WINDOW_SHARE * min_length + 0.5)


def position_label(index: int, n_tokens: int, window: int) -> str:
    """Label of surface position ``index`` (0-based) in a sentence of ``n_tokens`` tokens:
    the first ``window`` positions are the beginning, the last ``window`` the end.

    The windows never overlap and the middle is never empty when ``n_tokens >= L`` and
    ``2 * W < L`` (true for W = round(0.4 L) with L in [9, 13]: 8 < 9, 8 < 10, 8 < 11, 10 < 12,
    10 < 13; :func:`check_window` checks it for profile overrides).
    """
    if index < window:
        return "beginning"
    if index >= n_tokens - window:
        return "end"
    return "middle"


def check_window(task: str, window: int, min_length: int) -> None:
    """Refuse a window W that does not fit L: 1 <= W and 2W < L, else the beginning and end
    windows would overlap (or the middle vanish). Only options can break it (the derived L and
    W always fit), so the message names the task's profile table."""
    if window < 1 or 2 * window >= min_length:
        raise UsageError(
            f"[tasks.{task}] window W={window} must satisfy 1 <= W and 2W < L="
            f"{min_length} (otherwise the beginning and end windows overlap)"
        )


def _option_int(task: str, key: str, value: Any) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UsageError(f"[tasks.{task}] {key} must be an integer, not {value!r}") from None


@dataclass(frozen=True)
class WordOrderOptions:
    """``[tasks.word_order]``: fixed values for the choices the task otherwise derives from the
    corpus (``None``, the default, means derived). A profile fixes them to compare corpora on
    the same noun and windows, or to follow another paper's settings.

    * ``target``: the noun lemma to track instead of the corpus's most frequent NOUN lemma
      (compared NFC + case-folded, like the derived one).
    * ``min_length``: L, the minimum sentence length in surface tokens, instead of the lower
      median length clipped to [9, 13].
    * ``window``: W, the width of the beginning and end windows, instead of round(0.4 L); it
      must satisfy 1 <= W and 2W < L, or the windows would overlap.
    """

    target: str | None = None
    min_length: int | None = None
    window: int | None = None
    # The profile table the options come from (in error messages).
    table: ClassVar[str] = "word_order"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.target is not None:
            set_(self, "target", str(self.target))
        set_(self, "min_length", _option_int(self.table, "min_length", self.min_length))
        set_(self, "window", _option_int(self.table, "window", self.window))
        if self.window is not None and self.min_length is not None:
            check_window(self.table, self.window, self.min_length)


@dataclass(frozen=True)
class WordOrderPermutedOptions(WordOrderOptions):
    """``[tasks.word_order_permuted]``: the options of :class:`WordOrderOptions` (``target``,
    ``min_length``, ``window``; all derived by default), for the permuted variant."""

    table: ClassVar[str] = "word_order_permuted"


@dataclass(frozen=True)
class WordOrderFit(Fit):
    """The target noun's lexical key (``None``: the corpus has no NOUN lemma), its NOUN count,
    L and W."""

    target: str | None = None
    target_count: int = 0
    min_length: int = LENGTH_CLIP[1]
    window: int = window_width(LENGTH_CLIP[1])


def sentence_reading(sentence: Sentence) -> tuple[int, list[str]]:
    """What the first pass counts of a sentence: its length in surface tokens and the lexical
    keys of its NOUN lemmas. Both word_order tasks ask it of every sentence, through
    :class:`Shared`, so it is read once."""
    return len(sentence.surface_tokens()), [
        lexical_key(w.lemma)
        for w in sentence.words
        if w.upos == "NOUN" and w.lemma not in _NO_LEMMA
    ]


class WordOrderObservation(Observation):
    """NOUN lemma counts and the histogram of sentence lengths (surface tokens)."""

    def __init__(self) -> None:
        self.noun_lemmas: Counter[str] = Counter()
        self.lengths: Counter[int] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        length, nouns = shared.get(sentence_reading)
        self.lengths[length] += 1
        if nouns:
            self.noun_lemmas.update(nouns)

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's): counts added,
        later's new keys after this one's in its order (as one pass would insert them)."""
        if not isinstance(later, WordOrderObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into word_order")
        self.noun_lemmas.update(later.noun_lemmas)
        self.lengths.update(later.lengths)


def target_position(sentence: Sentence, target: str, min_length: int) -> int | str:
    """Surface index of the target noun (lexical key ``target``) in a qualifying sentence, or
    the reason it does not qualify. Both word_order tasks ask it of the same sentence with the
    same target and L, through :class:`Shared`, so it is searched once.

    Lemmas are keyed through the :func:`lexical_key` memo without a call (every word of every
    sentence is tested, while a corpus has far fewer distinct lemmas)."""
    cached = cached_lexical_key
    hits = [w for w in sentence.words if (cached(lemma := w.lemma) or lexical_key(lemma)) == target]
    if not hits:
        return "target lemma absent"
    if len(hits) > 1:
        return "target lemma occurs more than once"
    word = hits[0]
    if word.upos != "NOUN":
        return "target lemma not a NOUN here"
    tokens = sentence.surface_tokens()
    pos = next(i for i, t in enumerate(tokens) if word.id in t.word_ids)
    if tokens[pos].upos == "MWT":
        return "target inside a multiword token"
    key = lexical_key(tokens[pos].form)
    if sum(1 for t in tokens if lexical_key(t.form) == key) > 1:
        return "target form occurs more than once"
    if len(tokens) < min_length:
        return "shorter than the minimum length L"
    return pos


class WordOrder(Task[Sentence]):
    """Label = the window (beginning / middle / end) holding the target noun.

    Target: the most frequent NOUN lemma of the corpus (lemmas NFC + case-folded; ties broken by
    the lemma string), overridable with option ``target``. A sentence qualifies when the target
    lemma occurs exactly once, as a NOUN, as a surface token of its own (not inside a multiword
    token: moving a multiword token would move its other words too, and "only the noun moves"
    would be false), its case-folded form occurs once among the surface tokens (two identical
    tokens would make "which one moved" ambiguous), and the sentence has >= L surface tokens.

    Positions and lengths are counted on surface tokens, punctuation included, as
    ``sentence_length`` counts them: L = the (lower) median sentence length clipped to
    [9, 13] (EWT: 13, IMST: 8 -> 9, i.e. Wehner's values), W = round(0.4 L).

    Copies: ``new_sequence`` removes the noun from the sequence of non-PUNCT tokens and inserts
    it at a slot drawn uniformly (stable RNG) among the word slots of the other window; the
    other words keep their order and punctuation keeps its positions. Rendering goes through
    :func:`permute` (positional spacing, capitals follow the sentence start).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="word_order",
        level=Level.SENTENCE,
        description=(
            "Predict whether the corpus's most frequent noun stands at the beginning, in the "
            "middle or at the end of the sentence (one original and two copies in which only "
            "the noun moved)."
        ),
        labels=LABELS,
        citation=WEHNER_2019,
        seed_dependent=True,
        paired_copies=True,
        notes=(
            "Target = the most frequent NOUN lemma (case-folded; profile option 'target'). A "
            "sentence qualifies when the target lemma occurs exactly once, as a NOUN outside any "
            "multiword token, its form occurs once, and the sentence has at least L surface "
            "tokens.",
            "Positions count surface tokens, punctuation included. L = median sentence length "
            "clipped to [9, 13]; W = round(0.4 L); beginning = the first W positions, end = the "
            "last W, middle = the rest. For L in [9, 13], 2W < L: the windows never overlap.",
            "Each sentence gives three rows in one group, one per label: the original and two "
            "copies in which only the noun moved to a random word slot of each other window (the "
            "other words keep their order; punctuation never moves). Labels are therefore "
            "balanced by construction.",
            "Spacing is positional and a sentence-initial capital stays at the sentence start "
            "(see the rendering rules); the noun's own case is kept only where it is lexical.",
        ),
    )

    Options: ClassVar[type] = WordOrderOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "target_source",
            "target_noun_count",
            "top_noun_lemmas",
            "median_length",
            "length_clip",
            "length_unit",
        }
    )
    # Whether the other non-PUNCT tokens are shuffled too (``word_order_permuted``).
    shuffle_others: ClassVar[bool] = False

    def parameters(self, fit: Fit) -> dict[str, Any]:
        assert isinstance(fit, WordOrderFit)
        return {
            "target": fit.target,
            "target_noun_count": fit.target_count,
            "length_unit": "surface tokens, punctuation included (a multiword token counts once)",
            "min_length": fit.min_length,
            "window": fit.window,
            "windows": "beginning = positions 1..W, end = last W positions, middle = the rest",
            "moves": "the other non-PUNCT tokens are shuffled (stable RNG), identically in all "
            "three copies; the noun sits at its original slot or a random slot of another window"
            if self.shuffle_others
            else "only the noun moves, to a random word slot of each other window",
            "copies": list(LABELS),
        }

    # --- first pass ---------------------------------------------------------------------
    def observation(self) -> WordOrderObservation:
        return WordOrderObservation()

    def fit(self, observation: Observation | None) -> WordOrderFit:
        """Fix the target noun, L and W (options ``target``, ``min_length``, ``window``
        override them)."""
        assert isinstance(observation, WordOrderObservation)
        o = self.options
        nouns = observation.noun_lemmas
        ranked = sorted(nouns.items(), key=lambda kv: (-kv[1], kv[0]))
        if o.target is not None:
            target: str | None = lexical_key(o.target)
        else:
            target = ranked[0][0] if ranked else None
        target_count = nouns.get(target, 0) if target else 0
        median_length = median_low(observation.lengths)
        lo, hi = LENGTH_CLIP
        derived_length = min(max(median_length or hi, lo), hi)
        min_length = derived_length if o.min_length is None else o.min_length
        window = window_width(min_length) if o.window is None else o.window
        check_window(self.name, window, min_length)
        report = {
            "target": target,
            "target_source": "profile" if o.target is not None else "most frequent NOUN lemma",
            "target_noun_count": target_count,
            "top_noun_lemmas": [[lemma, n] for lemma, n in ranked[:5]],
            "median_length": median_length,
            "length_clip": list(LENGTH_CLIP),
            "min_length": min_length,
            "window": window,
            "length_unit": "surface tokens, punctuation included",
        }
        return WordOrderFit(
            LABELS,
            report,
            target=target,
            target_count=target_count,
            min_length=min_length,
            window=window,
        )

    # --- candidates ---------------------------------------------------------------------
    def _others(self, sentence: Sentence, slots: list[int], noun_slot: int) -> list[int]:
        """The other words' token indices in the order the copies use (shuffled in the
        permuted variant; drawn from their own stable RNG so the slots drawn for the noun do not
        depend on the shuffle)."""
        others = [i for i in slots if i != noun_slot]
        if not self.shuffle_others:
            return others
        rng = stable_rng(
            self.seed, self.name, "shuffle", sentence.source.treebank, sentence.sent_id
        )
        tokens = sentence.surface_tokens()
        original = [lexical_key(tokens[i].form) for i in others]
        shuffled = others
        for _ in range(_MAX_SHUFFLES):
            shuffled = others[:]
            for i in range(len(shuffled) - 1, 0, -1):  # Fisher-Yates on rng.random() only
                j = choice_index(rng, i + 1)
                shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
            if [lexical_key(tokens[i].form) for i in shuffled] != original:
                break
        return shuffled

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, WordOrderFit)
        if fit.target is None:
            return self.drop("no target noun (the corpus has no NOUN lemma)")
        found = shared.get(target_position, fit.target, fit.min_length)
        if isinstance(found, str):
            return self.drop(found)
        pos = found
        tokens = sentence.surface_tokens()
        n = len(tokens)
        window = fit.window
        slots = movable(tokens)  # surface indices of word slots; punctuation never moves
        k = slots.index(pos)
        own = position_label(pos, n, window)
        by_label = {
            label: [t for t, i in enumerate(slots) if position_label(i, n, window) == label]
            for label in LABELS
        }
        if any(not by_label[label] for label in LABELS):
            return self.drop("a window has no word slot")
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        at: dict[str, int] = {}
        for label in LABELS:  # fixed order: draws do not depend on dict or set order
            choices = by_label[label]
            at[label] = k if label == own else choices[choice_index(rng, len(choices))]
        others = self._others(sentence, slots, pos)
        out: list[Candidate] = []
        for label in LABELS:
            t = at[label]
            sequence = others[:t] + [pos] + others[t:]
            order = list(range(n))
            for slot, src in zip(slots, sequence, strict=True):
                order[slot] = src
            moved = permute(tokens, order, self.context, sentence)
            out.append(
                Candidate(
                    {"sentence": render(moved), "tokens": [x.form for x in moved]},
                    label,
                    copy=label,
                )
            )
        if len({c.inputs["sentence"] for c in out}) != len(out):
            # Cannot happen for distinct forms (checked above); kept as a guard for the label.
            return self.drop("copies render identically")
        return out


class WordOrderPermuted(WordOrder):
    """``word_order`` with the other words shuffled in all three copies (the same shuffle in
    each), so that fluency predicts nothing and only the noun's position separates the copies.

    Reads its options from ``[tasks.word_order_permuted]``; derives the same target, L and W
    as ``word_order`` (and shares the per-sentence work with it when both run in one process).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="word_order_permuted",
        level=Level.SENTENCE,
        description=(
            "Predict whether the corpus's most frequent noun stands at the beginning, in the "
            "middle or at the end of a sentence whose other words are shuffled (three copies "
            "with the same shuffle, the noun in each window)."
        ),
        labels=LABELS,
        citation=WEHNER_2019,
        seed_dependent=True,
        paired_copies=True,
        notes=(
            *WordOrder.metadata.notes[:2],
            "Each sentence gives three rows in one group, one per label. In all three, the other "
            "non-PUNCT tokens are shuffled with the same stable random permutation (redrawn if it "
            "left their order unchanged); the noun stands at its original slot in the copy of its "
            "own window and at a random word slot of each other window. No copy is fluent, so "
            "fluency cannot predict the label (the default word_order variant keeps the original "
            "intact, which a probe may exploit).",
            WordOrder.metadata.notes[3],
        ),
    )

    Options: ClassVar[type] = WordOrderPermutedOptions
    shuffle_others: ClassVar[bool] = True
