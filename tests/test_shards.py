"""Sharding tasks across processes: the plan, the job count, and errors crossing processes."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polyprobe.builders.registry import DEFAULT_TASKS, TASKS
from polyprobe.builders.shards import (
    AUTO_MIN_INPUT_BYTES,
    jobs_for,
    plan_shards,
    resolve_jobs,
    run_shards,
    standby_count,
    standby_workers,
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
        [TASKS[n].relative_cost for n in names],
        2,
        affinity=[TASKS[n].shard_affinity for n in names],
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


def _square_or_fail(x: int) -> int:
    if x == 3:
        raise InputError("/data/bad.conllu", 7, "head out of range", "bad-head")
    return x * x


def test_run_shards_in_order_and_errors_cross_processes() -> None:
    assert run_shards(_square_or_fail, [1, 2, 4]) == [1, 4, 16]
    with pytest.raises(InputError, match=r"^/data/bad.conllu:7: head out of range$") as info:
        run_shards(_square_or_fail, [1, 3])  # the failing shard runs in a worker process
    assert info.value.reason == "bad-head"


def _pid_and_modules(x: int) -> tuple[int, int, bool]:
    return x, os.getpid(), "polyprobe.builders.variants" in sys.modules


def test_standby_workers_take_the_shards_and_the_rest_are_stopped() -> None:
    from polyprobe.builders import shards

    with standby_workers(2, warm=["polyprobe.builders.variants", "no.such.module"]):
        assert standby_count() == 2
        waiting = [p.pid for p in shards._STANDBY]
        results = run_shards(_pid_and_modules, [0, 1])
        assert standby_count() == 1  # one was handed a shard, one still waits
        left = shards._STANDBY[0]
    assert results[0] == (0, os.getpid(), "polyprobe.builders.variants" in sys.modules)
    x, pid, warmed = results[1]
    assert (x, pid, warmed) == (1, waiting[0], True)  # the oldest standby, warmed up
    assert left.poll() is not None  # stopped on leaving the block
    assert standby_count() == 0
    # Without standby workers shards go to fresh ones.
    assert [r[0] for r in run_shards(_pid_and_modules, [5, 6, 7])] == [5, 6, 7]


def test_standby_worker_errors_cross_processes() -> None:
    with standby_workers(1), pytest.raises(InputError, match="head out of range"):
        run_shards(_square_or_fail, [1, 3])


def test_jobs_for_sums_the_registry_costs() -> None:
    names = list(DEFAULT_TASKS)
    total = sum(TASKS[n].relative_cost for n in names)
    assert jobs_for(None, names, 10**9) == resolve_jobs(None, len(names), 10**9, total)
    assert jobs_for(None, ["sentence_length", "bigram_shift", "subject_number"], 10**9) == 1
    assert jobs_for(5, ["sentence_length", "bigram_shift"], 0) == 2


def test_command_line_sizes_standby_by_the_build_rule(ud_dir: Path) -> None:
    import argparse

    from polyprobe.cli import _standby_count, _standby_guess

    def count(paths: list[str], tasks: str = "", jobs: int | None = None) -> int:
        args = argparse.Namespace(paths=paths, tasks=tasks, jobs=jobs)
        exact = _standby_count(args)
        assert _standby_guess(args) >= exact  # the early guess never starts too few
        return exact

    pud = str(ud_dir / "UD_English-PUD")  # 1 MB: below AUTO_MIN_INPUT_BYTES
    assert count([pud]) == 0
    assert count([pud], jobs=3) == 2
    assert count([pud], tasks="sentence_length", jobs=3) == 0  # one task, one process
    assert count([pud], tasks="no_such_task", jobs=3) == 0  # build_ud reports it
    assert count(["/no/such/folder"], jobs=3) == 0
    ewt = str(ud_dir / "UD_English-EWT")  # 6 MB
    assert count([ewt], tasks="sentence_length,bigram_shift,subject_number") == 0  # 5.8 units
    assert count([ewt], jobs=1) == 0
    assert count([ewt], tasks="contextual", jobs=3) == 2  # a group: 17 tasks


def test_standby_keep_stops_the_surplus() -> None:
    from polyprobe.builders import shards

    with standby_workers(3) as standby:
        procs = list(standby.started)
        standby.keep(1)
        assert standby_count() == 1
        assert [p.poll() is None for p in procs] == [True, False, False]
        assert run_shards(_pid_and_modules, [0, 1])[1][1] == procs[0].pid
    assert shards._STANDBY == []


_EXIT_SCRIPT = textwrap.dedent(
    """
    import atexit, sys, threading, time
    from polyprobe.process_exit import exit_process
    atexit.register(lambda: print("atexit ran", flush=True))
    if sys.argv[1] == "thread":
        threading.Thread(target=lambda: (time.sleep(0.3), print("thread done"))).start()
    sys.stdout.write("no newline, buffered")
    exit_process(3)
    """
)


@pytest.mark.parametrize("mode", ["plain", "thread"])
def test_exit_process_runs_exit_handlers_and_flushes(mode: str, tmp_path: Path) -> None:
    """The fast exit skips only the teardown: atexit handlers run, buffered output is
    written, the code is kept; with a non-daemon thread alive it waits for it as usual."""
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_SCRIPT, mode],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONUNBUFFERED=""),
    )
    assert done.returncode == 3, done.stderr
    assert "no newline, buffered" in done.stdout
    assert "atexit ran" in done.stdout
    assert ("thread done" in done.stdout) == (mode == "thread")


def _arrow_then_pandas(_: int) -> tuple[bool, str]:
    import pyarrow as pa

    pa.array(["x"])  # pyarrow's first conversion: where it would import pandas
    try:
        import pandas  # noqa: F401
    except ModuleNotFoundError as exc:
        return "pandas" in sys.modules, str(exc)
    return "pandas" in sys.modules, ""


def test_workers_build_without_pandas() -> None:
    """A worker hides pandas (pyarrow's import of it cost 0.15 s per process)."""
    _, (imported, message) = run_shards(_arrow_then_pandas, [0, 1])
    assert imported is False
    assert "pandas is hidden in polyprobe build processes" in message


def test_hide_pandas_keeps_an_imported_pandas() -> None:
    code = (
        "import sys\n"
        "from polyprobe.builders.pandas_hidden import hide_pandas\n"
        "import pandas\n"
        "assert hide_pandas() is False\n"
        "import pandas.core.frame\n"  # still importable: nothing was hidden
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_standby_worker_that_died_is_replaced() -> None:
    from polyprobe.builders import shards

    with standby_workers(1) as standby:
        dead = standby.started[0]
        dead.kill()
        dead.wait()
        assert standby_count() == 0
        assert [r[0] for r in run_shards(_pid_and_modules, [0, 1])] == [0, 1]  # a fresh one
        assert shards._STANDBY == []
