"""Statistics a card prints, computed from the Arrow tables exactly as they are written.

The writer and ``validate`` share these functions so that a number in a card and its
recomputation from the parquet files can only differ if the files or the card were changed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

# Canonical split order: files, YAML lists and body tables all follow it, whatever order the
# pipeline's dict had, so the card does not depend on dict construction order.
SPLIT_ORDER = ("train", "validation", "test")
EXAMPLE_ROWS = 3

# Hugging Face ``size_categories`` buckets: (upper bound exclusive, label).
_SIZE_BUCKETS = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
    (1_000_000_000, "100M<n<1B"),
    (10_000_000_000, "1B<n<10B"),
    (100_000_000_000, "10B<n<100B"),
    (1_000_000_000_000, "100B<n<1T"),
)


def split_sort_key(name: str) -> tuple[int, str]:
    """train < validation < test < any other split (alphabetical)."""
    return (SPLIT_ORDER.index(name), "") if name in SPLIT_ORDER else (len(SPLIT_ORDER), name)


def ordered_splits(names: Iterable[str]) -> list[str]:
    return sorted(names, key=split_sort_key)


def size_category(n: int) -> str:
    """The Hub's bucket for ``n`` rows (``1K<n<10K`` means 1,000 ≤ n < 10,000)."""
    for bound, label in _SIZE_BUCKETS:
        if n < bound:
            return label
    return "n>1T"


def label_counts(labels: pa.ChunkedArray | pa.Array, num_classes: int) -> list[int]:
    """Rows per label id. Raises ``ValueError`` on nulls or ids outside ``[0, num_classes)``:
    such a label cannot be a ``ClassLabel`` value, so no count of it would mean anything."""
    if labels.null_count:
        raise ValueError(f"{labels.null_count} null label(s)")
    values = np.asarray(labels.to_numpy() if isinstance(labels, pa.ChunkedArray) else labels)
    if len(values) == 0:
        return [0] * num_classes
    lo, hi = int(values.min()), int(values.max())
    if lo < 0 or hi >= num_classes:
        raise ValueError(f"label ids must lie in [0, {num_classes - 1}], found {lo}..{hi}")
    return [int(c) for c in np.bincount(values.astype(np.int64), minlength=num_classes)]


# Score statistics (scored configs) are printed with this many decimals: enough for any
# published scale, and few enough that the card does not depend on the last float bits.
SCORE_DECIMALS = 4


@dataclass(frozen=True)
class ScoreMoments:
    """What a card says about a split's scores, kept as exact sums so that splits combine and
    ``validate`` recomputes the same numbers: ``math.fsum`` is correctly rounded, hence
    independent of the chunking and order in which the values were seen."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    low: float = math.inf
    high: float = -math.inf

    @classmethod
    def of(cls, labels: pa.ChunkedArray | pa.Array) -> ScoreMoments:
        """Moments of a float ``label`` column. Raises ``ValueError`` on nulls or non-finite
        scores (no statistic of them would mean anything)."""
        if labels.null_count:
            raise ValueError(f"{labels.null_count} null score(s)")
        values = np.asarray(
            labels.to_numpy() if isinstance(labels, pa.ChunkedArray) else labels, dtype=np.float64
        )
        if values.size == 0:
            return cls()
        if not np.isfinite(values).all():
            raise ValueError("non-finite score(s)")
        return cls(
            int(values.size),
            math.fsum(values.tolist()),
            math.fsum((values * values).tolist()),
            float(values.min()),
            float(values.max()),
        )

    def __add__(self, other: ScoreMoments) -> ScoreMoments:
        return ScoreMoments(
            self.n + other.n,
            math.fsum([self.total, other.total]),
            math.fsum([self.squares, other.squares]),
            min(self.low, other.low),
            max(self.high, other.high),
        )

    def summary(self) -> dict[str, float | int]:
        """``{n, min, max, mean, std}`` (population std), rounded to :data:`SCORE_DECIMALS`."""
        if self.n == 0:
            return {"n": 0}
        mean = self.total / self.n
        var = max(self.squares / self.n - mean * mean, 0.0)
        r = SCORE_DECIMALS
        return {
            "n": self.n,
            "min": round(self.low, r),
            "max": round(self.high, r),
            "mean": round(mean, r),
            "std": round(math.sqrt(var), r),
        }


def score_histogram(
    values: Sequence[np.ndarray], bins: int = 10
) -> tuple[list[str], list[list[int]]]:
    """Equal-width bins over the scores of all ``values`` (one array per split): the bin names
    and each split's counts (what a scored config's chart shows)."""
    arrays = [np.asarray(v, dtype=np.float64) for v in values]
    every = np.concatenate(arrays) if arrays else np.empty(0)
    if every.size == 0:
        return [], [[] for _ in arrays]
    lo, hi = float(every.min()), float(every.max())
    if hi == lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    names = [f"{edges[i]:.3g}–{edges[i + 1]:.3g}" for i in range(bins)]
    counts = [[int(c) for c in np.histogram(a, bins=edges)[0]] for a in arrays]
    return names, counts


@dataclass
class SplitStats:
    """One split file: where it is and what it holds."""

    name: str
    path: str  # relative to the folder, POSIX separators
    num_examples: int
    label_counts: list[int]  # index = label id
    # Arrow size of the rows as written (``dataset_info.splits[].num_bytes``:
    # ``datasets`` ignores a YAML ``splits`` list without it, and with it verifies the row
    # counts itself on every load).
    num_bytes: int = 0
    scores: ScoreMoments | None = None  # scored configs only (label_counts is then empty)


@dataclass
class ConfigStats:
    """Everything the card says about one config's data, all derived from the written tables."""

    name: str
    label_names: list[str]
    splits: dict[str, SplitStats] = field(default_factory=dict)  # canonical order
    examples_split: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def num_examples(self) -> int:
        return sum(s.num_examples for s in self.splits.values())

    def total_label_counts(self) -> list[int]:
        totals = [0] * len(self.label_names)
        for s in self.splits.values():
            totals = [a + b for a, b in zip(totals, s.label_counts, strict=True)]
        return totals

    def labels_by_name(self, split: str) -> dict[str, int]:
        counts = self.splits[split].label_counts
        return dict(zip(self.label_names, counts, strict=True))

    @property
    def scored(self) -> bool:
        return any(s.scores is not None for s in self.splits.values())

    def total_scores(self) -> ScoreMoments:
        total = ScoreMoments()
        for s in self.splits.values():
            total = total + (s.scores or ScoreMoments())
        return total

    def yaml_block(self) -> dict[str, Any]:
        """The ``statistics`` entry of the config's ``polyprobe`` block (a scored config
        gives score summaries where a class config gives label counts)."""
        if self.scored:
            return {
                "num_examples": self.num_examples,
                "splits": {
                    name: {
                        "num_examples": s.num_examples,
                        "scores": (s.scores or ScoreMoments()).summary(),
                    }
                    for name, s in self.splits.items()
                },
                "scores": self.total_scores().summary(),
            }
        return {
            "num_examples": self.num_examples,
            "splits": {
                name: {"num_examples": s.num_examples, "labels": self.labels_by_name(name)}
                for name, s in self.splits.items()
            },
            "labels": dict(zip(self.label_names, self.total_label_counts(), strict=True)),
        }


# ------------------------------------------------------------------------ power of a test split

POWER_ALPHA = 0.05  # two-sided
POWER = 0.8


def detectable_difference(n: int, alpha: float = POWER_ALPHA, power: float = POWER) -> float | None:
    """The smallest accuracy difference between two encoders that a two-proportion z-test on
    a test split of ``n`` rows detects (``alpha`` two-sided, ``power``), for accuracies around
    50%, where the variance is largest (the worst case; a difference between accuracies near
    90% needs fewer rows). Each encoder's accuracy counts as a proportion of ``n`` rows.
    Solved by bisection on d in ``z_a * sqrt(2 p q) + z_b * sqrt(p1 q1 + p2 q2) = d sqrt(n)``
    with p1, p2 = 0.5 -/+ d/2 and p = 0.5. None for an empty split."""
    if n <= 0:
        return None
    from statistics import NormalDist

    z_a = NormalDist().inv_cdf(1 - alpha / 2)
    z_b = NormalDist().inv_cdf(power)

    def gap(d: float) -> float:
        p1, p2 = 0.5 - d / 2, 0.5 + d / 2
        need = z_a * (2 * 0.25) ** 0.5 + z_b * (p1 * (1 - p1) + p2 * (1 - p2)) ** 0.5
        return d * n**0.5 - need

    lo, hi = 0.0, 1.0
    if gap(hi) < 0:
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
    return round(hi, 4)
