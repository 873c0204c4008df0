"""A ``build wiki`` SIGKILLed in its shard stage leaves only folders named for its pid, which
the next build sweeps; a SIGTERM ends it with the usual one line and nothing left."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


def _command(dump: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "polyprobe",
        "build",
        "wiki",
        str(dump),
        "--lang",
        "en",
        "--out",
        str(out),
        "--tasks",
        "sentence_length",
        "--shards",
        "2",
        "--jobs",
        "2",
        "--quiet",
    ]


def _wait_for(scratch: Path, prefix: str, proc: subprocess.Popen[str]) -> None:
    """Until ``proc``'s own shard folder exists (named ``<prefix><pid>-...``)."""
    deadline = time.monotonic() + 120
    mine = f"{prefix}{proc.pid}-"
    while time.monotonic() < deadline:
        if any(p.name.startswith(mine) for p in scratch.iterdir()):
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the build never reached its shard stage")


def test_sigkill_then_sweep_and_sigterm_clean(data_dir: Path, tmp_path: Path) -> None:
    dump = data_dir / "wikipedia" / EN
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    runs = tmp_path / "runs"
    runs.mkdir()
    out = runs / "out"
    env = {**os.environ, "TMPDIR": str(scratch)}
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        _command(dump, out), env=env, text=True, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        _wait_for(scratch, "polyprobe-textshards-", proc)
        time.sleep(1.0)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    left = [p.name for p in scratch.iterdir()] + [p.name for p in runs.iterdir()]
    assert left and all(str(proc.pid) in name for name in left), left

    term = subprocess.Popen(
        _command(dump, out), env=env, text=True, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        _wait_for(scratch, "polyprobe-textshards-", term)
        # the killed build's leftovers are gone as soon as the next build starts
        assert not any(str(proc.pid) in p.name for p in scratch.iterdir())
        time.sleep(1.0)
        os.kill(term.pid, signal.SIGTERM)
        _, err = term.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(term.pid, signal.SIGKILL)
    assert term.returncode == 143, err
    assert len(err.strip().splitlines()) == 1, err
    assert list(scratch.iterdir()) == []
    assert list(runs.iterdir()) == []
