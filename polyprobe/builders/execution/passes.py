"""One process's passes over a stream's records: the first pass (observe, fit), the
candidate pass (candidates spooled to disk), and the assembly of a spooled task (a write job)
— for the tasks of one shard, or for every task over one range of the records.

Why two passes over the sources rather than one held in memory: a UD corpus can be far larger
than memory, while each task's first-pass state is small (counts, targets) and its candidates
go to disk as they come (``polyprobe.runtime.spool``). How the processes of a build share
the work (task shards or record ranges) is :mod:`polyprobe.builders.execution.stream`'s business.

A stream's :class:`~polyprobe.builders.family.Records` say how to read its records and how to
name one (source, record id, split, text hash); its tasks come configured by the spine. Row ids
are ``<source>/<record id>/<task>/<copy>``; a row's ``group`` is ``<source>/<record id>`` of
the first record with the same normalised text, so duplicates never straddle splits.
"""

from __future__ import annotations

import copy
import math
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from polyprobe import progress
from polyprobe.builders.assemble import AssembledTask, CandidateSet, assemble, rows_reader
from polyprobe.builders.execution.rows import canonical_sentences, materialise
from polyprobe.builders.family import Records
from polyprobe.builders.task import (
    SCORE_COLUMN,
    Candidate,
    Fit,
    Observation,
    Shared,
    Task,
)
from polyprobe.builders.variants import CandidateColumns, VariantSettings
from polyprobe.errors import InfeasibleError, InputError
from polyprobe.hashing import stable_u64
from polyprobe.metadata import TaskMetadata
from polyprobe.runtime.spool import (
    CandidateSpool,
    SpoolParts,
    SpoolReader,
    StringSpool,
    open_spooled_parts,
)

# A record's identity: (source name, record id, split code 0/1/2 or -1).
Identity = tuple[str, str, int]


@dataclass(frozen=True)
class ShardJob:
    """What one shard needs: plain, picklable values (a worker process receives it)."""

    records: Records
    tasks: tuple[Task[Any], ...]  # configured by the spine; each part runs its own copies
    profile: dict[str, Any]  # the stream's profile entry (language facts, overrides)
    seed: int
    on_invalid: str
    settings: VariantSettings
    staging: Path  # the writer's temporary folder; configs go to staging/data/<config>/
    work: Path  # the build's scratch folder: each shard spools into its own sub-folder
    # A build over record ranges (polyprobe.builders.execution.stream.run_on_ranges): this
    # job's range (index, number of ranges).
    part: tuple[int, int] = (0, 1)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)


@dataclass
class ShardResult:
    """What the build needs from a shard besides its tasks' assemblies."""

    tasks: list[str]
    recipes: dict[str, dict[str, Any]]  # name, recipe version, parameters (fingerprint)
    profile: dict[str, Any]
    skipped: dict[str, int]
    duplicates: dict[str, int]


@dataclass(frozen=True)
class SpooledTask:
    """A task whose candidate pass is done: what assembling it reads, besides its spool."""

    metadata: TaskMetadata
    label_names: tuple[str, ...]
    recipe: dict[str, Any]
    notes: tuple[str, ...]
    drops: dict[str, int] = field(default_factory=dict)
    derived: dict[str, Any] = field(default_factory=dict)  # the fit's report (report.json)

    @classmethod
    def of(cls, task: Task[Any], fit: Fit) -> SpooledTask:
        derived = dict(fit.report)
        if fit.infeasible is not None:
            derived.setdefault("infeasible", fit.infeasible)
        return cls(
            metadata=task.metadata,
            label_names=tuple(fit.label_names),
            recipe=task.parameters(fit),
            notes=(*task.metadata.notes, *fit.notes),
            drops=dict(task.drops),
            derived=derived,
        )

    @property
    def name(self) -> str:
        return self.metadata.name


def first_pass(
    family: Records,
    tasks: Sequence[Task[Any]],
    on_invalid: str,
    *,
    observe_all: Callable[[Any], None] | None = None,
) -> tuple[list[Fit], dict[str, Any]]:
    """Show every record to the tasks that need a first pass, then fit every task. Returns
    the fits and what the tasks that observed derived (the card's profile entries).
    ``observe_all`` sees every record too (``polyprobe profile``'s counts)."""
    observations = [t.observation() for t in tasks]
    observers = [o.observe for o in observations if o is not None]
    if observers or observe_all is not None:
        for record in family.records(on_invalid, Counter()):
            shared = Shared(record)
            for observe in observers:
                observe(record, shared)
            if observe_all is not None:
                observe_all(record)
    return _fits(tasks, observations)


def _fits(
    tasks: Sequence[Task[Any]], observations: Sequence[Observation | None]
) -> tuple[list[Fit], dict[str, Any]]:
    fits = [t.fit(o) for t, o in zip(tasks, observations, strict=True)]
    derived = {
        t.name: dict(f.report)
        for t, o, f in zip(tasks, observations, fits, strict=True)
        if o is not None
    }
    return fits, derived


@dataclass(frozen=True)
class WriteJob:
    """One spooled task to assemble, in whichever process is free: everything it reads is
    on disk (the task's spool, the records' group names, the canonical record of each text)
    or in these plain values. A build over record ranges spooled each range apart
    (:mod:`polyprobe.builders.record_ranges`): ``spools`` and ``groups`` then have one entry
    per range, in stream order."""

    task: SpooledTask
    spools: tuple[tuple[Path, int], ...]  # rows' Arrow file (engine column files beside), rows
    groups: tuple[tuple[Path, int], ...]  # group names' Arrow file, records
    canonical: Path  # the canonical record of each record (canonical.npy)
    settings: VariantSettings
    seed: int
    staging: Path

    @property
    def rows(self) -> int:
        return sum(rows for _, rows in self.spools)


class Deriver(Protocol):
    """How a derived family makes its records from its base family's, one base record at a
    time (``build ud``: sentences grouped into their ``# newdoc`` documents)."""

    def push(self, record: Any) -> Iterable[Any]:
        """The derived records this base record completes (often none)."""
        ...

    def close(self) -> Iterable[Any]:
        """The derived records still open when the base stream ends."""
        ...


def base_of(family: Records) -> Records | None:
    """The family whose records ``family``'s are made from, when it says so (a
    ``base`` attribute and a ``deriver()`` method): a process that runs tasks of both reads
    the inputs once for both."""
    return getattr(family, "base", None)


class PartRun:
    """One part of a shard (a stream's tasks in this process) through its two passes, fed
    one record at a time: so that a part whose records derive from another part's (documents
    from sentences) is fed from the same reading, and each pass reads the inputs once.

    Pass 1 (:meth:`observe` each record, then :meth:`fit`) runs only when a task observes;
    pass 2 (:meth:`add` each record, then :meth:`finish`) spools every task's candidates."""

    def __init__(self, job: ShardJob) -> None:
        self.job = job
        self.family = job.records
        # a copy: this part counts drops on its tasks, the build's copy adds them up
        self.tasks, self.profile = copy.deepcopy(list(job.tasks)), dict(job.profile)
        self.observations = [t.observation() for t in self.tasks]
        self.observers = [o.observe for o in self.observations if o is not None]
        # every record's text hash, in stream order: from pass 1 when it runs (pass 2 then
        # reuses them and checks the count), else from pass 2
        self.text_hashes: array[int] = array("Q")
        self.known = 0
        self.index = -1
        self.skipped: Counter[str] = Counter()
        self.fits: list[Fit] = []

    @property
    def observes(self) -> bool:
        return bool(self.observers)

    def observe(self, record: Any) -> None:
        shared = Shared(record)
        for observe in self.observers:
            observe(record, shared)
        self.text_hashes.append(self.family.text_hash(record, shared))

    def fit(self) -> None:
        """Fit every task, and open the candidate pass (:meth:`start_candidates`)."""
        fits, self.profile["tasks"] = _fits(self.tasks, self.observations)
        self.start_candidates(fits)

    def start_candidates(self, fits: list[Fit]) -> None:
        """Open the candidate pass with the tasks' ``fits``: one spool per task and the
        records' group names, in this part's own folder."""
        self.fits = fits
        self.known = len(self.text_hashes)
        self.work = Path(tempfile.mkdtemp(prefix="shard-", dir=self.job.work))
        self.spools = [
            CandidateSpool(self.work / f"{t.name}.arrow", t.input_columns, self.job.seed)
            for t in self.tasks
        ]
        self.group_writer = StringSpool(self.work / "groups.arrow")
        labels = [{n: i for i, n in enumerate(f.label_names)} for f in self.fits]
        # per task, what every candidate of it needs: asked once here, not per candidate
        self.work_items = [
            (t, fit, spool, label_ids, t.name, t.metadata.scored)
            for t, fit, spool, label_ids in zip(
                self.tasks, self.fits, self.spools, labels, strict=True
            )
        ]

    def add(self, record: Any) -> None:
        """Spool the candidates every task makes of one record (pass 2)."""
        self.index += 1
        index = self.index
        shared = Shared(record)
        source, record_id, split_code = self.family.identity(record)
        group_name = f"{source}/{record_id}"
        if index < self.known:  # the first pass hashed it
            text_hash = self.text_hashes[index]
        else:
            text_hash = self.family.text_hash(record, shared)
            self.text_hashes.append(text_hash)
        self.group_writer.add(group_name)
        for t, fit, spool, labels, name, scored in self.work_items:
            for cand in t.candidates(record, fit, shared):
                spool.add(
                    f"{group_name}/{name}/{cand.copy}"
                    if cand.id is None
                    else f"{source}/{cand.id}",
                    scored_inputs(t, cand) if scored else cand.inputs,
                    cand.lexical_key,
                    index,
                    0 if scored else labels[cand.label],
                    text_hash if cand.group is None else stable_u64("group", source, cand.group),
                    split_code,
                    None if cand.group is None else f"{source}/{cand.group}",
                )

    def close(self) -> Spooled:
        """End the candidate pass: close the spools, and check that the input did not change
        between the passes."""
        groups = self.group_writer.close()
        if groups is not None:
            groups.close()
        if self.known and self.index + 1 != self.known:
            raise InputError(
                self.family.describe_input(),
                None,
                f"the input changed during the build: the first pass read {self.known} "
                f"records, the second {self.index + 1}",
                "changed-input",
            )
        for spool in self.spools:
            reader = spool.close()
            if reader is not None:
                reader.close()
        for t in self.tasks:
            t.records_ended()
        return Spooled(
            work=self.work,
            rows=[len(spool) for spool in self.spools],
            records=len(self.text_hashes),
            hashes=self.text_hashes,
            skipped=Counter(self.skipped),
            counts=[t.run_counts() for t in self.tasks],
        )

    def finish(self) -> tuple[ShardResult, list[WriteJob]]:
        """Close the spools; what the card needs and one write job per task (see
        :func:`write_task`)."""
        return finish_stream(self.job, self.tasks, self.fits, self.profile, [self.close()])


@dataclass
class Spooled:
    """One part's candidate pass over one range of the records (all of them, unless the
    build runs on record ranges): where it spooled, and what it counted."""

    work: Path  # the part's folder: <task>.arrow (and column files), groups.arrow
    rows: list[int]  # candidates per task
    records: int
    hashes: array[int]  # every record's text hash, in stream order
    skipped: Counter[str]
    counts: list[dict[str, Counter[str]]]  # per task, its candidate pass's run counts


def finish_stream(
    job: ShardJob,
    tasks: Sequence[Task[Any]],
    fits: Sequence[Fit],
    profile: dict[str, Any],
    ranges: Sequence[Spooled],
) -> tuple[ShardResult, list[WriteJob]]:
    """What the card needs of a stream's tasks and one write job per task, from the candidate
    pass of each range in stream order (one range: the whole stream, in the tasks' own
    process, whose run counts they already hold; several: the tasks are the build's own
    copies and take in every range's run counts, in order)."""
    n_records = sum(r.records for r in ranges)
    if n_records == 0:
        raise InfeasibleError("no records could be read from the inputs")
    if len(ranges) > 1:
        for i, t in enumerate(tasks):
            for r in ranges:
                t.add_run_counts(r.counts[i])
    # Per record only its canonical record (an int32) is kept, on disk: group names are
    # re-read from their spool a row group at a time when rows are written.
    hashes = np.concatenate([np.frombuffer(r.hashes, dtype=np.uint64) for r in ranges])
    canonical, n_distinct, n_repeated = canonical_sentences(hashes)
    canonical_path = ranges[0].work / "canonical.npy"
    np.save(canonical_path, canonical)
    skipped: Counter[str] = Counter()
    for r in ranges:
        skipped.update(r.skipped)
    result = ShardResult(
        tasks=list(job.names),
        recipes={
            t.name: {
                "name": t.name,
                "recipe_version": t.metadata.recipe_version,
                "parameters": t.parameters(f),
            }
            for t, f in zip(tasks, fits, strict=True)
        },
        profile=profile,
        skipped=dict(sorted(skipped.items())),
        duplicates={
            "sentences_read": int(n_records),
            "duplicate_sentences": int(n_records - n_distinct),
            "groups_with_duplicates": int(n_repeated),
        },
    )
    jobs = [
        WriteJob(
            SpooledTask.of(t, fit),
            tuple((r.work / f"{t.name}.arrow", r.rows[i]) for r in ranges),
            tuple((r.work / "groups.arrow", r.records) for r in ranges),
            canonical_path,
            job.settings,
            job.seed,
            job.staging,
        )
        for i, (t, fit) in enumerate(zip(tasks, fits, strict=True))
    ]
    return result, jobs


def _reading(lead: PartRun, desc: str, skipped: Counter[str], count: int | None) -> Iterable[Any]:
    """One reading of ``lead``'s inputs, shown as a pass over the records."""
    part, parts = lead.job.part
    stream: Iterable[Any] = (
        lead.family.records(lead.job.on_invalid, skipped)
        if parts == 1
        else lead.family.part_records(lead.job.on_invalid, skipped, part, parts)
    )
    return progress.records(stream, desc, count)


def _feed(
    stream: Iterable[Any],
    lead_step: Callable[[Any], None] | None,
    steps: Sequence[tuple[PartRun, Callable[[Any], None]]],
) -> None:
    """Each record to ``lead_step``, and the records derived from it to each follower's step."""
    derivers = [(part.family.deriver(), step) for part, step in steps]
    for record in stream:
        if lead_step is not None:
            lead_step(record)
        for deriver, step in derivers:
            for derived in deriver.push(record):
                step(derived)
    for deriver, step in derivers:
        for derived in deriver.close():
            step(derived)


def observe_pass(
    lead: PartRun,
    followers: Sequence[PartRun],
    *,
    fit: bool = True,
) -> None:
    """Pass 1 of ``lead`` and of the parts whose records derive from its records (one reading,
    when any task observes), then (``fit``) every part's fit."""
    observing = [p for p in followers if p.observes]
    if lead.observes or observing:
        _feed(
            # invalid records are counted in pass 2
            _reading(lead, "pass 1/2 (observe)", Counter(), None),
            lead.observe if lead.observes else None,
            [(p, p.observe) for p in observing],
        )
    if fit:
        for part in (lead, *followers):
            part.fit()


def candidate_pass(lead: PartRun, followers: Sequence[PartRun]) -> None:
    """Pass 2 of ``lead`` and of its followers: one reading of ``lead``'s inputs."""
    known = lead.known
    desc = "pass 2/2 (candidates)" if known else "reading (candidates)"
    _feed(
        _reading(lead, desc, lead.skipped, known or None),
        lead.add,
        [(p, p.add) for p in followers],
    )
    for part in followers:  # they read what the lead read
        part.skipped.update(lead.skipped)


def scored_inputs(task: Task[Any], cand: Candidate) -> dict[str, Any]:
    """A scored candidate's inputs with its score, spooled beside them (written as ``label``).
    A scored task's candidate without a finite score is a task bug, not bad input."""
    score = cand.score
    if score is None or not math.isfinite(score):
        raise ValueError(f"{task.name}: a scored task's candidate needs a finite score: {score!r}")
    return {**cand.inputs, SCORE_COLUMN: float(score)}


def write_task(job: WriteJob) -> AssembledTask:
    """Assemble one spooled task into the staging folder: a pure function of the files the
    job names and its values, so any process may run it."""
    arrays, rows = open_spooled_parts(job.spools, [n for _, n in job.groups])
    groups: SpoolReader | SpoolParts = (
        SpoolReader(job.groups[0][0])
        if len(job.groups) == 1
        else SpoolParts([(SpoolReader(path) if n else None, n, 0) for path, n in job.groups])
    )
    try:
        cols = CandidateColumns(
            label=arrays["label"],
            group=arrays["group"],
            key=arrays["key"],
            source_split=arrays["split"],
            order=arrays["order"],
        )
        st = job.task
        reader = rows_reader(
            materialise,
            rows,
            cols,
            st.metadata.level,
            st.metadata.inputs,
            groups,
            np.load(job.canonical, mmap_mode="r"),
            st.metadata.scored,
        )
        cset = CandidateSet(
            metadata=st.metadata,
            label_names=st.label_names,
            columns=cols,
            rows=reader,
            split=job.settings.split,
            recipe=st.recipe,
            notes=st.notes,
            task_drops=st.drops,
        )
        return assemble([cset], job.settings, job.seed, job.staging, task_report=st.derived)
    finally:
        groups.close()
        if rows is not None:
            rows.close()


def leads_of(runs: Sequence[PartRun]) -> list[tuple[PartRun, list[PartRun]]]:
    """The parts that read the inputs, each with the parts fed from its readings (those whose
    family derives its records from the lead's family, :func:`base_of`), in part order."""
    followers: dict[int, list[PartRun]] = {}
    leads: list[int] = []
    for run in runs:
        base = base_of(run.family)
        lead = next((i for i, r in enumerate(runs) if base is not None and r.family == base), None)
        if lead is None:
            leads.append(runs.index(run))
        else:
            followers.setdefault(lead, []).append(run)
    return [(runs[i], followers.get(i, [])) for i in leads]
