"""A build's per-record passes and its writing on the executor that prepared its input
shards (``build wiki --executor datatrove-slurm|datatrove-ray|datatrove-local``), so that
the cluster does the heavy part of a dump build and one machine only fits and moves files.

Why: after the shard stage, a dump build's observe and candidate passes (every sentence's
records, every task's observations and candidates, their spools) were 82 % of what ran on
one machine whatever the executor, and writing the configs most of the rest. They run here
on record *ranges* (:func:`~polyprobe.builders.execution.stream.run_on_ranges`, the same
four phases as a local build in several processes): phases 1 (observe), 3 (candidates) and
4 (each task's configs written from its ranges' spools) are each one executor run whose
items' results are pickled beside the shard tables; only phase 2 (the range observations
merged in stream order, the tasks fitted) runs on this machine, and the written files are
moved into the build's staging folder. The merges are exact, so the bytes are those of a
local build for any executor, number of ranges or workers.

A result is a file that exists only once complete (written aside, then renamed), in a
folder named by what decides the passes (:func:`passes_key`): a rerun after a Slurm
submission, or after an interruption, reuses the finished items and runs the rest. The
folder is removed once the dataset is written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.hashing import stable_u64

__all__ = ["Remote", "SavedCall", "map_remote", "passes_key", "run_saved", "saved"]


@dataclass(frozen=True)
class Remote:
    """Where a build's per-range passes run: datatrove's ``executor`` with its ``options``,
    ``ranges`` items per phase (the input shards' number), results under ``folder`` (a
    folder every node sees when the executor is a cluster's: the shard cache); ``shared``:
    whether that folder is kept between commands (a Slurm submission needs it)."""

    executor: str
    options: Mapping[str, Any] = field(default_factory=dict)
    folder: Path = Path(".")
    ranges: int = 1
    workers: int = 1
    shared: bool = False


@dataclass(frozen=True)
class SavedCall:
    """``function(argument)``, its result pickled to ``out`` (an executor's item: its
    engine calls :func:`run_saved` with it, on whichever node)."""

    function: Callable[[Any], Any]
    argument: Any
    out: str


def run_saved(call: SavedCall) -> None:
    """Run one call unless its result exists; write the result aside, then rename it."""
    from polyprobe.cards.folder import partial_path

    out = Path(call.out)
    if out.exists():
        return
    result = call.function(call.argument)
    tmp = partial_path(out)
    try:
        # compressed: a range's observations hold its vocabulary (word content) and its
        # sentences' texts (coherence), ~6 MB a range at ×5 of the English excerpt
        tmp.write_bytes(zlib.compress(pickle.dumps(result, pickle.HIGHEST_PROTOCOL), 1))
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def saved(out: Path, make: Callable[[], Any], drop: str) -> Any:
    """``make()``'s result, kept in ``out`` (a rerun loads it); once it is saved, the files
    of ``out``'s folder matching ``drop`` (what it was made from) are deleted. Why: the
    fits are what the candidate pass needs, and the range observations they were made of
    (a range's vocabulary and texts) would otherwise sit beside the spools until the end."""
    if out.exists():
        return pickle.loads(zlib.decompress(out.read_bytes()))
    result = make()
    run_saved(SavedCall(_given, result, str(out)))
    for path in out.parent.glob(drop):
        path.unlink(missing_ok=True)
    return result


def _given(value: Any) -> Any:
    return value


def map_remote(
    remote: Remote, phase: str, folder: Path, function: Callable[[Any], Any], items: Sequence[Any]
) -> list[Any]:
    """``function(item)`` for every item on the remote executor, the results in item order.
    Items already done (their result file exists) are not run again; a Slurm submission
    ends the command (:class:`~polyprobe.errors.JobsPending`: rerun for the next round)."""
    from polyprobe.runtime.inputs import require_outputs, run_inputs

    n = len(items)
    calls = [
        SavedCall(function, item, str(folder / f"{phase}-{k}-of-{n}.pickle"))
        for k, item in enumerate(items)
    ]
    pending = [c for c in calls if not Path(c.out).exists()]
    logs = folder / f"datatrove-{phase}-{stable_u64('logs', *(c.out for c in pending)):016x}"
    run_inputs(
        run_saved,
        pending,
        workers=remote.workers,
        executor=remote.executor,
        logging_dir=logs,
        executor_options=dict(remote.options),
        # named for this build's passes: the job name comes from it, and a rerun looks
        # for a job of that name still queued
        record=folder / f"slurm-{phase}-{stable_u64('passes', folder.name):016x}.json"
        if remote.shared
        else None,
        describe=f"{phase} pass",
        then="run the build's next round (or assemble the dataset)",
    )
    require_outputs([c.out for c in calls], f"items of the {phase} pass", remote.executor, logs)
    return [pickle.loads(zlib.decompress(Path(c.out).read_bytes())) for c in calls]


def passes_key(streams: Sequence[Any], seed: int, on_invalid: str, ranges: int) -> int:
    """What decides a build's per-range results: every stream's records (their sources,
    filters, the shard tables they read) and profile, every task's class, options and
    context, the seed, the invalid-input policy and the number of ranges. A rerun of the
    same command finds the same folder; any change, a new one."""
    described = {
        "seed": seed,
        "on_invalid": on_invalid,
        "ranges": ranges,
        "streams": [
            {
                "records": _plain(s.records),
                "profile": _plain(s.profile),
                "tasks": [
                    [type(t).__qualname__, t.name, _plain(t.options), _plain(t.context)]
                    for t in s.tasks
                ],
            }
            for s in streams
        ],
    }
    return stable_u64("passes", json.dumps(described, sort_keys=True))


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data that does not depend on the process (sets sorted, no
    object addresses): a stable description for :func:`passes_key`."""
    if depth > 12:
        return type(value).__qualname__
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Path):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            "type": type(value).__qualname__,
            **{
                f.name: _plain(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
            },
        }
    if isinstance(value, Mapping):
        return sorted(
            ([_plain(k, depth + 1), _plain(v, depth + 1)] for k, v in value.items()),
            key=lambda kv: json.dumps(kv, sort_keys=True),
        )
    if isinstance(value, (set, frozenset)):
        items = [_plain(v, depth + 1) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    describe = getattr(value, "describe", None)
    if callable(describe):
        return _plain(describe(), depth + 1)
    return type(value).__qualname__
