"""The batched ``mlp`` grid (``mlp_grid.py``) against the one-network reference
(``probes.train_mlp``) on a small real task (TREC coarse questions, random encoder): every
grid point — with and without dropout, with early stopping — gives the same predictions and
the same epochs as the network trained alone with the same seed; a seed changes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe import build_trec
from polyprobe.evaluation.data import load_config, read_card
from polyprobe.evaluation.encoders import build_encoder
from polyprobe.evaluation.logreg import torch_threads
from polyprobe.evaluation.probes import Standardizer, fit_grid, get_probe, train_mlp

N_TRAIN = 1200


@pytest.fixture(scope="module")
def trec(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = build_trec(data_dir / "trec", out=tmp_path_factory.mktemp("trec") / "trec", seed=0)
    card = read_card(str(folder.out), None)
    cfg = load_config(str(folder.out), "coarse", None, card, None)
    enc = build_encoder("random?dim=32")
    items = [r[0] for r in cfg.items("train")]
    X, y = enc.encode(items)[None], cfg.labels("train")
    Xte = enc.encode([r[0] for r in cfg.items("test")])[None]
    return {
        "train": (X[:N_TRAIN], y[:N_TRAIN]),
        "val": (X[N_TRAIN : N_TRAIN + 400], y[N_TRAIN : N_TRAIN + 400]),
        "test": Xte,
        "n_classes": len(cfg.label_names),
    }


def _spec():
    spec = get_probe("mlp")
    spec.params.update(max_epochs=12, patience=2)  # short, and early stopping does act
    return spec


def test_mlp_grid_equals_networks_trained_alone(trec: dict) -> None:
    (X, y), (Xv, yv), Xte = trec["train"], trec["val"], trec["test"]
    spec = _spec()
    points = spec.grid_points()
    assert len(points) == 9 and {p["dropout"] for p in points} == {0.0, 0.1, 0.2}
    batched = fit_grid(spec, X, y, Xv, yv, trec["n_classes"], seed=3)
    sc = Standardizer(X)
    stopped_early = 0
    with torch_threads(1):
        for p, fit in zip(points, batched, strict=True):
            alone, info = train_mlp(
                sc(X), y, sc(Xv), yv, trec["n_classes"], p["hidden"], p["dropout"],
                {**spec.params, **p}, seed=3,
            )  # fmt: skip
            assert fit.info == info, p
            np.testing.assert_array_equal(fit.predict(Xte), alone(sc(Xte)), err_msg=str(p))
            stopped_early += info["epochs"] < 12
    assert stopped_early > 0  # the compaction of stopped networks was exercised


def test_mlp_grid_seed_changes_the_networks(trec: dict) -> None:
    (X, y), (Xv, yv), Xte = trec["train"], trec["val"], trec["test"]
    spec = _spec()
    spec.grid = {"hidden": [50], "dropout": [0.1]}
    a = fit_grid(spec, X, y, Xv, yv, trec["n_classes"], seed=0)[0].predict(Xte)
    b = fit_grid(spec, X, y, Xv, yv, trec["n_classes"], seed=1)[0].predict(Xte)
    again = fit_grid(spec, X, y, Xv, yv, trec["n_classes"], seed=0)[0].predict(Xte)
    np.testing.assert_array_equal(a, again)
    assert (a != b).any()
