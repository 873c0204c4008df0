"""Benchmark of the dump path of ``build wiki``, every figure measured in this one run and
reported so that it means something on a loaded 2-core machine.

Synthetic dumps are made at run time in a temp folder (never committed): the shared English
excerpt's pages repeated N times, every copy's page and revision ids made fresh, bz2.
Each step then runs in a fresh process (so that its peak memory is its own):

1. bare bz2 decompression of the ×``--repeat`` dump (the floor, ≈ 22 MB/s on an idle core);
2. the input-shard stage (read, clean, split, tokenise, write the tables: the build's whole
   per-page cost) with 1 worker, 1 shard: MB of XML per **CPU-second** (target ≥ 3 MB/s per
   core) beside MB per wall second. CPU time is far less inflated by load than wall time
   (other processes take wall time, not our CPU time), but on a shared 2-core VM it still
   varies by ±10-20 % between the steps of one run (caches, memory bandwidth, sibling
   threads): compare versions by running their benches side by side, not one after another;
3. the same with 2 workers and 2 shards. Two figures: the **CPU-time scaling**
   ``2 × CPU(1 worker) / CPU(2 workers, summed)``, the speed-up two idle cores would give
   (below 2 by the work a second shard repeats: each shard decompresses and parses the whole
   dump to find its blocks, starts its own tokenizer and learns its own vocabulary), and the
   **wall ratio** ``wall(1) / wall(2)``, what this machine gave under its load (printed with
   the load averages); target ≥ 1.8×. The loss is split in two by running the same 2 shards
   in 1 worker: the second shard's own work, and what two workers running side by side cost
   each other (shared caches and memory bandwidth: CPU time grows when cores are shared);
4. peak RSS of one worker at ×10 and ×20 (``--memory-repeats``): the worker runs shard 0 of
   N for a ×N dump, so it decompresses and parses the *whole* dump (60 / 120 MB of XML) but
   cleans and tokenises a similar share (3 blocks of 100 pages: 100-150 articles) (the stage's cost is per
   page; the whole ×20 in one worker would take minutes). Target: equal peaks, i.e. memory
   independent of the dump's size. Repetition cannot show growth by *vocabulary* (every copy
   has the same words): that is bounded by renewing the tokenizer every ``VOCAB_RENEWAL`` new words
   (:mod:`polyprobe.loaders.segmentation`), tested in ``tests/test_segmentation_vocab.py``;
5. ``--executor datatrove-local`` vs local on (3): same tables, overhead (when installed);
6. the whole ``build wiki --jobs 1`` on the same dump (every task, card, folder): MB of XML
   per CPU-second **end to end**, and the shard stage's share of it. The stage is what the
   target was set for, but it is not the build: the two passes over the tables (records,
   every task's observations and candidates, the spools) and the assembly cost the rest
   (stop 25: at ×10 the stage was a quarter of the build's CPU).

Run: ``python bench/build_wiki.py [--data ../shared/data] [--repeat 2]
[--memory-repeats 10,20]`` (about 4 minutes on a loaded 2-core machine).

``--scale 1,5,10`` runs only the shares issue 39 asks for: per ×N dump a whole build with a
shard cache, then the same build again on that cache (everything after the stage: the final
step on one machine), in fresh processes with their own ``TMPDIR`` sampled for its peak size;
printed as a table (CPU shares, the final step's peak RSS, temp peak against XML and output).

``--against ../main [--rounds 2]`` runs only an interleaved A/B of the whole
``build wiki --jobs 1`` (this checkout against another) on the ×``--repeat`` dump: each round
and tree a cold build (the shard stage included) and a warm one reusing its tables
(``--shard-cache``: everything after the stage), CPU seconds of each, their medians as MB of
XML per CPU-second, and whether both trees wrote the same bytes (×10: ~8 minutes a round).
"""

from __future__ import annotations

import bz2
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _data import REPO, arguments

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"

_STAGE = r"""
import json, resource, sys, time
sys.path.insert(0, {repo!r})
from pathlib import Path
from polyprobe.builders.records.shards import plan_shards, tokenize_shard
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikisource import WikiDumpSource
from polyprobe.runtime.inputs import run_inputs
dump, folder, workers, shards = Path({dump!r}), Path({folder!r}), {workers}, {shards}
only = {only!r}
executor = {executor!r}
segmenter = Segmenter("en")
source = WikiDumpSource(dump, segmenter)
tasks = plan_shards([source], segmenter, shards, folder)[0]
if only is not None:
    tasks = [tasks[only]]
t0, c0 = time.perf_counter(), time.process_time()
run_inputs(tokenize_shard, tasks, workers=workers, executor=executor,
           logging_dir=folder / "logs")
wall = time.perf_counter() - t0
self_cpu = time.process_time() - c0
import hashlib
digest = hashlib.sha256(b"".join(Path(t.out).read_bytes() for t in tasks)).hexdigest()
pages = sum(json.loads(Path(t.out + ".json").read_text())["pages"].get("articles", 0)
            for t in tasks)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
me = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"wall": wall, "cpu": self_cpu + kids.ru_utime + kids.ru_stime,
    "rss_self_kb": me.ru_maxrss, "rss_children_kb": kids.ru_maxrss, "digest": digest,
    "articles": pages}}))
"""

_BARE = r"""
import bz2, json, sys, time
t0, c0 = time.perf_counter(), time.process_time(); n = 0
with bz2.open({dump!r}, "rb") as f:
    while chunk := f.read(1 << 20):
        n += len(chunk)
print(json.dumps({{"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                   "bytes": n}}))
"""


def synthetic_dump(source: Path, repeat: int, out: Path) -> int:
    """The excerpt's pages ``repeat`` times, bz2; every copy after the first gets fresh page
    and revision ids (``<id>`` → ``<id>{copy}0000``). Returns the XML's size in bytes."""
    xml = bz2.open(source).read().decode("utf-8")
    head, _, rest = xml.partition("<page>")
    body, _, _ = ("<page>" + rest).rpartition("</mediawiki>")
    total = 0
    with bz2.open(out, "wb", compresslevel=1) as f:
        for r in range(repeat):
            data = (head if r == 0 else "") + (
                body if r == 0 else body.replace("<id>", f"<id>{r}0000")
            )
            chunk = data.encode()
            f.write(chunk)
            total += len(chunk)
        f.write(b"</mediawiki>\n")
    return total + 13


_BUILD = r"""
import json, os, resource, subprocess, sys
env = {{**os.environ, "PYTHONPATH": {repo!r}, "HF_HUB_OFFLINE": "1"}}
cache = {cache!r}
code = subprocess.run([sys.executable, "-m", "polyprobe", "build", "wiki", {dump!r}, "--lang",
    "en", "--out", {out!r}, "--jobs", "1", "--quiet"]
    + ([] if cache is None else ["--shard-cache", cache]), env=env, capture_output=True).returncode
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"cpu": kids.ru_utime + kids.ru_stime, "rc": code,
                   "rss_kb": kids.ru_maxrss}}))
"""


def whole_build(
    dump: Path, repo: Path = REPO, cache: Path | None = None, out: Path | None = None
) -> dict:
    """``build wiki --jobs 1`` of ``dump`` with the code of ``repo`` (this checkout by
    default): its CPU seconds and peak RSS. With ``cache`` (``--shard-cache``) a second build
    reuses the first's tables, so it measures everything but the shard stage; with ``out``
    the folder is kept (for a byte comparison)."""
    with tempfile.TemporaryDirectory() as folder:
        result = run(
            _BUILD.format(
                repo=str(repo),
                dump=str(dump),
                out=str(out or Path(folder) / "out"),
                cache=None if cache is None else str(cache),
            )
        )
    if result["rc"] != 0:
        raise SystemExit(f"build wiki ({repo}) failed on {dump} (exit {result['rc']})")
    return result


_NODES = r"""
# One build wiki in this process whose executor runs (the shard stage and, after it, the
# observe and candidate passes on record ranges) go to a pool of child processes standing
# in for the cluster's nodes: this process's own CPU and peak RSS are then the one machine's.
import json, resource, sys
sys.path.insert(0, {repo!r})
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
import polyprobe.runtime.inputs as inputs
def on_nodes(function, items, **options):
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor({workers}, mp_context=context) as nodes:
        list(nodes.map(function, items))
inputs.run_inputs = on_nodes
if __name__ == "__main__":
    from polyprobe.cli import main
    sys.argv = ["polyprobe", *sys.argv[2:]]
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code or 0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open({stats!r}, "w") as f:
        json.dump({{"self": me.ru_utime + me.ru_stime, "nodes": kids.ru_utime + kids.ru_stime,
                   "rss_kb": me.ru_maxrss, "rc": code}}, f)
"""

_SCALED = r"""
import glob, json, os, resource, subprocess, sys, threading, time
def size(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed while we looked
    return total
tmp, cache = {tmp!r}, {cache!r}
def scratch():  # the temp dir and the build's per-range passes beside the shard tables; not
    # the configs the write jobs put there (the output being written, moved into staging)
    passes = glob.glob(os.path.join(cache, "passes-*"))
    return size(tmp) + sum(size(p) - size(os.path.join(p, "written")) for p in passes)
env = {{**os.environ, "PYTHONPATH": {repo!r}, "HF_HUB_OFFLINE": "1", "TMPDIR": tmp}}
peak, done = [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], scratch())
        time.sleep(0.1)
watcher = threading.Thread(target=sample, daemon=True)
watcher.start()
argv = ["build", "wiki", {dump!r}, "--lang", "en", "--out", {out!r}, "--jobs", "1", "--quiet",
        "--overwrite", "--shard-cache", cache] + {extra!r}
command = [sys.executable, {script!r}, "-"] + argv if {script!r} else [
    sys.executable, "-m", "polyprobe"] + argv
code = subprocess.run(command, env=env, capture_output=True).returncode
done.set()
watcher.join()
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
result = {{"cpu": kids.ru_utime + kids.ru_stime, "rc": code, "rss_kb": kids.ru_maxrss,
          "tmp_peak": max(peak[0], scratch()), "out_bytes": size({out!r}),
          "cache_bytes": size(cache)}}
if {script!r}:
    with open({stats!r}) as f:
        result.update(json.load(f))
print(json.dumps(result))
"""


def scaled_build(dump: Path, folder: Path, cache: Path, nodes: int = 0) -> dict:
    """One ``build wiki --jobs 1 --shard-cache CACHE`` in a fresh process with its own
    ``TMPDIR`` (sampled every 0.1 s for its peak size, with the passes' folder in the
    cache): CPU, peak RSS, temp-space peak, the output folder's and the shard cache's size.
    ``nodes``: the cluster-shaped build (``--executor datatrove-local --shards 4``, its
    executor runs in ``nodes`` child processes standing in for the nodes, :data:`_NODES`), whose
    one-machine CPU (``self``) and the nodes' (``nodes``) are told apart."""
    tmp = folder / "tmp"
    tmp.mkdir(exist_ok=True)
    script = ""
    stats = folder / "stats.json"
    if nodes:
        script = str(folder / "nodes.py")
        Path(script).write_text(_NODES.format(repo=str(REPO), stats=str(stats), workers=nodes))
    extra = ["--executor", "datatrove-local", "--shards", "4"] if nodes else []
    result = run(
        _SCALED.format(
            repo=str(REPO), tmp=str(tmp), dump=str(dump), out=str(folder / "out"),
            cache=str(cache), extra=extra, script=script, stats=str(stats),
        )  # fmt: skip
    )
    if result["rc"] != 0:
        raise SystemExit(f"build wiki failed on {dump} (exit {result['rc']})")
    return result


def scale(source: Path, repeats: list[int], nodes: int = 2) -> None:
    """Issue 39's shares at ×1 / ×5 / ×10. Per ×N dump: the local build (``--jobs 1``, cold:
    the whole CPU of today's design, and warm on its cache: everything after the stage, which
    ran on one machine whatever the executor), then the cluster-shaped build (its executor's
    runs on stand-in nodes): the one machine's share of its CPU, its peak RSS, its CPU
    against the local build's, the temp-space peak against the XML and the output, and
    whether both wrote the same bytes."""
    rows = []
    for n in repeats:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            dump = folder / f"en-x{n}.xml.bz2"
            mb = synthetic_dump(source, n, dump) / 1e6
            cold = scaled_build(dump, folder, folder / "shards")
            warm = scaled_build(dump, folder, folder / "shards")
            local = _files(folder / "out")
            spread = scaled_build(dump, folder, folder / "node-shards", nodes=nodes)
            rows.append((n, mb, cold, warm, spread, local == _files(folder / "out")))
            print(f"×{n} done ({mb:.0f} MB XML); {load()}", flush=True)
    print("before (local design: the passes on one machine whatever the executor):")
    print("| dump | XML MB | build CPU s | shard stage | final step | final step peak RSS MB "
          "| temp peak MB (× XML) | output MB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for n, mb, cold, warm, _, _ in rows:
        stage_cpu = cold["cpu"] - warm["cpu"]
        print(
            f"| ×{n} | {mb:.1f} | {cold['cpu']:.1f} | {stage_cpu / cold['cpu']:.0%} "
            f"| {warm['cpu'] / cold['cpu']:.0%} | {warm['rss_kb'] / 1024:.0f} "
            f"| {cold['tmp_peak'] / 1e6:.0f} ({cold['tmp_peak'] / 1e6 / mb:.1f}×) "
            f"| {cold['out_bytes'] / 1e6:.1f} |"
        )
    print("after (the executor runs the shard stage, the observe and candidate passes and the "
          "write jobs):")  # fmt: skip
    print("| dump | build CPU s (× local) | on the nodes | final step | final step peak RSS MB "
          "| temp peak MB (× XML, × output) | same bytes |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for n, mb, cold, _, spread, same in rows:
        total = spread["self"] + spread["nodes"]
        print(
            f"| ×{n} | {total:.1f} ({total / cold['cpu']:.2f}×) | {spread['nodes'] / total:.0%} "
            f"| {spread['self'] / total:.0%} | {spread['rss_kb'] / 1024:.0f} "
            f"| {spread['tmp_peak'] / 1e6:.0f} ({spread['tmp_peak'] / 1e6 / mb:.1f}×, "
            f"{spread['tmp_peak'] / spread['out_bytes']:.1f}×) | {same} |"
        )


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def against(dump: Path, mb: float, other: Path, rounds: int) -> None:
    """Interleaved A/B of the whole ``build wiki --jobs 1`` (this checkout against the one at
    ``other``, the order alternating by round): each round builds cold (shard stage
    included; its tables kept in a cache) then warm (the same cache: everything but the
    stage), per tree. Prints each run's CPU seconds, the medians, MB of XML per CPU-second
    end to end and after the stage, and whether the two trees wrote the same bytes."""
    import statistics

    trees = {"this": REPO, "other": other.resolve()}
    runs: dict[str, dict[str, list[float]]] = {t: {"cold": [], "warm": []} for t in trees}
    same = None
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for name in order:
                cache = Path(tmp) / f"cache-{name}-{r}"
                out = Path(tmp) / f"out-{name}"
                cold = whole_build(dump, trees[name], cache)
                warm = whole_build(dump, trees[name], cache, out if r == 0 else None)
                runs[name]["cold"].append(cold["cpu"])
                runs[name]["warm"].append(warm["cpu"])
                print(
                    f"round {r + 1} {name}: whole {cold['cpu']:.1f} s CPU (peak RSS "
                    f"{cold['rss_kb'] / 1024:.0f} MB), after the stage {warm['cpu']:.1f} s; "
                    f"{load()}",
                    flush=True,
                )
            if r == 0:
                same = _files(Path(tmp) / "out-this") == _files(Path(tmp) / "out-other")
    med = {t: {k: statistics.median(v) for k, v in runs[t].items()} for t in trees}
    for t in trees:
        print(
            f"{t} ({trees[t]}): median whole {med[t]['cold']:.1f} s CPU = "
            f"{mb / med[t]['cold']:.2f} MB XML per CPU-second end to end; after the stage "
            f"{med[t]['warm']:.1f} s ({mb / med[t]['warm']:.2f} MB/CPU-s); the stage "
            f"{med[t]['cold'] - med[t]['warm']:.1f} s"
        )
    print(
        f"this / other: whole {med['this']['cold'] / med['other']['cold']:.2f}×, after the "
        f"stage {med['this']['warm'] / med['other']['warm']:.2f}× (CPU); same bytes: {same}"
    )


def run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stage(
    dump: Path, workers: int, shards: int, executor: str = "local", only: int | None = None
) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return run(
            _STAGE.format(
                repo=str(REPO),
                dump=str(dump),
                folder=folder,
                workers=workers,
                shards=shards,
                executor=executor,
                only=only,
            )
        )


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = arguments()
    ap.add_argument("--repeat", type=int, default=2, help="copies in the throughput dump")
    ap.add_argument(
        "--memory-repeats",
        default="10,20",
        help="copies in the dumps of the memory points (comma-separated; '' skips them)",
    )
    ap.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout (e.g. main's): only an interleaved A/B of the whole build wiki "
        "--jobs 1 against it on the ×--repeat dump, cold and with the shard tables cached",
    )
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the --against A/B")
    ap.add_argument(
        "--scale",
        default="",
        help="only the shares of issue 39 at these copies (e.g. 1,5,10): shard stage vs final "
        "step CPU, the final step's peak RSS, temp-space peak vs XML and output size",
    )
    ap.add_argument(
        "--nodes",
        type=int,
        default=2,
        help="--scale: child processes standing in for the cluster's nodes (1: one at a "
        "time, so its CPU is not inflated by two processes sharing the machine)",
    )
    args = ap.parse_args()
    source = args.data / "wikipedia" / EN
    if args.scale:
        print(f"start: {load()}")
        scale(source, [int(x) for x in args.scale.split(",") if x.strip()], args.nodes)
        print(f"end: {load()}")
        return
    if args.against is not None:
        print(f"start: {load()}")
        with tempfile.TemporaryDirectory() as tmp:
            big = Path(tmp) / f"en-x{args.repeat}.xml.bz2"
            mb = synthetic_dump(source, args.repeat, big) / 1e6
            print(f"synthetic dump: ×{args.repeat}, {mb:.1f} MB XML", flush=True)
            against(big, mb, args.against, args.rounds)
        print(f"end: {load()}")
        return
    sizes = [int(x) for x in args.memory_repeats.split(",") if x.strip()]
    print(f"start: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / f"en-x{args.repeat}.xml.bz2"
        mb = synthetic_dump(source, args.repeat, big) / 1e6
        bare = run(_BARE.format(dump=str(big)))
        one = stage(big, 1, 1)
        build = whole_build(big)
        serial = stage(big, 1, 2)
        two = stage(big, 2, 2)
        try:
            import datatrove  # noqa: F401

            dt = stage(big, 2, 2, "datatrove-local")
        except ImportError:
            dt = None
        memory = []
        for n in sizes:
            path = Path(tmp) / f"en-x{n}.xml.bz2"
            size = synthetic_dump(source, n, path) / 1e6
            memory.append((n, size, stage(path, 1, n, only=0)))
            path.unlink()
    print(f"end: {load()}")
    print(f"synthetic dump: ×{args.repeat}, {mb:.1f} MB XML ({big.name})")
    print(
        f"bare bz2 decompression: {mb / bare['cpu']:.1f} MB XML per CPU-second "
        f"({mb / bare['wall']:.1f} MB/s wall)"
    )
    per_core = mb / one["cpu"]
    print(
        f"shard stage, 1 worker: {per_core:.2f} MB XML per CPU-second "
        f"({one['cpu']:.1f} s CPU), {mb / one['wall']:.2f} MB/s wall ({one['wall']:.1f} s); "
        f"{one['cpu'] / bare['cpu']:.1f}× the CPU of bare bz2; target ≥ 3 MB/s per core: "
        + ("met" if per_core >= 3 else "NOT met")
    )
    print(
        f"whole build wiki --jobs 1: {mb / build['cpu']:.2f} MB XML per CPU-second end to end "
        f"({build['cpu']:.1f} s CPU); the shard stage is {one['cpu'] / build['cpu']:.0%} of it"
    )
    cpu_scaling = 2 * one["cpu"] / two["cpu"]
    wall_ratio = one["wall"] / two["wall"]
    print(
        f"2 workers, 2 shards: CPU {two['cpu']:.1f} s summed ({mb / two['cpu']:.2f} MB XML "
        f"per CPU-second, {2 * mb / two['cpu']:.2f} MB/s on two idle cores); "
        f"CPU-time scaling {cpu_scaling:.2f}× (target ≥ 1.8×: "
        + ("met" if cpu_scaling >= 1.8 else "NOT met")
        + f"), wall ratio {wall_ratio:.2f}× ({two['wall']:.1f} s) under this load"
    )
    print(
        f"  of which a second shard's own work (2 shards in 1 worker: "
        f"{serial['cpu'] / one['cpu']:.2f}× the CPU of 1 shard; same tables as 2 workers: "
        f"{serial['digest'] == two['digest']}) and two workers side by side "
        f"({two['cpu'] / serial['cpu']:.2f}× the CPU of the same 2 shards in 1 worker)"
    )
    print(
        f"peak RSS per worker with 2 workers: {two['rss_children_kb'] / 1024:.0f} MB "
        f"(the driver: {two['rss_self_kb'] / 1024:.0f} MB); 1 worker: "
        f"{one['rss_self_kb'] / 1024:.0f} MB at ×{args.repeat}"
    )
    for n, size, m in memory:
        print(
            f"peak RSS, 1 worker, shard 0 of {n} over ×{n} ({size:.0f} MB XML, "
            f"{m['articles']} articles cleaned): {m['rss_self_kb'] / 1024:.0f} MB "
            f"({m['cpu']:.1f} s CPU)"
        )
    if len(memory) >= 2:
        first, last = memory[0][2], memory[-1][2]
        print(
            f"memory ratio ×{memory[-1][0]} / ×{memory[0][0]}: "
            f"{last['rss_self_kb'] / first['rss_self_kb']:.2f} (target 1.00)"
        )
    if dt is not None:
        print(
            f"datatrove-local, 2 workers, 2 shards: {dt['cpu'] / two['cpu']:.2f}× the local "
            f"executor's CPU, {dt['wall'] / two['wall']:.2f}× its wall time; same tables: "
            f"{dt['digest'] == two['digest']}"
        )


if __name__ == "__main__":
    main()
