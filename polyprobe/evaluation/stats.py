"""Metrics, seed aggregation and bootstrap confidence intervals.

The CI is for the *seed-averaged* metric: each bootstrap replicate resamples the evaluation
items (the same resample for every seed's predictions) and averages the metric over seeds, so
the interval reflects the test-set sampling uncertainty of the number that is reported. The
resampling RNG is seeded from blake2b, hence identical between runs.

Rows that share a ``group`` (the two orders of one sentence pair in binary sentence ordering,
a coherent window and its broken copy, a sentence and its perturbed copy) are not independent
draws: resampling them one by one counts a pair as two observations and makes the interval
too narrow (BSO once looked "below chance" that way). So the bootstrap resamples whole groups
(a cluster bootstrap); where every row is its own group it is the row bootstrap, draw for draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from polyprobe.hashing import stable_u64


def accuracy(y: np.ndarray, p: np.ndarray) -> float:
    return float((y == p).mean()) if len(y) else 0.0


def f1_per_class(y: np.ndarray, p: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-class F1 and a mask of the classes present in y or p (scikit-learn's macro set)."""
    tp = np.bincount(y[y == p], minlength=n_classes).astype(float)
    true = np.bincount(y, minlength=n_classes).astype(float)
    pred = np.bincount(p, minlength=n_classes).astype(float)
    denom = true + pred
    f1 = np.divide(2 * tp, denom, out=np.zeros(n_classes), where=denom > 0)
    return f1, denom > 0


def macro_f1(y: np.ndarray, p: np.ndarray, n_classes: int) -> float:
    f1, present = f1_per_class(y, p, n_classes)
    return float(f1[present].mean()) if present.any() else 0.0


def _summary(per_seed: list[float], ci: tuple[float, float]) -> dict[str, Any]:
    """``std`` is None for a single fit: one number has no spread (a ``± 0.000`` would claim
    repetitions that agree, when there was nothing to repeat)."""
    arr = np.asarray(per_seed, dtype=float)
    return {
        "mean": round(float(arr.mean()), 6),
        "std": round(float(arr.std(ddof=1)), 6) if len(arr) > 1 else None,
        "ci95": [round(ci[0], 6), round(ci[1], 6)],
        "per_seed": [round(float(v), 6) for v in arr],
    }


class Resampler:
    """Bootstrap draws of row indices: whole groups with replacement (as many draws as there
    are groups), each drawn group bringing all its rows. Groups are numbered by their first
    row, so with one row a group a draw is exactly ``rng.integers(0, n, n)``."""

    def __init__(self, n: int, groups: Sequence[Any] | np.ndarray | None = None) -> None:
        self.n = n
        self.layout: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if groups is None or len(groups) == 0:
            return
        if len(groups) != n:
            raise ValueError(f"{len(groups)} groups for {n} rows")
        _, first, inverse = np.unique(np.asarray(groups), return_index=True, return_inverse=True)
        if len(first) == n:  # every row its own group: the row bootstrap
            return
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        gid = rank[np.asarray(inverse).reshape(-1)]
        sizes = np.bincount(gid)
        self.layout = (np.argsort(gid, kind="stable"), np.cumsum(sizes) - sizes, sizes)

    @property
    def grouped(self) -> bool:
        return self.layout is not None

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        if self.layout is None:
            return rng.integers(0, self.n, self.n)
        rows, starts, sizes = self.layout
        picked = rng.integers(0, len(sizes), len(sizes))
        lengths = sizes[picked]
        offsets = np.repeat(starts[picked] - (np.cumsum(lengths) - lengths), lengths)
        return rows[offsets + np.arange(int(lengths.sum()))]


def bootstrap_ci(
    y: np.ndarray,
    preds: Sequence[np.ndarray],
    n_classes: int,
    tag: str,
    n_boot: int = 1000,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile 95% intervals of seed-mean accuracy and macro-F1, resampling ``groups``
    (one per row of ``y``; None: every row its own group)."""
    if len(y) == 0:
        return {"accuracy": (0.0, 0.0), "macro_f1": (0.0, 0.0)}
    rng = np.random.default_rng(stable_u64("bootstrap", tag))
    acc = np.zeros(n_boot)
    mf1 = np.zeros(n_boot)
    resampler = Resampler(len(y), groups)
    for b in range(n_boot):
        idx = resampler.draw(rng)
        yb = y[idx]
        accs, f1s = [], []
        for p in preds:
            pb = p[idx]
            accs.append(accuracy(yb, pb))
            f1s.append(macro_f1(yb, pb, n_classes))
        acc[b] = np.mean(accs)
        mf1[b] = np.mean(f1s)
    return {
        "accuracy": (float(np.percentile(acc, 2.5)), float(np.percentile(acc, 97.5))),
        "macro_f1": (float(np.percentile(mf1, 2.5)), float(np.percentile(mf1, 97.5))),
    }


def summarise(
    y_true: np.ndarray,
    preds: Sequence[np.ndarray],
    label_names: Sequence[str],
    tag: str,
    n_boot: int = 1000,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> dict[str, Any]:
    """The ``metrics`` block: accuracy and macro-F1 (mean, std, CI, per seed), per-class F1.
    The CI resamples ``groups`` (the scored rows' ``group`` column) when rows share one."""
    n_classes = len(label_names)
    accs = [accuracy(y_true, p) for p in preds]
    mf1s = [macro_f1(y_true, p, n_classes) for p in preds]
    ci = bootstrap_ci(y_true, preds, n_classes, tag, n_boot, groups)
    per_class = np.mean([f1_per_class(y_true, p, n_classes)[0] for p in preds], axis=0)
    present = np.bincount(y_true, minlength=n_classes) > 0
    return {
        "accuracy": _summary(accs, ci["accuracy"]),
        "macro_f1": _summary(mf1s, ci["macro_f1"]),
        "per_class_f1": {
            str(label_names[c]): round(float(per_class[c]), 6)
            for c in range(n_classes)
            if present[c]
        },
    }


def accuracy_summary(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tag: str,
    n_boot: int = 1000,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> dict[str, Any]:
    """Accuracy block when each seed has its own gold labels (control tasks redraw them);
    the CI resamples ``groups`` as :func:`bootstrap_ci` does."""
    accs = [accuracy(y, p) for y, p in pairs]
    correct = np.stack([(y == p).astype(float) for y, p in pairs])
    n = correct.shape[1]
    if n == 0:
        return _summary(accs, (0.0, 0.0))
    rng = np.random.default_rng(stable_u64("bootstrap", tag))
    resampler = Resampler(n, groups)
    boots = np.array([correct[:, resampler.draw(rng)].mean() for _ in range(n_boot)])
    return _summary(accs, (float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))))
