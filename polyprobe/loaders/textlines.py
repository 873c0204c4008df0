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

Two more things no reader may let through, checked here once for all of them. A C0 control
character (other than tab) inside a line is valid UTF-8 but never text: a NUL in a word would be
published as part of it. Such a line is a :class:`BadLine` too, with reason
``control-character``, so each reader refuses it at its true line and may skip it like a line
that is not UTF-8. A file that is not UTF-8 text at all (UTF-16/32, another compressed
format: :func:`not_text`) has no lines to skip: opening it raises ``undecodable``, a
whole-file problem that no ``--on-invalid`` policy skips.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from polyprobe.errors import InputError

__all__ = [
    "BLOCK",
    "CONTROL_BYTES",
    "BadLine",
    "bad_encoding",
    "control_problem",
    "has_control",
    "line_blocks",
    "mark_controls",
    "not_text",
    "numbered_lines",
]

BLOCK = 1 << 20  # bytes per read: amortises decoding, bounded memory
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


class BadLine(str):
    """A line a reader must refuse: not valid UTF-8 (``reason`` ``bad-encoding``, the
    decoder's complaint in ``problem``) or holding a control character (``control-character``).

    It is a ``str`` (a single U+FFFD, so it holds no tab and is not blank) so that a hot loop
    needs no extra test on good lines: it fails the loop's column check, and only there does
    the reader ask whether the line was undecodable."""

    __slots__ = ("problem", "reason")
    problem: str
    reason: str


def _bad_line(problem: str, reason: str) -> BadLine:
    bad = BadLine("\ufffd")
    bad.problem = problem
    bad.reason = reason
    return bad


def bad_encoding(path: str | Path, number: int, line: BadLine) -> InputError:
    """The error a reader reports for a :class:`BadLine` (reason ``bad-encoding`` or
    ``control-character``)."""
    if line.reason == "bad-encoding":
        return InputError(path, number, f"not UTF-8 ({line.problem})", "bad-encoding")
    return InputError(path, number, line.problem, line.reason)


# ------------------------------------------------------------------- control characters

#: C0 control bytes a line may not hold: all of U+0000-U+001F but tab (a column separator)
#: and LF/CR (line ends; a CR a reader leaves inside a line is found by :func:`control_problem`).
CONTROL_BYTES: tuple[int, ...] = tuple(b for b in range(32) if b not in (9, 10, 13))
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")
_C0_NAMES = (
    ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF")
    + ("CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM")
    + ("SUB", "ESC", "FS", "GS", "RS", "US")
)


def has_control(data: bytes) -> bool:
    """Does a block of a file hold a control byte of :data:`CONTROL_BYTES`?

    Why this way: it runs on every block a reader decodes, so it must cost next to nothing
    against the reading. One ``memchr`` per byte value over a block still in cache is about
    0.4 ms per MB (a reader spends 25 ms per MB); a regular expression takes 7 ms, a
    ``bytes.translate`` 0.6-0.9 ms. Only a block that holds one is looked at line by line."""
    return any(b in data for b in CONTROL_BYTES)


def control_problem(
    line: str, columns: Sequence[str] = (), comment: str | None = None
) -> str | None:
    """What to say about a line holding a C0 control character other than tab, or ``None``
    when it holds none or is blank (whitespace only: readers treat it as a blank line, and
    nothing of it is published). ``columns`` names the tab-separated columns; a line starting
    with ``comment`` is a comment line."""
    found = _CONTROL.search(line)
    if found is None or line.isspace():
        return None
    char = found.group()
    if comment is not None and line.startswith(comment):
        where = "a comment line"
    elif "\t" not in line and not columns:
        where = "the line"
    else:
        col = line.count("\t", 0, found.start())
        where = f"column {columns[col]}" if col < len(columns) else f"column {col + 1}"
    return f"control character U+{ord(char):04X} ({_C0_NAMES[ord(char)]}) in {where}"


def mark_controls(
    lines: list[str], columns: Sequence[str] = (), comment: str | None = None
) -> list[str]:
    """``lines`` with every line :func:`control_problem` objects to replaced by a
    :class:`BadLine` (``control-character``). Only called for a block that holds one."""
    out = list(lines)
    for i, line in enumerate(out):
        if type(line) is str:
            problem = control_problem(line, columns, comment)
            if problem is not None:
                out[i] = _bad_line(problem, "control-character")
    return out


# -------------------------------------------------------------------- not text at all

_CONVERT = "convert it to UTF-8"
_DECOMPRESS = "decompress it first"
# (what a file starts with, what it is, what to do): byte-order marks of UTF-16/32; UTF-16/32
# without one, told by the NULs of ASCII characters (no UTF-8 text file has NULs among its
# first four bytes in these places); compressed formats.
_NOT_TEXT: tuple[tuple[re.Pattern[bytes], str, str], ...] = tuple(
    (re.compile(pattern), what, advice)
    for pattern, what, advice in (
        (rb"\xff\xfe\x00\x00", "UTF-32 text (little-endian byte-order mark)", _CONVERT),
        (rb"\x00\x00\xfe\xff", "UTF-32 text (big-endian byte-order mark)", _CONVERT),
        (rb"\xff\xfe", "UTF-16 text (little-endian byte-order mark)", _CONVERT),
        (rb"\xfe\xff", "UTF-16 text (big-endian byte-order mark)", _CONVERT),
        (rb"[\x01-\x7f]\x00\x00\x00", "UTF-32 text (little-endian, no byte-order mark)", _CONVERT),
        (rb"\x00\x00\x00[\x01-\x7f]", "UTF-32 text (big-endian, no byte-order mark)", _CONVERT),
        (
            rb"[\x01-\x7f]\x00[\x01-\x7f]\x00",
            "UTF-16 text (little-endian, no byte-order mark)",
            _CONVERT,
        ),
        (
            rb"\x00[\x01-\x7f]\x00[\x01-\x7f]",
            "UTF-16 text (big-endian, no byte-order mark)",
            _CONVERT,
        ),
        (rb"\x1f\x8b", "gzip-compressed twice (or read as plain text)", _DECOMPRESS),
        (rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)", "bzip2-compressed", _DECOMPRESS),
        (rb"\xfd7zXZ\x00", "xz-compressed", _DECOMPRESS),
        (rb"\(\xb5/\xfd", "zstd-compressed", _DECOMPRESS),
        (rb"\x04\x22\x4d\x18", "lz4-compressed", _DECOMPRESS),
        (rb"PK\x03\x04", "a zip archive", _DECOMPRESS),
        (rb"7z\xbc\xaf\x27\x1c", "a 7z archive", _DECOMPRESS),
    )
)


def not_text(head: bytes) -> str | None:
    """Why a file whose content starts with ``head`` is not UTF-8 text at all, or ``None``.

    Only signatures that no UTF-8 text file starts with (:data:`_NOT_TEXT`). Read as UTF-8
    such a file is a run of undecodable "lines" whose count means nothing, so it is refused
    whole (``undecodable``) instead of being skipped line by line."""
    for pattern, what, advice in _NOT_TEXT:
        if pattern.match(head):
            return f"not UTF-8 text: the file is {what}; {advice}"
    return None


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
                problem = f"{exc.reason} at byte {exc.start + 1} of the line"
                lines.append(_bad_line(problem, "bad-encoding"))
                continue
            lines.extend(_split(text.removesuffix("\r")) if "\r" in text else (text,))
    if lines and lines[-1] == "" and type(lines[-1]) is str:
        lines.pop()  # the empty string after the last line end
    if has_control(data):
        lines = mark_controls(lines)
    return lines


def _open(path: Path) -> BinaryIO:
    """The file's content as a binary stream (gunzipped when it is gzip); a file whose
    content is not text at all (:func:`not_text`) raises ``undecodable``."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller's with-block
    except OSError as exc:
        reason = "missing-file" if isinstance(exc, FileNotFoundError) else "unreadable"
        raise InputError(path, None, f"cannot open: {exc.strerror or exc}", reason) from None
    try:
        head = raw.peek(16)[:16]
        stream: BinaryIO = raw
        if head.startswith(_GZIP_MAGIC):  # by content, not by name: a mis-named file reads
            stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
            try:
                head = stream.peek(16)[:16]  # type: ignore[attr-defined]
            except (OSError, EOFError, zlib.error):
                head = b""  # a broken stream: reading it reports that
        problem = not_text(head)
        if problem is not None:
            raise InputError(path, None, problem, "undecodable")
    except BaseException:
        raw.close()
        raise
    return stream


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
