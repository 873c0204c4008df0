"""Lines of a UTF-8 text file (plain or gzip), decoded a block at a time, with true numbers.

Why not a text-mode file: ``io.TextIOWrapper`` decodes ahead in chunks, so a bad byte raises
when the chunk holding it is decoded, while lines before it in that chunk have not been handed
out yet. The error then names the first line not yet handed out (a bad byte on line 5001 of a
SIGMORPHON file was reported on line 4912), and the stream cannot go on after it, so a reader
cannot skip just that line. Here complete lines are decoded a block at a time (as fast as the
text layer) and, only in a block that fails, line by line: a bad line becomes a
:class:`BadLine` at its true position and the lines after it are still read.

Line ends are those of Python's text mode: ``\\n``, ``\\r\\n`` and a lone ``\\r`` (counted
from the file's bytes, so a lone ``\\r`` inside a line that is not UTF-8 does not split it). A
UTF-8 byte-order mark at the start of the file is dropped.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from polyprobe.errors import InputError

__all__ = ["BLOCK", "BadLine", "bad_encoding", "line_blocks", "numbered_lines"]

BLOCK = 1 << 20  # bytes per read: amortises decoding, bounded memory
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


class BadLine(str):
    """A line that is not valid UTF-8, carrying the decoder's complaint in ``problem``.

    It is a ``str`` (a single U+FFFD, so it holds no tab and is not blank) so that a hot loop
    needs no extra test on good lines: it fails the loop's column check, and only there does
    the reader ask whether the line was undecodable."""

    __slots__ = ("problem",)
    problem: str


def bad_encoding(path: str | Path, number: int, line: BadLine) -> InputError:
    """The error a reader reports for a :class:`BadLine` (reason ``bad-encoding``)."""
    return InputError(path, number, f"not UTF-8 ({line.problem})", "bad-encoding")


def _split(text: str) -> list[str]:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _decode(data: bytes) -> list[str]:
    """Lines of a run of whole lines (only the file's last may lack its line end)."""
    try:
        lines = _split(data.decode("utf-8"))
    except UnicodeDecodeError:
        lines = []
        for raw in data.split(b"\n"):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = BadLine("\ufffd")
                bad.problem = f"{exc.reason} at byte {exc.start + 1} of the line"
                lines.append(bad)
                continue
            lines.extend(_split(text.removesuffix("\r")) if "\r" in text else (text,))
    if lines and lines[-1] == "" and type(lines[-1]) is str:
        lines.pop()  # the empty string after the last line end
    return lines


def _open(path: Path) -> BinaryIO:
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller's with-block
    except OSError as exc:
        reason = "missing-file" if isinstance(exc, FileNotFoundError) else "unreadable"
        raise InputError(path, None, f"cannot open: {exc.strerror or exc}", reason) from None
    if raw.read(2) == _GZIP_MAGIC:  # by content, not by name: a mis-named file still reads
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    raw.seek(0)
    return raw


def line_blocks(path: str | Path, block: int = BLOCK) -> Iterator[list[str]]:
    """Lists of lines (without line ends), in file order; lines are numbered from 1 across
    the lists. A read error (disk, broken gzip) raises ``unreadable`` naming the first line
    not read."""
    path = Path(path)
    block = max(block, len(_BOM))  # the first read must hold a whole byte-order mark
    delivered = 0
    with _open(path) as fh:
        tail = b""
        first = True
        while True:
            try:
                chunk = fh.read(block)
            except (OSError, EOFError, zlib.error) as exc:
                raise InputError(path, delivered + 1, f"unreadable ({exc})", "unreadable") from None
            if not chunk:
                break
            if first:
                first = False
                if chunk.startswith(_BOM):
                    chunk = chunk[3:]
            cut = chunk.rfind(b"\n")
            if cut < 0:
                tail += chunk
                continue
            data = tail + chunk[: cut + 1] if tail else chunk[: cut + 1]
            tail = chunk[cut + 1 :]
            lines = _decode(data)
            delivered += len(lines)
            yield lines
        if tail:
            yield _decode(tail)


def numbered_lines(path: str | Path, block: int = BLOCK) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` pairs; undecodable lines come as :class:`BadLine`."""
    number = 0
    for lines in line_blocks(path, block):
        for line in lines:
            number += 1
            yield number, line
