"""The ``senteval`` preset on a set with no test split runs SentEval's InnerKFoldClassifier
(senteval/tools/validation.py): stratified shuffled outer and inner folds (random_state 1111
at seed 0), C chosen per outer fold by the mean inner-fold accuracy rounded to 0.01 %, refit
on the outer training part. Checked against that algorithm written out with scikit-learn on
the same features."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe.evaluation import evaluate
from polyprobe.evaluation.probes import SENTEVAL_SPLIT_C
from polyprobe.evaluation.synthetic import toy_sentences, write_folder
from polyprobe.hashing import stable_u64

K = 4


def features(texts: list[str]) -> np.ndarray:
    """A noisy cue feature plus hashed words: separable enough to learn, noisy enough that C
    matters."""
    out = np.zeros((len(texts), 12), np.float32)
    for i, text in enumerate(texts):
        for word in text.split():
            out[i, sum(map(ord, word)) % 11] += 1.0
        out[i, 11] = 1.0 if "zebra" in text.split() else 0.0
        noise = np.random.default_rng(stable_u64("noise", text)).normal(0, 0.4, 12)
        out[i] += noise.astype(np.float32)  # per text: the same whatever the batch
    return out


def senteval_inner_kfold(X: np.ndarray, y: np.ndarray, k: int) -> tuple[float, list[float]]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=1111)
    inner = StratifiedKFold(n_splits=k, shuffle=True, random_state=1111)
    tests, chosen = [], []
    for tr, te in skf.split(X, y):
        scores = []
        for c in SENTEVAL_SPLIT_C:
            accs = []
            for itr, ite in inner.split(X[tr], y[tr]):
                clf = LogisticRegression(C=c, random_state=1111).fit(X[tr][itr], y[tr][itr])
                accs.append(clf.score(X[tr][ite], y[tr][ite]))
            scores.append(round(100 * np.mean(accs), 2))
        best = SENTEVAL_SPLIT_C[int(np.argmax(scores))]
        chosen.append(best)
        clf = LogisticRegression(C=best, random_state=1111).fit(X[tr], y[tr])
        tests.append(round(100 * clf.score(X[te], y[te]), 2))
    return round(float(np.mean(tests)), 2), chosen


@pytest.fixture(scope="module")
def splitless(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    rows = toy_sentences(160, seed=3, prefix="tr")
    folder = write_folder(
        tmp_path_factory.mktemp("innerkfold") / "mr-like",
        {"cue": {"train": rows}},
        {"cue": ["no", "yes"]},
        {"cue": "sentence"},
    )
    return folder, rows


def test_senteval_on_a_splitless_set_is_senteval_inner_kfold(splitless, tmp_path: Path) -> None:
    folder, rows = splitless
    features.polyprobe_id = "test-features-v1"  # type: ignore[attr-defined]
    (result,) = evaluate(
        str(folder),
        encoders=[features],
        probe="senteval",
        seeds=1,
        folds=K,
        n_boot=50,
        cache=tmp_path / "cache",
    )
    X, y = features(rows["sentence"]), np.asarray(rows["label"])
    expected_mean, expected_c = senteval_inner_kfold(X, y, K)
    chosen = result["probe"]["chosen"]
    assert [c["fold"] for c in chosen] == list(range(K))
    assert [c["C"] for c in chosen] == expected_c
    assert all(c["selected_by"] == f"{K}-fold-inner-cv" for c in chosen)
    assert all(len(c["grid_scores"]) == len(SENTEVAL_SPLIT_C) for c in chosen)
    assert chosen[0]["senteval_fold_mean"] == pytest.approx(expected_mean / 100, abs=1e-9)
    # the pooled out-of-fold accuracy: within a row of SentEval's fold mean
    assert abs(result["metrics"]["accuracy"]["mean"] - expected_mean / 100) < 1.5 / len(y)
    assert len(set(expected_c)) > 1 and 0.6 < expected_mean / 100 < 1.0  # C varies by fold
