"""Per-task build cost on one treebank, relative to ``sentence_length``: where ``--jobs`` gets
its shard weights (``Task.relative_cost``).

Each task is built alone, in this process, with ``jobs=1``; the time of two bare reading
passes (what every shard pays whatever its tasks) is subtracted, and the rest is divided by
``sentence_length``'s. Prints the measured ratio beside the task's ``relative_cost``; every
number comes from this one run.

Run: ``python bench/task_costs.py [--data ../shared/data] [--treebank UD_English-EWT]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    from polyprobe.builders.pipeline import build_ud
    from polyprobe.builders.registry import DEFAULT_TASKS, TASKS
    from polyprobe.loaders.conllu import discover, read_sources

    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("POLYPROBE_DATA", REPO.parent / "shared" / "data")),
    )
    ap.add_argument("--treebank", default="UD_English-EWT")
    ap.add_argument("--lang", default="en")
    args = ap.parse_args()
    tb = args.data / "ud" / args.treebank

    sources = discover([tb])
    t = time.perf_counter()
    for _ in range(2):
        for sent in read_sources(sources, on_invalid="raise"):
            sent.surface_tokens()
    reading = time.perf_counter() - t

    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        for name in DEFAULT_TASKS:
            t = time.perf_counter()
            try:
                build_ud([tb], lang=args.lang, out=Path(d) / name, tasks=[name], jobs=1)
            except Exception as exc:  # an infeasible task still costs its passes
                print(f"  ({name}: {type(exc).__name__}: {exc})")
            times[name] = max(time.perf_counter() - t - reading, 1e-3)
    unit = times["sentence_length"]
    print(f"{args.treebank}: two bare reading passes {reading:.2f} s (subtracted)")
    print(f"{'task':26} {'seconds':>8} {'measured':>9} {'relative_cost':>14}")
    for name in DEFAULT_TASKS:
        print(
            f"{name:26} {times[name]:8.2f} {times[name] / unit:9.2f} "
            f"{TASKS[name].relative_cost:14.2f}"
        )


if __name__ == "__main__":
    main()
