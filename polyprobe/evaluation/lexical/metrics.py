"""The metrics of lexical evaluation, as pure numpy functions of vectors and indices (no
dataset, no encoder), so each can be checked against hand-computed values:

* analogies: 3CosAdd (Mikolov et al. 2013) and 3CosMul (Levy & Goldberg 2014) over a fixed
  candidate vocabulary, the three question words excluded from the answers;
* graded similarity: Spearman's rho (and Pearson's r) of cosine similarity with the gold scores;
* cross-lingual mapping: orthogonal Procrustes (Schönemann 1966; Xing et al. 2015) and
  precision@k by nearest neighbour and by CSLS (Conneau et al. 2018);
* COSTRA: mean cosine per transformation type, Pearson across type means, and ordering
  accuracy (is cos(s1, s2) > cos(s3, s4)?);
* similarity in context (SemEval-2020 Task 3): the uncentred Pearson correlation of the
  predicted and gold *changes* between a pair's two contexts (subtask 1; uncentred because a
  change's sign is what is scored: a system predicting the right direction gains even when
  its mean change differs); for subtask 2 Spearman and Pearson and their harmonic mean (how
  SemEval-2017 Task 2 combined the two; whether GWSC's official script reports it was not
  verified here);
* the 2-D principal-component projection of COSTRA's difference vectors (report plot).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COSMUL_EPS = 1e-3  # Levy & Goldberg's epsilon


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero)."""
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def analogy_predictions(
    unit: np.ndarray,
    questions: np.ndarray,
    method: str = "add",
    batch: int = 512,
    allowed: np.ndarray | None = None,
) -> np.ndarray:
    """For each question (rows of indices a, b, c into ``unit``, the unit-length candidate
    vectors), the index of the predicted d: 3CosAdd ``argmax cos(x, b) - cos(x, a) + cos(x,
    c)`` or 3CosMul ``argmax cos'(x, b) cos'(x, c) / (cos'(x, a) + eps)`` with cosines shifted
    to [0, 1] (``(cos + 1) / 2``); a, b and c themselves are never answers, nor (when
    ``allowed``, a boolean mask over the rows, is given) any row it excludes: a cross-lingual
    question's answer is searched among the second language's words only."""
    if method not in ("add", "mul"):
        raise ValueError(f"method must be 'add' or 'mul', not {method!r}")
    q = np.asarray(questions, dtype=np.int64)
    out = np.empty(len(q), dtype=np.int64)
    for start in range(0, len(q), batch):
        part = q[start : start + batch]
        sims = [unit @ unit[part[:, k]].T for k in range(3)]  # (V, n) each: a, b, c
        if method == "add":
            score = sims[1] - sims[0] + sims[2]
        else:
            a, b, c = ((s + 1.0) / 2.0 for s in sims)
            score = b * c / (a + COSMUL_EPS)
        cols = np.arange(len(part))
        for k in range(3):
            score[part[:, k], cols] = -np.inf
        if allowed is not None:
            score[~allowed, :] = -np.inf
        out[start : start + len(part)] = np.argmax(score, axis=0)
    return out


def cosines(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two equally shaped matrices (0 for a zero row)."""
    return np.sum(normalise(x) * normalise(y), axis=1)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    from scipy.stats import spearmanr

    if len(x) < 2:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    from scipy.stats import pearsonr

    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(pearsonr(x, y).statistic)


def procrustes(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The orthogonal W minimising ||source @ W - target|| (W = U V^T from the SVD of
    source^T target)."""
    u, _, vt = np.linalg.svd(np.asarray(source, np.float64).T @ np.asarray(target, np.float64))
    return u @ vt


def csls_scores(mapped: np.ndarray, target: np.ndarray, k: int = 10) -> np.ndarray:
    """CSLS(x, y) = 2 cos(x, y) - r_T(x) - r_S(y) for every mapped source x (rows) and target
    y (columns), r the mean cosine to the k nearest neighbours in the other space (Conneau et
    al. 2018). The neighbourhoods are taken over the given matrices."""
    s = normalise(mapped) @ normalise(target).T
    kk_t = min(k, s.shape[1])
    kk_s = min(k, s.shape[0])
    r_t = np.mean(-np.sort(-s, axis=1)[:, :kk_t], axis=1)  # each source's target neighbours
    r_s = np.mean(-np.sort(-s, axis=0)[:kk_s, :], axis=0)  # each target's source neighbours
    return 2 * s - r_t[:, None] - r_s[None, :]


def precision_at_k(
    scores: np.ndarray, gold: Sequence[set[int]], ks: Sequence[int] = (1, 5, 10)
) -> dict[int, float]:
    """Share of queries (rows) with a gold translation among the k best-scored columns."""
    order = np.argsort(-scores, axis=1, kind="stable")
    out = {}
    for k in ks:
        top = order[:, :k]
        hits = [bool(gold[i] & set(top[i].tolist())) for i in range(len(gold))]
        out[k] = float(np.mean(hits)) if hits else float("nan")
    return out


def ordering_accuracy(s1: np.ndarray, s2: np.ndarray, s3: np.ndarray, s4: np.ndarray) -> np.ndarray:
    """Per comparison, whether cos(s1, s2) > cos(s3, s4) (rows of the four matrices)."""
    return cosines(s1, s2) > cosines(s3, s4)


def uncentred_pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """``sum(x y) / sqrt(sum(x^2) sum(y^2))``: Pearson's r without subtracting the means (the
    cosine of the two vectors); NaN when either is all zeros or the lengths differ."""
    a, b = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if a.shape != b.shape or a.size == 0:
        return float("nan")
    denom = float(np.sqrt(np.sum(a * a) * np.sum(b * b)))
    return float(np.sum(a * b) / denom) if denom > 0 else float("nan")


def harmonic_mean(a: float, b: float) -> float:
    """2ab / (a + b) of two correlations; NaN unless both are positive (a harmonic mean of a
    negative number is meaningless)."""
    if not (a > 0 and b > 0):
        return float("nan")
    return 2 * a * b / (a + b)


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``vectors`` centred and projected on their first two principal components
    (SVD of the centred matrix, each component's sign fixed so its largest-magnitude loading
    is positive: the same plot on every run and platform), and the share of variance each
    explains. Fewer than two rows or dimensions: zeros where a component is missing."""
    v = np.asarray(vectors, np.float64)
    centred = v - v.mean(axis=0, keepdims=True)
    out = np.zeros((len(v), 2))
    ratio = np.zeros(2)
    if len(v) < 2 or v.shape[1] == 0:
        return out, ratio
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    k = min(2, len(s))
    comps = vt[:k]
    signs = np.sign(comps[np.arange(k), np.argmax(np.abs(comps), axis=1)])
    comps = comps * np.where(signs == 0, 1.0, signs)[:, None]
    out[:, :k] = centred @ comps.T
    total = float(np.sum(s**2))
    if total > 0:
        ratio[:k] = s[:k] ** 2 / total
    return out, ratio
