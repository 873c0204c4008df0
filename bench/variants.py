"""Benchmark the variant engine: wall time and memory per candidate at corpus scale.

Why: the build keeps only ~27 bytes of numpy columns per candidate and promises a build
stays under 64 bytes per candidate overall, so the engine's own scratch must stay at a few tens
of bytes per candidate and run in seconds even for millions of candidates.

Synthetic candidates resemble a sentence task with a lexical key: sentences (groups) yield one
or two candidates, 5% of sentences are duplicates of another, 70% of candidates carry a key
drawn from a Zipf-distributed vocabulary (one key per sentence), UD-like 80/10/10 source splits.

    python bench/variants.py            # 1M and 5M
    python bench/variants.py 10000000   # any sizes

Memory is reported twice: tracemalloc's peak (numpy's own allocations, exact) and, in a fresh
process that only loads the columns, the growth of peak RSS (everything, including sort buffers).
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from polyprobe.builders.variants import (
    CandidateColumns,
    VariantSettings,
    make_variants,
    parse_sizes,
    parse_split,
)

LABELS = ["Sing", "Plur", "Other"]


def synthetic(n: int, seed: int = 0) -> CandidateColumns:
    """Bench input only: numpy's RNG makes the data, the engine itself uses none."""
    rng = np.random.default_rng(seed)
    sentences = int(n / 1.5)
    sentence = np.sort(rng.integers(0, sentences, n))  # 1–2+ candidates per sentence
    group_of_sentence = rng.integers(1, 2**63, sentences, dtype=np.uint64)
    dup = rng.random(sentences) < 0.05
    group_of_sentence[dup] = group_of_sentence[rng.integers(0, sentences, int(dup.sum()))]
    vocab = rng.integers(1, 2**63, 200_000, dtype=np.uint64)
    key_of_sentence = vocab[np.minimum(rng.zipf(1.2, sentences), vocab.size) - 1]
    key_of_sentence[rng.random(sentences) < 0.3] = 0
    split_of_sentence = rng.choice(3, sentences, p=[0.8, 0.1, 0.1]).astype(np.int8)
    return CandidateColumns(
        label=rng.choice(3, n, p=[0.6, 0.3, 0.1]).astype(np.int16),
        group=group_of_sentence[sentence],
        key=key_of_sentence[sentence],
        source_split=split_of_sentence[sentence],
        order=rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True),
    )


def column_bytes(cols: CandidateColumns) -> int:
    return sum(getattr(cols, f).nbytes for f in ("label", "group", "key", "source_split", "order"))


def output_bytes(result) -> int:
    """Distinct arrays only: shared validation/test and natural-size views are counted once."""
    seen: dict[int, int] = {}
    for variant in result.variants:
        for array in variant.indices.values():
            base = array if array.base is None else array.base
            seen[id(base)] = base.nbytes
    return sum(seen.values())


def bench(n: int, split: str, sizes: str) -> None:
    cols = synthetic(n)
    settings = VariantSettings(parse_split(split), parse_sizes(sizes))
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    result = make_variants(cols, LABELS, settings)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    out = output_bytes(result)
    del result
    gc.collect()

    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = make_variants(cols, LABELS, settings)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    scratch = peak - base
    full = result.get("natural", "full")
    counts = "/".join(str(len(full.indices[s])) for s in ("train", "validation", "test"))
    print(
        f"{n:>11,} {split:<15} wall {elapsed:6.2f} s  cpu {cpu:6.2f} s "
        f"({1e9 * cpu / n:4.0f} ns/cand)  "
        f"input {column_bytes(cols) / n:5.1f} B/cand  engine peak {scratch / n:5.1f} B/cand  "
        f"output {out / n:5.1f} B/cand  (natural-full {counts}; "
        f"drops {sum(result.drops.values()):,}; {len(result.variants)} variants)"
    )
    for note in result.notes:
        print(f"{'':>12}{note}")


FIELDS = ("label", "group", "key", "source_split", "order")


def rss_child(folder: str, split: str, sizes: str) -> None:
    """Fresh process: load the columns, then report the engine's growth of peak RSS (which,
    unlike tracemalloc, also sees sort buffers and allocator slack)."""
    cols = CandidateColumns(*(np.load(Path(folder) / f"{f}.npy") for f in FIELDS))
    before = _peak_rss_kib()
    make_variants(cols, LABELS, VariantSettings(parse_split(split), parse_sizes(sizes)))
    after = _peak_rss_kib()
    print((after - before) * 1024 / len(cols.label))


def _peak_rss_kib() -> int:
    """This process's peak RSS. VmHWM, not ``ru_maxrss``: Linux carries ``ru_maxrss`` over from
    the forking parent, which would hide the child's own growth."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def bench_rss(n: int, sizes: str) -> None:
    cols = synthetic(n)
    with tempfile.TemporaryDirectory() as folder:
        for f in FIELDS:
            np.save(Path(folder) / f"{f}.npy", getattr(cols, f))
        del cols
        for split in ("ud", "ratio:80/10/10"):
            out = subprocess.run(
                [sys.executable, __file__, "--rss-child", folder, split, "--train-sizes", sizes],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            print(f"{n:>11,} {split:<15} peak RSS growth {float(out):5.1f} B/cand (fresh process)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1_000_000, 5_000_000])
    parser.add_argument("--train-sizes", default="10k,100k,0.25,0.5")
    parser.add_argument("--rss-child", nargs=2, metavar=("DIR", "SPLIT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(*args.rss_child, args.train_sizes)
        return
    print(f"numpy {np.__version__}; train sizes full,{args.train_sizes}; balances natural,balanced")
    print("engine peak = tracemalloc peak during make_variants beyond the input columns;")
    print("cpu = process time (wall time suffers when other jobs share the machine)")
    for n in args.sizes:
        for split in ("ud", "ratio:80/10/10"):
            bench(n, split, args.train_sizes)
    for n in args.sizes:
        bench_rss(n, args.train_sizes)


if __name__ == "__main__":
    main()
