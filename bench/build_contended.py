"""The whole-suite build of EWT when one of its two processes runs on a busy core, against the
same build on a quiet machine, as a ratio measured in this one run (Linux, 2+ cores).

Why: on a loaded host one build process can run much slower than the other. With tasks fixed
per shard the build then waits for the slow shard; write jobs
(:mod:`polyprobe.builders.write_jobs`) let the other process take over the slow shard's last
steps. Here a busy loop shares core 1 with the build's worker process (pinned there once it
has started; the command itself is pinned to core 0), which slows that shard to about half
speed. Each round builds once quietly and once contended; the median of the per-round
ratios is printed. Only the write steps (about a fifth of the work) can move: with tasks
fixed per shard the contended build took 1.7-1.85x the quiet one on this VM, with write jobs
1.55-1.65x (measured side by side when write jobs came in).

Run: ``python bench/build_contended.py [--data ../shared/data] [--rounds 3]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _data import arguments


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _build(tb: Path, out: Path, contended: bool) -> tuple[float, bool]:
    """Wall seconds of one build; whether a worker was pinned to the busy core."""
    cmd = [sys.executable, "-m", "polyprobe", "build", "ud", str(tb), "--lang", "en"]
    cmd += ["--sizes", "10k", "--overwrite", "--quiet", "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    pinned = False
    if contended:
        # Pin only once the jobs are decided (the command counts the cores it may use).
        while proc.poll() is None and time.perf_counter() - t0 < 2.0:
            kids = _children(proc.pid) if time.perf_counter() - t0 > 0.6 else []
            if kids:
                os.sched_setaffinity(proc.pid, {0})
                for kid in kids:
                    os.sched_setaffinity(kid, {1})
                pinned = True
                break
            time.sleep(0.01)
    if proc.wait() != 0:
        raise SystemExit(f"build failed: {' '.join(cmd)}")
    return time.perf_counter() - t0, pinned


def main() -> None:
    import polyprobe

    parser = arguments()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs Linux and at least 2 cores")
    tb = Path(args.data) / "ud" / "UD_English-EWT"
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(polyprobe.__file__).parent)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    ratios, quiet_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        for r in range(args.rounds):
            quiet, _ = _build(tb, out, contended=False)
            busy = subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c", "while 1: pass"])
            try:
                loaded, pinned = _build(tb, out, contended=True)
            finally:
                busy.kill()
                busy.wait()
            if not pinned:
                raise SystemExit("the build started no worker to pin (one process only?)")
            quiet_times.append(quiet)
            ratios.append(loaded / quiet)
            print(f"round {r + 1}: quiet {quiet:.2f} s, one core busy {loaded:.2f} s", flush=True)
    print(
        f"whole suite of EWT, one of two build processes on a core shared with a busy loop: "
        f"{statistics.median(ratios):.2f}x the quiet build "
        f"[{min(ratios):.2f}-{max(ratios):.2f}] (quiet: {statistics.median(quiet_times):.2f} s)"
    )


if __name__ == "__main__":
    main()
