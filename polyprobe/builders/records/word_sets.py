"""From a word task's fit to the shared assembly's :class:`CandidateSet`\\ s: every word task
yields a form-disjoint set (``form``) and a lemma-disjoint one (``lemma-disjoint``, configs
ending in ``-lemma-disjoint``).

Why the columns look the way they do: each row's published ``group`` is its connected
component over the words it touches (and, lemma-disjoint, their lemmas); the engine gets
``group`` = the row's own unit (a form, a seed word with its pseudoword, a pair) and ``key`` =
that component, so its components are exactly ours while each is walked by one small unit's
seeded order (a whole component as one group would pull big components into train).

What the card says per config besides the shared fields (the ``describe`` hook): the
recipe's parameters and counts, how the split was made, and for pairs the share of test words
and lemmas seen in train (LINSPECTOR: 80–94% of SameFeat test words; here 0% of forms by
construction).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from polyprobe.builders.assemble import CandidateSet, config_names, rows_reader
from polyprobe.builders.variants import (
    SPLITS,
    CandidateColumns,
    SplitSpec,
    TaskVariants,
    Variant,
)
from polyprobe.builders.word.common import (
    WordCandidate,
    component_names,
    component_stats,
    hashes,
)
from polyprobe.builders.word.corpus import WordCorpus
from polyprobe.builders.word.tasks import LINSPECTOR, WordFit, WordOptions, WordPool, WordTask
from polyprobe.cards.schema import arrow_schema
from polyprobe.hashing import stable_u64
from polyprobe.metadata import Level

LEMMA_DISJOINT = "lemma-disjoint"


@dataclass
class Rows:
    """One candidate set in published-schema columns, plus what its engine columns and its
    leakage statistics are made from."""

    ids: list[str]
    inputs: dict[str, list[str]]
    labels: list[str]
    groups: list[str]
    keys: list[str]
    lemmas: list[tuple[str, ...]]  # lemmas each row touches (for leakage statistics)
    words: list[tuple[str, ...]]  # form keys each row touches
    units: list[str]  # the row's own unit: its form, its seed word (pseudo), its pair
    source_split: Sequence[int] | None = None


def rows_of(
    cands: Sequence[WordCandidate],
    ids: Sequence[str],
    *,
    lemma_disjoint: bool,
    pair: bool,
    seed_lemmas: Mapping[str, tuple[str, ...]] | None = None,
) -> Rows:
    """Published columns for candidates. ``group`` is the row's component (rows sharing a word
    or, lemma-disjoint, a lemma share it), so ``validate`` checks the control as well."""
    words: list[tuple[str, ...]] = []
    lemmas: list[tuple[str, ...]] = []
    for c in cands:
        ws = tuple(c.keys) or (c.lexical_key,)
        if c.group and c.group not in ws and not pair:
            ws = (*ws, c.group)  # pseudo: a pseudoword is tied to its seed word
        words.append(ws)
        ls = tuple(c.lemmas)
        if seed_lemmas is not None:  # pseudo: the seed word's lemmas, when in the lexicon
            ls = tuple(dict.fromkeys(lm for w in ws for lm in seed_lemmas.get(w, ())))
        lemmas.append(ls)
    groups = component_names(words, lemmas if lemma_disjoint else None)
    if pair:
        inputs = {
            "word1": [c.word[0] for c in cands],  # type: ignore[index]
            "word2": [c.word[1] for c in cands],  # type: ignore[index]
        }
    else:
        inputs = {"word": [str(c.word) for c in cands]}
    return Rows(
        ids=list(ids),
        inputs=inputs,
        labels=[c.label for c in cands],
        groups=groups,
        keys=[c.lexical_key for c in cands],
        lemmas=lemmas,
        words=words,
        units=[c.group for c in cands],
    )


def columns(rows: Rows, label_names: Sequence[str], seed: int) -> CandidateColumns:
    """The engine's columns of a set (see the module docstring for group and key)."""
    index = {name: i for i, name in enumerate(label_names)}
    n = len(rows.ids)
    split = rows.source_split if rows.source_split is not None else [-1] * n
    return CandidateColumns(
        label=np.asarray([index[x] for x in rows.labels], dtype=np.int16),
        group=hashes(rows.units, "unit"),
        key=hashes(rows.groups, "component"),
        source_split=np.asarray(split, dtype=np.int8),
        order=np.asarray([stable_u64(seed, i) for i in rows.ids], dtype=np.uint64),
    )


def table(
    rows: Rows, level: Level, label_index: np.ndarray, indices: np.ndarray, tv: TaskVariants
) -> pa.Table:
    """The rows ``indices`` of a set in the published schema, labels as the variant maps
    them."""
    schema = arrow_schema(level.value, tv.label_names)
    idx = np.asarray(indices, dtype=np.int64)
    labels = tv.label_remap[label_index[idx]].astype(np.int64)
    if labels.size and labels.min() < 0:
        raise AssertionError("variant engine returned a candidate of a dropped class")
    pick = idx.tolist()
    arrays: dict[str, Any] = {
        "id": pa.array([rows.ids[i] for i in pick], type=pa.string()),
        "label": pa.array(labels, type=pa.int64()),
        "group": pa.array([rows.groups[i] for i in pick], type=pa.string()),
        "lexical_key": pa.array([rows.keys[i] for i in pick], type=pa.string()),
    }
    for col, values in rows.inputs.items():
        arrays[col] = pa.array([values[i] for i in pick], type=pa.string())
    return pa.Table.from_arrays([arrays[f.name] for f in schema], schema=schema)


def seen_share(rows: Rows, variant: Variant) -> dict[str, Any]:
    """Share of the test split's words (form keys) and lemmas that also occur in train: the
    leakage LINSPECTOR's pair data had (80–94% of SameFeat test words)."""

    def collect(split: str, attr: str) -> set[str]:
        values: set[str] = set()
        for i in variant.indices[split].tolist():
            values.update(getattr(rows, attr)[i])
        return values

    out: dict[str, Any] = {}
    for attr, what in (("words", "forms"), ("lemmas", "lemmas")):
        train, test = collect("train", attr), collect("test", attr)
        out[f"test_{what}"] = len(test)
        out[f"test_{what}_seen_in_train"] = len(test & train)
        out[f"test_{what}_seen_in_train_share"] = (
            round(len(test & train) / len(test), 4) if test else 0.0
        )
    return out


# ------------------------------------------------------------------------------ card text


def _recipe(
    task: WordTask, fit: WordFit, pool: WordPool, facts: Mapping[str, Any]
) -> dict[str, Any]:
    """The card's recipe entries every config of a set shares."""
    params, counts = fit.report["params"], fit.report["counts"]
    out: dict[str, Any] = {"source": task.source, "recipe": LINSPECTOR}
    out.update(params)
    out.update(
        {f"count {k}": v for k, v in counts.items() if k != "lemma_disjoint" and k not in SPLITS}
    )
    if task.level == Level.WORD_PAIR:
        for s in SPLITS:
            if s in counts:
                out[f"{s} part"] = {
                    k: v for k, v in counts[s].items() if k in ("forms", "lemmas", "pairs_found")
                }
    options: WordOptions = task.options
    out["split_sizes_requested"] = list(options.split_sizes)
    if pool.source_split is None:
        out["split_sizes"] = list(pool.counts)
    out.update(facts)
    out["disjoint"] = LEMMA_DISJOINT if pool.disjoint == "lemma" else "form"
    return out


@dataclass
class _Describe:
    """Per-config recipe entries and notes of one set (the assembly's ``describe`` hook).
    Each config's leakage is also recorded under the set's ``leakage`` fact, by config
    name."""

    task: WordTask
    fit: WordFit
    pool: WordPool
    rows: Rows
    unknown_tags: int
    leakage: dict[str, Any]
    cset: CandidateSet | None = None

    def __call__(self, variant: Variant, tv: TaskVariants) -> tuple[dict[str, Any], list[str]]:
        assert self.cset is not None
        task, options = self.task, self.task.options
        pair = task.level == Level.WORD_PAIR
        lemma = self.pool.disjoint == "lemma"
        leak = seen_share(self.rows, variant)
        name = next(n for n, v in config_names(self.cset, tv) if v is variant)
        self.leakage[name] = leak
        notes: list[str] = []
        if options.scale:
            notes.append(
                "--scale: the task size is 50% of the forms carrying the feature "
                f"(floor {options.sizes.scale_floor}) and the split sizes are that size in the "
                f"proportions {'/'.join(map(str, options.split_sizes))}; LINSPECTOR used a "
                "fixed 10,000 with 7000/2000/1000"
            )
        notes += self.fit.notes
        if pair and lemma:
            notes += [f"lemma-disjoint set: {n}" for n in self.fit.lemma_notes]
        notes.append(f"split: {self.pool.reason}")
        notes += tv.notes
        notes.append(
            "every word form is in one split only"
            + ("; every lemma is in one split only" if lemma else "")
        )
        if pair:
            notes.append(
                f"test words seen in train: {leak['test_forms_seen_in_train']} of "
                f"{leak['test_forms']} forms "
                f"({100 * leak['test_forms_seen_in_train_share']:.1f}%), "
                f"{leak['test_lemmas_seen_in_train']} of {leak['test_lemmas']} lemmas "
                f"({100 * leak['test_lemmas_seen_in_train_share']:.1f}%); LINSPECTOR's "
                "SameFeat: 80-94% of test words"
            )
        if self.unknown_tags:
            notes.append(
                f"{self.unknown_tags} lexicon entries carry tags outside the schema (LGSPEC* "
                "included); they are kept, and counted in the card's profile"
            )
        return (leak if pair else {}), notes


def candidate_sets(task: WordTask, fit: WordFit, corpus: WordCorpus) -> list[CandidateSet]:
    """The task's sets, form-disjoint first (it provides the recommended ``<task>`` config)."""
    pair = task.level == Level.WORD_PAIR
    out = []
    for pool in task.emit(fit):
        lemma = pool.disjoint == "lemma"
        rows = rows_of(
            pool.candidates,
            [task.row_id(corpus.lang, c) for c in pool.candidates],
            lemma_disjoint=lemma,
            pair=pair,
            seed_lemmas=pool.seed_lemmas,
        )
        rows.source_split = pool.source_split
        if pool.source_split is None:  # the engine cuts whole components to these sizes
            split = SplitSpec("sizes", counts=pool.counts, reason=pool.reason, stratify=True)
            split_label = ""
        else:  # each candidate is in the split it was generated in
            split = SplitSpec("ud", reason=pool.reason, source_label="partition")
            split_label = "sizes:" + "/".join(map(str, pool.counts))
        facts = dict(pool.facts)
        if pair:
            facts["component_sizes"] = component_stats(rows.groups)
        cols = columns(rows, fit.label_names, task.seed)
        leakage: dict[str, Any] = {}
        describe = _Describe(task, fit, pool, rows, corpus.unknown_tags, leakage)
        cset = CandidateSet(
            metadata=task.metadata,
            label_names=fit.label_names,
            columns=cols,
            rows=rows_reader(table, rows, task.level, cols.label),
            split=split,
            recipe=_recipe(task, fit, pool, facts),
            task_drops=dict(fit.drops),
            name=LEMMA_DISJOINT if lemma else "form",
            suffix=f"-{LEMMA_DISJOINT}" if lemma else "",
            disjoint=LEMMA_DISJOINT if lemma else "form",
            split_label=split_label,
            seed_dependent=True,
            describe=describe,
            # ``leakage`` fills as the configs are written (the report is written after).
            facts={**facts, "leakage": leakage},
        )
        describe.cset = cset
        out.append(cset)
    return out
