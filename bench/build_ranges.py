"""Where the processes of a build on record ranges wait for each other: per-process
timelines of the default ``polyprobe build ud`` (two processes), every figure from this one
run.

Each round runs one build in a fresh interpreter (``--rounds``, default 8) with the phase
functions of ``polyprobe.builders.execution.stream`` wrapped (``observe_range``, ``fit_tasks``,
``spool_range``, ``write_task``): every phase item's process, range, wall start and end and
CPU seconds go to a log (the pool's workers are forked, so the wrappers run in them too).
Printed per round, then over the rounds:

* each phase's *gap*: how long one process idles at the phase's end, waiting for the other
  (observe, fit, candidates, write);
* for the two phases cut into fixed ranges (observe, candidates), the later range's CPU
  seconds minus the earlier's: the scan of the bytes before the later range's start that
  ``loaders.sources.SCAN_WEIGHT`` sizes the ranges for. Near 0 on average (within the
  noise of this VM, where one process's same work costs up to ±50% run to run) means the
  weight is right; consistently positive means it is too small;
* from the end of the observe phase to the start of the candidate phase (merging, fitting,
  handing the fits out);
* each phase's CPU seconds, summed over the processes (against ``bench/build_phases.py``'s
  one-process phases: what working in ranges costs in CPU).

Run: ``python bench/build_ranges.py [--data ../shared/data] [--treebank UD_English-EWT]
[--lang en] [--rounds 8] [--jobs 2]``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _data import REPO, treebank_arguments

# One build in this interpreter, its phase items logged to argv[1] (one JSON line each).
_BUILD = r"""
import functools, json, os, shutil, sys, tempfile, time
import polyprobe.builders.execution.passes as passes
import polyprobe.builders.execution.stream as stream
from polyprobe.cli import main

log = open(sys.argv[1], "a")

def timed(module, name, phase, of):
    f = getattr(module, name)
    @functools.wraps(f)  # same module and name: pickled by reference, as the original
    def wrapper(item, *args, **kwargs):
        t0, c0 = time.time(), time.process_time()
        try:
            return f(item, *args, **kwargs)
        finally:
            entry = dict(pid=os.getpid(), phase=phase, range=of(item), start=t0,
                         end=time.time(), cpu=time.process_time() - c0)
            log.write(json.dumps(entry) + "\n")
            log.flush()
    setattr(module, name, wrapper)
    return wrapper

def range_of(job):
    return job.parts[0].part[0] if job.parts else -1

timed(stream, "observe_range", "observe", range_of)
timed(stream, "spool_range", "candidates", range_of)
timed(stream, "fit_tasks", "fit", len)
stream.write_task = timed(passes, "write_task", "write", lambda job: -1)
out = tempfile.mkdtemp()
start = time.time()
try:
    code = main(["build", "ud", *sys.argv[2:], "--out", os.path.join(out, "o")])
finally:
    shutil.rmtree(out)
log.write(json.dumps(dict(pid=os.getpid(), phase="build", range=-1, start=start,
                          end=time.time(), cpu=time.process_time())) + "\n")
sys.exit(code)
"""

PHASES = ("observe", "fit", "candidates", "write")


def _round(log: Path, args: list[str]) -> list[dict]:
    log.write_text("")
    run = subprocess.run(
        [sys.executable, "-c", _BUILD, str(log), *args], capture_output=True, text=True, cwd=REPO
    )
    if run.returncode:
        sys.exit(f"the build failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return [json.loads(line) for line in log.read_text().splitlines()]


def main() -> None:
    ap = treebank_arguments()
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    build = [str(args.data / "ud" / args.treebank), "--lang", args.lang, "--jobs", str(args.jobs)]
    gaps: dict[str, list[float]] = {p: [] for p in PHASES}
    later: dict[str, list[float]] = {"observe": [], "candidates": []}
    between: list[float] = []
    cpu: dict[str, list[float]] = {p: [] for p in PHASES}  # summed over the processes
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            items = _round(Path(tmp) / "log.jsonl", build)
            whole = items.pop()
            t0 = whole["start"]
            walls.append(whole["end"] - t0)
            line = [f"round {r + 1}: build {whole['end'] - t0:5.2f} s"]
            for phase in PHASES:
                of_phase = [i for i in items if i["phase"] == phase]
                cpu[phase].append(sum(i["cpu"] for i in of_phase))
                ends: dict[int, float] = {}
                for i in of_phase:
                    ends[i["pid"]] = max(ends.get(i["pid"], 0.0), i["end"])
                if len(ends) > 1:
                    gaps[phase].append(max(ends.values()) - min(ends.values()))
                if phase in later:
                    by_range = sorted((i["range"], i["cpu"]) for i in of_phase)
                    later[phase].append(by_range[-1][1] - by_range[0][1])
                    line.append(
                        f"{phase} "
                        + "/".join(f"{i['start'] - t0:.2f}-{i['end'] - t0:.2f}" for i in of_phase)
                        + " ("
                        + "/".join(f"{cpu:.2f}" for _, cpu in by_range)
                        + " CPU-s by range)"
                    )
            observed = max(i["end"] for i in items if i["phase"] == "observe")
            candidates = min(i["start"] for i in items if i["phase"] == "candidates")
            between.append(candidates - observed)
            print("; ".join(line), flush=True)

    def summary(values: list[float]) -> str:
        return f"mean {statistics.mean(values):+.2f} s [{min(values):+.2f}, {max(values):+.2f}]"

    print(
        f"\n{args.rounds} builds of {args.treebank}, --jobs {args.jobs}: wall median "
        f"{statistics.median(walls):.2f} s in-process (start-up of the interpreter excluded)"
    )
    for phase in PHASES:
        print(
            f"  {phase:10} CPU of the processes together: median {statistics.median(cpu[phase]):.2f} s"
        )
    for phase in PHASES:
        if gaps[phase]:
            print(f"  {phase:10} gap at the end: {summary(gaps[phase])}")
    for phase, values in later.items():
        print(f"  {phase:10} later range minus earlier, CPU: {summary(values)}")
    print(f"  observe end -> candidates start: {summary(between)}")


if __name__ == "__main__":
    main()
