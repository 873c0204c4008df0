"""Benchmark of reading a treebank in parts: the CPU time of reading every part of a
``parts``-way cut (summed: what ``parts`` processes spend together) against one whole read,
in this one run.

Why: a build with N processes reads only its 1/N of the records in each pass
(``TreebankFamily.part_records``); a part process scans the bytes before its start without
building sentences (``polyprobe.loaders.conllu._scan_text``), so the sum of the parts costs a
little more than one whole read: the scans and, for a gzip file, decompressing the prefix
again. Target: ≤ 1.10 for ``parts=2`` over all of EWT. Each figure is the median over
``--rounds`` interleaved rounds of one part-sum divided by its own round's whole read, and the
ratio of the least CPU times over the rounds (the least disturbed by other processes on a busy
machine); say the machine's load (``uptime``) beside it.

Run: ``python bench/record_parts.py [--data ../shared/data] [--treebank UD_English-EWT]
[--parts 2 3 4] [--rounds 5]``.
"""

from __future__ import annotations

import collections
import os
import statistics
import time

from _data import treebank_arguments

from polyprobe.loaders.sources import discover, read_sources


def _cpu(sources: list, part: int = 0, parts: int = 1) -> float:
    """CPU seconds of reading one part (as the build reads: shared dicts, skip counts)."""
    start = time.process_time()
    for _ in read_sources(
        sources,
        on_invalid="skip",
        skipped=collections.Counter(),
        shared_dicts=True,
        part=part,
        parts=parts,
    ):
        pass
    return time.process_time() - start


def main() -> None:
    ap = treebank_arguments()
    ap.add_argument("--parts", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    sources = discover([args.data / "ud" / args.treebank])
    _cpu(sources)  # warm the page cache and the feature cache
    ratios: dict[int, list[float]] = {n: [] for n in args.parts}
    fastest: dict[tuple[int, int], float] = {}  # (part, parts) -> least CPU over the rounds
    wholes: list[float] = []
    for _ in range(args.rounds):
        whole = _cpu(sources)
        wholes.append(whole)
        for n in args.parts:
            times = [_cpu(sources, k, n) for k in range(n)]
            for k, t in enumerate(times):
                fastest[k, n] = min(t, fastest.get((k, n), t))
            ratios[n].append(sum(times) / whole)
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average)")
    print(f"whole read of {args.treebank}: {statistics.median(wholes):.3f} s CPU (median)")
    for n, values in ratios.items():
        shown = ", ".join(f"{v:.3f}" for v in values)
        least = sum(fastest[k, n] for k in range(n)) / min(wholes)
        print(
            f"parts={n}: sum of parts / whole = {statistics.median(values):.3f} median of "
            f"rounds ({shown}); {least:.3f} least times"
        )


if __name__ == "__main__":
    main()
