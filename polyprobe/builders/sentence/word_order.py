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
from typing import Any, ClassVar

from polyprobe.builders.rendering import movable, permute, render
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, lexical_key, stable_rng
from polyprobe.loaders.records import Sentence, SurfaceToken

LABELS: tuple[str, ...] = ("beginning", "middle", "end")
# L = the median sentence length clipped to this range; W = round(WINDOW_SHARE * L). With L in
# [9, 13] this gives W = 4, 4, 4, 5, 5, i.e. Wehner's 13/5 (en) and 9/4 (tr).
LENGTH_CLIP: tuple[int, int] = (9, 13)
WINDOW_SHARE = 0.4
# Lemmas that carry no lemma (UD's "_", e.g. 83 NOUNs of tr-PUD) cannot be a target.
_NO_LEMMA = frozenset({"", "_"})
# How often the permuted variant redraws a shuffle that left the other words' order unchanged.
_MAX_SHUFFLES = 20
# Bound of the per-task lemma memo (cleared when full, so memory stays bounded on any corpus).
_LEMMA_MEMO_MAX = 1 << 18
# [sentence, surface length, NOUN lemma keys] of the last observed sentence, shared likewise.
_OBSERVED_MEMO: list[Any] = [None, 0, []]
# [sentence, target, L, answer] of the last _target_position call, shared by both tasks.
_POSITION_MEMO: list[Any] = [None, None, None, None]


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
    10 < 13; :meth:`WordOrder.derive` checks it for profile overrides).
    """
    if index < window:
        return "beginning"
    if index >= n_tokens - window:
        return "end"
    return "middle"


class WordOrder(Task):
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

    name: ClassVar[str] = "word_order"
    relative_cost: ClassVar[float] = 1.3
    shard_affinity: ClassVar[str] = "word_order"  # the observe/target memos (and subclass)
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict whether the corpus's most frequent noun stands at the beginning, in the "
        "middle or at the end of the sentence (one original and two copies in which only the "
        "noun moved)."
    )
    label_names: ClassVar[tuple[str, ...]] = LABELS
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = SentenceLength.citation
    seed_dependent: ClassVar[bool] = True
    paired_copies: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    # Whether the other non-PUNCT tokens are shuffled too (``word_order_permuted``).
    shuffle_others: ClassVar[bool] = False
    notes: ClassVar[tuple[str, ...]] = (
        "Target = the most frequent NOUN lemma (case-folded; profile option 'target'). A "
        "sentence qualifies when the target lemma occurs exactly once, as a NOUN outside any "
        "multiword token, its form occurs once, and the sentence has at least L surface tokens.",
        "Positions count surface tokens, punctuation included. L = median sentence length "
        "clipped to [9, 13]; W = round(0.4 L); beginning = the first W positions, end = the "
        "last W, middle = the rest. For L in [9, 13], 2W < L: the windows never overlap.",
        "Each sentence gives three rows in one group, one per label: the original and two "
        "copies in which only the noun moved to a random word slot of each other window (the "
        "other words keep their order; punctuation never moves). Labels are therefore balanced "
        "by construction.",
        "Spacing is positional and a sentence-initial capital stays at the sentence start "
        "(see the rendering rules); the noun's own case is kept only where it is lexical.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0):
        super().__init__(params, seed)
        self._noun_lemmas: Counter[str] = Counter()
        self._lengths: Counter[int] = Counter()
        self.target: str | None = None
        self.target_count = 0
        self.median_length: int | None = None
        self.min_length = LENGTH_CLIP[1]
        self.window = window_width(self.min_length)
        # lemma -> whether its lexical key is the target (for _target_lemmas_for).
        self._target_lemmas: dict[str, bool] = {}
        self._target_lemmas_for: str | None = None

    def option(self, key: str, default: Any = None) -> Any:
        """Profile override for this task, falling back to ``[tasks.word_order]`` so that one
        override (e.g. ``target``) applies to both variants."""
        tasks = self.params.extra.get("tasks", {})
        for name in (self.name, WordOrder.name):
            value = (tasks.get(name) or {}).get(key)
            if value is not None:
                return value
        return default

    def parameters(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "target_noun_count": self.target_count,
            "length_unit": "surface tokens, punctuation included (a multiword token counts once)",
            "min_length": self.min_length,
            "window": self.window,
            "windows": "beginning = positions 1..W, end = last W positions, middle = the rest",
            "moves": "the other non-PUNCT tokens are shuffled (stable RNG), identically in all "
            "three copies; the noun sits at its original slot or a random slot of another window"
            if self.shuffle_others
            else "only the noun moves, to a random word slot of each other window",
            "copies": list(LABELS),
        }

    # --- first pass ---------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        # word_order and word_order_permuted observe the same sentence one after the other and
        # count the same things: the per-sentence reading is shared through a one-entry memo.
        memo = _OBSERVED_MEMO
        if memo[0] is not sentence:
            memo[1] = len(sentence.surface_tokens())
            memo[2] = [
                lexical_key(w.lemma)
                for w in sentence.words
                if w.upos == "NOUN" and w.lemma not in _NO_LEMMA
            ]
            memo[0] = sentence
        self._lengths[memo[1]] += 1
        if memo[2]:
            self._noun_lemmas.update(memo[2])

    def derive(self) -> dict[str, Any]:
        """Fix the target noun, L and W (profile options ``target``, ``min_length``,
        ``window`` override them)."""
        ranked = sorted(self._noun_lemmas.items(), key=lambda kv: (-kv[1], kv[0]))
        override = self.option("target")
        if override is not None:
            self.target = lexical_key(str(override))
        else:
            self.target = ranked[0][0] if ranked else None
        self.target_count = self._noun_lemmas.get(self.target, 0) if self.target else 0
        self.median_length = median_low(self._lengths)
        lo, hi = LENGTH_CLIP
        derived_length = min(max(self.median_length or hi, lo), hi)
        self.min_length = int(self.option("min_length", derived_length))
        self.window = int(self.option("window", window_width(self.min_length)))
        if self.window < 1 or 2 * self.window >= self.min_length:
            raise UsageError(
                f"{self.name}: window W={self.window} must satisfy 1 <= W and 2W < L="
                f"{self.min_length} (otherwise the beginning and end windows overlap)"
            )
        return {
            "target": self.target,
            "target_source": "profile" if override is not None else "most frequent NOUN lemma",
            "target_noun_count": self.target_count,
            "top_noun_lemmas": [[lemma, n] for lemma, n in ranked[:5]],
            "median_length": self.median_length,
            "length_clip": list(LENGTH_CLIP),
            "min_length": self.min_length,
            "window": self.window,
            "length_unit": "surface tokens, punctuation included",
        }

    # --- candidates ---------------------------------------------------------------------
    def _target_position(self, sentence: Sentence, tokens: list[SurfaceToken]) -> int | str:
        """Surface index of the target noun, or a drop reason.

        ``word_order`` and ``word_order_permuted`` ask this of the same sentence one after the
        other with the same target and L: the answer is shared through a one-entry memo keyed
        on the sentence object (and the settings it depends on)."""
        memo = _POSITION_MEMO
        if memo[0] is sentence and memo[1] == self.target and memo[2] == self.min_length:
            return memo[3]  # type: ignore[no-any-return]
        found = self._find_target(sentence, tokens)
        memo[0], memo[1], memo[2], memo[3] = sentence, self.target, self.min_length, found
        return found

    def _lemma_is_target(self, lemma: str) -> bool:
        """``lexical_key(lemma) == target``, memoised per lemma (bounded): asked for every word
        of every sentence, while a corpus has far fewer distinct lemmas."""
        memo = self._target_lemmas
        hit = memo.get(lemma)
        if hit is None:
            if len(memo) >= _LEMMA_MEMO_MAX:
                memo.clear()
            hit = memo[lemma] = lexical_key(lemma) == self.target
        return hit

    def _find_target(self, sentence: Sentence, tokens: list[SurfaceToken]) -> int | str:
        """The work of :meth:`_target_position` (the lemma test memoised per lemma)."""
        if self._target_lemmas_for != self.target:  # the memo is for one target
            self._target_lemmas.clear()
            self._target_lemmas_for = self.target
        memo = self._target_lemmas
        hits = [
            w
            for w in sentence.words
            if (hit := memo.get(w.lemma)) or (hit is None and self._lemma_is_target(w.lemma))
        ]
        if not hits:
            return "target lemma absent"
        if len(hits) > 1:
            return "target lemma occurs more than once"
        word = hits[0]
        if word.upos != "NOUN":
            return "target lemma not a NOUN here"
        pos = next(i for i, t in enumerate(tokens) if word.id in t.word_ids)
        if tokens[pos].upos == "MWT":
            return "target inside a multiword token"
        key = lexical_key(tokens[pos].form)
        if sum(1 for t in tokens if lexical_key(t.form) == key) > 1:
            return "target form occurs more than once"
        if len(tokens) < self.min_length:
            return "shorter than the minimum length L"
        return pos

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

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self.target is None:
            return self.drop("no target noun (the corpus has no NOUN lemma)")
        tokens = sentence.surface_tokens()
        found = self._target_position(sentence, tokens)
        if isinstance(found, str):
            return self.drop(found)
        pos = found
        n = len(tokens)
        slots = movable(tokens)  # surface indices of word slots; punctuation never moves
        k = slots.index(pos)
        own = position_label(pos, n, self.window)
        by_label = {
            label: [t for t, i in enumerate(slots) if position_label(i, n, self.window) == label]
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
            moved = permute(tokens, order, self.params, sentence)
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

    Reads its options from ``[tasks.word_order_permuted]``, falling back to
    ``[tasks.word_order]``; derives the same target, L and W.
    """

    name: ClassVar[str] = "word_order_permuted"
    relative_cost: ClassVar[float] = 1.1
    description: ClassVar[str] = (
        "Predict whether the corpus's most frequent noun stands at the beginning, in the "
        "middle or at the end of a sentence whose other words are shuffled (three copies "
        "with the same shuffle, the noun in each window)."
    )
    shuffle_others: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        *WordOrder.notes[:2],
        "Each sentence gives three rows in one group, one per label. In all three, the other "
        "non-PUNCT tokens are shuffled with the same stable random permutation (redrawn if it "
        "left their order unchanged); the noun stands at its original slot in the copy of its "
        "own window and at a random word slot of each other window. No copy is fluent, so "
        "fluency cannot predict the label (the default word_order variant keeps the original "
        "intact, which a probe may exploit).",
        WordOrder.notes[3],
    )
