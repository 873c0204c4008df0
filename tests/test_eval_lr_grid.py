"""The batched ``lr`` grid against scikit-learn on a small real task (TREC coarse, random
encoder): the same folds, the same grid, the same per-fold standardisation; grid scores within
1e-3, the same chosen C, the same test predictions but for at most one boundary item. Also: convergence and the grid
edge are reported, and a binary task matches too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from polyprobe import build_trec
from polyprobe.evaluation.data import load_config, read_card
from polyprobe.evaluation.diagnostics import probe_warnings
from polyprobe.evaluation.encoders import build_encoder
from polyprobe.evaluation.probes import LR_GRID, Standardizer, get_probe
from polyprobe.evaluation.protocols import (
    SplitArrays,
    group_kfold,
    run_protocol,
    run_protocols,
)

N_TRAIN = 1500  # a slice of TREC's train keeps scikit-learn's 30 fits quick


@pytest.fixture(scope="module")
def trec(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = build_trec(data_dir / "trec", out=tmp_path_factory.mktemp("trec") / "trec", seed=0)
    card = read_card(str(folder.out), None)
    cfg = load_config(str(folder.out), "coarse", None, card, None)
    enc = build_encoder("random?dim=48")
    out = {}
    for split in ("train", "test"):
        rows = slice(0, N_TRAIN) if split == "train" else slice(None)
        items = [r[0] for r in cfg.items(split)][rows]
        out[split] = (
            enc.encode(items)[None],
            cfg.labels(split)[rows],
            cfg.groups(split)[rows],
            cfg.keys(split)[rows],
        )
    out["n_classes"] = len(cfg.label_names)
    return out


def _sklearn_grid(X, y, fold_ids, Cs, tol=1e-8):
    scores = np.zeros(len(Cs))
    n_folds = int(fold_ids.max()) + 1
    for f in range(n_folds):
        tr, va = fold_ids != f, fold_ids == f
        sc = Standardizer(X[tr])
        for j, C in enumerate(Cs):
            m = LogisticRegression(C=C, tol=tol, max_iter=10_000).fit(sc(X[tr]), y[tr])
            scores[j] += (m.predict(sc(X[va])) == y[va]).mean() / n_folds
    return scores


def test_lr_grid_equals_sklearn_on_trec(trec: dict) -> None:
    X, y, g, k = trec["train"]
    Xte, yte = trec["test"][:2]
    spec = get_probe("lr")
    spec.params.update(max_iter=2000, tol=1e-7)  # both sides run to convergence
    data = SplitArrays({"train": X, "test": Xte}, {"train": y, "test": yte}, {}, {})
    data.groups = {"train": g, "test": trec["test"][2]}
    data.keys = {"train": k, "test": trec["test"][3]}
    out = run_protocol(spec, data, trec["n_classes"], seed=0, folds=5)
    (chosen,) = out.chosen
    assert chosen["selected_by"] == "5-fold-cv-on-train"
    assert chosen["grid_fits_converged"] == "30/30"

    fold_ids = group_kfold(g, k, 5, 0)
    sk_scores = _sklearn_grid(X, y, fold_ids, LR_GRID)
    assert np.abs(np.array(chosen["grid_scores"]) - sk_scores).max() < 1e-3
    best = LR_GRID[int(np.argmax(sk_scores))]
    assert chosen["C"] == best
    sc = Standardizer(X)
    sk = LogisticRegression(C=best, tol=1e-8, max_iter=10_000).fit(sc(X), y)
    sk_pred = sk.predict(sc(Xte))
    # The final fit: float32 products leave the solutions ~1e-5 apart, which may flip a test
    # item lying on a class boundary; one in 500 at most.
    assert (out.y_pred != sk_pred).sum() <= 1
    assert abs((out.y_pred == yte).mean() - (sk_pred == yte).mean()) <= 0.002 + 1e-9


def test_binary_grid_equals_sklearn(trec: dict) -> None:
    """One weight vector for two classes, as scikit-learn: DESC questions against the rest."""
    X, y, g, k = trec["train"]
    yb = (y == np.bincount(y).argmax()).astype(np.int64)
    spec = get_probe("lr")
    spec.params.update(max_iter=2000, tol=1e-7)
    from polyprobe.evaluation.probes import fit_lr_masks

    fold_ids = group_kfold(g, k, 3, 0)
    masks = np.stack([fold_ids != f for f in range(3)])
    fits = fit_lr_masks(spec, X, yb, masks, 2)
    ours = np.zeros(len(LR_GRID))
    for f in range(3):
        va = fold_ids == f
        ours += [(m.predict(X[va]) == yb[va]).mean() / 3 for m in fits[f]]
    assert np.abs(ours - _sklearn_grid(X, yb, fold_ids, LR_GRID)).max() < 1e-3


def test_unconverged_fits_and_grid_edge_are_reported(trec: dict) -> None:
    X, y, g, k = trec["train"]
    Xte, yte = trec["test"][:2]
    spec = get_probe("lr")
    spec.params["max_iter"] = 3  # far too few: every fit stops unconverged
    spec.grid = {"C": [1e-4, 1e-3, 1e-2]}  # heavily over-regularised: more C is better
    data = SplitArrays(
        {"train": X, "test": Xte},
        {"train": y, "test": yte},
        {"train": g, "test": trec["test"][2]},
        {"train": k, "test": trec["test"][3]},
    )
    (chosen,) = run_protocol(spec, data, trec["n_classes"], seed=0, folds=3).chosen
    assert chosen["converged"] is False and chosen["iterations"] == 3
    assert chosen["grid_fits_converged"] == "0/9"
    assert chosen["C"] == 1e-2 and chosen["grid_edge"] == "highest"


def _data(trec: dict) -> SplitArrays:
    X, y, g, k = trec["train"]
    Xte, yte, gte, kte = trec["test"]
    return SplitArrays({"train": X, "test": Xte}, {"train": y, "test": yte},
                       {"train": g, "test": gte}, {"train": k, "test": kte})  # fmt: skip


def test_grid_is_extended_past_its_edge_as_sklearn_would_choose(trec: dict) -> None:
    """A grid far too regularising (C ≤ 1e-2): ``extend_grid`` adds 1e-1, 1, … until the best
    C is inside; every added point's score equals scikit-learn's at that C."""
    X, y, g, k = trec["train"]
    spec = get_probe("lr")
    spec.params.update(max_iter=2000, tol=1e-7, extend_grid=4)
    spec.grid = {"C": [1e-4, 1e-3, 1e-2]}
    (chosen,) = run_protocol(spec, _data(trec), trec["n_classes"], seed=0, folds=3).chosen
    searched = chosen["grid_searched"]
    assert searched[:3] == [1e-4, 1e-3, 1e-2] and len(searched) > 3
    assert np.allclose(searched[3:], [10.0 ** (j - 1) for j in range(len(searched) - 3)])
    assert "grid_edge" not in chosen  # the best C now lies inside the searched grid
    sk = _sklearn_grid(X, y, group_kfold(g, k, 3, 0), searched)
    assert np.abs(np.array(chosen["grid_scores"]) - sk).max() < 1e-3
    assert chosen["C"] == searched[int(np.argmax(sk))]
    # Task and control solved together extend each on its own: the task's record is the same.
    rng = np.random.default_rng(0)
    control = {s: rng.integers(0, trec["n_classes"], len(v)) for s, v in _data(trec).y.items()}
    both = run_protocols(spec, _data(trec), [_data(trec).y, control], trec["n_classes"], 0, 3)
    (together,) = both[0].chosen
    for field in ("C", "grid_scores", "grid_searched", "selected_by"):
        assert together[field] == chosen[field], field


def test_grid_extension_on_a_validation_split_and_off_by_default(trec: dict) -> None:
    X, y, g, k = trec["train"]
    data = _data(trec)
    data.X["validation"], data.y["validation"] = X[1000:], y[1000:]
    data.X["train"], data.y["train"] = X[:1000], y[:1000]
    spec = get_probe("lr")
    spec.grid = {"C": [1e-4, 1e-3, 1e-2]}
    (plain,) = run_protocol(spec, data, trec["n_classes"], seed=0).chosen
    assert plain["C"] == 1e-2 and plain["grid_edge"] == "highest"
    assert "grid_searched" not in plain
    spec.params["extend_grid"] = 5
    (ext,) = run_protocol(spec, data, trec["n_classes"], seed=0).chosen
    assert ext["grid_searched"][:4] == [1e-4, 1e-3, 1e-2, 0.1]
    assert "grid_edge" not in ext and ext["C"] in ext["grid_searched"][1:-1]
    spec.grid = {"C": [1e-5, 1e-4, 1e-3]}
    spec.params["extend_grid"] = 1  # one step only: still at the (new) edge, and it says so
    (one,) = run_protocol(spec, data, trec["n_classes"], seed=0).chosen
    assert np.allclose(one["grid_searched"], [1e-5, 1e-4, 1e-3, 1e-2])
    assert one["C"] == one["grid_searched"][-1] and one["grid_edge"] == "highest"
    (warning,) = [w for w in probe_warnings(spec, [one]) if "highest" in w]
    assert "(extended by --extend-grid 1)" in warning
