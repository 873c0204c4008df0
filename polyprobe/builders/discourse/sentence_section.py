"""``sentence_section`` (SSP, DiscoEval): is a sentence from a document's lead or its body?

A document whose source marks sections (a Wikipedia article: the lead before the first
heading, then headed sections) gives sentences of its first section (``lead``) and of any
later section (``body``), the same number of each, drawn with a seeded RNG: configs of all
candidates are exactly balanced. Sources that mark no sections (UD treebanks, plain text
without headings) make the task infeasible, with that reason in the report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import ARAUJO_2022, CHEN_2019
from polyprobe.builders.discourse.common import PARAGRAPH_UNITS
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Document
from polyprobe.metadata import Level, TaskMetadata

LABELS: tuple[str, ...] = ("lead", "body")


@dataclass(frozen=True)
class SentenceSectionOptions:
    """``per_document``: how many lead and as many body sentences each document gives
    (default 1 of each; fewer when a part is shorter); 0 = as many as its shorter part has."""

    per_document: int = 1

    def __post_init__(self) -> None:
        n = self.per_document
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise UsageError(
                f"[tasks.sentence_section] per_document must be an integer >= 0 (0 = as many "
                f"as the shorter part has), not {n!r}"
            )


class SectionCounts(Observation):
    """Documents with section marks, and with both a lead and a body."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def observe(self, document: Document, shared: Shared) -> None:
        self.counts["documents"] += 1
        if document.unit != "sentence":
            self.counts["documents of paragraphs"] += 1
        elif not document.sections:
            self.counts["documents without sections"] += 1
        elif lead_and_body(document)[1]:
            self.counts["documents with a lead and a body"] += 1
        else:
            self.counts["documents of one section"] += 1

    def merge(self, later: Observation) -> None:
        assert isinstance(later, SectionCounts)
        self.counts.update(later.counts)


def lead_and_body(document: Document) -> tuple[list[int], list[int]]:
    """Indices of the units of the document's first section (its lead) and of the rest. The
    first section is whatever the source names it (``None`` for a Wikipedia lead)."""
    sections = document.sections
    if not sections:
        return list(range(len(document.units))), []
    lead_title = sections[0]
    lead: list[int] = []
    body: list[int] = []
    for i, title in enumerate(sections):
        (lead if not body and title == lead_title else body).append(i)
    return lead, body


class SentenceSection(Task[Document]):
    """Label = whether the sentence comes from the document's lead section or its body."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="sentence_section",
        level=Level.DISCOURSE,
        description=(
            "A sentence of a document; predict whether it belongs to the document's lead "
            "(summary) section or to its body."
        ),
        labels=LABELS,
        citation=f"{CHEN_2019}\n{ARAUJO_2022}",
        seed_dependent=True,
        record="document",
        notes=(
            "Lead = the units of the document's first section (a Wikipedia article's text "
            "before its first heading); body = every later section. Each document gives "
            "per_document sentences of each (seeded draw; fewer when a part is shorter; 0 = as "
            "many as the shorter part has), so "
            "configs of all candidates are exactly balanced.",
            "Infeasible when the source marks no sections (UD treebanks do not). Dropped and "
            "counted: documents without sections or with one section, documents of "
            "paragraphs, empty sentences.",
            "Group = the source document; row id <source>/<doc id>/sentence_section/<sentence id>.",
        ),
    )
    Options: ClassVar[type] = SentenceSectionOptions
    reported: ClassVar[frozenset[str]] = frozenset({"sections"})

    def observation(self) -> SectionCounts:
        return SectionCounts()

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, SectionCounts)
        counts = observation.counts
        infeasible = None
        if not counts["documents"]:
            infeasible = "the source has no documents (a UD treebank needs '# newdoc id' lines)"
        elif not counts["documents with a lead and a body"]:
            infeasible = (
                "the source marks no sections with a lead and a body (UD treebanks and plain "
                "text without headings have none): sentence_section needs them"
            )
        return Fit(LABELS, {"sections": dict(sorted(counts.items()))}, infeasible=infeasible)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {"per_document": self.options.per_document, "lead": "the first section"}

    def candidates(self, document: Document, fit: Fit, shared: Shared) -> list[Candidate]:
        if document.unit != "sentence":
            return self.drop(PARAGRAPH_UNITS)
        if not document.sections:
            return self.drop(fit.infeasible or "document without sections")
        units = document.units
        lead, body = lead_and_body(document)
        lead = [i for i in lead if normalise_text(units[i])]
        body = [i for i in body if normalise_text(units[i])]
        if not lead or not body:
            return self.drop("document without a lead and a body")
        n = min(self.options.per_document or len(units), len(lead), len(body))
        source = document.source.treebank

        def drawn(i: int) -> int:  # a seeded order of the units (no version-dependent sample())
            return stable_u64("sentence_section", self.seed, source, document.doc_id, i)

        out: list[Candidate] = []
        for label, part in (("lead", lead), ("body", body)):
            for i in sorted(sorted(part, key=drawn)[:n]):
                out.append(Candidate({"sentences": [units[i]]}, label, document.unit_id(i)))
        return out
