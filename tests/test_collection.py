"""Garbage collection during a build (polyprobe.runtime.collection): every process of a build
runs with the raised young threshold, and the caller's thresholds come back afterwards, also
after an error (a test suite or a notebook runs many builds in one interpreter)."""

from __future__ import annotations

import gc
import os

import pytest

from polyprobe.runtime.collection import YOUNG_THRESHOLD, fewer_collections
from polyprobe.runtime.parallel import run_sharded


def _shard(n: int) -> tuple[tuple[int, int, int], list[int]]:
    """The process and its young threshold while it runs a shard; one job."""
    return (n, os.getpid(), gc.get_threshold()[0]), [n]


def _job(n: int) -> tuple[int, int]:
    return n, gc.get_threshold()[0]


@pytest.fixture
def default_thresholds():
    previous = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*previous)


def test_the_block_raises_the_young_threshold_and_restores_all_three(default_thresholds):
    gc.set_threshold(700, 7, 9)
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 7, 9)
    assert gc.get_threshold() == (700, 7, 9)


def test_thresholds_come_back_after_an_error(default_thresholds):
    with pytest.raises(RuntimeError, match="boom"), fewer_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("n_shards", [1, 2])
def test_every_process_of_a_build_collects_less_often(default_thresholds, n_shards):
    results, outputs = run_sharded(_shard, list(range(n_shards)), _job)
    assert [r[0] for r in results] == list(range(n_shards))
    if n_shards == 2:
        assert results[0][1] != results[1][1]  # the second shard ran in a worker
    assert {r[2] for r in results} == {YOUNG_THRESHOLD}
    assert [o[0] for o in outputs] == [(n, YOUNG_THRESHOLD) for n in range(n_shards)]
    assert gc.get_threshold() == (700, 10, 10)
