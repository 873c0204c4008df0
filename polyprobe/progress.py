"""What a long phase shows while it runs: one display for the whole command, the same for
every family and every phase — the passes over the records, generation (Wuggy pseudowords,
UniMorph analogies), input shards cleaned and tokenised, configs written, exports.

Why a context and not a parameter: the phases sit at every floor of the house (a loader
generating pseudowords, the execution's passes, the writer), and a ``progress`` argument
threaded through each would be read by none of the code between them. The command line sets
the display (:class:`TerminalProgress`) around the command (:func:`shown`); without one
(library use, tests, ``--quiet``) every call here is a no-op, and so it is in worker
processes, which share no terminal (the display belongs to the process that set it).

A phase calls :func:`track` over its items (a bar with a total when the items have a
length, else a counter with a rate), :func:`records` over a pass's records (bytes of the
build's input files when the spine has named them with :func:`inputs`), or :func:`step` for
work that completes in callbacks (configs written by worker processes).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Display(Protocol):
    def bar(self, items: Iterable[T], desc: str, total: int | None, unit: str) -> Iterable[T]: ...

    def records(self, items: Iterable[T], desc: str, total: int | None) -> Iterable[T]: ...

    def counter(self, desc: str, total: int | None, unit: str) -> Any: ...

    def inputs(self, files: Sequence[Path]) -> None: ...


_CURRENT: ContextVar[tuple[int, Display] | None] = ContextVar("polyprobe_progress", default=None)


def _display() -> Display | None:
    current = _CURRENT.get()
    if current is None or current[0] != os.getpid():  # a worker process: no terminal
        return None
    return current[1]


@contextmanager
def shown(display: Display | None) -> Iterator[None]:
    """Show this command's phases on ``display`` (None: show nothing)."""
    token = _CURRENT.set(None if display is None else (os.getpid(), display))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def track(
    items: Iterable[T], desc: str, *, total: int | None = None, unit: str = " it"
) -> Iterable[T]:
    """``items``, shown as a bar (``total``, else the items' length) or a counter."""
    display = _display()
    if display is None:
        return items
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = None
    return display.bar(items, desc, total, unit)


def records(items: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
    """A pass over a build's records (each with its ``source.path`` and ``line``)."""
    display = _display()
    return items if display is None else display.records(items, desc, total)


def inputs(files: Sequence[str | os.PathLike[str]]) -> None:
    """The files the build's passes read: a pass of unknown length shows their bytes."""
    display = _display()
    if display is not None:
        display.inputs([Path(f) for f in files])


def say(message: str) -> None:
    """A line for the user on stderr while the command shows its phases (a warning). Nothing
    under ``--quiet``/``--no-progress``, in library use or in a worker process: what the line
    says is also in the card."""
    if _display() is not None:
        print(message, file=sys.stderr)


class _Step:
    """A counter shown from its first advance (work that starts after other phases, such as
    configs written once the passes are done, shows up when it starts)."""

    def __init__(self, display: Display | None, desc: str, total: int | None, unit: str) -> None:
        import threading

        self.display, self.desc, self.total, self.unit = display, desc, total, unit
        self.counter: Any = None
        self.lock = threading.Lock()

    def advance(self, n: int = 1) -> None:
        if self.display is None:
            return
        with self.lock:
            if self.counter is None:
                self.counter = self.display.counter(self.desc, self.total, self.unit)
            self.counter.update(n)

    def close(self) -> None:
        if self.counter is not None:
            self.counter.close()


@contextmanager
def step(desc: str, total: int | None = None, unit: str = " it") -> Iterator[_Step]:
    """A counter advanced by hand (``advance()``, safe from callback threads)."""
    counter = _Step(_display(), desc, total, unit)
    try:
        yield counter
    finally:
        counter.close()


class TerminalProgress:
    """The command line's display: tqdm bars on stderr."""

    def __init__(self) -> None:
        self.files: list[Path] = []

    def inputs(self, files: Sequence[Path]) -> None:
        self.files = list(files)

    def counter(self, desc: str, total: int | None, unit: str) -> Any:
        from tqdm import tqdm

        return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, mininterval=0.5)

    def bar(self, items: Iterable[T], desc: str, total: int | None, unit: str) -> Iterable[T]:
        from tqdm import tqdm

        return tqdm(items, total=total, unit=unit, desc=desc, file=sys.stderr, mininterval=0.5)

    def records(self, items: Iterable[T], desc: str, total: int | None) -> Iterable[T]:
        if total is None and self.files:
            return _bytes_progress(items, self.files, desc)
        return self.bar(items, desc, total, " rec")


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


def _bytes_progress(records: Iterable[T], files: Sequence[Path], desc: str) -> Iterator[T]:
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
