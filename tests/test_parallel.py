"""Shards and their jobs on a process pool (polyprobe.runtime.parallel): results in order
whoever computed them, every job run exactly once, errors crossing processes as themselves."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from polyprobe.errors import InputError
from polyprobe.runtime.parallel import run_sharded, start_method


def _shard(n: int) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """A shard's result (its number, the process) and its jobs: n jobs of growing size."""
    if n == 13:
        raise InputError("/data/bad.conllu", 7, "head out of range", "bad-head")
    return (n, os.getpid()), [(n, i) for i in range(n)]


def _job(job: tuple[int, int]) -> tuple[int, int, int]:
    n, i = job
    if (n, i) == (5, 3):
        raise ValueError("job 5/3 failed")
    return n, i, os.getpid()


def _job_logged(job: tuple[int, int, str]) -> tuple[int, int]:
    n, i, folder = job
    # one file per run of a job: exactly one may exist
    fd = os.open(Path(folder) / f"{n}-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    os.close(fd)
    return n, i


def _shard_logged(spec: tuple[int, str]) -> tuple[int, list[tuple[int, int, str]]]:
    n, folder = spec
    return n, [(n, i, folder) for i in range(20)]


def _shard_slow_writer(spec: tuple[int, str]) -> tuple[int, list[int]]:
    """Shard 0 fails at once; the others keep working, then write a file."""
    n, folder = spec
    if n == 0:
        raise ValueError("shard 0 failed")
    time.sleep(1.0)
    (Path(folder) / f"shard-{n}").write_text("still writing")
    return n, []


def test_results_in_order_whoever_computed_them() -> None:
    results, outputs = run_sharded(_shard, [2, 3, 4], _job, size=lambda job: job[1])
    assert [r[0] for r in results] == [2, 3, 4]
    assert results[0][1] == os.getpid()  # the first shard runs here
    assert {r[1] for r in results[1:]} != {os.getpid()}  # the others in workers
    for n, outs in zip([2, 3, 4], outputs, strict=True):
        assert [(a, b) for a, b, _ in outs] == [(n, i) for i in range(n)]


def test_every_job_runs_exactly_once(tmp_path: Path) -> None:
    shards = [(n, str(tmp_path)) for n in range(3)]
    results, outputs = run_sharded(_shard_logged, shards, _job_logged)
    assert results == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{n}-{i}" for n in range(3) for i in range(20)
    )
    assert outputs == [[(n, i) for i in range(20)] for n in range(3)]


def test_one_process_needs_no_pool() -> None:
    results, outputs = run_sharded(_shard, [3], _job)
    assert results == [(3, os.getpid())]
    assert [o[:2] for o in outputs[0]] == [(3, 0), (3, 1), (3, 2)]


def test_a_shard_error_crosses_processes_as_itself() -> None:
    with pytest.raises(InputError, match=r"^/data/bad.conllu:7: head out of range$") as info:
        run_sharded(_shard, [1, 13], _job)  # shard 13 runs in a worker process
    assert info.value.reason == "bad-head"


def test_a_job_error_is_raised() -> None:
    with pytest.raises(ValueError, match="job 5/3 failed"):
        run_sharded(_shard, [2, 5], _job)


def test_workers_are_stopped_on_an_error(tmp_path: Path) -> None:
    """When this process's shard fails, the workers still running are stopped at once:
    nothing keeps writing after the error is raised."""
    shards = [(n, str(tmp_path)) for n in range(3)]
    with pytest.raises(ValueError, match="shard 0 failed"):
        run_sharded(_shard_slow_writer, shards, _job)
    time.sleep(1.5)  # longer than a worker's shard would take
    assert list(tmp_path.iterdir()) == []


def test_fork_where_it_is_safe() -> None:
    assert start_method() in ("fork", "spawn")


def _shard_sized(spec: tuple[int, float]) -> tuple[int, list[tuple[int, int]]]:
    """Shard 0 lists jobs of sizes 1, 5, 3 at once; shard 1 keeps its worker busy a while."""
    n, delay = spec
    time.sleep(delay)
    return n, [(n, size) for size in ((1, 5, 3) if n == 0 else (4, 2))]


def _job_timed(job: tuple[int, int]) -> tuple[int, float]:
    time.sleep(0.05)
    return os.getpid(), time.monotonic()


def test_the_largest_pending_job_goes_first() -> None:
    """Whichever process is free takes the largest pending job: here this process is free
    first (the worker is still on its shard) and runs size 5 before 3 and 1; the worker,
    once free, takes the largest of what is left (4, from its own shard)."""
    results, outputs = run_sharded(
        _shard_sized, [(0, 0.0), (1, 0.5)], _job_timed, size=lambda job: job[1]
    )
    assert results == [0, 1]
    here = os.getpid()
    ran_here = sorted(
        (t, size)
        for outs, sizes in zip(outputs, ((1, 5, 3), (4, 2)), strict=True)
        for (pid, t), size in zip(outs, sizes, strict=True)
        if pid == here
    )
    assert [size for _, size in ran_here][:3] == [5, 3, 1]  # this process's jobs, largest first
    worker_jobs = [
        (t, size)
        for outs, sizes in zip(outputs, ((1, 5, 3), (4, 2)), strict=True)
        for (pid, t), size in zip(outs, sizes, strict=True)
        if pid != here
    ]
    assert min(worker_jobs)[1] == 4  # the worker's first job: the largest pending one


def _square(n: int) -> tuple[int, int]:
    if n == 7:
        raise InputError("/data/bad.conllu", 7, "head out of range", "bad-head")
    if n == 9:
        raise ValueError("item 9 failed")
    return n * n, os.getpid()


def test_a_pool_maps_in_item_order_here_and_in_workers() -> None:
    from polyprobe.runtime.parallel import WorkerPool

    with WorkerPool(2) as pool:
        first = pool.map(_square, [1, 2, 3, 4, 5, 6], here=lambda n: (n * n, -1))
        second = pool.map(_square, [10, 11])  # the workers live on for the next phase
    assert [r[0] for r in first] == [1, 4, 9, 16, 25, 36]
    assert first[0][1] == -1  # this process takes the first item, through `here`
    assert {pid for _, pid in first} - {-1} and os.getpid() not in {pid for _, pid in first}
    assert [r[0] for r in second] == [100, 121]


def test_a_pool_raises_the_first_failed_item_in_item_order() -> None:
    from polyprobe.runtime.parallel import WorkerPool

    with pytest.raises(InputError, match="head out of range"), WorkerPool(2) as pool:
        # 9, the largest, is run (and fails) here; 7 fails in the worker, and comes first
        pool.map(_square, [7, 9], size=lambda n: n)
    with pytest.raises(ValueError, match="item 9 failed"), WorkerPool(3) as pool:
        pool.map(_square, [1, 9, 2, 7])


def test_one_process_maps_without_a_pool() -> None:
    from polyprobe.runtime.parallel import WorkerPool

    with WorkerPool(1) as pool:
        assert pool.map(_square, [2, 3]) == [(4, os.getpid()), (9, os.getpid())]
