"""``build_ud``: UD treebanks → candidates → variants → dataset folder.

The parent checks the request, discovers the sources and opens the dataset folder's staging
directory; the tasks are then built in shards (:mod:`polyprobe.builders.shards`), each shard
streaming the treebanks through its tasks (an observation pass first when a task needs one),
spooling candidates to disk (:mod:`polyprobe.builders.spool`), making variants and writing its
configs' parquet files. The parent adopts the configs in registry order and writes the card.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import polyprobe
from polyprobe.builders.gc_tuning import full_collections_deferred
from polyprobe.builders.shards import (
    WORKER_START_COST,
    jobs_for,
    plan_shards,
    run_shards,
    standby_count,
)
from polyprobe.builders.spool import (
    CandidateSpool,
    StringSpool,
    canonical_sentences,
    materialise,
    open_spooled,
)
from polyprobe.builders.task import Task, TaskParams
from polyprobe.builders.variants import (
    SPLITS,
    CandidateColumns,
    MinPerClass,
    SizeSpec,
    SplitSpec,
    TaskVariants,
    Variant,
    VariantSettings,
    make_variants,
    parse_sizes,
    parse_split,
)
from polyprobe.builders.write_jobs import Board, TaskView, WriteJob
from polyprobe.cards.card import ConfigCard
from polyprobe.cards.folder import SplitCopy
from polyprobe.errors import InfeasibleError, InputError, UsageError
from polyprobe.hashing import digest, stable_u64
from polyprobe.languages import resolve_language
from polyprobe.licenses import resolve_card_license

_SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}


@dataclass
class TaskSummary:
    """What happened to one task: the closing table and report.json are made from this."""

    task: str
    candidates: int
    class_counts: dict[str, int]
    configs: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)  # recommended config: split -> rows
    not_built: list[str] = field(default_factory=list)
    infeasible: str | None = None


@dataclass
class BuildResult:
    out: Path
    fingerprint: str
    tasks: list[TaskSummary]
    skipped_invalid: dict[str, int]
    split: SplitSpec
    # The release written into the card and, with a previous release, what the bump check
    # found (the card's ``polyprobe.release`` / ``polyprobe.bump_check``).
    release: str = ""
    bump_check: dict[str, Any] = field(default_factory=dict)


def _choose_split(split: str | None, sources: Sequence[Any]) -> SplitSpec:
    if split is not None:
        spec = parse_split(split)
        if spec.mode == "ud":
            lacking = [s.name for s in sources if not {"train", "dev", "test"} <= set(s.splits)]
            if lacking:
                raise UsageError(
                    "--split ud needs train, dev and test files in every treebank; "
                    f"missing in: {', '.join(lacking)} (use --split ratio:80/10/10)"
                )
            return SplitSpec("ud", reason="requested with --split ud")
        return SplitSpec(spec.mode, spec.ratios, reason="requested with --split")
    lacking = [s.name for s in sources if not {"train", "dev", "test"} <= set(s.splits)]
    if not lacking:
        return SplitSpec("ud", reason="every input treebank has train, dev and test files")
    return SplitSpec(
        "ratio",
        (80, 10, 10),
        reason="not every treebank has train, dev and test files ("
        + ", ".join(
            f"{s.name}: {'+'.join(sorted(s.splits)) or 'none'}"
            for s in sources
            if s.name in lacking
        )
        + "), so polyprobe re-splits by ratio 80/10/10",
    )


def prepare_tasks(
    sources: Sequence[Any],
    lang: str,
    task_names: Sequence[str],
    *,
    seed: int,
    on_invalid: str,
    profile_path: str | os.PathLike[str] | None,
    floors: MinPerClass,
    split: SplitSpec,
    observe_all: Callable[[Any], None] | None = None,
    task_options: dict[str, dict[str, Any]] | None = None,
    text_hashes: array[int] | None = None,
) -> tuple[list[Task], dict[str, Any]]:
    """Tasks with every language choice fixed: capitalisation from a prefix of the data, then
    a first pass for tasks that derive choices from the whole corpus; profile overrides win.

    ``text_hashes``: if the first pass runs, every sentence's text hash is appended to it in
    stream order, so the candidate pass need not compute them again (tasks that estimate
    split sizes hash every sentence in this pass anyway, through the one-entry memo)."""
    from polyprobe.builders.profile import (
        check_task_names,
        derive_capitalisation,
        load_profile,
    )
    from polyprobe.builders.registry import TASKS, get_task
    from polyprobe.loaders.conllu import read_sources

    overrides: dict[str, Any] = {"language": {}, "tasks": {}}
    if profile_path is not None:
        overrides = load_profile(profile_path)
        check_task_names(overrides, TASKS, profile_path)
    language = derive_capitalisation(read_sources(sources, on_invalid="skip", lazy=True))
    language.update(overrides["language"])
    cli_options = task_options
    options_by_task: dict[str, dict[str, Any]] = {}
    for name in task_names:
        opts = {
            "min_per_class": [floors.train, floors.validation, floors.test],
            "split": split.label,
        }
        opts.update(overrides["tasks"].get(name, {}))
        opts.update((cli_options or {}).get(name, {}))  # command-line flags win over a profile
        options_by_task[name] = opts
    params = TaskParams(
        lang=lang,
        capitalises_nouns=bool(language["capitalises_nouns"]),
        extra={"tasks": options_by_task, "keep_case_forms": list(language["keep_case_forms"])},
    )
    task_objs = [get_task(n)(params, seed) for n in task_names]
    observers = [t for t in task_objs if t.needs_observation]
    if observers or observe_all is not None:
        # Builders never change a word: the reader may share its feature dicts.
        passes = read_sources(sources, on_invalid=on_invalid, skipped=Counter(), shared_dicts=True)
        if text_hashes is not None:
            from polyprobe.builders.rendering import text_hash

            record = text_hashes.append
        for sent in passes:
            for t in observers:
                t.observe(sent)
            if observe_all is not None:
                observe_all(sent)
            if text_hashes is not None:
                record(text_hash(sent))
    profile: dict[str, Any] = {
        "lang": lang,
        "language": language,
        "tasks": {t.name: t.derive() for t in observers},
    }
    if profile_path is not None:
        profile["overrides"] = {"file": Path(profile_path).name, **overrides}
    # Command-line task options are not copied here: each task's derive() records what it
    # used (file names and checksums, never local paths, so cards stay machine-independent).
    return task_objs, profile


def _config_entries(task: TaskView, tv: TaskVariants) -> list[tuple[str, Any]]:
    """(config name, variant) pairs: ``<task>`` is balanced-full when built, else natural-full."""
    built = {(v.balance, v.size): v for v in tv.variants}
    recommended = built.get(("balanced", "full")) or built.get(("natural", "full"))
    out: list[tuple[str, Any]] = []
    if recommended is not None:
        out.append((task.name, recommended))
    for v in tv.variants:
        if v is not recommended:
            out.append((f"{task.name}.{v.balance}-{v.size}", v))
    return out


@full_collections_deferred()  # see polyprobe.builders.gc_tuning
def build_ud(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lang: str,
    out: str | os.PathLike[str],
    tasks: Sequence[str] | None = None,
    sizes: str | Sequence[SizeSpec] | None = None,
    split: str | None = None,
    min_per_class: tuple[int, int, int] | MinPerClass = (50, 20, 20),
    seed: int = 0,
    overwrite: bool = False,
    on_invalid: str = "raise",
    license_overrides: dict[str, str] | None = None,
    source_version: str | None = None,
    allow_license_mix: bool = False,
    balances: Sequence[str] = ("natural", "balanced"),
    progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
    profile_path: str | os.PathLike[str] | None = None,
    task_options: dict[str, dict[str, Any]] | None = None,
    release: str | None = None,
    previous: str | os.PathLike[str] | None = None,
    allow_bump_mismatch: bool = False,
    jobs: int | None = None,
) -> BuildResult:
    """Build a dataset folder from UD treebanks. Mirrors ``polyprobe build ud``.

    ``jobs`` worker processes share the tasks (default: one per core, up to four, for inputs
    of 2 MB or more and enough task work to pay for a process; see
    :mod:`polyprobe.builders.shards`); the output is the same for any number.

    ``release`` is the dataset's semantic version (default 0.1.0, or the version the changes
    require when ``previous`` is given); with ``previous`` (the previous release's folder) the
    bump is checked against the diff and a wrong one refused unless ``allow_bump_mismatch``
    (see :mod:`polyprobe.cards.release`)."""
    from polyprobe.builders.registry import TASKS
    from polyprobe.cards.folder import DatasetFolderWriter, DatasetMeta, SourceInfo
    from polyprobe.cards.release import ReleaseRequest
    from polyprobe.loaders.conllu import discover
    from polyprobe.loaders.sources import input_bytes

    release_request = ReleaseRequest.make(release, previous, allow_bump_mismatch)
    if on_invalid not in ("raise", "skip"):
        raise UsageError(f"--on-invalid must be 'raise' or 'skip', not {on_invalid!r}")
    language = resolve_language(lang)
    from polyprobe.builders.registry import resolve_task_names

    task_names = resolve_task_names(tasks)  # UsageError names the valid tasks
    size_specs = parse_sizes(sizes) if isinstance(sizes, str) or sizes is None else tuple(sizes)
    floors = (
        min_per_class if isinstance(min_per_class, MinPerClass) else MinPerClass(*min_per_class)
    )
    for b in balances:
        if b not in ("natural", "balanced"):
            raise UsageError(f"unknown balance {b!r}: use natural and/or balanced")

    sources = discover(
        [Path(p) for p in paths],
        license_overrides=license_overrides or {},
        source_version=source_version,
    )
    card_license, mixed = resolve_card_license(
        {s.name: s.license for s in sources}, allow_mix=allow_license_mix
    )
    split_spec = _choose_split(split, sources)
    settings = VariantSettings(
        split=split_spec, sizes=size_specs, balances=tuple(balances), min_per_class=floors
    )

    source_infos = [
        SourceInfo(
            kind="ud-treebank",
            name=s.name,
            version=s.version,
            license=s.license,
            files=[{"name": n, "sha256": c} for n, c in sorted(s.checksums.items())],
        )
        for s in sources
    ]
    costs = [TASKS[n].relative_cost for n in task_names]
    n_jobs = jobs_for(jobs, task_names, input_bytes(s.path for s in sources))
    # Workers already waiting (the command line starts them early) start level with this
    # process; fresh ones start late by their imports.
    late = 0.0 if standby_count() >= n_jobs - 1 else WORKER_START_COST
    affinity = [TASKS[n].shard_affinity for n in task_names]
    shard_tasks = plan_shards(task_names, costs, n_jobs, worker_start=late, affinity=affinity)

    writer = DatasetFolderWriter(Path(out), overwrite=overwrite)
    with writer:
        job = _ShardJob(
            sources=tuple(sources),
            lang=language.code,
            tasks=(),
            seed=seed,
            on_invalid=on_invalid,
            profile_path=None if profile_path is None else str(profile_path),
            floors=floors,
            settings=settings,
            task_options=task_options,
            staging=writer.tmp,
        )
        # Several shards share their tasks' writing through a board (write_jobs).
        board = tempfile.mkdtemp(prefix="polyprobe-board-") if len(shard_tasks) > 1 else None
        shards = [
            replace(job, tasks=tuple(names), board=board, all_tasks=tuple(task_names))
            for names in shard_tasks
        ]
        try:
            results: list[_ShardResult] = run_shards(
                _build_shard, shards, local=partial(_build_shard, progress=progress)
            )
        finally:
            if board is not None:
                shutil.rmtree(board, ignore_errors=True)
        # A task's profile comes from the shard that observed it; its cards, summary, recipe
        # and feasibility from the shard that wrote it.
        by_task = {name: r for r in results for name in r.tasks}
        written = {name: r for r in results for name in r.summaries}
        summaries = [written[n].summaries[n] for n in task_names]
        if not any(s.configs for s in summaries):
            raise InfeasibleError(
                "no task could be built: "
                + "; ".join(f"{s.task}: {s.infeasible}" for s in summaries)
            )
        first = results[0]  # every shard read the same sentences: their counts agree
        skipped = first.skipped
        profile = dict(first.profile)
        profile["tasks"] = {
            n: by_task[n].profile["tasks"][n]
            for n in task_names
            if n in by_task[n].profile["tasks"]
        }
        default_given = False
        for n in task_names:
            for card in written[n].cards[n]:
                if not default_given:  # the first config in registry order
                    card = dataclasses.replace(
                        card, payload=dataclasses.replace(card.payload, default=True)
                    )
                    default_given = True
                writer.adopt(card)
        parameters = {
            "lang": language.code,
            "tasks": task_names,
            "sizes": [s.label for s in size_specs],
            "balances": list(balances),
            "split": split_spec.label,
            "split_reason": split_spec.reason,
            "min_per_class": {
                "train": floors.train,
                "validation": floors.validation,
                "test": floors.test,
            },
            "seed": seed,
            "on_invalid": on_invalid,
            "allow_license_mix": allow_license_mix,
        }
        fingerprint = _fingerprint(
            source_infos, [written[n].recipes[n] for n in task_names], parameters, profile
        )
        meta = DatasetMeta(
            pretty_name=f"polyprobe UD probing suite ({language.name})",
            languages=[language.code],
            license=card_license,
            sources=source_infos,
            polyprobe_version=polyprobe.__version__,
            fingerprint=fingerprint,
            parameters=parameters,
            skipped_invalid=dict(sorted(skipped.items())),
            duplicates=first.duplicates,
            feasibility={n: written[n].feasibility[n] for n in task_names},
            profile=profile,
            license_mix_allowed=allow_license_mix and mixed,
            source_datasets=[f"universal_dependencies/{s.name}" for s in sources],
            summary=(
                f"Sentence-level probing tasks for {language.name} built by polyprobe "
                f"{polyprobe.__version__} from {', '.join(s.name for s in sources)}."
            ),
        )
        release_hook = release_request.before_card(meta)
        released: list[Any] = []

        def before_card(tmp: Path, card: dict[str, Any]) -> Any:
            released.append(release_hook(tmp, card))
            return released[-1]

        final = writer.finish(meta, before_card=before_card)
    return BuildResult(
        out=final,
        fingerprint=fingerprint,
        tasks=summaries,
        skipped_invalid=dict(sorted(skipped.items())),
        split=split_spec,
        release=released[-1].release,
        bump_check=dict(released[-1].bump_check),
    )


@dataclass(frozen=True)
class _ShardJob:
    """What one shard needs to build its tasks: plain, picklable values (a worker process
    receives it)."""

    sources: tuple[Any, ...]
    lang: str
    tasks: tuple[str, ...]
    seed: int
    on_invalid: str
    profile_path: str | None
    floors: MinPerClass
    settings: VariantSettings
    task_options: dict[str, dict[str, Any]] | None
    staging: Path  # the writer's temporary folder; configs go to staging/data/<config>/
    # With several shards: the folder of their write jobs and every task of the build
    # (see polyprobe.builders.write_jobs).
    board: str | None = None
    all_tasks: tuple[str, ...] = ()


@dataclass
class _ShardResult:
    """What the parent needs from a shard to write the card, per task name."""

    tasks: list[str]
    cards: dict[str, list[ConfigCard]]
    summaries: dict[str, TaskSummary]
    feasibility: dict[str, dict[str, Any]]
    recipes: dict[str, dict[str, Any]]  # name, recipe version, parameters (fingerprint)
    profile: dict[str, Any]
    skipped: dict[str, int]
    duplicates: dict[str, int]


@full_collections_deferred()  # a worker process runs this alone (see gc_tuning)
def _build_shard(
    job: _ShardJob, progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None
) -> _ShardResult:
    """Read, observe, derive, spool candidates, make variants and write the configs of
    ``job.tasks`` into the staging folder (no card: the parent writes it for all shards)."""
    from polyprobe.builders.rendering import text_hash as sentence_text_hash
    from polyprobe.loaders.conllu import read_sources

    sources, seed, settings = job.sources, job.seed, job.settings
    split_spec = settings.split
    first_pass_hashes: array[int] = array("Q")
    task_objs, profile = prepare_tasks(
        sources,
        job.lang,
        list(job.tasks),
        seed=seed,
        on_invalid=job.on_invalid,
        profile_path=job.profile_path,
        floors=job.floors,
        split=split_spec,
        task_options=job.task_options,
        text_hashes=first_pass_hashes,
    )
    on_invalid = job.on_invalid
    # With a board, another process may still read this shard's spools after it returns:
    # they live in the board's folder, which the parent removes after the build.
    board = None if job.board is None else Board(Path(job.board), job.all_tasks)
    work = Path(tempfile.mkdtemp(prefix="polyprobe-spool-", dir=job.board))
    try:
        spools = [
            CandidateSpool(work / f"{t.name}.arrow", t.input_columns, seed) for t in task_objs
        ]
        label_index = [{name: i for i, name in enumerate(t.label_names)} for t in task_objs]
        skipped: Counter[str] = Counter()
        group_writer = StringSpool(work / "groups.arrow")
        # The first pass's hashes when it ran (same reader, same order), else hashed here.
        known = len(first_pass_hashes)
        text_hashes = first_pass_hashes if known else array("Q")
        stream: Iterable[Any] = read_sources(
            sources, on_invalid=on_invalid, skipped=skipped, shared_dicts=True
        )
        if progress is not None:
            stream = progress(stream)
        s_index = -1
        for s_index, sent in enumerate(stream):
            tb = sent.source.treebank
            group_name = f"{tb}/{sent.sent_id}"
            if s_index < known:
                text_hash = text_hashes[s_index]
            else:
                text_hash = sentence_text_hash(sent)
                text_hashes.append(text_hash)
            group_writer.add(group_name)
            split_code = _SPLIT_CODE.get(sent.source.split or "", -1)
            for t, spool, labels in zip(task_objs, spools, label_index, strict=True):
                for cand in t.candidates(sent):
                    spool.add(
                        f"{group_name}/{t.name}/{cand.copy}",
                        cand.inputs,
                        cand.lexical_key,
                        s_index,
                        labels[cand.label],
                        text_hash if cand.group is None else stable_u64("group", tb, cand.group),
                        split_code,
                        None if cand.group is None else f"{tb}/{cand.group}",
                    )
        # From here on nothing per sentence stays in memory but one int32 (canonical_sentence):
        # group names are re-read from their spool a row group at a time, text hashes go.
        groups_table = group_writer.close()
        n_sentences = len(text_hashes)
        if known and s_index + 1 != known:
            raise InputError(
                ", ".join(src.path for src in sources),
                None,
                f"the input changed during the build: the first pass read {known} sentences, "
                f"the second {s_index + 1}",
                "changed-input",
            )
        if n_sentences == 0 or groups_table is None:
            raise InfeasibleError("no sentences could be read from the inputs")
        hashes = np.frombuffer(text_hashes, dtype=np.uint64)
        canonical_sentence, n_distinct, n_repeated = canonical_sentences(hashes)
        del hashes, text_hashes
        duplicates = {
            "sentences_read": int(n_sentences),
            "duplicate_sentences": int(n_sentences - n_distinct),
            "groups_with_duplicates": int(n_repeated),
        }

        shared = _ShardShared(job, groups_table, canonical_sentence)
        result = _ShardResult(
            tasks=list(job.tasks),
            cards={},
            summaries={},
            feasibility={},
            recipes={},
            profile=profile,
            skipped=dict(sorted(skipped.items())),
            duplicates=duplicates,
        )
        if board is None:
            for t, spool in zip(task_objs, spools, strict=True):
                cols = spool.numpy_columns()
                rows_table = spool.close()
                _write_task(TaskView.of(t), cols, rows_table, shared, result)
                if rows_table is not None:
                    rows_table.close()
                del rows_table, cols
                spool.release()
        else:
            # Offer every task's write to whichever process is free first (write_jobs); the
            # observation state of the tasks is not needed any more.
            # Largest first (candidates as the measure of a task's writing), so that what is
            # left at the end, and taken by the others from the back, are small jobs.
            pending = [_closed(t, spool) for t, spool in zip(task_objs, spools, strict=True)]
            del task_objs, spools
            pending.sort(key=lambda job: -job.rows)  # stable: ties keep the task order
            board.publish([replace(job, position=i) for i, job in enumerate(pending)])
            while (wj := board.next_job()) is not None:
                cols, rows_table = open_spooled(wj.spool, wj.rows)
                _write_task(wj.task, cols, rows_table, shared, result)
                if rows_table is not None:
                    rows_table.close()
                del rows_table, cols
        return result
    finally:
        if board is None:
            shutil.rmtree(work, ignore_errors=True)


def _closed(t: Task, spool: CandidateSpool) -> WriteJob:
    """The write job of a task whose candidate pass is done (its spool closed)."""
    reader = spool.close()
    if reader is not None:
        reader.close()
    return WriteJob(TaskView.of(t), spool.path, len(spool), 0)


@dataclass
class _ShardShared:
    """What every write job of a shard process uses (see :func:`_write_task`)."""

    job: _ShardJob
    groups_table: Any  # SpoolReader of the sentences' group names
    canonical_sentence: np.ndarray


def _write_task(
    t: TaskView, cols: CandidateColumns, rows_table: Any, shared: _ShardShared, result: _ShardResult
) -> None:
    """Make the variants of one spooled task and write its configs into the staging folder;
    its cards, summary, recipe and feasibility go into ``result``. A pure function of the
    spooled candidates and ``t``, so any shard process may run it (write_jobs)."""
    from polyprobe.cards.folder import ConfigPayload, write_config_files

    job = shared.job
    seed, settings = job.seed, job.settings
    split_spec = settings.split
    groups_table, canonical_sentence = shared.groups_table, shared.canonical_sentence
    counts = (
        np.bincount(cols.label, minlength=len(t.label_names))
        if len(cols.label)
        else np.zeros(len(t.label_names), dtype=np.int64)
    )
    summary = TaskSummary(
        task=t.name,
        candidates=len(cols.label),
        class_counts={n: int(c) for n, c in zip(t.label_names, counts, strict=True)},
    )
    if len(cols.label) == 0:
        summary.infeasible = "no candidates: " + (
            "; ".join(f"{r} ({c})" for r, c in sorted(t.drops.items()))
            or "no input sentence qualifies"
        )
        tv = None
    else:
        tv = make_variants(cols, list(t.label_names), settings)
        summary.not_built = list(tv.not_built)
        summary.infeasible = tv.infeasible
    cards: list[ConfigCard] = []
    if tv is not None and tv.infeasible is None:
        entries = [(n, v, tv) for n, v in _config_entries(t, tv)]
        if t.paired_copies:
            entries += _unpaired_entries(t, cols, settings, summary)
        written: list[tuple[Variant, TaskVariants, ConfigCard]] = []
        for cfg_name, variant, tv_used in entries:
            splits = {
                sp: _earlier_split(variant, tv_used, sp, written)
                or partial(
                    materialise,
                    rows_table,
                    variant.indices[sp],
                    cols,
                    tv_used,
                    t,
                    groups_table,
                    canonical_sentence,
                )
                for sp in SPLITS
            }
            seed_dependent = _seed_dependent(t, variant, split_spec, cols, tv_used)
            cards.append(
                write_config_files(
                    job.staging,
                    ConfigPayload(
                        name=cfg_name,
                        task=t.name,
                        level=t.level.value,
                        description=t.description,
                        label_names=list(tv_used.label_names),
                        polyprobe={
                            "task": t.name,
                            "task_type": "probing",
                            "level": t.level.value,
                            "inputs": list(t.input_columns),
                            "labels": list(tv_used.label_names),
                            "recipe_version": t.recipe_version,
                            "variant": {
                                "balance": variant.balance,
                                "size": variant.size,
                                "split": split_spec.label,
                            },
                            "seed": seed,
                            "lexical_control": bool(t.lexical_control),
                            "seed_dependent": seed_dependent,
                        },
                        recipe=t.parameters(),
                        splits=splits,
                        dropped=drop_counts(t.drops, tv_used),
                        dropped_classes=dict(tv_used.dropped_classes),
                        notes=[
                            *t.notes,
                            *([UNPAIRED_NOTE] if variant.balance == "unpaired" else []),
                            f"split: {split_spec.reason}",
                        ],
                        citation=t.citation,
                        default=False,  # the parent marks the first config
                    ),
                )
            )
            written.append((variant, tv_used, cards[-1]))
            summary.configs.append(cfg_name)
            if cfg_name == t.name:
                summary.rows = {sp: len(variant.indices[sp]) for sp in SPLITS}
            del splits
    result.cards[t.name] = cards
    result.recipes[t.name] = {
        "name": t.name,
        "recipe_version": t.recipe_version,
        "parameters": t.parameters(),
    }
    result.feasibility[t.name] = {
        "candidates": summary.candidates,
        "class_counts": summary.class_counts,
        "task_drops": dict(sorted(t.drops.items())),
        "engine_drops": dict(sorted(tv.drops.items())) if tv else {},
        "dropped_classes": dict(tv.dropped_classes) if tv else {},
        "built": summary.configs,
        "not_built": summary.not_built,
        "infeasible": summary.infeasible,
    }
    result.summaries[t.name] = summary


UNPAIRED_NOTE = (
    "unpaired: one copy per group (chosen by the seeded order hash), then classes balanced; "
    "as in SentEval, no sentence appears in both versions"
)


def _unpaired_entries(
    task: TaskView, cols: CandidateColumns, settings: VariantSettings, summary: TaskSummary
) -> list[tuple[str, Any, TaskVariants]]:
    """SentEval never showed both versions of a sentence: the ``unpaired`` variant keeps one
    copy per group (the lowest order hash), then balances classes like ``balanced``."""
    if len(cols.label) == 0:
        return []
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
    tv = make_variants(sub, list(task.label_names), replace(settings, balances=("balanced",)))
    if tv.infeasible is not None:
        summary.not_built.append(f"unpaired: {tv.infeasible}")
        return []
    summary.not_built.extend(f"unpaired: {m}" for m in tv.not_built)
    out: list[tuple[str, Any, TaskVariants]] = []
    for v in tv.variants:
        mapped = Variant(
            balance="unpaired",
            size=v.size,
            indices={sp: keep[np.asarray(ix, dtype=np.int64)] for sp, ix in v.indices.items()},
        )
        out.append((f"{task.name}.unpaired-{v.size}", mapped, tv))
    return out


def _earlier_split(
    variant: Variant,
    tv: TaskVariants,
    split: str,
    written: Sequence[tuple[Variant, TaskVariants, ConfigCard]],
) -> SplitCopy | None:
    """A config of this task written before whose ``split`` holds exactly ``variant``'s rows
    there: the same row indices in the same order under the same label mapping (a balanced
    variant of data that is balanced already is the natural one; a 10k variant's test split
    is often its natural twin's). The file is then copied, not encoded again: on EWT's whole
    suite a fifth of all rows."""
    mine = variant.indices[split]
    for other, other_tv, card in written:
        if (
            other_tv.label_names == tv.label_names
            and np.array_equal(other_tv.label_remap, tv.label_remap)
            and np.array_equal(other.indices[split], mine)
        ):
            return SplitCopy(card)
    return None


def _seed_dependent(
    task: TaskView, variant: Any, split: SplitSpec, cols: CandidateColumns, tv: TaskVariants
) -> bool:
    """True when the seed changes which rows a config holds (row order aside)."""
    if (
        task.seed_dependent
        or split.mode == "ratio"
        or variant.size != "full"
        or variant.balance == "unpaired"
    ):
        return True
    if variant.balance == "balanced":
        natural = next(
            (v for v in tv.variants if v.balance == "natural" and v.size == "full"), None
        )
        if natural is None:
            return True
        return any(len(natural.indices[s]) != len(variant.indices[s]) for s in SPLITS)
    return False


def drop_counts(task_drops: dict[str, int], tv: TaskVariants) -> dict[str, int]:
    """What the card lists as dropped: the task's reasons, then the variant engine's."""
    out = {f"task: {k}": int(v) for k, v in sorted(task_drops.items()) if v}
    out.update({f"split: {k}": int(v) for k, v in sorted(tv.drops.items())})
    return out


def _fingerprint(
    sources: Sequence[Any],
    recipes: Sequence[dict[str, Any]],
    parameters: dict[str, Any],
    profile: dict[str, Any],
) -> str:
    """Hash of inputs, recipes (name, version, parameters of every task), build parameters,
    derived profile and polyprobe version."""
    payload = {
        "polyprobe": polyprobe.__version__,
        "inputs": [{"source": s.name, "files": s.files, "license": s.license} for s in sources],
        "tasks": list(recipes),
        "parameters": parameters,
        "profile": profile,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return digest(blob, size=16).hex()


def profile_ud(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lang: str,
    tasks: Sequence[str] | None = None,
    profile_path: str | os.PathLike[str] | None = None,
    split: str | None = None,
    min_per_class: tuple[int, int, int] = (50, 20, 20),
    on_invalid: str = "raise",
) -> dict[str, Any]:
    """Everything a build of these treebanks would derive, without building (``polyprobe
    profile ud``). The output, edited, is a valid ``--profile`` file's ``[language]`` and
    ``[tasks.*]`` content."""
    from polyprobe.builders.profile import FeatureCounter
    from polyprobe.builders.registry import resolve_task_names
    from polyprobe.loaders.conllu import discover

    language = resolve_language(lang)
    task_names = resolve_task_names(tasks)
    sources = discover([Path(p) for p in paths])
    split_spec = _choose_split(split, sources)
    counter = FeatureCounter()
    task_objs, profile = prepare_tasks(
        sources,
        language.code,
        task_names,
        seed=0,
        on_invalid=on_invalid,
        profile_path=profile_path,
        floors=MinPerClass(*min_per_class),
        split=split_spec,
        observe_all=counter.observe,
    )
    profile["split"] = {"mode": split_spec.label, "reason": split_spec.reason}
    profile["labels"] = {t.name: list(t.label_names) for t in task_objs}
    profile["sources"] = {
        s.name: {"license": s.license, "version": s.version, "splits": sorted(s.splits)}
        for s in sources
    }
    profile["annotation"] = counter.summary()
    return profile
