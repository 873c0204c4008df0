"""Interruptions (issue 15, points 8 and 9): SIGTERM ends a build as cleanly as Ctrl-C (exit
143, one line, no staging or scratch folder, no worker left); after a SIGKILL, which nothing can
handle, the workers still end and the next build sweeps what the killed one left; an
interrupted ``evaluate`` says which result files it finished, and those stay whole.

The builds run as real commands in their own session (``start_new_session``), signalled as
``kill``/``docker stop`` (the command's process) or ``timeout``/``scancel`` (its whole group)
would, once both of their processes are spooling candidates."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from polyprobe.cards.folder import ASIDE, STAGING, orphans, owned_name, sweep_leftovers
from polyprobe.evaluation.results import check_schema, write_result

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="reads processes from /proc; signals are POSIX"
)

TASKS = "sentence_length,tense,bigram_shift,subject_number"  # two shards' worth, ~5 s


def _command(ud_dir: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "polyprobe",
        "build",
        "ud",
        str(ud_dir / "UD_English-EWT"),
        "--lang",
        "en",
        "--out",
        str(out),
        "--tasks",
        TASKS,
        "--jobs",
        "2",
        "--quiet",
    ]


def _env(scratch: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(scratch)}  # the build's spool folders go here


@pytest.fixture
def groups() -> Iterator[list[int]]:
    """Process groups a test started: whatever of them still runs at the end is killed (a
    failing test must not leave a worker behind either)."""
    started: list[int] = []
    yield started
    for pgid in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


def _start(ud_dir: Path, out: Path, scratch: Path, groups: list[int]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        _command(ud_dir, out),
        env=_env(scratch),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a group signal spares pytest
    )
    groups.append(proc.pid)
    return proc


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan waits for init to reap it: it runs no code)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return re.search(r"^State:\s+Z", status, re.M) is None


def _all_end(pids: list[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while any(_running(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _spooling(
    proc: subprocess.Popen[str], out: Path, scratch: Path, writing: bool = False
) -> list[int]:
    """Wait until the build has written its staging folder and both its processes spool
    candidates (each made its ``shard-*`` folder), or, with ``writing``, until the first
    parquet file is in the staging folder (the write jobs run); returns the pool's workers."""
    deadline = time.monotonic() + 240
    while True:
        assert proc.poll() is None, f"the build ended first: {proc.communicate()}"
        assert time.monotonic() < deadline, "the build never got there"
        staged = [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.{STAGING}")]
        if writing:
            ready = any(p for s in staged for p in s.glob("data/*/*.parquet"))
        else:
            ready = bool(staged) and len(list(scratch.glob("polyprobe-spool-*/shard-*"))) == 2
        if ready:
            workers = _children(proc.pid)
            assert len(workers) == 1, workers
            return workers
        time.sleep(0.01)


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


TERMINATED = "polyprobe: terminated (SIGTERM); nothing was written"


@pytest.mark.parametrize(
    ("target", "signum", "writing", "twice", "code", "message"),
    [
        ("command", signal.SIGTERM, False, False, 143, TERMINATED),
        ("command", signal.SIGTERM, True, False, 143, TERMINATED),
        ("group", signal.SIGTERM, False, False, 143, TERMINATED),
        ("command", signal.SIGTERM, False, True, 143, TERMINATED),
        ("group", signal.SIGINT, False, False, 130, "polyprobe: interrupted; nothing was written"),
    ],
    ids=["kill", "kill-while-writing", "timeout", "sigterm-twice", "ctrl-c"],
)
def test_a_signalled_build_stops_and_leaves_nothing(
    ud_dir: Path,
    tmp_path: Path,
    groups: list[int],
    target: str,
    signum: int,
    writing: bool,
    twice: bool,
    code: int,
    message: str,
) -> None:
    """``kill``/``docker stop`` signal the command, ``timeout``/``scancel``/Ctrl-C its whole
    group; an impatient user or supervisor may send SIGTERM again during the cleanup."""
    runs, scratch = tmp_path / "runs", tmp_path / "scratch"
    runs.mkdir()
    scratch.mkdir()
    out = runs / "out"
    proc = _start(ud_dir, out, scratch, groups)
    workers = _spooling(proc, out, scratch, writing=writing)
    for _ in range(2 if twice else 1):
        if target == "command":
            os.kill(proc.pid, signum)
        else:
            os.killpg(proc.pid, signum)
        time.sleep(0.005)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert stderr == message + "\n"  # one line: no traceback, from no process
    assert not out.exists()
    assert _hidden(runs) == []
    assert list(scratch.iterdir()) == []
    assert _all_end(workers, within=5)


def test_sigterm_of_a_worker_alone_is_one_clear_error(
    ud_dir: Path, tmp_path: Path, groups: list[int]
) -> None:
    """A worker killed on its own (``kill`` of its pid, the OOM killer) breaks the pool: the
    build stops with one line, exit 2, and leaves nothing (it was a raw ``BrokenProcessPool``
    traceback when the command next submitted work)."""
    runs, scratch = tmp_path / "runs", tmp_path / "scratch"
    runs.mkdir()
    scratch.mkdir()
    out = runs / "out"
    proc = _start(ud_dir, out, scratch, groups)
    (worker,) = _spooling(proc, out, scratch)
    os.kill(worker, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert stderr.startswith("polyprobe: error: a build worker process ended abruptly")
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert not out.exists()
    assert _hidden(runs) == []
    assert list(scratch.iterdir()) == []


def test_after_sigkill_workers_end_and_the_next_build_sweeps(
    ud_dir: Path, tmp_path: Path, groups: list[int]
) -> None:
    clean = tmp_path / "clean" / "out"
    done = subprocess.run(
        _command(ud_dir, clean), env=_env(tmp_path), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr

    runs, scratch = tmp_path / "runs", tmp_path / "scratch"
    runs.mkdir()
    scratch.mkdir()
    out = runs / "out"
    proc = _start(ud_dir, out, scratch, groups)
    workers = _spooling(proc, out, scratch)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert _all_end(workers, within=5)  # a worker orphaned mid-shard ends on its own
    # What the killed build left carries its pid: the next build knows its maker is gone.
    killed = proc.pid
    assert [n.split("-")[2] for n in _hidden(runs)] == [str(killed)]
    assert [p.name.split("-")[2] for p in scratch.iterdir()] == [str(killed)]
    # Folders of a live process (this one) are not the next build's to sweep.
    live_staging = runs / owned_name(f".out.{STAGING}")
    live_spool = scratch / owned_name("polyprobe-spool-")
    live_staging.mkdir()
    live_spool.mkdir()

    again = subprocess.run(
        _command(ud_dir, out), env=_env(scratch), capture_output=True, text=True, timeout=600
    )
    assert again.returncode == 0, again.stderr
    assert _hidden(runs) == [live_staging.name]
    assert list(scratch.iterdir()) == [live_spool]
    assert _tree(out) == _tree(clean)  # byte for byte what a build never interrupted writes


_IDLE_WORKER = """
import os, sys, time
from pathlib import Path
from polyprobe.runtime.parallel import run_sharded

def first(n):
    if n == 0:
        time.sleep(120)  # this process's own shard, while the worker idles
    else:
        Path(sys.argv[1], str(os.getpid())).write_text("")
    return n, []

def finish(job):
    return job

if __name__ == "__main__":
    run_sharded(first, [0, 1], finish)
"""


def test_an_idle_pool_worker_ends_with_its_parent(tmp_path: Path, groups: list[int]) -> None:
    """A worker waiting on the pool's call queue held that pipe's write end itself, so it
    waited forever once its parent was SIGKILLed."""
    script = tmp_path / "idle.py"
    script.write_text(_IDLE_WORKER)
    marks = tmp_path / "marks"
    marks.mkdir()
    proc = subprocess.Popen([sys.executable, str(script), str(marks)], start_new_session=True)
    groups.append(proc.pid)
    deadline = time.monotonic() + 60
    while not list(marks.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    (worker,) = [int(p.name) for p in marks.iterdir()]
    time.sleep(0.3)  # back on the call queue
    assert _running(worker)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert _all_end([worker], within=3)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _named_for(pid: int, prefix: str, host: str | None = None) -> str:
    """:func:`owned_name` as process ``pid`` (on ``host``, if given) would make it."""
    ours = owned_name(prefix)
    made_pid, made_host, rand = ours[len(prefix) :].split("-")
    return f"{prefix}{pid}-{host or made_host}-{rand}"


def test_sweep_removes_only_dead_processes_leftovers_beside_this_out(tmp_path: Path) -> None:
    dead = _dead_pid()
    staging = f".out.{STAGING}"
    killed = _named_for(dead, staging)  # the only one swept
    kept = [
        _named_for(os.getpid(), staging),  # a live build's
        _named_for(dead, staging, host="0badf00d"),  # another machine's (shared disk)
        _named_for(dead, f".other.{STAGING}"),  # beside another --out
        ".out.polyprobe-tmp-1a2b3c4d",  # an older polyprobe's: whose, nobody knows
    ]
    for name in [killed, *kept]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "file").write_text("x")
    assert orphans(tmp_path, staging) == [tmp_path / killed]
    sweep_leftovers(tmp_path / "out")
    assert _hidden(tmp_path) == sorted(kept)
    assert not (tmp_path / "out").exists()


def test_sweep_puts_back_the_folder_an_overwrite_had_set_aside(tmp_path: Path) -> None:
    """Killed between the two renames of an overwrite: ``out`` is missing and the previous
    folder is aside; it is the only copy, so it goes back (if ``out`` exists, the swap was
    done and the aside folder is removed)."""
    dead = _dead_pid()
    aside = tmp_path / _named_for(dead, f".out.{ASIDE}")
    aside.mkdir()
    (aside / "README.md").write_text("previous")
    sweep_leftovers(tmp_path / "out")
    assert (tmp_path / "out" / "README.md").read_text() == "previous"
    assert _hidden(tmp_path) == []
    aside.mkdir()
    sweep_leftovers(tmp_path / "out")
    assert _hidden(tmp_path) == []
    assert (tmp_path / "out" / "README.md").read_text() == "previous"


# -- evaluate (point 9) --------------------------------------------------------------------


def test_an_interrupted_result_write_keeps_the_previous_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cfg" / "lr.json"
    write_result(path, {"run": 1})

    def interrupted(self: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_result(path, {"run": 2})
    assert json.loads(path.read_text()) == {"run": 1}
    assert sorted(p.name for p in path.parent.iterdir()) == ["lr.json"]


@pytest.fixture
def toy(tmp_path: Path, hf_offline: None) -> Path:
    from polyprobe.evaluation.synthetic import toy_sentences, write_folder

    return write_folder(
        tmp_path / "toy",
        {
            "cue": {
                "train": toy_sentences(120, prefix="tr"),
                "test": toy_sentences(40, prefix="te"),
            }
        },
        {"cue": ["no", "yes"]},
        {"cue": "sentence"},
    )


class _Fallback(Exception):
    """Raised by the test's own SIGTERM handler: the command did not handle the signal."""


@pytest.mark.parametrize(
    ("how", "code", "what"),
    [("ctrl-c", 130, "interrupted"), ("sigterm", 143, "terminated (SIGTERM)")],
)
def test_an_interrupted_evaluate_says_what_it_wrote(
    toy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
    code: int,
    what: str,
) -> None:
    """Interrupted while writing its third result: the two finished ones stay, whole, and
    the command says so (it said "nothing was written", the build's message)."""
    from polyprobe.cli import main
    from polyprobe.evaluation import api

    real = api.write_result
    calls: list[Path] = []

    def third_interrupted(path: Path, result: dict) -> None:
        calls.append(path)
        if len(calls) == 3:
            if how == "ctrl-c":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM)  # handled before the next line runs
        real(path, result)

    def fallback(signum: int, frame: object) -> None:
        raise _Fallback

    monkeypatch.setattr(api, "write_result", third_interrupted)
    previous = signal.signal(signal.SIGTERM, fallback)
    try:
        out = tmp_path / "results"
        argv = ["evaluate", str(toy), "--config", "cue", "--out", str(out), "--seeds", "1"]
        for encoder in ("majority", "random?dim=16", "char-ngrams?dim=64", "borep?dim=32"):
            argv += ["--encoder", encoder]
        argv += ["--cache", str(tmp_path / "cache"), "--no-progress"]
        assert main(argv) == code
        assert signal.getsignal(signal.SIGTERM) is fallback  # the command put it back
    finally:
        signal.signal(signal.SIGTERM, previous)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.splitlines()[-1] == (  # after any bar of `datasets`
        f"polyprobe evaluate: {what}; 2 finished result file(s) under {out} are complete; "
        "the evaluation in progress was not written"
    )
    written = sorted(p for p in out.rglob("*") if p.is_file())
    assert written == sorted(calls[:2])
    for path in written:
        assert check_schema(json.loads(path.read_text(encoding="utf-8"))) == []
    assert "majority" in captured.out and "random" in captured.out  # the finished ones' table


@pytest.mark.parametrize(
    ("argv", "patch", "message"),
    [
        (
            ["info", "x"],
            "polyprobe.cards.info.describe",
            "polyprobe: interrupted; nothing was written",
        ),
        (
            ["catalog", "x", "--out", "y"],
            "polyprobe.cards.catalog.write_catalog",
            "polyprobe: interrupted",
        ),
    ],
)
def test_interrupt_message_claims_nothing_written_only_where_true(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    patch: str,
    message: str,
) -> None:
    """Build, demo, info, validate and profile write all or nothing; catalog, export, diff
    --out, publish and report may have written part of their output when interrupted."""
    from polyprobe.cli import main

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(patch, interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err == message + "\n"
