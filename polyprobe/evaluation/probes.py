"""Probing classifiers and their presets.

``lr``: multinomial logistic regression with scikit-learn's objective
``C·Σ logloss + ½‖W‖²`` (intercept unpenalised; binary tasks use one weight vector, as
scikit-learn does; defaults max_iter=100, tol=1e-4 are scikit-learn's, which SentEval used), C
chosen on validation from SentEval's grid 2^-2 … 2^3. It is solved with full-batch L-BFGS and
warm starts along the grid (weakest C last), which is what makes the grid affordable on
100k × 768 on a CPU; ``tests/test_eval_probes.py`` checks coefficients and accuracy against
scikit-learn. (A torch L-BFGS was tried first: on CPU its per-step overhead made it ~8× slower
than NumPy/SciPy on probing-sized data.)

``mlp`` family: one hidden layer, Adam, early stopping on validation accuracy with the best
epoch's weights restored (SentEval's MLP: Linear → Dropout → activation → Linear).

Features are standardised with the fitting set's mean and std (recorded as ``standardize``):
encoders differ in scale by orders of magnitude, and one C grid only means the same thing
across encoders on standardised features; it also keeps L-BFGS well conditioned.

Everything is seeded (``torch.manual_seed`` and a private generator for minibatch order) and
runs deterministically on CPU.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.errors import UsageError

LR_GRID = [2.0**k for k in range(-2, 4)]
MLP_GRID = {"hidden": [50, 100, 200], "dropout": [0.0, 0.1, 0.2]}


@dataclass
class ProbeSpec:
    """A named preset: fixed parameters plus the grid searched on validation."""

    name: str
    kind: str  # "lr" | "mlp"
    params: dict[str, Any]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    protocol: str | None = None  # forced protocol, e.g. "cv" for wehner
    folds: int = 5

    def grid_points(self) -> list[dict[str, Any]]:
        points: list[dict[str, Any]] = [{}]
        for key, values in self.grid.items():
            points = [{**p, key: v} for p in points for v in values]
        return points

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params), "grid": copy.deepcopy(self.grid)}


_MLP_BASE = {
    "activation": "sigmoid",
    "optimizer": "adam",
    "lr": 1e-3,
    "weight_decay": 0.0,
    "batch_size": 64,
    "max_epochs": 100,
    "eval_every": 1,
    "patience": 5,
    "early_stopping": True,
    "standardize": True,
}

PRESETS: dict[str, ProbeSpec] = {
    "lr": ProbeSpec(
        "lr",
        "lr",
        {"solver": "lbfgs-warm-start", "max_iter": 100, "tol": 1e-4, "standardize": True},
        {"C": LR_GRID},
    ),
    "mlp": ProbeSpec("mlp", "mlp", dict(_MLP_BASE), copy.deepcopy(MLP_GRID)),
    # SentEval's classifier defaults: evaluate every 4 epochs, up to 200, tenacity 5.
    "senteval-mlp": ProbeSpec(
        "senteval-mlp",
        "mlp",
        {**_MLP_BASE, "max_epochs": 200, "eval_every": 4},
        copy.deepcopy(MLP_GRID),
    ),
    # Şahin et al. 2020 (LINSPECTOR): 300 ReLU units, dropout 0.5, batch 16, 20 epochs.
    "linspector": ProbeSpec(
        "linspector",
        "mlp",
        {
            **_MLP_BASE,
            "activation": "relu",
            "hidden": 300,
            "dropout": 0.5,
            "batch_size": 16,
            "max_epochs": 20,
        },
    ),
    # Wehner 2019: 50 sigmoid units, no dropout, 100 epochs, no early stopping, 5-fold CV.
    "wehner": ProbeSpec(
        "wehner",
        "mlp",
        {
            **_MLP_BASE,
            "hidden": 50,
            "dropout": 0.0,
            "max_epochs": 100,
            "early_stopping": False,
        },
        protocol="cv",
        folds=5,
    ),
}


def get_probe(name: str | ProbeSpec) -> ProbeSpec:
    if isinstance(name, ProbeSpec):
        return name
    try:
        return copy.deepcopy(PRESETS[name])
    except KeyError:
        raise UsageError(f"unknown probe {name!r} (known: {', '.join(PRESETS)})") from None


class Standardizer:
    """Mean/std from the fitting set; constant columns keep std 1 (never divide by zero)."""

    def __init__(self, X: np.ndarray):
        self.mean = X.mean(axis=0, dtype=np.float64).astype(np.float32)
        std = X.std(axis=0, dtype=np.float64)
        std[std < 1e-8] = 1.0
        self.std = std.astype(np.float32)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return ((X - self.mean) / self.std).astype(np.float32, copy=False)


@dataclass
class Fitted:
    """A trained probe: predict on raw (unstandardised) features."""

    params: dict[str, Any]
    predictor: Any
    scaler: Standardizer | None
    info: dict[str, Any] = field(default_factory=dict)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.predictor(self.scaler(X) if self.scaler else X)


def _torch():
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    return torch


# --------------------------------------------------------------------------- logistic regression


def lbfgs_logreg_path(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    Cs: list[float],
    max_iter: int = 100,
    tol: float = 1e-4,
) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """scikit-learn's L2 logistic regression for each C, warm-started in increasing C.

    Same objective and optimiser as scikit-learn's ``lbfgs`` solver (mean log-loss +
    ‖W‖² / (2·C·n), intercept unpenalised, SciPy L-BFGS-B with ``gtol=tol``), but each C starts
    from the previous solution, so the later grid points take a handful of iterations. The data
    stay in their dtype (float32 features are multiplied in float32, as BLAS likes best); the
    parameters and the objective are float64. Returns ``(coef (k, d), intercept (k,),
    iterations)`` per C in the given order, with k = 1 for binary problems (scikit-learn's shape).
    """
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit, logsumexp

    n, d = X.shape
    dt = np.float64 if X.dtype == np.float64 else np.float32
    X = np.ascontiguousarray(X, dtype=dt)
    binary = n_classes == 2
    k = 1 if binary else n_classes
    if binary:
        yb = y.astype(dt)
        p = float(np.clip(y.mean(), 1e-6, 1 - 1e-6))
        b0 = np.array([np.log(p / (1 - p))])
    else:
        Y = np.zeros((n, k), dt)
        Y[np.arange(n), y] = 1
        counts = np.bincount(y, minlength=n_classes).astype(np.float64) + 1e-6
        b0 = np.log(counts / counts.sum())
    w = np.concatenate([np.zeros(d * k), b0])

    def objective(w: np.ndarray, lam: float) -> tuple[float, np.ndarray]:
        W = w[: d * k].reshape(d, k)
        b = w[d * k :]
        Z = X @ W.astype(dt) + b.astype(dt)
        if binary:
            z = Z[:, 0].astype(np.float64)
            loss = float(-(yb * log_expit(z) + (1 - yb) * log_expit(-z)).mean())
            G = ((expit(z) - yb) / n)[:, None].astype(dt)
        else:
            Z = Z.astype(np.float64)
            lse = logsumexp(Z, axis=1)
            loss = float((lse - (Z * Y).sum(axis=1)).mean())
            G = ((np.exp(Z - lse[:, None]) - Y) / n).astype(dt)
        loss += 0.5 * lam * float((W * W).sum())
        gW = (X.T @ G).astype(np.float64) + lam * W
        return loss, np.concatenate([gW.ravel(), G.sum(axis=0, dtype=np.float64)])

    order = sorted(range(len(Cs)), key=lambda i: Cs[i])
    results: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}
    for i in order:
        res = minimize(
            objective,
            w,
            args=(1.0 / (Cs[i] * n),),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": tol, "ftol": 64 * np.finfo(float).eps},
        )
        w = res.x
        coef = w[: d * k].reshape(d, k).T.copy()
        intercept = w[d * k :].copy()
        if not binary:  # softmax intercepts are defined up to a constant: centre them
            intercept = intercept - intercept.mean()
        results[i] = (coef, intercept, int(res.nit))
    return [results[i] for i in range(len(Cs))]


def _linear_predictor(coef: np.ndarray, intercept: np.ndarray):
    coef32 = coef.astype(np.float32)
    b32 = intercept.astype(np.float32)

    def predict(X: np.ndarray) -> np.ndarray:
        scores = X @ coef32.T + b32
        if scores.shape[1] == 1:
            return (scores[:, 0] > 0).astype(np.int64)
        return scores.argmax(axis=1).astype(np.int64)

    return predict


# --------------------------------------------------------------------------- MLP


def train_mlp(
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray | None,
    y_val: np.ndarray | None,
    n_classes: int,
    hidden: int,
    dropout: float,
    params: dict[str, Any],
    seed: int,
):
    """One hidden layer, Adam, early stopping on validation accuracy (best weights restored)."""
    torch = _torch()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    act = {"sigmoid": torch.nn.Sigmoid, "relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[
        params["activation"]
    ]
    model = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], hidden),
        torch.nn.Dropout(p=dropout),
        act(),
        torch.nn.Linear(hidden, n_classes),
    )
    opt = torch.optim.Adam(model.parameters(), lr=params["lr"], weight_decay=params["weight_decay"])
    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32))
    yt = torch.from_numpy(y.astype(np.int64))
    use_val = bool(params["early_stopping"]) and X_val is not None and len(X_val) > 0
    Xv = torch.from_numpy(np.ascontiguousarray(X_val, dtype=np.float32)) if use_val else None
    bs = int(params["batch_size"])
    best_acc, best_state, best_epoch, bad = -1.0, None, 0, 0
    epochs = 0
    for epoch in range(1, int(params["max_epochs"]) + 1):
        model.train()
        perm = torch.randperm(len(Xt), generator=gen)
        for s in range(0, len(Xt), bs):
            idx = perm[s : s + bs]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
        epochs = epoch
        if use_val and epoch % int(params["eval_every"]) == 0:
            model.eval()
            with torch.no_grad():
                acc = float((model(Xv).argmax(1).numpy() == y_val).mean())
            if acc > best_acc:
                best_acc, best_epoch, bad = acc, epoch, 0
                best_state = copy.deepcopy(model.state_dict())
            else:
                bad += 1
                if bad >= int(params["patience"]):
                    break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()

    def predict(Xn: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = []
            for s in range(0, len(Xn), 8192):
                chunk = torch.from_numpy(np.ascontiguousarray(Xn[s : s + 8192], dtype=np.float32))
                out.append(model(chunk).argmax(1).numpy())
            return np.concatenate(out) if out else np.zeros(0, np.int64)

    info = {"epochs": epochs, "best_epoch": best_epoch if use_val else epochs}
    return predict, info


# --------------------------------------------------------------------------- common entry points


def fit_grid(
    spec: ProbeSpec,
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray | None,
    y_val: np.ndarray | None,
    n_classes: int,
    seed: int,
    points: list[dict[str, Any]] | None = None,
) -> list[Fitted]:
    """Fit one model per grid point (in grid order). Validation feeds early stopping only;
    selection is the caller's (it may average over folds)."""
    points = spec.grid_points() if points is None else points
    scaler = Standardizer(X) if spec.params.get("standardize", True) else None
    Xs = scaler(X) if scaler else X.astype(np.float32, copy=False)
    Xv = scaler(X_val) if (scaler and X_val is not None) else X_val
    fitted: list[Fitted] = []
    if spec.kind == "lr":
        Cs = [float(p.get("C", spec.params.get("C", 1.0))) for p in points]
        path = lbfgs_logreg_path(
            Xs, y, n_classes, Cs, spec.params.get("max_iter", 1000), spec.params.get("tol", 1e-6)
        )
        for p, (coef, intercept, iters) in zip(points, path, strict=True):
            fitted.append(
                Fitted(p, _linear_predictor(coef, intercept), scaler, {"iterations": iters})
            )
        return fitted
    if spec.kind == "mlp":
        for p in points:
            merged = {**spec.params, **p}
            predict, info = train_mlp(
                Xs,
                y,
                Xv,
                y_val,
                n_classes,
                int(merged["hidden"]),
                float(merged["dropout"]),
                merged,
                seed,
            )
            fitted.append(Fitted(p, predict, scaler, info))
        return fitted
    raise UsageError(f"unknown probe kind {spec.kind!r}")
