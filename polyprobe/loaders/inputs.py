"""The input layer: every reader of a text format opens its files here, so that bad input is
refused the same way by all of them, named ``file:line: problem``, and never gets through or
ends in a traceback.

Why one layer: every family used to read its files its own way, and that is where bad input
got through: one bad byte made a reader decode a whole file as Latin-1 (``für`` published as
``fÃ¼r``, exit 0); a folder given for a file crashed with ``IsADirectoryError``; a field over
131,072 characters crashed every CSV reader; a NUL, a line break inside a quoted field or an
id given twice reached the rows, and ``polyprobe validate`` then rejected the folder the build
had just written. Here each problem is decided once:

* **the path** (:func:`check_file`, :func:`open_binary`): missing, a folder where a file is
  expected, not a regular file, unreadable: one :class:`~polyprobe.errors.InputError`
  naming the path, with a fatal reason (``missing-file``, ``unreadable``).
* **compression**, by magic bytes, never by name (files travel renamed): gzip, bz2 and xz
  are decompressed where the reader accepts them (line formats: gzip; XML dumps: all
  three); zstd is refused by name (the standard library cannot read it). A truncated or
  damaged stream is fatal (``truncated-gzip``, ``corrupt-bz2``, ...) naming the file and,
  for line formats, the first line not read: nothing after the break can be read, so there
  is no smaller unit to skip.
* **encoding**: strict UTF-8 (a UTF-8 byte-order mark dropped); a byte that is not UTF-8 is
  that line's problem (``bad-encoding``, skippable); never a fallback encoding. A file that
  is not UTF-8 text at all (UTF-16/32, another compression: :func:`not_text`) has no lines
  to skip: ``undecodable``, fatal, unless a format allows UTF-16/32 and its reader opts in
  (:func:`read_text` ``utf16=True``: XML). The one documented exception, TREC's distributed
  ISO-8859-1 training file, is read by :mod:`polyprobe.loaders.trec`, which detects and
  records that encoding for its known files only.
* **control characters**: a C0 character other than tab in a line (NUL, ESC, a lone CR)
  makes the line a :class:`BadLine` (``control-character``, skippable), by the rule
  ``validate`` applies to published strings (:mod:`polyprobe.controlchars`).
* **length**: a line (and a CSV record) may hold at most :data:`MAX_LINE_CHARS`
  characters (``too-long``, skippable); a run of bytes without a line end is dropped once it
  is surely over the limit, so a 10 GB "line" costs no more memory than a 4 MB one.
* **emptiness**: a file with no entries (nothing, only blank lines, only a header) is named
  (:func:`no_entries`, ``empty``, fatal): built anyway, it made a silently smaller dataset.
* **CSV/TSV** (:func:`csv_rows`): the ``csv`` module fed the decoded lines, so that every
  record has its true line (a quoted multi-line record: the line it starts on), the field
  limit is ours (:data:`MAX_LINE_CHARS`, with our message), a line break inside a quoted
  field is refused at the record (it is a control character in a published text), and an
  unclosed quote is fatal (``unclosed-quote``: every line after it would be read as part of
  one field).

Why decoded a block at a time (:func:`line_blocks`) rather than through a text-mode file:
``io.TextIOWrapper`` decodes ahead in chunks, so a bad byte raised when the chunk holding it
was decoded, naming the first line not yet handed out (line 4912 for a bad byte on line 5001)
and with no way to go on after it. Here complete lines are decoded a block at a time (as fast
as the text layer) and, only in a block that fails, line by line. Line ends are ``\\n`` and
``\\r\\n``; a lone ``\\r`` in a file with LF line ends is a control character in its line
(refused at that line: read as a line end it numbered every later line one too late), and
the line end only of a file that has no LF at all (classic Mac OS).

The fast CoNLL-U reader (:mod:`polyprobe.loaders.conllu`) keeps its own block reader (it
places byte offsets on lines for parallel reading) with the same contract, built from the
helpers here (:func:`not_text`, :func:`mark_controls`, :func:`mark_long_lines`).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import re
import stat
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Protocol

from polyprobe.controlchars import control_name, first_control
from polyprobe.errors import InputError


class Policy(Protocol):
    """What the layer asks of the build's ``--on-invalid`` policy
    (:class:`polyprobe.loaders.source.InvalidPolicy`): raise a problem or count it. A
    protocol, so that the source module (whose :func:`~polyprobe.loaders.source.file_entries`
    checks paths here) and this one do not import each other."""

    skipped: Counter[str]

    def reject(self, error: InputError) -> None: ...


__all__ = [
    "BLOCK",
    "COMPRESSIONS",
    "CONTROL_BYTES",
    "LINE_FORMATS",
    "MAX_LINE_CHARS",
    "BadLine",
    "LineStats",
    "Policy",
    "bad_encoding",
    "check_file",
    "compression_of",
    "control_problem",
    "csv_rows",
    "has_control",
    "has_long_line",
    "line_blocks",
    "lines_of",
    "mark_controls",
    "mark_long_lines",
    "no_entries",
    "not_text",
    "numbered_lines",
    "open_binary",
    "open_raw",
    "read_bytes",
    "read_note",
    "read_text",
    "refused_since",
    "text_lines",
    "text_problem",
    "too_long",
]

#: The most characters a line of an input file (and a record of a CSV file, a quoted
#: multi-line record included) may hold. A million characters is about 200 pages of text:
#: far above any sentence, word list line or table row of the formats read here (the longest
#: line of the shared data is 7,492 bytes, in the English Wikipedia dump; Multi-SimLex's
#: longest row 3,324), far below what makes a build crawl (a 10 MB line took ``build text``
#: 25 s and ``build costra`` 61 s before it was refused).
MAX_LINE_CHARS = 1_000_000
#: A run of more bytes than this without a line end holds more than MAX_LINE_CHARS
#: characters whatever they are (UTF-8 uses at most 4 bytes a character): it is dropped as
#: it is read instead of being held in memory.
_MAX_LINE_BYTES = 4 * MAX_LINE_CHARS + 4

BLOCK = 1 << 20  # bytes per read: amortises decoding, bounded memory
_BOM = b"\xef\xbb\xbf"

#: The compressions a line format accepts: gzip (``.conllu.gz``, ``.txt.gz``, ``.tsv.gz``...).
#: bz2/xz text files are refused with what to do (:func:`not_text`), as the CoNLL-U reader
#: refuses them; the XML dump readers accept all of :data:`COMPRESSIONS` but zstd.
LINE_FORMATS: tuple[str, ...] = ("gzip",)
_DUMPS: tuple[str, ...] = ("gzip", "bz2", "xz")


def _with(problem: str, what: str | None) -> str:
    return f"{problem} (the {what})" if what else problem


# --------------------------------------------------------------------------- the path


def check_file(path: str | Path, what: str | None = None) -> Path:
    """``path`` as a :class:`Path` when it is a regular file, else one
    :class:`InputError` naming it: ``missing-file`` (no such file, a folder, a device or
    pipe) or ``unreadable`` (no permission, a broken link, a disk error). ``what`` names the
    file's role in the message (``"profile"``: "no such file (the profile)")."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError(p, None, _with("no such file", what), "missing-file") from None
    except OSError as exc:
        problem = f"cannot be read: {exc.strerror or exc}"
        raise InputError(p, None, _with(problem, what), "unreadable") from None
    if stat.S_ISDIR(mode):
        raise InputError(p, None, _with("is a folder, not a file", what), "missing-file")
    if not stat.S_ISREG(mode):
        problem = "is not a regular file (a device, pipe or socket)"
        raise InputError(p, None, _with(problem, what), "missing-file")
    return p


def open_raw(path: str | Path, what: str | None = None) -> BinaryIO:
    """The stored bytes of ``path``, seekable, the path checked as by :func:`check_file`:
    for a reader that seeks (a multistream dump's streams)."""
    path = check_file(path, what)
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller's with-block
    except OSError as exc:
        problem = f"cannot be read: {exc.strerror or exc}"
        raise InputError(path, None, _with(problem, what), "unreadable") from None


# ------------------------------------------------------------------------ compression

#: (magic bytes, compression name), tried in order. zstd is recognised so that it can be
#: refused by name; bz2 by its block header too, so that a word list starting "BZh" is text.
COMPRESSIONS: tuple[tuple[re.Pattern[bytes], str], ...] = (
    (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), "bz2"),
    (re.compile(rb"\x1f\x8b"), "gzip"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz"),
    (re.compile(rb"\(\xb5/\xfd"), "zstd"),
)
_LABELS = {"gzip": "gzip", "bz2": "bzip2", "xz": "xz", "zstd": "zstd"}


def _kind(head: bytes) -> str:
    for magic, name in COMPRESSIONS:
        if magic.match(head):
            return name
    return "plain"


def compression_of(path: str | Path) -> str:
    """``bz2``, ``gzip``, ``xz``, ``zstd`` or ``plain``, from the file's first bytes (the
    path checked as by :func:`check_file`)."""
    with open_raw(Path(path), None) as raw:
        return _kind(raw.read(16))


class _Stream:
    """A file's decompressed bytes (or its bytes, when plain), whose read errors are
    :class:`InputError`: a truncated stream ``truncated-<kind>``, a damaged one
    ``corrupt-<kind>``, a disk error ``unreadable``; all fatal, naming the file and how far
    it was read (``delivered`` bytes of content)."""

    __slots__ = ("_broken", "_raw", "_stream", "delivered", "kind", "path")

    def __init__(self, path: Path, raw: BinaryIO, kind: str) -> None:
        self.path = path
        self.kind = kind
        self._raw = raw
        self.delivered = 0
        self._broken: InputError | None = None  # raised by the read after the good bytes
        if kind == "gzip":
            self._stream: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
        elif kind == "bz2":
            self._stream = bz2.BZ2File(raw, "rb")  # type: ignore[assignment]
        elif kind == "xz":
            self._stream = lzma.LZMAFile(raw, "rb")  # type: ignore[assignment]
        else:
            self._stream = raw

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all with -1). A compressed stream is read a piece at a time
        (``read1``) so that the bytes before a break are handed out first and the error
        comes with the next read: it then names the line the break is really on (a whole
        ``read`` drops the piece it was decompressing when the stream broke)."""
        if self._broken is not None:
            raise self._broken
        if self.kind == "plain":
            return self._read(size)
        out = bytearray()
        while size < 0 or len(out) < size:
            try:
                piece = self._read(size - len(out) if size >= 0 else 1 << 20, piece=True)
            except InputError as exc:
                if not out:
                    raise
                self._broken = exc
                break
            if not piece:
                break
            out += piece
        return bytes(out)

    def _read(self, size: int, piece: bool = False) -> bytes:
        try:
            data = self._stream.read1(size) if piece else self._stream.read(size)  # type: ignore[attr-defined]
        except EOFError:
            raise InputError(
                self.path,
                None,
                f"truncated {_LABELS[self.kind]} file: the compressed stream ends early, after "
                f"{self.delivered:,} decompressed bytes (an incomplete download?); the rest of "
                "the file is lost",
                f"truncated-{self.kind}",
            ) from None
        except (OSError, zlib.error, lzma.LZMAError) as exc:
            if self.kind == "plain":
                problem = f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
                raise InputError(self.path, None, problem, "unreadable") from None
            raise InputError(
                self.path,
                None,
                f"corrupt {_LABELS[self.kind]} file: the compressed stream is damaged after "
                f"{self.delivered:,} decompressed bytes ({exc}); the rest of the file is lost",
                f"corrupt-{self.kind}",
            ) from None
        self.delivered += len(data)
        return data

    def peek(self, size: int) -> bytes:
        """Up to ``size`` first bytes not yet read, without consuming them; ``b""`` for a
        stream broken there (reading it then reports that)."""
        try:
            return self._stream.peek(size)[:size]  # type: ignore[attr-defined]
        except (OSError, EOFError, zlib.error, lzma.LZMAError):
            return b""

    def close(self) -> None:
        try:
            if self._stream is not self._raw:
                self._stream.close()
        finally:
            self._raw.close()

    def __enter__(self) -> _Stream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_binary(
    path: str | Path, *, accept: Sequence[str] = _DUMPS, what: str | None = None
) -> _Stream:
    """The content of ``path`` as a stream of bytes: decompressed when its magic bytes say
    gzip, bz2 or xz and the compression is in ``accept`` (else read as it is, for the
    caller's :func:`not_text` to refuse), a zstd file refused with what to do. Why bytes:
    an XML parser must see them to detect UTF-16 and declared encodings itself."""
    p = Path(path)
    raw = open_raw(p, what)
    try:
        head = raw.peek(16)[:16]  # type: ignore[attr-defined]
        kind = _kind(head)
        if kind == "zstd":
            raise InputError(
                p,
                None,
                "is zstd-compressed, which polyprobe cannot read: decompress it first "
                "(zstd -d FILE) or recompress it as gzip",
                "undecodable",
            )
        return _Stream(p, raw, kind if kind in accept else "plain")
    except BaseException:
        raw.close()
        raise


def read_bytes(path: str | Path, what: str | None = None) -> bytes:
    """The whole stored bytes of a small file (not decompressed), the path checked as by
    :func:`check_file`: for a reader that must decide a known file's encoding from all of
    its bytes (TREC)."""
    with open_raw(Path(path), what) as raw:
        try:
            return raw.read()
        except OSError as exc:
            problem = f"cannot be read: {exc.strerror or exc}"
            raise InputError(path, None, problem, "unreadable") from None


# ------------------------------------------------------------------------- bad lines


class BadLine(str):
    """A line a reader must refuse: not valid UTF-8 (``reason`` ``bad-encoding``, the
    decoder's complaint in ``problem``), holding a control character (``control-character``)
    or longer than :data:`MAX_LINE_CHARS` (``too-long``).

    It is a ``str`` (a single U+FFFD, so it holds no tab and is not blank) so that a hot loop
    needs no extra test on good lines: it fails the loop's column check, and only there does
    the reader ask whether the line was refused."""

    __slots__ = ("problem", "reason")
    problem: str
    reason: str


def _bad_line(problem: str, reason: str) -> BadLine:
    bad = BadLine("\ufffd")
    bad.problem = problem
    bad.reason = reason
    return bad


def bad_encoding(path: str | Path, number: int, line: BadLine) -> InputError:
    """The error a reader reports for a :class:`BadLine` at line ``number``."""
    if line.reason == "bad-encoding":
        return InputError(path, number, f"not UTF-8 ({line.problem})", "bad-encoding")
    return InputError(path, number, line.problem, line.reason)


def too_long(chars: int | None, what: str = "line") -> str:
    """How a line (or record, field) over :data:`MAX_LINE_CHARS` is named."""
    size = (
        f"{chars:,} characters"
        if chars is not None
        else f"more than {_MAX_LINE_BYTES:,} bytes without a line end"
    )
    return f"{what} too long: {size}; a {what} may hold at most {MAX_LINE_CHARS:,} characters"


def has_long_line(data: bytes) -> bool:
    """May a block of whole lines hold a line of more than :data:`MAX_LINE_CHARS`
    characters? Such a line has more bytes than that, so it holds a whole window of half as
    many bytes without a line end; a look per window (three ``find`` calls for a 1 MiB
    block, each stopping at the first line end) so that the hot readers pay nothing."""
    n = len(data)
    if n <= MAX_LINE_CHARS:
        return False
    width = MAX_LINE_CHARS // 2
    for start in range(0, n, width):
        end = min(start + width, n)
        if end - start == width and data.find(b"\n", start, end) < 0:
            return True
    return False


def mark_long_lines(lines: list[str], what: str = "line") -> list[str]:
    """``lines`` with every line over :data:`MAX_LINE_CHARS` characters replaced by a
    :class:`BadLine` (``too-long``). Only called for a block :func:`has_long_line` flags."""
    return [
        _bad_line(too_long(len(line), what), "too-long")
        if len(line) > MAX_LINE_CHARS and type(line) is str
        else line
        for line in lines
    ]


#: C0 control bytes a line may not hold: all of U+0000-U+001F but tab (a column separator)
#: and LF/CR (line ends; a CR a reader leaves inside a line is found by :func:`control_problem`).
CONTROL_BYTES: tuple[int, ...] = tuple(b for b in range(32) if b not in (9, 10, 13))


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
    """What to say about a line holding a C0 control character other than tab
    (:func:`polyprobe.controlchars.first_control`), or ``None`` when it holds none or is
    blank (whitespace only: readers treat it as a blank line, and nothing of it is
    published). ``columns`` names the tab-separated columns; a line starting with
    ``comment`` is a comment line."""
    at = first_control(line)
    if at < 0 or line.isspace():
        return None
    if comment is not None and line.startswith(comment):
        where = "a comment line"
    elif "\t" not in line and not columns:
        where = "the line"
    else:
        col = line.count("\t", 0, at)
        where = f"column {columns[col]}" if col < len(columns) else f"column {col + 1}"
    return f"control character {control_name(line[at])} in {where}"


def text_problem(value: str, what: str = "text") -> str | None:
    """What to say about a value a reader parsed out of a line (a JSON string, a quoted CSV
    field, XML text) that holds a character the published strings may not, or ``None``.
    A line break is named as such: it is how a multi-line field shows."""
    at = first_control(value)
    if at < 0:
        return None
    if value[at] in "\n\r":
        return f"{what} holds a line break (a text must be one line)"
    return f"control character {control_name(value[at])} in {what}"


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
# The byte-order marks a reader may opt in to (utf16=True), longest first.
_UTF_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
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


# ------------------------------------------------------------------------ decoding


def _split(text: str) -> list[str]:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _split_lf(text: str) -> list[str]:
    """Lines of a block of a file that has LF line ends: ``\\r\\n`` is a line end, a lone
    ``\\r`` is not (it stays in its line, which is then refused as holding a control
    character at its own number: read as a line end it pushed every later line's number one
    too far)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text.split("\n")


def _decode(data: bytes, lf: bool = True) -> list[str]:
    """Lines of a run of whole lines (only the file's last may lack its line end), the bad
    ones as :class:`BadLine`. ``lf``: the file has LF line ends (a lone CR is a control
    character in its line); ``False`` only for a file without any LF, whose line ends are
    CRs (classic Mac OS)."""
    split = _split_lf if lf else _split
    try:
        lines = split(data.decode("utf-8"))
    except UnicodeDecodeError:
        lines = []
        for raw in data.split(b"\n"):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problem = f"{exc.reason} at byte {exc.start + 1} of the line"
                lines.append(_bad_line(problem, "bad-encoding"))
                continue
            text = text.removesuffix("\r")
            lines.extend(split(text) if "\r" in text else (text,))
    if lines and lines[-1] == "" and type(lines[-1]) is str:
        lines.pop()  # the empty string after the last line end
    if has_control(data) or (lf and b"\r" in data and any("\r" in line for line in lines)):
        lines = mark_controls(lines)
    if has_long_line(data):
        lines = mark_long_lines(lines)
    return lines


def line_blocks(
    path: str | Path, block: int = BLOCK, *, accept: Sequence[str] = LINE_FORMATS
) -> Iterator[list[str]]:
    """Lists of lines (without line ends, refused ones as :class:`BadLine`), in file order;
    lines are numbered from 1 across the lists. The path is checked (:func:`check_file`), a
    file that is not text refused whole (:func:`not_text`, ``undecodable``), a broken
    compressed stream fatal naming the first line not read."""
    path = Path(path)
    block = max(block, len(_BOM))  # the first read must hold a whole byte-order mark
    delivered = 0
    with open_binary(path, accept=accept) as fh:
        problem = not_text(fh.peek(16))
        if problem is not None:
            raise InputError(path, None, problem, "undecodable")
        tail = b""
        first = True
        seen_lf = False  # a file without any LF has CR line ends (classic Mac OS)
        dropping = False  # inside a line already over the limit, its bytes not kept
        while True:
            try:
                chunk = fh.read(block)
            except InputError as exc:
                raise InputError(
                    path, delivered + 1, f"{exc.problem} (at line {delivered + 1})", exc.reason
                ) from None
            if not chunk:
                break
            if first:
                first = False
                if chunk.startswith(_BOM):
                    chunk = chunk[3:]
            if dropping:
                end = chunk.find(b"\n")
                if end < 0:
                    continue
                dropping = False
                delivered += 1
                yield [_bad_line(too_long(None), "too-long")]
                chunk = chunk[end + 1 :]
            cut = chunk.rfind(b"\n")
            if cut < 0:
                tail += chunk
                if len(tail) > _MAX_LINE_BYTES and b"\r" not in tail:
                    tail = b""
                    dropping = True
                continue
            data = tail + chunk[: cut + 1] if tail else chunk[: cut + 1]
            tail = chunk[cut + 1 :]
            seen_lf = True
            lines = _decode(data)
            delivered += len(lines)
            yield lines
        if dropping:
            yield [_bad_line(too_long(None), "too-long")]
        elif tail:
            yield _decode(tail, lf=seen_lf)


def numbered_lines(
    path: str | Path, block: int = BLOCK, *, accept: Sequence[str] = LINE_FORMATS
) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` pairs; refused lines come as :class:`BadLine`."""
    number = 0
    for lines in line_blocks(path, block, accept=accept):
        for line in lines:
            number += 1
            yield number, line


# ------------------------------------------------------------------ lines for readers


@dataclass
class LineStats:
    """What :func:`text_lines` saw of one file: lines read, blank ones, refused ones (handed
    to the policy), so that a reader can tell an empty file from one whose every line was
    refused."""

    lines: int = 0
    blank: int = 0
    refused: int = 0


def text_lines(
    path: str | Path,
    policy: Policy,
    *,
    stats: LineStats | None = None,
    refused_as_blank: bool = False,
    accept: Sequence[str] = LINE_FORMATS,
) -> Iterator[tuple[int, str]]:
    """``(number, line)`` of every line of ``path`` that is text, blank lines included; a
    refused line (:class:`BadLine`) goes to ``policy`` and is left out (``refused_as_blank``:
    yielded as ``""``, for a format where a blank line separates items and a refused one
    must too). ``stats``, when given, is filled as the lines are read."""
    stats = stats if stats is not None else LineStats()
    reject = policy.reject
    for number, line in numbered_lines(path, accept=accept):
        stats.lines += 1
        if type(line) is BadLine:
            stats.refused += 1
            reject(bad_encoding(path, number, line))
            if refused_as_blank:
                yield number, ""
            continue
        if not line or line.isspace():
            stats.blank += 1
        yield number, line


def no_entries(path: str | Path, detail: str = "no entries", refused: int = 0) -> InputError:
    """The fatal ``empty`` error of a file that gave no entry: nothing in it, only blank
    lines, only a header (``detail`` says which), or, under ``--on-invalid skip``, every
    entry refused (``refused`` of them): built anyway, the dataset would silently lack the
    file."""
    if refused:
        detail = f"no entries left: all {refused:,} of them were refused"
    return InputError(path, None, f"empty ({detail})", "empty")


def refused_since(policy: Policy, before: int) -> int:
    """How many items ``policy`` has skipped since its total was ``before``
    (``sum(policy.skipped.values())``): what a reader refused of one file."""
    return sum(policy.skipped.values()) - before


# ------------------------------------------------------------------------------ CSV


class _Records:
    """The lines :func:`csv_rows` feeds the ``csv`` reader, with where each record starts
    and ends. The reader asks for a line only to start a record or to go on with a quoted
    field, so a request while a record is open is a field running over lines: at the end of
    the file that is an unclosed quote, and past :data:`MAX_LINE_CHARS` characters a field
    that swallows the file; both fatal (``unclosed-quote``), as every line after the quote
    would be read as a part of one field."""

    __slots__ = ("chars", "first", "last", "lines", "path")

    def __init__(self, path: Path, lines: Iterator[tuple[int, str]]) -> None:
        self.path = path
        self.lines = lines
        self.first: int | None = None  # the open record's first line
        self.last = 0
        self.chars = 0

    def __iter__(self) -> _Records:
        return self

    def __next__(self) -> str:
        try:
            number, line = next(self.lines)
        except StopIteration:
            if self.first is not None:
                raise InputError(
                    self.path,
                    self.first,
                    "a quoted field opened on this line is never closed (an unclosed quote): "
                    "the rest of the file would be read as one field",
                    "unclosed-quote",
                ) from None
            raise
        if self.first is None:
            self.first = number
            self.chars = 0
        self.last = number
        self.chars += len(line) + 1
        if self.chars > MAX_LINE_CHARS and number != self.first:
            raise InputError(
                self.path,
                self.first,
                f"a quoted field runs on from this line to line {number} for more than "
                f"{MAX_LINE_CHARS:,} characters (an unclosed quote?): the lines after it "
                "cannot be told apart from the field",
                "unclosed-quote",
            )
        return line + "\n"

    def close(self) -> tuple[int, int]:
        """The record just read: (its first line, its last line)."""
        first = self.first if self.first is not None else self.last
        self.first = None
        return first, self.last


def csv_rows(
    path: str | Path,
    policy: Policy,
    *,
    delimiter: str,
    quoting: int = csv.QUOTE_MINIMAL,
    stats: LineStats | None = None,
    accept: Sequence[str] = LINE_FORMATS,
) -> Iterator[tuple[int, list[str]]]:
    """``(line, fields)`` of every non-blank record of a CSV/TSV file (``line``: where the
    record starts), read through :func:`text_lines` (so bad bytes, control characters and
    over-long lines are refused at their own line first). A record whose quoted field spans
    lines is refused at its first line (``control-character``: a published text is one
    line); a record the ``csv`` module cannot parse is ``bad-line``."""
    p = Path(path)
    # The csv module's field limit is process-wide (default 131,072); ours is larger and
    # checked per record by _Records, so the module's must never be the one that is hit.
    if csv.field_size_limit() < MAX_LINE_CHARS + 2:
        csv.field_size_limit(MAX_LINE_CHARS + 2)
    feed = _Records(p, text_lines(p, policy, stats=stats, accept=accept))
    reader = csv.reader(feed, delimiter=delimiter, quoting=quoting)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            first, _ = feed.close()
            problem = f"not a {delimiter!r}-separated record: {exc}"
            policy.reject(InputError(p, first, problem, "bad-line"))
            continue
        first, last = feed.close()
        if not fields or not any(f.strip() for f in fields):
            continue
        if last != first:
            found = (text_problem(f, f"field {i + 1}") for i, f in enumerate(fields))
            problem = next((t for t in found if t), None)
            if problem is not None:
                problem = f"{problem}: the quoted field runs over lines {first}-{last}"
                policy.reject(InputError(p, first, problem, "control-character"))
                continue
        yield first, fields


# ------------------------------------------------------------------- a whole small file


def read_text(
    path: str | Path,
    what: str | None = None,
    *,
    utf16: bool = False,
    accept: Sequence[str] = LINE_FORMATS,
) -> str:
    """The whole text of a small file (a profile, a relation map, an RST document), strictly:
    a missing file, a folder, an empty file (nothing but whitespace), a byte that is not
    UTF-8, a control character or an over-long line is one :class:`InputError` naming the
    file and the line. ``utf16=True``: a format that allows UTF-16/32 (XML) opts in, and a
    file with such a byte-order mark is decoded by it. Line ends are kept as they are."""
    p = Path(path)
    with open_binary(p, accept=accept, what=what) as fh:
        data = fh.read()
    encoding = "utf-8"
    if utf16:
        encoding = next((enc for bom, enc in _UTF_BOMS if data.startswith(bom)), "utf-8")
    if encoding == "utf-8":
        problem = not_text(data[:16])
        if problem is not None:
            raise InputError(p, None, _with(problem, what), "undecodable")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        at = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problem = f"not {encoding.upper()} ({exc.reason} at byte {at} of the line)"
        raise InputError(p, line, problem, "bad-encoding") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InputError(p, None, f"empty (the {what or 'file'} holds nothing)", "empty")
    _check_text(p, text)
    return text


def read_note(path: str | Path) -> str | None:
    """A README or LICENSE beside the data, read for what it says about the data (licence,
    language, citation, version), or ``None`` when it is not a regular file. Lenient on
    purpose, and only here: a byte that is not UTF-8 becomes U+FFFD (these texts are searched
    for a licence or a language name; nothing of them becomes a row, and a README with one
    bad byte must not fail a build), but never decoded in another encoding."""
    p = Path(path)
    try:
        check_file(p)
        with open_raw(p) as raw:
            data = raw.read()
    except (InputError, OSError):
        return None
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


_CONTROL_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")  # C0 but tab and line ends


def _check_text(path: Path, text: str) -> None:
    """A whole text's control characters (line ends allowed: LF, CRLF and a lone CR) and
    over-long lines, named at their line (numbered as :func:`lines_of` numbers them)."""
    found = _CONTROL_IN_TEXT.search(text)
    if found is not None:
        line = len(_split(text[: found.start()]))
        problem = f"control character {control_name(found.group())} in the line"
        raise InputError(path, line, problem, "control-character")
    if len(text) > MAX_LINE_CHARS:
        for number, line in lines_of(text):
            if len(line) > MAX_LINE_CHARS:
                raise InputError(path, number, too_long(len(line)), "too-long")


def lines_of(text: str) -> Iterable[tuple[int, str]]:
    """``(number, line)`` of a text :func:`read_text` returned (line ends as text mode)."""
    return enumerate(_split(text), 1)
