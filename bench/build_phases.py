"""Where a UD build's time goes: the phases of one in-process ``build_ud`` with ``jobs=1``,
each as seconds and as a share of the build, beside one bare ``conllu.parse_incr`` pass (the
unit of ``bench/build_ud.py``'s targets), all measured in this one run.

Phases are timed by wrapping the functions that bound them (``builders.configure``'s task
set-up, ``builders.stream``'s first pass and per-task assembly, the folder writer's card), so
nested phases are shown indented and are part of their parent; "candidate pass" is what the
build spends outside the other top-level phases (reading the second time, every task's
``candidates``, spooling, and the small rest: discovering the inputs, the fingerprint).
Use it to choose what to speed up next; ``bench/task_costs.py`` splits the same time by task.

Run: ``python bench/build_phases.py [--data ../shared/data] [--treebank UD_English-EWT]
[--tasks a,b]``.
"""

from __future__ import annotations

import gzip
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _data import treebank_arguments

_SECONDS: Counter[str] = Counter()
_CALLS: Counter[str] = Counter()


def _timed(owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper that adds its duration to ``label``."""
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _SECONDS[label] += time.perf_counter() - start
            _CALLS[label] += 1

    setattr(owner, name, wrapper)


def _bare_pass(tb: Path) -> float:
    import conllu

    files = sorted(
        p for p in tb.iterdir() if re.search(r"-ud-(train|dev|test)\.conllu(\.gz)?$", p.name)
    )
    start = time.perf_counter()
    for f in files:
        opener = gzip.open if f.suffix == ".gz" else open
        with opener(f, "rt", encoding="utf-8") as fh:
            for _ in conllu.parse_incr(fh):
                pass
    return time.perf_counter() - start


def main() -> None:
    ap = treebank_arguments()
    ap.add_argument("--tasks", default="", help="comma-separated (default: the whole suite)")
    args = ap.parse_args()
    tb = args.data / "ud" / args.treebank

    import pyarrow.parquet as pq

    from polyprobe import build_ud
    from polyprobe.builders import assemble, configure, profile
    from polyprobe.builders.execution import rows, stream
    from polyprobe.cards import folder, plots

    # Top-level phases (their sum plus the candidate pass is the build) ...
    _timed(configure, "open_stream", "open tasks (prefix read, profile)")
    _timed(stream, "observe_pass", "observe pass + fit")
    _timed(stream, "write_task", "assembly (variants, configs)")
    _timed(folder.DatasetFolderWriter, "finish", "card (README.md, report.json)")
    # ... and parts of them.
    _timed(profile, "derive_capitalisation", "  capitalisation (prefix read)")
    _timed(assemble, "make_variants", "  variant engine")
    _timed(folder, "write_config_files", "  writing configs")
    _timed(rows, "_materialise_chunk", "    rows taken from the spool")
    _timed(pq.ParquetWriter, "write_table", "    parquet encoding")
    _timed(plots, "label_bar_chart", "    label charts")

    bare = _bare_pass(tb)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        build_ud(
            [tb],
            lang=args.lang,
            out=Path(tmp) / "out",
            tasks=[t for t in args.tasks.split(",") if t] or None,
            sizes="10k",
            jobs=1,
        )
        total = time.perf_counter() - start
    top = [k for k in _SECONDS if not k.startswith(" ")]
    _SECONDS["candidate pass (read, candidates, spool)"] = total - sum(_SECONDS[k] for k in top)
    print(
        f"{args.treebank}: build_ud(jobs=1) {total:.2f} s = {total / bare:.2f}x one bare "
        f"conllu.parse_incr pass ({bare:.2f} s); start-up not included"
    )
    order = [
        "open tasks (prefix read, profile)",
        "  capitalisation (prefix read)",
        "observe pass + fit",
        "candidate pass (read, candidates, spool)",
        "assembly (variants, configs)",
        "  variant engine",
        "  writing configs",
        "    rows taken from the spool",
        "    parquet encoding",
        "    label charts",
        "card (README.md, report.json)",
    ]
    for label in order:
        calls = f"({_CALLS[label]} calls)" if _CALLS[label] > 1 else ""
        print(
            f"  {label:44} {_SECONDS[label]:6.2f} s  {_SECONDS[label] / total:6.1%} of the build"
            f"  {_SECONDS[label] / bare:5.2f}x bare  {calls}"
        )


if __name__ == "__main__":
    main()
