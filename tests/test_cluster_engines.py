"""The README's Slurm and Ray recipes, run as written on a real single-node Slurm and a real
local Ray that the tests start (and stop), give the bytes of a local build.

Slurm: Debian's ``slurm-wlm`` and ``munge`` (README, "Set up"); the daemons run as this user
from a temporary folder with their own ports and ``SLURM_CONF``, so nothing of the machine's
is touched. Ray: the ``ray`` extra (``polyprobe[ray]``), a head started in another folder
than the build's, so a relative path that reached a worker as typed would fail. Each engine
is one test: a second xdist worker must not start a second cluster on the same host.
Missing programs skip a local run and fail under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_readme_examples import readme_commands

SLURM = "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2 --lang en --out en-wiki-slurm"
RAY = "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2 --lang en --out en-wiki-ray"
LOCAL = "polyprobe build wiki ../shared/data/wikipedia/enwiki-*.bz2 --lang en --out en-wiki-local"


def _program(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found is None:
        message = f"{name} not installed (README, Set up: apt-get install slurm-wlm munge)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _readme(prefix: str) -> str:
    (command,) = [c for c in readme_commands() if c.startswith(prefix)]
    return command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def work(data_dir: Path, tmp_path: Path) -> Path:
    """``work/`` beside a ``shared/data`` that is the data root (the README's paths)."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data_dir.resolve(), target_is_directory=True)
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def _shell(
    command: str, cwd: Path, env: dict[str, str], timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _bare_path(tmp: Path) -> str:
    """A ``PATH`` with ``polyprobe`` and the system's programs but not this interpreter's
    ``bin``: what a shell that never activated the venv has (the jobs must not need it)."""
    shim = tmp / "shim"
    shim.mkdir(exist_ok=True)
    target = Path(sys.executable).parent / "polyprobe"
    (shim / "polyprobe").symlink_to(target)
    return os.pathsep.join(
        [str(shim), "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    )


@pytest.fixture
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A single-node Slurm (munged, slurmctld, slurmd as this user) in a folder of its own;
    yields the environment its clients need, and stops every daemon at the end."""
    munged, slurmctld, slurmd = (_program(p) for p in ("munged", "slurmctld", "slurmd"))
    _program("sbatch")
    root = Path(tempfile.gettempdir()) / f"polyprobe-slurm-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(mode=0o755)
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    sock = root / "munge.sock"
    subprocess.run(
        [
            munged,
            "--force",
            f"--key-file={key}",
            f"--socket={sock}",
            f"--pid-file={root / 'munged.pid'}",
            f"--log-file={root / 'munged.log'}",
            f"--seed-file={root / 'munged.seed'}",
        ],
        check=True,
    )
    host = socket.gethostname()
    memory = max(1024, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2)
    (root / "ctld").mkdir()
    (root / "d").mkdir()
    conf = root / "slurm.conf"
    conf.write_text(
        "\n".join(
            [
                "ClusterName=polyprobe",
                f"SlurmctldHost={host}",
                f"SlurmUser={os.environ.get('USER') or 'root'}",
                "AuthType=auth/munge",
                f"AuthInfo=socket={sock}",
                f"SlurmctldPort={_free_port()}",
                f"SlurmdPort={_free_port()}",
                f"StateSaveLocation={root / 'ctld'}",
                f"SlurmdSpoolDir={root / 'd'}",
                f"SlurmctldPidFile={root / 'slurmctld.pid'}",
                f"SlurmdPidFile={root / 'slurmd.pid'}",
                f"SlurmctldLogFile={root / 'slurmctld.log'}",
                f"SlurmdLogFile={root / 'slurmd.log'}",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core_Memory",
                "ReturnToService=2",
                "MpiDefault=none",
                f"NodeName={host} CPUs={os.cpu_count()} RealMemory={memory} State=UNKNOWN",
                f"PartitionName=cpu Nodes={host} Default=YES MaxTime=INFINITE State=UP",
                "",
            ]
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "SLURM_CONF": str(conf)}
    try:
        subprocess.run([slurmctld], env=env, check=True)
        subprocess.run([slurmd], env=env, check=True)
        for _ in range(60):
            up = subprocess.run(
                ["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True
            )
            if up.stdout.strip() == "idle":
                break
            time.sleep(0.5)
        else:
            pytest.fail(f"Slurm did not come up: {up.stdout} {up.stderr}")
        yield env
    finally:
        _stop_slurm(root, env)


def _stop_slurm(root: Path, env: dict[str, str]) -> None:
    """Cancel every job, let the queue drain, shut the daemons down, then munged."""
    jobs = subprocess.run(["squeue", "-h", "-o", "%A"], env=env, capture_output=True, text=True)
    if jobs.stdout.split():
        subprocess.run(["scancel", *jobs.stdout.split()], env=env, capture_output=True)
    for _ in range(40):
        left = subprocess.run(["squeue", "-h"], env=env, capture_output=True, text=True)
        if not left.stdout.strip():
            break
        time.sleep(0.5)
    subprocess.run(["scontrol", "shutdown"], env=env, capture_output=True)
    for name in ("slurmd", "slurmctld", "munged"):
        pid_file = root / f"{name}.pid"
        with contextlib.suppress(OSError, ValueError):
            pid = int(pid_file.read_text().split()[0])
            for _ in range(20):
                os.kill(pid, 15)
                time.sleep(0.25)
                os.kill(pid, 0)
            os.kill(pid, 9)
    shutil.rmtree(root, ignore_errors=True)


def _queued(env: dict[str, str], job: str) -> list[str]:
    done = subprocess.run(
        ["squeue", "-h", "-j", job, "-o", "%i %T %r"], env=env, capture_output=True, text=True
    )
    return done.stdout.split("\n") if done.stdout.strip() else []


def _wait_for(env: dict[str, str], job: str, timeout: float = 600) -> None:
    """Until the array job has left the queue (its statistics job may stay, waiting)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        lines = [line for line in _queued(env, job) if "DependencyNeverSatisfied" not in line]
        if not lines:
            return
        time.sleep(1)
    pytest.fail(f"Slurm job {job} still queued after {timeout} s")


def test_readme_slurm_recipe_on_a_real_slurm(
    work: Path, slurm: dict[str, str], tmp_path: Path
) -> None:
    recipe = _readme(SLURM)
    assert "--shard-cache en-wiki-shards" in recipe and "partition=cpu" in recipe
    env = {**slurm, "PATH": _bare_path(tmp_path)}
    cache = work / "en-wiki-shards"

    # a held submission whose tasks fail: submitted, exit 0, the job id said and recorded
    failing = (
        recipe
        + " --executor-option 'env_command=exit 3' --executor-option 'sbatch_args={\"hold\": \"\"}'"
    )
    first = _shell(failing, work, env)
    assert first.returncode == 0, first.stderr[-3000:]
    job = re.search(r"polyprobe: submitted Slurm job array (\d+) \(\d+ shard tasks", first.stderr)
    assert job, first.stderr[-2000:]
    assert list(cache.glob("slurm-*.json"))
    queued = _queued(slurm, job.group(1))
    assert queued

    # a rerun while it is queued submits nothing
    again = _shell(recipe, work, env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "still in the queue" in again.stderr and "nothing was submitted" in again.stderr
    assert "submitted Slurm job array" not in again.stderr
    all_jobs = subprocess.run(
        ["squeue", "-h", "-o", "%i"], env=slurm, capture_output=True, text=True
    )
    assert {j.split("_")[0] for j in all_jobs.stdout.split()} <= {
        job.group(1),
        str(int(job.group(1)) + 1),
    }

    # released, its tasks fail; the rerun names them with their logs and resubmits them
    subprocess.run(["scontrol", "release", job.group(1)], env=slurm, check=True)
    _wait_for(slurm, job.group(1))
    third = _shell(recipe, work, env)
    assert third.returncode == 0, third.stderr[-3000:]
    failed = re.search(
        rf"polyprobe: (\d+) of \1 shard tasks of Slurm job {job.group(1)} failed, resubmitting them; logs: (\S+): (\S+\.out)",
        third.stderr,
    )
    assert failed, third.stderr[-3000:]
    log = Path(failed.group(3))  # the task's own log, which the job wrote (then exited 3)
    assert log.name == f"{job.group(1)}_0.out"
    assert log.read_text(encoding="utf-8").startswith("Starting data processing job")
    resubmitted = re.search(r"submitted Slurm job array (\d+)", third.stderr)
    assert resubmitted
    _wait_for(slurm, resubmitted.group(1))

    # the jobs wrote every shard (without the venv on their PATH): each rerun submits the
    # build's next round on the cluster (the observe pass, then the candidate pass, one task
    # per shard's range, then the write pass) and the last one assembles
    rounds = []
    for _ in range(4):
        last = _shell(recipe, work, env)
        assert last.returncode == 0, last.stderr[-3000:]
        submitted = re.search(
            r"submitted Slurm job array (\d+) \((\d+) (\w+) pass tasks", last.stderr
        )
        if submitted is None:
            break
        rounds.append((submitted.group(3), int(submitted.group(2))))
        _wait_for(slurm, submitted.group(1))
    # then the write pass: one task per dataset task
    assert [r for r, _ in rounds] == ["observe", "candidates", "write"], last.stderr[-3000:]
    assert [n for _, n in rounds[:2]] == [4, 4] and rounds[2][1] > 4
    assert "wrote " in last.stderr or "wrote " in last.stdout
    assert not list(cache.glob("passes-*")), "the passes' folder is removed once written"
    local = _shell(
        _readme(SLURM).split(" --executor")[0].replace("en-wiki-slurm", "en-wiki-local"), work, env
    )
    assert local.returncode == 0, local.stderr[-2000:]
    assert _files(work / "en-wiki-slurm") == _files(work / "en-wiki-local")


@pytest.fixture
def ray_head(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A local Ray head started in a folder of its own (not the build's)."""
    ray = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    if not Path(ray).exists():
        message = "ray not installed (pip install 'polyprobe[ray]')"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    where = tmp_path / "ray-started-here"
    where.mkdir()
    port = _free_port()
    env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{port}", "RAY_USAGE_STATS_ENABLED": "0"}
    started = subprocess.run(
        [
            ray,
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert started.returncode == 0, started.stderr[-2000:]
    try:
        yield env
    finally:
        subprocess.run([ray, "stop", "--force"], env=env, capture_output=True, timeout=120)


def test_readme_ray_recipe_on_a_real_ray(work: Path, ray_head: dict[str, str]) -> None:
    recipe = _readme(RAY)
    assert "--shard-cache en-wiki-ray-shards" in recipe
    built = _shell(recipe, work, ray_head)
    assert built.returncode == 0, built.stderr[-3000:]
    local = _shell(
        recipe.split(" --executor")[0].replace("en-wiki-ray", "en-wiki-local"), work, ray_head
    )
    assert local.returncode == 0, local.stderr[-2000:]
    assert _files(work / "en-wiki-ray") == _files(work / "en-wiki-local")
    assert len(list((work / "en-wiki-ray-shards").glob("*.arrow"))) == 4

    # a task no node can hold is refused at once, not waited on for ever
    start = time.monotonic()
    greedy_recipe = recipe.replace("en-wiki-ray ", "en-wiki-greedy ").replace(
        "en-wiki-ray-shards", "greedy-shards"
    )
    greedy = _shell(
        greedy_recipe + " --executor-option cpus_per_task=3", work, ray_head, timeout=300
    )
    assert greedy.returncode == 2
    assert greedy.stderr.strip().splitlines()[-1] == (
        "polyprobe: error: --executor-option cpus_per_task=3: no node of the Ray cluster has "
        "that many CPUs (the largest has 2)"
    )
    assert time.monotonic() - start < 240
    assert not (work / "en-wiki-greedy").exists()
