"""Write jobs: a task's configs are written once, by its own shard or by another one that ran
out of work, and a shard with nothing left stops instead of waiting for a shard that is gone.
That the folder does not depend on who wrote what is checked byte for byte in
test_build_jobs.py (three shards share one board there)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from polyprobe.builders import shards, write_jobs
from polyprobe.builders.registry import get_task
from polyprobe.builders.write_jobs import Board, TaskView, WriteJob


def _job(name: str, position: int, rows: int = 10) -> WriteJob:
    view = TaskView.of(get_task("sentence_length")())
    view = TaskView(**{**view.__dict__, "name": name})
    return WriteJob(view, Path(f"/nonexistent/{name}.arrow"), rows, position)


def _drain(board: Board) -> list[str]:
    out = []
    while (job := board.next_job()) is not None:
        out.append(job.task.name)
    return out


def test_owner_takes_its_jobs_in_order_and_others_take_them_from_the_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_jobs, "peers_running", lambda: False)
    tasks = ["a", "b", "c", "d", "x"]
    owner = Board(tmp_path, tasks)
    thief = Board(tmp_path, tasks)
    thief.publish([_job("x", 0)])
    owner.publish([_job(n, i) for i, n in enumerate("abcd")])
    assert thief.next_job().task.name == "x"  # its own first
    assert owner.next_job().task.name == "a"
    assert thief.next_job().task.name == "d"  # then the other shard's, from the back
    assert thief.next_job().task.name == "c"
    assert owner.next_job().task.name == "b"
    assert owner.next_job() is None and thief.next_job() is None  # every task claimed
    assert sorted(p.name for p in tmp_path.glob("*.claim")) == [f"{n}.claim" for n in tasks]


def test_each_job_is_written_once_when_shards_race(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_jobs, "peers_running", lambda: False)
    names = [f"t{i}" for i in range(200)]
    boards = [Board(tmp_path, names) for _ in range(4)]
    for k, board in enumerate(boards):
        board.publish([_job(n, i) for i, n in enumerate(names[k::4])])
    taken: list[list[str]] = [[] for _ in boards]
    threads = [
        threading.Thread(target=lambda k=k: taken[k].extend(_drain(boards[k])))
        for k in range(len(boards))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [n for part in taken for n in part]
    assert sorted(everything) == sorted(names)  # all written, none twice


def test_waits_for_an_unpublished_shard_only_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = [True]
    polls = [0]

    def peers() -> bool:
        polls[0] += 1
        if polls[0] == 3:  # the other shard publishes while this one waits
            Board(tmp_path, ["mine", "late"]).publish([_job("late", 0)])
        return running[0]

    monkeypatch.setattr(write_jobs, "peers_running", peers)
    monkeypatch.setattr(write_jobs, "POLL_SECONDS", 0.001)
    board = Board(tmp_path, ["mine", "late", "never"])
    board.publish([_job("mine", 0)])
    assert board.next_job().task.name == "mine"
    assert board.next_job().task.name == "late"  # waited for it
    running[0] = False  # the shard that owns "never" is gone: stop, do not hang
    assert board.next_job() is None
    # ... and say so on the board: a worker, which only watches its parent, stops too.
    assert (tmp_path / write_jobs.ABORT).exists()
    running[0] = True
    assert Board(tmp_path, ["mine", "late", "never"]).next_job() is None


def test_peers_running_in_the_parent_and_in_a_worker() -> None:
    assert shards.peers_running() is False  # outside a build
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    proc, other = subprocess.Popen(sleeper), subprocess.Popen(sleeper)
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    try:
        shards._PEERS[:] = [proc, other, done]
        assert shards.peers_running() is True  # a worker that ended well is no failure
        proc.kill()
        proc.wait()
        assert shards.peers_running() is False  # one failed: its shard will never finish
        shards._PEERS[:] = [done]
        assert shards.peers_running() is False  # nobody left at work
    finally:
        shards._PEERS.clear()
        other.kill()
        other.wait()
    # A worker watches the parent that started it.
    code = (
        "import os; from polyprobe.builders import shards; "
        "shards._PARENT[:] = [os.getppid()]; print(shards.peers_running()); "
        "shards._PARENT[:] = [os.getppid() + 1]; print(shards.peers_running())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_task_view_carries_what_writing_reads() -> None:
    task = get_task("odd_man_out")()
    view = TaskView.of(task)
    assert view.name == "odd_man_out" and view.paired_copies and view.lexical_control
    assert view.label_names == task.label_names
    assert view.parameters() == task.parameters()
    assert view.parameters() is not view.parameters()  # a fresh copy, as Task.parameters
    assert "inventory" not in view.__dict__  # none of the corpus-sized state
