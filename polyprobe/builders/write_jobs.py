"""Write jobs: the configs of one task, written by whichever shard process is free first.

Why: a shard's tasks are fixed before it starts reading (its passes serve all of them), but
a task's last step — variants and parquet files from its spooled candidates — needs only
files on disk. On a busy machine one of two build processes can run much slower than the
other (traces of EWT builds in such periods: the two shards ended 0.6 s apart on average,
up to 1.2 s), and the build waited for the slower one. Now a process that has written its
own tasks takes the other's unwritten ones, from the end of that shard's list while its
owner works from the front, so both end at about the same time. Who writes a task does not
change a byte: a write job is a pure function of the spooled files and the job itself.

The board is a folder shared by the shards of one build: ``<task>.job`` (pickled, published
atomically by the owner once its candidate pass is done) and ``<task>.claim`` (created with
``O_EXCL``: whoever creates it writes the task). A process that runs out of jobs while
another shard has not published yet waits for it only while the build's other processes
are at work (:func:`~polyprobe.builders.shards.peers_running`); one that finds they are not
leaves ``ABORT`` on the board, so that no shard waits for a shard that failed.
"""

from __future__ import annotations

import copy
import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.shards import peers_running
from polyprobe.builders.task import Level, Task

POLL_SECONDS = 0.005  # how often a process out of work looks for newly published jobs
ABORT = "ABORT"  # on the board: a shard failed, nobody waits for its jobs any more


@dataclass(frozen=True)
class TaskView:
    """What writing a task's configs reads of the task, after its candidate pass: plain
    values a job file can carry (the task itself holds corpus-sized observation state)."""

    name: str
    label_names: tuple[str, ...]
    level: Level
    description: str
    input_columns: tuple[str, ...]
    recipe_version: str
    lexical_control: bool
    seed_dependent: bool
    paired_copies: bool
    notes: tuple[str, ...]
    citation: str
    drops: dict[str, int]
    recipe: dict[str, Any]

    @classmethod
    def of(cls, task: Task) -> TaskView:
        return cls(
            name=task.name,
            label_names=tuple(task.label_names),
            level=task.level,
            description=task.description,
            input_columns=tuple(task.input_columns),
            recipe_version=task.recipe_version,
            lexical_control=bool(task.lexical_control),
            seed_dependent=bool(task.seed_dependent),
            paired_copies=bool(task.paired_copies),
            notes=tuple(task.notes),
            citation=task.citation,
            drops=dict(task.drops),
            recipe=task.parameters(),
        )

    def parameters(self) -> dict[str, Any]:
        """The task's recipe parameters, a fresh copy per call (as ``Task.parameters``)."""
        return copy.deepcopy(self.recipe)


@dataclass(frozen=True)
class WriteJob:
    """One task's configs to write: its view and where its candidates are spooled."""

    task: TaskView
    spool: Path  # the rows' Arrow file; the engine's column files lie beside it
    rows: int
    position: int  # in its shard's task order


class Board:
    """One shard's side of the build's board (see the module docstring)."""

    def __init__(self, folder: Path, all_tasks: list[str] | tuple[str, ...]):
        self.folder = folder
        self.all_tasks = list(all_tasks)
        self._own: list[WriteJob] = []
        self._seen: dict[str, WriteJob] = {}  # other shards' published jobs, read once

    def publish(self, jobs: list[WriteJob]) -> None:
        """Offer this shard's jobs (every spool closed): each file appears whole or not."""
        for job in jobs:
            tmp = self.folder / f".{job.task.name}.job.tmp"
            with open(tmp, "wb") as fh:
                pickle.dump(job, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.folder / f"{job.task.name}.job")
        self._own = list(jobs)

    def _claim(self, name: str) -> bool:
        try:
            fd = os.open(self.folder / f"{name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        os.close(fd)
        return True

    def _claimed(self, name: str) -> bool:
        return (self.folder / f"{name}.claim").exists()

    def next_job(self) -> WriteJob | None:
        """The next job this process writes: its own in order, then other shards' from the
        back; None once every task of the build is claimed (or the shards that have not
        published are gone)."""
        for job in self._own:
            if not self._claimed(job.task.name) and self._claim(job.task.name):
                return job
        own = {job.task.name for job in self._own}
        while True:
            for name in self.all_tasks:
                if name not in own and name not in self._seen:
                    path = self.folder / f"{name}.job"
                    if path.exists():
                        with open(path, "rb") as fh:
                            self._seen[name] = pickle.load(fh)
            open_jobs = [job for name, job in self._seen.items() if not self._claimed(name)]
            for job in sorted(open_jobs, key=lambda j: -j.position):
                if self._claim(job.task.name):
                    return job
            if all(self._claimed(name) for name in self.all_tasks):
                return None
            if (self.folder / ABORT).exists():
                return None
            if not peers_running():
                # Some shard will never publish: tell the other waiting shards (a worker
                # only sees its parent) and stop; the failure itself reaches the caller
                # through run_shards.
                (self.folder / ABORT).touch()
                return None
            time.sleep(POLL_SECONDS)
