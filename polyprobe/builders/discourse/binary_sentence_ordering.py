"""``binary_sentence_ordering`` (BSO, DiscoEval): are two sentences in their original order?

The first two sentences of a paragraph (DiscoEval's pairs), shown in order and swapped: both
copies of each pair are rows (same group, so never in two splits), which makes every config
built from all candidates exactly balanced and leaves nothing but the order to tell the
classes apart. A paragraph's opening pair is where order shows: the first sentence introduces
what the second refers back to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import ARAUJO_2022, CHEN_2019
from polyprobe.builders.discourse.common import (
    PARAGRAPH_UNITS,
    DocumentCounts,
    check_align,
    check_windows,
    document_windows,
    infeasible_reason,
    no_window_reason,
    paragraph_windows,
    repeats,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.records import Document
from polyprobe.metadata import Level, TaskMetadata

SIZE = 2
LABELS: tuple[str, ...] = ("in_order", "swapped")


@dataclass(frozen=True)
class BinarySentenceOrderingOptions:
    """``windows``: sentence pairs per document (default 1: its first two sentences, as
    DiscoEval); 0 = every pair. ``align``: which pairs: ``paragraph`` (default, DiscoEval's)
    the first two sentences of each paragraph (a one-sentence paragraph gives none; a source
    that marks no paragraphs falls back to ``document``), ``document`` every two sentences from
    the document's start (1-2, 3-4, ...), wherever a paragraph starts."""

    windows: int = 1
    align: str = "paragraph"

    def __post_init__(self) -> None:
        object.__setattr__(self, "windows", check_windows("binary_sentence_ordering", self.windows))
        check_align("binary_sentence_ordering", self.align)


class BinarySentenceOrdering(Task[Document]):
    """Label = whether the two sentences are in their document's order or swapped."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="binary_sentence_ordering",
        level=Level.DISCOURSE,
        description=(
            "Two consecutive sentences of a document, in their order or swapped; predict which."
        ),
        labels=LABELS,
        citation=f"{CHEN_2019}\n{ARAUJO_2022}",
        paired_copies=True,
        record="document",
        notes=(
            "Pairs: the first two sentences of a paragraph, the document's first by default "
            "(option windows: more paragraphs, 0 = all; option align = document, or a source "
            "without paragraph marks: non-overlapping pairs from the document's start, 1-2, "
            "3-4, ...). Each pair gives two rows, in order and swapped, in one group: configs "
            "of all candidates are exactly balanced.",
            "Dropped and counted: documents of one sentence, documents of paragraphs, pairs "
            "of two identical or empty sentences (both orders would be the same row).",
            "Group = the source document; row id <source>/<doc id>/binary_sentence_ordering/"
            "<first sentence id>[/swapped].",
        ),
    )
    Options: ClassVar[type] = BinarySentenceOrderingOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "documents",
            "sentence_documents",
            "documents_with_2_or_more_sentences",
            "documents_marking_paragraphs",
        }
    )

    def observation(self) -> DocumentCounts:
        return DocumentCounts()

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, DocumentCounts)
        return Fit(
            LABELS,
            observation.report(SIZE, paragraphs=self.options.align == "paragraph"),
            infeasible=infeasible_reason(observation, SIZE),
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "window": SIZE,
            "windows": self.options.windows,
            "align": self.options.align,
            "copies": list(LABELS),
        }

    def candidates(self, document: Document, fit: Fit, shared: Shared) -> list[Candidate]:
        if document.unit != "sentence":
            return self.drop(PARAGRAPH_UNITS)
        units = document.units
        if len(units) < SIZE:
            return self.drop("document of one sentence")
        if self.options.align == "paragraph":
            starts = paragraph_windows(document, SIZE, self.options.windows, within=True)
        else:
            starts = document_windows(document, SIZE, self.options.windows)
        if not starts:
            return self.drop(no_window_reason(SIZE, document, self.options.align))
        out: list[Candidate] = []
        for start in starts:
            first, second = units[start : start + SIZE]
            if repeats((first, second)):
                self.drops["pair of identical or empty sentences"] += 1
                continue
            name = document.unit_id(start)
            out.append(Candidate({"sentences": [first, second]}, "in_order", name))
            out.append(Candidate({"sentences": [second, first]}, "swapped", f"{name}/swapped"))
        return out
