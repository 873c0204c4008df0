"""Raw-text documents (Wikipedia articles, blank-line separated plain-text documents) as a
document stream of the discourse tasks (:class:`~polyprobe.builders.records.documents.
DocumentRecords`), beside the sentence stream of :mod:`polyprobe.builders.records.rawtext`.

What it decides, and why:

* **The same sentences as the sentence tasks**: a sentence the source marks (template hole,
  markup left) or the build's :class:`SentenceFilter` refuses (too short, no final
  punctuation: list items, captions) is not a unit of the document either
  (:func:`~polyprobe.builders.records.rawtext.sentence_verdict`, one rule for both streams).
* **Gaps, not new documents**: a dropped sentence does not cut the article into documents
  of their own; the article stays one record (one id, one group, so it never straddles
  splits) whose :attr:`~polyprobe.loaders.records.Document.breaks` mark where a sentence is
  missing, and no window of neighbours (sentence position, ordering, coherence) spans one.
  A window must never join two sentences that were not adjacent on the page.
* **Names**: a unit's id is the sentence's index on the page (dropped ones counted), as the
  sentence tasks' ``<doc id>/<index>``; rows name the page and the window's first sentence.
* **Sections**: Wikipedia's section titles go with each unit (the lead untitled), which
  makes ``sentence_section`` feasible; plain text has none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.family import Stream
from polyprobe.builders.records.documents import DocumentRecords
from polyprobe.builders.records.rawtext import (
    DROPPED,
    SentenceFilter,
    TextRecords,
    sentence_verdict,
)
from polyprobe.loaders.raw_records import DocumentPlace
from polyprobe.loaders.rawtext import sentence_document
from polyprobe.loaders.records import Document, Sentence, SourceFile
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

__all__ = [
    "LINES_NO_DOCUMENTS",
    "RAW_TEXT_DEFAULTS",
    "RawDocumentSource",
    "SentenceDocuments",
    "derivable",
    "has_documents",
    "raw_documents",
]

LINES_NO_DOCUMENTS = (
    "the text source is one sentence per line (--layout lines), so no sentence is known to "
    "follow another: there are no documents (use --layout documents: documents separated by "
    "blank lines)"
)

# Every window of an article rather than DiscoEval's first (sentence position, binary
# sentence ordering; coherence takes every window by default, as DiscoEval does): the first
# window gives one row per article, and a dump excerpt (the shared English one: 103 articles with running text) then
# falls below the class floors of every split (about 10 rows per class in validation). A full
# dump has millions of articles: a profile's ``[tasks.<name>] windows = 1`` (and
# ``per_document = 1``) restores DiscoEval's choice there. Sentence section takes as many lead
# and body sentences of each article as its shorter part has (``per_document = 0``).
RAW_TEXT_DEFAULTS: dict[str, dict[str, int]] = {
    "sentence_position": {"windows": 0},
    "binary_sentence_ordering": {"windows": 0},
    "discourse_coherence": {"windows": 0},
    "sentence_section": {"per_document": 0},
}


def derivable(sentences: Any, sources: list[Any]) -> bool:
    """Whether the documents of ``sources`` can be made from the sentence records
    ``sentences`` (:class:`SentenceDocuments`): they read exactly those sources and keep a
    sentence by the documents' own rule (no sentence left out as equal to a treebank
    sentence, no annotation: raw records that carry their place)."""
    return (
        isinstance(sentences, TextRecords)
        and not sentences.exclude
        and sentences.annotator is None
        and list(sentences.sources) == list(sources)
    )


def raw_documents(
    sources: Sequence[Any],
    names: Sequence[str],
    sentence_filter: SentenceFilter,
    sentences: TextRecords | None = None,
) -> Stream:
    """The discourse tasks ``names`` on the documents of the raw-text ``sources`` that have
    some; made from ``sentences`` (the build's sentence records) when :func:`derivable`, so
    a process running tasks of both streams reads the sources once per pass. Without any
    document (``--layout lines``) every task is reported infeasible with the reason. The
    note tells the card which sources have documents."""
    with_documents = [s for s in sources if has_documents(s)]
    records = None
    if with_documents:
        derived = derivable(sentences, with_documents)
        records = DocumentRecords(
            tuple(RawDocumentSource(s, sentence_filter) for s in with_documents),
            base=sentences if derived else None,
            grouping=SentenceDocuments if derived else None,
        )
    note = {
        "sources_with_documents": [s.name for s in with_documents],
        "sources_without_documents": [s.name for s in sources if s not in with_documents],
        "breaks": "a dropped sentence is a break of its document: no window spans it",
    }
    return Stream(
        records,
        tuple(names),
        defaults=RAW_TEXT_DEFAULTS,
        missing=LINES_NO_DOCUMENTS,
        note=note,
    )


def has_documents(source: Any) -> bool:
    """Whether a raw-text source has documents of more than one sentence in it (a
    sentence-per-line text source has none)."""
    return getattr(source, "layout", "documents") != "lines"


@dataclass(frozen=True)
class RawDocumentSource:
    """A raw-text source's documents as :class:`Document` records of kept sentences.

    ``source`` is a :class:`~polyprobe.loaders.wikisource.WikiDumpSource`, a
    :class:`~polyprobe.builders.records.shards.TokenizedSource` (a dump read back from its
    shards) or a :class:`~polyprobe.loaders.plaintext.PlainTextSource`. Dropped sentences are
    counted into the policy's tally as ``dropped: <reason>`` (as the sentence stream does,
    so a build with only discourse tasks still reports its drops)."""

    source: Any
    sentence_filter: SentenceFilter

    @property
    def name(self) -> str:
        return str(self.source.name)

    @property
    def info(self) -> SourceInfo:
        info: SourceInfo = self.source.info
        return info

    def records(self, policy: InvalidPolicy) -> Iterator[Document]:
        segmenter = self.source.segmenter
        keep = self.sentence_filter
        tally: Counter[str] = policy.skipped
        for raw in self.source.documents(policy):
            drops = []
            for sentence in raw.sentences:
                reason, _ = sentence_verdict(sentence, segmenter, keep)
                if reason is not None:
                    tally[DROPPED + reason] += 1
                drops.append(reason)
            document = raw.document("sentence", drops)
            if document.units:
                yield document


class SentenceDocuments:
    """The documents of :class:`RawDocumentSource` made from the sentence stream's records
    of the same reading (a :class:`~polyprobe.builders.execution.passes.Deriver`): a process that runs
    sentence and document tasks then reads the input shards' tables and decides every
    sentence's verdict once per pass instead of twice (stop 26: the document stream's own
    readings were ~7 % of a ``build wiki``'s CPU). Each kept sentence carries its
    :class:`~polyprobe.loaders.raw_records.DocumentPlace`; a document is complete when a
    sentence of another document (or the end of the stream) comes, and is made by the same
    rule as a document read from the source (:func:`~polyprobe.loaders.rawtext.
    sentence_document`), so both ways give the same records. A document with no kept
    sentence has no sentence record, and is not a record here either (as there)."""

    __slots__ = ("kept", "place", "source")

    def __init__(self) -> None:
        self.place: DocumentPlace | None = None
        self.source: SourceFile | None = None
        self.kept: list[tuple[int, str, str | None, bool]] = []

    def push(self, record: Sentence) -> list[Document]:
        place = getattr(record, "place", None)
        if place is None:
            raise ValueError(
                f"sentence {record.sent_id} does not say where it stands in its document"
            )
        out = []
        current = self.place
        if current is not None and (place.doc_id != current.doc_id or record.source != self.source):
            out.append(self._document())
        if not self.kept:
            self.place, self.source = place, record.source
        assert record.text is not None  # a raw sentence keeps its text
        self.kept.append((place.index, record.text, place.section, place.opens_paragraph))
        return out

    def close(self) -> list[Document]:
        return [self._document()] if self.kept else []

    def _document(self) -> Document:
        place, source = self.place, self.source
        assert place is not None and source is not None
        document = sentence_document(place.doc_id, source, place.line, self.kept)
        self.kept = []
        self.place = self.source = None
        return document
