"""Per-task build cost on one treebank, relative to ``sentence_length``: where ``--jobs`` gets
its shard weights (``Task.relative_cost``).

What a shard pays for one more task is its marginal cost: the time of building ``tense`` (a
cheap task with an observation pass, so both reading passes are already paid) together with
the task, minus building ``tense`` alone (``sentence_length`` for ``tense`` itself). Each build
runs in this process with ``jobs=1``, best of ``--repeat``; costs are divided by
``sentence_length``'s and printed beside the task's ``relative_cost``. Every number comes from
this one run.

Run: ``python bench/task_costs.py [--data ../shared/data] [--treebank UD_English-EWT]``.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path

from _data import treebank_arguments


def main() -> None:
    from polyprobe.builders.pipeline import build_ud
    from polyprobe.builders.registry import DEFAULT_TASKS, TASKS
    from polyprobe.errors import PolyprobeError

    ap = treebank_arguments()
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    tb = args.data / "ud" / args.treebank

    ap_repeat = args.repeat

    def best(tasks: list[str], d: str) -> float:
        times = []
        for _ in range(ap_repeat):
            t = time.perf_counter()
            # an infeasible task (PolyprobeError) still costs its passes
            with contextlib.suppress(PolyprobeError):
                build_ud(
                    [tb], lang=args.lang, out=Path(d) / "b", tasks=tasks, jobs=1, overwrite=True
                )
            times.append(time.perf_counter() - t)
        return min(times)

    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        base = {"tense": best(["tense"], d), "sentence_length": best(["sentence_length"], d)}
        for name in DEFAULT_TASKS:
            ref = "sentence_length" if name == "tense" else "tense"
            pair = [n for n in DEFAULT_TASKS if n in (ref, name)]
            times[name] = max(best(pair, d) - base[ref], 1e-3)
    unit = times["sentence_length"]
    print(f"{args.treebank}: build of tense alone {base['tense']:.2f} s (the base)")
    print(f"{'task':26} {'seconds':>8} {'measured':>9} {'relative_cost':>14}")
    for name in DEFAULT_TASKS:
        print(
            f"{name:26} {times[name]:8.2f} {times[name] / unit:9.2f} "
            f"{TASKS[name].relative_cost:14.2f}"
        )


if __name__ == "__main__":
    main()
