"""Interleaved A/B of the whole-suite EWT build (``polyprobe build ud ... --sizes 10k``), each
build divided by its own round's bare ``conllu`` pass, median and range over the rounds.

What it compares, in one run:

* this checkout's build, as a user runs it;
* with ``--against DIR``: the build of another checkout (e.g. ``git worktree add /tmp/old
  <commit>``), to report a change's before/after ratio;
* with ``--settings``: this checkout's build with one process setting at a time injected into
  the command's process (and, as the workers are forked, into them), to decide whether a trick
  pays the 5% of a real workload it must pay to stay in the code: ``gc`` (no automatic full
  garbage collections), ``exit`` (``os._exit`` without the interpreter's teardown), ``pandas``
  (pandas hidden from pyarrow's optional import), and ``all`` three together.

``--together`` (with ``--against``): each round starts this checkout's build and the other's at
the same moment and reports the ratio of their CPU seconds (this / other), round by round. On
a machine that other work shares, CPU seconds of runs minutes apart move by ±5-15% with the
load (the two runs of a pair see the same load), so a change of a few percent shows only this
way; wall-clock ratios mean nothing in this mode.

Run: ``python bench/build_ab.py [--rounds 5] [--against DIR] [--together]
[--settings gc,exit,pandas,all] [--jobs N]``. The session that removed those three tricks measured (5 rounds): the old
home-made runner with all tricks 1.87x, the pool 1.83x, +gc 1.84x, +exit 1.82x, +pandas 1.80x.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _data import arguments

_BARE = (
    "import conllu,gzip,sys\n"
    "for f in sys.argv[1:]:\n"
    "    fh = gzip.open(f,'rt',encoding='utf-8') if f.endswith('.gz') else open(f,encoding='utf-8')\n"
    "    for s in conllu.parse_incr(fh): pass\n"
)
_TIMED = (
    "import resource,subprocess,sys,time;t=time.perf_counter();"
    "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
    "w=time.perf_counter()-t;r=resource.getrusage(resource.RUSAGE_CHILDREN);"
    "print(w,r.ru_utime+r.ru_stime,r.ru_maxrss)"
)
_RUN = "import sys; from polyprobe.cli import main; code = main(sys.argv[1:]); "
_SETTINGS = {
    "gc": "import gc; gc.set_threshold(700, 10, 1 << 30); ",
    "pandas": (
        "import sys\n"
        "class _NoPandas:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'pandas' or name.startswith('pandas.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _NoPandas())\n"
    ),
}
_EXIT = "sys.stdout.flush(); sys.stderr.flush(); import os; os._exit(code)"


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    out = subprocess.run(
        [sys.executable, "-c", _TIMED, *cmd], check=True, capture_output=True, text=True, env=env
    )
    wall, cpu, peak = out.stdout.split()
    return float(wall), float(cpu), int(peak)


def _program(settings: list[str]) -> str:
    head = "".join(_SETTINGS[s] for s in settings if s in _SETTINGS)
    tail = _EXIT if "exit" in settings else "sys.exit(code)"
    return head + _RUN + tail


def main() -> None:
    ap = arguments()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    ap.add_argument("--settings", default="", help="comma-separated: gc, exit, pandas, all")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument(
        "--together",
        action="store_true",
        help="with --against: start both builds at once each round, compare CPU seconds",
    )
    args = ap.parse_args()
    tb = args.data / "ud" / "UD_English-EWT"
    files = sorted(str(p) for p in tb.iterdir() if "-ud-" in p.name and ".conllu" in p.name)
    build = ["build", "ud", str(tb), "--lang", "en", "--sizes", "10k", "--overwrite", "--quiet"]
    if args.jobs is not None:
        build += ["--jobs", str(args.jobs)]
    variants: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "this checkout": ([sys.executable, "-m", "polyprobe"], None)
    }
    if args.against is not None:
        env = dict(os.environ, PYTHONPATH=str(args.against.resolve()))
        variants[f"against {args.against}"] = ([sys.executable, "-m", "polyprobe"], env)
    for setting in [s.strip() for s in args.settings.split(",") if s.strip()]:
        chosen = ["gc", "exit", "pandas"] if setting == "all" else [setting]
        variants[f"+ {setting}"] = ([sys.executable, "-c", _program(chosen)], None)
    if args.together:
        if args.against is None or len(variants) != 2:
            ap.error("--together compares this checkout with --against, without --settings")
        together(build, list(variants.values()), args.rounds)
        return
    results: dict[str, list[tuple[float, float, int]]] = {k: [] for k in variants}
    bares: list[float] = []
    with tempfile.TemporaryDirectory(prefix="polyprobe-ab-") as tmp:
        for _ in range(args.rounds):
            wall_bare, cpu_bare, _ = _timed([sys.executable, "-c", _BARE, *files])
            bares.append(wall_bare)
            for i, (name, (cmd, env)) in enumerate(variants.items()):
                wall, cpu, peak = _timed([*cmd, *build, "--out", f"{tmp}/v{i}"], env)
                results[name].append((wall / wall_bare, cpu / cpu_bare, peak))
    print(
        f"EWT whole suite, {args.rounds} interleaved rounds, each build / its round's bare "
        f"conllu pass (median {statistics.median(bares):.2f} s): median [min-max]"
    )
    for name, rows in results.items():
        walls = sorted(r[0] for r in rows)
        print(
            f"  {name:28} {statistics.median(walls):.2f}x wall [{walls[0]:.2f}-{walls[-1]:.2f}]"
            f"  {statistics.median(r[1] for r in rows):.2f}x CPU"
            f"  peak RSS {max(r[2] for r in rows) / 1024:.0f} MB"
        )


def together(
    build: list[str], variants: list[tuple[list[str], dict[str, str] | None]], rounds: int
) -> None:
    """Each round, both builds started at once; their CPU seconds and the ratio."""
    ratios = []
    with tempfile.TemporaryDirectory(prefix="polyprobe-ab-") as tmp:
        for r in range(rounds):
            procs = [
                subprocess.Popen(
                    [sys.executable, "-c", _TIMED, *cmd, *build, "--out", f"{tmp}/v{i}"],
                    stdout=subprocess.PIPE,
                    text=True,
                    env=env,
                )
                for i, (cmd, env) in enumerate(variants)
            ]
            cpu = [float(p.communicate()[0].split()[1]) for p in procs]
            if any(p.returncode for p in procs):
                raise SystemExit("a build failed")
            ratios.append(cpu[0] / cpu[1])
            print(
                f"round {r + 1}: this {cpu[0]:.1f} CPU-s, other {cpu[1]:.1f} CPU-s, "
                f"ratio {ratios[-1]:.3f} (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    print(
        f"CPU this / other, {rounds} rounds started together: median "
        f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]"
    )


if __name__ == "__main__":
    main()
