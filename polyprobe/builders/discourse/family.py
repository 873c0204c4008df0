"""The record family of document sources (see :class:`polyprobe.builders.execution.passes.RecordFamily`):
any sources of :class:`~polyprobe.loaders.records.Document` records (UD ``# newdoc``
documents, Wikipedia articles, plain-text files), any tasks that read documents, on the shared
record stream.

Why one family for every document source: the discourse tasks need only a document's units in
order (and its sections); where the documents came from changes the loader, not how a record
is named. A document's row group is ``<source>/<doc id>`` of the first document with the same
normalised text, so a document never straddles splits (nor does a duplicate of it); its split
is the one its source gives (a UD file's ``train``/``dev``/``test``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.builders.task import Shared, Task, TaskContext
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Document
from polyprobe.loaders.source import InvalidPolicy, Source

_SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}


def document_text_hash(document: Document) -> int:
    """A document's duplicate identity: its units, NFC and whitespace-normalised."""
    return stable_u64("document", normalise_text("\n".join(document.units)))


def is_document_task(task: type[Task[Any]]) -> bool:
    """Whether a task reads documents (and so runs on a document stream)."""
    return task.metadata.record == "document"


@dataclass(frozen=True)
class DocumentFamily:
    """Document sources read in the order given, with the tasks that may be built from them.

    ``tasks`` maps task names to classes; ``defaults`` are the family's own option defaults
    per task (``build ud`` takes every window of its few documents); ``profile`` is a checked
    ``--profile`` file's content (``[tasks.<name>]`` tables override the defaults; the card
    records it); ``task_options`` are per-task options from the caller, which win over both."""

    sources: tuple[Source[Document], ...]
    tasks: Mapping[str, type[Task[Any]]]
    context: TaskContext
    profile: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    task_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # ``build ud``: the sentence family the documents are made from, and how (a
    # :class:`~polyprobe.loaders.ud_documents.DocumentGrouper`); a process that runs tasks of
    # both then reads the treebanks once per pass (``builders.stream.run_shard_parts``).
    base: Any = None
    grouping: Callable[[], Any] | None = None

    def deriver(self) -> Any:
        """A fresh grouper of the base family's records into these documents."""
        if self.grouping is None:
            raise ValueError("this document family is not derived from another family")
        return self.grouping()

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        tables = self.profile.get("tasks", {})
        tasks = [
            self.tasks[n].configure(
                {
                    **self.defaults.get(n, {}),
                    **tables.get(n, {}),
                    **self.task_options.get(n, {}),
                },
                self.context,
            )
            for n in names
        ]
        derived: dict[str, Any] = {"lang": self.context.lang, "tasks": {}}
        if self.profile:
            derived["overrides"] = dict(self.profile)
        return tasks, derived

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
            raise ValueError("only a family of UD document sources can be read in parts")
        policy = InvalidPolicy(on_invalid, skipped)
        return ud_document_part(self.sources, policy, part, parts)  # type: ignore[arg-type]

    def identity(self, document: Document) -> tuple[str, str, int]:
        source = document.source
        return source.treebank, document.doc_id, _SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, document: Document, shared: Shared) -> int:
        return shared.get(document_text_hash)

    def describe_input(self) -> str:
        return ", ".join(s.name for s in self.sources)
