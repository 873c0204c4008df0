"""``discourse_coherence`` (DC, DiscoEval): are six sentences one coherent stretch of text?

Six consecutive sentences of a document; the incoherent copy replaces one of them, at a
position drawn uniformly from 2-5, with a sentence of another document of the same source
(and, when the source has splits, the same split, so that no document's text reaches a split
through another document's row). Both copies of each window are rows in one group: configs
of all candidates are exactly balanced.

The replacement sentences come from a seeded sample of every document's sentences kept in the
first pass (``pool_size`` per source and split: memory stays bounded on any corpus).

Compared with DiscoEval's released ``data/DC/wiki`` (21 pairs read at two places of
``valid.txt``): a window is six consecutive sentences of an article from *anywhere* in it (17
of 21 do not open the article; they run over paragraph and section ends), the replaced
position is one of 2-5 (21 of 21), the replacement comes from another article of the same
split (sentences of the split's own articles, e.g. *Fabrice Fernandes*, recur as replacements
in other rows), and both copies of a window are in the data. So every window of a document,
not its opening one, is the default (``windows = 0``), unlike sentence position and binary
sentence ordering, whose DiscoEval windows open a paragraph.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import ARAUJO_2022, CHEN_2019
from polyprobe.builders.discourse.common import (
    PARAGRAPH_UNITS,
    DocumentCounts,
    check_windows,
    document_windows,
    infeasible_reason,
    no_window_reason,
    repeats,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, normalise_text, stable_rng, stable_u64
from polyprobe.loaders.records import Document
from polyprobe.metadata import Level, TaskMetadata

SIZE = 6
LABELS: tuple[str, ...] = ("coherent", "incoherent")
# Positions (1-based) the foreign sentence may take: never the first or the last, as DiscoEval.
POSITIONS: tuple[int, ...] = (2, 3, 4, 5)
# Draws from the pool before a window is given up (a draw fails when it hits the window's own
# document or a sentence the window already holds).
TRIES = 64

PoolKey = tuple[str, str | None]  # (source name, source split)


@dataclass(frozen=True)
class DiscourseCoherenceOptions:
    """``windows``: non-overlapping windows of six sentences per document, from its first
    sentence, in order (default 0 = every window, as DiscoEval's windows come from anywhere in
    an article; 1 = the document's opening window only). ``pool_size``: how many sentences
    per source and split are kept as replacements (a seeded sample; default 20000)."""

    windows: int = 0
    pool_size: int = 20000

    def __post_init__(self) -> None:
        object.__setattr__(self, "windows", check_windows("discourse_coherence", self.windows))
        size = self.pool_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 2:
            raise UsageError(
                f"[tasks.discourse_coherence] pool_size must be an integer >= 2, not {size!r}"
            )


class CoherenceObservation(DocumentCounts):
    """Document counts, and per source and split the ``pool_size`` sentences with the
    smallest seeded hash (a sample that does not depend on the reading order)."""

    def __init__(self, seed: int, pool_size: int) -> None:
        super().__init__()
        self.seed = seed
        self.pool_size = pool_size
        # max-heaps as (-hash, doc id, text)
        self.heaps: dict[PoolKey, list[tuple[int, str, str]]] = {}

    def observe(self, document: Document, shared: Shared) -> None:
        super().observe(document, shared)
        if document.unit != "sentence":
            return
        source = document.source
        heap = self.heaps.setdefault((source.treebank, source.split), [])
        for i, text in enumerate(document.units):
            if not normalise_text(text):
                continue
            h = stable_u64("coherence-pool", self.seed, source.treebank, document.doc_id, i)
            item = (-h, document.doc_id, text)
            if len(heap) < self.pool_size:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)

    def merge(self, later: Observation) -> None:
        """Take in the documents right after this observation's. Exact: a pool is the
        ``pool_size`` largest items of everything its source and split gave, and the largest
        of two ranges' largest are the largest of both (the fit sorts the items, so the heaps'
        inner layout does not matter); sources and splits new to this observation follow its
        own in first-occurrence order, as one pass makes them."""
        assert isinstance(later, CoherenceObservation)
        if (later.seed, later.pool_size) != (self.seed, self.pool_size):
            raise ValueError("cannot merge coherence pools of another seed or pool size")
        super().merge(later)
        for key, items in later.heaps.items():
            heap = self.heaps.setdefault(key, [])
            for item in items:
                if len(heap) < self.pool_size:
                    heapq.heappush(heap, item)
                elif item > heap[0]:
                    heapq.heapreplace(heap, item)
        later.heaps = {}


@dataclass(frozen=True)
class CoherenceFit(Fit):
    """The replacement pools: per (source, split), (doc id, sentence) in hash order."""

    pools: Mapping[PoolKey, tuple[tuple[str, str], ...]] = field(default_factory=dict)


class DiscourseCoherence(Task[Document]):
    """Label = whether six sentences are a document's own or one was replaced."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="discourse_coherence",
        level=Level.DISCOURSE,
        description=(
            "Six sentences: six consecutive sentences of a document, or the same with one "
            "sentence replaced by a sentence of another document; predict which."
        ),
        labels=LABELS,
        citation=f"{CHEN_2019}\n{ARAUJO_2022}",
        paired_copies=True,
        seed_dependent=True,
        record="document",
        notes=(
            "Windows: non-overlapping runs of 6 sentences from each document's first sentence "
            "(option windows: default 0 = all, as DiscoEval's windows come from anywhere in an "
            "article, over paragraph ends; 1 = the opening one). Each window gives a coherent "
            "row and an incoherent one (same group): configs of all candidates are exactly "
            "balanced.",
            "Incoherent: the sentence at a position drawn uniformly from 2-5 is replaced by a "
            "sentence of another document of the same source and source split, drawn from a "
            "seeded sample of pool_size sentences (never one the window already holds). With "
            "a ratio split the replacement's own document may sit in another split.",
            "Dropped and counted: documents shorter than 6 sentences, documents of paragraphs, "
            "windows with a repeated or empty sentence, windows for which no replacement "
            "could be found.",
            "Group = the source document; row id <source>/<doc id>/discourse_coherence/<first "
            "sentence id of the window>[/incoherent].",
        ),
    )
    Options: ClassVar[type] = DiscourseCoherenceOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {"documents", "sentence_documents", "documents_with_6_or_more_sentences", "pool"}
    )

    def observation(self) -> CoherenceObservation:
        return CoherenceObservation(self.seed, self.options.pool_size)

    def fit(self, observation: Observation | None) -> CoherenceFit:
        assert isinstance(observation, CoherenceObservation)
        pools = {
            key: tuple((doc, text) for _, doc, text in sorted(heap, reverse=True))
            for key, heap in observation.heaps.items()
        }
        report = observation.report(SIZE)
        report["pool"] = {
            f"{source}/{split or '-'}": len(pool)
            for (source, split), pool in sorted(
                pools.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")
            )
        }
        return CoherenceFit(
            LABELS,
            report,
            infeasible=infeasible_reason(observation, SIZE),
            pools=pools,
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "window": SIZE,
            "windows": self.options.windows,
            "positions": list(POSITIONS),
            "replacement": "a sentence of another document of the same source and split",
            "pool_size": self.options.pool_size,
        }

    def candidates(self, document: Document, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, CoherenceFit)
        if document.unit != "sentence":
            return self.drop(PARAGRAPH_UNITS)
        units = document.units
        if len(units) < SIZE:
            return self.drop(f"document shorter than {SIZE} sentences")
        source = document.source
        pool = fit.pools.get((source.treebank, source.split), ())
        starts = document_windows(document, SIZE, self.options.windows)
        if not starts:
            return self.drop(no_window_reason(SIZE))
        out: list[Candidate] = []
        for start in starts:
            window = units[start : start + SIZE]
            if repeats(window):
                self.drops["window with a repeated or empty sentence"] += 1
                continue
            first = document.unit_id(start)
            rng = stable_rng(
                "discourse_coherence", self.seed, source.treebank, document.doc_id, first
            )
            position = POSITIONS[choice_index(rng, len(POSITIONS))]
            foreign = _replacement(rng, pool, document.doc_id, window)
            if foreign is None:
                self.drops["no sentence of another document to insert"] += 1
                continue
            shown = list(window)
            shown[position - 1] = foreign
            out.append(Candidate({"sentences": list(window)}, "coherent", first))
            out.append(Candidate({"sentences": shown}, "incoherent", f"{first}/incoherent"))
        return out


def _replacement(
    rng: Any, pool: tuple[tuple[str, str], ...], doc_id: str, window: tuple[str, ...]
) -> str | None:
    """A sentence of the pool from another document that the window does not hold."""
    if not pool:
        return None
    held = {normalise_text(u) for u in window}
    for _ in range(TRIES):
        other, text = pool[choice_index(rng, len(pool))]
        if other != doc_id and normalise_text(text) not in held:
            return text
    return None
