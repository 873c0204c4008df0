"""Running the document (discourse) tasks of any build beside its sentence tasks: one
document stream over a :class:`~polyprobe.builders.discourse.family.DocumentFamily`, or every
task reported infeasible with the reason when the inputs have no documents, merged with the
sentence stream's outcome into one.

Why shared: ``build ud`` (``# newdoc`` documents), ``build wiki`` (articles) and ``build
text`` (blank-line documents) differ only in where their documents come from; the tasks, the
stream, the infeasible report and the merge with the sentence tasks are the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyprobe.builders.assemble import AssembledTask, assemble
from polyprobe.builders.build import BuildOptions, Outcome, Progress
from polyprobe.builders.discourse.family import DocumentFamily
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.variants import SplitSpec


def infeasible_task(
    name: str,
    reason: str,
    options: BuildOptions,
    split: SplitSpec,
    staging: Path,
    family: str = "ud",
) -> AssembledTask:
    """A task that made no candidate set at all, with its reason (report and summary)."""
    from polyprobe.builders.registry import get_task

    metadata = get_task(family, name).metadata
    return assemble(
        [],
        options.variant_settings(split),
        options.seed,
        staging,
        task_report={
            "task": name,
            "level": metadata.level.value,
            "task_type": metadata.task_type,
            "infeasible": reason,
        },
        infeasible=reason,
    )


def run_document_stream(
    family: DocumentFamily | None,
    names: Sequence[str],
    options: BuildOptions,
    *,
    split: SplitSpec,
    staging: Path,
    no_documents: str,
    task_family: str,
    progress: Progress | None = None,
) -> Outcome:
    """The document tasks ``names`` on ``family``'s documents; when ``family`` is None (the
    inputs have no documents) every task is infeasible with the reason ``no_documents``."""
    from polyprobe.builders.registry import get_task

    if family is not None:
        return run_record_tasks(
            family, list(names), options, split=split, staging=staging, progress=progress
        )
    assembled = [
        infeasible_task(n, no_documents, options, split, staging, task_family) for n in names
    ]
    return Outcome(
        assembled=assembled,
        recipes=[
            {
                "name": n,
                "recipe_version": get_task(task_family, n).metadata.recipe_version,
                "parameters": {},
            }
            for n in names
        ],
        profile={"tasks": {n: {"infeasible": no_documents} for n in names}},
        parameters={"split": split.label, "split_reason": split.reason},
    )


def merge_outcomes(
    sentences: Outcome | None,
    documents: Outcome,
    order: Sequence[str],
    document_note: dict[str, Any],
) -> Outcome:
    """One outcome of the two streams, tasks in ``order``. Invalid-input counts are the
    sentence stream's when it ran (both read the same files under one policy); duplicate
    counts of documents are added under their own names."""
    parts = [o for o in (sentences, documents) if o is not None]
    assembled = {a.name: a for o in parts for a in o.assembled}
    recipes = {r["name"]: r for o in parts for r in o.recipes}
    base = sentences if sentences is not None else documents
    profile = dict(base.profile)
    profile["tasks"] = {**(sentences.profile.get("tasks", {}) if sentences else {})}
    profile["tasks"].update(documents.profile.get("tasks", {}))
    profile["documents"] = document_note
    duplicates = dict(sentences.duplicates) if sentences is not None else {}
    doc_dups = documents.duplicates
    if doc_dups:
        duplicates["documents_read"] = int(doc_dups.get("sentences_read", 0))
        duplicates["duplicate_documents"] = int(doc_dups.get("duplicate_sentences", 0))
    return Outcome(
        assembled=[assembled[n] for n in order if n in assembled],
        recipes=[recipes[n] for n in order if n in recipes],
        profile=profile,
        parameters=dict(base.parameters),
        skipped=dict(base.skipped),
        duplicates=duplicates,
        split=base.split or documents.split,
        facts={**documents.facts, **(sentences.facts if sentences else {})},
    )
