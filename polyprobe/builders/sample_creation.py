"""The per-row ``sample_creation`` column (``polyprobe.metadata.SAMPLE_CREATION_COLUMN``) of
configs whose rows may be translations.

Why a step after assembly, and not a column every task emits: whether a row is native text
or a translation is a fact of the *input* (PUD's sent_id digits, a parallel file's
``original_language``, a translation file), not of any task; the tasks of ``build parallel``
are the UD and text tasks exactly as other families run them, and must stay so. The configs
are therefore written by the shared assembly as usual, then each one is written again with
the column appended (one value per row, found from the row id) and its card entry made anew
from the rewritten files, so the card's features, statistics and examples describe the
column. The configs of ``build parallel`` are small (a parallel corpus per language), so
the second write costs little.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from polyprobe.builders.assemble import AssembledTask
from polyprobe.metadata import SAMPLE_CREATION, SAMPLE_CREATION_COLUMN, SAMPLE_CREATION_FEATURE

__all__ = ["record_id", "with_sample_creation"]


def record_id(row_id: str) -> str:
    """The record id inside a published row id ``<source>/<record id>/<task>/<copy>``."""
    parts = row_id.split("/")
    return parts[1] if len(parts) > 1 else row_id


def with_sample_creation(
    staging: Path, tasks: Sequence[AssembledTask], creation_of: Callable[[str], str]
) -> list[AssembledTask]:
    """``tasks`` with every config rewritten with the ``sample_creation`` column;
    ``creation_of(row_id)`` gives a row's value (one of ``SAMPLE_CREATION``)."""
    from polyprobe.cards.folder import write_config_files

    out: list[AssembledTask] = []
    for task in tasks:
        cards = []
        for card in task.cards:
            splits: dict[str, pa.Table | None] = {}
            for split, stats in card.stats.splits.items():
                table = pq.read_table(staging / stats.path).replace_schema_metadata(None)
                values = [creation_of(i) for i in table.column("id").to_pylist()]
                bad = sorted(set(values) - set(SAMPLE_CREATION))
                if bad:
                    raise ValueError(f"sample_creation values {bad} are not {SAMPLE_CREATION}")
                splits[split] = table.append_column(
                    SAMPLE_CREATION_COLUMN, pa.array(values, pa.string())
                )
            payload = dataclasses.replace(
                card.payload,
                splits=splits,
                extra_features={
                    **card.payload.extra_features,
                    SAMPLE_CREATION_COLUMN: dict(SAMPLE_CREATION_FEATURE),
                },
            )
            cards.append(write_config_files(staging, payload))
        out.append(dataclasses.replace(task, cards=cards))
    return out
