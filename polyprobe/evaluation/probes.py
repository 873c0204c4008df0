"""Probing classifiers and their presets.

``lr``: multinomial logistic regression with scikit-learn's objective
``C·Σ logloss + ½‖W‖²`` (intercept unpenalised; binary tasks use one weight vector, as
scikit-learn does; defaults max_iter=100, tol=1e-4 are scikit-learn's, which SentEval used), C
chosen on validation from SentEval's grid 2^-2 … 2^3. Under k-fold selection every fold is
solved in one batched, preconditioned L-BFGS (``logreg.py``: one pair of matrix products per
step for all folds), one C after the other in increasing C, each warm-started from the previous C's
solutions (measured on 20k × 768: batching the six C values from zero instead took 2.2× the
time of the warm-started path, whose later C values need a few iterations each);
``tests/test_eval_probes.py`` checks coefficients, grid scores and the chosen C against
scikit-learn. Whether each fit converged within ``max_iter`` is recorded with the fit.
``fit_lr_sets`` widens the batch further: several label sets on the same rows (a task and its
control task) ride in the same solves, and ``fit_lr_final`` refits every label set at its own
chosen C in one more (``protocols.run_protocols``).

``mlp`` family: one hidden layer, Adam, early stopping on validation accuracy with the best
epoch's weights restored (SentEval's MLP: Linear → Dropout → activation → Linear). A grid's
networks train side by side (``mlp_grid.py``: one wide product per minibatch step for all of
them); ``train_mlp`` below is the one-network reference they equal
(``tests/test_eval_mlp_grid.py``).

Features are standardised with the fitting set's mean and std (recorded as ``standardize``):
encoders differ in scale by orders of magnitude, and one C grid only means the same thing
across encoders on standardised features; it also keeps L-BFGS well conditioned. That is the
one way ``lr`` differs from SentEval on purpose — SentEval's LogReg sees the raw features, so
on the same vectors the two can choose different C and differ by several points (measured on
EWT, MiniLM: up to 9.4 points, ``bench/senteval_agreement.py``). A table labelled SentEval is
made with the ``senteval`` preset:

``senteval`` is SentEval's own protocol (``senteval/tools/validation.py`` with
``usepytorch=False``): scikit-learn's ``LogisticRegression(C=c, random_state=seed)`` at its
defaults (lbfgs, ``max_iter=100``, ``tol=1e-4``; multinomial; scikit-learn < 0.22 defaulted
to liblinear one-vs-rest, so numbers SentEval printed before 2020 were made with another
solver) on **raw** features; the split protocol's C grid 2^-2 … 2^3 chosen on validation by
``round(100·accuracy, 2)``, first best on ties (SplitClassifier); without a validation split
SentEval's KFoldClassifier: grid 2^-1 … 2^5, ``StratifiedKFold(5, shuffle=True,
random_state=seed)`` on train (its folds ignore groups and lexical keys, as SentEval's do),
the chosen C refitted on all of train. Its seed is SentEval's 1111 plus the evaluation's seed
(seed 0 → 1111). ``--extend-grid`` does not apply (SentEval's grid is fixed).

``senteval-mlp`` is SentEval's PyTorch MLP as its probing README ran it: ``nhid`` in
[50, 100, 200] and ``dropout`` in [0, 0.1, 0.2] chosen on validation, each with SentEval's
L2 grid 10^-5 … 10^-2 (Adam's ``weight_decay``), Linear → Dropout → Sigmoid → Linear, Adam
(lr 1e-3), batch 64, ``epoch_size`` 4 passes between validation checks, ``max_epoch`` 200,
``tenacity`` 5 — SentEval's counter of checks without a new best never resets, so training
stops at the sixth such check, not after five in a row — the best check's weights kept, raw
features, minibatch order from numpy's ``RandomState(seed)``
(``evaluation/senteval_mlp.py``). Two differences remain: rows are in the dataset's order,
where SentEval first sorts each split by (sentence length, label) — the same rows, another
minibatch order; and SentEval's engine switches WordContent to ``nhid=0`` (no hidden layer),
which a preset cannot see (run ``word_content`` with ``--probe senteval``).

The presets named after papers state their source's settings, and ``tests/test_presets.py``
pins them:

* ``linspector`` (Şahin et al. 2020, LINSPECTOR's probing classifier as its paper describes
  it): one hidden layer of 300 ReLU units, dropout 0.5, Adam, batch 16, at most 20 epochs,
  early stopping on the validation split (patience 5), standardised features.
* ``wehner`` (Wehner 2019's probing setup): 50 sigmoid units, no dropout, 100 epochs without
  early stopping, scored by 5-fold cross-validation over all rows.
* ``discoeval`` (Chen et al. 2019): DiscoEval's feature schemes per task
  (``evaluation/discourse.py``) and its classifier as its code runs it: SentEval's PyTorch
  MLP with ``nhid=0`` (logistic regression by Adam, batch 64, tenacity 5, epoch_size 4, raw
  features, L2 grid 10^-5 … 10^-2 on validation, seed 1111); discourse coherence 2,000
  sigmoid units, tenacity 8, epoch_size 15, no L2; sentence section prediction no L2
  (``discourse.discoeval_preset``, ``probe_for_config``).

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

# SentEval (senteval/tools/validation.py): sklearn's C grids and PyTorch's L2 grid
SENTEVAL_SEED = 1111
SENTEVAL_SPLIT_C = [2.0**k for k in range(-2, 4)]  # SplitClassifier, InnerKFoldClassifier
SENTEVAL_KFOLD_C = [2.0**k for k in range(-1, 6)]  # KFoldClassifier (train + test only)
SENTEVAL_L2 = [10.0**k for k in range(-5, -1)]
SENTEVAL_MLP_GRID = {"hidden": [50, 100, 200], "dropout": [0.0, 0.1, 0.2], "l2reg": SENTEVAL_L2}


@dataclass
class ProbeSpec:
    """A named preset: fixed parameters plus the grid searched on validation."""

    name: str
    kind: str  # "lr" | "mlp"
    params: dict[str, Any]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    protocol: str | None = None  # forced protocol, e.g. "cv" for wehner
    folds: int = 5
    device: str | None = None  # torch device of the fits (None: CPU); not a hyper-parameter

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
        {
            "solver": "lbfgs-preconditioned-warm-start",
            "max_iter": 100,
            "tol": 1e-4,
            "standardize": True,
        },
        {"C": LR_GRID},
    ),
    "mlp": ProbeSpec("mlp", "mlp", dict(_MLP_BASE), copy.deepcopy(MLP_GRID)),
    # SentEval's sklearn LogReg protocol (module doc).
    "senteval": ProbeSpec(
        "senteval",
        "lr",
        {
            "solver": "sklearn-lbfgs",
            "max_iter": 100,
            "tol": 1e-4,
            "standardize": False,
            "seed_offset": SENTEVAL_SEED,
            "score_decimals": 2,
            "kfold_C": list(SENTEVAL_KFOLD_C),
            "folds": "stratified-shuffled",
        },
        {"C": list(SENTEVAL_SPLIT_C)},
    ),
    # SentEval's PyTorch MLP as its probing README ran it (module doc).
    "senteval-mlp": ProbeSpec(
        "senteval-mlp",
        "mlp",
        {
            "trainer": "senteval",
            "activation": "sigmoid",
            "optimizer": "adam",
            "lr": 1e-3,
            "batch_size": 64,
            "epoch_size": 4,
            "max_epoch": 200,
            "tenacity": 5,
            "early_stopping": True,
            "standardize": False,
            "seed_offset": SENTEVAL_SEED,
            "score_decimals": 2,
        },
        copy.deepcopy(SENTEVAL_MLP_GRID),
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

    @classmethod
    def from_stats(cls, mean: np.ndarray, std: np.ndarray) -> Standardizer:
        """A standardiser whose statistics were computed elsewhere (``logreg.mask_scalers``)."""
        self = cls.__new__(cls)
        self.mean, self.std = mean, std
        return self

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return ((X - self.mean) / self.std).astype(np.float32, copy=False)


@dataclass
class Fitted:
    """A trained probe: predict on raw (unstandardised) features."""

    params: dict[str, Any]
    predictor: Any
    scaler: Standardizer | None
    info: dict[str, Any] = field(default_factory=dict)
    # ``lr``: (coef (k, d), intercept (k,)) in the standardised space of ``scaler``
    linear: tuple[np.ndarray, np.ndarray] | None = None

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.predictor(self.scaler(X) if self.scaler else X)


def _torch():
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    return torch


# --------------------------------------------------------------------------- logistic regression


def fit_lr_masks(
    spec: ProbeSpec,
    X: np.ndarray,
    y: np.ndarray,
    masks: np.ndarray,
    n_classes: int,
    points: list[dict[str, Any]] | None = None,
) -> list[list[Fitted]]:
    """The ``lr`` grid on several training masks of the same rows (k-fold selection), solved
    together: ``result[m][j]`` is grid point ``j`` fitted on the rows of ``masks[m]``. ``y``
    may be one label row (n,) or one per mask (M, n)."""
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    labels = np.atleast_2d(y)
    if len(labels) == 1:
        return fit_lr_sets(spec, X, labels, masks, n_classes, points)[0]
    pairs = [(m, m) for m in range(len(masks))]
    return fit_lr_sets(spec, X, labels, masks, n_classes, points, pairs=pairs)[0]


def fit_lr_sets(
    spec: ProbeSpec,
    X: np.ndarray,
    label_sets: np.ndarray,
    masks: np.ndarray,
    n_classes: int,
    points: list[dict[str, Any]] | None = None,
    pairs: list[tuple[int, int]] | None = None,
) -> list[list[list[Fitted]]]:
    """The ``lr`` grid for every label set × training mask of the same rows, in one batched
    solve per C: ``result[l][m][j]`` is grid point ``j`` fitted to labels ``label_sets[l]`` on
    the rows of ``masks[m]``. Label sets are e.g. a task and its control task, which share
    features, folds and grid (solving them together halves the L-BFGS steps a layer costs and
    doubles the width of each product). ``pairs`` restricts the problems to those
    (label set, mask) pairs; the result then has one label set whose row ``m`` is pair ``m``."""
    from polyprobe.evaluation.logreg import Problem, mask_stats, solve

    points = spec.grid_points() if points is None else points
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    labels = np.atleast_2d(np.asarray(label_sets))
    given = pairs is not None
    if pairs is None:
        pairs = [(ls, m) for ls in range(len(labels)) for m in range(len(masks))]
    shape = (1, len(pairs)) if given else (len(labels), len(masks))
    if is_sklearn(spec):
        out_sk: list[list[list[Fitted]]] = [[[] for _ in range(shape[1])] for _ in range(shape[0])]
        for j, (ls, m) in enumerate(pairs):
            row = out_sk[0][j] if given else out_sk[ls][m]
            for p in points:
                row.append(_sklearn_fit(spec, X[masks[m]], labels[ls][masks[m]], p))
        return out_sk
    Cs = [float(p.get("C", spec.params.get("C", 1.0))) for p in points]
    standardize = bool(spec.params.get("standardize", True))
    # One batched solve per C, all problems together, in increasing C, each warm-started from
    # the previous C's solutions (scikit-learn's regularisation path): the later, weaker
    # penalties start near their optimum and take a fraction of the iterations, and more of
    # them converge within max_iter. ``c_path="joint"`` instead solves every C at once from
    # zero — scikit-learn's cold start for every fit, one L-BFGS loop for the whole grid:
    # measured on TREC coarse (5,442 × 300, task + control, 72 problems) before the
    # preconditioner (logreg.py) 8.5 s CPU against the warm path's 12.7 s, same chosen C and
    # test accuracy, but 0/30 selection fits converged within 100 iterations against 24/30.
    per_c: dict[float, Any] = {}
    previous = None
    settings = {
        "max_iter": int(spec.params.get("max_iter", 100)),
        "tol": float(spec.params.get("tol", 1e-4)),
        "standardize": standardize,
        "device": spec.device,
    }
    # the masks' statistics (standardisation, preconditioner) once for the whole C path
    settings["stats"] = mask_stats(X, masks, standardize, spec.device)
    if spec.params.get("c_path", "warm") == "joint":
        grid = sorted(set(Cs))
        problems = [Problem(ls, m, C) for C in grid for ls, m in pairs]
        whole = solve(X, labels, masks, problems, n_classes, **settings)
        for i, C in enumerate(grid):
            per_c[C] = whole.select(slice(i * len(pairs), (i + 1) * len(pairs)))
        grid = []
    else:
        grid = sorted(set(Cs))
    for C in grid:
        problems = [Problem(ls, m, C) for ls, m in pairs]
        previous = per_c[C] = solve(
            X, labels, masks, problems, n_classes, **settings, init=previous
        )
    first = per_c[Cs[0]]
    scalers = [
        Standardizer.from_stats(first.mean[m], first.std[m]) if standardize else None
        for m in range(len(masks))
    ]
    out: list[list[list[Fitted]]] = [[[] for _ in range(shape[1])] for _ in range(shape[0])]
    for j, (ls, m) in enumerate(pairs):
        row = out[0][j] if given else out[ls][m]
        for p, C in zip(points, Cs, strict=True):
            sol = per_c[C]
            info = {
                "iterations": int(sol.iterations[j]),
                "converged": bool(sol.converged[j]),
                "grad_max": float(f"{sol.grad_max[j]:.3g}"),
            }
            predictor = _linear_predictor(sol.coef[j], sol.intercept[j])
            linear = (sol.coef[j], sol.intercept[j])
            row.append(Fitted(p, predictor, scalers[m], info, linear))
    return out


def fit_lr_final(
    spec: ProbeSpec,
    X: np.ndarray,
    label_sets: np.ndarray,
    n_classes: int,
    points: list[dict[str, Any]],
    start: list[list[Fitted]] | None = None,
) -> list[Fitted]:
    """The final refit on all rows after selection: label set ``l`` at grid point
    ``points[l]`` (each its own C), every one in one batched solve. ``start[l]``: the folds'
    fits of label set ``l`` at that point; the refit then starts from their mean, mapped
    into all rows' standardisation (the folds' optimum is close to all rows' one: on TREC
    coarse, task and control: 35 and 25 iterations from zero weights, scikit-learn's cold start,
    against 18 and 13 from the folds). Converged, both starts reach the same optimum."""
    from polyprobe.evaluation.logreg import Problem, mask_stats, solve

    labels = np.atleast_2d(np.asarray(label_sets))
    if is_sklearn(spec):
        return [_sklearn_fit(spec, X, labels[ls], p) for ls, p in enumerate(points)]
    whole = np.ones((1, len(X)), bool)
    standardize = bool(spec.params.get("standardize", True))
    Cs = [float(p.get("C", spec.params.get("C", 1.0))) for p in points]
    stats = mask_stats(X, whole, standardize, spec.device)
    init = None if start is None else _fold_mean_start(start, stats)
    sol = solve(
        X,
        labels,
        whole,
        [Problem(ls, 0, C) for ls, C in enumerate(Cs)],
        n_classes,
        max_iter=int(spec.params.get("max_iter", 100)),
        tol=float(spec.params.get("tol", 1e-4)),
        standardize=standardize,
        device=spec.device,
        init=init,
        stats=stats,
    )
    scaler = Standardizer.from_stats(sol.mean[0], sol.std[0]) if standardize else None
    out = []
    for j, p in enumerate(points):
        info = {
            "iterations": int(sol.iterations[j]),
            "converged": bool(sol.converged[j]),
            "grad_max": float(f"{sol.grad_max[j]:.3g}"),
        }
        out.append(Fitted(p, _linear_predictor(sol.coef[j], sol.intercept[j]), scaler, info))
    return out


def _fold_mean_start(start: list[list[Fitted]], stats: Any) -> Any:
    """Per label set, the mean of its folds' (coef, intercept) re-expressed for all rows'
    standardisation (mean μ, std σ): a fold's score x·(W/σ_f) + b − (μ_f/σ_f)·W is, in
    x̃ = (x − μ)/σ, x̃·(W·σ/σ_f) + b + ((μ − μ_f)/σ_f)·W."""
    from polyprobe.evaluation.logreg import Solutions

    mu, sd = stats.mean[0].astype(np.float64), stats.std[0].astype(np.float64)
    coefs, intercepts = [], []
    for fits in start:
        cs, bs = [], []
        for f in fits:
            assert f.linear is not None
            coef, intercept = f.linear
            mu_f = f.scaler.mean.astype(np.float64) if f.scaler else np.zeros_like(mu)
            sd_f = f.scaler.std.astype(np.float64) if f.scaler else np.ones_like(sd)
            cs.append(coef * (sd / sd_f)[None])
            bs.append(intercept + coef @ ((mu - mu_f) / sd_f))
        coefs.append(np.mean(cs, axis=0))
        intercepts.append(np.mean(bs, axis=0))
    P = len(start)
    return Solutions(
        np.stack(coefs), np.stack(intercepts), np.zeros(P, np.int64), np.zeros(P, bool),
        np.zeros(P), stats.mean, stats.std,
    )  # fmt: skip


def is_sklearn(spec: ProbeSpec) -> bool:
    """The ``senteval`` preset: scikit-learn's own LogisticRegression, as SentEval calls it."""
    return spec.kind == "lr" and spec.params.get("solver") == "sklearn-lbfgs"


def senteval_seed(spec: ProbeSpec, seed: int) -> int:
    """SentEval's seed for evaluation seed ``seed``: 1111 + seed for the SentEval presets."""
    return int(spec.params.get("seed_offset", 0)) + int(seed)


def _sklearn_fit(spec: ProbeSpec, X: np.ndarray, y: np.ndarray, point: dict[str, Any]) -> Fitted:
    """``LogisticRegression(C=c, random_state=seed)`` at scikit-learn's defaults on raw
    features, as SentEval's validation.py fits it (lbfgs ignores ``random_state``)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    C = float(point.get("C", spec.params.get("C", 1.0)))
    clf = LogisticRegression(
        C=C,
        max_iter=int(spec.params.get("max_iter", 100)),
        tol=float(spec.params.get("tol", 1e-4)),
        random_state=int(spec.params.get("seed_offset", 0)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    n_iter = int(np.max(clf.n_iter_))
    info = {"iterations": n_iter, "converged": n_iter < int(clf.max_iter)}
    return Fitted(point, clf.predict, None, info, (clf.coef_, clf.intercept_))


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
    if spec.kind == "lr":
        return fit_lr_masks(spec, X, y, np.ones((1, len(y)), bool), n_classes, points)[0]
    scaler = Standardizer(X) if spec.params.get("standardize", True) else None
    Xs = scaler(X) if scaler else X.astype(np.float32, copy=False)
    Xv = scaler(X_val) if (scaler and X_val is not None) else X_val
    fitted: list[Fitted] = []
    if spec.kind == "mlp" and spec.params.get("trainer") == "senteval":
        from polyprobe.evaluation.senteval_mlp import train_senteval_mlp

        for p in points:
            merged = {**spec.params, **p}
            predict, info = train_senteval_mlp(
                Xs, y, Xv, y_val, n_classes, int(merged.get("hidden", 0)),
                float(merged.get("dropout", 0.0)), float(merged.get("l2reg", 0.0)), merged,
                senteval_seed(spec, seed),
            )  # fmt: skip
            fitted.append(Fitted(p, predict, scaler, info))
        return fitted
    if spec.kind == "mlp":
        # Every grid point trained side by side (mlp_grid.py): the same networks as
        # train_mlp's one by one, one wide product per minibatch step.
        from polyprobe.evaluation.mlp_grid import train_mlp_grid

        if any(set(p) - {"hidden", "dropout"} for p in points):  # other settings vary: one by one
            for p in points:
                merged = {**spec.params, **p}
                predict, info = train_mlp(
                    Xs, y, Xv, y_val, n_classes, int(merged["hidden"]),
                    float(merged["dropout"]), merged, seed,
                )  # fmt: skip
                fitted.append(Fitted(p, predict, scaler, info))
            return fitted
        shapes = []
        for p in points:
            merged = {**spec.params, **p}
            shapes.append((int(merged["hidden"]), float(merged["dropout"])))
        params = dict(spec.params)
        trained = train_mlp_grid(Xs, y, Xv, y_val, n_classes, shapes, params, seed)
        for p, (predict, info) in zip(points, trained, strict=True):
            fitted.append(Fitted(p, predict, scaler, info))
        return fitted
    raise UsageError(f"unknown probe kind {spec.kind!r}")
