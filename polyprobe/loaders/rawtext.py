"""Documents of raw text cut into sentences, with the sentences a build must not use marked.

Why a record between the cleaner and the tasks: a Wikipedia article or a plain-text document
is read once, cleaned, split and checked here; then the discourse tasks take it as a
:class:`~polyprobe.loaders.records.Document` (:meth:`RawDocument.document`) and the sentence
tasks take its kept sentences one by one. A dropped sentence stays in the record with its
reason, so a build can count it and never pair the sentences on either side of it as
neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from polyprobe.loaders.records import Document, SourceFile
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikitext import HOLE_REASONS

__all__ = [
    "RawDocument",
    "RawSentence",
    "segment_paragraphs",
    "sentence_document",
    "sentence_drop",
]

# Markup that survives cleaning only where the wikitext was malformed.
_LEFTOVER = re.compile(r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|</?[a-zA-Z][^>]*>|&[a-z]+;")


@dataclass(frozen=True, slots=True)
class RawSentence:
    """One sentence of a document: its text, its section title (``None``: the lead, or a
    source without sections), which paragraph of the document it is in, the line of its
    source where it (or its document) starts, and why it was dropped (``None``: kept)."""

    text: str
    section: str | None
    paragraph: int
    line: int
    dropped: str | None = None
    # The tokens when the sentence was tokenised ahead (an input shard's table), as the table
    # stores them: the forms, and whether a space follows each (two columns, no pair per token)
    forms: Sequence[str] | None = None
    spaces: Sequence[bool] | None = None


@dataclass(frozen=True)
class RawDocument:
    """A document's sentences in order, kept and dropped ones; ``title`` is the article
    title of a wiki page (``None`` for plain text)."""

    doc_id: str
    title: str | None
    source: SourceFile
    line: int
    sentences: tuple[RawSentence, ...]
    order: int = 0  # the document's position in its source (a dump's page index)

    def kept(self) -> list[RawSentence]:
        return [s for s in self.sentences if s.dropped is None]

    def document(
        self, unit: str = "sentence", drops: Sequence[str | None] | None = None
    ) -> Document:
        """The kept text as a :class:`Document` of sentences or paragraphs (a paragraph is
        the kept sentences of one source paragraph joined by spaces).

        ``drops`` (one per sentence; default each sentence's own ``dropped``) says which
        sentences a build leaves out. A sentence unit's id is its index among *all* the
        document's sentences (as the sentence records' ``<doc id>/<index>``), and a dropped
        sentence between two kept ones is a break of the document
        (:attr:`Document.breaks`): no window of neighbours spans it. A kept sentence that is
        the first of its source paragraph opens a paragraph (:attr:`Document.paragraphs`); when
        a paragraph's first sentence is dropped, the paragraph has no opening unit. A document
        in which no paragraph holds two sentences (a plain-text document written one sentence
        a line) marks no paragraphs: its lines are sentences, not paragraphs.

        Sections: each unit keeps its section title (``None`` in a Wikipedia lead). A
        document whose first kept sentence is not in an untitled lead (its lead was all
        dropped, or it opens with a heading) has no lead to tell apart from its body, and
        gets no titles at all (as a source without sections)."""
        reasons = [s.dropped for s in self.sentences] if drops is None else list(drops)
        if len(reasons) != len(self.sentences):
            raise ValueError(
                f"document {self.doc_id}: {len(reasons)} drop reasons for "
                f"{len(self.sentences)} sentences"
            )
        if unit != "paragraph":
            sentences = self.sentences
            return sentence_document(
                self.doc_id,
                self.source,
                self.line,
                [
                    (i, s.text, s.section, i == 0 or sentences[i - 1].paragraph != s.paragraph)
                    for i, s in enumerate(sentences)
                    if reasons[i] is None
                ],
                unit,
            )
        units: list[str] = []
        sections: list[str | None] = []
        last = None
        for i, s in enumerate(self.sentences):
            if reasons[i] is not None:
                continue
            if s.paragraph != last:
                units.append(s.text)
                sections.append(s.section)
                last = s.paragraph
            else:
                units[-1] += " " + s.text
        has_sections = any(t is not None for t in sections) and sections[0] is None
        return Document(
            doc_id=self.doc_id,
            units=tuple(units),
            unit=unit,
            sections=tuple(sections) if has_sections else (),
            source=self.source,
            line=self.line,
            unit_ids=(),
            breaks=(),
            paragraphs=(),
        )


def sentence_document(
    doc_id: str,
    source: SourceFile,
    line: int,
    kept: Iterable[tuple[int, str, str | None, bool]],
    unit: str = "sentence",
) -> Document:
    """A document of sentence units from its kept sentences, each ``(index among all the
    document's sentences, text, section title, whether it opens its source paragraph)``:
    the rule of :meth:`RawDocument.document`, in one place for the documents read from a
    source and those grouped from the sentence records of the same reading
    (:mod:`polyprobe.builders.records.rawdocuments`), so both give the same records."""
    units: list[str] = []
    sections: list[str | None] = []
    unit_ids: list[str] = []
    breaks: list[int] = []
    openings: list[int] = []
    previous = None
    for i, text, section, opens in kept:
        if previous is not None and i != previous + 1:
            breaks.append(len(units))
        if opens:
            openings.append(len(units))
        units.append(text)
        sections.append(section)
        unit_ids.append(str(i))
        previous = i
    has_sections = any(t is not None for t in sections) and sections[0] is None
    return Document(
        doc_id=doc_id,
        units=tuple(units),
        unit=unit,
        sections=tuple(sections) if has_sections else (),
        source=source,
        line=line,
        unit_ids=tuple(unit_ids),
        breaks=tuple(breaks),
        paragraphs=tuple(openings) if len(set(openings)) < len(units) else (),
    )


def sentence_drop(text: str) -> str | None:
    """Why a sentence of cleaned text cannot be used, or ``None``: a template, template
    parameter or formula left a hole in it (:data:`HOLE_REASONS`), or wiki markup is left
    in it (the wikitext was malformed there)."""
    for hole, reason in HOLE_REASONS.items():
        if hole in text:
            return reason
    if _LEFTOVER.search(text):
        return "markup left in the sentence"
    return None


def segment_paragraphs(
    paragraphs: Iterable[tuple[str | None, str, int]], segmenter: Segmenter
) -> tuple[RawSentence, ...]:
    """``(section, paragraph text, line)`` triples → sentences, each checked by
    :func:`sentence_drop`."""
    out: list[RawSentence] = []
    for index, (section, text, line) in enumerate(paragraphs):
        for sentence in segmenter.split(text):
            out.append(RawSentence(sentence, section, index, line, sentence_drop(sentence)))
    return tuple(out)


def drop_counts(documents: Sequence[RawDocument]) -> dict[str, int]:
    """Dropped sentences by reason (for tests and reports)."""
    counts: dict[str, int] = {}
    for doc in documents:
        for s in doc.sentences:
            if s.dropped is not None:
                counts[s.dropped] = counts.get(s.dropped, 0) + 1
    return dict(sorted(counts.items()))
