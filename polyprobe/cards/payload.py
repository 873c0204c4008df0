"""What the build hands the dataset writer per config, and what the writer keeps of it once
the config's files are written. Its own module so that the card (which renders them) and the
folder writer (which writes them) both import it and neither imports the other."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import pyarrow as pa

from polyprobe.cards.stats import ConfigStats


@dataclass(frozen=True)
class SplitCopy:
    """A split source: the same split of a config written before into the same staging
    folder (``written``), whose rows this split holds exactly, in the same order, under the
    same label names. Its file is copied instead of encoding the same rows again: a split
    file's bytes depend on its rows and label names only, never on the config's name
    (``tests/test_folder_writer.py`` checks the copy against a fresh write)."""

    written: ConfigCard


# One split of a config: a table in the final schema (cards.schema.arrow_schema) and output
# order, or a callable yielding chunks of ROW_GROUP rows (the last shorter) so big splits are
# never whole in memory, or a SplitCopy of a config written before.
SplitSource: TypeAlias = pa.Table | Callable[[], Iterable[pa.Table]] | SplitCopy


@dataclass
class ConfigPayload:
    """One (task, variant) config as the build hands it over."""

    name: str  # "subject_number" (recommended) or "subject_number.natural-full"
    task: str
    level: str
    description: str
    label_names: list[str]
    polyprobe: dict[str, Any]  # the YAML ``polyprobe:`` block (task, level, inputs, labels, ...)
    recipe: dict[str, Any]  # recipe parameters printed in the card
    splits: dict[str, SplitSource]
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> count, task + engine
    dropped_classes: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    citation: str = ""
    default: bool = False
    # Columns after the published ones (name -> HF feature dict; cards.schema.features_dict):
    # e.g. the parallel config's per-language texts and labels. Empty for every other config.
    extra_features: dict[str, Any] = field(default_factory=dict)
    # The label is a float score (TaskMetadata.scored): ``label_names`` is empty, the card
    # shows score statistics instead of class counts.
    scored: bool = False


@dataclass
class ConfigCard:
    """What the writer keeps per config after its tables are on disk (the payload without its
    tables, plus statistics of the written files)."""

    payload: ConfigPayload
    stats: ConfigStats

    @property
    def name(self) -> str:
        return self.payload.name
