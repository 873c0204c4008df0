"""Probes on synthetic data with known answers, and the batched L-BFGS LR against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from polyprobe.evaluation.logreg import Problem, solve
from polyprobe.evaluation.probes import PRESETS, fit_grid, get_probe
from polyprobe.evaluation.protocols import SplitArrays, run_protocol
from polyprobe.evaluation.synthetic import separable_blobs


def _data(X: np.ndarray, y: np.ndarray, with_validation: bool = True) -> SplitArrays:
    n = len(y)
    cuts = {
        "train": slice(0, n * 6 // 10),
        "validation": slice(n * 6 // 10, n * 8 // 10),
        "test": slice(n * 8 // 10, n),
    }
    if not with_validation:
        cuts = {"train": slice(0, n * 8 // 10), "test": slice(n * 8 // 10, n)}
    g = np.array([f"g{i}" for i in range(n)], dtype=object)
    k = np.array([""] * n, dtype=object)
    return SplitArrays(
        {s: X[c] for s, c in cuts.items()},
        {s: y[c] for s, c in cuts.items()},
        {s: g[c] for s, c in cuts.items()},
        {s: k[c] for s, c in cuts.items()},
    )


@pytest.mark.parametrize("n_classes", [2, 4])
def test_lr_matches_sklearn(n_classes: int) -> None:
    X, y = separable_blobs(600, 20, n_classes, margin=1.0)
    X = (X - X.mean(0)) / X.std(0)
    for C in (0.25, 8.0):
        sol = solve(X, y, np.ones((1, len(y)), bool), [Problem(0, 0, C)], n_classes, 2000, 1e-9)
        coef, intercept = sol.coef[0], sol.intercept[0]
        assert sol.converged[0]
        sk = LogisticRegression(C=C, tol=1e-10, max_iter=5000).fit(X, y)
        assert coef.shape == sk.coef_.shape
        assert np.abs(coef - sk.coef_).max() < 1e-3
        assert (
            np.abs((intercept - intercept.mean()) - (sk.intercept_ - sk.intercept_.mean())).max()
            < 1e-3
        )
        ours = (
            (X @ coef.T + intercept).argmax(1)
            if n_classes > 2
            else (X @ coef.T + intercept)[:, 0] > 0
        )
        assert (ours == sk.predict(X)).mean() > 0.995


@pytest.mark.parametrize("probe", ["lr", "mlp"])
def test_separable_is_learned_and_random_labels_are_chance(probe: str) -> None:
    spec = get_probe(probe)
    if probe == "mlp":  # a smaller grid keeps the test fast; the search logic is the same
        spec.grid = {"hidden": [50], "dropout": [0.0, 0.2]}
        spec.params["max_epochs"] = 30
    X, y = separable_blobs(600, 16, 3, margin=6.0)
    out = run_protocol(spec, _data(X, y), 3, seed=0)
    assert out.protocol == "split"
    assert (out.y_pred == out.y_true).mean() > 0.98
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((900, 16)).astype(np.float32)
    y_rand = rng.integers(0, 3, 900)
    out = run_protocol(spec, _data(noise, y_rand), 3, seed=0)
    assert abs((out.y_pred == out.y_true).mean() - 1 / 3) < 0.1


def test_grid_and_choice_are_recorded() -> None:
    X, y = separable_blobs(400, 8, 2, margin=2.0)
    out = run_protocol(get_probe("lr"), _data(X, y), 2, seed=0)
    (chosen,) = out.chosen
    assert chosen["C"] in PRESETS["lr"].grid["C"]
    assert len(chosen["grid_scores"]) == 6 and chosen["selected_by"] == "validation"


def test_kfold_protocol_without_validation() -> None:
    X, y = separable_blobs(500, 8, 2, margin=6.0)
    out = run_protocol(get_probe("lr"), _data(X, y, with_validation=False), 2, seed=0, folds=3)
    assert out.protocol == "kfold" and out.chosen[0]["selected_by"] == "3-fold-cv-on-train"
    assert (out.y_pred == out.y_true).mean() > 0.98


def test_mlp_is_deterministic() -> None:
    X, y = separable_blobs(300, 8, 3, margin=1.0)
    spec = get_probe("linspector")
    spec.params["max_epochs"] = 3
    a = fit_grid(spec, X, y, X, y, 3, seed=5)[0].predict(X)
    b = fit_grid(spec, X, y, X, y, 3, seed=5)[0].predict(X)
    assert np.array_equal(a, b)


def test_presets() -> None:
    assert len(PRESETS["mlp"].grid_points()) == 9
    assert (
        PRESETS["linspector"].params["hidden"] == 300
        and PRESETS["linspector"].params["batch_size"] == 16
    )
    assert PRESETS["wehner"].protocol == "cv" and not PRESETS["wehner"].params["early_stopping"]
