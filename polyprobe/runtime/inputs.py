"""Run one function over a build's *input shards* (a dump file, or a block of its pages), on
this machine's processes or on datatrove's executors.

Why a second runner beside :mod:`polyprobe.runtime.parallel`: a treebank build shards by
*task* (every shard reads the small input), while a dump is too large to read once per task
and shards by *input*: each shard reads its part, cleans and tokenises it and writes a table;
what follows reads the tables. The shard function writes its own output file, atomically, and
returns nothing, so any engine that can call a function for rank *i* of *n* can run it:

* ``local`` (default): this process for one worker, else a process pool (forked workers that
  die with SIGTERM and with their parent, as the build's own pool);
* ``datatrove-local``, ``datatrove-slurm``, ``datatrove-ray``: datatrove's
  ``LocalPipelineExecutor``/``SlurmPipelineExecutor``/``RayPipelineExecutor`` with the same
  function as a one-step pipeline, ``tasks`` = the number of shards (datatrove's rank/world
  model); its ``logging_dir`` records finished ranks, so a rerun skips them.

Nothing here knows what a shard is: items are opaque, picklable values.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from polyprobe.errors import UsageError
from polyprobe.runtime.parallel import start_method
from polyprobe.runtime.signals import worker_setup

__all__ = ["EXECUTORS", "RankStep", "require_outputs", "run_inputs"]

EXECUTORS: tuple[str, ...] = ("local", "datatrove-local", "datatrove-slurm", "datatrove-ray")


class RankStep:
    """A datatrove pipeline step: runs ``function(items[rank])`` (a module-level function)."""

    def __init__(self, function: Callable[[Any], Any], items: Sequence[Any]) -> None:
        self.function = function
        self.items = list(items)

    def __call__(self, data: Any, rank: int = 0, world_size: int = 1) -> list[Any]:
        self.function(self.items[rank])
        return []


def run_inputs(
    function: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    workers: int = 1,
    executor: str = "local",
    logging_dir: Path | None = None,
    executor_options: Mapping[str, Any] | None = None,
    record: Path | None = None,
    describe: str = "input shards (clean, tokenise)",
    then: str = "assemble the dataset",
) -> None:
    """``function(item)`` for every item, on ``executor`` with ``workers`` processes (local
    executors). ``function`` must be an importable module-level function; its errors are
    raised (the local pool's workers are killed first, so nothing keeps writing).
    ``record``: where a Slurm submission is recorded, in a folder every node sees (the
    command then ends with :class:`~polyprobe.errors.JobsPending`: the jobs write the
    items' files, a rerun uses them and goes on to ``then``). ``describe``: what the items
    are, for the progress display and the submission's message."""
    if executor not in EXECUTORS:
        raise UsageError(f"--executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    if not items:
        return
    if executor == "local":
        _run_local(function, items, workers, describe)
        return
    _run_datatrove(
        function,
        items,
        workers,
        executor,
        logging_dir,
        dict(executor_options or {}),
        record,
        (describe, then),
    )


def require_outputs(outs: Sequence[str], what: str, executor: str, logs: Path) -> None:
    """After :func:`run_inputs`: every item's ``out`` exists, else one error saying how
    many of the ``what`` failed, where datatrove logged them, and that a rerun retries
    only those."""
    from polyprobe.errors import PolyprobeError

    missing = [o for o in outs if not Path(o).exists()]
    if missing:
        raise PolyprobeError(
            f"{len(missing)} of {len(outs)} {what} failed on {executor} (datatrove's logs: "
            f"{logs}): rerun this command to retry them; finished ones are reused"
        )


def _run_local(
    function: Callable[[Any], Any], items: Sequence[Any], workers: int, desc: str
) -> None:
    from concurrent.futures import as_completed

    from polyprobe import progress

    if workers <= 1 or len(items) == 1:
        for item in progress.track(items, desc, unit=" shard"):
            function(item)
        return
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(items)),
        mp_context=multiprocessing.get_context(start_method()),
        initializer=worker_setup,
        initargs=(os.getpid(),),
    )
    processes: list[Any] = []
    try:
        futures = [pool.submit(function, item) for item in items]
        processes = list(getattr(pool, "_processes", {}).values())
        done = as_completed(futures)
        for future in progress.track(done, desc, total=len(futures), unit=" shard"):
            future.result()
    except BaseException:
        processes = processes or list(getattr(pool, "_processes", {}).values())
        for process in processes:
            if process.is_alive():
                process.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_datatrove(
    function: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int,
    executor: str,
    logging_dir: Path | None,
    options: dict[str, Any],
    record: Path | None,
    said: tuple[str, str],
) -> None:
    from polyprobe.runtime import cluster

    cluster.executor_class(executor)  # a usage error without datatrove
    step = RankStep(function, items)
    logs = str(logging_dir) if logging_dir is not None else None
    options = cluster.typed_options(executor, options)
    if executor == "datatrove-local":
        from datatrove.executor import LocalPipelineExecutor

        LocalPipelineExecutor(
            pipeline=[step],
            tasks=len(items),
            workers=max(1, workers),
            logging_dir=logs,
            start_method=start_method(),
            **options,
        ).run()
        return
    if executor == "datatrove-slurm":
        if logging_dir is None or record is None:
            raise UsageError("--executor datatrove-slurm needs --shard-cache DIR")
        cluster.submit_slurm(step, items, logging_dir, options, record, said)
        return
    from datatrove.executor import RayPipelineExecutor

    cluster.check_ray_resources(options, shared_folder=record is not None)
    RayPipelineExecutor(pipeline=[step], tasks=len(items), logging_dir=logs, **options).run()
