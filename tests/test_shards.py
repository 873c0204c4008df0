"""Sharding tasks across processes: the plan, the job count, and errors crossing processes."""

from __future__ import annotations

import pickle

import pytest

from polyprobe.builders.registry import DEFAULT_TASKS, TASKS
from polyprobe.builders.shards import (
    AUTO_MIN_INPUT_BYTES,
    plan_shards,
    resolve_jobs,
    run_shards,
)
from polyprobe.errors import InputError, UsageError


def test_plan_balances_cost_and_keeps_order() -> None:
    names = list(DEFAULT_TASKS)
    costs = [TASKS[n].relative_cost for n in names]
    shards = plan_shards(names, costs, 2)
    assert len(shards) == 2
    assert sorted(n for s in shards for n in s) == sorted(names)  # every task exactly once
    for shard in shards:
        assert shard == [n for n in names if n in shard]  # registry order inside a shard
    loads = [sum(TASKS[n].relative_cost for n in s) for s in shards]
    assert max(loads) - min(loads) <= max(costs)  # LPT bound: within one task of each other
    assert plan_shards(names, costs, 2) == shards  # deterministic


def test_plan_edge_cases() -> None:
    assert plan_shards(["a"], [1.0], 4) == [["a"]]  # empty shards dropped
    assert plan_shards(["a", "b", "c"], [1.0, 1.0, 1.0], 1) == [["a", "b", "c"]]
    # equal costs: ties broken by position
    assert plan_shards(["a", "b", "c", "d"], [1.0] * 4, 2) == [["a", "c"], ["b", "d"]]
    # workers start late: the parent's first shard takes the extra work
    assert plan_shards(["a", "b", "c"], [2.0, 1.0, 1.0], 2, worker_start=1.5) == [
        ["a", "c"],
        ["b"],
    ]
    assert plan_shards(["a", "b", "c"], [2.0, 1.0, 1.0], 2) == [["a"], ["b", "c"]]
    with pytest.raises(ValueError, match="one cost per task"):
        plan_shards(["a"], [], 2)


def test_resolve_jobs() -> None:
    assert resolve_jobs(3, n_tasks=2, input_bytes=0) == 2  # never more shards than tasks
    assert resolve_jobs(1, n_tasks=17, input_bytes=10**9) == 1
    assert resolve_jobs(None, n_tasks=17, input_bytes=AUTO_MIN_INPUT_BYTES - 1) == 1
    assert resolve_jobs(None, n_tasks=1, input_bytes=10**9) == 1
    assert 1 <= resolve_jobs(None, n_tasks=17, input_bytes=10**9) <= 4
    # too little work for a second process: 3 platform tasks cost 5.8 sentence_length units
    assert resolve_jobs(None, n_tasks=3, input_bytes=10**9, total_cost=5.8) == 1
    assert resolve_jobs(None, n_tasks=3, input_bytes=10**9, total_cost=40.0) <= 3
    with pytest.raises(UsageError, match="--jobs must be a positive integer, not 0"):
        resolve_jobs(0, n_tasks=3, input_bytes=0)


def test_input_error_survives_pickling() -> None:
    err = InputError("/x/a.conllu", 12, "wrong column count: 9", "bad-column-count")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is InputError
    assert (back.path, back.line, back.problem, back.reason) == (
        "/x/a.conllu",
        12,
        "wrong column count: 9",
        "bad-column-count",
    )
    assert str(back) == "/x/a.conllu:12: wrong column count: 9"


def _square_or_fail(x: int) -> int:
    if x == 3:
        raise InputError("/data/bad.conllu", 7, "head out of range", "bad-head")
    return x * x


def test_run_shards_in_order_and_errors_cross_processes() -> None:
    assert run_shards(_square_or_fail, [1, 2, 4]) == [1, 4, 16]
    with pytest.raises(InputError, match=r"^/data/bad.conllu:7: head out of range$") as info:
        run_shards(_square_or_fail, [1, 3])  # the failing shard runs in a worker process
    assert info.value.reason == "bad-head"
