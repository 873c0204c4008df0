"""What a cluster build checks before it submits anything: executor options typed from
datatrove's own signatures, the environment its jobs get, the shard cache a remote executor
needs, and half-written files named by host so that no host sweeps another's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs

from polyprobe.builders.execution.prepare import sweep_partial
from polyprobe.cards.folder import orphan_partial, partial_path
from polyprobe.errors import UsageError
from polyprobe.runtime.cluster import SlurmRecord, slurm_environment, typed_options

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


@pytest.fixture(autouse=True)
def _datatrove() -> None:
    needs("datatrove")


def test_values_are_typed_from_the_executor_signature() -> None:
    typed = typed_options(
        "datatrove-slurm",
        {
            "partition": "cpu",
            "cpus_per_task": "2",
            "skip_completed": "false",
            "sbatch_args": '{"account": "lab"}',
        },
    )
    assert typed == {
        "partition": "cpu",
        "cpus_per_task": 2,
        "skip_completed": False,
        "sbatch_args": {"account": "lab"},
    }
    # Ray's memory is a float; Slurm's is a whole number of GB (sbatch's --mem-per-cpu=NG)
    assert typed_options("datatrove-ray", {"mem_per_cpu_gb": "0.5"}) == {"mem_per_cpu_gb": 0.5}


@pytest.mark.parametrize(
    ("executor", "given", "message"),
    [
        (
            "datatrove-slurm",
            {"mem_per_cpu_gb": "0.5"},
            "--executor-option mem_per_cpu_gb=0.5: expected a whole number",
        ),
        (
            "datatrove-slurm",
            {"skip_completed": "nope"},
            "--executor-option skip_completed=nope: expected true or false",
        ),
        (
            "datatrove-ray",
            {"tasks": "3"},
            "--executor-option tasks: polyprobe sets it from --shards",
        ),
        (
            "datatrove-slurm",
            {"sbatch_args": "account=lab"},
            "--executor-option sbatch_args=account=lab: expected a JSON dict | None",
        ),
    ],
)
def test_a_wrong_value_is_one_usage_error(executor: str, given: dict, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        typed_options(executor, given)
    assert str(caught.value) == message


def test_an_unknown_key_lists_what_the_executor_takes() -> None:
    with pytest.raises(UsageError) as caught:
        typed_options("datatrove-ray", {"partition": "cpu"})
    message = str(caught.value)
    assert message.startswith(
        "--executor-option partition: datatrove's RayPipelineExecutor takes no such option; "
        "it takes cpus_per_task, "
    )
    assert "mem_per_cpu_gb" in message and "logging_dir" not in message


def test_slurm_jobs_get_this_interpreter_unless_told_otherwise() -> None:
    bin_dir = str(Path(sys.executable).parent)
    got = slurm_environment({"partition": "cpu"})
    assert got["env_command"] == f'export PATH={bin_dir}:"$PATH"'
    assert (Path(bin_dir) / "launch_pickled_pipeline").exists()  # what the job runs
    assert slurm_environment({"venv_path": "/opt/v/bin/activate"}) == {
        "venv_path": "/opt/v/bin/activate"
    }


def test_slurm_without_a_shard_cache_is_refused_before_reading(
    data_dir: Path, tmp_path: Path
) -> None:
    dump = data_dir / "wikipedia" / EN
    done = subprocess.run(
        [sys.executable, "-m", "polyprobe", "build", "wiki", str(dump), "--lang", "en",
         "--out", str(tmp_path / "out"), "--executor", "datatrove-slurm",
         "--executor-option", "partition=cpu", "--executor-option", "time=01:00:00"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "polyprobe: error: --executor datatrove-slurm needs --shard-cache DIR, a folder every "
        "node sees: the jobs write the shards there and a rerun assembles the dataset"
    ]
    assert not (tmp_path / "out").exists()


def test_partial_files_are_swept_only_on_their_own_host(tmp_path: Path) -> None:
    table = tmp_path / "dump.0-of-2.abc.arrow"
    mine = partial_path(table)
    host = mine.name.rsplit("-", 1)[1]
    assert mine.name == f"{table.name}.tmp-{os.getpid()}-{host}" and len(host) == 8
    assert not orphan_partial(mine)  # this process is alive
    dead_here = tmp_path / f"{table.name}.tmp-999999999-{host}"
    other = "0000000f" if host != "0000000f" else "0000000e"
    elsewhere = tmp_path / f"{table.name}.tmp-999999999-{other}"  # another host's job
    older = tmp_path / f"{table.name}.tmp-999999999"  # no host: whose, nobody knows
    for path in (mine, dead_here, elsewhere, older):
        path.write_bytes(b"partial")
    sweep_partial(tmp_path)
    assert not dead_here.exists()
    assert mine.exists() and elsewhere.exists() and older.exists()


def test_a_failed_task_is_named_with_its_log(tmp_path: Path) -> None:
    logs = tmp_path / "datatrove-1" / "slurm_logs"
    logs.mkdir(parents=True)
    (logs / "41_1.out").write_text("Traceback ...\n", encoding="utf-8")
    done, lost = tmp_path / "a.arrow", tmp_path / "b.arrow"
    done.write_bytes(b"table")
    record = SlurmRecord(
        tmp_path / "slurm-x.json", "polyprobe-x", "41", str(logs.parent), (str(done), str(lost))
    )
    record.save()
    again = SlurmRecord.at(tmp_path / "slurm-x.json", "polyprobe-x")
    assert again.job_id == "41" and again.outs == (str(done), str(lost))
    assert again.failed() == [(str(lost), str(logs / "41_1.out"))]
