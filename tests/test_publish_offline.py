"""``polyprobe publish`` without the Hub (issue 15, point 11).

Offline (``HF_HUB_OFFLINE=1``) or with no Hub answering, ``--dry-run`` still prints the plan
from the folder and says plainly that the tag check was not done; a real publish stops with one
line, exit 2, before writing anything. A Hub that answers with an error part-way is one line
saying what had been written. The commands run as a user runs them (a fresh process, the
environment variables read at start-up); the unreachable Hub is a closed loopback port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_publish import FAKE_TOKEN, REPO, _build, hub  # noqa: F401 - hub: the stand-in fixture


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("offline") / "v1", "1.0.0", 0)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _publish(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    # CI runs offline (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE): each test sets its own Hub state
    hub_vars = ("HF_", "HUGGINGFACE", "TRANSFORMERS_")
    base = {k: v for k, v in os.environ.items() if not k.startswith(hub_vars)}
    base.update({"HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": FAKE_TOKEN, **env})
    return subprocess.run(
        [sys.executable, "-m", "polyprobe", "publish", *args],
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _no_traceback(run: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in run.stderr + run.stdout
    assert FAKE_TOKEN not in run.stderr + run.stdout


OFFLINE = {"HF_HUB_OFFLINE": "1"}


@pytest.mark.parametrize("where", ["offline", "unreachable"])
def test_dry_run_prints_the_plan_and_says_the_tag_was_not_checked(
    folder: Path, tmp_path: Path, where: str
) -> None:
    env = OFFLINE if where == "offline" else {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"}
    run = _publish(tmp_path, env, str(folder), "--repo-id", REPO, "--dry-run")
    _no_traceback(run)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.count("create_commit") == 1 and "operation 2 of 2: create_tag 'v1.0.0'" in out
    for path in folder.rglob("*"):
        if path.is_file():
            assert f"add     {path.relative_to(folder).as_posix()} " in out
    assert "NOT CHECKED: whether tag 'v1.0.0' is free" in out
    assert "remote files to delete unknown" in out
    reason = "HF_HUB_OFFLINE is set" if where == "offline" else "no answer"
    assert reason in out
    warning = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(warning) == 1 and "was NOT checked" in warning[0] and reason in warning[0]


@pytest.mark.parametrize("where", ["offline", "unreachable"])
def test_a_real_publish_without_the_hub_is_one_line(
    folder: Path, tmp_path: Path, where: str
) -> None:
    env = OFFLINE if where == "offline" else {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"}
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    run = _publish(tmp_path, env, str(folder), "--repo-id", REPO)
    _no_traceback(run)
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("polyprobe: error: reading the repo's tags: cannot reach the Hub")
    assert lines[0].endswith("nothing was written")
    assert ("HF_HUB_OFFLINE is set" if where == "offline" else "ConnectError") in lines[0]
    assert run.stdout == ""
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before


def test_an_invalid_folder_is_refused_offline_before_the_hub(folder: Path, tmp_path: Path) -> None:
    """Validation needs no Hub: offline, a broken folder is still refused as such (exit 1)."""
    import shutil

    broken = shutil.copytree(folder, tmp_path / "broken")
    (broken / "report.json").unlink()
    run = _publish(tmp_path, OFFLINE, str(broken), "--repo-id", REPO, "--dry-run")
    _no_traceback(run)
    assert run.returncode == 1 and "not a valid dataset folder" in run.stderr


def test_a_hub_error_part_way_says_what_was_written(
    hub,  # noqa: F811 - the fixture imported above
    folder: Path,
) -> None:
    """Someone pushes between the plan and the commit: the Hub refuses the commit (412); the
    error is one line saying that nothing was committed, and no tag exists."""
    from huggingface_hub import HfApi

    from polyprobe.hub import PublishError, publish

    class Racing(HfApi):
        def create_commit(self, repo_id, *args, **kwargs):  # type: ignore[override]
            repo = hub.repos[repo_id]
            head = repo.branches["main"]
            hub._new_commit(repo, head, {**repo.commits[head], "other.txt": b"x"})
            return super().create_commit(repo_id, *args, **kwargs)

    with pytest.raises(PublishError) as info:
        publish(folder, REPO, api=Racing())
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "committing the folder: the Hub answered 412 A commit has happened since."
    )
    assert message.endswith(f"; nothing was committed (the empty repo datasets/{REPO} was created)")
    assert hub.repos[REPO].tags == {}
