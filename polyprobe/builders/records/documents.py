"""Sources of :class:`~polyprobe.loaders.records.Document` records (UD ``# newdoc``
documents, RST trees, Wikipedia articles, plain-text documents) as a stream's records.

Why one kind for every document source: the discourse tasks need only a document's units in
order (and its sections); where the documents came from changes the loader, not how a record
is named. A document's row group is ``<source>/<doc id>`` of the first document with the same
normalised text, so a document never straddles splits (nor does a duplicate of it); its split
is the one its source gives (a UD file's ``train``/``dev``/``test``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.family import Stream
from polyprobe.builders.records.treebank import SPLIT_CODE
from polyprobe.builders.task import Shared, Task
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Document
from polyprobe.loaders.source import InvalidPolicy, Source


def document_text_hash(document: Document) -> int:
    """A document's duplicate identity: its units, NFC and whitespace-normalised."""
    return stable_u64("document", normalise_text("\n".join(document.units)))


def is_document_task(task: type[Task[Any]]) -> bool:
    """Whether a task reads documents (and so runs on a document stream)."""
    return task.metadata.record == "document"


@dataclass(frozen=True)
class DocumentRecords:
    """Document sources read in the order given. ``base`` and ``grouping``: the records the
    documents are made from (``build ud``: the sentence stream's, grouped by a
    :class:`~polyprobe.loaders.ud_documents.DocumentGrouper`); a process that runs tasks of
    both streams then reads the inputs once per pass."""

    sources: tuple[Source[Document], ...]
    base: Any = None
    grouping: Callable[[], Any] | None = None

    def deriver(self) -> Any:
        """A fresh grouper of the base records into these documents."""
        if self.grouping is None:
            raise ValueError("these documents are not derived from another stream")
        return self.grouping()

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Document]:
        policy = InvalidPolicy(on_invalid, skipped)
        for source in self.sources:
            yield from source.records(policy)

    def can_be_cut(self) -> bool:
        """Whether :meth:`part_records` can read a part: when every source is a treebank's
        ``# newdoc`` documents (other document sources are read whole)."""
        from polyprobe.loaders.ud_documents import UdDocumentSource

        return all(isinstance(s, UdDocumentSource) for s in self.sources)

    def part_records(
        self, on_invalid: str, skipped: Counter[str], part: int, parts: int
    ) -> Iterator[Document]:
        """The records of the part-th (0-based) of ``parts`` contiguous ranges of
        :meth:`records` (only when :meth:`can_be_cut`): the treebanks' sentences are cut at
        documents (:func:`~polyprobe.loaders.sources.record_parts`) and grouped part by part,
        so ``parts`` processes each read 1/parts of them; the parts in order are exactly
        :meth:`records`, skips and errors included."""
        from polyprobe.loaders.ud_documents import ud_document_part

        if not self.can_be_cut():
            raise ValueError("only UD document sources can be read in parts")
        policy = InvalidPolicy(on_invalid, skipped)
        return ud_document_part(self.sources, policy, part, parts)  # type: ignore[arg-type]

    def identity(self, document: Document) -> tuple[str, str, int]:
        source = document.source
        return source.treebank, document.doc_id, SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, document: Document, shared: Shared) -> int:
        return shared.get(document_text_hash)

    def describe_input(self) -> str:
        return ", ".join(s.name for s in self.sources)


# Treebanks hold few documents (EWT 1,174, PUD 397), so ``build ud`` takes every window of a
# document (``windows = 0``) for sentence position where DiscoEval took an article's first:
# with one window per document the class floors of the 5-class task are out of reach (EWT
# dev: about 80 windows, the engine then drops classes 2 and 3). A profile's
# ``[tasks.<name>] windows = 1`` restores DiscoEval's choice. Coherence takes every window
# anyway (its default: DiscoEval's DC windows come from anywhere in an article).
# Binary sentence ordering takes the opening pair of every paragraph (``# newpar``): EWT has
# 2,207 paragraphs of two or more sentences. Sentence position keeps windows from the
# document's start across paragraphs: treebank paragraphs are short (EWT dev: 79 of 975 have
# five sentences), and windows inside one leave the class floors out of reach.
TREEBANK_DEFAULTS: dict[str, dict[str, Any]] = {
    "sentence_position": {"windows": 0, "align": "document"},
    "discourse_coherence": {"windows": 0},
    "binary_sentence_ordering": {"windows": 0},
}
NO_TREEBANK_DOCUMENTS = (
    "no input treebank marks documents ('# newdoc id' lines), so there are no documents to "
    "take sentences in order from (a file's order is never taken for document order)"
)


def treebank_documents(
    treebanks: Sequence[Any],
    names: Sequence[str],
    sentences: Any = None,
    given: Mapping[str, Mapping[str, Any]] | None = None,
) -> Stream:
    """The discourse tasks ``names`` on the treebanks' ``# newdoc`` documents: a stream over
    the treebanks that mark documents, grouped from ``sentences`` (the build's sentence
    records over the same treebanks, when it reads them) so the treebanks are read once per
    pass; without any document, every task is reported infeasible with the reason. The note
    tells the card which treebanks have documents and how many sentences none has."""
    from functools import partial

    from polyprobe.loaders.ud_documents import DocumentGrouper, UdDocumentSource

    sources = [UdDocumentSource(tb) for tb in treebanks]
    with_documents = [s for s in sources if s.has_documents()]
    note = {
        "treebanks_with_documents": [s.name for s in with_documents],
        "treebanks_without_documents": [s.name for s in sources if s not in with_documents],
        # sentences no discourse task can see (before a file's first '# newdoc', or in a
        # treebank without any): the card counts what the document stream leaves out
        "sentences_without_a_document": sum(s.sentences_without_document() for s in sources),
    }
    records = None
    if with_documents:
        records = DocumentRecords(
            tuple(with_documents),
            base=sentences,
            grouping=None
            if sentences is None
            else partial(DocumentGrouper, frozenset(s.name for s in with_documents)),
        )
    return Stream(
        records,
        tuple(names),
        defaults=TREEBANK_DEFAULTS,
        given=dict(given or {}),
        missing=NO_TREEBANK_DOCUMENTS,
        note=note,
    )
