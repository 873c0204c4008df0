"""What a dump build checks and records around datatrove's cluster executors.

Why: datatrove's executors take keyword arguments and trust them. A value typed on the
command line arrives as a string (``mem_per_cpu_gb=0.5`` is then repeated, not refused;
``skip_completed=false`` is truthy); a Slurm job starts without the submitting interpreter
on its ``PATH``; a second submission for the same shards overwrites the running one's
pickled pipeline; a failed array task is resubmitted without a word; Ray waits forever for
a placement no node can give. Everything here runs before or between submissions, so a
mistake is one line on the user's terminal, not a queued job that fails later.

Nothing here knows what a shard is; :mod:`polyprobe.runtime.inputs` calls it.
"""

from __future__ import annotations

import inspect
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.errors import JobsPending, PolyprobeError, UsageError

__all__ = [
    "SlurmRecord",
    "check_ray_resources",
    "slurm_environment",
    "typed_options",
]

_CLASSES = {
    "datatrove-local": "LocalPipelineExecutor",
    "datatrove-slurm": "SlurmPipelineExecutor",
    "datatrove-ray": "RayPipelineExecutor",
}
# Set by polyprobe from the build (the pipeline, its shards, where datatrove logs).
_RESERVED = {
    "pipeline": "the build's shard step",
    "tasks": "--shards",
    "logging_dir": "--shard-cache",
    "depends": "the build",
    "workers": "--jobs",
    "start_method": "the build",
}
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}


def executor_class(executor: str) -> Any:
    """datatrove's executor class for ``--executor`` (a usage error without datatrove)."""
    try:
        import datatrove.executor as engines
    except ImportError:
        raise UsageError(
            f"--executor {executor} needs datatrove: pip install 'polyprobe[cluster]'"
        ) from None
    return getattr(engines, _CLASSES[executor])


def typed_options(executor: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """``--executor-option KEY=VALUE`` items typed from the executor's own signature: a
    key it does not take, one polyprobe sets, or a value of the wrong type is refused."""
    if not given:
        return {}
    if executor not in _CLASSES:
        raise UsageError(
            f"--executor-option is for the datatrove executors, not --executor {executor}"
        )
    parameters = inspect.signature(executor_class(executor).__init__).parameters
    known = sorted(k for k in parameters if k not in _RESERVED and k != "self")
    typed: dict[str, Any] = {}
    for key, value in given.items():
        if key in _RESERVED:
            raise UsageError(f"--executor-option {key}: polyprobe sets it from {_RESERVED[key]}")
        if key not in parameters:
            raise UsageError(
                f"--executor-option {key}: datatrove's {_CLASSES[executor]} takes no such "
                f"option; it takes {', '.join(known)}"
            )
        typed[key] = _typed(key, value, str(parameters[key].annotation))
    return typed


def _typed(key: str, value: Any, annotation: str) -> Any:
    kinds = {part.strip().split("[")[0] for part in annotation.split("|")}
    if not isinstance(value, str):  # from a profile or the Python API: already typed
        return value
    text = value.strip()
    if "None" in kinds and text.lower() in ("none", "null"):
        return None
    if "bool" in kinds:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise UsageError(f"--executor-option {key}={value}: expected true or false")
    if "int" in kinds:
        try:
            return int(text)
        except ValueError:
            if "float" not in kinds:
                raise UsageError(
                    f"--executor-option {key}={value}: expected a whole number"
                ) from None
    if "float" in kinds:
        try:
            return float(text)
        except ValueError:
            raise UsageError(f"--executor-option {key}={value}: expected a number") from None
    if kinds & {"dict", "list", "tuple"}:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and "dict" in kinds:
            return parsed
        if isinstance(parsed, list) and kinds & {"list", "tuple"}:
            return tuple(parsed) if "tuple" in kinds else parsed
        raise UsageError(f"--executor-option {key}={value}: expected a JSON {annotation}")
    if "str" in kinds:
        return value
    raise UsageError(f"--executor-option {key}: a {annotation} cannot be given as text")


def slurm_environment(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with the submitting interpreter carried to the jobs: unless the user says
    how to set up the environment (``env_command``, ``venv_path``, ``condaenv``), the job
    puts this interpreter's ``bin`` first on its ``PATH``, where ``launch_pickled_pipeline``
    and ``merge_stats`` were installed with polyprobe."""
    if any(options.get(k) for k in ("env_command", "venv_path", "condaenv")):
        return dict(options)
    bin_dir = Path(sys.executable).parent
    return {**options, "env_command": f'export PATH={shlex.quote(str(bin_dir))}:"$PATH"'}


def _slurm_command(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise UsageError(f"--executor datatrove-slurm needs Slurm's {name} on the PATH")
    return found


@dataclass
class SlurmRecord:
    """The Slurm submission for one set of shards, kept in the shard cache: the job name it
    ran under, the array's job id, the logs folder and the shards it ran, in rank order. A
    rerun reads it to find a job still queued or running (and submits nothing), or the
    tasks that failed (named with their logs before they are resubmitted)."""

    path: Path
    job_name: str
    job_id: str = ""
    logs: str = ""
    outs: tuple[str, ...] = ()
    host: str = ""

    @classmethod
    def at(cls, path: Path, job_name: str) -> SlurmRecord:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path, job_name)
        return cls(
            path,
            str(data.get("job_name", job_name)),
            str(data.get("job_id", "")),
            str(data.get("logs", "")),
            tuple(data.get("outs", ())),
            str(data.get("host", "")),
        )

    def save(self) -> None:
        data = {
            "job_name": self.job_name,
            "job_id": self.job_id,
            "logs": self.logs,
            "outs": list(self.outs),
            "host": self.host,
        }
        tmp = self.path.with_name(f"{self.path.name}.tmp-{socket.gethostname()}-{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    def queued(self) -> list[tuple[str, str]]:
        """(job id, state) of the recorded job array's tasks still in Slurm's queue. Once
        the array has left it, datatrove's statistics job for it (same name, waiting on
        the array) is cancelled if it is still waiting: it would never run, or run alone."""
        squeue = _slurm_command("squeue")
        done = subprocess.run(
            [squeue, "-h", "--name", self.job_name, "-o", "%i|%T"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise PolyprobeError(f"squeue failed: {done.stderr.strip() or done.returncode}")
        jobs = [tuple(line.split("|", 1)) for line in done.stdout.splitlines() if "|" in line]
        array = [(job, state) for job, state in jobs if job.split("_")[0] == self.job_id]
        if not array:
            waiting = [job for job, state in jobs if state == "PENDING"]
            if waiting:
                subprocess.run([_slurm_command("scancel"), *waiting], check=False)
        return array

    def failed(self) -> list[tuple[str, str]]:
        """(shard file, log file) of every task of the recorded submission whose shard was
        not written."""
        logs = Path(self.logs) / "slurm_logs"
        out = []
        for rank, shard in enumerate(self.outs):
            if Path(shard).exists():
                continue
            found = sorted(logs.glob(f"{self.job_id.split('_')[0]}_{rank}.out"))
            out.append((shard, str(found[0]) if found else f"{logs} (no log for task {rank})"))
        return out


def submit_slurm(
    step: Any,
    items: Sequence[Any],
    logging_dir: Path,
    options: Mapping[str, Any],
    record: Path,
    said: tuple[str, str] = ("input shards", "assemble the dataset"),
) -> None:
    """Submit the items' job array unless a job for them is still queued or running; always
    ends with :class:`~polyprobe.errors.JobsPending` (the command exits 0, saying what to do).
    ``said``: what the items are, and what a rerun does once they are done."""
    what = "shard" if said[0].startswith("input shards") else said[0]
    missing = [k for k in ("partition", "time") if k not in options]
    if missing:
        raise UsageError(
            "--executor datatrove-slurm needs --executor-option "
            + " and ".join(f"{k}=..." for k in missing)
            + " (e.g. partition=cpu time=04:00:00)"
        )
    job_name = str(options.get("job_name") or f"polyprobe-{record.stem}")
    previous = SlurmRecord.at(record, job_name)
    if previous.job_id:
        queued = previous.queued()
        if queued:
            states = ", ".join(f"job {job} {state.lower()}" for job, state in queued)
            raise JobsPending(
                f"the Slurm jobs for these shards are still in the queue ({states}); nothing "
                "was submitted: rerun this command once they have finished"
            )
        failed = previous.failed()
        if failed:
            shown = "; ".join(f"{Path(s).name}: {log}" for s, log in failed[:5])
            more = f" (+{len(failed) - 5} more)" if len(failed) > 5 else ""
            print(
                f"polyprobe: {len(failed)} of {len(previous.outs)} {what} tasks of Slurm job "
                f"{previous.job_id} failed, resubmitting them; logs: {shown}{more}",
                file=sys.stderr,
            )
    from datatrove.executor import SlurmPipelineExecutor

    executor = SlurmPipelineExecutor(
        pipeline=[step],
        tasks=len(items),
        logging_dir=str(logging_dir),
        **{**slurm_environment(options), "job_name": job_name},
    )
    executor.run()
    SlurmRecord(
        record,
        job_name,
        str(executor.job_id),
        str(logging_dir),
        tuple(str(i.out) for i in items),
        socket.gethostname(),
    ).save()
    raise JobsPending(
        f"submitted Slurm job array {executor.job_id} ({len(items)} {what} tasks, logs in "
        f"{logging_dir / 'slurm_logs'}); rerun this command once it has finished to "
        f"{said[1]}"
    )


def check_ray_resources(options: Mapping[str, Any], shared_folder: bool) -> None:
    """Refuse, before anything waits on it, a task no node of the Ray cluster can hold
    (datatrove would wait on its placement group for ever), and a cluster of several nodes
    without a folder they all see (``--shard-cache``)."""
    import ray

    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"), log_to_driver=False)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if len(nodes) > 1 and not shared_folder:
        raise UsageError(
            f"the Ray cluster has {len(nodes)} nodes: --executor datatrove-ray needs "
            "--shard-cache DIR, a folder every node sees"
        )
    cpus = float(options.get("cpus_per_task", 1))
    memory = float(options.get("mem_per_cpu_gb", 2)) * cpus * 2**30
    most_cpus = max((n["Resources"].get("CPU", 0.0) for n in nodes), default=0.0)
    most_memory = max((n["Resources"].get("memory", 0.0) for n in nodes), default=0.0)
    if cpus > most_cpus:
        raise UsageError(
            f"--executor-option cpus_per_task={options.get('cpus_per_task', 1)}: no node of "
            f"the Ray cluster has that many CPUs (the largest has {most_cpus:g})"
        )
    if memory > most_memory:
        raise UsageError(
            f"a shard task asks Ray for {memory / 2**30:.1f} GB (mem_per_cpu_gb × "
            f"cpus_per_task) but the largest node offers {most_memory / 2**30:.1f} GB: "
            "lower --executor-option mem_per_cpu_gb"
        )
