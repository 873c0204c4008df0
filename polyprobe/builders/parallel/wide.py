"""The wide ``parallel`` config: one row per aligned item with the text, English reference,
``sample_creation`` and every carried task's label in every language (``null`` where a
language has no sentence or its config no row), the document, and the inputs' label (PUD's
genre, else the item's original language); the input columns are the pivot's sentence.

Why a config of its own, written after the per-language ones: it carries the labels those
configs published (:func:`~polyprobe.builders.parallel.agreement.published_labels`), so it
is written by :func:`polyprobe.cards.folder.write_config_files` from the finished build,
rather than by a task.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa

from polyprobe.builders.assemble import AssembledTask, TaskSummary
from polyprobe.builders.parallel.agreement import Labels
from polyprobe.builders.parallel.facts import DOCUMENT_SPLIT, RowFacts
from polyprobe.loaders.parallel import Alignment, document_split, english_reference
from polyprobe.metadata import ConfigBlock, Level, VariantBlock

__all__ = ["WIDE", "wide_config", "wide_recipe"]

WIDE = "parallel"


def wide_recipe(tasks: list[str]) -> dict[str, Any]:
    """The wide config's entry among the recipes (the fingerprint's)."""
    return {"name": WIDE, "version": "1.0.0", "parameters": {"tasks": tasks}}


def _struct(langs: list[str]) -> dict[str, Any]:
    return {lang: {"dtype": "string", "_type": "Value"} for lang in langs}


def wide_config(
    staging: Path, alignment: Alignment, labels: Labels, seed: int, pivot: str, facts: RowFacts
) -> AssembledTask:
    """The ``parallel`` config: every aligned sentence, split by its document."""
    from polyprobe.builders.rendering import sentence_inputs
    from polyprobe.cards.folder import write_config_files
    from polyprobe.cards.payload import ConfigPayload
    from polyprobe.cards.schema import arrow_schema

    langs = list(alignment.languages)
    extra: dict[str, Any] = {
        "sent_id": {"dtype": "string", "_type": "Value"},
        "doc_id": {"dtype": "string", "_type": "Value"},
        "original_language": {"dtype": "string", "_type": "Value"},
        "text": _struct(langs),
        "text_en_reference": _struct(langs),
        "sample_creation": _struct(langs),
        **{task: _struct(langs) for task in labels},
    }
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "validation": [], "test": []}
    dropped: Counter[str] = Counter()
    for row in alignment.rows:
        pivot_sentence = row.sentences.get(pivot)
        label = facts.label_of(row.sent_id)
        if pivot_sentence is None or label is None:
            dropped[
                "no sentence in the pivot language" if pivot_sentence is None else facts.drop_reason
            ] += 1
            continue
        split = {"dev": "validation"}.get(document_split(row.doc_id), document_split(row.doc_id))
        original = facts.original_of(row.sent_id)
        inputs = sentence_inputs(pivot_sentence)
        rows[split].append(
            {
                "id": row.sent_id,
                "sentence": inputs["sentence"],
                "tokens": list(inputs["tokens"]),
                "label": facts.label_names.index(label),
                "group": row.doc_id,
                "lexical_key": "",
                "sent_id": row.sent_id,
                "doc_id": row.doc_id,
                "original_language": original or "",
                "text": {
                    lang: s.text if s is not None else None for lang, s in row.sentences.items()
                },
                "text_en_reference": {
                    lang: english_reference(s) if s is not None else None
                    for lang, s in row.sentences.items()
                },
                "sample_creation": {
                    lang: facts.creation(lang, original) if s is not None else None
                    for lang, s in row.sentences.items()
                },
                **{
                    task: {lang: labels[task][lang].get(row.sent_id) for lang in langs}
                    for task in labels
                },
            }
        )
    schema = arrow_schema(Level.SENTENCE, facts.label_names, extra)
    block = ConfigBlock(
        task=WIDE,
        level=Level.SENTENCE,
        labels=facts.label_names,
        variant=VariantBlock("natural", "full", DOCUMENT_SPLIT.label),
        seed=seed,
    )
    carried = ", ".join(labels) or "none"
    payload = ConfigPayload(
        name=WIDE,
        task=WIDE,
        level=Level.SENTENCE.value,
        description=(
            "One row per parallel sentence (sent_id): its text, English reference, "
            "sample_creation and task labels in every language (null where the language has "
            f"no sentence or its config no row); the label is {facts.label_phrase}, the "
            f"input columns are the {pivot} sentence."
        ),
        label_names=list(facts.label_names),
        polyprobe=block.as_dict(),
        recipe={
            "pivot": pivot,
            "languages": langs,
            "label": facts.label_description,
            "tasks carried": list(labels),
        },
        splits={
            sp: pa.Table.from_pylist(r, schema=schema) if r else None  # type: ignore[misc]
            for sp, r in rows.items()
        },
        dropped=dict(dropped),
        notes=[
            f"Task labels carried: {carried} (a sentence's label is the one its "
            "per-language recommended config gives it; null when that config has no row for "
            "it). Tasks with paired copies (perturbations) have no single label per sentence "
            "and are not carried.",
            "group is the document id: a document's sentences are in one split.",
            facts.creation_note,
            f"split: {DOCUMENT_SPLIT.reason}",
        ],
        extra_features=extra,
    )
    card = write_config_files(staging, payload)
    sizes = {s: len(r) for s, r in rows.items() if r}
    counts = Counter(facts.label_names[r["label"]] for rs in rows.values() for r in rs)
    summary = TaskSummary(
        task=WIDE,
        candidates=sum(sizes.values()),
        class_counts=dict(sorted(counts.items())),
        configs=[WIDE],
        rows=sizes,
    )
    report = {
        "level": Level.SENTENCE.value,
        "task_type": "probing",
        "candidates": summary.candidates,
        "class_counts": summary.class_counts,
        "task_drops": dict(sorted(dropped.items())),
        "engine_drops": {},
        "dropped_classes": {},
        "built": [WIDE],
        "not_built": [],
        "infeasible": None,
        "sets": {},
        "derived": {"languages": langs, "tasks_carried": list(labels), "rows": sizes},
    }
    return AssembledTask(name=WIDE, cards=[card], report=report, summary=summary)
