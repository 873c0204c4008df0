"""Evaluation heads for downstream sets: pair representations, unsupervised cosine STS, and
a SICK-R-style regression head. Pure numpy/torch on frozen features, so they are checked
against hand-computed values (tests/test_eval_heads.py).

* **Pair features**: SentEval's ``[u, v, |u−v|, u∗v]`` (``senteval``, the default), the
  Spanish SentEval's ``[|u−v|, u∗v]`` (``spanish``: symmetric in u and v), and ArgMin's
  sentence with its topic vector ``[u, t]`` (``topic``: the topic is the pair's second input,
  Wehner 2019). A config's card may name one (``pair_features`` in its polyprobe block).
* **Cosine STS**: the cosine of the two sentence vectors against the gold scores, Pearson and
  Spearman (SentEval's STS12–16 protocol: no training).
* **Regression (SICK-R)**: SentEval's recipe (Tai et al. 2015): the gold score in [1, K] as a
  distribution over the K integer grades, a softmax classifier on the pair features trained
  with KL divergence, the prediction its expected grade; L2 strength chosen on validation by
  Pearson. Reported: Pearson, Spearman, MSE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from polyprobe.errors import UsageError
from polyprobe.metadata import PAIR_FEATURES


def pair_representation(u: np.ndarray, v: np.ndarray, kind: str = "senteval") -> np.ndarray:
    """The features of pairs ``(u[i], v[i])`` for a classifier."""
    if kind in ("", "senteval"):
        parts = [u, v, np.abs(u - v), u * v]
    elif kind == "spanish":
        parts = [np.abs(u - v), u * v]
    elif kind == "topic":
        parts = [u, v]
    else:
        raise UsageError(f"unknown pair features {kind!r} (use {', '.join(PAIR_FEATURES)})")
    return np.concatenate(parts, axis=1).astype(np.float32)


def cosine(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity (0 where a vector is zero)."""
    num = (u * v).sum(axis=1)
    den = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return np.divide(num, den, out=np.zeros_like(num, dtype=np.float64), where=den > 0)


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given their mean rank (as Spearman's rho needs)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=np.float64)
    sorted_x = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return pearson(rankdata(a), rankdata(b))


def correlation_block(pred: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    return {
        "pearson": round(pearson(pred, gold), 6),
        "spearman": round(spearman(pred, gold), 6),
        "mse": round(float(np.mean((np.asarray(pred) - np.asarray(gold)) ** 2)), 6),
        "n": int(len(gold)),
    }


def cosine_sts(u: np.ndarray, v: np.ndarray, gold: np.ndarray) -> dict[str, Any]:
    """Unsupervised STS: cosine of the pair's vectors against the gold scores."""
    sims = cosine(u, v)
    block = correlation_block(sims, gold)
    block.pop("mse")  # cosines and scores are on different scales
    return block


def score_distribution(scores: np.ndarray, low: int, high: int) -> np.ndarray:
    """Tai et al. (2015): a score y in [low, high] as weights on the integer grades: the two
    grades around y share the mass (y = 3.4 → 0.6 on 3, 0.4 on 4)."""
    scores = np.clip(np.asarray(scores, np.float64), low, high)
    k = high - low + 1
    out = np.zeros((len(scores), k))
    floor = np.floor(scores).astype(int)
    frac = scores - floor
    for i, (f, r) in enumerate(zip(floor, frac, strict=True)):
        if f >= high:
            out[i, k - 1] = 1.0
        else:
            out[i, f - low] = 1.0 - r
            out[i, f - low + 1] = r
    return out


@dataclass
class RegressionModel:
    weight: Any
    bias: Any
    low: int
    high: int
    l2: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits = torch.as_tensor(x, dtype=torch.float32) @ self.weight + self.bias
            probs = torch.softmax(logits, dim=1).numpy()
        return probs @ np.arange(self.low, self.high + 1, dtype=np.float64)


def fit_regression(
    x: np.ndarray,
    y: np.ndarray,
    *,
    low: int,
    high: int,
    l2: float = 0.0,
    seed: int = 0,
    max_iter: int = 200,
) -> RegressionModel:
    """SentEval's SICK-R head: softmax over the grades, KL to the Tai distribution,
    full-batch L-BFGS (deterministic for a seed)."""
    import torch

    torch.manual_seed(seed)
    xs = torch.as_tensor(np.asarray(x, np.float32))
    target = torch.as_tensor(score_distribution(y, low, high), dtype=torch.float32)
    k = high - low + 1
    weight = torch.zeros(xs.shape[1], k, requires_grad=True)
    bias = torch.zeros(k, requires_grad=True)
    opt = torch.optim.LBFGS([weight, bias], max_iter=max_iter, line_search_fn="strong_wolfe")

    def closure() -> Any:
        opt.zero_grad()
        logp = torch.log_softmax(xs @ weight + bias, dim=1)
        loss = torch.nn.functional.kl_div(logp, target, reduction="batchmean")
        loss = loss + l2 * (weight**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return RegressionModel(weight.detach(), bias.detach(), low, high, l2)


def regression_head(
    train: tuple[np.ndarray, np.ndarray],
    validation: tuple[np.ndarray, np.ndarray] | None,
    test: tuple[np.ndarray, np.ndarray],
    *,
    low: int = 1,
    high: int = 5,
    grid: tuple[float, ...] = (0.0, 1e-4, 1e-3, 1e-2),
    seed: int = 0,
) -> dict[str, Any]:
    """Fit on train, choose the L2 strength on validation (Pearson; train when there is no
    validation split), report test Pearson, Spearman and MSE."""
    best: tuple[float, RegressionModel] | None = None
    check = validation or train
    for l2 in grid:
        model = fit_regression(*train, low=low, high=high, l2=l2, seed=seed)
        r = pearson(model.predict(check[0]), check[1])
        if best is None or (not np.isnan(r) and r > best[0]):
            best = (r, model)
    assert best is not None
    model = best[1]
    return {
        **correlation_block(model.predict(test[0]), test[1]),
        "l2": model.l2,
        "selected_on": "validation" if validation else "train",
    }
