"""``tree_depth``: how deep is the dependency tree, with sentence length decorrelated?

Raw tree depth correlates with length (Spearman 0.70-0.89 on the shared treebanks), so a probe
could predict depth from length alone. SentEval decorrelated the two by sampling; here:

1. keep a window of lengths (default: the interquartile range of surface-token lengths);
2. choose depth classes: each depth value is a class, the extremes merged into "≤k" / "≥m";
3. per length, cap every (length, class) cell at ``cap(L) = max(min_c n(L,c), ⌊α·mean_c
   n(L,c)⌋)``: α = 0 gives exactly equal counts per class at every length (ρ = 0, but a length
   missing one class loses all its items), larger α keeps more rows and more correlation;
4. among the class ranges whose every class reaches ``--min-per-class`` in every split after
   sampling and for which some α gives |ρ| ≤ the target (0.2) both between length and the
   class (what a probe predicts) and between length and the raw depth (the literal recipe;
   merged classes hide the correlation inside "≥m", so both are required by default), take
   the one with the most classes, then the most rows, with the largest such α. Nothing
   qualifies → infeasible.

Profile options (``[tasks.tree_depth]``): ``length_window = [lo, hi]``, ``depth_range = [k,
m]`` (classes "≤k" .. "≥m"), ``max_abs_rho`` (0.2), ``rho_on`` (``"both"``, or ``"label"`` to
require the target on the class only), and from the pipeline ``min_per_class`` and ``split``.

Which items of a cell are kept is decided by a seeded stable hash of (treebank, sent_id), so
the task is seed-dependent and ``candidates`` needs no state but the per-cell thresholds.
"""

from __future__ import annotations

import math
from array import array
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.sentence.word_content import DEFAULT_FLOORS, SplitFloors
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import stable_u64
from polyprobe.loaders.records import Sentence

DEFAULT_MAX_RHO = 0.2
# α values tried, most rows first; inf = no cap (natural distribution).
ALPHAS: tuple[float, ...] = (math.inf, *(round(2.0 - 0.05 * i, 2) for i in range(41)))

DROP_WINDOW = "length outside the window"
DROP_SAMPLED = "not sampled (length/depth decorrelation)"


def spearman_from_table(table: np.ndarray) -> float:
    """Spearman's ρ of the pairs counted in ``table[x, y]`` (ties get average ranks).

    Computed from the contingency table, not from the rows: the row ranks of x (and y) depend
    only on the marginal counts, so ρ is a weighted Pearson correlation of the mid-ranks.
    Returns 0.0 when either variable is constant (no association can be measured)."""
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if n <= 1:
        return 0.0
    rx = table.sum(axis=1)
    ry = table.sum(axis=0)
    mid_x = np.cumsum(rx) - (rx - 1.0) / 2.0
    mid_y = np.cumsum(ry) - (ry - 1.0) / 2.0
    mean = (n + 1.0) / 2.0
    dx = mid_x - mean
    dy = mid_y - mean
    cov = float(dx @ table @ dy)
    vx = float((dx * dx) @ rx)
    vy = float((dy * dy) @ ry)
    if vx <= 0 or vy <= 0:
        return 0.0
    return cov / math.sqrt(vx * vy)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's ρ of two integer sequences (average ranks for ties)."""
    x = np.asarray(x)
    y = np.asarray(y)
    if x.size < 2:
        return 0.0
    ux, ix = np.unique(x, return_inverse=True)
    uy, iy = np.unique(y, return_inverse=True)
    table = np.zeros((ux.size, uy.size), dtype=np.float64)
    np.add.at(table, (ix, iy), 1.0)
    return spearman_from_table(table)


def spearman_of_subset(
    xid: np.ndarray, yid: np.ndarray, nx: int, ny: int, keep: np.ndarray
) -> float:
    """``spearman(x[keep], y[keep])`` given the inverse indices of ``np.unique(x)`` and
    ``np.unique(y)`` (``xid``, ``yid``; ``nx``, ``ny`` distinct values).

    ``derive`` asks this for hundreds of subsets of one window: counting the pairs with one
    ``bincount`` over precomputed indices replaces two ``np.unique`` sorts and a slow
    ``np.add.at`` per subset. Values absent from the subset are dropped from the table, so it
    is exactly the table :func:`spearman` builds and the result is bit-identical."""
    xs = xid[keep]
    if xs.size < 2:
        return 0.0
    counts = np.bincount(xs * ny + yid[keep], minlength=nx * ny).reshape(nx, ny)
    table = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0].astype(np.float64)
    return spearman_from_table(table)


def class_labels(lo: int, hi: int, smallest: int, largest: int) -> tuple[str, ...]:
    """Names of the depth classes lo..hi: ``"≤lo"`` when the first class also holds smaller
    depths (``smallest`` < lo), ``"≥hi"`` likewise at the top, plain numbers otherwise."""
    names = [str(d) for d in range(lo, hi + 1)]
    if smallest < lo:
        names[0] = f"≤{lo}"
    if largest > hi:
        names[-1] = f"≥{hi}"
    return tuple(names)


def _window_uniques(
    length: np.ndarray, depth: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Distinct lengths with their inverse, and the inverse and count of distinct depths."""
    lengths, lid = np.unique(length, return_inverse=True)
    depths, did = np.unique(depth, return_inverse=True)
    return lengths, lid, did, int(depths.size)


class TreeDepth(Task):
    """Label = depth of the dependency tree (longest root-to-leaf path, root = 1).

    ``label_names`` is a placeholder on the class: :meth:`derive` sets the instance's
    ``label_names`` (depth classes such as ``"≤3"``, ``"4"``, ``"5"``, ``"≥6"``), and the
    pipeline reads the instance's label names after ``derive()``.
    """

    name: ClassVar[str] = "tree_depth"
    relative_cost: ClassVar[float] = 2.1
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the depth of the sentence's dependency tree (longest path from the root to a "
        "leaf, root = 1), sampled so that sentence length does not predict it."
    )
    # Placeholder: the real label names (depth classes) are set on the instance by derive().
    label_names: ClassVar[tuple[str, ...]] = ()
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Depth = number of nodes on the longest root-to-leaf path of the basic dependency tree "
        "(a one-word sentence has depth 1). Length = surface tokens, punctuation included.",
        "Only sentences whose length lies in a window are used (default: the interquartile "
        "range of lengths, floor(Q1)..ceil(Q3)); the window is recorded and overridable.",
        "Classes are depth values; the rarest extremes are merged into '≤k' and '≥m' classes. "
        "Per length, every (length, class) cell is capped at max(smallest cell, ⌊α × mean "
        "cell⌋) with a seeded stable hash choosing the kept items, so each length has nearly "
        "equal counts per class; α is the largest value giving |Spearman| <= 0.2 between "
        "length and the class and between length and the raw depth, with every class at "
        "min-per-class in every split.",
        "Among the feasible class ranges the one with the most classes wins, then the one "
        "keeping the most rows. None feasible -> the task is infeasible (reason recorded).",
        "The profile records Spearman's rho before (whole corpus, window) and after sampling.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_rho = float(self.option("max_abs_rho", DEFAULT_MAX_RHO))
        self.rho_on = str(self.option("rho_on", "both"))
        if self.rho_on not in ("label", "both"):
            raise UsageError(f"tree_depth: rho_on must be 'label' or 'both', not {self.rho_on!r}")
        window = self.option("length_window", None)
        self.fixed_window: tuple[int, int] | None = (
            (int(window[0]), int(window[1])) if window is not None else None
        )
        rng = self.option("depth_range", None)
        self.fixed_range: tuple[int, int] | None = (
            (int(rng[0]), int(rng[1])) if rng is not None else None
        )
        self.floors = SplitFloors(
            self.option("min_per_class", DEFAULT_FLOORS), self.option("split")
        )
        self._length = array("i")
        self._depth = array("i")
        self._hash = array("Q")
        # Derived state.
        self.derived: dict[str, Any] | None = None
        self.infeasible: str | None = None
        self.window: tuple[int, int] = (0, -1)
        self.depth_range: tuple[int, int] = (0, -1)
        self._thresholds: dict[tuple[int, int], int] = {}

    def parameters(self) -> dict[str, Any]:
        return {
            "depth": "nodes on the longest root-to-leaf path (root = 1)",
            "length_unit": "surface token (multiword token counts once; punctuation included)",
            "length_window": list(self.fixed_window)
            if self.fixed_window
            else "interquartile range",
            "max_abs_spearman": self.max_rho,
            "spearman_on": "length vs class and length vs raw depth"
            if self.rho_on == "both"
            else "length vs class",
            "cap_per_cell": "max(min cell, floor(alpha x mean cell)) per length",
            "alphas_tried": [a if math.isfinite(a) else "inf" for a in ALPHAS],
            "selection": "most classes, then most rows, then largest alpha",
            "min_per_class": list(self.floors.floors),
        }

    def _key(self, sentence: Sentence) -> int:
        return stable_u64(self.seed, self.name, sentence.source.treebank, sentence.sent_id)

    def _depth_class(self, depth: int) -> int:
        lo, hi = self.depth_range
        return min(max(depth, lo), hi) - lo

    # --- observation ------------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        self.floors.add(sentence)
        self._length.append(len(sentence.surface_tokens()))
        self._depth.append(sentence.depth())
        self._hash.append(self._key(sentence))

    def _evaluate(
        self,
        length: np.ndarray,
        depth: np.ndarray,
        hashes: np.ndarray,
        index: np.ndarray,
        lo: int,
        hi: int,
        uniques: tuple[np.ndarray, np.ndarray, np.ndarray, int] | None = None,
    ) -> dict[str, Any] | None:
        """Best α for depth classes lo..hi ("≤lo" ... "≥hi"); None when none qualifies.

        ``uniques`` = (distinct lengths, their inverse, the inverse of the distinct depths,
        the number of distinct depths) of the window: the same for every range, so ``derive``
        computes them once."""
        cls = np.clip(depth, lo, hi) - lo
        n_cls = hi - lo + 1
        if uniques is None:
            uniques = _window_uniques(length, depth)
        lengths, lid, did, n_depths = uniques
        cells = np.zeros((lengths.size, n_cls), dtype=np.int64)
        np.add.at(cells, (lid, cls), 1)
        # Rank of each item inside its cell by hash (0 = kept first).
        cell = lid * n_cls + cls
        order = np.lexsort((hashes, cell))
        starts = np.searchsorted(cell[order], np.arange(cells.size))
        rank = np.empty(cell.size, dtype=np.int64)
        rank[order] = np.arange(cell.size) - starts[cell[order]]
        low = cells.min(axis=1)
        mean = cells.mean(axis=1)
        n_sent = len(self.floors)
        for alpha in ALPHAS:
            cap = (
                cells.max(axis=1) if math.isinf(alpha) else np.maximum(low, np.floor(alpha * mean))
            )
            kept = np.minimum(cells, cap[:, None])
            rho = spearman_from_table(kept)
            if abs(rho) > self.max_rho:
                continue
            keep = rank < cap[lid]
            rho_depth = spearman_of_subset(lid, did, lengths.size, n_depths, keep)
            if self.rho_on == "both" and abs(rho_depth) > self.max_rho:
                continue
            classes = np.full(n_sent, -1, dtype=np.int64)
            classes[index[keep]] = cls[keep]
            table = self.floors.table(classes, n_cls)
            if not self.floors.passing(table).all():
                return None  # smaller α only removes items: no α below can pass either
            return {
                "alpha": alpha,
                "rho": rho,
                "rho_depth": rho_depth,
                "kept": kept,
                "lengths": lengths,
                "keep": keep,
                "rows": int(kept.sum()),
                "table": table,
            }
        return None

    def derive(self) -> dict[str, Any]:
        self.floors.finish()
        length = np.frombuffer(self._length, dtype=np.int32).astype(np.int64)
        depth = np.frombuffer(self._depth, dtype=np.int32).astype(np.int64)
        hashes = np.frombuffer(self._hash, dtype=np.uint64)
        out: dict[str, Any] = {"sentences": int(length.size), **self.floors.describe()}
        if length.size == 0:
            return self._fail(out, "no sentences")
        if self.fixed_window is not None:
            self.window = self.fixed_window
            out["length_window_source"] = "profile"
        else:
            q1, q3 = np.percentile(length, [25, 75])
            self.window = (int(math.floor(q1)), int(math.ceil(q3)))
            out["length_window_source"] = "interquartile range (floor Q1, ceil Q3)"
        out["length_window"] = list(self.window)
        out["spearman_all"] = round(spearman(length, depth), 4)
        in_window = (length >= self.window[0]) & (length <= self.window[1])
        index = np.flatnonzero(in_window)
        wl, wd, wh = length[index], depth[index], hashes[index]
        out["rows_in_window"] = int(index.size)
        if index.size == 0:
            return self._fail(out, "no sentence in the length window")
        out["spearman_window"] = round(spearman(wl, wd), 4)
        values = np.unique(wd).tolist()
        out["depth_values_in_window"] = {str(v): int((wd == v).sum()) for v in values}
        if self.fixed_range is not None:
            ranges = [self.fixed_range]
            out["depth_range_source"] = "profile"
        else:
            ranges = [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
            out["depth_range_source"] = "derived"
        best: tuple[tuple[int, int, float], tuple[int, int], dict[str, Any]] | None = None
        uniques = _window_uniques(wl, wd)
        for lo, hi in ranges:
            if hi <= lo:
                continue
            res = self._evaluate(wl, wd, wh, index, lo, hi, uniques)
            if res is None:
                continue
            score = (hi - lo + 1, res["rows"], res["alpha"])
            if best is None or score > best[0]:
                best = (score, (lo, hi), res)
        if best is None:
            target = (
                f"|Spearman| <= {self.max_rho} with every class at min-per-class "
                f"{'/'.join(map(str, self.floors.floors))} in every split"
            )
            if self.fixed_range is not None:
                return self._fail(out, f"the profile's depth_range does not reach {target}")
            return self._fail(out, f"no range of >= 2 depth classes reaches {target}")
        _, (lo, hi), res = best
        self.depth_range = (lo, hi)
        names = class_labels(lo, hi, int(values[0]), int(values[-1]))
        self.label_names = names  # type: ignore[misc]
        # Per-cell hash thresholds: the largest kept hash of each (length, class) cell.
        lengths = res["lengths"]
        keep = res["keep"]
        cls = np.clip(wd, lo, hi) - lo
        self._thresholds = {}
        for i in np.flatnonzero(keep).tolist():
            key = (int(wl[i]), int(cls[i]))
            h = int(wh[i])
            if h > self._thresholds.get(key, -1):
                self._thresholds[key] = h
        out.update(
            {
                "feasible": True,
                "depth_range": [lo, hi],
                "label_names": list(names),
                "alpha": res["alpha"] if math.isfinite(res["alpha"]) else "inf",
                "rows_kept": res["rows"],
                "spearman_kept_class": round(float(res["rho"]), 4),
                "spearman_kept_depth": round(float(res["rho_depth"]), 4),
                "class_counts_kept": {
                    names[k]: int(v) for k, v in enumerate(res["kept"].sum(axis=0).tolist())
                },
                "kept_per_length": {
                    str(L): [int(v) for v in row]
                    for L, row in zip(lengths.tolist(), res["kept"].tolist(), strict=True)
                },
                "items_per_split_min": [
                    round(float(v), 1) for v in res["table"].min(axis=0).tolist()
                ],
            }
        )
        self.infeasible = None
        self.derived = out
        return out

    def _fail(self, out: dict[str, Any], reason: str) -> dict[str, Any]:
        self.infeasible = reason
        self.label_names = ()  # type: ignore[misc]
        out.update({"feasible": False, "infeasible": reason})
        self.derived = out
        return out

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self.derived is None:
            raise RuntimeError("tree_depth: call observe() on every sentence, then derive()")
        if self.infeasible is not None:
            return self.drop(f"task infeasible: {self.infeasible}")
        tokens = sentence.surface_tokens()
        n = len(tokens)
        if not self.window[0] <= n <= self.window[1]:
            return self.drop(DROP_WINDOW)
        cls = self._depth_class(sentence.depth())
        threshold = self._thresholds.get((n, cls))
        if threshold is None or self._key(sentence) > threshold:
            return self.drop(DROP_SAMPLED)
        return [Candidate(sentence_inputs(sentence), self.label_names[cls], copy="0")]
