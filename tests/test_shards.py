"""Sharding tasks across processes: the plan, the job count and the measured costs."""

from __future__ import annotations

import pickle

import pytest

from polyprobe.builders.families.ud import UD
from polyprobe.errors import InputError, UsageError
from polyprobe.runtime.costs import TASK_COSTS, affinity_of, cost_of, total_cost
from polyprobe.runtime.shards import AUTO_MIN_INPUT_BYTES, jobs_for, plan_shards, resolve_jobs

# The default suite's sentence tasks.
DEFAULT_TASKS = UD.tasks.groups["sentence"]


def test_plan_balances_cost_and_keeps_order() -> None:
    names = list(DEFAULT_TASKS)
    costs = [cost_of(n) for n in names]
    shards = plan_shards(names, costs, 2)
    assert len(shards) == 2
    assert sorted(n for s in shards for n in s) == sorted(names)  # every task exactly once
    for shard in shards:
        assert shard == [n for n in names if n in shard]  # registry order inside a shard
    loads = [sum(cost_of(n) for n in s) for s in shards]
    assert max(loads) - min(loads) <= max(costs)  # LPT bound: within one task of each other
    assert plan_shards(names, costs, 2) == shards  # deterministic


def test_plan_edge_cases() -> None:
    assert plan_shards(["a"], [1.0], 4) == [["a"]]  # empty shards dropped
    assert plan_shards(["a", "b", "c"], [1.0, 1.0, 1.0], 1) == [["a", "b", "c"]]
    # equal costs: ties broken by position
    assert plan_shards(["a", "b", "c", "d"], [1.0] * 4, 2) == [["a", "c"], ["b", "d"]]
    assert plan_shards(["a", "b", "c"], [2.0, 1.0, 1.0], 2) == [["a"], ["b", "c"]]
    with pytest.raises(ValueError, match="one cost"):
        plan_shards(["a"], [], 2)
    # tasks with one affinity stay together, as one unit of their summed cost
    tags = ["x", "", "x", ""]
    assert plan_shards(["a", "b", "c", "d"], [1.0] * 4, 2, affinity=tags) == [
        ["a", "c"],
        ["b", "d"],
    ]
    assert plan_shards(["a", "b", "c", "d"], [1.0, 3.0, 1.0, 1.0], 2, affinity=tags) == [
        ["b"],
        ["a", "c", "d"],
    ]
    with pytest.raises(ValueError, match="affinity"):
        plan_shards(["a"], [1.0], 2, affinity=[])


def test_default_plan_keeps_memo_sharing_tasks_together() -> None:
    names = list(DEFAULT_TASKS)
    shards = plan_shards(
        names,
        [cost_of(n) for n in names],
        2,
        affinity=[affinity_of(n) for n in names],
    )
    where = {n: i for i, shard in enumerate(shards) for n in shard}
    assert where["odd_man_out"] == where["subject_verb_agreement"]  # one SentenceDigest
    assert where["word_order"] == where["word_order_permuted"]


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


def test_costs_cover_the_default_suite_and_sum() -> None:
    """The table of measured costs (bench/task_costs.py) names only tasks that exist; a task
    it does not list (a new one: measuring it is optional) counts as the default cost."""
    known = UD.tasks.by_name
    assert set(TASK_COSTS) <= set(known)
    assert cost_of("no_such_task") == 1.0
    assert total_cost(["tense", "odd_man_out"]) == pytest.approx(1.0 + 10.8)
    assert affinity_of("tense") == ""


def test_jobs_for_sums_the_measured_costs() -> None:
    three = ["sentence_length", "sentence_length_senteval", "tense"]  # 2.6 units: one process
    assert jobs_for(None, three, 10**9) == 1
    assert jobs_for(2, three, 10**9) == 2  # asked for: granted, up to the number of tasks
    assert jobs_for(None, list(DEFAULT_TASKS), AUTO_MIN_INPUT_BYTES - 1) == 1
