"""``--extend-grid`` under every protocol an ``lr`` run meets: pooled cross-validation (a
train-only folder, ``--folds``) extends each outer fold's grid on its inner validation as the
batched split path does (it used to record ``extend_grid`` and search nothing); an MLP probe
has no C, so ``--probe mlp --extend-grid`` is a usage error, and so is ``discoeval``, whose
classifier is DiscoEval's PyTorch one (an L2 grid, no C)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe.cli import main
from polyprobe.errors import UsageError
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.probes import get_probe
from polyprobe.evaluation.protocols import SplitArrays, run_protocol


def _train_only(n: int = 400, d: int = 6) -> SplitArrays:
    """A linearly separable train-only set (no validation, no test: pooled CV)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X @ rng.normal(size=d) > 0).astype(np.int64)
    groups = np.asarray([f"g{i}" for i in range(n)], dtype=object)
    keys = np.asarray([""] * n, dtype=object)
    return SplitArrays({"train": X}, {"train": y}, {"train": groups}, {"train": keys})


def test_pooled_cross_validation_extends_the_grid() -> None:
    spec = get_probe("lr")
    spec.grid = {"C": [1e-4, 1e-3, 1e-2]}  # far too regularising for separable data
    plain = run_protocol(spec, _train_only(), 2, seed=0, folds=3)
    assert plain.protocol == "kfold" and len(plain.chosen) == 3
    assert all(c["C"] == 1e-2 and c["grid_edge"] == "highest" for c in plain.chosen)
    spec.params["extend_grid"] = 3
    ext = run_protocol(spec, _train_only(), 2, seed=0, folds=3)
    for fold in ext.chosen:
        searched = fold["grid_searched"]
        assert searched[:3] == [1e-4, 1e-3, 1e-2] and 4 <= len(searched) <= 6
        assert np.allclose(searched[3:], [10.0 ** (j - 1) for j in range(len(searched) - 3)])
        assert fold["C"] > 1e-2 and len(fold["grid_scores"]) == len(searched)
    assert (ext.y_pred == ext.y_true).mean() > (plain.y_pred == plain.y_true).mean()


def test_mlp_probe_with_extend_grid_is_a_usage_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="--probe mlp is an MLP, whose grid has no C"):
        evaluate(str(tmp_path), encoders=["random"], probe="mlp", extend_grid=2, out=tmp_path)
    code = main(["evaluate", str(tmp_path), "--encoder", "random", "--probe", "mlp",
                 "--extend-grid", "2", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code != 0
    assert "--extend-grid extends logistic regression's C grid" in capsys.readouterr().err


@pytest.fixture(scope="module")
def ssj_train_only(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from polyprobe import build_ud

    out = tmp_path_factory.mktemp("extend-grid") / "ssj"
    build_ud(
        [ud_dir / "UD_Slovenian-SSJ"],
        lang="sl",
        out=out,
        tasks=["binary_sentence_ordering", "discourse_coherence"],
        split="ratio:100/0/0",
        min_per_class=(5, 0, 0),
        jobs=1,
    )
    return out


def test_discoeval_on_a_train_only_folder(ssj_train_only: Path, tmp_path: Path) -> None:
    """DiscoEval's classifier has no C: ``--extend-grid`` with it is a usage error; on pooled
    folds it runs its own L2 grid per fold (BSO) and DC's one no-L2 value."""
    with pytest.raises(UsageError, match="--probe discoeval is an MLP, whose grid has no C"):
        evaluate(str(ssj_train_only), config=["binary_sentence_ordering"],
                 encoders=["random?dim=16"], probe="discoeval", seeds=1, folds=3,
                 extend_grid=2, cache=tmp_path / "c0", out=tmp_path / "r0")  # fmt: skip
    results = evaluate(
        str(ssj_train_only),
        config=["binary_sentence_ordering", "discourse_coherence"],
        encoders=["random?dim=16"],  # small vectors: DiscoEval's 2,000-unit MLP stays cheap
        probe="discoeval",
        seeds=1,
        folds=3,
        n_boot=20,
        cache=tmp_path / "cache",
        out=tmp_path / "results",
    )
    bso, dc = results
    assert bso["probe"]["params"]["hidden"] == 0
    assert bso["probe"]["grid"] == {"l2reg": [1e-5, 1e-4, 1e-3, 1e-2]}
    assert len(bso["probe"]["chosen"]) == 3  # one per outer fold
    assert dc["probe"]["params"]["hidden"] == 2000 and dc["probe"]["grid"] == {"l2reg": [1e-9]}
    for r in results:
        assert 0.0 <= r["metrics"]["accuracy"]["mean"] <= 1.0
