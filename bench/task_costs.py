"""Per-task build cost on one treebank, relative to ``sentence_length``: where ``--jobs`` gets
its shard weights (the table ``polyprobe.runtime.costs.TASK_COSTS``).

What a shard pays for one more task is its marginal cost: the time of building ``tense`` (a
cheap task with an observation pass, so both reading passes are already paid) together with
the task, minus building ``tense`` alone (``sentence_length`` for ``tense`` itself). Each build
runs in this process with ``jobs=1``, best of ``--repeat``; costs are divided by
``sentence_length``'s and printed beside the task's entry in ``TASK_COSTS`` (update the table
from this column when it has drifted). Every measured number comes from this one run.

Run: ``python bench/task_costs.py [--data ../shared/data] [--treebank UD_English-EWT]
[--tasks a,b] [--repeat 2]``.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path

from _data import treebank_arguments


def main() -> None:
    from polyprobe import build_ud
    from polyprobe.builders.families.ud import UD
    from polyprobe.errors import PolyprobeError
    from polyprobe.runtime.costs import TASK_COSTS, cost_of

    ap = treebank_arguments()
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--tasks", default="", help="comma-separated (default: the UD suite)")
    args = ap.parse_args()
    tb = args.data / "ud" / args.treebank
    wanted = [t for t in args.tasks.split(",") if t] or UD.tasks.resolve(None)

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
        for name in dict.fromkeys(["sentence_length", *wanted]):
            ref = "sentence_length" if name == "tense" else "tense"
            times[name] = max(best([ref, name], d) - base[ref], 1e-3)
    unit = times["sentence_length"]
    print(f"{args.treebank}: build of tense alone {base['tense']:.2f} s (the base)")
    print(f"{'task':26} {'seconds':>8} {'measured':>9} {'TASK_COSTS':>11}")
    for name in wanted:
        table = f"{TASK_COSTS[name]:11.2f}" if name in TASK_COSTS else f"{'-':>11}"
        print(f"{name:26} {times[name]:8.2f} {times[name] / unit:9.2f} {table}")
    missing = [n for n in wanted if n not in TASK_COSTS]
    if missing:
        print(f"not in TASK_COSTS (counted as {cost_of(missing[0]):.1f}): {', '.join(missing)}")


if __name__ == "__main__":
    main()
