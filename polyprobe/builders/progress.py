"""A build's progress on stderr, the same for every family: one bar per pass over the
records and per long phase. A pass that knows its number of records beforehand (the
candidate pass, counted by the first) shows records against that total; one that does not
(the first) shows the bytes of the input files read so far when the spine has said which
files the build reads (:meth:`TerminalProgress.expect`), else a counter with a rate. Only
the build's own process shows bars: worker processes share no terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any


class TerminalProgress:
    """The command line's progress callable (``progress(iterable) -> iterable``)."""

    def __init__(self) -> None:
        self.files: list[Path] = []

    def expect(self, files: Sequence[Path]) -> None:
        """The input files the build's passes read (for bars in bytes)."""
        self.files = [Path(f) for f in files]

    def __call__(self, it: Any) -> Any:
        from tqdm import tqdm

        desc = getattr(it, "desc", "reading")
        try:
            total: int | None = len(it)
        except TypeError:
            total = None
        if total is None and self.files:
            return _bytes_progress(it, self.files, desc)
        unit = getattr(it, "unit", " rec")
        return tqdm(it, total=total, unit=unit, desc=desc, file=sys.stderr, mininterval=0.5)


def _text_profile(path: Path) -> tuple[int, float]:
    """A file's size as text and its bytes per line in its first 64 KiB: where a progress bar
    places a record from its line number. A ``.gz`` gives its text size in its trailer
    (modulo 4 GiB). Never raises: a file the reader will refuse gets its size on disk and no
    bytes per line, and the reader then says what is wrong with it."""
    import gzip

    try:
        size = path.stat().st_size
        if path.name.endswith(".gz"):
            with open(path, "rb") as raw:
                raw.seek(-4, 2)
                size = int.from_bytes(raw.read(4), "little")
            with gzip.open(path, "rb") as text:
                head = text.read(1 << 16)
        else:
            with open(path, "rb") as text:
                head = text.read(1 << 16)
    except Exception:  # noqa: BLE001 - an estimate for a bar must never fail a build
        try:
            return path.stat().st_size, 0.0
        except OSError:
            return 0, 0.0
    return max(size, len(head)), len(head) / max(1, head.count(b"\n"))


def _bytes_progress(records: Iterable[Any], files: Sequence[Path], desc: str) -> Iterator[Any]:
    """Yield ``records`` while a bar shows the bytes of ``files`` read: the files before the
    current record's in full, and of its file the share its line number has reached (records
    carry their file and line; an estimate within a file, exact at each file's end)."""
    from tqdm import tqdm

    profiles = {os.path.realpath(f): _text_profile(f) for f in files}
    total = sum(size for size, _ in profiles.values())
    bar = tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=desc,
        file=sys.stderr,
        mininterval=0.5,
    )
    done, size, per_line, current = 0, 0, 0.0, None
    try:
        for record in records:
            path = getattr(getattr(record, "source", None), "path", None)
            if path != current:
                done += size
                current = path
                known = profiles.get(os.path.realpath(path)) if path else None
                size, per_line = known or (0, 0.0)
            position = min(total, done + min(size, int(getattr(record, "line", 0) * per_line)))
            if position > bar.n:
                bar.update(position - bar.n)
            yield record
        bar.update(total - bar.n)
    finally:
        bar.close()
