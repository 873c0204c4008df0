"""Evaluation protocols: which rows train, select and score a probe.

- ``split`` (SentEval's SplitClassifier): train on train, choose hyper-parameters on
  validation, score on test.
- ``kfold`` with a test split but no validation split (SentEval's InnerKFoldClassifier):
  hyper-parameters chosen by k-fold cross-validation inside train; the final model is trained on
  all of train (an MLP that early-stops holds out one inner fold as its validation set); scored
  on test.
- ``kfold`` without a test split, or when the probe asks for cross-validation (``wehner``): all
  rows pooled, outer k folds; inside each outer training part one inner fold is the validation
  set; the metrics are computed on the pooled out-of-fold predictions. The ``senteval`` preset
  runs SentEval's ``InnerKFoldClassifier`` there instead (stratified outer and inner folds,
  every C scored by inner k-fold CV).

Folds are built from connected components of (group ∪ lexical_key), so no group and no
lexical key is ever on both sides of a fold boundary, and assigned greedily to the lightest
fold in an order given by blake2b(seed, component): deterministic and size-balanced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.evaluation.logreg import blas_threads, probe_threads
from polyprobe.evaluation.probes import (
    Fitted,
    ProbeSpec,
    fit_grid,
    fit_lr_final,
    fit_lr_sets,
    is_sklearn,
    senteval_seed,
)
from polyprobe.hashing import stable_u64


def components(groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Component id per row: rows sharing a group or a non-empty lexical key are connected."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            parent[rb] = ra

    for g, k in zip(groups, keys, strict=True):
        find("g\x1f" + str(g))
        if k:
            union("g\x1f" + str(g), "k\x1f" + str(k))
    roots = [find("g\x1f" + str(g)) for g in groups]
    names = {r: i for i, r in enumerate(sorted(set(roots)))}
    return np.array([names[r] for r in roots], dtype=np.int64)


def group_kfold(groups: np.ndarray, keys: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold index per row, never splitting a component. Fewer components than k → fewer folds."""
    comp = components(groups, keys)
    n_comp = int(comp.max()) + 1 if len(comp) else 0
    sizes = np.bincount(comp, minlength=n_comp)
    rep: list[str] = [""] * n_comp
    for g, c in zip(groups, comp, strict=True):
        s = str(g)
        if not rep[c] or s < rep[c]:
            rep[c] = s
    order = sorted(range(n_comp), key=lambda c: (stable_u64("fold", seed, rep[c]), rep[c]))
    k = max(1, min(k, n_comp))
    load = np.zeros(k, dtype=np.int64)
    fold_of = np.zeros(n_comp, dtype=np.int64)
    for c in order:
        f = int(np.argmin(load))
        fold_of[c] = f
        load[f] += sizes[c]
    return fold_of[comp]


@dataclass
class SplitArrays:
    """Per split: features, labels, groups, lexical keys (splits: train/validation/test)."""

    X: dict[str, np.ndarray]
    y: dict[str, np.ndarray]
    groups: dict[str, np.ndarray]
    keys: dict[str, np.ndarray]

    def has(self, split: str) -> bool:
        return split in self.y and len(self.y[split]) > 0


@dataclass
class Outcome:
    protocol: str
    y_true: np.ndarray
    y_pred: np.ndarray
    majority_pred: np.ndarray
    chosen: list[dict[str, Any]] = field(default_factory=list)
    # the ``group`` of each scored row (as y_true), so the bootstrap resamples whole groups
    groups: np.ndarray | None = None


def _accuracy(y: np.ndarray, p: np.ndarray) -> float:
    return float((y == p).mean()) if len(y) else 0.0


def _needs_validation(spec: ProbeSpec) -> bool:
    return len(spec.grid_points()) > 1 or (
        spec.kind == "mlp" and bool(spec.params.get("early_stopping", True))
    )


def _majority(y: np.ndarray, n_classes: int) -> int:
    """Train majority; ties go to the lowest label id (deterministic)."""
    return int(np.argmax(np.bincount(y, minlength=n_classes)))


def selection_score(spec: ProbeSpec, accuracy: float) -> float:
    """The score a grid point is chosen by: the accuracy, or for the SentEval presets
    SentEval's ``round(100·accuracy, 2)`` (as a fraction), so that two points SentEval
    rounds to the same score tie and the first of the grid wins, as in SentEval."""
    decimals = spec.params.get("score_decimals")
    if decimals is None:
        return accuracy
    return round(100 * accuracy, int(decimals)) / 100


def _select(
    fitted: list[Fitted], X_val: np.ndarray, y_val: np.ndarray, spec: ProbeSpec | None = None
) -> tuple[int, list[float]]:
    scores = [_accuracy(y_val, f.predict(X_val)) for f in fitted]
    if spec is not None:
        scores = [selection_score(spec, a) for a in scores]
    return int(np.argmax(scores)), scores  # first best: grid order breaks ties


def kfold_points(spec: ProbeSpec) -> list[dict[str, Any]]:
    """The grid searched by k-fold selection inside train: SentEval's KFoldClassifier grid
    (2^-1 … 2^5) for the ``senteval`` preset, else the preset's grid."""
    if spec.params.get("kfold_C"):
        return [{"C": float(c)} for c in spec.params["kfold_C"]]
    return spec.grid_points()


def train_folds(
    spec: ProbeSpec, y: np.ndarray, groups: np.ndarray, keys: np.ndarray, k: int, seed: int
) -> np.ndarray:
    """Fold index per training row: group-aware folds (:func:`group_kfold`), or for the
    SentEval presets SentEval's ``StratifiedKFold(k, shuffle=True, random_state=seed)``."""
    if spec.params.get("folds") == "stratified-shuffled":
        k = max(2, min(k, int(np.bincount(y).max()) if len(y) else 2))
        return _stratified_folds(spec, y, k, seed)
    return group_kfold(groups, keys, k, seed)


def grid_edge(scores: list[float], best: int) -> str | None:
    """``"lowest"``/``"highest"`` when the chosen point is the first/last of a grid of ≥ 3 whose
    scores are not flat: the optimum may lie outside the grid (for ``lr``: a C beyond the
    grid's end), which the result reports as a warning."""
    if len(scores) < 3 or max(scores) == min(scores):
        return None
    if best == 0:
        return "lowest"
    if best == len(scores) - 1:
        return "highest"
    return None


def _record(f: Fitted, scores: list[float], best: int, how: str) -> dict[str, Any]:
    rec = {
        **{k: v for k, v in f.params.items()},
        "selected_by": how,
        "validation_accuracy": round(scores[best], 6) if scores else None,
        "grid_scores": [round(s, 6) for s in scores],
        **{k: v for k, v in f.info.items()},
    }
    edge = grid_edge(scores, best)
    if edge:
        rec["grid_edge"] = edge
    return rec


def convergence_summary(fits: list[Fitted]) -> dict[str, Any]:
    """How many of the selection fits converged (LR fits report it; others say nothing)."""
    flags = [f.info["converged"] for f in fits if "converged" in f.info]
    if not flags:
        return {}
    return {"grid_fits_converged": f"{sum(flags)}/{len(flags)}"}


def fit_select(
    spec: ProbeSpec,
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray | None,
    y_val: np.ndarray | None,
    n_classes: int,
    seed: int,
) -> tuple[Fitted, dict[str, Any]]:
    """Fit the grid on (X, y), pick the best point on the validation set; an ``lr`` grid is
    extended past its edge as the batched path extends it (:func:`extend_grid`), so
    ``--extend-grid`` means the same under pooled cross-validation (each outer fold's inner
    validation) as on a validation split."""
    fitted = fit_grid(spec, X, y, X_val, y_val, n_classes, seed)
    if len(fitted) == 1 or X_val is None or len(X_val) == 0:
        return fitted[0], _record(fitted[0], [], 0, "fixed")
    best, scores = _select(fitted, X_val, y_val, spec)
    points, added = spec.grid_points(), []
    if spec.kind == "lr":

        def fit_more(new: list[dict[str, Any]]) -> list[Fitted]:
            return fit_grid(spec, X, y, X_val, y_val, n_classes, seed, new)

        def val_scores(fs: list[Fitted]) -> list[float]:
            return [selection_score(spec, _accuracy(y_val, f.predict(X_val))) for f in fs]

        fitted = list(fitted)
        added = extend_grid(spec, points, scores, fitted, fit_more, val_scores)
        best = int(np.argmax(scores))
    rec = _record(fitted[best], scores, best, "validation")
    rec.update(convergence_summary(fitted))
    if added:
        rec["grid_searched"] = [p_["C"] for p_ in points]
    return fitted[best], rec


def _inner_split(
    groups: np.ndarray, keys: np.ndarray, k: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    folds = group_kfold(groups, keys, k, seed)
    val = folds == 0
    if val.all() or not val.any():  # a single component: nothing to hold out
        return np.ones(len(groups), bool), np.zeros(len(groups), bool)
    return ~val, val


def run_protocol(
    spec: ProbeSpec, data: SplitArrays, n_classes: int, seed: int, folds: int = 5
) -> Outcome:
    """Train/select/score ``spec`` on ``data`` following the protocol its splits call for."""
    k = spec.folds if spec.protocol == "cv" else folds
    if spec.protocol == "cv" or not data.has("test"):
        return _outer_cv(spec, data, n_classes, seed, k)
    if _batchable(spec, data):
        return run_protocols(spec, data, [data.y], n_classes, seed, folds)[0]
    Xtr, ytr = data.X["train"], data.y["train"]
    Xte, yte = data.X["test"], data.y["test"]
    maj = np.full(len(yte), _majority(ytr, n_classes), dtype=np.int64)
    if data.has("validation"):
        model, chosen = fit_select(
            spec, Xtr, ytr, data.X["validation"], data.y["validation"], n_classes, seed
        )
        return Outcome("split", yte, model.predict(Xte), maj, [chosen], data.groups.get("test"))
    # No validation split: inner k-fold on train for selection.
    points = kfold_points(spec)
    g, kk = data.groups["train"], data.keys["train"]
    chosen: dict[str, Any]
    if len(points) > 1:
        fold_ids = train_folds(spec, ytr, g, kk, k, seed)
        n_folds = int(fold_ids.max()) + 1
        totals = np.zeros(len(points))
        grid_fits: list[Fitted] = []
        for f in range(n_folds):  # lr never gets here: run_protocols solves it batched
            tr, va = fold_ids != f, fold_ids == f
            fitted = fit_grid(spec, Xtr[tr], ytr[tr], Xtr[va], ytr[va], n_classes, seed, points)
            totals += [_accuracy(ytr[va], m.predict(Xtr[va])) for m in fitted]
            grid_fits += fitted
        scores = [selection_score(spec, float(a)) for a in totals / max(1, n_folds)]
        best = int(np.argmax(scores))
        point = points[best]
        how = f"{n_folds}-fold-cv-on-train"
    else:
        point, scores, best, how = points[0], [], 0, "fixed"
    if spec.kind == "mlp" and spec.params.get("early_stopping", True):
        tr, va = _inner_split(g, kk, k, seed + 1)
        fitted = fit_grid(spec, Xtr[tr], ytr[tr], Xtr[va], ytr[va], n_classes, seed, [point])
    else:
        fitted = fit_grid(spec, Xtr, ytr, None, None, n_classes, seed, [point])
    chosen = _record(fitted[0], scores, best, how)
    if len(points) > 1:
        chosen.update(convergence_summary(grid_fits))
    return Outcome("kfold", yte, fitted[0].predict(Xte), maj, [chosen], data.groups.get("test"))


def _batchable(spec: ProbeSpec, data: SplitArrays) -> bool:
    return spec.kind == "lr" and spec.protocol != "cv" and data.has("test")


def run_protocols(
    spec: ProbeSpec,
    data: SplitArrays,
    label_sets: list[dict[str, np.ndarray]],
    n_classes: int,
    seed: int,
    folds: int = 5,
) -> list[Outcome]:
    """:func:`_run_protocols` with numpy's BLAS held to the fits' thread count
    (``logreg.blas_threads``): the probe step's numpy products (standardising, predicting
    every fold's validation rows) otherwise ran on every core whatever ``POLYPROBE_THREADS``
    said."""
    with blas_threads(probe_threads()):
        return _run_protocols(spec, data, label_sets, n_classes, seed, folds)


def _run_protocols(
    spec: ProbeSpec,
    data: SplitArrays,
    label_sets: list[dict[str, np.ndarray]],
    n_classes: int,
    seed: int,
    folds: int = 5,
) -> list[Outcome]:
    """:func:`run_protocol` for several label sets on the same features and rows (a task and
    its control task), one outcome per label set. ``lr`` under the split or inner k-fold
    protocol solves every label set, fold and grid point in one batched solve per C
    (``probes.fit_lr_sets``), then every label set's final refit on all of train at its own
    chosen C in one more (``probes.fit_lr_final``, from the folds' solutions). Other
    probes and the pooled-CV protocol run :func:`run_protocol` once per label set."""
    if not _batchable(spec, data):
        return [
            run_protocol(spec, SplitArrays(data.X, ys, data.groups, data.keys), n_classes, seed,
                         folds)
            for ys in label_sets
        ]  # fmt: skip
    points = spec.grid_points()
    Xtr, Xte = data.X["train"], data.X["test"]
    train = np.stack([ys["train"] for ys in label_sets])
    if data.has("validation"):  # split protocol: fit on train, select on validation
        Xva = data.X["validation"]
        fits = fit_lr_sets(spec, Xtr, train, np.ones((1, len(Xtr)), bool), n_classes, points)
        out = []
        for ys, per_mask in zip(label_sets, fits, strict=True):
            fitted = per_mask[0]
            maj = np.full(len(ys["test"]), _majority(ys["train"], n_classes), dtype=np.int64)
            if len(fitted) == 1:
                model, rec = fitted[0], _record(fitted[0], [], 0, "fixed")
            else:
                yva = ys["validation"]
                scores = [selection_score(spec, _accuracy(yva, f.predict(Xva))) for f in fitted]
                pts, fitted = list(points), list(fitted)
                ytr_ = ys["train"][None]

                def fit_more(new: list[dict[str, Any]], ytr_: np.ndarray = ytr_) -> list[Fitted]:
                    whole = np.ones((1, len(Xtr)), bool)
                    return fit_lr_sets(spec, Xtr, ytr_, whole, n_classes, new)[0][0]

                def val_scores(fs: list[Fitted], yva: np.ndarray = yva) -> list[float]:
                    return [selection_score(spec, _accuracy(yva, f.predict(Xva))) for f in fs]

                added = extend_grid(spec, pts, scores, fitted, fit_more, val_scores)
                best = int(np.argmax(scores))
                model, rec = fitted[best], _record(fitted[best], scores, best, "validation")
                rec.update(convergence_summary(fitted))
                if added:
                    rec["grid_searched"] = [p_["C"] for p_ in pts]
            out.append(
                Outcome(
                    "split", ys["test"], model.predict(Xte), maj, [rec], data.groups.get("test")
                )
            )
        return out
    k = folds
    g, kk = data.groups["train"], data.keys["train"]
    ytes = [ys["test"] for ys in label_sets]
    majs = [
        np.full(len(ys["test"]), _majority(ys["train"], n_classes), dtype=np.int64)
        for ys in label_sets
    ]
    points = kfold_points(spec)
    if len(points) == 1:  # nothing to select: one refit per label set
        finals = fit_lr_final(spec, Xtr, train, n_classes, [points[0]] * len(label_sets))
        return [
            Outcome(
                "kfold",
                yte,
                f.predict(Xte),
                maj,
                [_record(f, [], 0, "fixed")],
                data.groups.get("test"),
            )
            for yte, f, maj in zip(ytes, finals, majs, strict=True)
        ]
    fold_ids = train_folds(spec, label_sets[0]["train"], g, kk, k, seed)
    n_folds = int(fold_ids.max()) + 1
    masks = np.stack([fold_ids != f for f in range(n_folds)])
    fits = fit_lr_sets(spec, Xtr, train, masks, n_classes, points)
    records, chosen_points, starts = [], [], []
    for ls, (ys, per_mask) in enumerate(zip(label_sets, fits, strict=True)):
        ytr = ys["train"]

        def cv_scores(per_point: list[list[Fitted]], ytr: np.ndarray = ytr) -> list[float]:
            """Mean fold accuracy of each point; ``per_point[j][f]``: point j, fold f."""
            return [
                selection_score(spec, float(np.mean([
                    _accuracy(ytr[fold_ids == f], fs[f].predict(Xtr[fold_ids == f]))
                    for f in range(n_folds)
                ])))
                for fs in per_point
            ]  # fmt: skip

        def fit_more(new: list[dict[str, Any]], ls: int = ls) -> list[list[Fitted]]:
            sets = fit_lr_sets(spec, Xtr, train[ls : ls + 1], masks, n_classes, new)[0]
            return [[sets[f][j] for f in range(n_folds)] for j in range(len(new))]

        per_point = [[per_mask[f][j] for f in range(n_folds)] for j in range(len(points))]
        pts, scores = list(points), cv_scores(per_point)
        added = extend_grid(spec, pts, scores, per_point, fit_more, cv_scores)
        best = int(np.argmax(scores))
        chosen_points.append(pts[best])
        starts.append(per_point[best])
        records.append((scores, best, [f for fs in per_point for f in fs], added, pts))
    # The final models: every label set's chosen point refitted on all of train, together,
    # each from its folds' solutions at that point (probes.fit_lr_final).
    finals = fit_lr_final(spec, Xtr, train, n_classes, chosen_points, starts)
    out = []
    for yte, maj, final, (scores, best, grid_fits, added, pts) in zip(
        ytes, majs, finals, records, strict=True
    ):
        rec = _record(final, scores, best, f"{n_folds}-fold-cv-on-train")
        rec.update(convergence_summary(grid_fits))
        if added:
            rec["grid_searched"] = [p_["C"] for p_ in pts]
        out.append(Outcome("kfold", yte, final.predict(Xte), maj, [rec], data.groups.get("test")))
    return out


def extend_grid(
    spec: ProbeSpec,
    points: list[dict[str, Any]],
    scores: list[float],
    fits: list[Any],
    fit_more: Any,
    score: Any,
) -> list[float]:
    """While the best point is at an edge of a one-parameter geometric grid (``lr``'s C) and
    the preset allows (``extend_grid``: at most that many steps), add the next value beyond
    that edge (the grid's own ratio: 2^-3 below 2^-2), fit and score it, and look again.
    ``points``/``scores``/``fits`` are extended in place, in grid order; returns the values
    added. The best value then lies inside the searched grid unless the budget ran out (then
    the result still says ``grid_edge`` and the warning names the searched grid)."""
    budget = int(spec.params.get("extend_grid", 0) or 0)
    if is_sklearn(spec):  # SentEval's grid is fixed
        return []
    keys = [k for k, v in spec.grid.items() if len(v) > 1]
    if budget <= 0 or len(keys) != 1 or len(points) < 2:
        return []
    key = keys[0]
    values = [float(p[key]) for p in points]
    if min(values) <= 0 or values != sorted(values):
        return []
    ratio = (values[-1] / values[0]) ** (1 / (len(values) - 1))
    added: list[float] = []
    while len(added) < budget:
        edge = grid_edge(scores, int(np.argmax(scores)))
        if edge is None:
            break
        low = edge == "lowest"
        value = float(points[0][key]) / ratio if low else float(points[-1][key]) * ratio
        point = {**(points[0] if low else points[-1]), key: value}
        (new_fit,) = fit_more([point])
        (new_score,) = score([new_fit])
        at = 0 if low else len(points)
        points.insert(at, point)
        scores.insert(at, new_score)
        fits.insert(at, new_fit)
        added.append(value)
    return added


def _pooled(data: SplitArrays) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    splits = [s for s in ("train", "validation", "test") if data.has(s)]
    y = np.concatenate([data.y[s] for s in splits])
    g = np.concatenate([data.groups[s] for s in splits])
    kk = np.concatenate([data.keys[s] for s in splits])
    return splits, y, g, kk


def majority_outcome(data: SplitArrays, n_classes: int, spec: ProbeSpec, folds: int = 5) -> Outcome:
    """The train-majority predictor under the same protocol (seed 0's folds for pooled CV)."""
    if spec.protocol == "cv" or not data.has("test"):
        k = spec.folds if spec.protocol == "cv" else folds
        _, y, g, kk = _pooled(data)
        fold_ids = group_kfold(g, kk, k, 0)
        maj = np.zeros(len(y), np.int64)
        for f in range(int(fold_ids.max()) + 1):
            te = fold_ids == f
            if (~te).any():
                maj[te] = _majority(y[~te], n_classes)
        return Outcome("kfold", y, maj, maj, groups=g)
    yte = data.y["test"]
    maj = np.full(len(yte), _majority(data.y["train"], n_classes), dtype=np.int64)
    return Outcome(
        "split" if data.has("validation") else "kfold",
        yte,
        maj,
        maj,
        groups=data.groups.get("test"),
    )


def _stratified_folds(spec: ProbeSpec, y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """SentEval's ``StratifiedKFold(k, shuffle=True, random_state=1111 + seed)`` as fold ids."""
    from sklearn.model_selection import StratifiedKFold

    skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=senteval_seed(spec, seed))
    fold_ids = np.zeros(len(y), np.int64)
    for f, (_, test_idx) in enumerate(skf.split(np.zeros(len(y)), y)):
        fold_ids[test_idx] = f
    return fold_ids


def _senteval_inner_kfold(
    spec: ProbeSpec, data: SplitArrays, n_classes: int, seed: int, k: int
) -> Outcome:
    """SentEval's ``InnerKFoldClassifier`` (a set with no test split, e.g. MR, CR, SUBJ): outer
    and inner ``StratifiedKFold(k, shuffle=True, random_state=1111)`` at seed 0; in each outer
    training part every C of the grid is scored by the mean inner-fold accuracy (rounded as
    SentEval rounds it, the first best C wins), refit on the outer training part, scored on
    the outer fold. SentEval reports the mean of the outer folds' accuracies: it is recorded
    as ``senteval_fold_mean``; the result's accuracy is the pooled out-of-fold one (the folds
    differ in size by at most one row per class, so the two differ by a fraction of a row)."""
    splits, y, g, _ = _pooled(data)
    X = np.concatenate([data.X[s] for s in splits])
    k = max(2, min(k, int(np.bincount(y).max()) if len(y) else 2))
    outer = _stratified_folds(spec, y, k, seed)
    points = spec.grid_points()
    y_pred = np.zeros(len(y), np.int64)
    maj = np.zeros(len(y), np.int64)
    chosen: list[dict[str, Any]] = []
    fold_accuracies: list[float] = []
    for f in range(int(outer.max()) + 1):
        te, idx = outer == f, np.nonzero(outer != f)[0]
        Xtr, ytr = X[idx], y[idx]
        maj[te] = _majority(ytr, n_classes)
        inner = _stratified_folds(spec, ytr, k, seed)
        totals = np.zeros(len(points))
        grid_fits: list[Fitted] = []
        for i in range(int(inner.max()) + 1):
            itr, iva = inner != i, inner == i
            fitted = fit_grid(spec, Xtr[itr], ytr[itr], None, None, n_classes, seed, points)
            totals += [_accuracy(ytr[iva], m.predict(Xtr[iva])) for m in fitted]
            grid_fits += fitted
        scores = [selection_score(spec, float(a)) for a in totals / (int(inner.max()) + 1)]
        best = int(np.argmax(scores))
        model = fit_grid(spec, Xtr, ytr, None, None, n_classes, seed, [points[best]])[0]
        y_pred[te] = model.predict(X[te])
        fold_accuracies.append(round(100 * _accuracy(y[te], y_pred[te]), 2))  # as SentEval
        rec = _record(model, scores, best, f"{int(inner.max()) + 1}-fold-inner-cv")
        rec.update(convergence_summary(grid_fits))
        rec["fold"] = f
        chosen.append(rec)
    for rec in chosen:
        rec["senteval_fold_mean"] = round(float(np.mean(fold_accuracies)), 2) / 100
    return Outcome("kfold", y, y_pred, maj, chosen, g)


def _outer_cv(spec: ProbeSpec, data: SplitArrays, n_classes: int, seed: int, k: int) -> Outcome:
    if is_sklearn(spec) and spec.protocol != "cv" and spec.params.get("folds"):
        return _senteval_inner_kfold(spec, data, n_classes, seed, k)
    splits, y, g, kk = _pooled(data)
    X = np.concatenate([data.X[s] for s in splits])
    fold_ids = group_kfold(g, kk, k, seed)
    n_folds = int(fold_ids.max()) + 1
    y_pred = np.zeros(len(y), np.int64)
    maj = np.zeros(len(y), np.int64)
    chosen: list[dict[str, Any]] = []
    for f in range(n_folds):
        te = fold_ids == f
        tr_all = ~te
        if not tr_all.any():
            continue
        maj[te] = _majority(y[tr_all], n_classes)
        idx = np.nonzero(tr_all)[0]
        if _needs_validation(spec):
            tr, va = _inner_split(g[idx], kk[idx], max(2, k - 1), seed + f + 1)
            model, rec = fit_select(
                spec, X[idx[tr]], y[idx[tr]], X[idx[va]], y[idx[va]], n_classes, seed
            )
        else:
            model, rec = fit_select(spec, X[idx], y[idx], None, None, n_classes, seed)
        rec["fold"] = f
        chosen.append(rec)
        y_pred[te] = model.predict(X[te])
    return Outcome("kfold", y, y_pred, maj, chosen, g)
