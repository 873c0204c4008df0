"""Several processes for one build, on a standard ``concurrent.futures`` process pool.

The work comes in two phases and this module knows nothing more of it: each *shard* first
makes a list of *jobs* (a build: reads the records once and spools its tasks' candidates),
then every job is run by whichever process is free (a build: a task's variants and files).
Shards are fixed before they start, so on a busy machine one process can end its shard well
before another; its jobs, and then the other shards' jobs, keep it busy meanwhile:

* the first shard runs in this process, the others in pool workers;
* a shard's jobs are submitted to the pool as soon as its shard is done, largest first;
* this process, once its own shard is done, takes jobs too, from the back of what is still
  queued (``Future.cancel`` succeeds only for a job no worker has started), so all processes
  end at about the same time.

Workers are forked from this process when the pool starts (before the shards run, while it
holds no threads, open files or Arrow pools): they start at once, with every module already
imported. Where ``fork`` is not available (or the process already runs other threads), they
are spawned, which re-imports the caller's ``__main__``: scripts then need the usual
``if __name__ == "__main__":`` guard. A worker ends on SIGTERM, leaves Ctrl-C to this process
(which kills its workers on any error or interrupt) and ends itself once this process is gone,
even by SIGKILL (``polyprobe.runtime.signals.worker_setup``).

Nothing here changes what is computed: ``results`` and ``outputs`` come back in shard and job
order whoever ran them.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

from polyprobe.errors import PolyprobeError
from polyprobe.runtime.collection import fewer_collections, tune_collector
from polyprobe.runtime.signals import worker_setup

S = TypeVar("S")  # a shard
J = TypeVar("J")  # a job
R = TypeVar("R")  # a shard's result


def start_method() -> str:
    """``fork`` where it exists and this process runs no other thread (forking a threaded
    process can copy a lock some other thread holds), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "spawn"


class _Jobs(Generic[J]):
    """Every job submitted so far with its future, in submission order (shard by shard,
    largest first within a shard): what this process may take back from the queue."""

    def __init__(self) -> None:
        self.items: list[tuple[int, J, Future[Any]]] = []  # (job index, job, future)
        self.lock = threading.Lock()

    def add(self, index: int, job: J, future: Future[Any]) -> None:
        with self.lock:
            self.items.append((index, job, future))

    def snapshot(self) -> list[tuple[int, J, Future[Any]]]:
        with self.lock:
            return list(self.items)


def run_sharded(
    first: Callable[[S], tuple[R, list[J]]],
    shards: Sequence[S],
    finish: Callable[[J], Any],
    *,
    local_first: Callable[[S], tuple[R, list[J]]] | None = None,
    size: Callable[[J], int] = lambda job: 0,
) -> tuple[list[R], list[list[Any]]]:
    """``first(shard) -> (result, jobs)`` for every shard, then ``finish(job)`` for every job;
    returns the shards' results and, per shard, its jobs' outputs in the order the shard
    listed them. The first shard runs here (through ``local_first`` if given: e.g. with a
    progress bar, which cannot cross processes). ``first`` and ``finish`` must be importable
    module-level functions; shards, jobs and what they return must pickle.

    The first error (a shard's, in shard order, else a job's) is raised as itself; the pool's
    workers are stopped on any error or interrupt, so nothing keeps writing. Every process
    collects garbage less often meanwhile (:mod:`polyprobe.runtime.collection`)."""
    with fewer_collections():
        return _run_sharded(first, shards, finish, local_first or first, size)


def _run_sharded(
    first: Callable[[S], tuple[R, list[J]]],
    shards: Sequence[S],
    finish: Callable[[J], Any],
    here: Callable[[S], tuple[R, list[J]]],
    size: Callable[[J], int],
) -> tuple[list[R], list[list[Any]]]:
    if len(shards) <= 1:
        results, outputs = [], []
        for shard in shards:
            result, jobs = here(shard)
            results.append(result)
            outputs.append([finish(job) for job in jobs])
        return results, outputs

    context = multiprocessing.get_context(start_method())
    jobs: _Jobs[Any] = _Jobs()
    counts: dict[int, int] = {}  # shard -> jobs it listed, once they are all submitted
    pool = ProcessPoolExecutor(
        max_workers=len(shards) - 1,
        mp_context=context,
        initializer=_start_worker,  # SIGTERM ends a worker; so does its parent's death
        initargs=(os.getpid(),),
    )
    try:

        def submit_jobs(shard_index: int, listed: list[J]) -> None:
            order = sorted(range(len(listed)), key=lambda i: -size(listed[i]))  # stable
            for i in order:
                jobs.add(_key(shard_index, i), listed[i], _submit(pool, finish, listed[i]))
            with jobs.lock:
                counts[shard_index] = len(listed)

        def on_shard_done(shard_index: int) -> Callable[[Future[Any]], None]:
            def done(future: Future[Any]) -> None:
                ok = not future.cancelled() and future.exception() is None
                submit_jobs(shard_index, future.result()[1] if ok else [])

            return done

        shard_futures = []
        for index, shard in enumerate(shards[1:], 1):
            future = _submit(pool, first, shard)
            future.add_done_callback(on_shard_done(index))
            shard_futures.append(future)
        local_result, local_jobs = here(shards[0])
        submit_jobs(0, local_jobs)
        local_outputs: dict[int, Any] = {}
        # Take queued jobs from the back while workers take them from the front, until every
        # shard has handed in its jobs and none is left queued.
        while True:
            taken = next(
                (
                    (key, job)
                    for key, job, future in reversed(jobs.snapshot())
                    # cancel() is also True for a job this process took before
                    if key not in local_outputs and future.cancel()
                ),
                None,
            )
            if taken is not None:
                local_outputs[taken[0]] = finish(taken[1])
                continue
            with jobs.lock:
                handed_in = len(counts) == len(shards)
            if handed_in:
                break  # what is left is running in workers
            _wait_any([f for f in shard_futures if not f.done()])
        results = [local_result]
        for future in shard_futures:
            results.append(_result(future)[0])
        outputs: list[list[Any]] = [[None] * counts[s] for s in range(len(shards))]
        for key, _, future in jobs.snapshot():
            shard_index, i = divmod(key, _STRIDE)
            outputs[shard_index][i] = (
                local_outputs[key] if key in local_outputs else _result(future)
            )
        pool.shutdown(wait=False)
        return results, outputs
    except BaseException:
        workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        _stop_workers(workers)
        raise


def _start_worker(parent: int) -> None:
    """A pool worker's initializer: signals as :func:`~polyprobe.runtime.signals.worker_setup`
    sets them, and the build's garbage collection (a worker lives for one build)."""
    worker_setup(parent)
    tune_collector()


_STRIDE = 1 << 20  # job keys: shard index * _STRIDE + position in the shard's list


def _key(shard_index: int, i: int) -> int:
    return shard_index * _STRIDE + i


def _submit(pool: ProcessPoolExecutor, fn: Callable[[Any], Any], arg: Any) -> Future[Any]:
    """``pool.submit(fn, arg)``; once a worker has died (killed by a signal or for want of
    memory) the pool refuses new work: the item's future then fails as the pool did, and
    :func:`_result` turns that into a clear error (raised here, or in the done-callback that
    submits a shard's jobs, it would be a traceback, or a shard never handed in)."""
    try:
        return pool.submit(fn, arg)
    except BrokenProcessPool as exc:
        failed: Future[Any] = Future()
        failed.set_exception(exc)
        return failed


def _wait_any(futures: list[Future[Any]]) -> None:
    """Until one of ``futures`` is done (briefly, when all are: their done-callbacks, which
    submit the shards' jobs, may still be running)."""
    if futures:
        wait(futures, timeout=0.05, return_when=FIRST_COMPLETED)
    else:
        time.sleep(0.001)


def _result(future: Future[Any]) -> Any:
    """A future's value, its error raised here; a worker that died becomes a clear error."""
    try:
        return future.result()
    except BrokenProcessPool as exc:
        raise PolyprobeError(
            f"a build worker process ended abruptly ({exc}): it was killed (by a signal, or "
            "for want of memory), or, if this build was started from a script, the call "
            'needs to be under `if __name__ == "__main__":`'
        ) from None


def _stop_workers(processes: Sequence[Any]) -> None:
    """Kill the pool's worker processes (taken before ``shutdown()``, which drops the pool's
    list of them): on an error or interrupt nothing may keep writing."""
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=5)
