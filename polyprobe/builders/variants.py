"""Variant engine: turns a task's candidates into leakage-free, seeded splits in balance and
size variants. CONTRACT STUB — implementation pending (see docs/ARCHITECTURE.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

SPLITS = ("train", "validation", "test")
SPLIT_INDEX = {"train": 0, "validation": 1, "test": 2}  # UD's "dev" maps to validation


@dataclass
class CandidateColumns:
    """Everything the engine needs about candidates, in ~27 bytes each (numpy columns in the
    order the task produced the candidates; row i of every column is candidate i)."""

    label: np.ndarray  # int16: index into the task's label_names
    group: np.ndarray  # uint64: stable hash of the group (duplicate sentences share one)
    key: np.ndarray  # uint64: stable hash of the lexical key; 0 = no key
    source_split: np.ndarray  # int8: 0 train, 1 validation, 2 test, -1 none
    order: np.ndarray  # uint64: stable hash of (seed, row id) — the seeded shuffle order


@dataclass(frozen=True)
class SizeSpec:
    """``full``, an absolute train size (``10k`` → 10000) or a fraction of full train (``0.25``)."""

    label: str  # as written in config names: "full", "10k", "0.25"
    rows: int | None = None  # absolute
    fraction: float | None = None


@dataclass(frozen=True)
class SplitSpec:
    mode: str  # "ud" or "ratio"
    ratios: tuple[int, int, int] = (80, 10, 10)
    reason: str = ""  # why this mode was chosen (goes into the card)


@dataclass(frozen=True)
class MinPerClass:
    train: int = 50
    validation: int = 20
    test: int = 20


@dataclass
class VariantSettings:
    split: SplitSpec
    sizes: tuple[SizeSpec, ...] = (SizeSpec("full"),)
    balances: tuple[str, ...] = ("natural", "balanced")
    min_per_class: MinPerClass = field(default_factory=MinPerClass)


@dataclass
class Variant:
    balance: str  # "natural" | "balanced"
    size: str  # SizeSpec.label
    # split name -> candidate indices (into CandidateColumns) in output (seeded shuffled) order.
    # Empty splits are present with an empty array; the writer omits them.
    indices: dict[str, np.ndarray]


@dataclass
class TaskVariants:
    label_names: list[str]  # kept classes, in the task's declared order
    label_remap: np.ndarray  # int16: old label index -> new index, -1 for dropped classes
    variants: list[Variant]
    drops: Counter[str]  # reason -> candidates removed by the engine
    dropped_classes: dict[str, str]  # label -> reason (e.g. "12 in train < 50")
    not_built: list[str]  # e.g. "balanced size 10k not built: 8123 available"
    infeasible: str | None  # reason when nothing could be built
    split: SplitSpec


def make_variants(
    cols: CandidateColumns, label_names: list[str], settings: VariantSettings
) -> TaskVariants:
    raise NotImplementedError
