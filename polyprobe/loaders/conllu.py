"""Fast streaming CoNLL-U reader with validation and skip counting.

Why not ``conllu.parse_incr``: it runs several regular expressions per line and builds a
generic ``Token`` per line, which makes it the bottleneck of every build (about 10 µs per
token). This reader does one ``str.split('\\t')`` per line, recognises ids by comparing the
column with the expected id string (no regex, no ``int()``), looks heads up in a table,
parses FEATS/MISC through a bounded cache, and reads the file in big blocks of complete
lines. Records are the slotted dataclasses of :mod:`polyprobe.loaders.records`.

Why it validates: a probing dataset built from a broken tree silently teaches the wrong
labels, so every structural problem is reported as an :class:`~polyprobe.errors.InputError`
naming the file, the 1-based line and the problem; with ``on_invalid="skip"`` the whole
sentence is dropped and counted under a short stable reason key (:data:`REASONS`) so that
the counts can be written into the dataset card.

What it deliberately accepts, because real UD releases contain it: forms, lemmas and misc
values containing spaces; ``_`` as a form; FEATS/MISC items without ``=``; MISC values that
contain ``=`` (``Cxn=free=rc-obj`` keeps the value ``free=rc-obj``); comments without
``=``; CRLF line endings; a UTF-8 byte order mark; a missing final blank line.

What it refuses besides broken trees: a C0 control character other than tab in any line
(``control-character``: valid UTF-8, but a NUL or an ESC in a form would be published in the
sentence), found a block at a time so that the per-line loops never look for it. And, whatever
the ``--on-invalid`` policy, a file it cannot read to its end: a broken gzip stream
(``truncated-gzip``, ``corrupt-gzip``) or a file that is not UTF-8 text at all
(``undecodable``): skipping "one item" there would hide every sentence after the break.
"""

from __future__ import annotations

import collections
import gzip
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import (
    BadLine,
    check_file,
    has_control,
    has_long_line,
    mark_controls,
    mark_long_lines,
    not_text,
)
from polyprobe.loaders.records import EmptyNode, MultiwordToken, Sentence, SourceFile, Word
from polyprobe.loaders.sniff import SNIFF_LINES, sniff_file
from polyprobe.loaders.source import FATAL_REASONS, ON_INVALID

__all__ = [
    "FATAL_REASONS",
    "REASONS",
    "LazyWord",
    "block_sent_ids",
    "file_stem",
    "read_conllu",
    "split_of",
]

#: Every reason key the reader can count in ``skipped`` (stable: cards and tests use them).
REASONS: dict[str, str] = {
    "bad-column-count": "a token line does not have exactly 10 tab-separated columns",
    "empty-field": "a column is empty (use '_' for an unspecified value)",
    "non-integer-id": "the ID column is not an integer, a range a-b or a decimal n.m",
    "id-out-of-order": "word ids are not 1..n in order (gap, repeat or wrong start)",
    "bad-multiword-range": "a multiword range is reversed, overlapping, misplaced or too long",
    "bad-empty-node": "an empty node id n.m is out of sequence",
    "non-integer-head": "the HEAD column of a word is not a non-negative integer",
    "head-out-of-range": "HEAD points past the last word of the sentence",
    "no-root": "no word has HEAD 0",
    "multiple-roots": "more than one word has HEAD 0",
    "cycle": "the HEAD relation contains a cycle (including a word headed by itself)",
    "no-words": "a sentence block has comments but no word lines",
    "bad-encoding": "a line is not valid UTF-8",
    "control-character": "a line holds a C0 control character other than tab (NUL, ESC, a "
    "lone CR, ...)",
}
# A broken gzip stream (``truncated-gzip``, ``corrupt-gzip``) and a file that is not text
# (``undecodable``) are whole-file problems: FATAL_REASONS, never counted here.

#: The columns of a token line, as messages name them.
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")

_BLOCK = 1 << 20  # bytes per read: big enough to amortise decoding, small enough for memory
_CACHE_MAX = 16384  # distinct FEATS/MISC strings cached; bounded so memory stays constant
_TABLE = 2048  # ids/heads below this are matched by table lookup, larger ones slowly
_ID_STR = [str(i) for i in range(_TABLE)]
_HEAD_INT = {str(i): i for i in range(_TABLE)}
_SPLIT_RE = re.compile(r"-ud-(train|dev|test)(?:-[^./\\]+)?\.conllu(?:\.gz)?$")
_GZIP_MAGIC = b"\x1f\x8b"


# A line the reader refuses whatever it holds: not UTF-8 (``reason`` ``bad-encoding``) or
# holding a control character. It is a ``str`` so the hot loop needs no extra check: it
# contains no tab, so it falls into the slow path (and the fast path declines its chunk).
_BadLine = BadLine


class _StreamEnd:
    """Marker a block reader yields after the last complete line when the stream broke."""

    __slots__ = ("problem", "reason")

    def __init__(self, problem: str, reason: str) -> None:
        self.problem = problem
        self.reason = reason


# --------------------------------------------------------------------------------------
# file names


def file_stem(path: str | Path) -> str:
    """``en_ewt-ud-train.conllu.gz`` -> ``en_ewt-ud-train`` (used for fallback ids)."""
    name = Path(path).name
    for suffix in (".gz", ".conllu"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def split_of(path: str | Path) -> str | None:
    """UD split from a file name (``*-ud-<split>.conllu[.gz]``, also ``*-ud-train-x.conllu``
    as in multi-file treebanks), else ``None``."""
    m = _SPLIT_RE.search(Path(path).name)
    return m.group(1) if m else None


# --------------------------------------------------------------------------------------
# reading blocks of lines


def _decode_lines(data: bytes) -> list[str]:
    """Decode a block of complete lines; on bad UTF-8 decode line by line so that only the
    offending lines become :class:`_BadLine` and everything before them stays usable. Lines
    holding a control character become :class:`_BadLine` too (:func:`_has_control` decides,
    from the bytes, whether the block needs that look at its lines)."""
    if data.endswith(b"\r"):  # only a file's last line ends so: a line end, not a character
        data = data[:-1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        out: list[str] = []
        for raw in data.split(b"\n"):
            try:
                out.append(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                bad = _BadLine("\ufffd")
                bad.problem = f"invalid UTF-8 ({e.reason} at byte {e.start} of the line)"
                bad.reason = "bad-encoding"
                out.append(bad)
        if out and out[-1] == "" and not isinstance(out[-1], _BadLine):
            out.pop()
        lines = [s[:-1] if s.endswith("\r") and type(s) is str else s for s in out]
    else:
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
    if _has_control(data):
        lines = _mark_controls(lines)
    if has_long_line(data):  # three find() calls a block: nothing on the hot path
        lines = mark_long_lines(lines)
    return lines


def _has_control(data: bytes) -> bool:
    """Does a block hold a control character a line may not: a C0 byte other than tab and
    LF, or a CR that does not end a line (CRLF files are read as LF files)?"""
    if has_control(data):
        return True
    return b"\r" in data and data.count(b"\r") != data.count(b"\r\n")


def _mark_controls(lines: list[str]) -> list[str]:
    """The block's lines with those holding a control character as :class:`_BadLine`."""
    return mark_controls(lines, COLUMNS, comment="#")


def _blocks(path: Path) -> Iterator[list[str] | _StreamEnd]:
    """Yield lists of decoded lines (complete lines only) of a plain or gzip file, then, if
    the stream broke, one :class:`_StreamEnd`."""
    for data in _raw_blocks(path):
        yield data if isinstance(data, _StreamEnd) else _decode_lines(data)


def _raw_blocks(path: Path) -> Iterator[bytes | _StreamEnd]:
    """Yield the bytes of a plain or gzip file a block of complete lines at a time (a
    leading byte order mark dropped), then, if the stream broke, one :class:`_StreamEnd`.
    Gzip is recognised by its magic bytes, not by the name, so a mis-named file is still
    read correctly. Undecoded, so that a reader of a part (:func:`_read_part`) can place a
    byte offset on a line."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the with-block below
    except OSError as e:
        raise InputError(path, None, f"cannot open: {e.strerror or e}", "unreadable") from e
    with raw:
        head = raw.peek(16)[:16]
        is_gzip = head.startswith(_GZIP_MAGIC)
        if path.name.endswith(".gz") and not is_gzip:
            yield _StreamEnd("not a gzip file (bad magic bytes)", "corrupt-gzip")
            return
        stream = gzip.GzipFile(fileobj=raw, mode="rb") if is_gzip else raw
        if is_gzip:
            try:
                head = stream.peek(16)[:16]  # type: ignore[union-attr]
            except (OSError, EOFError, zlib.error):
                head = b""  # a broken stream: the reads below report it
        problem = not_text(head)
        if problem is not None:
            raise InputError(path, None, problem, "undecodable")
        tail = b""
        first = True
        while True:
            try:
                chunk = stream.read(_BLOCK)
            except EOFError as e:
                yield _StreamEnd(f"truncated gzip file: {e}", "truncated-gzip")
                return
            except (OSError, zlib.error) as e:
                if not is_gzip:  # a disk error, not bad data: never skipped
                    raise InputError(path, None, f"read error: {e}", "unreadable") from e
                yield _StreamEnd(f"corrupt gzip file: {e}", "corrupt-gzip")
                return
            if not chunk:
                break
            if first:
                first = False
                if chunk.startswith(b"\xef\xbb\xbf"):
                    chunk = chunk[3:]
            cut = chunk.rfind(b"\n")
            if cut < 0:
                tail += chunk
                continue
            data = tail + chunk[: cut + 1] if tail else chunk[: cut + 1]
            tail = chunk[cut + 1 :]
            yield data
        if tail:
            yield tail


# --------------------------------------------------------------------------------------
# FEATS / MISC


def _parse_pairs(value: str) -> dict[str, str]:
    """``A=B|C=D`` -> dict; an item without ``=`` gets ``""``; the value is everything after
    the first ``=``; empty items and ``_`` items are ignored (as ``conllu`` does)."""
    out: dict[str, str] = {}
    for item in value.split("|"):
        key, _, val = item.partition("=")
        if key and key != "_":
            out[key] = val
    return out


_FEATS_SLOT = Word.feats  # the slot descriptors of the dataclass; LazyWord stores the raw
_MISC_SLOT = Word.misc  # column string there until the property below first parses it


class _PairCache(dict[str, dict[str, str]]):
    """FEATS/MISC column string -> parsed dict, filled on a miss and bounded so memory stays
    constant. Shared by every file read in the process: the cached dicts are never handed
    out, callers always get a copy (``dict.copy`` of a small dict is far cheaper than
    splitting the string again), so sharing them cannot leak a mutation."""

    def __missing__(self, key: str) -> dict[str, str]:
        value = _parse_pairs(key)
        if len(self) < _CACHE_MAX:
            self[key] = value
        return value


_PAIRS = _PairCache({"_": {}})


class LazyWord(Word):
    """A :class:`Word` whose ``feats`` and ``misc`` are parsed on first access.

    Why: building two dicts per word is the largest single cost of reading, and many passes
    (sentence length, word order, counting) never look at them. The constructor takes the
    same arguments as ``Word`` (raw column strings or dicts); reading ``feats``/``misc``
    always returns a dict, which is then kept. Equality with a plain ``Word`` compares fields.
    """

    __slots__ = ()

    def __init__(
        self,
        id: int,
        form: str,
        lemma: str,
        upos: str,
        xpos: str,
        feats: dict[str, str] | str,
        head: int,
        deprel: str,
        deps: str,
        misc: dict[str, str] | str,
    ) -> None:
        self.id = id
        self.form = form
        self.lemma = lemma
        self.upos = upos
        self.xpos = xpos
        _FEATS_SLOT.__set__(self, feats)
        self.head = head
        self.deprel = deprel
        self.deps = deps
        _MISC_SLOT.__set__(self, misc)

    @property  # type: ignore[override]
    def feats(self) -> dict[str, str]:
        value = _FEATS_SLOT.__get__(self, LazyWord)
        if value.__class__ is str:
            value = _PAIRS[value].copy()
            _FEATS_SLOT.__set__(self, value)
        return value

    @feats.setter
    def feats(self, value: dict[str, str]) -> None:
        _FEATS_SLOT.__set__(self, value)

    @property  # type: ignore[override]
    def misc(self) -> dict[str, str]:
        value = _MISC_SLOT.__get__(self, LazyWord)
        if value.__class__ is str:
            value = _PAIRS[value].copy()
            _MISC_SLOT.__set__(self, value)
        return value

    @misc.setter
    def misc(self, value: dict[str, str]) -> None:
        _MISC_SLOT.__set__(self, value)

    def _fields(self) -> tuple[object, ...]:
        return (
            self.id,
            self.form,
            self.lemma,
            self.upos,
            self.xpos,
            self.feats,
            self.head,
            self.deprel,
            self.deps,
            self.misc,
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Word):
            mine = self._fields()
            theirs = (
                other.id,
                other.form,
                other.lemma,
                other.upos,
                other.xpos,
                other.feats,
                other.head,
                other.deprel,
                other.deps,
                other.misc,
            )
            return mine == theirs
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like Word


# --------------------------------------------------------------------------------------
# the reader


def read_conllu(
    path: str | Path,
    *,
    treebank: str | None = None,
    split: str | None = None,
    on_invalid: str = "raise",
    skipped: collections.Counter[str] | None = None,
    lazy: bool = False,
    shared_dicts: bool = False,
    start: int | None = None,
    stop: int | None = None,
    before: Callable[[str], object] | None = None,
) -> Iterator[Sentence]:
    """Stream the sentences of one CoNLL-U file (plain or gzip) in constant memory.

    ``treebank`` defaults to the file stem and ``split`` is recorded as given (``discover``
    infers it from the file name). With ``on_invalid="raise"`` the first problem raises an
    :class:`InputError`; with ``"skip"`` the sentence containing it is dropped and
    ``skipped[reason] += 1``. A broken gzip stream (``truncated-gzip``/``corrupt-gzip``) and
    a file that is not UTF-8 text (``undecodable``) raise in either mode: nothing after the
    break is readable, so there is no sentence to skip.

    ``lazy=True`` yields :class:`LazyWord` words whose FEATS/MISC are parsed on first access
    (a pass that never looks at them, such as counting or sentence length, saves that work);
    they are still ``Word`` instances and ``w.feats`` is still a real dict.

    ``shared_dicts=True``: words whose FEATS (MISC) columns are the same string share one
    ``feats`` (``misc``) dict, the reader's parsed copy, instead of getting their own; they
    must then never be changed. The build's passes read this way (a dict copy per column
    per word is 8% of a pass) and no builder changes a word
    (``tests/test_conllu_reader.py`` checks the shared dicts after every task has run).

    ``start``/``stop`` (byte offsets into the decompressed file) read a *part* of the file,
    so that several processes can share one file's records: the sentences from the first
    :func:`cut <_opens_part>` at or after byte ``start`` (``None``: the file's start) up to the
    first cut at or after byte ``stop`` (``None``: its end). Parts with ``stop == start`` of
    the next one concatenate to the whole read exactly: same sentences, ids, doc ids, line
    numbers and ``skipped`` counts (:func:`_read_part` says how). ``before``, with a
    ``start``, is called with the sent_id of every sentence block before the part (what the
    reader would call it were it valid), so that a caller can check ids against them.
    """
    if on_invalid not in ON_INVALID:
        raise UsageError(f"on_invalid must be one of {ON_INVALID}, not {on_invalid!r}")
    p = Path(path)
    if p.is_dir():
        problem = "is a folder, not a file (read a folder with discover/read_sources)"
        raise InputError(p, None, problem, "missing-file")
    check_file(p)  # missing, not a regular file, unreadable: as every reader says it
    stem = file_stem(p)
    source = SourceFile(treebank or stem, str(p), split)
    if start is None and stop is None:
        return _read(p, stem, source, on_invalid == "skip", skipped, lazy, shared=shared_dicts)
    part = _Part(start, stop, before)
    return _read_part(p, stem, source, on_invalid == "skip", skipped, lazy, shared_dicts, part)


class _FileState:
    """Counters of one file that the sentence fast path and the line machine share: either
    may read the next sentence, so both continue from where the other stopped."""

    __slots__ = ("doc_id", "doc_no", "lineno", "sent_no")

    def __init__(self) -> None:
        self.lineno = 0  # lines consumed so far
        self.sent_no = 0  # sentence blocks seen (including skipped ones)
        self.doc_no = 0  # `# newdoc` lines seen (for generated doc ids)
        self.doc_id: str | None = None


def _read(
    p: Path,
    stem: str,
    source: SourceFile,
    skip: bool,
    skipped: collections.Counter[str] | None,
    lazy: bool,
    fast: bool = True,
    shared: bool = False,
) -> Iterator[Sentence]:
    """Cut each block of lines at its blank lines into sentence chunks and build each chunk
    with :func:`_fast_sentence`; a chunk it declines (anything unusual or wrong) goes to the
    line-by-line machine :func:`_lines`, which alone produces errors, so their wording and
    line numbers are exactly those of the line machine. ``fast=False`` (tests) reads the
    whole file with the line machine only."""
    if skipped is None:
        skipped = collections.Counter()
    state = _FileState()
    if not fast:
        yield from _lines(p, stem, source, skip, skipped, lazy, state, _blocks(p))
        _check_not_empty(p, state)
        return
    pending: list[str] = []  # an unfinished chunk carried over from the previous block
    for block in _blocks(p):
        if isinstance(block, _StreamEnd):
            # The line machine reports lines of the open chunk, then the broken stream.
            yield from _lines(p, stem, source, skip, skipped, lazy, state, [pending, block])
            return
        pos = 0
        while True:
            try:
                end = block.index("", pos)  # a C-level scan for the next blank line
            except ValueError:
                pending += block[pos:]
                break
            if pending:
                chunk = pending + block[pos:end]
                pending = []
            else:
                chunk = block[pos:end]
            if chunk:
                sent = _fast_sentence(chunk, state, stem, source, lazy, shared)
                if sent is None:
                    yield from _lines(p, stem, source, skip, skipped, lazy, state, [chunk])
                else:
                    yield sent
            state.lineno += 1  # the blank line
            pos = end + 1
    if pending:  # end of file without a final blank line
        sent = _fast_sentence(pending, state, stem, source, lazy, shared)
        if sent is None:
            yield from _lines(p, stem, source, skip, skipped, lazy, state, [pending])
        else:
            yield sent
    _check_not_empty(p, state)


def _check_not_empty(p: Path, state: _FileState) -> None:
    """A whole file without a sentence block (nothing in it, only blank lines) is the fatal
    ``empty`` every reader raises: built anyway, a treebank would silently lack the file."""
    if state.sent_no == 0:
        raise InputError(p, None, "empty (no sentences)", "empty")


# --------------------------------------------------------------------------------------
# parts of a file


_NEVER = sys.maxsize  # a line index no file reaches: "not placed yet"
_DIGITS = frozenset("0123456789")


class _Part:
    """Where a part of a file starts and stops: byte offsets (``None``: the file's start,
    its end) until the block of lines holding them is read, then line indexes (0-based) of
    the lines holding those bytes. Byte offsets, because every process can compute them
    from the files' sizes alone; lines, because a cut is made between lines."""

    __slots__ = ("before", "start", "start_line", "stop", "stop_line")

    def __init__(
        self, start: int | None, stop: int | None, before: Callable[[str], object] | None
    ) -> None:
        self.start = start
        self.stop = stop
        self.start_line = 0 if start is None else _NEVER
        self.stop_line = _NEVER
        self.before = before

    def place(self, data: bytes, offset: int, seen: int) -> None:
        """Place the offsets that fall in ``data`` (the block at byte ``offset`` of the
        file, its first line the file's line ``seen``, 0-based) on the lines holding them."""
        end = offset + len(data)
        start, stop = self.start, self.stop
        if start is not None and self.start_line == _NEVER and start < end:
            self.start_line = seen + _newlines(data, max(start - offset, 0))
        if stop is not None and self.stop_line == _NEVER and stop < end:
            self.stop_line = seen + _newlines(data, max(stop - offset, 0))


def _newlines(data: bytes, end: int) -> int:
    """How many line ends ``data[:end]`` holds. Why numpy: ``bytes.count`` of one byte is a
    byte-by-byte loop, the largest single cost of a part's scan; a vector compare is ~4x
    faster. Imported here: numpy is loaded by any build, but ``polyprobe --help`` imports
    this module too."""
    import numpy as np

    return int(np.count_nonzero(np.frombuffer(data, np.uint8, min(end, len(data))) == 10))


def _opens_part(first: str, doc_id: str | None) -> bool:
    """Whether a part may start at a chunk (lines after an empty line) whose first line is
    ``first``, the file's open document being ``doc_id``: where no document is open (a file
    without ``# newdoc`` marks, or before its first one), or where the chunk's first line
    opens a document. So no document (:class:`~polyprobe.loaders.ud_documents.DocumentGrouper`)
    spans two parts, and the rule needs only what was read before the chunk: no process has
    to look ahead to know where another's part begins."""
    return doc_id is None or (first[0] == "#" and _comment(first, {}, 0, None, "")[0] == 1)


def _read_part(
    p: Path,
    stem: str,
    source: SourceFile,
    skip: bool,
    skipped: collections.Counter[str] | None,
    lazy: bool,
    shared: bool,
    part: _Part,
) -> Iterator[Sentence]:
    """The sentences of one part of a file (``read_conllu``'s ``start``/``stop``).

    Why parts concatenate to the whole read: a part starts only at a chunk (the lines after
    an empty line) where :func:`_opens_part` allows it, and between two chunks the reader's
    whole state is its :class:`_FileState` (line count, sentence blocks, ``# newdoc`` count
    and the open doc id: what line numbers and generated ``<stem>-<n>``/``<stem>-doc<n>``
    ids depend on). Before its start a part only scans (:func:`_scan_chunk`: decoded lines,
    no sentence built), counting exactly as the reader does; from its start it reads each
    chunk as :func:`_read` does, and it stops at the first allowed chunk at or after its
    stop, which is where the next part, scanning the same bytes, starts. A chunk the scan
    cannot count by its shape (a comment or a whitespace line after a word line, a line
    that is not UTF-8 text, no word line) goes to the line machine with a throwaway
    ``skipped``, as it alone knows which comment lines an invalid sentence hides: rare, so
    a scan stays cheap. Invalid sentences before the start are counted by the part that
    reads them, and an error before it is raised by that part: a part raising there too
    comes after it."""
    if skipped is None:
        skipped = collections.Counter()
    state = _FileState()
    before = part.before
    reading = part.start_line == 0
    pending: list[str] = []  # an unfinished chunk carried over from the previous block
    offset = 0  # bytes of the blocks so far
    text = b""  # an unfinished chunk carried over by the byte scan (see _scan_bytes)
    for data in _raw_blocks(p):
        if isinstance(data, _StreamEnd):
            if text:
                pending = _text_lines(text)
            if pending:
                if not reading:
                    reading = state.lineno >= part.start_line and _opens_part(
                        pending[0], state.doc_id
                    )
                if (
                    reading
                    and state.lineno >= part.stop_line
                    and _opens_part(pending[0], state.doc_id)
                ):
                    return
            if reading:
                yield from _lines(p, stem, source, skip, skipped, lazy, state, [pending, data])
            else:
                _scan_lines(p, stem, source, lazy, state, [pending, data], before)
            return
        # the lines before this block: those counted, and the unfinished chunk's
        part.place(data, offset, state.lineno + (text.count(b"\n") if text else len(pending)))
        offset += len(data)
        block = None
        # Before the block holding the start, and in it up to the start's byte, the chunks
        # are counted by the byte scan; the rest of that block is read line by line.
        limit = None
        if not reading and part.start_line != _NEVER:
            limit = (part.start or 0) - offset  # > -len(data): the start is in this block
        if not reading and (limit is None or limit > -len(data)):
            if pending:  # carried over by the line scan (a line that was not UTF-8 comes
                # back as U+FFFD: a line the byte scan sends to the line machine as well)
                text = "\n".join(pending).encode("utf-8") + b"\n"
                pending = []
            at = None if limit is None else len(text) + len(data) + limit
            rest = _scan_bytes(data, text, state, stem, before, at)
            if rest is not None:
                text = b""
                if at is None:
                    text = rest
                    continue
                block = _decode_lines(rest) if rest else []
        if text:
            pending = _text_lines(text)
            text = b""
        if block is None:
            block = _decode_lines(data)
        pos = 0
        while True:
            try:
                end = block.index("", pos)
            except ValueError:
                pending += block[pos:]
                break
            if pending:
                chunk = pending + block[pos:end]
                pending = []
            else:
                chunk = block[pos:end]
            if chunk:
                if not reading and state.lineno >= part.start_line:
                    reading = _opens_part(chunk[0], state.doc_id)
                if reading:
                    if state.lineno >= part.stop_line and _opens_part(chunk[0], state.doc_id):
                        return
                    sent = _fast_sentence(chunk, state, stem, source, lazy, shared)
                    if sent is None:
                        yield from _lines(p, stem, source, skip, skipped, lazy, state, [chunk])
                    else:
                        yield sent
                elif not _scan_chunk(chunk, state, stem, before):
                    _scan_lines(p, stem, source, lazy, state, [chunk], before)
            state.lineno += 1  # the empty line
            pos = end + 1
    if text:
        pending = _text_lines(text)
    if pending:  # end of file without a final blank line
        if not reading and state.lineno >= part.start_line:
            reading = _opens_part(pending[0], state.doc_id)
        if reading:
            if state.lineno >= part.stop_line and _opens_part(pending[0], state.doc_id):
                return
            sent = _fast_sentence(pending, state, stem, source, lazy, shared)
            if sent is None:
                yield from _lines(p, stem, source, skip, skipped, lazy, state, [pending])
            else:
                yield sent
        elif not _scan_chunk(pending, state, stem, before):
            _scan_lines(p, stem, source, lazy, state, [pending], before)


# A line that is a comment or starts with a byte that can start a whitespace-only line (ASCII
# whitespace, the separators FS..US, or the lead byte of U+0085, U+00A0, U+1680,
# U+2000..U+205F, U+3000; the line machine ends a sentence at a whitespace-only line).
_LINE_START = re.compile(rb"\n[#\t\x0b\x0c\x1c-\x1f \xc2\xe1-\xe3]")
_NOTED_FIRST = frozenset(b"#\t\x0b\x0c\x1c\x1d\x1e\x1f \xc2\xe1\xe2\xe3")


def _text_lines(text: bytes) -> list[str]:
    """The lines of a chunk :func:`_scan_bytes` carried over, as the line reader has them."""
    return _decode_lines(text) if text else []


def _scan_bytes(
    data: bytes,
    carried: bytes,
    state: _FileState,
    stem: str,
    before: Callable[[str], object] | None,
    limit: int | None = None,
) -> bytes | None:
    """Count the complete chunks of a block of a file that the part starts after, as the
    reader would, without decoding the block or splitting it into lines; return the
    unfinished chunk at its end (``carried`` is the previous block's; with ``limit``, the
    chunks from the first one not ended before byte ``limit`` of ``carried + data``), or
    ``None``, having changed no counter, when the block is not of the usual shape (a CR, a
    line that may be whitespace only, a comment line after a token line): the caller then
    scans it line by line.

    Why: a part process scans everything before its start, and decoding that and splitting
    it into lines cost it about as much as decompressing it; every pass over the bytes
    costs, so this makes few: one split at empty lines, one search for the lines that start
    with ``#`` or whitespace, one count of lines. A chunk (a sentence block) is usual when
    its comment lines all come first and a token line of word 1 follows
    (:func:`_scan_chunk`'s shape, whose counts follow from its comments alone, as a token
    line that is not UTF-8 or holds a control character hides no comment after it); the
    block is usual when the lines the search finds are exactly the usual chunks' comment
    lines (no whitespace-only line, no comment after a token line). Only the comment lines
    that can matter are decoded and read, by :func:`_comment` as the reader reads them: every
    one when a ``newdoc`` is among them (one that is not UTF-8 text sends the chunk to the
    line machine, as it hides the comments after it), else the one naming ``sent_id`` (for
    ``before``). Any other chunk goes to the line machine."""
    if b"\r" in data:
        return None
    if carried:
        data = carried + data
    if limit is None:
        chunks = data.split(b"\n\n")
        rest = chunks.pop()
        if not chunks:
            return data  # no chunk ends in this block
        if rest[:1] == b"\n":
            return None  # three empty lines in a row at the end
        end = len(data) - len(rest) - 2
    else:
        end = data.rfind(b"\n\n", 0, limit)
        if end < 0:
            return data
        chunks = data[:end].split(b"\n\n")
        rest = data[end + 2 :]
    noted = len(_LINE_START.findall(data, 0, end))  # lines starting with "#" or a space
    usual_noted = 0  # of which the usual chunks' comment lines
    saved = (state.lineno, state.sent_no, state.doc_no, state.doc_id)
    base = state.lineno
    sent_no = state.sent_no
    doc_no = state.doc_no
    doc_id = state.doc_id
    at = 0  # where the chunk starts in data
    for chunk in chunks:
        start = at
        at += len(chunk) + 2
        if not chunk:
            continue  # two more empty lines
        first = chunk[0]
        head = -1  # where the comment lines end; -1: an unusual chunk
        if first == 35:  # "#"
            head = chunk.find(b"\n1")  # the token line of word 1
            if head > 0 and chunk.count(b"\n#", 0, head) != chunk.count(b"\n", 0, head):
                head = -1
        elif 48 <= first <= 57:  # a digit: no comment line
            head = 0
        sid = None
        if head > 0:
            if chunk.find(b"newdoc", 0, head) >= 0:
                header = chunk[:head]
                comments: dict[str, str] = {}
                try:
                    for line in header.decode("utf-8").split("\n"):
                        doc_no, doc_id = _comment(line, comments, doc_no, doc_id, stem)
                except UnicodeDecodeError:
                    head = -1
                if has_control(header):
                    head = -1
                sid = comments.get("sent_id")
            elif before is not None:
                line_end = chunk.find(b"\n")
                if (  # the usual: a first line "# sent_id = ...", and no other sent_id
                    chunk.startswith(b"# sent_id = ")
                    and line_end > 0
                    and chunk.find(b"sent_id", line_end, head) < 0
                ):
                    try:
                        sid = chunk[12:line_end].decode("utf-8").strip()
                    except UnicodeDecodeError:
                        sid = None  # a line that is not UTF-8: an invalid sentence
                else:
                    sid = _sent_id(chunk, head)
        if head < 0:  # the line machine counts it
            usual_noted += len(_LINE_START.findall(chunk)) + (start > 0 and first in _NOTED_FIRST)
            state.lineno = base + data.count(b"\n", 0, start)
            state.sent_no = sent_no
            state.doc_no = doc_no
            state.doc_id = doc_id
            _scan_lines(Path(stem), stem, _NO_SOURCE, True, state, [_decode_lines(chunk)], before)
            sent_no = state.sent_no
            doc_no = state.doc_no
            doc_id = state.doc_id
            continue
        if head:  # its comment lines, but for one at the block's start (no "\n" before it)
            usual_noted += chunk.count(b"\n", 0, head) + (start > 0)
        sent_no += 1
        if before is not None:
            before(sid or f"{stem}-{sent_no}")
    if usual_noted != noted:  # a whitespace line or a comment after a token line somewhere
        state.lineno, state.sent_no, state.doc_no, state.doc_id = saved
        return None
    state.lineno = base + _newlines(data, end + 2)
    state.sent_no = sent_no
    state.doc_no = doc_no
    state.doc_id = doc_id
    return rest


_STARTS = b"#0123456789"
_NO_SOURCE = SourceFile("", "", None)  # the scan's sentences are thrown away


def _sent_id(chunk: bytes, head: int) -> str | None:
    """The ``sent_id`` of a chunk whose comment lines end at ``head``, as :func:`_comment`
    reads it (``None``: none, or a line that is not UTF-8, which makes the sentence invalid:
    its id then matters to no one). The usual ``# sent_id = `` line, once, is cut out
    directly; anything else is read line by line."""
    k = chunk.find(b"sent_id", 0, head)
    if k < 0:
        return None
    if k < 2 or chunk[k - 2 : k] != b"# " or chunk.find(b"sent_id", k + 7, head) >= 0:
        return _read_sent_id(chunk, head)
    if k > 2 and chunk[k - 3] != 10:  # "# sent_id" not at a line's start
        return None
    end = chunk.find(b"\n", k, head)
    key, eq, value = chunk[k : end if end >= 0 else head].partition(b"=")
    if not eq:
        return None
    if key.strip() != b"sent_id":  # perhaps Unicode spaces around it: read as the reader does
        return _read_sent_id(chunk, head)
    try:
        return value.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None


def _read_sent_id(chunk: bytes, head: int) -> str | None:
    """:func:`_sent_id` the reader's way: every comment line through :func:`_comment`."""
    comments: dict[str, str] = {}
    try:
        for line in chunk[:head].decode("utf-8").split("\n"):
            _comment(line, comments, 0, None, "")
    except UnicodeDecodeError:
        return None
    return comments.get("sent_id")


def _scan_chunk(
    chunk: list[str], state: _FileState, stem: str, before: Callable[[str], object] | None
) -> bool:
    """Count a chunk the way the reader would, without building its sentence, if it has the
    usual shape: comment lines, then lines starting with a digit (a word, range or empty
    node line: never a comment nor blank). The line machine then starts one sentence block
    at its first line and takes every comment before any line could be found invalid, so
    the counters follow from the comments alone; ``False`` (nothing changed) otherwise.
    ``before`` gets the sent_id the sentence would have."""
    k = len(chunk)
    ncom = 0
    while chunk[ncom][0] == "#":  # chunk lines are never empty
        ncom += 1
        if ncom == k:
            return False  # no word line: the line machine's "no-words"
    digits = _DIGITS
    for i in range(ncom, k):
        if chunk[i][0] not in digits:
            return False
    comments: dict[str, str] = {}
    doc_no = state.doc_no
    doc_id = state.doc_id
    for i in range(ncom):
        doc_no, doc_id = _comment(chunk[i], comments, doc_no, doc_id, stem)
    state.doc_no = doc_no
    state.doc_id = doc_id
    state.lineno += k
    state.sent_no += 1
    if before is not None:
        before(comments.get("sent_id") or f"{stem}-{state.sent_no}")
    return True


def _scan_lines(
    p: Path,
    stem: str,
    source: SourceFile,
    lazy: bool,
    state: _FileState,
    blocks: list[list[str] | _StreamEnd],
    before: Callable[[str], object] | None,
) -> None:
    """Count lines the scan cannot count by their shape with the line machine itself
    (``skip`` mode, its counts thrown away: they belong to the part that reads them). Only a
    broken stream raises here, as it does in every part that reaches it."""
    for sent in _lines(p, stem, source, True, collections.Counter(), lazy, state, blocks):
        if before is not None:
            before(sent.sent_id)


def block_sent_ids(path: str | Path, add: Callable[[str], object]) -> None:
    """Call ``add`` with the sent_id of every sentence block of a CoNLL-U file, as
    :func:`read_conllu` would name the sentence were it valid, without building sentences:
    what a part of a treebank checks its ids against (the sentences of the treebank's files
    before the part's; a duplicate found among them is then confirmed by a real read)."""
    p = Path(path)
    stem = file_stem(p)
    part = _Part(_NEVER, None, add)
    for _ in _read_part(p, stem, SourceFile(stem, str(p), None), True, None, True, False, part):
        pass


def _comment(
    line: str, comments: dict[str, str], doc_no: int, doc_id: str | None, stem: str
) -> tuple[int, str | None]:
    """Record a ``# key = value`` comment line in ``comments``; returns the document counter
    and id after it (``# newdoc`` / ``# newdoc id = ...`` open a document; an id-less one is
    named ``<stem>-doc<n>``). Both reading paths call this, so they cannot disagree."""
    key, eq, value = line[1:].partition("=")
    if eq:
        key = key.strip()
        value = value.strip()
        comments[key] = value
        if key == "newdoc id":
            doc_no += 1
            doc_id = value or f"{stem}-doc{doc_no}"
    elif key.strip() == "newdoc":
        doc_no += 1
        doc_id = f"{stem}-doc{doc_no}"
    elif key.strip() == "newpar":  # a paragraph opening without an id
        comments["newpar"] = ""
    return doc_no, doc_id


def _fast_sentence(
    lines: list[str],
    state: _FileState,
    stem: str,
    source: SourceFile,
    lazy: bool,
    shared: bool = False,
) -> Sentence | None:
    """Build the sentence of one chunk (the non-blank lines between two blank lines), or
    return ``None``, changing nothing, when the chunk is not plain: comments after the
    first token line, empty nodes, ids or heads past the lookup tables, or any problem.

    Why a second reader: the line machine pays, on every line, for the states a line could
    be in (comment, range, empty node, sentence break, rejected sentence, line numbers for
    messages). Here a line is one unpacking ``split`` (which also checks the column count)
    and table lookups, and the tree is checked once per sentence. Every check the line
    machine makes on an accepted sentence is made here too, so a chunk accepted here is
    one the line machine accepts with the same result; anything else goes to the line
    machine, which owns every error message and line number."""
    k = len(lines)
    ncom = 0
    while lines[ncom][0] == "#":  # chunk lines are never empty
        ncom += 1
        if ncom == k:
            return None  # comments but no words
    if k - ncom >= _TABLE:
        return None
    id_str = _ID_STR
    head_int = _HEAD_INT
    pairs = _PAIRS
    word_cls = LazyWord if lazy else Word
    words: list[Word] = []
    append = words.append
    heads = [0]  # heads[i] = head of word i; index 0 is a placeholder 0 (as _find_cycle wants)
    multiword: list[MultiwordToken] = []
    mwt_end = 0
    nxt = 1
    try:
        for i in range(ncom, k):
            line = lines[i]
            wid, form, lemma, upos, xpos, f, h, deprel, deps, m = line.split("\t")
            if "\t\t" in line or line[-1] == "\t":
                return None  # an empty column (an empty ID column fails the id check)
            if wid != id_str[nxt]:
                # A multiword range a-b: a is the next word, b > a, no overlap.
                a, sep, b = wid.partition("-")
                last = head_int.get(b)
                if not sep or a != id_str[nxt] or last is None or last <= nxt or nxt <= mwt_end:
                    return None
                mwt_end = last
                multiword.append(MultiwordToken(nxt, last, form, pairs[m].copy()))
                continue
            hd = head_int[h]
            if lazy:  # LazyWord parses the raw columns on first access
                append(word_cls(nxt, form, lemma, upos, xpos, f, hd, deprel, deps, m))  # type: ignore[arg-type]
            elif shared:  # the cache's own dicts (see read_conllu's shared_dicts)
                append(word_cls(nxt, form, lemma, upos, xpos, pairs[f], hd, deprel, deps, pairs[m]))
            else:  # parsed once per distinct string (shared cache), copied per word
                append(
                    word_cls(
                        nxt,
                        form,
                        lemma,
                        upos,
                        xpos,
                        pairs[f].copy(),
                        hd,
                        deprel,
                        deps,
                        pairs[m].copy(),
                    )
                )
            heads.append(hd)
            nxt += 1
    except (ValueError, KeyError):  # not 10 columns; a head not in the table
        return None
    n = nxt - 1
    if not n or mwt_end > n or max(heads) > n or heads.count(0) != 2 or _find_cycle(heads, n):
        return None  # one root means two zeros with the placeholder
    # Accepted: commit the file counters exactly as the line machine would have.
    comments: dict[str, str] = {}
    doc_no = state.doc_no
    doc_id = state.doc_id
    for i in range(ncom):
        doc_no, doc_id = _comment(lines[i], comments, doc_no, doc_id, stem)
    state.doc_no = doc_no
    state.doc_id = doc_id
    start = state.lineno + 1
    state.lineno += k
    state.sent_no += 1
    sid = comments.get("sent_id") or f"{stem}-{state.sent_no}"
    return Sentence(
        sid, comments.get("text"), doc_id, source, start, words, multiword, [], comments
    )


def _lines(
    p: Path,
    stem: str,
    source: SourceFile,
    skip: bool,
    skipped: collections.Counter[str],
    lazy: bool,
    state: _FileState,
    blocks: Iterable[list[str] | _StreamEnd],
) -> Iterator[Sentence]:
    """The line-by-line machine: reads every kind of line, validates as it goes and reports
    each problem with its line. Used for the chunks the fast path declines and, with
    ``fast=False``, for whole files. A sentence still open when ``blocks`` ends is finished
    as at the end of a file; a :class:`_StreamEnd` drops it and ends the file."""
    id_str = _ID_STR
    head_int = _HEAD_INT
    pairs = _PAIRS
    parse_pairs = _parse_pairs
    word_cls = LazyWord if lazy else Word
    table = _TABLE

    lineno = state.lineno
    sent_no = state.sent_no
    doc_no = state.doc_no
    doc_id = state.doc_id
    start = 0  # first line of the current block; 0 = between sentences
    bad: InputError | None = None  # first problem of the current block (skip mode)

    words: list[Word] = []
    heads: list[int] = [0]  # heads[i] = head of word i; index 0 unused
    nxt = 1  # the id the next word must have
    multiword: list[MultiwordToken] = []
    mwt_lines: list[int] = []
    mwt_end = 0  # last word covered by the latest multiword range
    empty: list[EmptyNode] = []
    extra: list[int] = []  # lines inside the token block that are not words
    comments: dict[str, str] = {}
    ncom = 0  # comment lines before the token block (the block starts at start + ncom)

    def finish() -> Sentence:
        """Check the tree and build the record (raises InputError)."""
        n = len(words)
        if n == 0:
            raise InputError(p, start, "sentence has no word lines", "no-words")
        if max(heads) > n:
            i = next(i for i in range(1, n + 1) if heads[i] > n)
            raise InputError(
                p,
                _word_line(start + ncom, extra, i),
                f"HEAD {heads[i]} of word {i} is out of range (sentence has {n} words)",
                "head-out-of-range",
            )
        roots = heads.count(0) - 1  # heads[0] is a placeholder 0
        if roots != 1:
            if roots == 0:
                raise InputError(p, start, "sentence has no root (no word with HEAD 0)", "no-root")
            second = [i for i in range(1, n + 1) if heads[i] == 0][1]
            raise InputError(
                p,
                _word_line(start + ncom, extra, second),
                f"sentence has {roots} roots (words with HEAD 0); word {second} is the second",
                "multiple-roots",
            )
        cyc = _find_cycle(heads, n)
        if cyc:
            raise InputError(
                p,
                _word_line(start + ncom, extra, cyc),
                f"HEAD relation has a cycle through word {cyc}",
                "cycle",
            )
        for m, ml in zip(multiword, mwt_lines, strict=True):
            if m.last > n:
                raise InputError(
                    p,
                    ml,
                    f"multiword range {m.first}-{m.last} goes past the last word ({n})",
                    "bad-multiword-range",
                )
        sid = comments.get("sent_id") or f"{stem}-{sent_no}"
        return Sentence(
            sid, comments.get("text"), doc_id, source, start, words, multiword, empty, comments
        )

    for block in blocks:
        if isinstance(block, _StreamEnd):
            # Everything after the break is unreadable: fatal whatever the policy, since
            # skipping "one item" would hide every sentence after it (FATAL_REASONS).
            raise InputError(
                p, max(lineno, 1), f"{block.problem} (after line {lineno})", block.reason
            )
        for line in block:
            lineno += 1
            if line:
                if bad is not None and not line.isspace():
                    continue  # rest of a sentence already rejected (skip mode)
                if not start:
                    start = lineno
                    sent_no += 1
                try:
                    if line[0] == "#":
                        if words or multiword or empty:
                            extra.append(lineno)  # comment inside the token block
                        else:
                            ncom += 1
                        doc_no, doc_id = _comment(line, comments, doc_no, doc_id, stem)
                        continue
                    cols = line.split("\t")
                    if len(cols) == 10 and nxt < table and cols[0] == id_str[nxt]:
                        # ---- hot path: a syntactic word with the expected id ----------
                        if "" in cols:
                            raise _empty_field(p, lineno, cols)
                        h = head_int.get(cols[6])
                        if h is None:
                            h = _slow_head(p, lineno, cols[6])
                        f = cols[5]
                        m = cols[9]
                        if lazy:  # LazyWord parses the raw columns on first access
                            feats = f  # type: ignore[assignment]
                            misc = m  # type: ignore[assignment]
                        else:  # parsed once per distinct string, copied per word
                            feats = pairs[f].copy()
                            misc = pairs[m].copy()
                        words.append(
                            word_cls(
                                nxt,
                                cols[1],
                                cols[2],
                                cols[3],
                                cols[4],
                                feats,
                                h,
                                cols[7],
                                cols[8],
                                misc,
                            )
                        )
                        heads.append(h)
                        nxt += 1
                        continue
                    # ---- slow path: ranges, empty nodes, big ids, errors ---------------
                    if isinstance(line, _BadLine):
                        raise InputError(p, lineno, line.problem, line.reason)
                    if line.isspace():  # whitespace-only line: a sentence break
                        raise _Blank
                    if len(cols) != 10:
                        if lineno <= 4 * SNIFF_LINES:  # a lexicon, TREC file... given as UD?
                            sniff_file(p, "conllu")
                        raise InputError(
                            p,
                            lineno,
                            f"expected 10 tab-separated columns, found {len(cols)}",
                            "bad-column-count",
                        )
                    if "" in cols:
                        raise _empty_field(p, lineno, cols)
                    kind, a, b = _parse_id(p, lineno, cols[0])
                    if kind == "word":
                        if a != nxt:
                            raise InputError(
                                p,
                                lineno,
                                f"word id {cols[0]} out of order: expected {nxt}",
                                "id-out-of-order",
                            )
                        h = _slow_head(p, lineno, cols[6])
                        words.append(
                            word_cls(
                                nxt,
                                cols[1],
                                cols[2],
                                cols[3],
                                cols[4],
                                {} if cols[5] == "_" else parse_pairs(cols[5]),
                                h,
                                cols[7],
                                cols[8],
                                {} if cols[9] == "_" else parse_pairs(cols[9]),
                            )
                        )
                        heads.append(h)
                        nxt += 1
                    elif kind == "range":
                        if not (a == nxt and b > a and a > mwt_end):
                            raise InputError(
                                p,
                                lineno,
                                f"bad multiword range {cols[0]}: must be a-b with a < b, "
                                f"start at the next word ({nxt}) and not overlap another range",
                                "bad-multiword-range",
                            )
                        mwt_end = b
                        multiword.append(
                            MultiwordToken(
                                a, b, cols[1], {} if cols[9] == "_" else parse_pairs(cols[9])
                            )
                        )
                        mwt_lines.append(lineno)
                        extra.append(lineno)
                    else:  # empty node a.b
                        prev = empty[-1].id.split(".") if empty else None
                        want = int(prev[1]) + 1 if prev and int(prev[0]) == a else 1
                        if a != nxt - 1 or b != want:
                            raise InputError(
                                p,
                                lineno,
                                f"empty node {cols[0]} out of sequence: expected "
                                f"{nxt - 1}.{want if a == nxt - 1 else 1}",
                                "bad-empty-node",
                            )
                        empty.append(
                            EmptyNode(
                                cols[0],
                                cols[1],
                                cols[2],
                                cols[3],
                                cols[4],
                                {} if cols[5] == "_" else parse_pairs(cols[5]),
                                cols[8],
                                {} if cols[9] == "_" else parse_pairs(cols[9]),
                            )
                        )
                        extra.append(lineno)
                    continue
                except InputError as e:
                    if not skip:
                        raise
                    bad = e
                    continue
                except _Blank:
                    if start == lineno:  # it did not start a sentence after all
                        start = 0
                        sent_no -= 1
            # ---- blank line: end of a sentence block ------------------------------------
            if not start:
                continue
            if bad is None:
                try:
                    sent = finish()
                except InputError as e:
                    if not skip:
                        raise
                    bad = e
                else:
                    yield sent
            if bad is not None:
                skipped[bad.reason] += 1
                bad = None
            start = 0
            words = []
            heads = [0]
            nxt = 1
            multiword = []
            mwt_lines = []
            mwt_end = 0
            empty = []
            extra = []
            comments = {}
            ncom = 0
    # ---- end of file without a final blank line -------------------------------------------
    if start:
        if bad is None:
            try:
                sent = finish()
            except InputError as e:
                if not skip:
                    raise
                bad = e
            else:
                yield sent
        if bad is not None:
            skipped[bad.reason] += 1
    state.lineno = lineno
    state.sent_no = sent_no
    state.doc_no = doc_no
    state.doc_id = doc_id


class _Blank(Exception):
    """Internal: a whitespace-only line found in the slow path ends the sentence."""


def _empty_field(p: Path, lineno: int, cols: list[str]) -> InputError:
    names = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
    which = ", ".join(n for n, c in zip(names, cols, strict=True) if c == "")
    return InputError(p, lineno, f"empty column {which} (use '_' for no value)", "empty-field")


def _is_uint(s: str) -> bool:
    """ASCII digits without a leading zero (``int()`` would also take ``+1``, ``1_0``, ``١``)."""
    return s.isascii() and s.isdigit() and (s == "0" or s[0] != "0")


def _slow_head(p: Path, lineno: int, s: str) -> int:
    if _is_uint(s):
        return int(s)
    raise InputError(p, lineno, f"HEAD {s!r} is not a non-negative integer", "non-integer-head")


def _parse_id(p: Path, lineno: int, s: str) -> tuple[str, int, int]:
    """Classify an ID column: ``("word", n, 0)``, ``("range", a, b)`` or ``("empty", n, m)``."""
    if _is_uint(s) and s != "0":
        return "word", int(s), 0
    a, sep, b = s.partition("-")
    if sep and _is_uint(a) and _is_uint(b) and a != "0":
        return "range", int(a), int(b)
    a, sep, b = s.partition(".")
    if sep and _is_uint(a) and _is_uint(b) and b != "0":
        return "empty", int(a), int(b)
    if s == "0":
        raise InputError(p, lineno, "word id 0 is reserved for the root", "id-out-of-order")
    raise InputError(p, lineno, f"ID {s!r} is not an integer, a-b or n.m", "non-integer-id")


def _word_line(first_tok: int, extra: list[int], word_id: int) -> int:
    """Line of word ``word_id``, recomputed only when reporting an error so that the hot
    loop does not have to remember a line per word: words are consecutive lines except
    for the range/empty-node/comment lines recorded in ``extra``."""
    line = first_tok + word_id - 1
    for x in extra:
        if x <= line:
            line += 1
    return line


def _find_cycle(heads: list[int], n: int) -> int:
    """0 if following HEAD from every word reaches the root, else a word on a cycle.

    Pointer doubling: after k rounds ``h[i]`` is the ancestor 2**k steps above word i (0
    once the root is passed, since ``heads[0] == 0``). Each round is one C-level
    ``itemgetter`` call, and a tree of depth d needs only about log2(d) rounds, which makes
    this check cheap enough to run on every sentence. Heads are already known to be in
    0..n. A word that has not reached 0 after 2**k >= n steps lies on or under a cycle."""
    h: tuple[int, ...] | list[int] = heads
    steps = 1
    while any(h):
        if steps > n:
            return _cycle_member(heads, n)
        h = itemgetter(*h)(h)  # len(heads) >= 2, so this is a tuple
        steps *= 2
    return 0


def _cycle_member(heads: list[int], n: int) -> int:
    """A word on a cycle (only called once a cycle is known to exist). Each word is visited
    a bounded number of times: state 0 new, 1 on the current path, 2 reaches the root."""
    state = bytearray(n + 1)
    state[0] = 2
    for i in range(1, n + 1):
        j = i
        while not state[j]:
            state[j] = 1
            j = heads[j]
        if state[j] == 1:
            return j
        j = i
        while state[j] == 1:
            state[j] = 2
            j = heads[j]
    return 0
