"""The presets named after a tool or a paper do what their source does (issue 35, item 1).

``senteval``: SentEval's scikit-learn LogReg protocol (``senteval/tools/validation.py``):
raw features, ``LogisticRegression(C, random_state=1111)``, C in 2^-2 … 2^3 chosen on
validation by ``round(100·acc, 2)``, KFoldClassifier's 2^-1 … 2^5 and stratified shuffled
folds without a validation split. ``senteval-mlp``: SentEval's PyTorch MLP as its probing
README ran it. ``linspector``, ``wehner``, ``discoeval``: the settings their docstrings state.
"""

from __future__ import annotations

import numpy as np
import pytest

from polyprobe.evaluation import probes
from polyprobe.evaluation.discourse import discoeval_preset, probe_for_config
from polyprobe.evaluation.probes import PRESETS, fit_grid, get_probe
from polyprobe.evaluation.protocols import (
    SplitArrays,
    run_protocol,
    selection_score,
    train_folds,
)
from polyprobe.evaluation.senteval_mlp import train_senteval_mlp


def _blobs(n: int, d: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, k))
    X = (rng.normal(size=(n, d)) * 4 + 2).astype(np.float32)  # far from standardised
    y = (X @ W + rng.normal(size=(n, k)) * 6).argmax(1)
    return X, y


def _data(with_validation: bool = True) -> SplitArrays:
    X, y = _blobs(900, 16, 3, 0)
    parts = {"train": slice(0, 500), "validation": slice(500, 700), "test": slice(700, 900)}
    if not with_validation:
        parts.pop("validation")
    return SplitArrays(
        {s: X[p] for s, p in parts.items()},
        {s: y[p] for s, p in parts.items()},
        {s: np.array([f"{s}{i}" for i in range(p.stop - p.start)]) for s, p in parts.items()},
        {s: np.array([""] * (p.stop - p.start)) for s, p in parts.items()},
    )


def test_senteval_preset_pins_sentevals_settings() -> None:
    spec = get_probe("senteval")
    assert spec.kind == "lr" and spec.params["solver"] == "sklearn-lbfgs"
    assert spec.params["standardize"] is False  # SentEval's LogReg sees raw features
    assert spec.grid == {"C": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]}
    assert spec.params["kfold_C"] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert spec.params["max_iter"] == 100 and spec.params["tol"] == 1e-4
    assert spec.params["seed_offset"] == 1111 and spec.params["score_decimals"] == 2
    assert spec.params["folds"] == "stratified-shuffled"
    # lr stays what it was: standardised, its own solver
    lr = get_probe("lr")
    assert lr.params["standardize"] is True and lr.params["solver"].startswith("lbfgs-")


def test_senteval_preset_is_sklearn_split_classifier() -> None:
    """The preset's choice and predictions are exactly SentEval's loop over scikit-learn."""
    from sklearn.linear_model import LogisticRegression

    data = _data()
    out = run_protocol(get_probe("senteval"), data, 3, seed=0)
    regs = [2.0**t for t in range(-2, 4)]
    scores = [
        round(100 * LogisticRegression(C=c, random_state=1111).fit(data.X["train"],
              data.y["train"]).score(data.X["validation"], data.y["validation"]), 2)
        for c in regs
    ]  # fmt: skip
    best = regs[int(np.argmax(scores))]
    clf = LogisticRegression(C=best, random_state=1111).fit(data.X["train"], data.y["train"])
    assert out.chosen[0]["C"] == best
    assert [round(100 * s, 2) for s in out.chosen[0]["grid_scores"]] == scores
    assert np.array_equal(out.y_pred, clf.predict(data.X["test"]))
    # on features this far from standardised, lr (standardised) is another classifier
    lr = run_protocol(get_probe("lr"), data, 3, seed=0)
    assert lr.chosen[0]["grid_scores"] != out.chosen[0]["grid_scores"]


def test_selection_rounds_as_senteval_does() -> None:
    spec = get_probe("senteval")
    # 12.3449 % and 12.3451 % are 12.34 and 12.35 for SentEval; 12.345 01 % and 12.349 %
    # are both 12.35: a tie, which the first grid point wins
    assert selection_score(spec, 0.1234501) == selection_score(spec, 0.12349) == 0.1235
    assert selection_score(get_probe("lr"), 0.1234501) == 0.1234501


def test_senteval_without_validation_is_kfold_classifier() -> None:
    from sklearn.model_selection import StratifiedKFold

    data = _data(with_validation=False)
    spec = get_probe("senteval")
    out = run_protocol(spec, data, 3, seed=0)
    (chosen,) = out.chosen
    assert chosen["selected_by"] == "5-fold-cv-on-train" and len(chosen["grid_scores"]) == 7
    y = data.y["train"]
    folds = train_folds(spec, y, data.groups["train"], data.keys["train"], 5, seed=0)
    skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=1111)
    for f, (_, test_idx) in enumerate(skf.split(np.zeros(len(y)), y)):
        assert set(np.nonzero(folds == f)[0]) == set(test_idx)


def test_senteval_mlp_pins_sentevals_mlp() -> None:
    spec = PRESETS["senteval-mlp"]
    assert spec.kind == "mlp" and spec.params["trainer"] == "senteval"
    assert spec.grid == {
        "hidden": [50, 100, 200],
        "dropout": [0.0, 0.1, 0.2],
        "l2reg": [1e-5, 1e-4, 1e-3, 1e-2],
    }
    p = spec.params
    assert (p["optimizer"], p["lr"], p["batch_size"]) == ("adam", 1e-3, 64)
    assert (p["epoch_size"], p["max_epoch"], p["tenacity"]) == (4, 200, 5)
    assert p["activation"] == "sigmoid" and p["standardize"] is False
    assert p["seed_offset"] == 1111


def test_senteval_tenacity_never_resets() -> None:
    """Training stops at the (tenacity + 1)-th check without a new best, however many
    improvements came between: checks = improvements + tenacity + 1 whenever it stops."""
    X, y = _blobs(400, 8, 3, 1)
    Xv, yv = _blobs(150, 8, 3, 2)  # another draw: validation accuracy plateaus and wobbles
    params = {**PRESETS["senteval-mlp"].params, "epoch_size": 1, "max_epoch": 400}
    stopped = 0
    for tenacity in (0, 2, 5):
        _, info = train_senteval_mlp(
            X, y, Xv, yv, 3, 20, 0.0, 0.0, {**params, "tenacity": tenacity}, seed=1111
        )
        if info["stopped_early"]:
            stopped += 1
            assert info["checks"] == info["improvements"] + tenacity + 1
            assert info["epochs"] == info["checks"]  # one pass per check here
    assert stopped == 3


def test_senteval_mlp_is_seeded_and_deterministic() -> None:
    X, y = _blobs(300, 8, 3, 3)
    spec = get_probe("senteval-mlp")
    spec.grid = {"hidden": [50], "dropout": [0.1], "l2reg": [1e-4]}
    spec.params["max_epoch"] = 8
    a = fit_grid(spec, X, y, X, y, 3, seed=0)[0]
    b = fit_grid(spec, X, y, X, y, 3, seed=0)[0]
    c = fit_grid(spec, X, y, X, y, 3, seed=7)[0]
    assert np.array_equal(a.predict(X), b.predict(X))
    assert a.scaler is None  # raw features
    assert a.info["epochs"] in (4, 8, 12)  # rounds of epoch_size passes
    assert c.info == c.info and c.predict(X).shape == (300,)


@pytest.mark.parametrize(
    ("name", "stated"),
    [
        ("linspector", "300 ReLU units, dropout 0.5, Adam, batch 16, at most 20 epochs"),
        ("wehner", "50 sigmoid units, no dropout, 100 epochs without"),
        ("discoeval", "2,000 sigmoid units, tenacity 8, epoch_size 15, no L2"),
    ],
)
def test_paper_presets_state_and_pin_their_settings(name: str, stated: str) -> None:
    assert stated in " ".join((probes.__doc__ or "").split())
    if name == "linspector":
        p = PRESETS[name].params
        assert (p["activation"], p["hidden"], p["dropout"]) == ("relu", 300, 0.5)
        assert (p["batch_size"], p["max_epochs"], p["patience"]) == (16, 20, 5)
        assert p["early_stopping"] is True and PRESETS[name].grid == {}
    elif name == "wehner":
        spec = PRESETS[name]
        p = spec.params
        assert (p["activation"], p["hidden"], p["dropout"]) == ("sigmoid", 50, 0.0)
        assert p["max_epochs"] == 100 and p["early_stopping"] is False
        assert spec.protocol == "cv" and spec.folds == 5
    else:
        base = discoeval_preset()
        assert base.kind == "mlp" and base.params["hidden"] == 0
        assert base.params["trainer"] == PRESETS["senteval-mlp"].params["trainer"]
        dc = probe_for_config(base, "discourse_coherence")
        assert dc.kind == "mlp" and dc.params["hidden"] == 2000
        assert probe_for_config(base, "sentence_position") is base


def test_every_preset_is_offered_by_evaluate() -> None:
    """A preset the API knows but ``evaluate --probe`` refuses is a preset nobody can use
    from the command line (``senteval`` was one)."""
    from polyprobe.evaluation.cli import PROBES

    assert set(PRESETS) <= set(PROBES)
    assert "senteval" in PROBES
