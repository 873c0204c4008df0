"""Record tasks in one process or several: a build's streams of records (``build ud``: the
sentences, and the ``# newdoc`` documents they form) run through the passes of
:mod:`polyprobe.builders.execution.passes`, and this module decides how processes share them.

By *record ranges* (:func:`run_on_ranges`) where every family that reads inputs can cut its
records (``part_records``) and every observation can merge (``Observation.merge``): each
process then reads 1/N of the records in both passes. Otherwise by *task shards*
(:func:`run_shard_parts`): each process reads every record for some of the tasks (no task
needs another task; see ``polyprobe.runtime.shards``), which costs every process the reading
and the per-record work the tasks share (with two processes on EWT, 27% more instructions
than one). Either way the output does not depend on the number of processes (tested byte
for byte).
"""

from __future__ import annotations

import shutil
import tempfile
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe import progress
from polyprobe.builders.assemble import AssembledTask
from polyprobe.builders.execution.passes import (
    PartRun,
    ShardJob,
    ShardResult,
    Spooled,
    WriteJob,
    base_of,
    candidate_pass,
    finish_stream,
    leads_of,
    observe_pass,
    write_task,
)
from polyprobe.builders.execution.remote import Remote
from polyprobe.builders.family import Outcome, Records
from polyprobe.builders.task import Fit, Observation, Task, mergeable
from polyprobe.builders.variants import VariantSettings

# The build's scratch folder in the temp dir: ``polyprobe-spool-<pid>-<host>-<random>``.
SPOOL = "polyprobe-spool-"


@dataclass(frozen=True)
class OpenedStream:
    """One stream of a build with its tasks configured (by the spine) and its profile entry
    (language facts, the profile's overrides); the run fills in what the tasks derived."""

    records: Records
    tasks: tuple[Task[Any], ...]
    profile: dict[str, Any]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)


@dataclass(frozen=True)
class RunSettings:
    """What every pass of a build needs besides its streams: plain values."""

    seed: int
    on_invalid: str
    variants: VariantSettings
    staging: Path  # the writer's temporary folder; configs go to staging/data/<config>/
    jobs: int = 1
    # where the per-range passes run when the inputs were prepared on a datatrove executor
    remote: Remote | None = None


def run_shard_parts(
    parts: tuple[ShardJob, ...],
) -> tuple[list[ShardResult], list[WriteJob]]:
    """One process's share of a build: both passes of each part (a stream's tasks in this
    shard); a part whose family derives its records from another part's family (see
    :func:`base_of`) is fed from that part's readings, so the inputs are read once per pass.
    The results in part order and every write job."""
    runs = [PartRun(p) for p in parts]
    for lead, followers in leads_of(runs):
        observe_pass(lead, followers)
        candidate_pass(lead, followers)
    results: list[ShardResult] = []
    jobs: list[WriteJob] = []
    for run in runs:
        result, listed = run.finish()
        results.append(result)
        jobs += listed
    return results, jobs


def run_streams(streams: Sequence[OpenedStream], run: RunSettings) -> list[Outcome]:
    """Every stream's tasks, planned together onto ``run.jobs`` processes (a task of one
    stream and a task of another may share a process, so a second, smaller stream fills the
    processes rather than running after the first on one of them), one outcome per stream.
    Where a process runs tasks of a stream and of one derived from it (documents grouped from
    sentences), each pass reads the inputs once for both (:func:`run_shard_parts`)."""
    from polyprobe.cards.folder import make_owned_dir, sweep_orphans

    names = [n for s in streams for n in s.names]
    if len(set(names)) != len(names):
        raise ValueError("a task name is in two streams")
    # Named for this process, so that the next build sweeps the folder if this one is killed.
    scratch = Path(tempfile.gettempdir())
    sweep_orphans(scratch, SPOOL)
    work = make_owned_dir(scratch, SPOOL, mode=0o700)
    try:
        if run.remote is not None and families_cut(streams) and all_merge(streams):
            results, written = _run_remote(streams, run, run.remote)
        elif run.jobs > 1 and families_cut(streams) and all_merge(streams):
            results, written = run_on_ranges(streams, run, work)
        else:
            results, written = _run_on_shards(streams, run, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assembled = {a.name: a for a in written}
    return [
        _outcome(stream, [r for r in results if r.tasks[0] in stream.names], assembled)
        for stream in streams
    ]


def _run_on_shards(
    streams: Sequence[OpenedStream], run: RunSettings, work: Path
) -> tuple[list[ShardResult], list[AssembledTask]]:
    """The build on task shards: each process reads every record for some of the tasks."""

    from polyprobe.runtime.costs import affinity_of, cost_of
    from polyprobe.runtime.parallel import run_sharded
    from polyprobe.runtime.shards import plan_shards

    names = [n for s in streams for n in s.names]
    plan = plan_shards(
        names,
        [cost_of(n) for n in names],
        run.jobs,
        affinity=[affinity_of(n) for n in names],
    )
    shards = [
        tuple(
            ShardJob(
                stream.records,
                tuple(t for t in stream.tasks if t.name in shard),
                stream.profile,
                run.seed,
                run.on_invalid,
                run.variants,
                run.staging,
                work,
            )
            for stream in streams
            if any(t.name in shard for t in stream.tasks)
        )
        for shard in plan
    ]
    with progress.step("writing configs", total=len(names), unit=" task") as step:
        results, written = run_sharded(
            run_shard_parts, shards, write_task, size=lambda job: job.rows, done=step.advance
        )
    return [r for shard in results for r in shard], [a for outputs in written for a in outputs]


def _run_remote(
    streams: Sequence[OpenedStream], run: RunSettings, remote: Remote
) -> tuple[list[ShardResult], list[AssembledTask]]:
    """The build on record ranges whose observe and candidate passes run on ``remote``'s
    executor (:mod:`polyprobe.builders.execution.remote`), in a folder of the shard cache
    named by what decides them; removed once every task is written."""
    from polyprobe.builders.execution.prepare import sweep_partial
    from polyprobe.builders.execution.remote import passes_key

    key = passes_key(streams, run.seed, run.on_invalid, remote.ranges)
    folder = remote.folder / f"passes-{key:016x}"
    folder.mkdir(parents=True, exist_ok=True)
    sweep_partial(folder)
    done = run_on_ranges(streams, run, folder, ranges=remote.ranges, remote=remote)
    shutil.rmtree(folder, ignore_errors=True)
    return done


def families_cut(streams: Sequence[OpenedStream]) -> bool:
    """Can every stream of the build that reads inputs (one not fed from another stream's
    readings, :func:`base_of`) cut its records into ranges (``part_records``)? A build runs
    on record ranges when they can and every observation merges (:func:`all_merge`),
    otherwise on task shards."""
    records = [s.records for s in streams]
    return all(can_be_cut(r) or base_of(r) in records for r in records)


def can_be_cut(records: Records) -> bool:
    """Do ``records`` read in ranges (``part_records``, and ``can_be_cut()`` when whether
    they can depends on their sources)?"""
    if not callable(getattr(records, "part_records", None)):
        return False
    check = getattr(records, "can_be_cut", None)
    return bool(check()) if callable(check) else True


def all_merge(streams: Sequence[OpenedStream]) -> bool:
    """Does every task's observation (if it has one) merge (:meth:`Observation.merge`)?"""
    return all(
        o is None or mergeable(o) for s in streams for o in (t.observation() for t in s.tasks)
    )


@dataclass(frozen=True)
class RangeJob:
    """One range of a build's records for every stream (a :class:`ShardJob` each, with the
    range and the build's opened tasks): for the observe phase, or, given each stream's
    ``fits`` and the text hashes the observe phase computed for this range, for the
    candidate phase."""

    parts: tuple[ShardJob, ...]
    fits: tuple[tuple[Fit, ...], ...] | None = None
    hashes: tuple[array[int], ...] | None = None


def later_first(job: RangeJob) -> int:
    """The order in which the ranges are handed out: the last range first, to this process.
    This process is the one that must then load the other ranges' observations: taking the
    range that starts with the longest scan of the bytes before it (sized for it, see
    ``polyprobe.loaders.sources.SCAN_WEIGHT``, but the last to get going), it receives the
    others' while it still works on its own, instead of waiting for them after it."""
    return job.parts[0].part[0] if job.parts else 0


def observe_range(
    job: RangeJob,
) -> list[tuple[list[Observation | None], array[int]]]:
    """Phase 1 of a build on ranges: each stream's observations of one range, and the text
    hashes of the records observed."""
    runs = [PartRun(p) for p in job.parts]
    for lead, followers in leads_of(runs):
        observe_pass(lead, followers, fit=False)
    return [(run.observations, run.text_hashes) for run in runs]


def fit_task(item: tuple[Task[Any], Sequence[Observation]]) -> Fit:
    """One task's range observations merged in stream order (:meth:`Observation.merge`),
    then the task fitted on the merged one: in whichever process fits the task, rather than
    all tasks' in this process before the phase, so the merges run in parallel."""
    task, (observation, *later) = item
    for ranged in later:
        observation.merge(ranged)
    return task.fit(observation)


def fit_tasks(bundle: Sequence[tuple[Task[Any], Sequence[Observation]]]) -> list[Fit]:
    """Phase 2 of a build on ranges: one process's share of the fits (:func:`fit_bundles`),
    each task as :func:`fit_task`."""
    return [fit_task(item) for item in bundle]


def fit_bundles(names: Sequence[str], processes: int) -> list[list[int]]:
    """The observing tasks (positions in ``names``) cut into one bundle per process, of
    similar measured cost (:func:`~polyprobe.runtime.shards.plan_shards`), the costliest
    bundle first. Why bundles and not one item per task: most fits take milliseconds, and
    each item handed to a worker is a round trip (pickled, queued, run, sent back, the next
    one handed out) of 20-80 ms, during which the worker idles; a bundle is one."""
    from polyprobe.runtime.costs import cost_of
    from polyprobe.runtime.shards import plan_shards

    position = {n: i for i, n in enumerate(names)}
    plan = plan_shards(list(names), [cost_of(n) for n in names], processes)
    plan.sort(key=lambda shard: -sum(cost_of(n) for n in shard))
    return [[position[n] for n in shard] for shard in plan]


def spool_range(job: RangeJob) -> list[Spooled]:
    """Phase 3 of a build on ranges: each stream's candidates of one range, spooled."""
    assert job.fits is not None and job.hashes is not None
    runs = [PartRun(p) for p in job.parts]
    for run, fits, hashes in zip(runs, job.fits, job.hashes, strict=True):
        run.text_hashes = array("Q", hashes)
        run.start_candidates(list(fits))
    for lead, followers in leads_of(runs):
        candidate_pass(lead, followers)
    return [run.close() for run in runs]


def run_on_ranges(
    streams: Sequence[OpenedStream],
    run: RunSettings,
    work: Path,
    *,
    ranges: int | None = None,
    remote: Remote | None = None,
) -> tuple[list[ShardResult], list[AssembledTask]]:
    """The build on record ranges, one per process (see :func:`families_cut`): each process
    reads 1/``jobs`` of the records in both passes, where on task shards each reads all of
    them. Four phases, each one :meth:`~polyprobe.runtime.parallel.WorkerPool.map`:

    1. observe: each range shown to the observing tasks (:func:`observe_range`);
    2. fit: every observing task's range observations merged in stream order
       (:meth:`Observation.merge`: exact, so the output does not depend on ``jobs``) and the
       task fitted once, in one bundle of tasks per process (:func:`fit_bundles`);
    3. candidates: each range's candidates of every task spooled (:func:`spool_range`);
    4. write: each task from its ranges' spools, read as one (:func:`write_task`).

    ``ranges``: how many (default: one per process); with ``remote``, phases 1, 3 and 4 run
    on its executor (:func:`~polyprobe.builders.execution.remote.map_remote`, and
    :func:`write_remotely`), only the fits here."""

    from polyprobe.builders.execution.remote import map_remote, saved
    from polyprobe.runtime.parallel import WorkerPool

    jobs = run.jobs
    parts = ranges or jobs

    def range_job(k: int, **phase: Any) -> RangeJob:
        return RangeJob(
            tuple(
                ShardJob(
                    s.records,
                    s.tasks,
                    s.profile,
                    run.seed,
                    run.on_invalid,
                    run.variants,
                    run.staging,
                    work,
                    part=(k, parts),
                )
                for s in streams
            ),
            **phase,
        )

    tasks = [list(s.tasks) for s in streams]
    with WorkerPool(jobs) as pool:

        def per_range(phase: str, function: Any, items: list[RangeJob]) -> list[Any]:
            if remote is None:
                return pool.map(function, items, size=later_first)
            return map_remote(remote, phase, work, function, items)

        observations = [[t.observation() for t in ts] for ts in tasks]

        def observe_and_fit() -> tuple[list[list[Fit]], list[tuple[array[int], ...]]]:
            """Phases 1 and 2: every task's fit, and each range's text hashes."""
            hashes: list[tuple[array[int], ...]] = [
                tuple(array("Q") for _ in streams) for _ in range(parts)
            ]
            observed: list[list[tuple[list[Observation | None], array[int]]]] = []
            if any(o is not None for os in observations for o in os):
                observed = per_range("observe", observe_range, [range_job(k) for k in range(parts)])
                hashes = [tuple(h for _, h in ranged) for ranged in observed]
            observing = [
                (i, j)
                for i, os in enumerate(observations)
                for j, o in enumerate(os)
                if o is not None
            ]
            bundles = fit_bundles([tasks[i][j].name for i, j in observing], jobs)
            fitted_bundles = pool.map(
                fit_tasks,
                [
                    [
                        # a task and its range observations, in stream order
                        (tasks[i][j], [ranged[i][0][j] for ranged in observed])
                        for i, j in (observing[k] for k in bundle)
                    ]
                    for bundle in bundles
                ],
            )
            fitted: dict[tuple[int, int], Fit] = {}
            for bundle, bundle_fits in zip(bundles, fitted_bundles, strict=True):
                fitted.update(zip((observing[k] for k in bundle), bundle_fits, strict=True))
            fits = [
                [fitted[i, j] if (i, j) in fitted else t.fit(None) for j, t in enumerate(ts)]
                for i, ts in enumerate(tasks)
            ]
            return fits, hashes

        if remote is None:
            fits, hashes = observe_and_fit()
        else:
            fits, hashes = saved(work / "fits.pickle", observe_and_fit, drop="observe-*")
        spooled = per_range(
            "candidates",
            spool_range,
            [
                range_job(k, fits=tuple(tuple(f) for f in fits), hashes=hashes[k])
                for k in range(parts)
            ],
        )
        results: list[ShardResult] = []
        write_jobs: list[WriteJob] = []
        for i, (ts, stream) in enumerate(zip(tasks, streams, strict=True)):
            profile = dict(stream.profile)
            profile["tasks"] = {
                t.name: dict(fits[i][j].report)
                for j, t in enumerate(ts)
                if observations[i][j] is not None
            }
            result, listed = finish_stream(
                range_job(0).parts[i], ts, fits[i], profile, [ranged[i] for ranged in spooled]
            )
            results.append(result)
            write_jobs += listed
        if remote is not None:  # phase 4 on the executor too, into the shared folder
            return results, write_remotely(remote, work, write_jobs, run.staging)
        with progress.step("writing configs", total=len(write_jobs), unit=" task") as step:
            written = pool.map(write_task, write_jobs, size=lambda job: job.rows, done=step.advance)
    return results, written


def write_remotely(
    remote: Remote, work: Path, jobs: Sequence[WriteJob], staging: Path
) -> list[AssembledTask]:
    """Phase 4 on ``remote``'s executor: each task's write job writes its configs into
    ``work/written`` (a folder every node sees, kept between commands), whose files are then
    moved into the build's ``staging`` folder (which lives only as long as this command)."""
    import dataclasses

    from polyprobe.builders.execution.remote import map_remote

    written = work / "written"
    written.mkdir(exist_ok=True)
    there = [dataclasses.replace(job, staging=written) for job in jobs]
    assembled = map_remote(remote, "write", work, write_task, there)
    for path in sorted(written.rglob("*")):
        if path.is_file():
            target = staging / path.relative_to(written)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, target)
    return assembled


def _outcome(
    stream: OpenedStream, results: list[ShardResult], assembled: dict[str, AssembledTask]
) -> Outcome:
    """One stream's outcome from its shards' results. A task's profile and recipe come from
    the shard that fitted it; every shard read the same records, so their counts agree."""
    names = stream.names
    published = {t.name: t.metadata.name for t in stream.tasks}  # a suite may rename
    fitted = {name: r for r in results for name in r.tasks}
    first = results[0]
    profile = dict(first.profile)
    profile["tasks"] = {
        n: fitted[n].profile["tasks"][n] for n in names if n in fitted[n].profile["tasks"]
    }
    return Outcome(
        assembled=[assembled[published[n]] for n in names],
        recipes=[fitted[n].recipes[n] for n in names],
        profile=profile,
        skipped=first.skipped,
        duplicates=first.duplicates,
    )
