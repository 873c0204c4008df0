"""Dataset folder writer: a Hugging Face dataset repository on disk, written aside and renamed
into place. CONTRACT STUB — implementation pending (see docs/ARCHITECTURE.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa


@dataclass
class ConfigPayload:
    """One (task, variant) config as the pipeline hands it over."""

    name: str  # "subject_number" (recommended) or "subject_number.natural-full"
    task: str
    level: str
    description: str
    label_names: list[str]
    polyprobe: dict[str, Any]  # the YAML ``polyprobe:`` block (task, level, inputs, labels, ...)
    recipe: dict[str, Any]  # recipe parameters printed in the card
    splits: dict[str, pa.Table]  # final schema (cards.schema.arrow_schema), output order
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> count, task + engine
    dropped_classes: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    citation: str = ""
    default: bool = False


@dataclass
class SourceInfo:
    kind: str  # "ud-treebank", "unimorph", ...
    name: str  # "UD_English-EWT"
    version: str  # git HEAD, --source-version, or "unknown"
    license: str  # SPDX-like id, e.g. "CC-BY-SA-4.0"
    files: list[dict[str, str]]  # [{"name": "en_ewt-ud-dev.conllu", "sha256": "..."}]


@dataclass
class DatasetMeta:
    pretty_name: str
    languages: list[str]
    license: str  # one id when all sources agree, else "other"
    sources: list[SourceInfo]
    polyprobe_version: str
    fingerprint: str
    parameters: dict[str, Any]  # build parameters (seed, sizes, split, min-per-class, ...)
    skipped_invalid: dict[str, int] = field(default_factory=dict)  # reason -> sentences skipped
    duplicates: dict[str, int] = field(default_factory=dict)  # e.g. {"sentences": n, "groups": m}
    feasibility: dict[str, Any] = field(default_factory=dict)  # task -> report (also report.json)
    profile: dict[str, Any] = field(default_factory=dict)  # derived language choices
    license_mix_allowed: bool = False
    task_categories: list[str] = field(default_factory=lambda: ["text-classification"])
    tags: list[str] = field(default_factory=lambda: ["probing", "polyprobe"])
    source_datasets: list[str] = field(default_factory=list)
    summary: str = ""


class DatasetFolderWriter:
    def __init__(self, out: str | Path, overwrite: bool = False): ...

    def add_config(self, payload: ConfigPayload) -> None: ...

    def finish(self, meta: DatasetMeta) -> Path: ...

    def abort(self) -> None: ...
