"""The discourse tasks of ``build ud``: the treebanks' ``# newdoc`` documents on the shared
record stream, merged with the sentence tasks' outcome into one.

Why a second stream rather than document state inside the sentence stream: a document task
needs a whole document (windows, a replacement from another document) and its rows are named
and grouped by the document, which is exactly what a record of the stream is. The sentence
tasks keep their stream (and their output) unchanged; the document stream is the same
sentences grouped by document: in a process that also runs sentence tasks it is fed from their
readings (the treebanks are read once per pass), elsewhere it reads the same files under the
same ``--on-invalid`` policy. A treebank without ``# newdoc`` lines has no
documents: the tasks are then reported infeasible with that reason (no file order is ever taken
for document order), and the sentence tasks build as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, Outcome
from polyprobe.builders.discourse.family import DocumentFamily
from polyprobe.builders.discourse.run import merge_outcomes, run_document_stream
from polyprobe.builders.execution.passes import first_pass
from polyprobe.builders.task import Fit, Task, TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.languages import resolve_language
from polyprobe.loaders.ud_documents import DocumentGrouper, UdDocumentSource

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
UD_DEFAULTS: dict[str, dict[str, Any]] = {
    "sentence_position": {"windows": 0, "align": "document"},
    "discourse_coherence": {"windows": 0},
    "binary_sentence_ordering": {"windows": 0},
}
NO_DOCUMENTS = (
    "no input treebank marks documents ('# newdoc id' lines), so there are no documents to "
    "take sentences in order from (a file's order is never taken for document order)"
)


def document_family(
    treebanks: Sequence[Any],
    options: BuildOptions,
    split: SplitSpec,
    task_options: dict[str, dict[str, Any]] | None = None,
    profile_path: str | Path | None = None,
    sentences: Any = None,
) -> tuple[DocumentFamily | None, list[str]]:
    """The document family over the treebanks that mark documents (None when none does),
    and the names of those that do not. ``sentences``: the build's sentence family over the
    same treebanks (when it runs), which the documents are then grouped from."""
    from polyprobe.builders.profile import checked_profile
    from polyprobe.builders.registry import family_tasks

    known = family_tasks("ud")
    sources = [UdDocumentSource(tb) for tb in treebanks]
    with_documents = [s for s in sources if s.has_documents()]
    without = [s.name for s in sources if s not in with_documents]
    if not with_documents:
        return None, without
    profile: dict[str, Any] = {}
    if profile_path is not None:
        profile = {"file": Path(profile_path).name, **checked_profile(profile_path, known)}
    context = TaskContext(
        lang=resolve_language(options.lang).code,
        seed=options.seed,
        min_per_class=options.min_per_class.as_tuple(),
        split=split.label,
    )
    family = DocumentFamily(
        sources=tuple(with_documents),
        tasks=known,
        context=context,
        profile=profile,
        defaults=UD_DEFAULTS,
        task_options=dict(task_options or {}),
        base=sentences,
        grouping=None
        if sentences is None
        else partial(DocumentGrouper, frozenset(s.name for s in with_documents)),
    )
    return family, without


def with_documents(
    sentences: Outcome | None,
    documents: Outcome | None,
    treebanks: Sequence[Any],
    names: Sequence[str],
    order: Sequence[str],
    without: list[str],
    options: BuildOptions,
    *,
    split: SplitSpec,
    staging: Path,
) -> Outcome:
    """The build's outcome: the sentence tasks' (when any ran) and the document tasks'
    ``names`` (``documents``: their stream's outcome, None when no treebank marks documents:
    the tasks are then reported infeasible); ``order`` is every task of the build in registry
    order (the card's order), ``without`` the treebanks that mark no document."""
    if documents is None:
        documents = run_document_stream(
            None,
            names,
            options,
            split=split,
            staging=staging,
            no_documents=NO_DOCUMENTS,
            task_family="ud",
        )
    document_note = {
        "treebanks_with_documents": [tb.name for tb in treebanks if tb.name not in without],
        "treebanks_without_documents": without,
        # sentences no discourse task can see (before a file's first '# newdoc', or in a
        # treebank without any): the card counts what the document stream leaves out
        "sentences_without_a_document": sum(
            UdDocumentSource(tb).sentences_without_document() for tb in treebanks
        ),
    }
    return merge_outcomes(sentences, documents, order, document_note)


def profile_documents(
    treebanks: Sequence[Any],
    names: Sequence[str],
    options: BuildOptions,
    split: SplitSpec,
    profile_path: str | Path | None,
    on_invalid: str,
) -> tuple[list[Task[Any]], list[Fit], dict[str, Any]]:
    """What the document tasks would derive (``polyprobe profile ud``): the tasks, their fits
    and their profile entries."""
    family, _ = document_family(treebanks, options, split, None, profile_path)
    if family is None:
        return [], [], {n: {"infeasible": NO_DOCUMENTS} for n in names}
    tasks, _ = family.open_tasks(names)
    fits, derived = first_pass(family, tasks, on_invalid)
    return tasks, fits, derived
