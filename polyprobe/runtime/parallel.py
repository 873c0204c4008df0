"""Several processes for one build, on a standard ``concurrent.futures`` process pool.

The work comes in two phases and this module knows nothing more of it: each *shard* first
makes a list of *jobs* (a build: reads the records once and spools its tasks' candidates),
then every job is run by whichever process is free (a build: a task's variants and files).
Shards are fixed before they start, so on a busy machine one process can end its shard well
before another; its jobs, and then the other shards' jobs, keep it busy meanwhile. Jobs are
run largest first by whichever process is free (greedy list scheduling, which ends the
processes at about the same time when no job dominates):

* the first shard runs in this process, the others in pool workers;
* a shard's jobs join one list of pending jobs as soon as its shard is done;
* a worker that finishes a shard or a job is handed the largest pending job (the pool is
  never given more than it has free workers, so nothing waits in its queue where this
  process could not take it back), and this process, once its own shard is done, takes the
  largest pending job itself, until every shard has handed in its jobs and none is pending.

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

import heapq
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


class _Pending(Generic[J]):
    """The jobs handed in and not started yet, largest first, and how many pool workers are
    free: shared by this process's thread and the pool's thread that runs done-callbacks."""

    def __init__(self, size: Callable[[J], int]) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.heap: list[tuple[int, int, J]] = []  # (-size, job key, job): a stable order
        self.counts: dict[int, int] = {}  # shard -> jobs it listed, once handed in
        self.free = 0  # pool workers with nothing to do
        self.failed = False  # a job or shard failed: start nothing more
        self.started: dict[int, Future[Any]] = {}  # job key -> its future in a worker

    def hand_in(self, shard_index: int, listed: list[J]) -> None:
        with self.lock:
            for i, job in enumerate(listed):
                heapq.heappush(self.heap, (-self.size(job), _key(shard_index, i), job))
            self.counts[shard_index] = len(listed)

    def take(self) -> tuple[int, J] | None:
        """The largest pending job (its key and itself), if any and nothing failed."""
        with self.lock:
            if self.failed or not self.heap:
                return None
            _, key, job = heapq.heappop(self.heap)
            return key, job

    def start_on_worker(self, submit: Callable[[J], Future[Any]]) -> Future[Any] | None:
        """As :meth:`take`, for a free worker: ``submit(job)``'s future, kept in
        :attr:`started`. Taken and kept under one lock, so this process never sees a job that
        is neither pending nor started (its output would be missed)."""
        with self.lock:
            if self.failed or not self.heap or self.free == 0:
                return None
            self.free -= 1
            _, key, job = heapq.heappop(self.heap)
            future = self.started[key] = submit(job)
            return future

    def worker_done(self, failed: bool) -> None:
        with self.lock:
            self.free += 1
            self.failed = self.failed or failed


def run_sharded(
    first: Callable[[S], tuple[R, list[J]]],
    shards: Sequence[S],
    finish: Callable[[J], Any],
    *,
    local_first: Callable[[S], tuple[R, list[J]]] | None = None,
    size: Callable[[J], int] = lambda job: 0,
    done: Callable[[], None] | None = None,
) -> tuple[list[R], list[list[Any]]]:
    """``first(shard) -> (result, jobs)`` for every shard, then ``finish(job)`` for every job;
    returns the shards' results and, per shard, its jobs' outputs in the order the shard
    listed them. The first shard runs here (through ``local_first`` if given: e.g. with a
    progress bar, which cannot cross processes). ``first`` and ``finish`` must be importable
    module-level functions; shards, jobs and what they return must pickle.

    The first error (a shard's, in shard order, else a job's) is raised as itself; the pool's
    workers are stopped on any error or interrupt, so nothing keeps writing. Every process
    collects garbage less often meanwhile (:mod:`polyprobe.runtime.collection`). ``done()``
    is called as each job finishes (here, or from a worker's callback thread)."""
    with fewer_collections():
        return _run_sharded(first, shards, finish, local_first or first, size, done or _nothing)


def _nothing() -> None:
    return None


def _run_sharded(
    first: Callable[[S], tuple[R, list[J]]],
    shards: Sequence[S],
    finish: Callable[[J], Any],
    here: Callable[[S], tuple[R, list[J]]],
    size: Callable[[J], int],
    done: Callable[[], None],
) -> tuple[list[R], list[list[Any]]]:
    if len(shards) <= 1:
        results, outputs = [], []
        for shard in shards:
            result, jobs = here(shard)
            results.append(result)
            finished = []
            for job in jobs:
                finished.append(finish(job))
                done()
            outputs.append(finished)
        return results, outputs

    context = multiprocessing.get_context(start_method())
    pending: _Pending[Any] = _Pending(size)
    pool = ProcessPoolExecutor(
        max_workers=len(shards) - 1,
        mp_context=context,
        initializer=_start_worker,  # SIGTERM ends a worker; so does its parent's death
        initargs=(os.getpid(),),
    )
    try:

        def feed_workers() -> None:
            """Give each free worker the largest pending job."""
            while future := pending.start_on_worker(lambda job: _submit(pool, finish, job)):
                future.add_done_callback(job_done)  # outside the lock: it may run at once

        def job_done(future: Future[Any]) -> None:
            failed = future.cancelled() or future.exception() is not None
            pending.worker_done(failed=failed)
            if not failed:
                done()
            feed_workers()

        def on_shard_done(shard_index: int) -> Callable[[Future[Any]], None]:
            def done(future: Future[Any]) -> None:
                ok = not future.cancelled() and future.exception() is None
                pending.hand_in(shard_index, future.result()[1] if ok else [])
                pending.worker_done(failed=not ok)
                feed_workers()

            return done

        shard_futures = []
        for index, shard in enumerate(shards[1:], 1):
            future = _submit(pool, first, shard)
            future.add_done_callback(on_shard_done(index))
            shard_futures.append(future)
        local_result, local_jobs = here(shards[0])
        pending.hand_in(0, local_jobs)
        feed_workers()
        local_outputs: dict[int, Any] = {}
        # Take the largest pending job, until every shard has handed in its jobs and none is
        # pending (what is left runs in workers).
        while True:
            taken = pending.take()
            if taken is not None:
                local_outputs[taken[0]] = finish(taken[1])
                done()
                continue
            with pending.lock:
                if pending.failed or (len(pending.counts) == len(shards) and not pending.heap):
                    break
            _wait_any([f for f in shard_futures if not f.done()])
        results = [local_result]
        for future in shard_futures:
            results.append(_result(future)[0])
        started = pending.started  # complete: nothing is pending any more
        wait(list(started.values()))
        for key in sorted(started):  # a worker's job error, the first in job order
            _result(started[key])
        outputs: list[list[Any]] = [[None] * pending.counts[s] for s in range(len(shards))]
        for key, value in [*local_outputs.items(), *((k, f.result()) for k, f in started.items())]:
            shard_index, i = divmod(key, _STRIDE)
            outputs[shard_index][i] = value
        pool.shutdown(wait=False)
        return results, outputs
    except BaseException:
        workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        _stop_workers(workers)
        raise


class WorkerPool:
    """This process and ``processes - 1`` pool workers, kept for the phases of one build, each
    phase a :meth:`map` that starts when the one before it has ended (a build over record
    ranges: observe the ranges, fit the tasks, spool the ranges' candidates, write the tasks;
    :mod:`polyprobe.builders.record_ranges`). Workers are started as :func:`run_sharded`
    starts them; leaving the ``with`` block on an error or interrupt kills them, so nothing
    keeps writing. Every process collects garbage less often meanwhile."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self._pool: ProcessPoolExecutor | None = None
        self._collections = fewer_collections()

    def __enter__(self) -> WorkerPool:
        self._collections.__enter__()
        if self.processes > 1:
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes - 1,
                mp_context=multiprocessing.get_context(start_method()),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        pool, self._pool = self._pool, None
        try:
            if pool is not None and exc_type is None:
                pool.shutdown(wait=False)
            elif pool is not None:
                workers = list((getattr(pool, "_processes", None) or {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                _stop_workers(workers)
        finally:
            self._collections.__exit__(exc_type, exc, tb)

    def map(
        self,
        fn: Callable[[J], R],
        items: Sequence[J],
        *,
        here: Callable[[J], R] | None = None,
        size: Callable[[J], int] = lambda item: 0,
        done: Callable[[], None] | None = None,
    ) -> list[R]:
        """``fn(item)`` for every item, the results in item order. Items go largest first
        (``size``; ties in item order) to whichever process is free, this one included: it
        takes the first, runs it through ``here`` if given (e.g. with a progress bar, which
        cannot cross processes), then takes the largest left, as long as any is. ``fn`` must
        be an importable module-level function; items and results must pickle.

        A failed item stops the phase (nothing more is started); the error of the first
        failed item in item order is raised as itself once the started items are done.
        ``done()`` is called as each item finishes (here, or from a callback thread)."""
        run_here = here or fn
        finished = done or _nothing
        pool = self._pool
        if pool is None or len(items) <= 1:
            out = []
            for item in items:
                out.append(run_here(item))
                finished()
            return out
        pending: _Pending[J] = _Pending(size)
        pending.hand_in(0, list(items))
        pending.free = self.processes - 1

        def feed_workers() -> None:
            while future := pending.start_on_worker(lambda item: _submit(pool, fn, item)):
                future.add_done_callback(item_done)

        def item_done(future: Future[Any]) -> None:
            failed = future.cancelled() or future.exception() is not None
            pending.worker_done(failed=failed)
            if not failed:
                finished()
            feed_workers()

        done_here: dict[int, Any] = {}
        failed_here: dict[int, Exception] = {}
        taken = pending.take()  # this process's first item: the first of the largest
        feed_workers()
        while taken is not None:
            key, item = taken
            try:
                done_here[key] = run_here(item)
                finished()
            except Exception as exc:  # raised below, if no earlier item failed
                failed_here[key] = exc
                with pending.lock:
                    pending.failed = True
                break
            taken = pending.take()
        wait(list(pending.started.values()))
        results: list[Any] = [None] * len(items)
        for key in sorted([*done_here, *failed_here, *pending.started]):
            if key in failed_here:
                raise failed_here[key]
            results[key] = done_here[key] if key in done_here else _result(pending.started[key])
        return results


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
