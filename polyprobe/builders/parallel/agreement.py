"""The labels a parallel build published per language, and how often each agrees with the
pivot language's label of the same sentence.

Why read the labels back from the written configs: the wide config must say exactly what the
per-language configs say. Why the agreement table: a label is only comparable across
languages when the annotation agrees; the card gives, per task and language, how often each
label equals the pivot's on the same sentence, and each per-language config's notes say it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from polyprobe.builders.assemble import AssembledTask
from polyprobe.builders.family import TaskSet
from polyprobe.builders.sample_creation import record_id
from polyprobe.metadata import Level

__all__ = ["agreement", "published_labels", "with_notes"]

# task -> language -> record id -> label
Labels = dict[str, dict[str, dict[str, str]]]


def _recommended_card(task: AssembledTask) -> Any:
    for card in task.cards:
        if card.name == task.name:
            return card
    return None


def published_labels(
    staging: Path,
    assembled: Sequence[AssembledTask],
    langs: Sequence[str],
    tasks: Sequence[str],
    task_set: TaskSet,
) -> Labels:
    """task -> language -> sent_id -> label, read back from each per-language recommended
    config as written. Tasks with paired copies (a perturbed and an original row per
    sentence) have no single label per sentence and are left out."""
    by_name = {a.name: a for a in assembled}
    out: Labels = {}
    for task in tasks:
        meta = task_set.get(task).metadata
        if meta.paired_copies or meta.level != Level.SENTENCE:
            continue
        out[task] = {}
        for lang in langs:
            found: dict[str, str] = {}
            card = _recommended_card(by_name[f"{task}-{lang}"])
            if card is not None:
                names = card.stats.label_names
                for st in card.stats.splits.values():
                    table = pq.read_table(staging / st.path, columns=["id", "label"])
                    for row_id, label in zip(
                        table.column("id").to_pylist(),
                        table.column("label").to_pylist(),
                        strict=True,
                    ):
                        found[record_id(row_id)] = names[label]
            out[task][lang] = found
    return out


def agreement(labels: Labels, langs: Sequence[str], pivot: str) -> dict[str, dict[str, Any]]:
    """Per task and language: on the sentences both the language and the pivot label, how
    often the labels are equal, overall and per label of the language."""
    out: dict[str, dict[str, Any]] = {}
    for task, per_lang in labels.items():
        ref = per_lang.get(pivot, {})
        out[task] = {}
        for lang in langs:
            if lang == pivot:
                continue
            both = [(lab, ref[sid]) for sid, lab in per_lang[lang].items() if sid in ref]
            by_label: dict[str, list[int]] = {}
            for lab, ref_lab in sorted(both):
                entry = by_label.setdefault(lab, [0, 0])
                entry[0] += lab == ref_lab
                entry[1] += 1
            out[task][lang] = {
                "compared": len(both),
                "agree": sum(a == b for a, b in both),
                "by_label": {k: {"agree": v[0], "of": v[1]} for k, v in by_label.items()},
            }
    return out


def _percent(agree: int, of: int) -> str:
    return f"{agree}/{of} ({100 * agree / of:.1f}%)" if of else "0/0"


def with_notes(
    task: AssembledTask,
    agreed: dict[str, dict[str, Any]],
    creation: dict[str, dict[str, int]],
    pivot: str,
) -> AssembledTask:
    """A per-language config's cards with the language's sample creation and, for tasks the
    wide config carries, each label's agreement with the pivot language."""
    base, _, lang = task.name.rpartition("-")
    notes = [
        "sample_creation of this language's sentences: "
        + ", ".join(f"{k} {v}" for k, v in creation.get(lang, {}).items())
    ]
    entry = agreed.get(base, {}).get(lang)
    if entry is not None and not entry["compared"]:
        notes.append(f"Agreement with the {pivot} label: no sentence is labelled in both")
    elif entry is not None:
        per_label = "; ".join(
            f"{lab} {_percent(v['agree'], v['of'])}" for lab, v in entry["by_label"].items()
        )
        notes.append(
            f"Agreement with the {pivot} label of the same sentence (both labelled): "
            f"{_percent(entry['agree'], entry['compared'])}"
            + (f"; {per_label}" if per_label else "")
        )
    # the config's language in its block: a catalog ticks this language only, for the task
    # without its ``-<lang>`` suffix
    cards = [
        dataclasses.replace(
            c,
            payload=dataclasses.replace(
                c.payload,
                notes=[*c.payload.notes, *notes],
                polyprobe={**c.payload.polyprobe, "language": lang},
            ),
        )
        for c in task.cards
    ]
    return dataclasses.replace(task, cards=cards)
