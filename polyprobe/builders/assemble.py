"""Assembly: one task's candidates → the variant engine → config names → config files, and the
task's entry in ``report.json``. Every source family goes through here, so balance, sizes,
class floors, the ``unpaired`` variant of paired tasks, config naming and the report mean the
same in every dataset polyprobe writes.

The input is a :class:`CandidateSet` (the engine's columns of a task's candidates plus a way
to read its rows back); how a family makes one (spooled sentences, word components) is its
own business. Assembly is a pure function of the set and the settings, so any process may
run it (``polyprobe.runtime.parallel``), and it writes into the dataset writer's staging
folder with :func:`polyprobe.cards.folder.write_config_files`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.builders.confounds import (
    audit_counts,
    audit_note,
    length_counts,
    pair_counts,
    predicate_audit,
)
from polyprobe.builders.floors import test_rows_remedy
from polyprobe.builders.ratios import display, ratio_of
from polyprobe.builders.variants import (
    CATCH_ALL_LABELS,
    NO_ROWS_REASON,
    SPLITS,
    CandidateColumns,
    SplitSpec,
    TaskVariants,
    Variant,
    VariantSettings,
    make_scored_variants,
    make_variants,
)
from polyprobe.cards.payload import ConfigCard, ConfigPayload, SplitCopy, SplitSource
from polyprobe.metadata import INPUT_COLUMNS, ConfigBlock, Level, TaskMetadata, VariantBlock

# How a set's rows are read back for one split: ``(candidate indices in output order, the
# task's variants) -> a table or a callable yielding row-group chunks``.
RowReader = Callable[[np.ndarray, TaskVariants], SplitSource]

UNPAIRED_NOTE = (
    "unpaired: one copy per group (chosen by the seeded order hash), then classes balanced; "
    "as in SentEval, no sentence appears in both versions"
)


@dataclass
class CandidateSet:
    """A task's candidates as the engine sees them, and everything its configs print.

    A task has one set, except word tasks, which also have a ``lemma-disjoint`` one (its
    configs' names end in ``suffix``; it never provides the recommended ``<task>`` config).
    ``describe(variant, variants)`` adds per-config recipe entries and notes (word pair tasks
    report how many test words train has seen)."""

    metadata: TaskMetadata
    label_names: tuple[str, ...]
    columns: CandidateColumns
    rows: RowReader
    split: SplitSpec
    recipe: dict[str, Any]
    notes: tuple[str, ...] = ()
    task_drops: dict[str, int] = field(default_factory=dict)
    name: str = "default"  # the set's name in report.json
    suffix: str = ""  # appended to every config name of this set
    disjoint: str = ""  # the variant block's ``disjoint`` (word tasks)
    split_label: str = ""  # how the card names the split, if not ``split.label``
    seed_dependent: bool | None = None  # None: decided per config (see _seed_dependent)
    describe: Callable[[Variant, TaskVariants], tuple[dict[str, Any], list[str]]] | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # set facts for report.json


@dataclass
class TaskSummary:
    """What happened to one task: the command's closing table is made from this."""

    task: str
    candidates: int
    class_counts: dict[str, int]
    configs: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)  # recommended config: split -> rows
    not_built: list[str] = field(default_factory=list)
    infeasible: str | None = None


@dataclass
class AssembledTask:
    """One task's configs on disk (their cards, in order) and its report entry."""

    name: str
    cards: list[ConfigCard]
    report: dict[str, Any]
    summary: TaskSummary


def assemble(
    sets: Sequence[CandidateSet],
    settings: VariantSettings,
    seed: int,
    staging: Path,
    *,
    task_report: dict[str, Any] | None = None,
    infeasible: str | None = None,
) -> AssembledTask:
    """Make the variants of each set and write their configs under ``staging``.

    ``task_report`` holds what the task reports besides its sets (derived facts);
    ``infeasible`` says why a task made no set at all. The report entry has one schema for
    every family: see :func:`report_entry`."""
    from polyprobe.cards.folder import write_config_files

    first = sets[0] if sets else None
    name = first.metadata.name if first else str((task_report or {}).get("task", ""))
    summary = TaskSummary(
        task=name,
        candidates=len(first.columns) if first else 0,
        class_counts=_class_counts(first) if first else {},
        infeasible=infeasible,
    )
    cards: list[ConfigCard] = []
    set_entries: dict[str, dict[str, Any]] = {}
    for i, cset in enumerate(sets):
        cset, tv, entries = _variants(cset, settings)
        entry = _set_entry(cset, tv)
        set_entries[cset.name] = entry
        prefix = "" if i == 0 else f"{cset.name}: "
        if tv is None:
            why = entry["infeasible"]
            if i == 0:
                summary.infeasible = why
            continue
        summary.not_built += [prefix + m for m in entry["not_built"]]
        if tv.infeasible is not None:
            if i == 0:
                summary.infeasible = tv.infeasible
            continue
        cards_written: list[ConfigCard] = []
        sources = copy_sources([(variant, tv_used) for _, variant, tv_used in entries])
        audit = None if cset.metadata.scored else AuditCounter(cset.metadata.level, sources)
        for j, (cfg_name, variant, tv_used) in enumerate(entries):
            copies = {sp: cards_written[i] for sp, i in sources[j].items()}
            card = write_config_files(
                staging,
                _payload(cset, cfg_name, variant, tv_used, copies, settings, seed),
                observe=None if audit is None else audit.observe,
            )
            if audit is not None:  # the audit compares classes; a score has none
                confounds = audit.audit(j, card)
                predicate_counts = cset.recipe.get("predicate_types")
                if predicate_counts:
                    confounds["predicate_type"] = predicate_audit(
                        predicate_counts, cset.label_names
                    )
                    confounds["flags"] += confounds["predicate_type"]["flags"]
                entry["confounds"][cfg_name] = confounds
                card.payload.notes.append(audit_note(confounds))
            cards.append(card)
            cards_written.append(card)
            entry["built"].append(cfg_name)
            summary.configs.append(cfg_name)
            if cfg_name == cset.metadata.config_name:
                summary.rows = {sp: len(variant.indices[sp]) for sp in SPLITS}
    if sets and not summary.configs and summary.infeasible is None:
        summary.infeasible = (
            "; ".join(f"{n}: {e['infeasible']}" for n, e in set_entries.items() if e["infeasible"])
            or "no config could be built"
        )
    report = report_entry(summary, first, set_entries, task_report or {})
    return AssembledTask(name, cards, report, summary)


def _class_counts(cset: CandidateSet) -> dict[str, int]:
    labels = cset.label_names
    if len(cset.columns) == 0:
        return {n: 0 for n in labels}
    counts = np.bincount(cset.columns.label, minlength=len(labels))
    return {n: int(c) for n, c in zip(labels, counts, strict=True)}


# The recommended config's test split must be able to compare encoders: at 500 rows a
# two-proportion test detects about 9 accuracy points (cards print the exact figure).
MIN_TEST_ROWS = 500
# Ratio splits tried, in order, when the source's own test split leaves the recommended config
# fewer rows: the first that reaches MIN_TEST_ROWS (else the one with the most test rows).
# Validation stays at 10%: it only picks a probe's regularisation, while the test split must
# compare encoders and train must teach the probe. Growing validation with test (the earlier
# 70/15/15 ... 50/25/25) cost EWT subject_number a third of its train rows (816 at 50/25/25,
# 996 at 60/10/30) without reaching 500 test rows. Validation grows only when 10% of a small
# pool cannot meet its class floor (Turkish IMST subject_number): the last three, as before.
RESPLIT_RATIOS: tuple[tuple[int, int, int], ...] = (
    (80, 10, 10),
    (70, 10, 20),
    (60, 10, 30),
    (50, 10, 40),
    (70, 15, 15),
    (60, 20, 20),
    (50, 25, 25),
)


def _variants(
    cset: CandidateSet, settings: VariantSettings
) -> tuple[CandidateSet, TaskVariants | None, list[tuple[str, Variant, TaskVariants]]]:
    """The set (re-split when its own test split is too small, see :func:`_resplit`), its
    variants and its configs: (name, variant, the variants it came from)."""
    if len(cset.columns) == 0:
        return cset, None, []
    settings = replace(settings, split=cset.split)
    if cset.metadata.scored:
        tv = _scored_variants(cset, settings)
    else:
        tv = make_variants(
            cset.columns,
            list(cset.label_names),
            settings,
            CATCH_ALL_LABELS,
            min_classes=_min_classes(cset),
        )
        cset, tv = _resplit(cset, settings, tv)
        settings = replace(settings, split=cset.split)
    if tv.infeasible is not None:
        return cset, tv, []
    entries = [(n, v, tv) for n, v in config_names(cset, tv)]
    if cset.metadata.paired_copies:
        entries += _unpaired_entries(cset, settings, tv)
    return cset, tv, entries


def _test_remedy(tv: TaskVariants, own: int, resplit: bool = True) -> str:
    """The cheapest change giving :data:`MIN_TEST_ROWS` test rows on this input
    (:func:`~polyprobe.builders.floors.test_rows_remedy`)."""
    rows = [int(tv.class_counts[s].sum()) for s in range(3)] if tv.class_counts.size else []
    return test_rows_remedy(own, rows, MIN_TEST_ROWS, "candidate rows", resplit)


def recommended_test_rows(cset: CandidateSet, tv: TaskVariants) -> int:
    """Rows of the recommended config's test split (0 when nothing is built)."""
    if tv.infeasible is not None or cset.suffix:
        return 0
    names = config_names(cset, tv)
    return int(len(names[0][1].indices["test"])) if names else 0


def _may_resplit(cset: CandidateSet) -> bool:
    """Only sets whose split the build chose (not ``--split``) and that provide a recommended
    config (never the word pair sets, made inside a partition): a treebank's own splits, or
    a family's default ratio split (raw text, documents, files or treebanks without splits)."""
    split = cset.split
    chosen = not split.reason.startswith("requested") and not cset.suffix
    treebank = split.mode == "ud" and split.source_label == "ud"
    return chosen and (treebank or split.mode == "ratio")


def _floor_losses(tv: TaskVariants) -> int:
    """Classes the floors dropped (a class with no row anywhere cannot be won back)."""
    return sum(1 for why in tv.dropped_classes.values() if why != NO_ROWS_REASON)


def _kept(tv: TaskVariants) -> int:
    return 0 if tv.infeasible is not None else len(tv.label_names)


def _ratio_variants(
    cset: CandidateSet, settings: VariantSettings
) -> Iterator[tuple[int, int, SplitSpec, TaskVariants]]:
    """(classes kept, recommended test rows, split, variants) of each split of
    :data:`RESPLIT_RATIOS` that builds, in that order (lazily: a caller may stop early)."""
    for ratios in RESPLIT_RATIOS:
        spec = SplitSpec("ratio", ratios)
        other = make_variants(
            cset.columns, list(cset.label_names), replace(settings, split=spec), CATCH_ALL_LABELS
        )
        if other.infeasible is None:
            yield len(other.label_names), recommended_test_rows(cset, other), spec, other


def _choose_ratios(
    cset: CandidateSet, settings: VariantSettings
) -> tuple[int, int, SplitSpec, TaskVariants] | None:
    """The split of :data:`RESPLIT_RATIOS` that keeps the most classes and, among those, has
    the test power: the first (in that order) whose recommended config reaches
    :data:`MIN_TEST_ROWS` test rows, else the one with the most. (classes, test rows, split,
    variants), or None when no ratio split builds."""
    tried = list(_ratio_variants(cset, settings))
    if not tried:
        return None
    most = max(t[0] for t in tried)
    keeping = [t for t in tried if t[0] == most]
    powered = [t for t in keeping if t[1] >= MIN_TEST_ROWS]
    return powered[0] if powered else max(keeping, key=lambda t: t[1])


def _most_test_rows(
    cset: CandidateSet, settings: VariantSettings, classes: int
) -> tuple[int, int, SplitSpec, TaskVariants] | None:
    """The test-power choice for a treebank's own split: the first of :data:`RESPLIT_RATIOS`
    that reaches :data:`MIN_TEST_ROWS` without keeping fewer than ``classes`` classes (the
    treebank split's), else the one with the most test rows; None when none builds. Test
    power, not classes, is what this re-split is for: ranking by classes first would trade a
    treebank task's train and test rows for a rare class (EWT ``sentence_length`` would go to
    50/25/25, 450 test rows and no 10k train variant, to keep ``56+``'s 149 rows)."""
    best: tuple[int, int, SplitSpec, TaskVariants] | None = None
    for tried in _ratio_variants(cset, settings):
        if tried[0] < classes:
            continue
        if best is None or tried[1] > best[1]:
            best = tried
        if tried[1] >= MIN_TEST_ROWS:
            break
    return best


def _resplit(
    cset: CandidateSet, settings: VariantSettings, tv: TaskVariants
) -> tuple[CandidateSet, TaskVariants]:
    """Choose again a split the build chose when it loses what the candidates could give:

    * a **treebank's own test split** that leaves the recommended config fewer than
      :data:`MIN_TEST_ROWS` rows (EWT ``subject_number``: 70, because the test items whose
      subject lemma train already has are dropped);
    * a **default ratio split** (80/10/10 of raw text, documents, files or treebanks without
      splits) under which a class misses its floor by the chance of which documents land in a
      small split, while another ratio keeps it (the English excerpt's ``sentence_position``:
      18 validation rows of class ``4`` < 20). A ratio split's test share is already taken
      from the whole pool, so a small test split alone is no reason to move it.

    The candidates are :data:`RESPLIT_RATIOS`: for a lost class ranked by the classes they
    keep, then by test power (:func:`_choose_ratios`); for test power by test rows without
    losing a class the treebank split kept (:func:`_most_test_rows`). Ratio splits move whole
    (group ∪ lexical key) components, so the leakage control holds; the card says why."""
    if cset.suffix:
        return cset, tv
    own = recommended_test_rows(cset, tv)
    ratio_default = cset.split.mode == "ratio" and _may_resplit(cset)
    best = _choose_ratios(cset, settings) if ratio_default and _floor_losses(tv) else None
    if best is not None and best[0] > _kept(tv):
        kept, rows, spec, other = best
        lost = "; ".join(
            f"{name}: {why}" for name, why in tv.dropped_classes.items() if why != NO_ROWS_REASON
        )
        reason = (
            f"{cset.split.reason}; re-split {spec.label}: ratio "
            f"{'/'.join(map(str, cset.split.ratios))} kept {_kept(tv)} class(es) (dropped {lost}),"
            f" {spec.label} keeps {kept}: of {', '.join('/'.join(map(str, r)) for r in RESPLIT_RATIOS)}"
            f" the split keeping the most classes and, among those, the most test power "
            f"({rows} test rows in the recommended config)"
            + ". Whole (group ∪ lexical key) components are moved, so no group or key is in "
            "two splits"
        )
        return replace(cset, split=replace(spec, reason=reason)), other
    if tv.infeasible is not None or own >= MIN_TEST_ROWS:
        return cset, tv
    if ratio_default or not _may_resplit(cset):
        why = (
            "the split was requested (--split)"
            if cset.split.reason.startswith("requested")
            else f"the split is the family's own ({cset.split_label or cset.split.label}"
            + (f": {cset.split.reason}" if cset.split.reason else "")
            + ")"
        )
        cset.notes = (
            *cset.notes,
            f"test split: the recommended config has {own} test rows (< {MIN_TEST_ROWS}, "
            f"see Test power); not re-split because {why}; " + _test_remedy(tv, own),
        )
        return cset, tv
    best = _most_test_rows(cset, settings, _kept(tv))
    if best is None or best[1] <= own:
        cset.notes = (
            *cset.notes,
            f"test split: the recommended config has {own} test rows (< {MIN_TEST_ROWS}); no "
            "ratio split of the candidates gives more without losing a class; "
            + _test_remedy(tv, own, resplit=False),
        )
        return cset, tv
    _, rows, spec, other = best
    reason = (
        f"re-split {spec.label}: the treebanks' own test split left the recommended config "
        f"{own} test rows (< {MIN_TEST_ROWS}, too few to compare encoders; test items whose "
        f"group or lexical key an earlier split holds are dropped); this split gives {rows}"
        + (
            ""
            if rows >= MIN_TEST_ROWS
            else f", the most any of {', '.join('/'.join(map(str, r)) for r in RESPLIT_RATIOS)} gives"
        )
        + (
            ". Validation is kept at 10% (it only tunes the probe) so train keeps its rows"
            if spec.ratios[1] == 10
            else ". Validation is larger than 10%: no split with 10% validation kept every class "
            "and gave more test rows"
        )
        + ". Whole (group ∪ lexical key) components are moved, so no group or key is in two splits"
    )
    return replace(cset, split=replace(spec, reason=reason)), other


SCORED_NOTE = (
    "scored task: the label is a graded score, so only the natural variant is built (no "
    "balancing, no class floors); train sizes are nested prefixes as for every task"
)


def _scored_variants(cset: CandidateSet, settings: VariantSettings) -> TaskVariants:
    """A scored task's variants (:func:`make_scored_variants`); a requested balance other
    than ``natural`` is reported as not built, with why."""
    tv = make_scored_variants(cset.columns, settings)
    tv.not_built += [
        f"{display(b)}: not built for a scored task (no classes to balance)"
        for b in settings.balances
        if b != "natural"
    ]
    tv.notes.append(SCORED_NOTE)
    return tv


def _min_classes(cset: CandidateSet) -> int:
    """A lexical set's label describes its rows (an analogy category, a COSTRA type) and no
    classifier learns it: a set of one category is still a set. Every other task needs two."""
    return 1 if cset.metadata.task_type == "lexical" else 2


def config_names(cset: CandidateSet, tv: TaskVariants) -> list[tuple[str, Variant]]:
    """``<config>`` is balanced-full when built, else natural-full (downstream tasks: the
    other way round, a downstream task is its natural distribution: a tagger's test set is
    running text); the others are ``<config>.<balance>-<size>``, each followed by the set's
    suffix. A suffixed set has no recommended config."""
    base = cset.metadata.config_name
    if cset.suffix:
        return [(f"{base}.{v.balance}-{v.size}{cset.suffix}", v) for v in tv.variants]
    order = (
        ("natural", "balanced")
        if cset.metadata.task_type == "downstream"
        else ("balanced", "natural")
    )
    recommended = tv.get(order[0], "full") or tv.get(order[1], "full")
    out: list[tuple[str, Variant]] = []
    if recommended is not None:
        out.append((base, recommended))
    out += [(f"{base}.{v.balance}-{v.size}", v) for v in tv.variants if v is not recommended]
    return out


def _unpaired_entries(
    cset: CandidateSet, settings: VariantSettings, tv_paired: TaskVariants
) -> list[tuple[str, Variant, TaskVariants]]:
    """SentEval never showed both versions of a sentence: the ``unpaired`` variant keeps one
    copy per group (the lowest order hash), then balances classes like ``balanced``."""
    cols = cset.columns
    by_group = np.lexsort((np.arange(len(cols.group)), cols.order, cols.group))
    first = np.ones(len(by_group), dtype=bool)
    first[1:] = cols.group[by_group][1:] != cols.group[by_group][:-1]
    keep = np.sort(by_group[first])
    sub = CandidateColumns(
        label=cols.label[keep],
        group=cols.group[keep],
        key=cols.key[keep],
        source_split=cols.source_split[keep],
        order=cols.order[keep],
    )
    tv = make_variants(
        sub, list(cset.label_names), replace(settings, balances=("balanced",)), CATCH_ALL_LABELS
    )
    if tv.infeasible is not None:
        tv_paired.not_built.append(f"unpaired: {tv.infeasible}")
        return []
    tv_paired.not_built.extend(f"unpaired: {m}" for m in tv.not_built)
    out: list[tuple[str, Variant, TaskVariants]] = []
    for v in tv.variants:
        if not any(len(ix) for ix in v.indices.values()):
            # one copy per group can leave a class empty (a single document): balanced to it,
            # nothing is left, and a config without rows is never written
            tv_paired.not_built.append(f"unpaired-{v.size}: no rows (a class has no copy left)")
            continue
        mapped = Variant(
            balance="unpaired",
            size=v.size,
            indices={sp: keep[np.asarray(ix, dtype=np.int64)] for sp, ix in v.indices.items()},
        )
        out.append((f"{cset.metadata.config_name}.unpaired-{v.size}", mapped, tv))
    return out


def _payload(
    cset: CandidateSet,
    cfg_name: str,
    variant: Variant,
    tv: TaskVariants,
    copies: dict[str, ConfigCard],
    settings: VariantSettings,
    seed: int,
) -> ConfigPayload:
    """The config's payload; ``copies``: the configs written before whose split (the key)
    holds exactly this config's rows there (:func:`copy_sources`)."""
    meta = cset.metadata
    recipe = dict(cset.recipe)
    notes = list(cset.notes)
    if variant.balance == "unpaired":
        notes.append(UNPAIRED_NOTE)
    if ratio_of(variant.balance) is not None:  # how its class ratio was drawn
        notes += [n for n in tv.notes if n.startswith(f"{display(variant.balance)} (")]
    if cset.describe is not None:
        extra_recipe, extra_notes = cset.describe(variant, tv)
        recipe.update(extra_recipe)
        notes += extra_notes
    else:
        notes.append(f"split: {cset.split.reason}")
    seed_dependent = (
        cset.seed_dependent
        if cset.seed_dependent is not None
        else _seed_dependent(meta, variant, cset.split, tv)
    )
    block = ConfigBlock(
        task=meta.name,
        level=meta.level,
        labels=tuple(tv.label_names),
        variant=VariantBlock(
            variant.balance, variant.size, cset.split_label or cset.split.label, cset.disjoint
        ),
        seed=seed,
        task_type=meta.task_type,
        recipe_version=meta.recipe_version,
        lexical_control=meta.lexical_control,
        seed_dependent=seed_dependent,
        pair_features=meta.pair_features,
        scored=meta.scored,
    )
    splits = {
        sp: SplitCopy(copies[sp]) if sp in copies else cset.rows(variant.indices[sp], tv)
        for sp in SPLITS
    }
    return ConfigPayload(
        name=cfg_name,
        task=meta.name,
        level=meta.level.value,
        description=meta.description,
        label_names=[] if meta.scored else list(tv.label_names),
        polyprobe=block.as_dict(),
        recipe=recipe,
        splits=splits,
        dropped=drop_counts(cset.task_drops, tv),
        dropped_classes=dict(tv.dropped_classes),
        notes=notes,
        citation=meta.citation,
        default=False,  # the build marks the first config of the dataset
        scored=meta.scored,
    )


def copy_sources(variants: Sequence[tuple[Variant, TaskVariants]]) -> list[dict[str, int]]:
    """For each config of a set, in write order, the earlier config whose split holds exactly
    its rows there (split -> that config's position): the same row indices in the same order
    under the same label mapping (a balanced variant of data that is balanced already is the
    natural one; a 10k variant's test split is often its natural twin's). The file is then
    copied, not encoded again: on EWT's whole suite a fifth of all rows. Planned before any
    config is written, so the audit knows which splits' counts a later config reuses."""
    sources: list[dict[str, int]] = []
    for j, (variant, tv) in enumerate(variants):
        mine: dict[str, int] = {}
        for split in SPLITS:
            rows = variant.indices[split]
            for i, (other, other_tv) in enumerate(variants[:j]):
                if (
                    other_tv.label_names == tv.label_names
                    and np.array_equal(other_tv.label_remap, tv.label_remap)
                    and np.array_equal(other.indices[split], rows)
                ):
                    mine[split] = i
                    break
        sources.append(mine)
    return sources


def _seed_dependent(
    meta: TaskMetadata, variant: Variant, split: SplitSpec, tv: TaskVariants
) -> bool:
    """True when the seed changes which rows a config holds (row order aside)."""
    if (
        meta.seed_dependent
        or split.mode != "ud"
        or variant.size != "full"
        or variant.balance == "unpaired"
    ):
        return True
    if variant.balance != "natural":  # balanced, 1:R: seed-free only when nothing was cut
        natural = tv.get("natural", "full")
        if natural is None:
            return True
        return any(len(natural.indices[s]) != len(variant.indices[s]) for s in SPLITS)
    return False


def drop_counts(task_drops: dict[str, int], tv: TaskVariants) -> dict[str, int]:
    """What the card lists as dropped: the task's reasons, then the variant engine's."""
    out = {f"task: {k}": int(v) for k, v in sorted(task_drops.items()) if v}
    out.update({f"split: {k}": int(v) for k, v in sorted(tv.drops.items())})
    return out


# --------------------------------------------------------------------------- report.json

REPORT_KEYS = (
    "level",
    "task_type",
    "candidates",
    "class_counts",
    "task_drops",
    "engine_drops",
    "dropped_classes",
    "built",
    "not_built",
    "infeasible",
    "sets",
    "derived",
)
SET_KEYS = (
    "candidates",
    "class_counts",
    "split",
    "engine_notes",
    "engine_drops",
    "dropped_classes",
    "built",
    "not_built",
    "infeasible",
    "facts",
    "confounds",
)


def _set_entry(cset: CandidateSet, tv: TaskVariants | None) -> dict[str, Any]:
    if tv is None:
        infeasible = "no candidates: " + (
            "; ".join(f"{r} ({c})" for r, c in sorted(cset.task_drops.items()) if c)
            or "no input record qualifies"
        )
    else:
        infeasible = tv.infeasible
    return {
        "candidates": len(cset.columns),
        "class_counts": _class_counts(cset),
        "split": cset.split_label or cset.split.label,
        "engine_notes": list(tv.notes) if tv else [],
        "engine_drops": dict(sorted(tv.drops.items())) if tv else {},
        "dropped_classes": dict(tv.dropped_classes) if tv else {},
        "built": [],
        "not_built": list(tv.not_built) if tv else [],
        "infeasible": infeasible,
        "facts": dict(cset.facts),
        "confounds": {},  # config name -> confound audit (filled as configs are written)
    }


@dataclass
class SplitCounts:
    """What the confound audit reads of one written split: rows per (label id, length) and
    per (label id, lexical key). Memory follows the distinct pairs, not the rows."""

    lengths: Counter[tuple[int, int]] = field(default_factory=Counter)
    keys: Counter[tuple[int, str]] = field(default_factory=Counter)

    def add(self, table: Any, level: Level) -> None:
        """Count one chunk of rows (a table in the published schema)."""
        import pyarrow.compute as pc

        label = table["label"].to_numpy()
        self.keys.update(pair_counts(label, pc.fill_null(table["lexical_key"], "").to_pylist()))
        self.lengths.update(length_counts(label, _row_lengths(table, level, INPUT_COLUMNS[level])))


class AuditCounter:
    """The confound audit (:mod:`polyprobe.builders.confounds`) of one set's configs, counted
    from each split's chunks as :func:`~polyprobe.cards.folder.write_config_files` writes them
    (its ``observe``) instead of reading the files back (a quarter of the write jobs' CPU). A
    copied split is not written again, so its counts are those of the split it copies, kept
    until the last config that copies it is audited (``sources``: :func:`copy_sources`).

    Use per config, in write order: write it with ``observe=counter.observe``, then
    ``counter.audit(j, card)``."""

    def __init__(self, level: Level, sources: Sequence[dict[str, int]]):
        self.level = level
        self.sources = sources
        self._last_use: dict[tuple[int, str], int] = {}
        for j, mine in enumerate(sources):
            for split, i in mine.items():
                self._last_use[i, split] = j
        self._kept: dict[tuple[int, str], SplitCounts] = {}
        self._fresh: dict[str, SplitCounts] = {}

    def observe(self, split: str, chunk: Any) -> None:
        """``write_config_files``' callback: count one written chunk of the config being
        written (its counts are taken, and cleared, by :meth:`audit`)."""
        self._fresh.setdefault(split, SplitCounts()).add(chunk, self.level)

    def audit(self, position: int, card: ConfigCard) -> dict[str, Any]:
        """The audit of config ``position`` (all its written splits), just written as
        ``card``; rows per (label, length) and (label, lexical key) summed over its splits."""
        lengths: Counter[tuple[int, int]] = Counter()
        keys: Counter[tuple[int, str]] = Counter()
        for split in card.stats.splits:
            source = self.sources[position].get(split)
            counts = self._fresh[split] if source is None else self._kept[source, split]
            if (position, split) in self._last_use:
                self._kept[position, split] = counts
            lengths.update(counts.lengths)
            keys.update(counts.keys)
        for key in [k for k, last in self._last_use.items() if last == position]:
            self._kept.pop(key, None)
        self._fresh = {}
        unit = "characters" if self.level in (Level.WORD, Level.WORD_PAIR) else "tokens"
        return audit_counts(lengths, card.stats.label_names, unit, keys)


def _row_lengths(table: Any, level: Level, inputs: Sequence[str]) -> np.ndarray:
    """Each row's length: tokens of a sentence, characters of a word (both words of a pair),
    whitespace tokens of other text inputs."""
    import pyarrow.compute as pc

    if "tokens" in inputs:
        return pc.list_value_length(table["tokens"]).to_numpy(zero_copy_only=False)
    if level in (Level.WORD, Level.WORD_PAIR):
        return np.asarray(
            sum(pc.utf8_length(table[c]).to_numpy(zero_copy_only=False) for c in inputs)
        )
    counts = [_token_counts(table[c]) for c in inputs]
    return sum((c for c in counts if c is not None), np.zeros(table.num_rows))


def _token_counts(column: Any) -> np.ndarray | None:
    """Whitespace tokens per row of a text column, or of a list-of-texts column (summed over
    its texts: a discourse window's sentences); None for a column that holds no text (an
    index, a string similarity)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        n = pc.list_value_length(pc.utf8_split_whitespace(col))
        return pc.fill_null(n, 0).to_numpy(zero_copy_only=False).astype(np.int64)
    if pa.types.is_list(col.type) and pa.types.is_string(col.type.value_type):
        flat = pc.fill_null(pc.list_value_length(pc.utf8_split_whitespace(pc.list_flatten(col))), 0)
        parents = pc.list_parent_indices(col).to_numpy(zero_copy_only=False)
        weights = flat.to_numpy(zero_copy_only=False)
        return np.bincount(parents, weights=weights, minlength=len(col)).astype(np.int64)
    return None


def report_entry(
    summary: TaskSummary,
    first: CandidateSet | None,
    sets: dict[str, dict[str, Any]],
    derived: dict[str, Any],
) -> dict[str, Any]:
    """A task's entry in ``report.json``, the same keys (:data:`REPORT_KEYS`) for every
    family: the first (main) set's counts at the top, every set under ``sets``, and what the
    task derived from the data (or why it could not) under ``derived``."""
    main = next(iter(sets.values()), None)
    # A task with no set (nothing to split) reports its drops with what it derived.
    drops = first.task_drops if first else derived.get("task_drops") or {}
    return {
        "level": first.metadata.level.value if first else derived.get("level", ""),
        "task_type": first.metadata.task_type if first else derived.get("task_type", ""),
        "candidates": summary.candidates,
        "class_counts": summary.class_counts,
        "task_drops": dict(sorted(drops.items())),
        "engine_drops": main["engine_drops"] if main else {},
        "dropped_classes": main["dropped_classes"] if main else {},
        "built": list(summary.configs),
        "not_built": list(summary.not_built),
        "infeasible": summary.infeasible,
        "sets": sets,
        "derived": {
            k: v
            for k, v in derived.items()
            if k not in ("level", "task_type", "task", "task_drops")
        },
    }


def rows_reader(fn: Callable[..., SplitSource], *args: Any) -> RowReader:
    """A :data:`RowReader` from ``fn(*args, indices, variants)``."""
    return partial(_call_last, fn, args)


def _call_last(
    fn: Callable[..., SplitSource], args: tuple[Any, ...], indices: np.ndarray, tv: TaskVariants
) -> SplitSource:
    return fn(*args, indices, tv)
