"""Task shards: one build's tasks split across worker processes (``--jobs``).

Why tasks and not sentences: most tasks fix corpus-wide choices in a first pass (target words,
frequency bands, replacement classes) before they can emit a single candidate, so a task needs
every sentence, but no task needs another task. A shard is therefore a complete little build —
read, observe, derive, candidates, variants, parquet files — for some of the tasks, written
into the one staging folder (the last step of each task may be taken over by a shard that
is out of work: :mod:`polyprobe.builders.write_jobs`); the parent then writes the card for
all of them in registry order. The output does not depend on how tasks were sharded (tested byte for byte), so
``--jobs`` is not part of the fingerprint.

Workers are fresh interpreters (see :func:`run_shards`): forking a process that already runs
Arrow's thread pools is unsafe, and a fresh worker's import cost overlaps the parent's own
shard. The command line goes one step further (:func:`standby_workers`): it starts the
workers before it imports the build itself, so their imports overlap the parent's imports
too, and they wait for their shard on standard input. Workers run build shards only, so
pandas, which pyarrow would import for nothing, is hidden in them
(:mod:`polyprobe.builders.pandas_hidden`).
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from polyprobe.errors import PolyprobeError, UsageError

T = TypeVar("T")

# Below this much input a worker's start-up (~0.3 s of imports) costs more than it saves.
AUTO_MIN_INPUT_BYTES = 2 * 1024 * 1024
AUTO_MAX_JOBS = 4
# Every worker pays a fixed price: start-up and its own reading passes, about five
# sentence_length tasks on EWT (bench/task_costs.py). A second process is only worth it with
# about twice that much task work per process (3 platform tasks on EWT, 5.8 units: same wall
# time, 1.6x the CPU with two processes).
AUTO_MIN_COST_PER_JOB = 10.0
# A worker's head start lost to its interpreter start-up and imports (~0.3 s), in the same
# units: the parent's own shard gets that much more task work. A standby worker (see
# standby_workers) has imported while the parent did, so it starts level.
WORKER_START_COST = 1.5


def resolve_jobs(
    jobs: int | None, n_tasks: int, input_bytes: int, total_cost: float | None = None
) -> int:
    """Processes to use: ``jobs`` if given (capped at the number of tasks); otherwise one per
    core, at most :data:`AUTO_MAX_JOBS`, only for inputs of at least
    :data:`AUTO_MIN_INPUT_BYTES`, and at most one per :data:`AUTO_MIN_COST_PER_JOB` of the
    tasks' summed ``relative_cost``."""
    if jobs is not None:
        if jobs < 1:
            raise UsageError(f"--jobs must be a positive integer, not {jobs}")
        return max(1, min(jobs, n_tasks))
    if input_bytes < AUTO_MIN_INPUT_BYTES or n_tasks < 2:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    by_cost = n_tasks if total_cost is None else int(total_cost // AUTO_MIN_COST_PER_JOB)
    return max(1, min(cores or 1, AUTO_MAX_JOBS, n_tasks, by_cost))


def jobs_for(jobs: int | None, task_names: Sequence[str], input_bytes: int) -> int:
    """:func:`resolve_jobs` for a UD build of ``task_names`` (their summed ``relative_cost``):
    the one rule both ``build_ud`` and the command line's :func:`standby_workers` use."""
    from polyprobe.builders.registry import TASKS

    costs = sum(TASKS[n].relative_cost for n in task_names)
    return resolve_jobs(jobs, len(task_names), input_bytes, costs)


def plan_shards(
    names: Sequence[str],
    costs: Sequence[float],
    jobs: int,
    worker_start: float = 0.0,
    affinity: Sequence[str] | None = None,
) -> list[list[str]]:
    """Split tasks into ``jobs`` shards of similar total cost (longest first onto the
    least-loaded shard; ties by position, so the plan is deterministic). Tasks with the same
    non-empty ``affinity`` (``Task.shard_affinity``) go together, as one unit of their summed
    cost. Shards after the first start loaded with ``worker_start``: they run in worker
    processes that import polyprobe before they can begin, while the first runs in the parent,
    which already has (see :data:`WORKER_START_COST`). Each shard keeps the tasks' original
    order; empty shards are dropped."""
    if len(names) != len(costs) or (affinity is not None and len(affinity) != len(names)):
        raise ValueError("one cost (and affinity) per task")
    units: list[list[int]] = []
    by_affinity: dict[str, list[int]] = {}
    for i in range(len(names)):
        tag = affinity[i] if affinity is not None else ""
        if not tag:
            units.append([i])
        elif tag in by_affinity:
            by_affinity[tag].append(i)
        else:
            by_affinity[tag] = [i]
            units.append(by_affinity[tag])
    loads = [0.0] + [worker_start] * (max(1, jobs) - 1)
    members: list[list[int]] = [[] for _ in loads]
    for unit in sorted(units, key=lambda u: (-sum(costs[i] for i in u), u[0])):
        s = min(range(len(loads)), key=lambda s: (loads[s], s))
        loads[s] += sum(costs[i] for i in unit)
        members[s].extend(unit)
    return [[names[i] for i in sorted(m)] for m in members if m]


# The other processes of the build this process takes part in (see peers_running): in the
# parent, the workers of the running run_shards; in a worker, the pid of its parent.
_PEERS: list[subprocess.Popen[bytes]] = []
_PARENT: list[int] = []


def peers_running() -> bool:
    """Whether the other processes of this build are still at work: in the parent, its
    workers (False as soon as one has failed: its shard will never finish); in a worker, the
    parent that started it. A shard that waits for another shard's work to share (write
    jobs) stops waiting when they are not."""
    if _PEERS:
        codes = [p.poll() for p in _PEERS]
        return None in codes and all(c in (None, 0) for c in codes)
    if _PARENT:
        return os.getppid() == _PARENT[0]
    return False


def run_shards(
    work: Callable[[T], Any], shards: Sequence[T], local: Callable[[T], Any] | None = None
) -> list[Any]:
    """``[work(s) for s in shards]``, the first shard in this process (through ``local`` if
    given, e.g. ``work`` with a progress bar, which cannot cross processes), the others in
    worker processes at the same time. The first error (in shard order) is raised as itself;
    on any error or interrupt the workers are killed, so nothing keeps writing.

    Workers are ``python -m polyprobe.builders.shards JOB RESULT`` with pickled files, not
    ``multiprocessing``: its spawn start re-runs the caller's ``__main__`` in every worker, so
    a script without an ``if __name__ == "__main__"`` guard (or code piped to ``python -``)
    would build recursively or hang. ``work`` must be importable by reference."""
    here = local or work
    if len(shards) <= 1:
        return [here(s) for s in shards]
    tmp = Path(tempfile.mkdtemp(prefix="polyprobe-shards-"))
    workers: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        for i, shard in enumerate(shards[1:], 1):
            job, result = tmp / f"job{i}.pickle", tmp / f"result{i}.pickle"
            with open(job, "wb") as fh:
                pickle.dump((work, shard), fh, protocol=pickle.HIGHEST_PROTOCOL)
            proc = _hand_to_standby(job, result)
            if proc is None:
                cmd = [*_worker_command(), str(job), str(result)]
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, env=_worker_env())
            workers.append((proc, result))
        _PEERS[:] = [proc for proc, _ in workers]
        results = [here(shards[0])]
        for proc, result in workers:
            code = proc.wait()
            results.append(_load_result(result, code))
        return results
    finally:
        _PEERS.clear()
        for proc, _ in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def _worker_command() -> list[str]:
    return [sys.executable, "-m", "polyprobe.builders.shards"]


def _worker_env() -> dict[str, str]:
    """The parent's environment, with its import path (a checkout run without installing)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


# Workers started by standby_workers and not yet given a shard (oldest first).
_STANDBY: list[subprocess.Popen[bytes]] = []


def standby_count() -> int:
    """Workers waiting for a shard (see :func:`standby_workers`)."""
    return sum(1 for proc in _STANDBY if proc.poll() is None)


def _hand_to_standby(job: Path, result: Path) -> subprocess.Popen[bytes] | None:
    """Give the job to a waiting worker, already imported, on its stdin; None when no
    worker waits (or the ones left died waiting: they are reaped)."""
    while _STANDBY:
        proc = _STANDBY.pop(0)
        if proc.poll() is not None or proc.stdin is None:
            continue
        try:
            proc.stdin.write(f"{job}\t{result}\n".encode())
            proc.stdin.close()
        except OSError:  # it ended meanwhile
            proc.kill()
            proc.wait()
            continue
        return proc
    return None


class Standby:
    """The workers :func:`standby_workers` started (see there)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []

    def keep(self, n: int) -> None:
        """Stop the waiting workers beyond the first ``n`` (the count was a guess, now
        known exactly)."""
        waiting = [p for p in self.started if p in _STANDBY]
        for proc in waiting[max(0, n) :]:
            _stop(proc)

    def stop_all(self) -> None:
        for proc in self.started:
            if proc in _STANDBY:
                _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    _STANDBY.remove(proc)
    proc.kill()
    proc.wait()


@contextmanager
def standby_workers(n: int, warm: Iterable[str] = ()) -> Iterator[Standby]:
    """Start ``n`` worker interpreters now; each imports the modules ``warm`` and then waits
    for a shard, which :func:`run_shards` hands to it instead of starting a fresh worker.

    Why: a fresh worker spends ~0.3 s on interpreter start-up and imports after the parent
    has planned the shards, and the parent has spent about as long on its own imports
    before. Started first thing by the command line, the workers import while the parent
    does. ``n`` may be a guess made before the task registry is imported
    (:meth:`Standby.keep` stops the surplus once the count is known); workers no shard
    needed are killed on leaving the block: they hold nothing but imported modules."""
    standby = Standby()
    try:
        for _ in range(max(0, n)):
            cmd = [*_worker_command(), "--standby", *warm]
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=_worker_env())
            standby.started.append(proc)
            _STANDBY.append(proc)
        yield standby
    finally:
        standby.stop_all()


def _standby_main(warm: Sequence[str]) -> int:
    """Import ``warm``, then run the one job named on stdin (``JOB<TAB>RESULT``); end
    quietly when stdin closes without one (the parent did not need this worker)."""
    import contextlib
    import importlib

    try:
        for name in warm:
            # A module that fails here fails again in the job, which reports it.
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        line = sys.stdin.readline().rstrip("\n")
    except KeyboardInterrupt:  # interrupted while waiting: the parent cleans up
        return 130
    if not line:
        return 0
    job, _, result = line.partition("\t")
    return _worker_main(job, result)


def _load_result(path: Path, code: int) -> Any:
    """A worker's return value, or its exception raised here."""
    try:
        with open(path, "rb") as fh:
            ok, value = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError) as exc:
        raise PolyprobeError(
            f"a build worker process died (exit code {code}) without a result: {exc}"
        ) from None
    if not ok:
        raise value
    return value


def _worker_main(job_path: str, result_path: str) -> int:
    """Run one pickled ``(work, shard)`` and pickle ``(True, result)`` or ``(False, error)``."""
    _PARENT[:] = [os.getppid()]
    with open(job_path, "rb") as fh:
        work, shard = pickle.load(fh)
    try:
        out: tuple[bool, Any] = (True, work(shard))
    except Exception as exc:  # handed to the parent, which raises it
        out = (False, exc)
    try:
        blob = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # an unpicklable error: keep its message
        blob = pickle.dumps((False, PolyprobeError(f"{type(out[1]).__name__}: {out[1]} ({exc})")))
    with open(result_path, "wb") as fh:
        fh.write(blob)
    return 0 if out[0] else 1


if __name__ == "__main__":
    from polyprobe.builders.pandas_hidden import hide_pandas
    from polyprobe.process_exit import exit_process

    hide_pandas()  # a worker builds shards, which never need pandas (see pandas_hidden)

    # The parent waits for this process to end: the result is written and closed, so the
    # interpreter's teardown would only delay the build.
    if sys.argv[1] == "--standby":
        exit_process(_standby_main(sys.argv[2:]))
    exit_process(_worker_main(sys.argv[1], sys.argv[2]))
