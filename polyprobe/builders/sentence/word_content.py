"""``word_content`` (SentEval's WC): which of K mid-frequency nouns does the sentence contain?

The K targets are chosen from the corpus (first pass), so that every one of them reaches
``--min-per-class`` in every split: the estimate of which classes survive the variant engine
is the engine's own (:meth:`TaskContext.split_estimate
<polyprobe.builders.task.TaskContext.split_estimate>`), never a copy of its rules here.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.floors import format_floors
from polyprobe.builders.merging import extend_remapped, merge_ids
from polyprobe.builders.rendering import sentence_inputs, text_hash
from polyprobe.builders.task import (
    Candidate,
    Fit,
    Observation,
    Shared,
    SplitEstimate,
    Task,
    TaskContext,
)
from polyprobe.errors import UsageError
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

K_CHOICES: tuple[int, ...] = (1000, 300, 100, 30)
DEFAULT_COVERAGE = 0.5
DEFAULT_MIN_CHARS = 4
DEFAULT_NOUN_SHARE = 0.9
DEFAULT_REPEAT_SHARE = 0.1

DROP_NO_TARGET = "no target word"
_HIT_MEMO_MAX = 1 << 18  # forms whose target key is memoised in candidates (memory bound)
DROP_SEVERAL = "more than one target occurrence"


def _bad(key: str, why: str) -> UsageError:
    return UsageError(f"[tasks.word_content] {key} {why}")


def _share(key: str, value: Any) -> float:
    """A share in [0, 1] (TOML may give an int: ``coverage = 1``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(key, f"must be a number between 0 and 1, not {value!r}")
    share = float(value)
    if not 0.0 <= share <= 1.0:
        raise _bad(key, f"must be between 0 and 1, not {value!r}")
    return share


def _positive_int(key: str, value: Any) -> int:
    """A whole number >= 1 (an integral float such as ``4.0`` is accepted)."""
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )
    if not whole or value < 1:
        raise _bad(key, f"must be a positive whole number, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class WordContentOptions:
    """Options of ``[tasks.word_content]``; the defaults are the recipe the card describes.

    * ``coverage`` (0.5): the band of candidate targets starts after the most frequent forms
      that together cover this share of all non-punctuation tokens, so function words and the
      few very frequent content words are never targets (SentEval's "mid-frequency").
    * ``min_chars`` (4): a target has at least this many characters (short forms are mostly
      abbreviations and clitics, ambiguous across languages).
    * ``noun_share`` (0.9): a target is tagged NOUN in at least this share of its occurrences,
      so the label is a noun and not a homograph of some other word.
    * ``repeat_share`` (0.1): a target occurs twice or more in one sentence in less than this
      share of its occurrences, so "exactly one occurrence" does not systematically exclude it.
    * ``k_choices`` ((1000, 300, 100, 30)): the numbers of targets tried, in this order; the
      first K whose every target reaches the class floors in every split wins (so list them
      largest first: more classes are preferred while every class has enough items).
    * ``targets`` (None): a fixed list of targets instead of derived ones (case-folded,
      duplicates removed); the class floors still decide feasibility.
    """

    coverage: float = DEFAULT_COVERAGE
    min_chars: int = DEFAULT_MIN_CHARS
    noun_share: float = DEFAULT_NOUN_SHARE
    repeat_share: float = DEFAULT_REPEAT_SHARE
    k_choices: tuple[int, ...] = K_CHOICES
    targets: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for key in ("coverage", "noun_share", "repeat_share"):
            set_(self, key, _share(key, getattr(self, key)))
        set_(self, "min_chars", _positive_int("min_chars", self.min_chars))
        if isinstance(self.k_choices, (str, bytes)) or not _iterable(self.k_choices):
            raise _bad(
                "k_choices", f"must be a list of positive whole numbers, not {self.k_choices!r}"
            )
        k_choices = tuple(_positive_int("k_choices", k) for k in self.k_choices)
        if not k_choices:
            raise _bad("k_choices", "must list at least one K")
        set_(self, "k_choices", k_choices)
        if self.targets is not None:
            if isinstance(self.targets, (str, bytes)) or not _iterable(self.targets):
                raise _bad("targets", f"must be a list of words, not {self.targets!r}")
            bad = [t for t in self.targets if not isinstance(t, str) or not t]
            if bad:
                raise _bad("targets", f"must be a list of words, not {bad!r}")
            set_(self, "targets", tuple(self.targets))


def _iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _remedy(table: np.ndarray | None, floors: Any) -> str:
    """What would make the task feasible on this input: the floors every target of the last
    K tried (the smallest, in the default order) reaches in every split (each target is a
    class, and all of them must stay), or more input when a target has no item in a split."""
    if table is None or table.size == 0:
        return "remedy: more input - no K has enough eligible forms (a larger corpus)"
    reach = np.floor(table.min(axis=0) + 1e-9).astype(int)
    if (reach < 1).any():
        return (
            "remedy: more input - a target of the smallest K has no item in some split "
            "(a larger corpus, or --top-up where the family has it)"
        )
    new = [min(int(f), int(r)) for f, r in zip(floors, reach, strict=True)]
    return (
        f"remedy: --min-per-class {format_floors(new)} keeps the smallest K's "
        f"{table.shape[0]} targets (fewer rows per class in each split: less power per class)"
    )


@dataclass(frozen=True)
class WordContentFit(Fit):
    """The chosen targets (``label_names`` lists them in frequency order)."""

    targets: frozenset[str] = frozenset()


class WordContentObservation(Observation):
    """The first pass: per non-PUNCT surface token only the id of its lexical key (and of each
    NOUN token), per sentence how many such tokens it has; the per-form counts (frequency,
    NOUN tags, repeats within a sentence) are computed from these arrays once, in
    :meth:`form_counts`. Every sentence also goes to the split estimate, which decides which
    targets reach the class floors.

    Why per-sentence lengths and not a sentence index per token: the tokens of a sentence are
    consecutive in ``tok``, so the lengths say the same in one entry per sentence instead of
    one per token (the observation is shipped between processes; see :meth:`__getstate__`)."""

    def __init__(self, estimate: SplitEstimate) -> None:
        self.estimate = estimate
        self.ids: dict[str, int] = {}  # lexical key -> id
        self.form_ids: dict[str, int] = {}  # surface form -> id of its lexical key (a memo)
        self.tok = array("i")  # form id of every non-PUNCT surface token, all sentences
        self.lengths = array("i")  # per sentence: its entries in tok (0: only punctuation)
        self.noun_tok = array("i")  # form id of every NOUN surface token

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle (a range's observation sent to the merging process) carries: the
        keys in id order (a key's id is its position), the arrays and the estimate. Not
        ``form_ids``: a memo of :func:`lexical_key` per surface form, which :meth:`observe`
        refills on demand."""
        return {
            "estimate": self.estimate,
            "keys": tuple(self.ids),
            "tok": self.tok,
            "lengths": self.lengths,
            "noun_tok": self.noun_tok,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.estimate = state["estimate"]
        keys = state["keys"]
        self.ids = dict(zip(keys, range(len(keys)), strict=True))
        self.form_ids = {}
        self.tok = state["tok"]
        self.lengths = state["lengths"]
        self.noun_tok = state["noun_tok"]

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        source = sentence.source
        self.estimate.add(source.split, shared.get(text_hash), source.treebank)
        # Per token: one dict lookup from the surface form to its id (lexical_key runs once
        # per distinct form); the counts are derived from the id arrays in form_counts().
        form_ids = self.form_ids
        ids: list[int] = []
        nouns: list[int] = []
        for tok in sentence.surface_tokens():
            upos = tok.upos
            if upos == "PUNCT":
                continue
            ident = form_ids.get(tok.form)
            if ident is None:
                ident = self._form_id(tok.form)
            ids.append(ident)
            if upos == "NOUN":
                nouns.append(ident)
        self.lengths.append(len(ids))
        if ids:
            self.tok.extend(ids)
            if nouns:
                self.noun_tok.extend(nouns)

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's). ``later``'s key
        ids are renumbered into this observation's (first-occurrence order: see
        :mod:`polyprobe.builders.merging`), its sentence lengths follow this one's.
        ``later``'s ``form_ids`` memo is not taken (it does not travel in a pickle either):
        this one's stays right, as merging only adds ids."""
        if not isinstance(later, WordContentObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into word_content")
        remap = merge_ids(self.ids, later.ids)
        extend_remapped(self.tok, later.tok, remap)
        self.lengths.extend(later.lengths)
        extend_remapped(self.noun_tok, later.noun_tok, remap)
        self.estimate.merge(later.estimate)

    def _form_id(self, form: str) -> int:
        """Id of a form's lexical key (new keys get the next id), memoised per form."""
        ident = self.ids.setdefault(lexical_key(form), len(self.ids))
        self.form_ids[form] = ident
        return ident

    def _tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """The token ids (a view, no copy) and the sentence index of each."""
        tok = np.frombuffer(self.tok, dtype=np.int32) if self.tok else np.zeros(0, np.int32)
        lengths = (
            np.frombuffer(self.lengths, dtype=np.int32) if self.lengths else np.zeros(0, np.int32)
        )
        sent = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        return tok, sent

    def form_counts(self) -> tuple[Counter[str], Counter[str], Counter[str]]:
        """Per lexical key: frequency, NOUN tags, and occurrences in sentences where the key
        occurs more than once (only keys with a non-zero count are listed)."""
        n_ids = len(self.ids)
        keys = list(self.ids)  # ids are given in insertion order: keys[id] is the key
        tok, sent = self._tokens()
        freq = np.bincount(tok, minlength=n_ids).tolist()
        noun_tok = (
            np.frombuffer(self.noun_tok, dtype=np.int32) if self.noun_tok else np.zeros(0, np.int32)
        )
        noun = np.bincount(noun_tok, minlength=n_ids).tolist()
        # (sentence, key) pairs occurring more than once: their occurrences count as repeated.
        pair = sent.astype(np.int64) * max(n_ids, 1) + tok
        uniq, counts = np.unique(pair, return_counts=True)
        several = counts > 1
        repeated = np.bincount(
            uniq[several] % max(n_ids, 1), weights=counts[several], minlength=n_ids
        )
        repeated_list = [int(v) for v in repeated.tolist()]
        return (
            Counter({k: c for k, c in zip(keys, freq, strict=True) if c}),
            Counter({k: c for k, c in zip(keys, noun, strict=True) if c}),
            Counter({k: c for k, c in zip(keys, repeated_list, strict=True) if c}),
        )

    def class_table(self, targets: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per sentence the class (-1: none or several targets) and per class the split table."""
        n_sent = len(self.estimate)
        index_of = np.full(len(self.ids), -1, dtype=np.int64)
        for i, t in enumerate(targets):
            ident = self.ids.get(t)
            if ident is not None:
                index_of[ident] = i
        tok, sent = self._tokens()
        cls = index_of[tok]
        hit = cls >= 0
        hits = np.bincount(sent[hit], minlength=n_sent)
        classes = np.full(n_sent, -1, dtype=np.int64)
        single = hits[sent[hit]] == 1
        classes[sent[hit][single]] = cls[hit][single]
        return classes, self.estimate.table(classes, len(targets))


class WordContent(Task[Sentence]):
    """Label = the one target noun (out of K) that the sentence contains.

    SentEval took 1,000 mid-frequency words and sentences containing exactly one of them. Here
    the words are chosen from the treebank itself, so that every target is a real, unambiguous
    noun of the language and occurs often enough for every split:

    * forms are case-folded surface tokens (a multiword token is one form, never a NOUN);
    * a target has ≥ ``min_chars`` characters, is tagged NOUN in ≥ ``noun_share`` of its
      occurrences (so the label is a noun, not a homograph) and occurs twice or more in one
      sentence in < ``repeat_share`` of its occurrences (so "exactly one occurrence" does not
      systematically exclude it);
    * the band starts after the most frequent forms that together cover ``coverage`` of all
      non-PUNCT tokens (function words), and the targets are the first K eligible forms from
      there on in frequency order;
    * K is the largest of 1000, 300, 100, 30 for which every target has ≥ ``--min-per-class``
      items in each split (estimated by the build's
      :class:`~polyprobe.builders.variants.SplitEstimate`); none → infeasible.

    An occurrence is any surface token with the target's case-folded form, whatever its UPOS:
    the probe sees only the text. No lexical control: the target is the label and must occur in
    every split.

    The label names (the K targets, frequency order) are the fit's; options are
    :class:`WordContentOptions`. The class floors and the split mode are the build's
    (``self.context``).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="word_content",
        level=Level.SENTENCE,
        description=(
            "Predict which of K mid-frequency target nouns occurs in the sentence (each sentence "
            "contains exactly one of them)."
        ),
        labels=None,
        labels_derived=(
            "the K target nouns (case-folded forms) chosen from the corpus, in frequency order"
        ),
        citation=CONNEAU_2018,
        notes=(
            "Targets are derived from the data: case-folded surface forms of >= 4 characters, "
            "tagged NOUN in >= 90% of their occurrences, repeated within a sentence in < 10% of "
            "them, taken in frequency order from the rank where the more frequent forms cover "
            "50% of all non-punctuation tokens (start rank recorded).",
            "K = the largest of 1000, 300, 100, 30 such that every target has >= min-per-class "
            "items in every split (under a ratio split: expected items = items x split share); "
            "otherwise the task is infeasible and every sentence is dropped with that reason.",
            "A sentence qualifies when exactly one of its surface tokens has a target form (any "
            "UPOS); the label is that target. No lexical control: every target occurs in every "
            "split by design.",
            "The label names (the K targets) are derived per build; they are listed in the "
            "profile.",
        ),
    )

    Options: ClassVar[type] = WordContentOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "tokens",
            "forms",
            "band_start_rank",
            "eligible_forms_in_band",
            "split_mode",
            "split_mode_reason",
            "min_per_class",
            "split_estimate",
            "targets_source",
            "k_tried",
            "feasible",
            "infeasible",
            "k",
            "band_end_rank",
            "items_per_split_min",
            "qualifying_sentences",
        }
    )

    def __init__(self, options: Any = None, context: TaskContext | None = None) -> None:
        super().__init__(options, context)
        # Speed cache of candidates: form -> its target key (None: no target), valid for the
        # target set it was filled for (``_memo_targets``); bounded by _HIT_MEMO_MAX.
        self._hit_memo: dict[str, str | None] = {}
        self._memo_targets: frozenset[str] | None = None

    def parameters(self, fit: Fit) -> dict[str, Any]:
        o = self.options
        return {
            "unit": "case-folded surface token (multiword token = one form)",
            "k_choices": list(o.k_choices),
            "coverage": o.coverage,
            "min_chars": o.min_chars,
            "noun_share": o.noun_share,
            "repeat_share": o.repeat_share,
            "qualifies": "exactly one surface token with a target form (any UPOS)",
            "min_per_class": list(self.context.min_per_class),
        }

    # --- first pass -------------------------------------------------------------------------
    def observation(self) -> WordContentObservation:
        return WordContentObservation(self.context.split_estimate())

    def fit(self, observation: Observation | None) -> WordContentFit:
        if not isinstance(observation, WordContentObservation):
            raise TypeError("word_content: fit() needs the observation of observation()")
        o = self.options
        estimate = observation.estimate
        estimate.finish()
        freq, noun, repeated = observation.form_counts()
        min_chars, noun_share, repeat_share = o.min_chars, o.noun_share, o.repeat_share

        def eligible_key(key: str) -> bool:
            f = freq[key]
            return (
                len(key) >= min_chars
                and noun[key] >= noun_share * f
                and repeated[key] < repeat_share * f
            )

        total = sum(freq.values())
        ranked = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))
        # Band start: 1 + the number of top forms needed to cover `coverage` of the tokens.
        covered = 0
        start = len(ranked) + 1
        for rank, (_, c) in enumerate(ranked, start=1):
            covered += c
            if covered >= o.coverage * total:
                start = rank + 1
                break
        eligible = [
            (rank, key) for rank, (key, _) in enumerate(ranked, start=1)
            if rank >= start and eligible_key(key)
        ]  # fmt: skip
        out: dict[str, Any] = {
            "tokens": total,
            "forms": len(ranked),
            "band_start_rank": start,
            "eligible_forms_in_band": len(eligible),
            **estimate.describe(),
        }
        tried: dict[str, str] = {}
        chosen: list[str] | None = None
        table = np.zeros((0, 3))
        classes = np.zeros(0, dtype=np.int64)
        if o.targets is not None:
            fixed = list(dict.fromkeys(lexical_key(t) for t in o.targets))
            candidates_k = [("profile", fixed)]
            out["targets_source"] = "profile"
        else:
            candidates_k = [(str(k), [key for _, key in eligible[:k]]) for k in o.k_choices]
            out["targets_source"] = "derived"
        last: np.ndarray | None = None  # the last (smallest) K's table: what a remedy fits
        for name, targets in candidates_k:
            if not targets:
                tried[name] = "no targets"
                continue
            if o.targets is None and len(targets) < int(name):
                tried[name] = f"only {len(eligible)} eligible forms in the band"
                continue
            classes, table = observation.class_table(targets)
            last = table
            ok = estimate.passing(table)
            if ok.all():
                chosen = targets
                tried[name] = "every target meets the floors"
                break
            weakest = "/".join(f"{v:g}" for v in np.round(table.min(axis=0), 1))
            tried[name] = (
                f"{int((~ok).sum())} of {len(targets)} targets below the floors "
                f"(fewest items per split: {weakest})"
            )
        out["k_tried"] = tried
        if chosen is None:
            infeasible = (
                "no K in " + "/".join(map(str, o.k_choices)) + " has every target at or "
                f"above min-per-class {'/'.join(map(str, estimate.floors))} in every split"
            )
            if o.targets is not None:
                infeasible = "the profile's targets do not all meet min-per-class"
            infeasible += "; " + _remedy(last, estimate.floors)
            out.update({"feasible": False, "infeasible": infeasible, "k": 0, "targets": []})
            return WordContentFit(label_names=(), report=out, infeasible=infeasible)
        rank_of = {key: rank for rank, key in eligible}
        ranks = [rank_of[t] for t in chosen if t in rank_of]
        out.update(
            {
                "feasible": True,
                "k": len(chosen),
                "band_end_rank": max(ranks) if ranks else None,
                "targets": list(chosen),
                "items_per_split_min": [round(float(v), 1) for v in table.min(axis=0)],
                "qualifying_sentences": int(np.count_nonzero(classes >= 0)),
            }
        )
        return WordContentFit(label_names=tuple(chosen), report=out, targets=frozenset(chosen))

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if not isinstance(fit, WordContentFit):
            raise TypeError("word_content: candidates need the fit of WordContent.fit()")
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        targets = fit.targets
        if self._memo_targets is not targets:  # memoised answers hold for one target set
            self._hit_memo = {}
            self._memo_targets = targets
        # The target key of each form is memoised (bounded): one dict lookup per token.
        memo = self._hit_memo
        hits: list[str] = []
        for t in sentence.surface_tokens():
            if t.upos == "PUNCT":
                continue
            form = t.form
            if form in memo:
                key = memo[form]
            else:
                if len(memo) >= _HIT_MEMO_MAX:
                    memo.clear()
                k = lexical_key(form)
                key = memo[form] = k if k in targets else None
            if key is not None:
                hits.append(key)
        if not hits:
            return self.drop(DROP_NO_TARGET)
        if len(hits) > 1:
            return self.drop(DROP_SEVERAL)
        return [Candidate(sentence_inputs(sentence), hits[0], copy="0")]
