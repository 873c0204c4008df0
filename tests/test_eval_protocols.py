"""Group- and lexical-key-aware folds, the majority baseline, the control-task key."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from polyprobe.evaluation.controls import control_labels, first_bigram
from polyprobe.evaluation.probes import get_probe
from polyprobe.evaluation.protocols import SplitArrays, group_kfold, majority_outcome


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 15), st.sampled_from(["", "a", "b", "c", "d"])),
        min_size=1,
        max_size=80,
    ),
    st.integers(2, 6),
    st.integers(0, 3),
)
def test_folds_never_split_a_group_or_key(rows: list[tuple[int, str]], k: int, seed: int) -> None:
    groups = np.array([f"g{g}" for g, _ in rows], dtype=object)
    keys = np.array([key for _, key in rows], dtype=object)
    folds = group_kfold(groups, keys, k, seed)
    for name, col in (("group", groups), ("key", keys)):
        for value in set(col.tolist()):
            if name == "key" and value == "":
                continue
            assert len(set(folds[col == value].tolist())) == 1
    assert folds.max() < k
    assert np.array_equal(folds, group_kfold(groups, keys, k, seed))


def test_folds_are_balanced() -> None:
    groups = np.array([f"g{i // 2}" for i in range(1000)], dtype=object)
    folds = group_kfold(groups, np.array([""] * 1000, dtype=object), 5, 0)
    assert np.bincount(folds).tolist() == [200] * 5


def test_majority_is_train_majority_share_of_test() -> None:
    y = {"train": np.array([0, 1, 1, 1, 2]), "test": np.array([1, 0, 0, 2])}
    g = {s: np.array([f"{s}{i}" for i in range(len(v))], dtype=object) for s, v in y.items()}
    k = {s: np.array([""] * len(v), dtype=object) for s, v in y.items()}
    out = majority_outcome(SplitArrays({}, y, g, k), 3, get_probe("lr"))
    assert out.majority_pred.tolist() == [1, 1, 1, 1]
    assert (out.majority_pred == out.y_true).mean() == 0.25


def test_control_labels_follow_distribution_and_are_per_key() -> None:
    keys = {"train": np.array([f"k{i % 500}" for i in range(5000)], dtype=object)}
    train_labels = np.array([0] * 800 + [1] * 200)
    labels = control_labels(keys, train_labels, 2, seed=0)["train"]
    for key in ("k1", "k7"):
        assert len(set(labels[keys["train"] == key].tolist())) == 1
    share = labels[:500].mean()
    assert 0.14 < share < 0.26
    again = control_labels(keys, train_labels, 2, seed=0)["train"]
    assert np.array_equal(labels, again)


def test_first_bigram_skips_punctuation_and_casefolds() -> None:
    assert first_bigram(('"', "The", "cat", "sat")) == "the cat"
    assert first_bigram(("Hi", "!")) == "hi"
