"""LINSPECTOR's type-level word tasks as :class:`~polyprobe.builders.task.Task` objects.

Every word task is a *whole-corpus* task: it fits on the whole lexicon at once
(:class:`~polyprobe.builders.word.corpus.WordCorpus`), because its choices (which forms are
eligible, the task size, which pairs exist) depend on every entry. Its :class:`WordFit` holds
the candidates of its two disjointness modes (``form``, and ``lemma`` for the
``-lemma-disjoint`` configs) with the split each is made with; :meth:`WordTask.emit` hands
them to the build (:mod:`polyprobe.builders.records.word_sets` turns them into the shared
assembly's candidate sets).

The task logic itself (eligibility, sampling, pair labelling) is in
:mod:`~polyprobe.builders.word.single`, :mod:`~polyprobe.builders.word.pairs` and
:mod:`~polyprobe.builders.word.pseudo`; the classes here choose sizes and splits.

Why pairs are generated inside a partition: a *pair* touches two words, and the pair graph can
percolate (61% of German ``same_feature`` pairs are one component, all verbs; 77–100% once
lemmas link them). Moving components whole would fill train with one region of the lexicon
and skew every split's labels, so such pairs are generated inside each split's part of a
seeded partition of the lexicon (by form for ``same_feature``, by lemma family for every
lemma-disjoint pair set). ``odd_feature`` pairs stay inside one paradigm (components of at
most a few pairs) and are split by component.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.citations import SAHIN_2020
from polyprobe.builders.floors import rows_needed, split_with_floors
from polyprobe.builders.task import Fit, Task
from polyprobe.builders.word.common import (
    CHARACTER_BINS,
    DEFAULT_MIN_FORMS,
    NONE_LABEL,
    SCALE_FLOOR,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    has_space,
    key_of,
    scaled_split_sizes,
)
from polyprobe.builders.word.corpus import LAYER_TASK_PREFIX, NO_WUGGY, WordCorpus, is_layer_task
from polyprobe.builders.word.pairs import LEMMA_LABEL, odd_feature, same_feature
from polyprobe.builders.word.pseudo import PSEUDO_LABEL, REAL_LABEL, pseudo_task
from polyprobe.builders.word.single import (
    FEATURE_TASKS,
    character_bin_task,
    pos_task,
    single_feature,
    tag_count,
)
from polyprobe.builders.word.syncretism import (
    DEFAULT_MIN_LEMMAS,
    DEFAULT_THRESHOLD,
    SYNCRETISM_MODES,
    SyncretismOptions,
)
from polyprobe.errors import UsageError
from polyprobe.loaders.records import LexEntry
from polyprobe.metadata import SPLITS, Level, TaskMetadata

DEFAULT_SPLIT_SIZES = (7000, 2000, 1000)
LINSPECTOR = "LINSPECTOR (Şahin et al. 2020)"


# ------------------------------------------------------------------------------- options


def check_sizes(
    min_forms: Any, split_sizes: Any, spell: Callable[[str], str] = str
) -> tuple[int | None, tuple[int, int, int]]:
    """``min_forms`` and ``split_sizes`` checked and normalised (a TOML list becomes a
    tuple); a ``ValueError`` names the bad one as ``spell(option name)`` gives it (a profile
    key, or the command-line flag)."""
    counts = tuple(split_sizes) if isinstance(split_sizes, (list, tuple)) else (split_sizes,)
    if (
        len(counts) != 3
        or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in counts)
        or min(counts) < 0
        or counts[0] <= 0
    ):
        raise ValueError(
            f"{spell('split_sizes')} {split_sizes!r}: three whole row counts "
            "TRAIN,VALIDATION,TEST (train positive), e.g. 7000,2000,1000"
        )
    if min_forms is not None and (
        not isinstance(min_forms, (int, np.integer)) or isinstance(min_forms, bool) or min_forms < 1
    ):
        raise ValueError(f"{spell('min_forms')} {min_forms}: must be at least 1")
    return (
        None if min_forms is None else int(min_forms),
        (int(counts[0]), int(counts[1]), int(counts[2])),
    )


def parse_split_sizes(value: Any) -> tuple[int, ...]:
    """``"7000,2000,1000"`` -> (7000, 2000, 1000), ``10k`` style suffixes allowed; a sequence
    (a TOML list) as it is (:func:`check_sizes` checks it)."""
    if not isinstance(value, str):
        return tuple(value)
    values = []
    for part in (t.strip().lower() for t in value.split(",")):
        scale = 1000 if part.endswith("k") else 1
        digits = part[:-1] if part.endswith("k") else part
        if not digits.isdigit():
            values = []
            break
        values.append(int(digits) * scale)
    if len(values) != 3 or values[0] == 0:
        raise UsageError(
            f"--split-sizes {value!r}: expected three whole numbers TRAIN,VALIDATION,TEST "
            "with train > 0, e.g. 7000,2000,1000"
        )
    return tuple(values)


@dataclass(frozen=True)
class WordOptions:
    """The size parameters of a word task: the command line sets them for every word task
    (``--min-forms``, ``--scale``, ``--split-sizes``); a profile's ``[tasks.<name>]`` may
    override them for one task.

    ``min_forms``: the forms a task needs and takes (LINSPECTOR's eligibility threshold and
    task size, default 10,000); with ``scale`` the floor of the derived size (default 1,000).
    ``scale``: derive the size from the data, 50% of the forms carrying the feature, because
    the shared lexicons are far smaller than LINSPECTOR's (default false).
    ``split_sizes``: train/validation/test rows (LINSPECTOR's 7000/2000/1000, the default);
    with ``scale``, the proportions in which the derived size is split."""

    min_forms: int | None = None
    scale: bool = False
    split_sizes: tuple[int, int, int] = DEFAULT_SPLIT_SIZES
    # Feature tasks: what a form syncretic in its paradigm cell becomes (merge: its cell's
    # joined class, drop, keep: LINSPECTOR's label, flagged in the card), when a pair of values
    # counts as syncretic in a context, and whether forms are compared case-sensitively (None:
    # from the data). See polyprobe.builders.word.syncretism and docs/tasks.md.
    syncretism: str = "merge"
    syncretism_threshold: float = DEFAULT_THRESHOLD
    syncretism_min_lemmas: int = DEFAULT_MIN_LEMMAS
    case_sensitive: bool | None = None

    def __post_init__(self) -> None:
        min_forms, counts = check_sizes(self.min_forms, self.split_sizes)
        if not isinstance(self.scale, bool):
            raise ValueError(f"scale {self.scale!r}: must be true or false")
        if self.syncretism not in SYNCRETISM_MODES:
            raise ValueError(
                f"syncretism {self.syncretism!r}: one of {', '.join(SYNCRETISM_MODES)}"
            )
        threshold = self.syncretism_threshold
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or not (0.0 < float(threshold) <= 1.0)
        ):
            raise ValueError(f"syncretism_threshold {threshold!r}: a share in (0, 1]")
        lemmas = self.syncretism_min_lemmas
        if isinstance(lemmas, bool) or not isinstance(lemmas, int) or lemmas < 1:
            raise ValueError(f"syncretism_min_lemmas {lemmas!r}: a whole number >= 1")
        if self.case_sensitive is not None and not isinstance(self.case_sensitive, bool):
            raise ValueError(f"case_sensitive {self.case_sensitive!r}: true, false or unset")
        object.__setattr__(self, "syncretism_threshold", float(threshold))
        object.__setattr__(self, "min_forms", min_forms)
        object.__setattr__(self, "split_sizes", counts)

    @property
    def sizes(self) -> SizeParams:
        """How many forms the task wants (:class:`SizeParams`)."""
        if self.scale:
            # Under --scale, --min-forms is the floor of the derived size (default 1,000).
            floor = self.min_forms or SCALE_FLOOR
            return SizeParams(min_forms=floor, scale=True, scale_floor=floor)
        return SizeParams(min_forms=self.min_forms or DEFAULT_MIN_FORMS)

    def split_counts(self, total: int) -> tuple[int, int, int]:
        """Rows per split for a task of ``total`` rows."""
        return scaled_split_sizes(total, self.split_sizes) if self.scale else self.split_sizes

    def class_floor(self, floors: tuple[int, int, int]) -> int:
        """The rows a class needs in the whole task to meet ``floors`` (the build's
        ``--min-per-class``) in every split it is allocated to (stratified, in the
        proportions of ``split_sizes``)."""
        return rows_needed(self.split_sizes, floors)


# ------------------------------------------------------------------------------- the fit


@dataclass(frozen=True)
class WordPool:
    """A task's candidates in one disjointness mode (``form`` or ``lemma``) and how they are
    split: ``counts`` rows per split chosen by the engine (``sizes`` mode), or, when
    ``source_split`` is given, the split each candidate was generated in (the partition's own
    splits, ``counts`` being the shares asked for). ``reason`` says why, for the card.
    ``seed_lemmas``: pseudowords take the lemmas of their seed word (form key -> lemmas), so
    that lemma-disjoint configs keep them apart too."""

    disjoint: str
    candidates: tuple[WordCandidate, ...]
    counts: tuple[int, int, int]
    reason: str
    source_split: tuple[int, ...] | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)
    seed_lemmas: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class WordFit(Fit):
    """What a word task learned from the lexicon. ``report`` is the task's derived entry
    (eligible, reasons, notes, params, counts: the card's recipe and ``report.json`` show
    it); ``drops`` what the task rejected, by reason; ``lemma_notes`` the lemma-disjoint pair
    set's own notes."""

    drops: Mapping[str, int] = field(default_factory=dict)
    pools: tuple[WordPool, ...] = ()
    lemma_notes: tuple[str, ...] = ()


def _fitted(
    report: TaskReport,
    labels: Iterable[str],
    pools: tuple[WordPool, ...],
    lemma_notes: tuple[str, ...] = (),
) -> WordFit:
    return WordFit(
        label_names=tuple(labels),
        report={
            "eligible": report.eligible,
            "reasons": list(report.reasons),
            "notes": list(report.notes),
            "params": report.params,
            "counts": report.counts,
        },
        notes=tuple(report.notes),
        infeasible=None if pools else ("; ".join(report.reasons) or "no candidates"),
        drops=dict(sorted(report.drops.items())),
        pools=pools,
        lemma_notes=lemma_notes,
    )


# ------------------------------------------------------------------------------- tasks


class WordTask(Task[LexEntry]):
    """Base class of the word tasks: whole-corpus, sized by :class:`WordOptions`."""

    Options: ClassVar[type] = WordOptions
    whole_corpus: ClassVar[bool] = True
    # What the card's recipe names as the rows' source.
    source: ClassVar[str] = "UniMorph lexicon"

    @property
    def class_floor(self) -> int:
        """Rows a class needs in the whole task so that the stratified split can give it the
        build's floor in every split: the class set is decided with it before splitting."""
        return int(self.options.class_floor(tuple(self.context.min_per_class)))

    def fit(self, corpus: WordCorpus) -> WordFit:  # type: ignore[override]
        raise NotImplementedError

    def emit(self, fit: Fit) -> Iterable[WordPool]:
        assert isinstance(fit, WordFit)
        return fit.pools

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return dict(fit.report.get("params", {}))

    def label_order(self, present: set[str]) -> list[str]:
        """Declared label order: stable and readable (``None``/``lemma`` last)."""
        tail = [x for x in (NONE_LABEL, LEMMA_LABEL) if x in present]
        return sorted(present - set(tail)) + tail

    def row_id(self, lang: str, cand: WordCandidate) -> str:
        return f"{lang}/{self.name}/{cand.lexical_key}"


class SingleWordTask(WordTask):
    """A task with one word per row, split by the engine's ``sizes`` mode."""

    def result(self, corpus: WordCorpus) -> TaskResult:
        raise NotImplementedError

    def seed_lemmas(self, corpus: WordCorpus) -> Mapping[str, tuple[str, ...]] | None:
        return None

    def fit(self, corpus: WordCorpus) -> WordFit:  # type: ignore[override]
        result = self.result(corpus)
        if not result.candidates:
            return _fitted(result.report, (), ())
        opts: WordOptions = self.options
        planned = result.split_counts or self._held_out_raised(result)
        counts = planned or opts.split_counts(len(result.candidates))
        reason = f"{'/'.join(map(str, counts))} rows " + (
            "(the class plan: validation/test raised to hold every class's floors)"
            if planned
            else "(the task's size in the proportions of --split-sizes, --scale)"
            if opts.scale
            else "(--split-sizes)"
        )
        cands = tuple(result.candidates)
        lemmas = self.seed_lemmas(corpus)
        pools = tuple(
            WordPool(unit, cands, counts, reason, seed_lemmas=lemmas) for unit in ("form", "lemma")
        )
        return _fitted(result.report, self.label_order({c.label for c in cands}), pools)


    def _held_out_raised(self, result: TaskResult) -> tuple[int, int, int] | None:
        """Under ``--scale``, the split counts with validation and test raised so each holds
        every class's floor (the type-level tasks: ``tag_count`` and ``character_bin`` have
        up to six or more classes at 1,000 rows, whose 10 % test split holds 100); None when
        the default counts fit or no raise within the limits does (the engine's floors then
        drop classes and the card names the remedy)."""
        opts: WordOptions = self.options
        if not opts.scale or not result.candidates:
            return None
        floors = tuple(self.context.min_per_class)
        classes = len({c.label for c in result.candidates})
        total = len(result.candidates)
        default = opts.split_counts(total)
        if all(default[s] >= classes * floors[s] for s in (1, 2) if opts.split_sizes[s]):
            return None
        got = split_with_floors(total, opts.split_sizes, classes, floors)  # type: ignore[arg-type]
        if got is None:
            return None
        result.report.notes.append(
            "validation/test raised from " + "/".join(map(str, default[1:])) + " to "
            + "/".join(map(str, got[1:])) + f" rows so that each holds the floors of {classes} "
            "classes"
        )
        return got


class FeatureTask(SingleWordTask):
    """One UniMorph dimension per task (``case``, ``person``, ``person_dat``, ...): its value,
    or ``None`` for forms that never carry it. Classes are made by :func:`_feature_task`."""

    def result(self, corpus: WordCorpus) -> TaskResult:
        opts: WordOptions = self.options
        decided, case_facts = corpus.case_facts
        case_sensitive = decided if opts.case_sensitive is None else opts.case_sensitive
        result = single_feature(
            corpus.entries,
            self.name,
            sizes=opts.sizes,
            frequencies=corpus.frequencies,
            seed=self.seed,
            class_floor=self.class_floor,
            floors=tuple(self.context.min_per_class),  # type: ignore[arg-type]
            split_sizes=opts.split_sizes,
            case_sensitive=case_sensitive,
            syncretism=SyncretismOptions(
                opts.syncretism, opts.syncretism_threshold, opts.syncretism_min_lemmas
            ),
            evidence=corpus.evidence,
        )
        result.report.params["case_sensitive_from"] = (
            "the data" if opts.case_sensitive is None else "the task's option"
        )
        result.report.counts["case_evidence"] = case_facts
        return result


class Pos(SingleWordTask):
    metadata = TaskMetadata(
        name="pos",
        level=Level.WORD,
        description="Part of speech of a word form (no `None` class: every entry has one).",
        labels_derived="the parts of speech of the sampled forms with at least 5 forms each",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )

    def result(self, corpus: WordCorpus) -> TaskResult:
        return pos_task(
            corpus.entries,
            sizes=self.options.sizes,
            frequencies=corpus.frequencies,
            seed=self.seed,
            class_floor=self.class_floor,
        )


class TagCount(SingleWordTask):
    metadata = TaskMetadata(
        name="tag_count",
        level=Level.WORD,
        description="Number of tags in the form's UniMorph bundle as the lexicon writes it, "
        "POS and a layer's name included (a form listed several times keeps its first "
        "analysis).",
        labels_derived="the tag counts of the sampled forms with at least 5 forms each, "
        "in numeric order",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )

    def result(self, corpus: WordCorpus) -> TaskResult:
        return tag_count(
            corpus.entries,
            sizes=self.options.sizes,
            frequencies=corpus.frequencies,
            seed=self.seed,
            class_floor=self.class_floor,
        )

    def label_order(self, present: set[str]) -> list[str]:
        return sorted(present, key=lambda x: (int(x), x))


class CharacterBin(SingleWordTask):
    metadata = TaskMetadata(
        name="character_bin",
        level=Level.WORD,
        description="Length of the form in Unicode code points, binned: 1-4, 5-8, 9-12, "
        "13-16, 17-20, >20 (the same words as `tag_count`).",
        labels_derived="the length bins of the sampled forms with at least 5 forms each, "
        "shortest first",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )

    def result(self, corpus: WordCorpus) -> TaskResult:
        return character_bin_task(
            corpus.entries,
            sizes=self.options.sizes,
            frequencies=corpus.frequencies,
            seed=self.seed,
            class_floor=self.class_floor,
        )

    def label_order(self, present: set[str]) -> list[str]:
        return [b for b in CHARACTER_BINS if b in present]


class Pseudo(SingleWordTask):
    """Real word or Wuggy pseudoword: one (seed word, pseudoword) pair per seed, in one
    group. The seed words' lemmas tie each pair to its lemma in lemma-disjoint configs."""

    metadata = TaskMetadata(
        name="pseudo",
        level=Level.WORD,
        description="Is the form a real word (`1`) or a Wuggy pseudoword (`0`)? 50/50; a "
        "pseudoword and the real word it was made from share a group.",
        labels_derived="`0` (pseudoword) and `1` (real word), those present",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )
    source = "Wuggy table: real words are its seed words, pseudowords its matches"

    def label_order(self, present: set[str]) -> list[str]:
        return [x for x in (PSEUDO_LABEL, REAL_LABEL) if x in present]  # ids equal the names

    def row_id(self, lang: str, cand: WordCandidate) -> str:
        kind = "real" if cand.label == REAL_LABEL else "pseudo"
        return f"{lang}/{self.name}/{cand.group}/{kind}"

    def seed_lemmas(self, corpus: WordCorpus) -> Mapping[str, tuple[str, ...]] | None:
        return corpus.form_lemmas

    def result(self, corpus: WordCorpus) -> TaskResult:
        pseudo = corpus.pseudowords
        opts: WordOptions = self.options
        sizes = opts.sizes
        if pseudo is None:
            report = TaskReport("pseudo")
            report.ineligible(corpus.pseudo_missing or NO_WUGGY)
            return TaskResult("pseudo", [], report)
        seeds = {key_of(r.seed) for r in pseudo.rows if not has_space(r.seed)}
        target_rows = sizes.target(2 * len(seeds))
        n_pairs = target_rows // 2
        if len(seeds) < n_pairs or n_pairs < 1:
            report = TaskReport("pseudo")
            report.params = {**sizes.as_dict(), "n_pairs": n_pairs, "seed": self.seed}
            report.counts.update(seed_words=len(seeds), target_rows=target_rows)
            report.ineligible(
                f"{len(seeds)} seed words with a pseudoword < {n_pairs} pairs required "
                + ("(scale: 50% of 2 rows per seed, floor)" if opts.scale else "(min_forms / 2)")
            )
            return TaskResult("pseudo", [], report)
        result = pseudo_task(pseudo.rows, n_pairs=n_pairs, seed=self.seed)
        result.report.params.update(sizes.as_dict())
        result.report.counts["target_rows"] = target_rows
        facts = pseudo.facts
        result.report.counts["pseudowords"] = {
            "wuggy_table": facts["wuggy_table"],
            "wuggy_table_sha256": facts["wuggy_table_sha256"],
            "table_rows": facts["table_rows"],
            "kept": facts["pseudowords_kept"],
            "removed": facts["pseudowords_removed"],
            "real_words_removed": facts["real_words_removed"],
        }
        return result


# ------------------------------------------------------------------------------- pairs


def _merge_reports(task: str, parts: dict[str, TaskReport]) -> TaskReport:
    """One report of a task generated split by split (counts per split under its name)."""
    merged = TaskReport(task)
    merged.eligible = any(r.eligible for r in parts.values())
    for split, r in parts.items():
        merged.reasons += [f"{split} part: {x}" for x in r.reasons]
        merged.notes += [f"{split} part: {x}" for x in r.notes]
        merged.drops.update(r.drops)
        merged.counts[split] = dict(r.counts)
        for label, n in r.label_counts.items():
            merged.label_counts[label] = merged.label_counts.get(label, 0) + n
    first = next(iter(parts.values()), None)
    if first is not None:
        merged.params = {k: v for k, v in first.params.items() if k != "n_pairs"}
        merged.params["n_pairs"] = {s: r.params.get("n_pairs") for s, r in parts.items()}
    merged.label_counts = dict(sorted(merged.label_counts.items()))
    if not merged.eligible and not merged.reasons:
        merged.reasons.append("no part of the lexicon yields pairs")
    return merged


class PairTask(WordTask):
    """A word-pair task. ``partition_forms``: the form-disjoint set is generated inside a
    seeded form partition too (``same_feature``, whose pair graph percolates); otherwise it
    is generated over the whole lexicon and split by component (``odd_feature``). The
    lemma-disjoint set is always generated inside a lemma-family partition."""

    generate: ClassVar[Callable[..., TaskResult]]
    partition_forms: ClassVar[bool]

    def row_id(self, lang: str, cand: WordCandidate) -> str:
        k1, k2 = tuple(cand.keys) or (cand.lexical_key,)
        return f"{lang}/{self.name}/{k1}|{k2}"

    def _in_partition(
        self, corpus: WordCorpus, unit: str, counts: tuple[int, int, int]
    ) -> tuple[WordPool | None, TaskReport]:
        """Pairs generated inside each split's part of the lexicon, so that no pair straddles
        two splits."""
        seed = self.seed
        by_split = corpus.partition(unit, counts, seed)
        reports: dict[str, TaskReport] = {}
        cands: list[tuple[int, WordCandidate]] = []
        for s, name in enumerate(SPLITS):
            if counts[s] == 0 or not by_split[s]:
                continue
            res = type(self).generate(
                by_split[s],
                lang=corpus.iso3,
                sizes=self.options.sizes,
                n_pairs=counts[s],
                seed=seed,
            )
            reports[name] = res.report
            cands += [(s, c) for c in res.candidates]
        report = _merge_reports(self.name, reports)
        if not cands:
            return None, report
        shares = "/".join(map(str, counts))
        family = "form" if unit == "form" else "lemma-family"
        pool = WordPool(
            unit,
            tuple(c for _, c in cands),
            counts,
            f"pairs generated inside each split's part of a seeded {family} partition of the "
            f"lexicon (shares {shares}), so that no pair straddles two splits",
            source_split=tuple(s for s, _ in cands),
            facts={
                "partition": unit,
                "partition_forms": {
                    SPLITS[s]: len({key_of(e.form) for e in by_split[s]}) for s in range(3)
                },
                "pairs_wanted": dict(zip(SPLITS, counts, strict=True)),
            },
        )
        return pool, report

    def fit(self, corpus: WordCorpus) -> WordFit:  # type: ignore[override]
        opts: WordOptions = self.options
        total = opts.sizes.target(corpus.pair_forms)
        counts = opts.split_counts(total)
        pools: list[WordPool] = []
        reports: dict[str, TaskReport] = {}
        for unit in ("form", "lemma"):
            pool: WordPool | None
            if unit == "form" and not self.partition_forms:
                result = type(self).generate(
                    corpus.entries,
                    lang=corpus.iso3,
                    sizes=opts.sizes,
                    n_pairs=total,
                    seed=self.seed,
                )
                reports[unit] = result.report
                pool = None
                if result.candidates:
                    pool = WordPool(
                        unit,
                        tuple(result.candidates),
                        counts,
                        f"{'/'.join(map(str, counts))} pairs; pairs sharing a word form one "
                        "component and go to one split whole",
                    )
            else:
                pool, reports[unit] = self._in_partition(corpus, unit, counts)
            if pool is not None:
                pools.append(pool)
        report, lemma_report = reports["form"], reports["lemma"]
        report.counts["target_pairs"] = total
        report.counts["lemma_disjoint"] = {
            "eligible": lemma_report.eligible,
            "reasons": lemma_report.reasons,
            "label_counts": lemma_report.label_counts,
            "drops": dict(sorted(lemma_report.drops.items())),
            "notes": lemma_report.notes,
        }
        if not report.eligible and lemma_report.eligible:
            report.eligible = True
        labels = self.label_order({*report.label_counts, *lemma_report.label_counts})
        return _fitted(report, labels, tuple(pools), tuple(lemma_report.notes))


class SameFeature(PairTask):
    metadata = TaskMetadata(
        name="same_feature",
        level=Level.WORD_PAIR,
        description="Two forms of different lemmas: the one feature value they share (and "
        "differ in every other compared feature), or `lemma` for two forms of one lemma "
        "sharing none.",
        labels_derived="the shared dimensions found with at least 5 pairs each, and `lemma`; "
        "alphabetical, `lemma` last",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )
    generate = staticmethod(same_feature)
    partition_forms = True


class OddFeature(PairTask):
    metadata = TaskMetadata(
        name="odd_feature",
        level=Level.WORD_PAIR,
        description="Two forms of one lemma: the one feature they differ in, or `lemma` for "
        "two forms of different lemmas with the same full tag bundle.",
        labels_derived="the differing dimensions found with at least 5 pairs each, and "
        "`lemma`; alphabetical, `lemma` last",
        citation=SAHIN_2020,
        lexical_control=True,
        seed_dependent=True,
        record="lexicon entry",
    )
    generate = staticmethod(odd_feature)
    partition_forms = False


# ------------------------------------------------------------------------------- registry

_PERSON = (
    "Person and number of the subject of a word form (UniMorph schema names, e.g. "
    "`Third person Singular`), or `None` for forms that never carry person."
)


def _feature_task(name: str) -> type[FeatureTask]:
    """The task class of one dimension (module-level name ``<Name>Task``)."""
    if name == "person":
        description = _PERSON
    else:
        what = FEATURE_TASKS.get(name, name)
        if name.startswith(LAYER_TASK_PREFIX):
            argument = name[len(LAYER_TASK_PREFIX) :].upper()
            what = f"person and number of the {argument} argument"
        description = (
            f"{what} of a word form (UniMorph schema value names, as LINSPECTOR released "
            "them), or `None` for forms that never carry it."
        )
    cls_name = "".join(part.capitalize() for part in name.split("_")) + "Task"
    cls = type(
        cls_name,
        (FeatureTask,),
        {
            "metadata": TaskMetadata(
                name=name,
                level=Level.WORD,
                description=description,
                labels_derived="the unambiguous values with at least 5 forms each, "
                "alphabetical, then `None`",
                citation=SAHIN_2020,
                lexical_control=True,
                seed_dependent=True,
                record="lexicon entry",
            ),
            "__module__": __name__,
            "__doc__": f"``{name}``: {description}",
        },
    )
    return cls


FEATURE_TASK_CLASSES: tuple[type[FeatureTask], ...] = tuple(
    _feature_task(name) for name in FEATURE_TASKS
)
globals().update({cls.__name__: cls for cls in FEATURE_TASK_CLASSES})

# LINSPECTOR's 15, in the order the card lists them.
WORD_TASKS: tuple[type[WordTask], ...] = (
    *FEATURE_TASK_CLASSES,
    Pos,
    TagCount,
    CharacterBin,
    Pseudo,
    SameFeature,
    OddFeature,
)


@cache
def layer_task(name: str) -> type[WordTask] | None:
    """The task of an argument layer (``person_dat``: person and number of the dative
    argument), made on demand; None for a name that is not one."""
    return _feature_task(name) if is_layer_task(name) else None
