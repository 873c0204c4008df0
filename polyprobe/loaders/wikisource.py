"""A MediaWiki dump as a build's source: its articles, cleaned and split into sentences.

The reader (:mod:`polyprobe.loaders.wikidump`) streams the pages, the cleaner
(:mod:`polyprobe.loaders.wikitext`) turns each page's wikitext into paragraphs with section
titles, and the segmenter (:mod:`polyprobe.loaders.segmentation`) cuts them into sentences;
sentences with a template hole or markup left are kept in the record with their reason
(:class:`~polyprobe.loaders.rawtext.RawDocument`), so the build counts them. ``records``
yields each article as a :class:`~polyprobe.loaders.records.Document` of its kept sentences
(the lead section's title is ``None``).

A page whose wikitext holds a line over :data:`~polyprobe.loaders.inputs.MAX_LINE_CHARS`
characters is refused (``too-long``, skippable: the page is left out), as every reader
refuses such a line: cleaning and segmenting a 10 MB paragraph took minutes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.declared import DeclaredLanguage, declared
from polyprobe.loaders.inputs import MAX_LINE_CHARS, too_long
from polyprobe.loaders.rawtext import RawDocument, segment_paragraphs
from polyprobe.loaders.records import Document, SourceFile
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.loaders.wikidump import HIDDEN_KEYS, DumpReader, SiteInfo
from polyprobe.loaders.wikitext import WikitextCleaner
from polyprobe.metadata import SourceInfo

__all__ = ["DEFAULT_WIKI_LICENSE", "WikiDumpSource", "dump_name"]

# Wikipedia's text licence since June 2023 (older dumps: CC BY-SA 3.0 and GFDL; override
# with --license NAME=ID).
DEFAULT_WIKI_LICENSE = "CC-BY-SA-4.0"
_SUFFIXES = (".bz2", ".gz", ".xz", ".xml")


def dump_name(path: Path) -> str:
    """The source name of a dump file: its name without compression and ``.xml`` suffixes."""
    name = path.name
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                changed = True
    return name


@dataclass
class WikiDumpSource:
    """One dump file. ``segmenter`` splits and is described in the card; ``stats`` counts
    pages (read, kept, redirects and other namespaces skipped) and ``cleaning`` the lines the
    cleaner left out, after a full pass over :meth:`documents`."""

    path: Path
    segmenter: Segmenter
    license: str = DEFAULT_WIKI_LICENSE
    version: str | None = None
    stats: Counter[str] = field(default_factory=Counter)
    cleaning: Counter[str] = field(default_factory=Counter)
    # a multistream dump's index (random access by block); default: the one beside the dump
    index: Path | None = None

    def __post_init__(self) -> None:
        from polyprobe.loaders.wikidump import multistream_index

        self.path = Path(self.path)
        self._siteinfo: SiteInfo | None = None
        if self.index is None:
            self.index = multistream_index(self.path)

    @property
    def name(self) -> str:
        return dump_name(self.path)

    @property
    def siteinfo(self) -> SiteInfo:
        if self._siteinfo is None:
            self._siteinfo = DumpReader(self.path).siteinfo()
        return self._siteinfo

    @property
    def languages(self) -> tuple[DeclaredLanguage, ...]:
        """The language the dump declares (``xml:lang`` of its root, else its database name
        ``bgwiki``)."""
        site = self.siteinfo
        code = site.lang
        evidence = "the dump's xml:lang"
        if not code and site.dbname and site.dbname.endswith("wiki"):
            code, evidence = site.dbname[: -len("wiki")], "the dump's database name"
        found = declared(code, evidence) if code else None
        return (found,) if found is not None else ()

    @cached_property
    def info(self) -> SourceInfo:
        # once per source: the dump's checksum is a full read of a file of many GB
        return SourceInfo(
            "wikipedia-dump",
            self.name,
            self.version or "unknown",
            self.license,
            file_entries([(self.path.name, self.path)]),
        )

    def hidden_namespaces(self) -> tuple[str, ...]:
        site = self.siteinfo
        return tuple(name for key in HIDDEN_KEYS for name in site.names(key))

    def documents(
        self, policy: InvalidPolicy | None = None, select: tuple[int, int] | None = None
    ) -> Iterator[RawDocument]:
        """Every article, cleaned and split, in dump order (``select``: one input shard's
        blocks of pages, see :meth:`DumpReader.pages`). Articles with no running text
        (disambiguation lists, stubs made of templates) yield nothing (counted as
        ``article without running text``); ``RawDocument.line`` is the page's line."""
        reader = DumpReader(self.path)
        cleaner = WikitextCleaner(self.hidden_namespaces())
        source = SourceFile(self.name, str(self.path), None)
        # with an index a shard reads only its own streams (a whole read needs none)
        index = self.index if select is not None else None
        reject = (policy or InvalidPolicy("raise")).reject
        for page in reader.pages(select, index):
            if len(page.text) > MAX_LINE_CHARS:
                longest = max(map(len, page.text.split("\n")))
                if longest > MAX_LINE_CHARS:
                    problem = f"page {page.title!r}: {too_long(longest)}"
                    reject(InputError(self.path, page.line or None, problem, "too-long"))
                    continue
            paragraphs = cleaner.paragraphs(page.text)
            sentences = segment_paragraphs(
                ((p.section, p.text, page.line) for p in paragraphs), self.segmenter
            )
            if not sentences:
                cleaner.drops["article without running text"] += 1
                continue
            yield RawDocument(page.page_id, page.title, source, page.line, sentences, page.index)
        self.stats.clear()
        self.stats.update(reader.stats)
        self.cleaning.clear()
        self.cleaning.update(cleaner.drops)

    def records(self, policy: InvalidPolicy) -> Iterator[Document]:
        """Each article as a Document of its kept sentences (a dump has no per-item problem
        to skip: malformed XML is a whole-file error, raised with its line and byte)."""
        for doc in self.documents(policy):
            document = doc.document("sentence")
            if document.units:
                yield document
