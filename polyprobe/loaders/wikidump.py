"""Stream the articles of a MediaWiki XML dump (``pages-articles``, bz2/gzip/xz/plain) in
constant memory.

Why expat directly (the parser under ``ElementTree.iterparse``): it is given the file's
*bytes*, so it detects UTF-8, UTF-16 with or without a byte-order mark and a declared
encoding itself (the shared Bulgarian excerpt is UTF-16-LE with a BOM and no XML
declaration), and it tells where it is: every page keeps the line its ``<page>`` starts on, and
a malformed dump is refused with its line, column and byte offset. Only the few elements a
build needs are collected; everything else streams past. Memory: one page at a time.

What is kept: namespace 0 (articles), not redirects, the text of the page's last revision
(a full-history dump lists revisions oldest first). The namespace names come from the dump's
``<siteinfo>``, so a cleaner can drop ``[[Файл:...]]`` as surely as ``[[File:...]]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import BadLine, bad_encoding, numbered_lines, open_binary, open_raw

__all__ = ["CHUNK", "HIDDEN_KEYS", "DumpReader", "SiteInfo", "WikiPage", "read_siteinfo"]

CHUNK = 1 << 20  # decompressed bytes fed to the parser at a time
BLOCK_PAGES = 100  # pages per block of an input shard (a multistream dump's block size)
# Namespaces whose links show nothing in running text: -2 Media, 6 File, 14 Category.
HIDDEN_KEYS: tuple[int, ...] = (-2, 6, 14)

# (parent element, element) pairs whose text a build needs.
_CAPTURED = frozenset(
    {
        ("siteinfo", "dbname"),
        ("namespaces", "namespace"),
        ("page", "title"),
        ("page", "ns"),
        ("page", "id"),
        ("revision", "id"),
        ("revision", "text"),
    }
)


@dataclass(frozen=True)
class SiteInfo:
    """What a dump's ``<siteinfo>`` says: the wiki's database name (``enwiki``), the language
    of the root element's ``xml:lang`` and the namespace names by key (localised: key 6 is
    ``Файл`` in bgwiki; key 0, the articles, has the empty name)."""

    dbname: str | None
    lang: str | None
    namespaces: dict[int, str] = field(default_factory=dict)

    def names(self, key: int) -> tuple[str, ...]:
        """The local name of namespace ``key`` (none if the dump does not list it)."""
        name = self.namespaces.get(key)
        return (name,) if name else ()


@dataclass(frozen=True, slots=True)
class WikiPage:
    """One article: its title, page id, namespace, the wikitext of its last revision, that
    revision's id and the line of the dump its ``<page>`` element starts on."""

    title: str
    page_id: str
    ns: int
    text: str
    revision_id: str | None
    line: int
    index: int = 0  # the page's position among all pages of the dump (0-based)


class _Handler:
    """Expat callbacks collecting the siteinfo and one page at a time."""

    def __init__(self, path: Path, parser: Any) -> None:
        self.path = path
        self.parser = parser
        self.stack: list[str] = []
        self.buffer: list[str] | None = None
        self.site_db: str | None = None
        self.site_lang: str | None = None
        self.namespaces: dict[int, str] = {}
        self.ns_key: int | None = None
        self.siteinfo_done = False
        self.pages: list[WikiPage] = []
        self.stats: Counter[str] = Counter()
        self.select: tuple[int, int] | None = None
        self.page_index = -1
        self.skipping = False  # inside a page another shard reads
        self._reset_page()

    def _reset_page(self) -> None:
        self.page_line = 0
        self.title = ""
        self.page_ns: int | None = None
        self.page_id = ""
        self.redirect = False
        self.rev_id: str | None = None
        self.text = ""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        stack = self.stack
        if not stack:
            if name != "mediawiki":
                raise InputError(
                    self.path,
                    self.parser.CurrentLineNumber,
                    f"not a MediaWiki XML dump: the root element is <{name}>, not <mediawiki>",
                    "bad-xml",
                )
            self.site_lang = attrs.get("xml:lang")
        parent = stack[-1] if stack else ""
        stack.append(name)
        if name == "page":
            self._reset_page()
            self.page_line = self.parser.CurrentLineNumber
            select = self.select
            # a page of another shard: its text is not even collected (each shard reads the
            # whole dump; joining every other shard's wikitext was a tenth of its time)
            self.skipping = (
                select is not None
                and ((self.page_index + 1) // BLOCK_PAGES) % select[1] != select[0]
            )
        elif name == "redirect" and parent == "page":
            self.redirect = True
        elif name == "namespace" and parent == "namespaces":
            try:
                self.ns_key = int(attrs.get("key", ""))
            except ValueError:
                self.ns_key = None
        if (parent, name) in _CAPTURED and not self.skipping:
            self.buffer = []

    def data(self, text: str) -> None:
        if self.buffer is not None:
            self.buffer.append(text)

    def end(self, name: str) -> None:
        stack = self.stack
        stack.pop()
        parent = stack[-1] if stack else ""
        if self.buffer is not None and (parent, name) in _CAPTURED:
            value = "".join(self.buffer)
            self.buffer = None
            self._captured(parent, name, value)
        elif name == "siteinfo":
            self.siteinfo_done = True
        elif name == "page":
            self._page_done()

    def _captured(self, parent: str, name: str, value: str) -> None:
        if name == "dbname":
            self.site_db = value.strip() or None
        elif name == "namespace":
            if self.ns_key is not None:
                self.namespaces[self.ns_key] = value.strip()
        elif name == "title":
            self.title = value
        elif name == "ns":
            try:
                self.page_ns = int(value.strip())
            except ValueError:
                raise InputError(
                    self.path,
                    self.parser.CurrentLineNumber,
                    f"page {self.title!r}: namespace {value.strip()!r} is not a number",
                    "bad-xml",
                ) from None
        elif name == "id" and parent == "page":
            self.page_id = value.strip()
        elif name == "id":
            self.rev_id = value.strip()
        elif name == "text":
            self.text = value  # the last revision's text wins

    def _page_done(self) -> None:
        self.page_index += 1
        select = self.select
        if select is not None and (self.page_index // BLOCK_PAGES) % select[1] != select[0]:
            self.skipping = False
            self._reset_page()
            return
        self.stats["pages"] += 1
        if self.page_ns != 0:
            self.stats["other namespace"] += 1
        elif self.redirect:
            self.stats["redirect"] += 1
        else:
            self.stats["articles"] += 1
            self.pages.append(
                WikiPage(
                    self.title,
                    self.page_id,
                    0,
                    self.text,
                    self.rev_id,
                    self.page_line,
                    self.page_index,
                )
            )
        self._reset_page()

    @property
    def siteinfo(self) -> SiteInfo:
        return SiteInfo(self.site_db, self.site_lang, dict(self.namespaces))


class DumpReader:
    """The articles of one dump file. ``stats`` counts pages read, articles kept, redirects
    and pages of other namespaces skipped (filled as :meth:`pages` runs)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.stats: Counter[str] = Counter()

    def pages(
        self, select: tuple[int, int] | None = None, index: Path | None = None
    ) -> Iterator[WikiPage]:
        """Articles in dump order (namespace 0, no redirects, last revision). ``select`` =
        ``(part, parts)``: only the pages of every ``parts``-th block of :data:`BLOCK_PAGES`
        pages starting with block ``part`` (an input shard; the dump is still read whole, but
        decompressing and parsing cost a tenth of cleaning), counted in ``stats`` alone.

        ``index``: the ``...-multistream-index.txt.bz2`` of a multistream dump (one bz2 stream
        per block of pages): then the blocks are the dump's own streams and a shard seeks to
        and decompresses only its own (random access). A page's ``line`` is then 0 (lines
        before a stream are not counted); its ``index`` is its position in the whole dump, as
        in a plain read."""
        if index is not None:
            yield from self._multistream(select, Path(index))
            return
        self._select = select
        for batch, _ in self._parse(stop_after_siteinfo=False):
            yield from batch

    def _multistream(self, select: tuple[int, int] | None, index: Path) -> Iterator[WikiPage]:
        offsets = _stream_offsets(index)
        with open_raw(self.path) as raw:
            header = _one_stream(self.path, raw, 0)
            for number, (offset, first_page) in enumerate(offsets):
                if select is not None and number % select[1] != select[0]:
                    continue
                body = _one_stream(self.path, raw, offset)
                parser = expat.ParserCreate()
                parser.buffer_text = True
                handler = _Handler(self.path, parser)
                handler.stats = self.stats
                handler.page_index = first_page - 1
                parser.StartElementHandler = handler.start
                parser.EndElementHandler = handler.end
                parser.CharacterDataHandler = handler.data
                try:
                    parser.Parse(header, False)
                    parser.Parse(body, False)
                except expat.ExpatError as exc:
                    raise InputError(
                        self.path,
                        None,
                        f"malformed XML in the bz2 stream at byte {offset} of the multistream "
                        f"dump: {expat.ErrorString(exc.code)}",
                        "bad-xml",
                    ) from None
                for page in handler.pages:
                    yield WikiPage(
                        page.title,
                        page.page_id,
                        page.ns,
                        page.text,
                        page.revision_id,
                        0,
                        page.index,
                    )

    def siteinfo(self) -> SiteInfo:
        """The dump's ``<siteinfo>`` (reads only the start of the file)."""
        found = [SiteInfo(None, None)]
        found.extend(info for _, info in self._parse(stop_after_siteinfo=True))
        return found[-1]

    def _parse(self, *, stop_after_siteinfo: bool) -> Iterator[tuple[list[WikiPage], SiteInfo]]:
        parser = expat.ParserCreate()
        parser.buffer_text = True
        parser.buffer_size = 1 << 16
        handler = _Handler(self.path, parser)
        if not stop_after_siteinfo:
            handler.stats = self.stats
            handler.select = getattr(self, "_select", None)
        size = (1 << 16) if stop_after_siteinfo else CHUNK
        parser.StartElementHandler = handler.start
        parser.EndElementHandler = handler.end
        parser.CharacterDataHandler = handler.data
        try:
            with open_binary(self.path) as stream:
                while True:
                    chunk = stream.read(size)  # a broken stream: InputError, fatal
                    if not chunk and not stream.delivered:
                        raise InputError(self.path, None, "empty (the file holds nothing)", "empty")
                    parser.Parse(chunk, not chunk)
                    if handler.pages or stop_after_siteinfo:
                        pages, handler.pages = handler.pages, []
                        yield pages, handler.siteinfo
                    if not chunk or (stop_after_siteinfo and handler.siteinfo_done):
                        return
        except expat.ExpatError as exc:
            message = expat.ErrorString(exc.code)
            raise InputError(
                self.path,
                exc.lineno,
                f"malformed XML at line {exc.lineno}, column {exc.offset} (byte "
                f"{parser.ErrorByteIndex} of the decompressed dump): {message}",
                "bad-xml",
            ) from None


def _stream_offsets(index: Path) -> list[tuple[int, int]]:
    """``(byte offset, index of its first page)`` of every page stream a multistream index
    lists (lines ``offset:page id:title``), in order."""
    streams: list[tuple[int, int]] = []
    last = -1
    for pages, (number, line) in enumerate(numbered_lines_any(index)):
        head = line.split(":", 1)[0]
        if not head.isdigit():
            raise InputError(index, number, "expected offset:page id:title", "bad-index")
        offset = int(head)
        if offset != last:
            if offset < last:
                raise InputError(index, number, "offsets must not decrease", "bad-index")
            streams.append((offset, pages))
            last = offset
    return streams


def multistream_index(dump: Path) -> Path | None:
    """The index beside a multistream dump (``X-multistream.xml.bz2`` →
    ``X-multistream-index.txt.bz2``, Wikimedia's naming), if there is one."""
    name = dump.name
    if not name.endswith("-multistream.xml.bz2"):
        return None
    index = dump.with_name(name[: -len(".xml.bz2")] + "-index.txt.bz2")
    return index if index.is_file() else None


def numbered_lines_any(path: Path) -> Iterator[tuple[int, str]]:
    """Non-blank lines of a plain, gzip, bz2 or xz text file with their numbers (an index is
    bz2), read through the input layer: a bad byte or control character is an error at its
    line (an index line that is not text cannot be trusted to place a stream)."""
    for number, line in numbered_lines(path, accept=("gzip", "bz2", "xz")):
        if isinstance(line, BadLine):
            raise bad_encoding(path, number, line)
        if line:
            yield number, line


def _one_stream(path: Path, raw: Any, offset: int) -> bytes:
    """The decompressed bytes of the one bz2 stream starting at ``offset``."""
    import bz2

    raw.seek(offset)
    decompressor = bz2.BZ2Decompressor()
    out: list[bytes] = []
    try:
        while not decompressor.eof:
            chunk = raw.read(1 << 16)
            if not chunk:
                raise InputError(
                    path, None, f"the bz2 stream at byte {offset} ends early", "truncated"
                )
            out.append(decompressor.decompress(chunk))
    except OSError as exc:
        raise InputError(
            path,
            None,
            f"no bz2 stream at byte {offset} (does the index fit the dump?): {exc}",
            "bad-index",
        ) from None
    return b"".join(out)


def read_siteinfo(path: str | Path) -> SiteInfo:
    """The ``<siteinfo>`` of the dump at ``path``."""
    return DumpReader(path).siteinfo()
