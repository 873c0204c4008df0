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
require the target on the class only); see :class:`TreeDepthOptions`. The class floors and
the split mode are the build's (``--min-per-class``, ``--split``).

Which items of a cell are kept is decided by a seeded stable hash of (treebank, sent_id), so
the task is seed-dependent and ``candidates`` needs nothing of the fit but the window, the
depth range and the per-cell thresholds.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.rendering import sentence_inputs, text_hash
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, SplitEstimate, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import stable_u64
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

DEFAULT_MAX_RHO = 0.2
RHO_ON: tuple[str, ...] = ("both", "label")
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

    ``TreeDepth.fit`` asks this for hundreds of subsets of one window: counting the pairs with
    one ``bincount`` over precomputed indices replaces two ``np.unique`` sorts and a slow
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


def _bad(key: str, why: str) -> UsageError:
    return UsageError(f"[tasks.tree_depth] {key} {why}")


def _int_pair(key: str, value: Any, what: str) -> tuple[int, int]:
    """``[lo, hi]`` of two whole numbers >= 1 (an integral float such as ``6.0`` is accepted)."""

    def whole(v: Any) -> bool:
        return (isinstance(v, int) and not isinstance(v, bool)) or (
            isinstance(v, float) and v.is_integer()
        )

    if isinstance(value, (str, bytes, Mapping)):
        raise _bad(key, f"must be [{what}], not {value!r}")
    try:
        items = list(value)
    except TypeError:
        raise _bad(key, f"must be [{what}], not {value!r}") from None
    if len(items) != 2 or not all(whole(v) and v >= 1 for v in items):
        raise _bad(key, f"must be [{what}] (two whole numbers >= 1), not {value!r}")
    return (int(items[0]), int(items[1]))


@dataclass(frozen=True)
class TreeDepthOptions:
    """Options of ``[tasks.tree_depth]``; the defaults are the recipe the card describes.

    * ``max_abs_rho`` (0.2): the largest |Spearman ρ| between length and depth allowed on the
      rows kept, i.e. how little length may still predict the label.
    * ``rho_on`` (``"both"``): where that target applies: ``"both"`` = between length and the
      class *and* between length and the raw depth (merged "≥m" classes can hide a correlation
      inside them, so the literal recipe needs the second); ``"label"`` = the class only, for
      languages where no range meets both.
    * ``length_window`` (None = the interquartile range of lengths, ``[floor Q1, ceil Q3]``):
      a fixed ``[lo, hi]`` of surface-token lengths instead; lengths outside are dropped.
    * ``depth_range`` (None = derived: the feasible range with the most classes): a fixed
      ``[k, m]``, giving classes "≤k" .. "≥m".
    """

    max_abs_rho: float = DEFAULT_MAX_RHO
    rho_on: str = "both"
    length_window: tuple[int, int] | None = None
    depth_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        rho = self.max_abs_rho
        if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not 0.0 <= rho <= 1.0:
            raise _bad("max_abs_rho", f"must be a number between 0 and 1, not {rho!r}")
        set_(self, "max_abs_rho", float(rho))
        if self.rho_on not in RHO_ON:
            raise _bad("rho_on", f"must be 'label' or 'both', not {self.rho_on!r}")
        if self.length_window is not None:
            window = _int_pair("length_window", self.length_window, "lo, hi")
            if window[0] > window[1]:
                raise _bad("length_window", f"must have lo <= hi, not {list(window)}")
            set_(self, "length_window", window)
        if self.depth_range is not None:
            depths = _int_pair("depth_range", self.depth_range, "k, m")
            if depths[0] >= depths[1]:
                raise _bad(
                    "depth_range", f"must have k < m (two classes at least), not {list(depths)}"
                )
            set_(self, "depth_range", depths)


@dataclass(frozen=True)
class TreeDepthFit(Fit):
    """The length window, the depth range (classes "≤lo" .. "≥hi") and, per (length, class)
    cell, the largest sampling hash kept: a sentence is kept when its hash is at or below its
    cell's threshold."""

    window: tuple[int, int] = (0, -1)
    depth_range: tuple[int, int] = (0, -1)
    thresholds: Mapping[tuple[int, int], int] = field(default_factory=dict)


def sample_hash(seed: int, name: str, sentence: Sentence) -> int:
    """The seeded stable hash that decides which items of a (length, class) cell are kept."""
    return stable_u64(seed, name, sentence.source.treebank, sentence.sent_id)


class TreeDepthObservation(Observation):
    """The first pass: per sentence its length, depth and sampling hash (and every sentence
    goes to the split estimate, which decides which classes reach the floors)."""

    def __init__(self, estimate: SplitEstimate, seed: int, name: str) -> None:
        self.estimate = estimate
        self.seed = seed
        self.name = name
        self.length = array("i")
        self.depth = array("i")
        self.hash = array("Q")

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        source = sentence.source
        self.estimate.add(source.split, shared.get(text_hash), source.treebank)
        self.length.append(len(sentence.surface_tokens()))
        self.depth.append(sentence.depth())
        self.hash.append(sample_hash(self.seed, self.name, sentence))

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's): per-sentence
        arrays, concatenated."""
        if not isinstance(later, TreeDepthObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into tree_depth")
        if (later.seed, later.name) != (self.seed, self.name):
            raise ValueError("cannot merge tree_depth observations of another seed or task")
        self.length.extend(later.length)
        self.depth.extend(later.depth)
        self.hash.extend(later.hash)
        self.estimate.merge(later.estimate)


class TreeDepth(Task[Sentence]):
    """Label = depth of the dependency tree (longest root-to-leaf path, root = 1).

    The label names (depth classes such as ``"≤3"``, ``"4"``, ``"5"``, ``"≥6"``) are the
    fit's; options are :class:`TreeDepthOptions`. The class floors and the split mode are the
    build's (``self.context``).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="tree_depth",
        level=Level.SENTENCE,
        description=(
            "Predict the depth of the sentence's dependency tree (longest path from the root to "
            "a leaf, root = 1), sampled so that sentence length does not predict it."
        ),
        labels=None,
        labels_derived=(
            "depth classes '≤k', ..., '≥m', the range chosen from the corpus (most classes "
            "meeting the floors and the ρ target)"
        ),
        citation=CONNEAU_2018,
        seed_dependent=True,
        notes=(
            "Depth = number of nodes on the longest root-to-leaf path of the basic dependency "
            "tree (a one-word sentence has depth 1). Length = surface tokens, punctuation "
            "included.",
            "Only sentences whose length lies in a window are used (default: the interquartile "
            "range of lengths, floor(Q1)..ceil(Q3)); the window is recorded and overridable.",
            "Classes are depth values; the rarest extremes are merged into '≤k' and '≥m' "
            "classes. Per length, every (length, class) cell is capped at max(smallest cell, "
            "⌊α × mean cell⌋) with a seeded stable hash choosing the kept items, so each length "
            "has nearly equal counts per class; α is the largest value giving |Spearman| <= 0.2 "
            "between length and the class and between length and the raw depth, with every "
            "class at min-per-class in every split.",
            "Among the feasible class ranges the one with the most classes wins, then the one "
            "keeping the most rows. None feasible -> the task is infeasible (reason recorded).",
            "The profile records Spearman's rho before (whole corpus, window) and after sampling.",
        ),
    )

    Options: ClassVar[type] = TreeDepthOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "sentences",
            "split_mode",
            "split_mode_reason",
            "min_per_class",
            "split_estimate",
            "length_window_source",
            "spearman_all",
            "rows_in_window",
            "spearman_window",
            "depth_values_in_window",
            "depth_range_source",
            "feasible",
            "infeasible",
            "label_names",
            "alpha",
            "rows_kept",
            "spearman_kept_class",
            "spearman_kept_depth",
            "class_counts_kept",
            "kept_per_length",
            "items_per_split_min",
        }
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        o = self.options
        return {
            "depth": "nodes on the longest root-to-leaf path (root = 1)",
            "length_unit": "surface token (multiword token counts once; punctuation included)",
            "length_window": list(o.length_window) if o.length_window else "interquartile range",
            "max_abs_spearman": o.max_abs_rho,
            "spearman_on": "length vs class and length vs raw depth"
            if o.rho_on == "both"
            else "length vs class",
            "cap_per_cell": "max(min cell, floor(alpha x mean cell)) per length",
            "alphas_tried": [a if math.isfinite(a) else "inf" for a in ALPHAS],
            "selection": "most classes, then most rows, then largest alpha",
            "min_per_class": list(self.context.min_per_class),
        }

    # --- first pass -------------------------------------------------------------------------
    def observation(self) -> TreeDepthObservation:
        return TreeDepthObservation(self.context.split_estimate(), self.seed, self.name)

    def _evaluate(
        self,
        estimate: SplitEstimate,
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
        the number of distinct depths) of the window: the same for every range, so ``fit``
        computes them once."""
        max_rho = self.options.max_abs_rho
        both = self.options.rho_on == "both"
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
        n_sent = len(estimate)
        for alpha in ALPHAS:
            cap = (
                cells.max(axis=1) if math.isinf(alpha) else np.maximum(low, np.floor(alpha * mean))
            )
            kept = np.minimum(cells, cap[:, None])
            rho = spearman_from_table(kept)
            if abs(rho) > max_rho:
                continue
            keep = rank < cap[lid]
            rho_depth = spearman_of_subset(lid, did, lengths.size, n_depths, keep)
            if both and abs(rho_depth) > max_rho:
                continue
            classes = np.full(n_sent, -1, dtype=np.int64)
            classes[index[keep]] = cls[keep]
            table = estimate.table(classes, n_cls)
            if not estimate.passing(table).all():
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

    def fit(self, observation: Observation | None) -> TreeDepthFit:
        if not isinstance(observation, TreeDepthObservation):
            raise TypeError("tree_depth: fit() needs the observation of observation()")
        o = self.options
        estimate = observation.estimate
        estimate.finish()
        length = np.frombuffer(observation.length, dtype=np.int32).astype(np.int64)
        depth = np.frombuffer(observation.depth, dtype=np.int32).astype(np.int64)
        hashes = np.frombuffer(observation.hash, dtype=np.uint64)
        out: dict[str, Any] = {"sentences": int(length.size), **estimate.describe()}
        if length.size == 0:
            return _failed(out, "no sentences")
        if o.length_window is not None:
            window = o.length_window
            out["length_window_source"] = "profile"
        else:
            q1, q3 = np.percentile(length, [25, 75])
            window = (int(math.floor(q1)), int(math.ceil(q3)))
            out["length_window_source"] = "interquartile range (floor Q1, ceil Q3)"
        out["length_window"] = list(window)
        out["spearman_all"] = round(spearman(length, depth), 4)
        in_window = (length >= window[0]) & (length <= window[1])
        index = np.flatnonzero(in_window)
        wl, wd, wh = length[index], depth[index], hashes[index]
        out["rows_in_window"] = int(index.size)
        if index.size == 0:
            return _failed(out, "no sentence in the length window", window)
        out["spearman_window"] = round(spearman(wl, wd), 4)
        values = np.unique(wd).tolist()
        out["depth_values_in_window"] = {str(v): int((wd == v).sum()) for v in values}
        if o.depth_range is not None:
            ranges = [o.depth_range]
            out["depth_range_source"] = "profile"
        else:
            ranges = [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
            out["depth_range_source"] = "derived"
        best: tuple[tuple[int, int, float], tuple[int, int], dict[str, Any]] | None = None
        uniques = _window_uniques(wl, wd)
        for lo, hi in ranges:
            if hi <= lo:
                continue
            res = self._evaluate(estimate, wl, wd, wh, index, lo, hi, uniques)
            if res is None:
                continue
            score = (hi - lo + 1, res["rows"], res["alpha"])
            if best is None or score > best[0]:
                best = (score, (lo, hi), res)
        if best is None:
            target = (
                f"|Spearman| <= {o.max_abs_rho} with every class at min-per-class "
                f"{'/'.join(map(str, estimate.floors))} in every split"
            )
            if o.depth_range is not None:
                return _failed(out, f"the profile's depth_range does not reach {target}", window)
            return _failed(out, f"no range of >= 2 depth classes reaches {target}", window)
        _, (lo, hi), res = best
        names = class_labels(lo, hi, int(values[0]), int(values[-1]))
        # Per-cell hash thresholds: the largest kept hash of each (length, class) cell.
        lengths = res["lengths"]
        keep = res["keep"]
        cls = np.clip(wd, lo, hi) - lo
        thresholds: dict[tuple[int, int], int] = {}
        for i in np.flatnonzero(keep).tolist():
            key = (int(wl[i]), int(cls[i]))
            h = int(wh[i])
            if h > thresholds.get(key, -1):
                thresholds[key] = h
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
        return TreeDepthFit(
            label_names=names,
            report=out,
            window=window,
            depth_range=(lo, hi),
            thresholds=thresholds,
        )

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if not isinstance(fit, TreeDepthFit):
            raise TypeError("tree_depth: candidates need the fit of TreeDepth.fit()")
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        tokens = sentence.surface_tokens()
        n = len(tokens)
        lo_len, hi_len = fit.window
        if not lo_len <= n <= hi_len:
            return self.drop(DROP_WINDOW)
        lo, hi = fit.depth_range
        cls = min(max(sentence.depth(), lo), hi) - lo
        threshold = fit.thresholds.get((n, cls))
        if threshold is None or sample_hash(self.seed, self.name, sentence) > threshold:
            return self.drop(DROP_SAMPLED)
        return [Candidate(sentence_inputs(sentence), fit.label_names[cls], copy="0")]


def _failed(out: dict[str, Any], reason: str, window: tuple[int, int] = (0, -1)) -> TreeDepthFit:
    """The fit of an infeasible task: no labels, the reason in the report."""
    out.update({"feasible": False, "infeasible": reason})
    return TreeDepthFit(label_names=(), report=out, infeasible=reason, window=window)
