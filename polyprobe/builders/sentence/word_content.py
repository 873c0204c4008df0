"""``word_content`` (SentEval's WC): which of K mid-frequency nouns does the sentence contain?

Also home of :class:`SplitFloors`, the class-floor estimate that the corpus-derived tasks of this
suite (``word_content``, ``tree_depth``, ``top_dependencies``) use to choose their classes
before the variant engine runs: a task that picks its own label set must know which classes
will survive ``--min-per-class`` in every split, or it would publish classes that the variant
engine then deletes (and, for ``word_content``, K would be meaningless).
"""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.rendering import sentence_inputs, text_hash
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence

SPLIT_NAMES: tuple[str, str, str] = ("train", "dev", "test")
_SPLIT_CODE: dict[str, int] = {"train": 0, "dev": 1, "test": 2}
DEFAULT_FLOORS: tuple[int, int, int] = (50, 20, 20)
DEFAULT_RATIOS: tuple[int, int, int] = (80, 10, 10)


def _parse_floors(value: Any) -> tuple[int, int, int]:
    """``min_per_class`` as given by the lead: a 3-sequence, a ``MinPerClass`` or one int."""
    if hasattr(value, "as_tuple"):
        value = value.as_tuple()
    if isinstance(value, int):
        return (value, value, value)
    train, dev, test = (int(v) for v in value)
    return (train, dev, test)


def _parse_split(value: Any) -> tuple[str, tuple[int, int, int]] | None:
    """``split`` as given by the lead: ``"ud"``, ``"ratio"``, ``"ratio:80/10/10"``, a
    ``SplitSpec``-like object with ``mode``/``ratios``, or ``None`` (infer from the data)."""
    if value is None:
        return None
    if hasattr(value, "mode"):
        ratios = tuple(int(r) for r in getattr(value, "ratios", DEFAULT_RATIOS))
        return (str(value.mode), ratios)  # type: ignore[return-value]
    text = str(value).strip()
    if text == "ud":
        return ("ud", DEFAULT_RATIOS)
    if text == "ratio":
        return ("ratio", DEFAULT_RATIOS)
    if text.startswith("ratio:"):
        parts = [int(p) for p in text[len("ratio:") :].split("/")]
        if len(parts) != 3 or sum(parts) != 100 or min(parts) < 0:
            raise ValueError(f"bad split {value!r}: use ud or ratio:TRAIN/VALIDATION/TEST")
        return ("ratio", (parts[0], parts[1], parts[2]))
    raise ValueError(f"bad split {value!r}: use ud or ratio:TRAIN/VALIDATION/TEST")


class SplitFloors:
    """Estimates, during ``derive``, how many items each class will have in each split.

    Why an estimate: splits are made later by the variant engine, which a task must not know.
    The estimate follows the documented split rules (docs/ARCHITECTURE.md, issue 2):

    * ``ud`` (used when every treebank seen has train, dev and test sentences, as the pipeline
      decides, or when the lead passes ``split="ud"``): the sentence's own UD split counts, and
      a sentence whose normalised text already occurred in an earlier split (train < dev <
      test) counts nowhere, because the variant engine drops such duplicates;
    * ``ratio`` (otherwise, or ``split="ratio:a/b/c"``): a class with n items is expected to get
      n·share items in a split; the class passes when every expected count reaches its floor,
      i.e. n ≥ floor/share (200 items for the default 20 per test split at 10%). A random ratio
      split can still leave a class a few items short by chance; the variant engine then drops
      it and the card says so.

    Floors are the pipeline's ``--min-per-class`` (train, validation, test), default 50/20/20.
    """

    def __init__(self, floors: Any = DEFAULT_FLOORS, split: Any = None) -> None:
        self.floors = _parse_floors(floors)
        self._requested = _parse_split(split)
        self._split = array("b")
        self._text = array("Q")
        self._treebank_splits: dict[str, set[str | None]] = {}
        self.mode = "ratio"
        self.ratios: tuple[int, int, int] = DEFAULT_RATIOS
        self.reason = ""
        self._effective: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._split)

    def add(self, sentence: Sentence) -> None:
        """Record one observed sentence (call for every sentence, in stream order)."""
        split = sentence.source.split
        self._split.append(_SPLIT_CODE.get(split or "", -1))
        self._text.append(text_hash(sentence))
        self._treebank_splits.setdefault(sentence.source.treebank, set()).add(split)

    def finish(self) -> None:
        """Decide the split mode and each sentence's effective split (once, in ``derive``)."""
        if self._requested is not None:
            self.mode, self.ratios = self._requested
            self.reason = "split mode passed in by the pipeline"
        elif self._treebank_splits and all(
            {"train", "dev", "test"} <= s for s in self._treebank_splits.values()
        ):
            self.mode, self.ratios = "ud", DEFAULT_RATIOS
            self.reason = "every treebank has train, dev and test sentences"
        else:
            self.mode, self.ratios = "ratio", DEFAULT_RATIOS
            self.reason = "not every treebank has train, dev and test sentences"
        split = (
            np.frombuffer(self._split, dtype=np.int8).copy()
            if self._split
            else np.zeros(0, np.int8)
        )
        if self.mode == "ud" and split.size:
            text = np.frombuffer(self._text, dtype=np.uint64)
            seen = np.zeros(0, dtype=np.uint64)
            for code in range(3):
                idx = np.flatnonzero(split == code)
                dup = np.isin(text[idx], seen)
                split[idx[dup]] = -1
                seen = np.union1d(seen, text[idx[~dup]])
        self._effective = split

    def table(self, classes: np.ndarray, n_classes: int) -> np.ndarray:
        """Per class, items per split (train, dev, test) as float: counts under ``ud``,
        expected counts under ``ratio``. ``classes[i]`` is sentence i's class, -1 for none."""
        if self._effective is None:
            self.finish()
        assert self._effective is not None
        classes = np.asarray(classes, dtype=np.int64)
        out = np.zeros((n_classes, 3), dtype=np.float64)
        if n_classes == 0:
            return out
        has = classes >= 0
        if self.mode == "ud":
            split = self._effective[has].astype(np.int64)
            cls = classes[has]
            ok = split >= 0
            np.add.at(out, (cls[ok], split[ok]), 1.0)
        else:
            totals = np.bincount(classes[has], minlength=n_classes).astype(np.float64)
            out[:] = totals[:, None] * np.asarray(self.ratios, dtype=np.float64)[None, :] / 100.0
        return out

    def required(self) -> np.ndarray:
        """The floor per split; a split that gets no data under ``ratio`` asks for nothing."""
        floors = np.asarray(self.floors, dtype=np.float64)
        if self.mode == "ratio":
            floors = np.where(np.asarray(self.ratios) > 0, floors, 0.0)
        return floors

    def passing(self, table: np.ndarray) -> np.ndarray:
        """Per class: does every split reach its floor?"""
        if table.size == 0:
            return np.zeros(table.shape[0], dtype=bool)
        return np.all(table + 1e-9 >= self.required()[None, :], axis=1)

    def minimum_items(self) -> int | None:
        """Under ``ratio``: the fewest items a class needs in all (None under ``ud``)."""
        if self.mode != "ratio":
            return None
        need = [-(-f * 100 // r) for f, r in zip(self.floors, self.ratios, strict=True) if r > 0]
        return int(max(need)) if need else 0

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "split_mode": "ud" if self.mode == "ud" else "ratio:" + "/".join(map(str, self.ratios)),
            "split_mode_reason": self.reason,
            "min_per_class": list(self.floors),
        }
        if self.mode == "ud":
            out["split_estimate"] = (
                "items per UD split, minus texts already seen in an earlier split"
            )
        else:
            out["split_estimate"] = (
                "expected items per split = items x split share; a class needs "
                f">= {self.minimum_items()} items"
            )
        return out


# --- word_content -------------------------------------------------------------------------------

K_CHOICES: tuple[int, ...] = (1000, 300, 100, 30)
DEFAULT_COVERAGE = 0.5
DEFAULT_MIN_CHARS = 4
DEFAULT_NOUN_SHARE = 0.9
DEFAULT_REPEAT_SHARE = 0.1

DROP_NO_TARGET = "no target word"
_HIT_MEMO_MAX = 1 << 18  # forms whose target key is memoised in candidates (memory bound)
DROP_SEVERAL = "more than one target occurrence"


class WordContent(Task):
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
      items in each split (see :class:`SplitFloors`); none → infeasible.

    An occurrence is any surface token with the target's case-folded form, whatever its UPOS:
    the probe sees only the text. No lexical control: the target is the label and must occur in
    every split.

    ``label_names`` is a placeholder on the class: :meth:`derive` sets the instance's
    ``label_names`` to the K targets (frequency order), and the pipeline reads the instance's
    label names after ``derive()``.

    Profile options (``[tasks.word_content]``): ``coverage``, ``min_chars``, ``noun_share``,
    ``repeat_share``, ``k_choices``, ``targets`` (a fixed list, case-folded; the floors still
    decide feasibility), and from the pipeline ``min_per_class`` and ``split``.
    """

    name: ClassVar[str] = "word_content"
    relative_cost: ClassVar[float] = 1.1
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict which of K mid-frequency target nouns occurs in the sentence (each sentence "
        "contains exactly one of them)."
    )
    # Placeholder: the real label names (the K targets) are set on the instance by derive().
    label_names: ClassVar[tuple[str, ...]] = ()
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Targets are derived from the data: case-folded surface forms of >= 4 characters, "
        "tagged NOUN in >= 90% of their occurrences, repeated within a sentence in < 10% of "
        "them, taken in frequency order from the rank where the more frequent forms cover 50% "
        "of all non-punctuation tokens (start rank recorded).",
        "K = the largest of 1000, 300, 100, 30 such that every target has >= min-per-class "
        "items in every split (under a ratio split: expected items = items x split share); "
        "otherwise the task is infeasible and every sentence is dropped with that reason.",
        "A sentence qualifies when exactly one of its surface tokens has a target form (any "
        "UPOS); the label is that target. No lexical control: every target occurs in every "
        "split by design.",
        "The label names (the K targets) are derived per build; they are listed in the profile.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.coverage = float(self.option("coverage", DEFAULT_COVERAGE))
        self.min_chars = int(self.option("min_chars", DEFAULT_MIN_CHARS))
        self.noun_share = float(self.option("noun_share", DEFAULT_NOUN_SHARE))
        self.repeat_share = float(self.option("repeat_share", DEFAULT_REPEAT_SHARE))
        self.k_choices = tuple(int(k) for k in self.option("k_choices", K_CHOICES))
        self.fixed_targets: list[str] | None = self.option("targets", None)
        self.floors = SplitFloors(
            self.option("min_per_class", DEFAULT_FLOORS), self.option("split")
        )
        # Observation state. Per token only ids are recorded; the per-form counts (frequency,
        # NOUN tags, repeats within a sentence) are computed from these arrays in derive().
        self._freq: Counter[str] = Counter()
        self._noun: Counter[str] = Counter()
        self._repeated: Counter[str] = Counter()
        self._ids: dict[str, int] = {}  # lexical key -> id
        self._form_ids: dict[str, int] = {}  # surface form -> id of its lexical key
        self._tok = array("i")  # form id of every non-PUNCT surface token, all sentences
        self._sent = array("i")  # sentence index of each entry of _tok
        self._noun_tok = array("i")  # form id of every NOUN surface token
        self._hit_memo: dict[str, str | None] = {}  # form -> its target key (candidates)
        # Derived state.
        self.derived: dict[str, Any] | None = None
        self.targets: dict[str, int] = {}
        self.infeasible: str | None = None

    def parameters(self) -> dict[str, Any]:
        return {
            "unit": "case-folded surface token (multiword token = one form)",
            "k_choices": list(self.k_choices),
            "coverage": self.coverage,
            "min_chars": self.min_chars,
            "noun_share": self.noun_share,
            "repeat_share": self.repeat_share,
            "qualifies": "exactly one surface token with a target form (any UPOS)",
            "min_per_class": list(self.floors.floors),
        }

    # --- observation ------------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        index = len(self.floors)
        self.floors.add(sentence)
        # Per token: one dict lookup from the surface form to its id (lexical_key runs once
        # per distinct form); the counts are derived from the id arrays in derive().
        form_ids = self._form_ids
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
        if ids:
            self._tok.extend(ids)
            self._sent.extend([index] * len(ids))
            if nouns:
                self._noun_tok.extend(nouns)

    def _form_id(self, form: str) -> int:
        """Id of a form's lexical key (new keys get the next id), memoised per form."""
        ident = self._ids.setdefault(lexical_key(form), len(self._ids))
        self._form_ids[form] = ident
        return ident

    def _count_forms(self) -> None:
        """The per-key counts of the observation pass, from the id arrays: frequency, NOUN
        tags, and occurrences in sentences where the key occurs more than once."""
        n_ids = len(self._ids)
        keys = list(self._ids)  # ids are given in insertion order: keys[id] is the key
        tok = np.frombuffer(self._tok, dtype=np.int32) if self._tok else np.zeros(0, np.int32)
        sent = np.frombuffer(self._sent, dtype=np.int32) if self._sent else np.zeros(0, np.int32)
        freq = np.bincount(tok, minlength=n_ids).tolist()
        noun_tok = (
            np.frombuffer(self._noun_tok, dtype=np.int32)
            if self._noun_tok
            else np.zeros(0, np.int32)
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
        self._freq = Counter({k: c for k, c in zip(keys, freq, strict=True) if c})
        self._noun = Counter({k: c for k, c in zip(keys, noun, strict=True) if c})
        self._repeated = Counter({k: c for k, c in zip(keys, repeated_list, strict=True) if c})

    def _eligible(self, key: str) -> bool:
        f = self._freq[key]
        return (
            len(key) >= self.min_chars
            and self._noun[key] >= self.noun_share * f
            and self._repeated[key] < self.repeat_share * f
        )

    def _class_table(self, targets: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per sentence the class (-1: none or several targets) and per class the split table."""
        n_sent = len(self.floors)
        index_of = np.full(len(self._ids), -1, dtype=np.int64)
        for i, t in enumerate(targets):
            ident = self._ids.get(t)
            if ident is not None:
                index_of[ident] = i
        tok = np.frombuffer(self._tok, dtype=np.int32) if self._tok else np.zeros(0, np.int32)
        sent = np.frombuffer(self._sent, dtype=np.int32) if self._sent else np.zeros(0, np.int32)
        cls = index_of[tok]
        hit = cls >= 0
        hits = np.bincount(sent[hit], minlength=n_sent)
        classes = np.full(n_sent, -1, dtype=np.int64)
        single = hits[sent[hit]] == 1
        classes[sent[hit][single]] = cls[hit][single]
        return classes, self.floors.table(classes, len(targets))

    def derive(self) -> dict[str, Any]:
        self.floors.finish()
        self._count_forms()
        self._hit_memo.clear()  # memoised target keys are only valid for one target set
        total = sum(self._freq.values())
        ranked = sorted(self._freq.items(), key=lambda kv: (-kv[1], kv[0]))
        # Band start: 1 + the number of top forms needed to cover `coverage` of the tokens.
        covered = 0
        start = len(ranked) + 1
        for rank, (_, c) in enumerate(ranked, start=1):
            covered += c
            if covered >= self.coverage * total:
                start = rank + 1
                break
        eligible = [
            (rank, key) for rank, (key, _) in enumerate(ranked, start=1)
            if rank >= start and self._eligible(key)
        ]  # fmt: skip
        out: dict[str, Any] = {
            "tokens": total,
            "forms": len(ranked),
            "band_start_rank": start,
            "eligible_forms_in_band": len(eligible),
            **self.floors.describe(),
        }
        tried: dict[str, str] = {}
        chosen: list[str] | None = None
        table = np.zeros((0, 3))
        classes = np.zeros(0, dtype=np.int64)
        if self.fixed_targets is not None:
            fixed = list(dict.fromkeys(lexical_key(t) for t in self.fixed_targets))
            candidates_k = [("profile", fixed)]
            out["targets_source"] = "profile"
        else:
            candidates_k = [(str(k), [key for _, key in eligible[:k]]) for k in self.k_choices]
            out["targets_source"] = "derived"
        for name, targets in candidates_k:
            if not targets:
                tried[name] = "no targets"
                continue
            if self.fixed_targets is None and len(targets) < int(name):
                tried[name] = f"only {len(eligible)} eligible forms in the band"
                continue
            classes, table = self._class_table(targets)
            ok = self.floors.passing(table)
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
            self.infeasible = (
                "no K in " + "/".join(map(str, self.k_choices)) + " has every target at or "
                f"above min-per-class {'/'.join(map(str, self.floors.floors))} in every split"
            )
            if self.fixed_targets is not None:
                self.infeasible = "the profile's targets do not all meet min-per-class"
            self.targets = {}
            self.label_names = ()  # type: ignore[misc]
            out.update({"feasible": False, "infeasible": self.infeasible, "k": 0, "targets": []})
        else:
            self.infeasible = None
            self.targets = {t: i for i, t in enumerate(chosen)}
            self.label_names = tuple(chosen)  # type: ignore[misc]
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
        self.derived = out
        return out

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self.derived is None:
            raise RuntimeError("word_content: call observe() on every sentence, then derive()")
        if self.infeasible is not None:
            return self.drop(f"task infeasible: {self.infeasible}")
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
                key = memo[form] = k if k in self.targets else None
            if key is not None:
                hits.append(key)
        if not hits:
            return self.drop(DROP_NO_TARGET)
        if len(hits) > 1:
            return self.drop(DROP_SEVERAL)
        return [Candidate(sentence_inputs(sentence), hits[0], copy="0")]
