"""The evaluation heads against values computed by hand: pair features, cosine STS (Pearson
and Spearman), the Tai score distribution and the SICK-R regression head."""

from __future__ import annotations

import math

import numpy as np
import pytest

from polyprobe.errors import UsageError
from polyprobe.evaluation.heads import (
    cosine,
    cosine_sts,
    pair_representation,
    rankdata,
    regression_head,
    score_distribution,
    spearman,
)

U = np.array([[1.0, 2.0], [0.0, 1.0]])
V = np.array([[3.0, -1.0], [0.0, 2.0]])


def test_pair_features_by_hand() -> None:
    senteval = pair_representation(U, V)
    assert senteval[0].tolist() == [1, 2, 3, -1, 2, 3, 3, -2]  # u, v, |u-v|, u*v
    spanish = pair_representation(U, V, "spanish")
    assert spanish[0].tolist() == [2, 3, 3, -2]  # |u-v|, u*v
    assert np.array_equal(pair_representation(V, U, "spanish"), spanish)  # symmetric
    topic = pair_representation(U, V, "topic")
    assert topic[1].tolist() == [0, 1, 0, 2]  # sentence, topic
    with pytest.raises(UsageError, match="unknown pair features"):
        pair_representation(U, V, "concat")


def test_cosine_sts_by_hand() -> None:
    """Pairs: cos([1,0],[1,0]) = 1; cos([1,0],[1,1]) = 1/sqrt(2); cos([1,0],[0,1]) = 0;
    cos([1,0],[-1,0]) = -1. Gold 4, 3, 2, 0.5: monotone, so Spearman = 1. Pearson by hand:
    x = (1, .70711, 0, -1), mean .17678; y = (4, 3, 2, .5), mean 2.375; deviations
    x' = (.82322, .53033, -.17678, -1.17678), y' = (1.625, .625, -.375, -1.875);
    sum x'y' = 3.94194, sum x'^2 = 2.375, sum y'^2 = 6.6875;
    r = 3.94194 / sqrt(2.375 * 6.6875) = 0.989114."""
    u = np.array([[1.0, 0.0]] * 4)
    v = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [-1.0, 0.0]])
    gold = np.array([4.0, 3.0, 2.0, 0.5])
    sims = cosine(u, v)
    assert sims.tolist() == pytest.approx([1.0, 1 / math.sqrt(2), 0.0, -1.0])
    x, y = sims - sims.mean(), gold - gold.mean()
    by_hand = (x * y).sum() / math.sqrt((x * x).sum() * (y * y).sum())
    block = cosine_sts(u, v, gold)
    assert block["pearson"] == pytest.approx(by_hand, abs=1e-6)
    assert block["pearson"] == pytest.approx(0.989114, abs=1e-5)
    assert block["spearman"] == 1.0 and block["n"] == 4


def test_ranks_with_ties_and_spearman() -> None:
    assert rankdata(np.array([10, 20, 20, 5])).tolist() == [2.0, 3.5, 3.5, 1.0]
    # reversed order: rho = -1
    assert spearman(np.array([1, 2, 3]), np.array([3, 2, 1])) == pytest.approx(-1.0)


def test_tai_distribution() -> None:
    dist = score_distribution(np.array([3.4, 1.0, 5.0, 4.75]), 1, 5)
    assert dist[0].tolist() == pytest.approx([0, 0, 0.6, 0.4, 0])
    assert dist[1].tolist() == [1, 0, 0, 0, 0]
    assert dist[2].tolist() == [0, 0, 0, 0, 1]
    assert dist[3].tolist() == pytest.approx([0, 0, 0, 0.25, 0.75])
    # the expected grade of each distribution is the score back
    assert (dist @ np.arange(1, 6)).tolist() == pytest.approx([3.4, 1.0, 5.0, 4.75])


def test_regression_head_learns_a_linear_score() -> None:
    """Scores that are a linear function of one feature: the head ranks the test pairs
    exactly and predicts close to the gold."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4)).astype(np.float32)
    score = np.clip(3 + 1.2 * x[:, 0], 1, 5)
    train, val, test = (x[:200], score[:200]), (x[200:250], score[200:250]), (x[250:], score[250:])
    result = regression_head(train, val, test, low=1, high=5, seed=0)
    assert result["spearman"] > 0.97 and result["pearson"] > 0.97
    assert result["mse"] < 0.05 and result["selected_on"] == "validation"
    assert result["n"] == 50
