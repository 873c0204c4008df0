"""Benchmark of the UD build path, every figure a ratio measured in this one run.

1. reader throughput: polyprobe's CoNLL-U reader vs ``conllu.parse_incr`` over EWT (all files);
2. the whole ``polyprobe build ud`` of EWT as a process vs one bare ``conllu.parse_incr`` pass as a
   process (start-up included in both, both from compiled bytecode), wall time and CPU time
   (all workers), with the default ``--jobs`` and, for comparison, with one process; the
   targets (≤ 1.5× for the three platform tasks, ≤ 2× for the whole suite) are for the
   command as a user runs it, in wall time. ``--rounds`` (default 5) interleaved rounds, each
   build divided by the bare pass run just before it, median printed;
3. peak RSS per candidate while building from EWT repeated to ≥ 200 MB with fresh sent_ids
   (target: the reader streams in constant memory and the variant engine keeps ≤ 64 bytes per
   candidate, re-reading the inputs to write rows): peak RSS at ~200 and ~400 MB, the slope
   between them (bytes per extra candidate) and the constant working set, with ``--jobs 1``
   (with N workers each holds only its own tasks' columns). At ~100 MB the peak can still
   fall in a constant phase of the build (one row group taken and encoded), which bends a
   two-point line, so the smaller point is 200 MB. Skip with ``--no-memory`` (it takes a
   couple of minutes).

Run: ``python bench/build_ud.py [--data ../shared/data] [--no-memory] [--rounds 5]``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _data import arguments


def _ewt(data: Path) -> Path:
    return data / "ud" / "UD_English-EWT"


def _files(tb: Path) -> list[Path]:
    return sorted(
        p for p in tb.iterdir() if re.search(r"-ud-(train|dev|test)\.conllu(\.gz)?$", p.name)
    )


def _open(p: Path):
    return gzip.open(p, "rt", encoding="utf-8") if p.suffix == ".gz" else open(p, encoding="utf-8")


def reader_throughput(tb: Path) -> None:
    import conllu

    from polyprobe.loaders.conllu import read_conllu

    files = _files(tb)
    t = time.perf_counter()
    n_ref = tok_ref = 0
    for f in files:
        with _open(f) as fh:
            for s in conllu.parse_incr(fh):
                n_ref += 1
                tok_ref += len(s)
    t_ref = time.perf_counter() - t
    t = time.perf_counter()
    n = tok = 0
    for f in files:
        for s in read_conllu(f):
            n += 1
            tok += len(s.words) + len(s.multiword) + len(s.empty)
            # touch what a task touches, so lazy parsing cannot flatter the figure
            for w in s.words:
                w.feats.get("Number")
                w.misc.get("SpaceAfter")
    t_ours = time.perf_counter() - t
    assert n == n_ref, (n, n_ref)
    print(f"reader: {n} sentences, {tok} token lines")
    print(f"  conllu.parse_incr  {t_ref:7.2f} s  {n_ref / t_ref:9.0f} sent/s")
    print(f"  polyprobe reader   {t_ours:7.2f} s  {n / t_ours:9.0f} sent/s")
    print(f"  speed-up: {t_ref / t_ours:.1f}x (target >= 5x)")


def _timed(cmd: list[str]) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system of the process and all its workers) and the peak
    RSS (kB) of its largest process, measured by a wrapper process so that earlier runs'
    peaks do not count."""
    code = (
        "import resource,subprocess,sys,time;"
        "t=time.perf_counter();"
        "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL);"
        "w=time.perf_counter()-t;"
        "r=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(w,r.ru_utime+r.ru_stime,r.ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], check=True, capture_output=True, text=True
    )
    wall, cpu, peak = out.stdout.split()
    return float(wall), float(cpu), int(peak)


def _peak_rss_kb(cmd: list[str]) -> int:
    code = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], check=True, capture_output=True, text=True
    )
    return int(out.stdout.strip())


def _compile_polyprobe() -> None:
    """Both sides of the comparison run from bytecode, as an installed package does: pip
    compiles ``conllu`` at install time, but an editable checkout under
    ``PYTHONDONTWRITEBYTECODE=1`` (these machines set it) would compile polyprobe's sources in
    every build process, about 0.1 s each that no installed copy pays."""
    import polyprobe

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(polyprobe.__file__).parent)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def whole_build(tb: Path, tmp: Path, rounds: int) -> None:
    """Each round times every build right after a bare pass of its own, and divides the build
    by that pass: on a machine whose speed drifts (shared VMs do, by a third within a minute)
    a ratio of two runs minutes apart measures the drift, and so, more weakly, does one of a
    build with a bare pass four builds earlier (what each round did until stop 30: one bare
    pass, then the four builds). The median over the rounds is printed, with the range."""
    _compile_polyprobe()
    bare = (
        "import conllu,gzip,sys\n"
        "for f in sys.argv[1:]:\n"
        "    fh = gzip.open(f,'rt',encoding='utf-8') if f.endswith('.gz') else open(f,encoding='utf-8')\n"
        "    for s in conllu.parse_incr(fh): pass\n"
    )
    files = [str(f) for f in _files(tb)]
    base = [
        *(sys.executable, "-m", "polyprobe", "build", "ud", str(tb), "--lang", "en"),
        *("--sizes", "10k", "--overwrite", "--quiet"),
    ]
    platform = ["--tasks", "sentence_length,bigram_shift,subject_number"]
    # The targets are for the command as a user runs it (default --jobs), in wall time: the
    # time the user waits. One process and CPU time (all workers) are printed beside it.
    runs: list[tuple[str, list[str], list[str], float | None]] = [
        ("3 platform tasks", platform, [], 1.5),
        ("3 platform tasks, --jobs 1", platform, ["--jobs", "1"], None),
        ("whole suite", [], [], 2.0),
        ("whole suite, --jobs 1", [], ["--jobs", "1"], None),
    ]
    bare_times: list[tuple[float, float]] = []
    results: list[list[tuple[float, float, int]]] = [[] for _ in runs]
    for _ in range(rounds):
        for i, (_, tasks, jobs, _) in enumerate(runs):
            t_bare, c_bare, _ = _timed([sys.executable, "-c", bare, *files])
            bare_times.append((t_bare, c_bare))
            wall, cpu, peak = _timed([*base, *tasks, *jobs, "--out", str(tmp / f"ewt{i}")])
            results[i].append((wall / t_bare, cpu / c_bare, peak))
    print(
        "whole build of EWT (natural+balanced, full+10k) as a process, start-up included; "
        f"{rounds} rounds, each build divided by the bare pass run just before it "
        "(median [min-max]);"
    )
    print(
        "default --jobs: one worker per core when the tasks are worth it (this machine:",
        os.cpu_count(),
        "cores):",
    )
    walls = sorted(w for w, _ in bare_times)
    print(
        f"  {'bare conllu.parse_incr pass':44} {statistics.median(walls):6.2f} s wall"
        f" [{walls[0]:.2f}-{walls[-1]:.2f}]"
    )
    for (label, _, _, target), res in zip(runs, results, strict=True):
        ratios = sorted(r for r, _, _ in res)
        wall = statistics.median(ratios)
        cpu = statistics.median(c for _, c, _ in res)
        peak = max(p for _, _, p in res)
        verdict = (
            f"target <= {target}x wall: {'met' if wall <= target else 'NOT met'}"
            if target is not None
            else "for comparison"
        )
        print(
            f"  {'polyprobe build ud, ' + label:44} {wall:.2f}x wall [{ratios[0]:.2f}-"
            f"{ratios[-1]:.2f}], {cpu:.2f}x CPU ({verdict}); peak RSS {peak / 1024:.0f} MB"
            " (largest process)"
        )


def _repeated_treebank(tb: Path, folder: Path, target_mb: int) -> tuple[int, int]:
    """EWT (all files) repeated with fresh sent_ids until the file reaches ``target_mb``."""
    folder.mkdir()
    text = "".join(_open(f).read() for f in _files(tb))
    size = rep = 0
    with open(folder / "en_ewtx-ud-train.conllu", "w", encoding="utf-8") as fh:
        while size < target_mb * 1024 * 1024:
            chunk = re.sub(r"^# sent_id = (.*)$", rf"# sent_id = \1-r{rep}", text, flags=re.M)
            fh.write(chunk)
            size += len(chunk.encode("utf-8"))
            rep += 1
    return rep, size


def _build_peak(folder: Path, out: Path) -> tuple[int, int, float]:
    """Peak RSS (kB), candidates and wall time of a platform-task build as a process."""
    cmd = [
        *(sys.executable, "-m", "polyprobe", "build", "ud", str(folder), "--lang", "en"),
        *("--split", "ratio:80/10/10", "--out", str(out), "--quiet"),
        *("--tasks", "sentence_length,bigram_shift,subject_number"),
        *("--jobs", "1"),  # one process: its peak is the build's whole memory
    ]
    t = time.perf_counter()
    peak = _peak_rss_kb(cmd)
    wall = time.perf_counter() - t
    report = json.loads((out / "report.json").read_text())
    return peak, sum(v["candidates"] for v in report.values()), wall


def memory(tb: Path, tmp: Path, sizes_mb: tuple[int, int] = (200, 400)) -> None:
    """Peak RSS of a 3-task build at two corpus sizes, as a line: ``peak = baseline +
    intercept + slope × candidates``. The slope is what each extra candidate costs (target
    ≤ 64 bytes: ~27 bytes of engine columns for the task being written, its variant indices,
    4 bytes per sentence); the intercept is the constant working set above the import
    baseline (Arrow and task state, one 100k-row group being taken, encoded and read back,
    allocator slack). Peak RSS varies by a few MB between identical runs, so the slope's
    resolution is printed too."""
    base = _peak_rss_kb(
        [
            sys.executable,
            "-c",
            "import polyprobe.builders.families.ud, polyprobe.cards.folder, polyprobe.loaders.conllu",
        ]
    )
    points = []
    for mb in sizes_mb:
        rep, size = _repeated_treebank(tb, tmp / f"UD_English-EWTx{mb}", mb)
        peak, cands, wall = _build_peak(tmp / f"UD_English-EWTx{mb}", tmp / f"big{mb}")
        points.append((peak, cands))
        print(
            f"memory: EWT x{rep} = {size / 2**20:.0f} MB: {cands} candidates, {wall:.1f} s, "
            f"peak RSS {peak / 1024:.0f} MB (import baseline {base / 1024:.0f} MB), "
            f"(peak - baseline) / candidate = {(peak - base) * 1024 / cands:.0f} bytes"
        )
    (p1, c1), (p2, c2) = points
    slope = (p2 - p1) * 1024 / (c2 - c1)  # bytes per candidate
    intercept = (p1 - base) / 1024 - slope * c1 / 2**20  # MB above the baseline
    print(
        f"  marginal peak RSS per extra candidate: {slope:.1f} bytes (target: <= 64; "
        f"1 MB of run-to-run peak noise is {2**20 / (c2 - c1):.1f} bytes)"
    )
    print(
        f"  constant working set above the import baseline: {intercept:.0f} MB "
        f"(peak = {base / 1024:.0f} MB + {intercept:.0f} MB + {slope:.1f} B x candidates)"
    )


def main() -> None:
    ap = arguments()
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    args = ap.parse_args()
    tb = _ewt(args.data)
    reader_throughput(tb)
    with tempfile.TemporaryDirectory() as d:
        whole_build(tb, Path(d), max(1, args.rounds))
        if not args.no_memory:
            memory(tb, Path(d))


if __name__ == "__main__":
    main()
