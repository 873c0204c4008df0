"""The spine's pre-step: a plan's input shards prepared on an executor before its streams
read them (:class:`~polyprobe.builders.family.Prepare`; ``build wiki``: each dump's pages
cleaned and tokenised into tables).

Why here and not in a family: which processes or cluster run the items, where their files
live while the build runs, how a killed build's files are swept and how a rerun resumes are
the same for any input that must be prepared; a family only says what the items are, what
one item does and how its streams read the result. Nothing here knows what a shard is.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from polyprobe.builders.execution.remote import Remote
from polyprobe.builders.family import Plan, Prepare

# The build's folder of prepared shards in the temp dir (when no cache folder is given):
# ``polyprobe-textshards-<pid>-<host>-<random>``, swept by the next build if this one is killed.
SCRATCH = "polyprobe-textshards-"
# Inputs below this size are prepared in this process unless --jobs asks for more.
MIN_PARALLEL_BYTES = 2 << 20


def workers_for(jobs: int | None, inputs: Sequence[Path]) -> int:
    """Processes preparing the shards: ``--jobs``, else one per core (at most 4) when the
    inputs are large enough to pay for a process."""
    if jobs:
        return jobs
    size = sum(Path(p).stat().st_size for p in inputs)
    return min(4, os.cpu_count() or 1) if size >= MIN_PARALLEL_BYTES else 1


@contextmanager
def prepared(
    prepare: Prepare, inputs: Sequence[Path], jobs: int | None
) -> Iterator[tuple[Plan, Remote | None]]:
    """The plan that reads the prepared shards (``prepare.ready``), once every shard is
    finished: shards already finished in the cache folder are reused, the others run on
    ``prepare.executor``. Without a cache folder the shards live in a folder of this
    build's, removed when the ``with`` block ends. With a datatrove executor, also where
    the build's per-range passes then run (:class:`Remote`: the same executor, one range
    per shard, beside the shards); else ``None``."""
    from polyprobe.cards.folder import make_owned_dir, sweep_orphans
    from polyprobe.hashing import stable_u64
    from polyprobe.runtime.inputs import require_outputs, run_inputs

    workers = workers_for(jobs, inputs)
    scratch = Path(tempfile.gettempdir())
    sweep_orphans(scratch, SCRATCH)
    if prepare.cache is not None:
        folder = Path(prepare.cache).absolute()  # a cluster job resolves it elsewhere
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = make_owned_dir(scratch, SCRATCH, mode=0o700)
    try:
        sweep_partial(folder)
        items = list(prepare.shards(folder, workers))
        pending = [i for i in items if not Path(i.out).exists()]  # finished: reused
        logs = folder / f"datatrove-{stable_u64('logs', *(str(i.out) for i in pending)):016x}"
        # one record of a Slurm submission per set of shards, whatever is still pending
        record = folder / f"slurm-{stable_u64('record', *(str(i.out) for i in items)):016x}.json"
        run_inputs(
            prepare.function,
            pending,
            workers=workers,
            executor=prepare.executor,
            logging_dir=logs,
            executor_options=dict(prepare.executor_options),
            record=record if prepare.cache is not None else None,
        )
        require_outputs([str(i.out) for i in items], "input shards", prepare.executor, logs)
        remote = (
            None
            if prepare.executor == "local"
            else Remote(
                prepare.executor,
                dict(prepare.executor_options),
                folder,
                ranges=len(items),
                workers=workers,
                shared=prepare.cache is not None,
            )
        )
        yield prepare.ready(items), remote
    finally:
        if prepare.cache is None:
            shutil.rmtree(folder, ignore_errors=True)


def sweep_partial(folder: Path) -> None:
    """Remove files a killed item of this host left half-written (``*.tmp-<pid>-<host>`` of
    a dead process; another host's are left to it)."""
    from polyprobe.cards.folder import orphan_partial

    for path in folder.glob("*.tmp-*"):
        if orphan_partial(path):
            path.unlink(missing_ok=True)
