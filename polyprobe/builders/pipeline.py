"""``build_ud``: UD treebanks → candidates → variants → dataset folder, in one streaming pass.

Candidate rows are spooled to temporary Arrow IPC files while the treebanks stream by; only
compact numpy columns (label, group, key, split, order: ~27 bytes a candidate) stay in memory for
the variant engine. Each config is then materialised by taking its indices from the memory-mapped
spool, so memory does not grow with the corpus beyond those columns and one config's rows.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import shutil
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import polyprobe
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
    _argsort_by_index_ties,
    make_variants,
    parse_sizes,
    parse_split,
)
from polyprobe.cards.folder import ROW_GROUP
from polyprobe.cards.schema import arrow_schema
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.hashing import digest, normalise_text, stable_u64
from polyprobe.languages import resolve_language
from polyprobe.licenses import resolve_card_license

_SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}
_BATCH = 4096
_SPOOL_TYPES = {"sentence_index": pa.uint32(), "group": pa.string(), "lexical_key": pa.string()}


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


class _Spool:
    """Candidate rows of one task, written to an Arrow IPC file in batches as they arrive.

    The engine's numpy columns (label, group, key, split, order: ~27 bytes a candidate) go to
    disk too, one raw file per column, at every flush: while the treebanks stream by, memory
    holds one batch of rows and columns per task whatever the corpus size. They come back
    memory-mapped (:meth:`numpy_columns`) for the task being written only, and once its
    variants are made their pages are dropped from resident memory
    (:meth:`_SpoolReader.drop_engine_pages`): writing reads only the labels again."""

    def __init__(self, path: Path, input_columns: Sequence[str]):
        self.path = path
        self.input_columns = list(input_columns)
        self.columns = ["id", *self.input_columns, "lexical_key", "sentence_index", "group"]
        self._buf: dict[str, list[Any]] = {c: [] for c in self.columns}
        self._writer: pa.ipc.RecordBatchFileWriter | None = None
        self._flushed = 0  # candidates whose rows and columns are on disk
        self._maps: list[mmap.mmap] = []  # the mapped column files (numpy_columns)
        self.label = array("h")
        self.group = array("Q")
        self.key = array("Q")
        self.split = array("b")
        self.order = array("Q")

    def add(
        self,
        row_id: str,
        inputs: dict[str, Any],
        lexical_key: str,
        sentence_index: int,
        label: int,
        group: int,
        split: int,
        seed: int,
        group_name: str | None,
    ) -> None:
        buf = self._buf
        buf["group"].append(group_name)
        buf["id"].append(row_id)
        for c in self.input_columns:
            buf[c].append(inputs[c])
        buf["lexical_key"].append(lexical_key)
        buf["sentence_index"].append(sentence_index)
        self.label.append(label)
        self.group.append(group)
        self.key.append(stable_u64("key", lexical_key) if lexical_key else 0)
        self.split.append(split)
        self.order.append(stable_u64(seed, row_id))
        if len(buf["id"]) >= _BATCH:
            self.flush()

    def _column_path(self, name: str) -> Path:
        return self.path.with_name(f"{self.path.stem}.{name}.bin")

    def flush(self) -> None:
        if not self._buf["id"]:
            return
        batch = pa.record_batch(
            [pa.array(self._buf[c], type=_SPOOL_TYPES.get(c)) for c in self.columns],
            names=self.columns,
        )
        if self._writer is None:
            self._writer = pa.ipc.new_file(str(self.path), batch.schema)
        self._writer.write_batch(batch)
        self._buf = {c: [] for c in self.columns}
        for name, _ in _NUMPY_COLUMNS:
            values = getattr(self, name)
            with open(self._column_path(name), "ab") as fh:
                values.tofile(fh)
            del values[:]
        self._flushed += batch.num_rows

    def close(self) -> _SpoolReader | None:
        self.flush()
        if self._writer is None:
            return None
        self._writer.close()
        return _SpoolReader(self.path, self._maps)

    def numpy_columns(self) -> CandidateColumns:
        """The engine's columns: read-only views of their memory-mapped files."""
        self.flush()
        arrays: dict[str, np.ndarray] = {}
        for name, dtype in _NUMPY_COLUMNS:
            if not self._flushed:  # an empty file cannot be mapped
                arrays[name] = np.empty(0, dtype=dtype)
                continue
            with open(self._column_path(name), "rb") as fh:
                mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            self._maps.append(mapped)
            arrays[name] = np.frombuffer(mapped, dtype=dtype)
        return CandidateColumns(
            label=arrays["label"],
            group=arrays["group"],
            key=arrays["key"],
            source_split=arrays["split"],
            order=arrays["order"],
        )

    def release(self) -> None:
        """Forget the maps and delete the column files once the task's configs are written
        (a map closes when the last array viewing it goes)."""
        self._maps = []
        for name, _ in _NUMPY_COLUMNS:
            with contextlib.suppress(OSError):  # still mapped somewhere (Windows): rmtree later
                self._column_path(name).unlink(missing_ok=True)

    def __len__(self) -> int:
        return self._flushed + len(self.label)


# The engine's columns as _Spool keeps them: attribute (and file) name, numpy dtype; the
# attributes are ``array.array`` objects of the matching typecode.
_NUMPY_COLUMNS: tuple[tuple[str, type[np.generic]], ...] = (
    ("label", np.int16),
    ("group", np.uint64),
    ("key", np.uint64),
    ("split", np.int8),
    ("order", np.uint64),
)


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
) -> tuple[list[Task], dict[str, Any]]:
    """Tasks with every language choice fixed: capitalisation from a prefix of the data, then
    a first pass for tasks that derive choices from the whole corpus; profile overrides win."""
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
        for sent in read_sources(sources, on_invalid=on_invalid, skipped=Counter()):
            for t in observers:
                t.observe(sent)
            if observe_all is not None:
                observe_all(sent)
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


def _config_entries(task: Task, tv: TaskVariants) -> list[tuple[str, Any]]:
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
) -> BuildResult:
    """Build a dataset folder from UD treebanks. Mirrors ``polyprobe build ud``.

    ``release`` is the dataset's semantic version (default 0.1.0, or the version the changes
    require when ``previous`` is given); with ``previous`` (the previous release's folder) the
    bump is checked against the diff and a wrong one refused unless ``allow_bump_mismatch``
    (see :mod:`polyprobe.cards.release`)."""
    from polyprobe.builders.rendering import render
    from polyprobe.cards.folder import ConfigPayload, DatasetFolderWriter, DatasetMeta, SourceInfo
    from polyprobe.cards.release import ReleaseRequest
    from polyprobe.loaders.conllu import discover, read_sources

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

    task_objs, profile = prepare_tasks(
        sources,
        language.code,
        task_names,
        seed=seed,
        on_invalid=on_invalid,
        profile_path=profile_path,
        floors=floors,
        split=split_spec,
        task_options=task_options,
    )

    out_path = Path(out)
    work = Path(tempfile.mkdtemp(prefix="polyprobe-spool-"))
    try:
        spools = [_Spool(work / f"{t.name}.arrow", t.input_columns) for t in task_objs]
        label_index = [{name: i for i, name in enumerate(t.label_names)} for t in task_objs]
        skipped: Counter[str] = Counter()
        group_writer = _StringSpool(work / "groups.arrow")
        text_hashes = array("Q")
        stream: Iterable[Any] = read_sources(sources, on_invalid=on_invalid, skipped=skipped)
        if progress is not None:
            stream = progress(stream)
        for s_index, sent in enumerate(stream):
            tb = sent.source.treebank
            group_name = f"{tb}/{sent.sent_id}"
            text = sent.text if sent.text is not None else render(sent.surface_tokens())
            text_hash = stable_u64("text", normalise_text(text))
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
                        seed,
                        None if cand.group is None else f"{tb}/{cand.group}",
                    )
        # From here on nothing per sentence stays in memory but one int32 (canonical_sentence):
        # group names are re-read from their spool a row group at a time, text hashes go.
        groups_table = group_writer.close()
        n_sentences = len(text_hashes)
        if n_sentences == 0 or groups_table is None:
            raise InfeasibleError("no sentences could be read from the inputs")
        hashes = np.frombuffer(text_hashes, dtype=np.uint64)
        canonical_sentence, n_distinct, n_repeated = _canonical_sentences(hashes)
        del hashes, text_hashes
        duplicates = {
            "sentences_read": int(n_sentences),
            "duplicate_sentences": int(n_sentences - n_distinct),
            "groups_with_duplicates": int(n_repeated),
        }

        writer = DatasetFolderWriter(out_path, overwrite=overwrite)
        summaries: list[TaskSummary] = []
        feasibility: dict[str, Any] = {}
        default_given = False
        with writer:
            for t, spool in zip(task_objs, spools, strict=True):
                cols = spool.numpy_columns()
                rows_table = spool.close()
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
                if tv is not None and tv.infeasible is None:
                    entries = [(n, v, tv) for n, v in _config_entries(t, tv)]
                    if t.paired_copies:
                        entries += _unpaired_entries(t, cols, settings, summary)
                    for cfg_name, variant, tv_used in entries:
                        splits = {
                            sp: partial(
                                _materialise,
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
                        is_default = not default_given
                        default_given = True
                        writer.add_config(
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
                                default=is_default,
                            )
                        )
                        summary.configs.append(cfg_name)
                        if cfg_name == t.name:
                            summary.rows = {sp: len(variant.indices[sp]) for sp in SPLITS}
                        del splits
                feasibility[t.name] = {
                    "candidates": summary.candidates,
                    "class_counts": summary.class_counts,
                    "task_drops": dict(sorted(t.drops.items())),
                    "engine_drops": dict(sorted(tv.drops.items())) if tv else {},
                    "dropped_classes": dict(tv.dropped_classes) if tv else {},
                    "built": summary.configs,
                    "not_built": summary.not_built,
                    "infeasible": summary.infeasible,
                }
                summaries.append(summary)
                if rows_table is not None:
                    rows_table.close()
                del rows_table, cols
                spool.release()
            if not any(s.configs for s in summaries):
                raise InfeasibleError(
                    "no task could be built: "
                    + "; ".join(f"{s.task}: {s.infeasible}" for s in summaries)
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
            fingerprint = _fingerprint(source_infos, task_objs, parameters, profile)
            meta = DatasetMeta(
                pretty_name=f"polyprobe UD probing suite ({language.name})",
                languages=[language.code],
                license=card_license,
                sources=source_infos,
                polyprobe_version=polyprobe.__version__,
                fingerprint=fingerprint,
                parameters=parameters,
                skipped_invalid=dict(sorted(skipped.items())),
                duplicates=duplicates,
                feasibility=feasibility,
                profile=profile,
                license_mix_allowed=allow_license_mix and mixed,
                source_datasets=[f"universal_dependencies/{s.name}" for s in sources],
                summary=(
                    f"Sentence-level probing tasks for {language.name} built by polyprobe "
                    f"{polyprobe.__version__} from {', '.join(s.name for s in sources)}."
                ),
            )
            final = writer.finish(meta, before_card=release_request.before_card(meta))
        return BuildResult(
            out=final,
            fingerprint=fingerprint,
            tasks=summaries,
            skipped_invalid=dict(sorted(skipped.items())),
            split=split_spec,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _canonical_sentences(hashes: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Per sentence, the index of the first sentence with the same text hash (int32 while the
    corpus has fewer than 2**31 sentences); also the number of distinct texts and of texts read
    more than once. What ``np.unique(return_index=True, return_inverse=True)`` gives, with ~30
    bytes of scratch per sentence instead of ~50 and a 4-byte result instead of 8."""
    n = hashes.size
    index_type = np.int32 if n < 2**31 else np.int64
    if n == 0:
        return np.empty(0, dtype=index_type), 0, 0
    perm = _argsort_by_index_ties(hashes)  # equal hashes in sentence order: first = earliest
    ordered = hashes[perm]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    starts = np.flatnonzero(new)
    run = np.cumsum(new, dtype=index_type)
    del new
    run -= 1
    canonical = np.empty(n, dtype=index_type)
    canonical[perm] = perm[starts].astype(index_type)[run]
    repeated = int(np.count_nonzero(np.diff(starts, append=n) > 1))
    return canonical, int(starts.size), repeated


class _StringSpool:
    """One string per sentence (its group name) on disk, read back by :class:`_SpoolReader`
    a batch at a time: a whole table of names (or a memory map of one, whose touched pages
    count as resident) would grow with the corpus."""

    def __init__(self, path: Path):
        self.path = path
        self._buf: list[str] = []
        self._writer: pa.ipc.RecordBatchFileWriter | None = None

    def add(self, value: str) -> None:
        self._buf.append(value)
        if len(self._buf) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._buf:
            return
        batch = pa.record_batch([pa.array(self._buf, type=pa.string())], names=["group"])
        if self._writer is None:
            self._writer = pa.ipc.new_file(str(self.path), batch.schema)
        self._writer.write_batch(batch)
        self._buf = []

    def close(self) -> _SpoolReader | None:
        """A reader of the strings (None when nothing was added)."""
        self._flush()
        if self._writer is None:
            return None
        self._writer.close()
        return _SpoolReader(self.path)


# Takes of at least this many rows read the spool one column at a time (largest first), so the
# scratch beyond the result is about one column rather than all of them; smaller takes read
# each batch once (their scratch is small anyway, and per-column passes cost time).
_COLUMNWISE_ROWS = 4 * _BATCH


class _TakePlan:
    """Where rows ``indices`` (any order) live in a spool of ``_BATCH``-row batches: per batch
    touched, the local row numbers in batch order; and the permutation back to the order
    asked for. Made once per take and shared by the passes over its columns."""

    def __init__(self, indices: np.ndarray):
        indices = np.asarray(indices, dtype=np.int64)
        self.size = int(indices.size)
        perm = np.argsort(indices, kind="stable")
        ordered = indices[perm]
        batch_of = ordered // _BATCH
        cuts = np.flatnonzero(np.diff(batch_of)) + 1
        bounds = zip(
            np.concatenate([[0], cuts]).tolist(),
            np.concatenate([cuts, [ordered.size]]).tolist(),
            strict=True,
        )
        self.runs = [
            (int(batch_of[a]), pa.array(ordered[a:b] - int(batch_of[a]) * _BATCH))
            for a, b in bounds
            if a < b
        ]
        back = np.empty_like(perm)
        back[perm] = np.arange(perm.size)
        self.back = pa.array(back)


class _SpoolReader:
    """Random access to spooled rows by index, reading only the record batches they fall in.

    Plain file reads rather than a memory map: a map's pages count as the process's resident
    memory, and taking a shuffled split touches every page of the spool."""

    def __init__(self, path: Path, engine_maps: list[mmap.mmap] | None = None):
        self.path = path
        # The spool's own list (not a copy): columns mapped after close() are seen too.
        self._engine_maps = engine_maps if engine_maps is not None else []
        self._file = pa.OSFile(str(path))
        self._readers: dict[tuple[int, ...] | None, pa.ipc.RecordBatchFileReader] = {}
        self.schema = self._reader(None).schema

    def _reader(self, fields: tuple[int, ...] | None) -> pa.ipc.RecordBatchFileReader:
        """A reader of the file that decodes only ``fields`` (None: all), kept for reuse."""
        reader = self._readers.get(fields)
        if reader is None:
            options = (
                None if fields is None else pa.ipc.IpcReadOptions(included_fields=list(fields))
            )
            reader = self._readers[fields] = pa.ipc.open_file(self._file, options=options)
        return reader

    def take(self, indices: np.ndarray, columns: Sequence[str] | None = None) -> pa.Table:
        """Rows ``indices`` (any order, as given) of ``columns`` (default: all).

        Each column comes out as one chunk, as one ``Table.take`` would give (parquet pages,
        hence output bytes, depend on chunking). A column's rows are gathered in batch order,
        concatenated, then put in the requested order, and its batch-order copy is dropped at
        once; large takes do this one column at a time, the largest first (see
        ``_COLUMNWISE_ROWS``), so no second copy of every column ever exists."""
        plan = _TakePlan(indices)
        schema = self.schema
        names = list(schema.names if columns is None else columns)
        passes = [names]
        if plan.size >= _COLUMNWISE_ROWS and len(names) > 1:
            first = self._reader(None).get_batch(plan.runs[0][0])
            passes = [[n] for n in sorted(names, key=lambda n: -first.column(n).nbytes)]
            del first
        out: dict[str, pa.Array] = {}
        for wanted in passes:
            reader = self._reader(tuple(sorted(schema.get_field_index(n) for n in wanted)))
            pieces: dict[str, list[pa.Array]] = {n: [] for n in wanted}
            for b, local in plan.runs:
                batch = reader.get_batch(b).take(local)
                for n in wanted:
                    pieces[n].append(batch.column(n))
                del batch
            for n in wanted:
                parts = pieces.pop(n)
                in_batch_order = (
                    pa.concat_arrays(parts) if parts else pa.array([], schema.field(n).type)
                )
                del parts
                out[n] = in_batch_order.take(plan.back)
                del in_batch_order
            # Freed scratch back to the OS now: Arrow's allocator would otherwise keep it, and
            # resident memory would hold every pass's scratch at once.
            pa.default_memory_pool().release_unused()
        return pa.Table.from_arrays(
            [out.pop(n) for n in names], schema=pa.schema([schema.field(n) for n in names])
        )

    def drop_engine_pages(self) -> None:
        """Drop the resident pages of the task's memory-mapped engine columns. Once the
        variants are made only labels are read again (a fault brings back just the pages
        touched, from the page cache), so the other ~25 bytes a candidate need not stay
        resident while the task's configs are written."""
        if not hasattr(mmap, "MADV_DONTNEED"):
            return
        for mapped in self._engine_maps:
            mapped.madvise(mmap.MADV_DONTNEED)

    def close(self) -> None:
        self._engine_maps = []
        self._readers.clear()
        self._file.close()


def _materialise(
    rows: _SpoolReader,
    indices: np.ndarray,
    cols: CandidateColumns,
    tv: TaskVariants,
    task: Task,
    groups: _SpoolReader,
    canonical_sentence: np.ndarray,
) -> Iterator[pa.Table]:
    """One split of one config in the published schema, rows in the engine's order, in chunks
    of one parquet row group, so a split never has to sit in memory whole.

    Each chunk is yielded straight from the call that builds it: the generator keeps no
    reference to it, so while the writer encodes a chunk and while the next one is taken,
    only the writer's reference keeps a chunk alive (holding the previous chunk across the
    next take once doubled the working set)."""
    schema = arrow_schema(task.level, tv.label_names)
    rows.drop_engine_pages()  # the variants are made: see _SpoolReader.drop_engine_pages
    for start in range(0, len(indices), ROW_GROUP):
        yield _materialise_chunk(
            rows,
            indices[start : start + ROW_GROUP],
            cols,
            tv,
            task,
            groups,
            canonical_sentence,
            schema,
        )


def _materialise_chunk(
    rows: _SpoolReader,
    indices: np.ndarray,
    cols: CandidateColumns,
    tv: TaskVariants,
    task: Task,
    groups: _SpoolReader,
    canonical_sentence: np.ndarray,
    schema: pa.Schema,
) -> pa.Table:
    """Rows ``indices`` in the published schema (see :func:`_materialise`)."""
    idx = np.asarray(indices, dtype=np.int64)
    labels = tv.label_remap[cols.label[idx]].astype(np.int64)
    if labels.size and labels.min() < 0:
        raise AssertionError("variant engine returned a candidate of a dropped class")
    taken = rows.take(idx)
    del idx
    sentences = canonical_sentence[taken.column("sentence_index").to_numpy()]
    names = groups.take(sentences).column(0)
    del sentences
    arrays: dict[str, Any] = {
        "id": taken.column("id"),
        "label": pa.array(labels, type=pa.int64()),
        # A task's own group wins; otherwise the group of the first sentence with that text.
        "group": pc.coalesce(taken.column("group"), names),
        "lexical_key": taken.column("lexical_key"),
    }
    for c in task.input_columns:
        arrays[c] = taken.column(c)
    del taken, labels, names
    table = pa.Table.from_arrays([pc.cast(arrays[f.name], f.type) for f in schema], schema=schema)
    del arrays
    pa.default_memory_pool().release_unused()  # the scratch of the takes, before encoding
    return table


UNPAIRED_NOTE = (
    "unpaired: one copy per group (chosen by the seeded order hash), then classes balanced; "
    "as in SentEval, no sentence appears in both versions"
)


def _unpaired_entries(
    task: Task, cols: CandidateColumns, settings: VariantSettings, summary: TaskSummary
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


def _seed_dependent(
    task: Task, variant: Any, split: SplitSpec, cols: CandidateColumns, tv: TaskVariants
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
    tasks: Sequence[Task],
    parameters: dict[str, Any],
    profile: dict[str, Any],
) -> str:
    payload = {
        "polyprobe": polyprobe.__version__,
        "inputs": [{"source": s.name, "files": s.files, "license": s.license} for s in sources],
        "tasks": [
            {"name": t.name, "recipe_version": t.recipe_version, "parameters": t.parameters()}
            for t in tasks
        ],
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
