"""``sentence_position`` (SP, DiscoEval): which sentence of five was moved to the front?

The first five sentences of a paragraph (DiscoEval's windows: an article's opening); one of
them, chosen uniformly (seeded by the document and
window), is moved to the front and the others keep their order. The label is its original
position (1 = nothing moved). A model that knows how discourse opens and continues can tell
which sentence does not belong at the start: a paragraph's first sentence introduces its topic,
the ones after it point back to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import ARAUJO_2022, CHEN_2019
from polyprobe.builders.discourse.common import (
    PARAGRAPH_UNITS,
    DocumentCounts,
    check_align,
    check_stride,
    check_windows,
    document_windows,
    infeasible_reason,
    no_window_reason,
    paragraph_windows,
    repeats,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, stable_rng
from polyprobe.loaders.records import Document
from polyprobe.metadata import Level, TaskMetadata

SIZE = 5
LABELS: tuple[str, ...] = tuple(str(i) for i in range(1, SIZE + 1))


@dataclass(frozen=True)
class SentencePositionOptions:
    """``windows``: windows of five sentences per document (default 1, the document's
    opening, as DiscoEval); 0 = every window. ``align``: where windows are cut: ``paragraph``
    (default, DiscoEval's) the first five sentences of each paragraph of five or more (never
    over a dropped sentence; a source that marks no paragraphs falls back to ``document``),
    ``document`` every five sentences from the document's start, across paragraphs. ``stride`` (``align = "document"`` only): how many sentences after a
    window's start the next one starts (default 5: windows do not overlap; 1 = a window at every
    sentence, five times the rows from the same documents, all in the document's group)."""

    windows: int = 1
    stride: int = SIZE
    align: str = "paragraph"

    def __post_init__(self) -> None:
        object.__setattr__(self, "windows", check_windows("sentence_position", self.windows))
        check_stride("sentence_position", self.stride, SIZE)
        check_align("sentence_position", self.align)
        if self.stride != SIZE and self.align != "document":
            raise UsageError(
                f'[tasks.sentence_position] stride {self.stride} needs align = "document" '
                "(windows from paragraph openings never overlap)"
            )


def moved_to_front(window: tuple[str, ...], position: int) -> list[str]:
    """``window`` with its sentence at ``position`` (1-based) moved to the front."""
    i = position - 1
    return [window[i], *window[:i], *window[i + 1 :]]


class SentencePosition(Task[Document]):
    """Label = the original position (1-5) of the sentence shown first."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="sentence_position",
        level=Level.DISCOURSE,
        description=(
            "Five consecutive sentences of a document, one of them moved to the front; "
            "predict its original position (1 = nothing was moved)."
        ),
        labels=LABELS,
        citation=f"{CHEN_2019}\n{ARAUJO_2022}",
        seed_dependent=True,
        record="document",
        notes=(
            "Windows: the first 5 sentences of a paragraph of 5 or more (option align, "
            "default paragraph as DiscoEval; a source without paragraph marks, or align = "
            "document: non-overlapping runs of 5 from the document's first sentence on, across "
            "paragraphs; option windows, default 1 per document as DiscoEval; 0 = all; option "
            "stride < 5 with align = document: overlapping windows, every stride sentences). "
            "The moved sentence's position is drawn uniformly (seeded by source, document and "
            "window); the other four keep their order.",
            "Dropped and counted: documents shorter than 5 sentences, documents of paragraphs, "
            "windows with a repeated or empty sentence (the position would be ambiguous).",
            "Group = the source document; row id <source>/<doc id>/sentence_position/<first "
            "sentence id of the window>.",
        ),
    )
    Options: ClassVar[type] = SentencePositionOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "documents",
            "sentence_documents",
            "documents_with_5_or_more_sentences",
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
        stride = self.options.stride  # named only when windows overlap (outputs unchanged)
        return {
            "window": SIZE,
            "windows": self.options.windows,
            "align": self.options.align,
            **({"stride": stride} if stride != SIZE else {}),
            "label": "original position",
        }

    def candidates(self, document: Document, fit: Fit, shared: Shared) -> list[Candidate]:
        if document.unit != "sentence":
            return self.drop(PARAGRAPH_UNITS)
        units = document.units
        if len(units) < SIZE:
            return self.drop(f"document shorter than {SIZE} sentences")
        if self.options.align == "paragraph":
            starts = paragraph_windows(document, SIZE, self.options.windows, within=True)
        else:
            starts = document_windows(document, SIZE, self.options.windows, self.options.stride)
        if not starts:
            return self.drop(no_window_reason(SIZE, document, self.options.align))
        out: list[Candidate] = []
        for start in starts:
            window = units[start : start + SIZE]
            if repeats(window):
                self.drops["window with a repeated or empty sentence"] += 1
                continue
            first = document.unit_id(start)
            rng = stable_rng(
                "sentence_position", self.seed, document.source.treebank, document.doc_id, first
            )
            position = choice_index(rng, SIZE) + 1
            out.append(
                Candidate({"sentences": moved_to_front(window, position)}, str(position), first)
            )
        return out
