"""The whole-suite build of EWT when one of its two processes runs on a busy core, against the
same build on a quiet machine, as a ratio measured in this one run (Linux, 2+ cores).

Why: on a loaded host one build process can run much slower than the other. Shards of tasks
are fixed before they start, so the build would wait for the slow shard; instead each task's
last step (variants and files) is a job on the process pool that any process may run
(:mod:`polyprobe.runtime.parallel`): the command's own process, once its shard is done, takes
queued jobs from the back while the pool worker takes them from the front, so the process on
the quiet core does more of the work. Here a busy loop shares core 1 with the build's pool
worker (pinned there as soon as the pool has started it; the command itself is pinned to core
0), which slows that shard to about half speed. Each round builds once quietly and once
contended; the median of the per-round ratios is printed (1.0 would mean the contention cost
nothing; about 2.0 that the build waited for the slowed process throughout).

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
    """The child processes of ``pid`` that run its interpreter (pool workers, not e.g. a
    ``git`` the command runs to read a source's version)."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:  # it has ended
        return []
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
                if (
                    int(stat.rsplit(")", 1)[1].split()[1]) == pid
                    and os.readlink(f"/proc/{entry}/exe") == exe
                ):
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
        # The pool's workers are the command's child processes: they exist only once the
        # command has decided its jobs (it counts the cores it may use), so pin them then.
        while proc.poll() is None and time.perf_counter() - t0 < 30.0:
            kids = _children(proc.pid)
            if kids:
                os.sched_setaffinity(proc.pid, {0})
                for kid in kids:
                    os.sched_setaffinity(kid, {1})
                pinned = True
                break
            time.sleep(0.005)
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
                raise SystemExit("the build started no pool worker to pin (one process only?)")
            quiet_times.append(quiet)
            ratios.append(loaded / quiet)
            print(f"round {r + 1}: quiet {quiet:.2f} s, one core busy {loaded:.2f} s", flush=True)
    print(
        f"whole suite of EWT, the pool worker on a core shared with a busy loop: "
        f"{statistics.median(ratios):.2f}x the quiet build "
        f"[{min(ratios):.2f}-{max(ratios):.2f}] (quiet: {statistics.median(quiet_times):.2f} s)"
    )


if __name__ == "__main__":
    main()
