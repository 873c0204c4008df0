"""Benchmark of the dump path of ``build wiki``, every figure a ratio measured in this one run.

A synthetic large dump is made at run time in a temp folder (never committed): the shared
English excerpt's pages repeated ``--repeat`` times (×20 ≈ 120 MB of XML), bz2-compressed.
Then, each step in a fresh process (so that peak memory is its own):

1. bare bz2 decompression of the synthetic dump (the floor: ≈ 22 MB/s on an idle core);
2. the input-shard stage (read, clean, split, tokenise, write the tables: the build's whole
   per-page cost) with 1 worker: MB of XML per second per core (CPU time), target ≥ 3;
3. the same with 2 workers and 2 shards: speed-up in wall time, target ≥ 1.8×;
4. peak RSS of a one-worker shard stage at ``--repeat`` / 2 and ``--repeat``: target equal
   (memory per worker independent of the dump's size).

Run: ``python bench/build_wiki.py [--data ../shared/data] [--repeat 20]`` (on a busy 2-core
machine, ``--repeat 2`` keeps it under a few minutes; ratios stay meaningful).
"""

from __future__ import annotations

import bz2
import json
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
from polyprobe.builders.text.shards import plan_shards, tokenize_shard
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikisource import WikiDumpSource
from polyprobe.runtime.inputs import run_inputs
dump, folder, workers, shards = Path({dump!r}), Path({folder!r}), {workers}, {shards}
executor = {executor!r}
segmenter = Segmenter("en")
source = WikiDumpSource(dump, segmenter)
tasks = plan_shards([source], segmenter, shards, folder)[0]
t0, c0 = time.perf_counter(), time.process_time()
run_inputs(tokenize_shard, tasks, workers=workers, executor=executor,
           logging_dir=folder / "logs")
import hashlib
digest = hashlib.sha256(b"".join(Path(t.out).read_bytes() for t in tasks)).hexdigest()
wall = time.perf_counter() - t0
self_cpu = time.process_time() - c0
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
me = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"wall": wall, "cpu": self_cpu + kids.ru_utime + kids.ru_stime,
    "rss_self_kb": me.ru_maxrss, "rss_children_kb": kids.ru_maxrss, "digest": digest}}))
"""

_BARE = r"""
import bz2, json, sys, time
t0 = time.perf_counter(); n = 0
with bz2.open({dump!r}, "rb") as f:
    while chunk := f.read(1 << 20):
        n += len(chunk)
print(json.dumps({{"wall": time.perf_counter() - t0, "bytes": n}}))
"""


def synthetic_dump(source: Path, repeat: int, out: Path) -> int:
    """The excerpt's pages ``repeat`` times (page ids made unique), bz2; returns XML bytes."""
    xml = bz2.open(source).read().decode("utf-8")
    head, _, rest = xml.partition("<page>")
    body, _, _ = ("<page>" + rest).rpartition("</mediawiki>")
    total = 0
    with bz2.open(out, "wb", compresslevel=1) as f:
        data = head.encode()
        f.write(data)
        total += len(data)
        for r in range(repeat):
            chunk = (body if r == 0 else body.replace("<id>", f"<id>{r}0000")).encode()
            f.write(chunk)
            total += len(chunk)
        f.write(b"</mediawiki>\n")
    return total + 13


def run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stage(dump: Path, workers: int, shards: int, executor: str = "local") -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return run(
            _STAGE.format(
                repo=str(REPO),
                dump=str(dump),
                folder=folder,
                workers=workers,
                shards=shards,
                executor=executor,
            )
        )


def main() -> None:
    ap = arguments()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    source = args.data / "wikipedia" / EN
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / f"en-x{args.repeat}.xml.bz2"
        half = Path(tmp) / f"en-x{max(1, args.repeat // 2)}.xml.bz2"
        mb = synthetic_dump(source, args.repeat, big) / 1e6
        mb_half = synthetic_dump(source, max(1, args.repeat // 2), half) / 1e6
        bare = run(_BARE.format(dump=str(big)))
        one = stage(big, 1, 1)
        two = stage(big, 2, 2)
        small = stage(half, 1, 1)
        try:
            import datatrove  # noqa: F401

            dt = stage(big, 2, 2, "datatrove-local")
        except ImportError:
            dt = None
    print(f"synthetic dump: ×{args.repeat}, {mb:.1f} MB XML ({big.name})")
    print(f"bare bz2 decompression: {mb / bare['wall']:.1f} MB XML/s")
    per_core = mb / one["cpu"]
    print(
        f"shard stage, 1 worker: {mb / one['wall']:.2f} MB XML/s wall, {per_core:.2f} MB/s per "
        f"core (CPU), {bare['wall'] / one['wall']:.3f}× bare bz2; target ≥ 3 MB/s per core: "
        + ("met" if per_core >= 3 else "NOT met")
    )
    speedup = one["wall"] / two["wall"]
    print(
        f"2 workers, 2 shards: {speedup:.2f}× the 1-worker wall time; target ≥ 1.8×: "
        + ("met" if speedup >= 1.8 else "NOT met")
    )
    print(
        f"peak RSS, 1 worker: ×{max(1, args.repeat // 2)} ({mb_half:.0f} MB) "
        f"{small['rss_self_kb'] / 1024:.0f} MB, ×{args.repeat} ({mb:.0f} MB) "
        f"{one['rss_self_kb'] / 1024:.0f} MB; ratio "
        f"{one['rss_self_kb'] / small['rss_self_kb']:.2f} (target 1.0: independent of size)"
    )
    if dt is not None:
        print(
            f"datatrove-local, 2 workers, 2 shards: {dt['wall'] / two['wall']:.2f}× the local "
            f"executor's wall time; same tables: {dt['digest'] == two['digest']}"
        )
    print(
        f"peak RSS per worker with 2 workers: {two['rss_children_kb'] / 1024:.0f} MB "
        f"(the driver: {two['rss_self_kb'] / 1024:.0f} MB)"
    )


if __name__ == "__main__":
    main()
