"""Read time of the largest shared UniMorph lexicon.

Why: the word-level build reads the lexicon once per language; this shows what a bare read
costs (layout detection, decoding every bundle into dimensions, de-duplication) next to a
plain ``split('\\t')`` pass over the same file, so that slow task logic is not blamed on the
reader or vice versa.

    python bench/read_unimorph.py [PATH ...]   # default: the largest file under
                                               # $POLYPROBE_DATA/unimorph (../shared/data)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from _data import data_root

from polyprobe.loaders.unimorph import UniMorphReader, decode


def _largest() -> Path:
    root = data_root() / "unimorph"
    files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")]
    if not files:
        sys.exit(f"no UniMorph files under {root} (set POLYPROBE_DATA)")
    return max(files, key=lambda p: p.stat().st_size)


def _best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str]) -> None:
    paths = [Path(a) for a in argv] or [_largest()]
    size = sum(p.stat().st_size for p in paths)

    def split_only() -> int:
        n = 0
        for p in paths:
            with open(p, encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        line.rstrip("\n").split("\t")
                        n += 1
        return n

    def read_all() -> int:
        decode.cache_clear()  # count decoding too, not just the cache
        return sum(1 for _ in UniMorphReader(paths))

    entries = read_all()
    bare = _best(split_only)
    full = _best(read_all)
    print(f"files: {', '.join(str(p) for p in paths)} ({size / 1e6:.1f} MB, {entries:,} entries)")
    print(f"plain split pass: {bare:.3f} s")
    print(
        f"UniMorphReader:   {full:.3f} s  ({entries / full:,.0f} entries/s, {full / bare:.1f}x the split pass)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
