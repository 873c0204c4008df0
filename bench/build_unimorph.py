"""Word-level build time of the largest shared UniMorph lexicon vs a bare read of it.

Why: ``build unimorph`` holds the lexicon in memory and runs every task over it; this shows
what the whole build (all 15 tasks, both disjointness variants, cards and plots) costs next to
the read alone, and where the time goes (reading the inputs, each task, then the folder and
card: marked by the build's progress over its tasks), so that a slow phase is visible before the full-size UniMorph lexicons (10x larger) arrive.

    python bench/build_unimorph.py [PATH ...] [--lang xx]   # default: the largest file
                                                            # under $POLYPROBE_DATA/unimorph
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from _data import data_root

# File name -> language of the shared lexicons (SIGMORPHON names carry it in the name).
_LANGS = {"eng": "en", "slv": "sl"}


def _largest() -> Path:
    root = data_root() / "unimorph"
    files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")]
    if not files:
        sys.exit(f"no UniMorph files under {root} (set POLYPROBE_DATA)")
    return max(files, key=lambda p: p.stat().st_size)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--lang", default=None)
    args = parser.parse_args(argv)
    paths = args.paths or [_largest()]
    lang = args.lang or _LANGS.get(paths[0].name.split(".")[0], "en")

    start = time.perf_counter()
    from polyprobe import build_unimorph
    from polyprobe.loaders.unimorph import UniMorphReader, decode
    from polyprobe.progress import shown

    imports = time.perf_counter() - start

    decode.cache_clear()
    start = time.perf_counter()
    entries = list(UniMorphReader(paths))
    bare = time.perf_counter() - start

    phases: list[tuple[str, float]] = []

    class Marks:
        """A progress display that marks when each task starts (the build shows its tasks as
        one phase), and the end of that phase."""

        def bar(self, items: Iterable[Any], desc: str, total: Any, unit: str) -> Iterator[Any]:
            if not desc.startswith("tasks"):
                phases.append((desc, time.perf_counter()))
                yield from items
                return
            for task in items:
                phases.append((f"task {task.name}", time.perf_counter()))
                yield task
            phases.append(("folder and card", time.perf_counter()))

        def records(self, items: Iterable[Any], desc: str, total: Any) -> Iterable[Any]:
            return items

        def counter(self, desc: str, total: Any, unit: str) -> Any:
            return None

        def inputs(self, files: Any) -> None:
            pass

    with tempfile.TemporaryDirectory(prefix="polyprobe-bench-") as tmp:
        decode.cache_clear()
        start = t0 = time.perf_counter()
        phases.append(("reading the inputs", t0))
        out = Path(tmp) / "out"
        with shown(Marks()):
            result = build_unimorph(paths, lang=lang, out=out, scale=True)
        full = time.perf_counter() - start
        configs = sum(len(s.configs) for s in result.tasks)
        rows = sum(f.stat().st_size for f in (Path(tmp) / "out" / "data").rglob("*.parquet"))
    size = sum(p.stat().st_size for p in paths)
    print(
        f"lexicon: {', '.join(str(p) for p in paths)} ({size / 1e6:.1f} MB, {len(entries):,} entries)"
    )
    print(f"imports (polyprobe, numpy, pyarrow): {imports:.2f} s")
    print(f"bare read (UniMorphReader):           {bare:.2f} s")
    print(
        f"full build, all tasks (--scale):      {full:.2f} s  = {full / bare:.0f}x the read; "
        f"{configs} configs, {rows / 1e6:.1f} MB of parquet"
    )
    print("phases:")
    marks = [*phases, ("end", t0 + full)]
    for (name, at), (_, nxt) in zip(marks, marks[1:], strict=False):
        print(f"  {name:<28} {nxt - at:6.2f} s")
    built = [s.task for s in result.tasks if s.configs]
    print(f"built: {', '.join(built)}")


if __name__ == "__main__":
    main(sys.argv[1:])
