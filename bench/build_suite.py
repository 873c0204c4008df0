"""A shipped suite built into one folder (``polyprobe suite build``) against its members built
alone, each into its own folder, one after the other; every figure a ratio within this run.

Per round, interleaved (A B C, A B C, ...):

* **A**: ``polyprobe suite build NAME --data DIR --out X`` as a process;
* **B**: each member alone in a process of its own, sequentially (what ``polyprobe build
  <family> ...`` per member does: ``--member NAME`` of this script builds the manifest's
  member with :func:`polyprobe.builders.build.build`, its config as the suite reads it, into
  its own folder); B's figures are the sum over the member processes (peak RSS: the largest);
* **C**: every member alone, into its own folder, one after the other in **one** process
  (``--separate-only --in-process``): B without the per-member process start-up.

Each round prints A/B and A/C (wall and CPU: user + system of the process and all its
workers); the median and the range over the rounds follow, with each member's median share
of B, and the suite folder's size against the sum of the separate folders'. Both sides run
from bytecode (as ``bench/build_ud.py``: under ``PYTHONDONTWRITEBYTECODE=1`` each member
process would otherwise compile polyprobe's sources again, a cost no installed copy pays).

``--separate-only --out DIR`` builds B (or, with ``--in-process``, C) once into
``DIR/<member>`` and exits: the B command of a paired A/B timing from outside.

Run: ``python bench/build_suite.py [--suite fi] [--rounds 5] [--data DIR]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _data import REPO, arguments

_TIMED = (
    "import resource,subprocess,sys,time;t=time.perf_counter();"
    "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
    "w=time.perf_counter()-t;r=resource.getrusage(resource.RUSAGE_CHILDREN);"
    "print(w,r.ru_utime+r.ru_stime,r.ru_maxrss)"
)
_SCRIPT = str(Path(__file__).resolve())


def _timed(cmd: list[str]) -> tuple[float, float, int]:
    """Wall time, CPU time (the process and every worker it waited for) and the peak RSS (kB)
    of its largest process, measured by a wrapper process of its own."""
    out = subprocess.run(
        [sys.executable, "-c", _TIMED, *cmd], check=True, capture_output=True, text=True
    )
    wall, cpu, peak = out.stdout.split()
    return float(wall), float(cpu), int(peak)


def _compile_polyprobe() -> None:
    import polyprobe

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(polyprobe.__file__).parent)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _suite(name: str, data: Path):
    from polyprobe.builders.manifest import read_manifest, shipped_manifest

    path = shipped_manifest(name)
    if path is None:
        raise SystemExit(f"no shipped suite {name!r}")
    return read_manifest(path, data)


def _member_names(name: str) -> list[str]:
    """The shipped manifest's member names, in its order, read without importing polyprobe
    (so the process that starts B's member processes costs an interpreter, no more)."""
    import tomllib

    path = REPO / "polyprobe" / "suites" / f"{name}.toml"
    if not path.is_file():
        raise SystemExit(f"no shipped suite {name!r}")
    return list(tomllib.loads(path.read_text(encoding="utf-8")).get("members", {}))


def build_members(name: str, data: Path, out: Path, only: str | None = None) -> None:
    """Each member of the suite (or the one named ``only``) built alone into ``out/<member>``,
    its config as the suite reads it, with ``out`` set."""
    import dataclasses

    from polyprobe.builders.build import build

    members = _suite(name, data).members
    chosen = [m for m in members if only is None or m.name == only]
    if not chosen:
        raise SystemExit(f"suite {name!r} has no member {only!r}")
    for m in chosen:
        config = dataclasses.replace(m.config, out=out / m.name, overwrite=True)
        build(m.family, config)


def _size(folder: Path) -> tuple[int, int]:
    """Bytes and files under ``folder``."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _spread(values: list[float]) -> str:
    v = sorted(values)
    return f"{statistics.median(v):.2f}x [{v[0]:.2f}-{v[-1]:.2f}]"


def compare(name: str, data: Path, rounds: int) -> None:
    _compile_polyprobe()
    members = _member_names(name)
    given = ["--suite", name, "--data", str(data)]
    ratios: dict[str, list[tuple[float, float]]] = {"A/B": [], "A/C": []}
    walls: dict[str, list[float]] = {"A": [], "B": [], "C": []}
    peaks: dict[str, int] = {"A": 0, "B": 0, "C": 0}
    shares: dict[str, list[float]] = {m: [] for m in members}
    with tempfile.TemporaryDirectory(prefix="polyprobe-suite-") as d:
        tmp = Path(d)
        suite_cmd = [sys.executable, "-m", "polyprobe", "suite", "build", name]
        suite_cmd += ["--data", str(data), "--out", str(tmp / "suite"), "--overwrite", "--quiet"]
        in_process = [sys.executable, _SCRIPT, *given, "--separate-only", "--in-process"]
        in_process += ["--out", str(tmp / "together")]
        for r in range(rounds):
            a = _timed(suite_cmd)
            each = {
                m: _timed(
                    [sys.executable, _SCRIPT, *given, "--member", m, "--out", str(tmp / "alone")]
                )
                for m in members
            }
            b = (
                sum(w for w, _, _ in each.values()),
                sum(c for _, c, _ in each.values()),
                max(p for _, _, p in each.values()),
            )
            c = _timed(in_process)
            for m, (w, _, _) in each.items():
                shares[m].append(w / b[0])
            for key, run in (("A", a), ("B", b), ("C", c)):
                walls[key].append(run[0])
                peaks[key] = max(peaks[key], run[2])
            ratios["A/B"].append((a[0] / b[0], a[1] / b[1]))
            ratios["A/C"].append((a[0] / c[0], a[1] / c[1]))
            print(
                f"round {r + 1}: A {a[0]:.1f} s wall {a[1]:.1f} CPU-s, B {b[0]:.1f} s "
                f"{b[1]:.1f} CPU-s, C {c[0]:.1f} s {c[1]:.1f} CPU-s; A/B {a[0] / b[0]:.2f} wall "
                f"{a[1] / b[1]:.2f} CPU, A/C {a[0] / c[0]:.2f} wall {a[1] / c[1]:.2f} CPU "
                f"(load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
        suite_size = _size(tmp / "suite")
        alone = [_size(tmp / "alone" / m) for m in members]
    print(
        f"suite {name!r} ({len(members)} members: {', '.join(members)}), {rounds} interleaved "
        "rounds, median [min-max]:"
    )
    for key, label in (
        ("A", "A: polyprobe suite build, one folder"),
        ("B", "B: each member alone, a process each"),
        ("C", "C: each member alone, one process"),
    ):
        w = sorted(walls[key])
        print(
            f"  {label:40} {statistics.median(w):6.1f} s wall [{w[0]:.1f}-{w[-1]:.1f}]"
            f"  peak RSS {peaks[key] / 1024:.0f} MB (largest process)"
        )
    for key, rows in ratios.items():
        print(f"  {key}: {_spread([w for w, _ in rows])} wall, {_spread([c for _, c in rows])} CPU")
    print(
        "  B's wall by member (median share): "
        + ", ".join(f"{m} {statistics.median(v):.0%}" for m, v in shares.items())
    )
    total = sum(b for b, _ in alone), sum(n for _, n in alone)
    print(
        f"output: the suite folder {suite_size[0] / 2**20:.2f} MB in {suite_size[1]} files; "
        f"the separate folders {total[0] / 2**20:.2f} MB in {total[1]} files "
        f"(ratio {suite_size[0] / total[0]:.3f}); by member: "
        + ", ".join(f"{m} {b / 2**20:.2f} MB" for m, (b, _) in zip(members, alone, strict=True))
    )


def main() -> None:
    ap = arguments()
    ap.add_argument("--suite", default="fi", help="a shipped suite (polyprobe/suites/NAME.toml)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    ap.add_argument(
        "--separate-only",
        action="store_true",
        help="build each member alone into OUT/<member>, one after the other, and exit",
    )
    ap.add_argument(
        "--in-process",
        action="store_true",
        help="with --separate-only: all members in this process (default: a process each)",
    )
    ap.add_argument("--member", default=None, help="build only this member into OUT/<member>")
    ap.add_argument("--out", type=Path, default=None, help="with --separate-only or --member")
    args = ap.parse_args()
    if args.member is not None or args.separate_only:
        if args.out is None:
            ap.error("--separate-only and --member need --out DIR")
        if args.member is not None or args.in_process:
            build_members(args.suite, args.data, args.out, args.member)
            return
        for m in _member_names(args.suite):
            subprocess.run(
                [sys.executable, _SCRIPT, "--suite", args.suite, "--data", str(args.data)]
                + ["--member", m, "--out", str(args.out)],
                check=True,
            )
        return
    compare(args.suite, args.data, max(1, args.rounds))


if __name__ == "__main__":
    main()
