"""Lexical metrics against values computed by hand on tiny fixtures: 3CosAdd and 3CosMul
(which disagree on the fixture), Spearman, CSLS with k = 10, P@k, Procrustes, COSTRA's
ordering accuracy and package groups."""

from __future__ import annotations

import math

import numpy as np
import pytest

from polyprobe.evaluation.lexical import metrics
from polyprobe.evaluation.lexical.run import (
    analogy_scores,
    costra_ordering_scores,
    costra_type_scores,
    similarity_scores,
)
from polyprobe.evaluation.lexical.space import WordSpace


def unit(deg: float) -> list[float]:
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


def test_3cosadd_and_3cosmul_by_hand() -> None:
    """a = 0°, b = 45°, c = 90°; candidates at 135°, 100°, 200°.
    3CosAdd scores x·(b - a + c), b - a + c = (-0.2929, 1.7071): 135° → 1.4142, 100° → 1.7321,
    200° → -0.3086: the answer is 100°.
    3CosMul with shifted cosines (cos + 1) / 2 and eps 0.001: 100°: 0.7868 · 0.9924 / 0.4142
    = 1.885; 135°: 0.5 · 0.8536 / 0.1474 = 2.896; 200°: 0.1580 · 0.4132 / 0.0613 = 1.065:
    the answer is 135°."""
    vecs = np.array([unit(d) for d in (0, 45, 90, 135, 100, 200)])
    q = np.array([[0, 1, 2]])
    assert metrics.analogy_predictions(vecs, q, "add").tolist() == [4]
    assert metrics.analogy_predictions(vecs, q, "mul").tolist() == [3]
    # the question words are never answers, even when closest (b itself scores 2.41 in add)
    space = WordSpace(["a", "b", "c", "d135", "d100", "d200"], vecs.astype(np.float32), "t", "t")
    s = analogy_scores(
        space,
        [("a", "b", "c", "d100"), ("a", "b", "c", "d135"), ("a", "b", "c", "missing")],
        ["x", "y", "y"],
        {"x": True, "y": False},
    )
    assert s["overall"]["questions"] == 3 and s["overall"]["oov_questions"] == 1
    assert s["categories"]["x"]["3cosadd"]["accuracy"] == 1.0
    assert s["categories"]["x"]["3cosmul"]["accuracy"] == 0.0
    assert s["categories"]["y"]["3cosmul"]["accuracy"] == 0.5  # OOV counts as wrong
    assert s["categories"]["y"]["3cosmul"]["accuracy_covered"] == 1.0
    assert s["semantic"]["questions"] == 1 and s["morphological"]["questions"] == 2


def test_spearman_by_hand() -> None:
    """Gold 1, 2, 3, 4; cosines ranked 1, 2, 4, 3: d² = 2, rho = 1 - 6·2 / (4·15) = 0.8.
    One pair has an unknown word: counted, left out."""
    words = ["w", "p1", "p2", "p3", "p4"]
    vecs = np.array([unit(0), unit(80), unit(60), unit(10), unit(30)], dtype=np.float32)
    space = WordSpace(words, vecs, "t", "t")
    s = similarity_scores(
        space, ["w", "w", "w", "w", "w"], ["p1", "p2", "p3", "p4", "zzz"], [1, 2, 3, 4, 5]
    )
    assert s["pairs"] == 5 and s["oov_pairs"] == 1
    assert s["spearman"] == pytest.approx(0.8)
    assert WordSpace(["New_York"], vecs[:1], "t", "t").find("new york") == 0


def test_csls_k10_by_hand() -> None:
    """Targets y0..y10 = e0..e10 in 12 dimensions; x1 = 0.8 e0 + 0.6 e1, x2 = e1.
    r_T(x1) = (0.8 + 0.6) / 10 = 0.14 (its 10 nearest targets: 0.8, 0.6 and eight zeros);
    r_T(x2) = 1 / 10 = 0.1; r_S(y0) = (0.8 + 0) / 2 = 0.4, r_S(y1) = (0.6 + 1) / 2 = 0.8 (only
    two sources). CSLS(x1, y0) = 1.6 - 0.14 - 0.4 = 1.06; CSLS(x1, y1) = 1.2 - 0.14 - 0.8 =
    0.26; CSLS(x2, y1) = 2 - 0.1 - 0.8 = 1.1; CSLS(x2, y2) = 0 - 0.1 - 0 = -0.1."""
    targets = np.eye(12)[:11]
    sources = np.zeros((2, 12))
    sources[0, 0], sources[0, 1], sources[1, 1] = 0.8, 0.6, 1.0
    c = metrics.csls_scores(sources, targets, k=10)
    assert c[0, 0] == pytest.approx(1.06)
    assert c[0, 1] == pytest.approx(0.26)
    assert c[1, 1] == pytest.approx(1.1)
    assert c[1, 2] == pytest.approx(-0.1)
    p = metrics.precision_at_k(c, [{1}, {1}], ks=(1, 2))
    assert p == {1: 0.5, 2: 1.0}  # x1's best is y0, its second y1


def test_procrustes_recovers_a_rotation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 4))
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    w = metrics.procrustes(x, x @ q)
    assert np.allclose(w, q)
    assert np.allclose(w @ w.T, np.eye(4))


def test_costra_metrics_by_hand() -> None:
    """Two orderings of type basic:nonsense, one right (cos 1 > cos 0), one wrong; one of
    annotated:past, right. Groups as the costra package rounds them: basic 0.5, time 1.0,
    the others 0 (no comparisons), costra = 1.5 / 6 = 0.25."""
    e0, e1 = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    right = metrics.ordering_accuracy(e0, e0, e0, e1)
    wrong = metrics.ordering_accuracy(e0, e1, e0, e0)
    assert right.tolist() == [True] and wrong.tolist() == [False]
    s = costra_ordering_scores(
        ["basic:nonsense", "basic:nonsense", "annotated:past"], np.array([True, False, True])
    )
    assert s["labels"]["basic:nonsense"] == {"comparisons": 2, "accuracy": 0.5}
    assert s["package_groups"]["basic"] == 0.5 and s["package_groups"]["time"] == 1.0
    assert s["package_groups"]["costra"] == 0.25
    t = costra_type_scores(["past", "past", "nonsense"], np.array([0.9, 0.7, 0.1]), [0.8, 0.6, 0.2])
    assert t["types"]["past"] == {
        "sentences": 2,
        "mean_cosine": 0.8,
        "mean_string_similarity": 0.7,
    }
    assert t["pearson_cosine_vs_string_similarity"] == pytest.approx(1.0)
