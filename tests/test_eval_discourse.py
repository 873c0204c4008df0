"""DiscoEval's features for discourse configs and the ``discoeval`` preset: each task's
feature layout checked on known vectors, then end to end on a discourse dataset built from a
real treebank (Slovenian SSJ's '# newdoc' documents) through ``evaluate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe import build_ud
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.cache import EmbeddingCache
from polyprobe.evaluation.data import infer_level, load_config, read_card
from polyprobe.evaluation.discourse import (
    DC_HIDDEN,
    SCHEMES,
    discoeval_preset,
    discourse_features,
    probe_for_config,
    scheme_for,
)
from polyprobe.evaluation.encoders import build_encoder
from polyprobe.evaluation.probes import get_probe


def vectors(n: int) -> np.ndarray:
    """Sentence i's vector is [i, 10 i] (1-based)."""
    return np.array([[i, 10 * i] for i in range(1, n + 1)], dtype=np.float32)


def test_feature_layouts() -> None:
    x = vectors(6)
    sp = SCHEMES["sentence_position"]([x[:5]])
    assert sp.tolist() == [1, 10, -1, -10, -2, -20, -3, -30, -4, -40]  # x1, x1-x2 .. x1-x5
    bso = SCHEMES["binary_sentence_ordering"]([x[:2]])
    assert bso.tolist() == [1, 10, 2, 20, -1, -10]  # x1, x2, x1-x2
    dc = SCHEMES["discourse_coherence"]([x])
    assert dc.tolist() == x.reshape(-1).tolist()  # the six concatenated
    assert SCHEMES["sentence_section"]([x[:1]]).tolist() == [1, 10]
    # DR: l = mean of EDUs 1-2 = [1.5, 15], r = EDU 3 = [3, 30]; [l, r, l*r, |l-r|]
    dr = SCHEMES["discourse_relations"]([x[:2], x[2:3]])
    assert dr.tolist() == [1.5, 15, 3, 30, 4.5, 450, 1.5, 15]
    # another discourse task: concatenated when every row has the same length, else the mean
    assert scheme_for("my_task", "discourse", {(3,)})([x[:3]]).shape == (6,)
    assert scheme_for("my_task", "discourse", {(3,), (4,)})([x[:4]]).tolist() == [2.5, 25]
    assert (
        scheme_for("sentence_position.natural-full", "discourse", set())
        is SCHEMES["sentence_position"]
    )


def test_levels_are_inferred_from_columns() -> None:
    assert infer_level(["id", "sentences", "label"]) == "discourse"
    assert infer_level(["id", "left", "right", "label"]) == "discourse-relation"


def test_discoeval_preset() -> None:
    """DiscoEval's code: ``discoeval_example.py``'s classifier (nhid 0, adam, batch 64,
    tenacity 5, epoch_size 4), ``SplitClassifier``'s PyTorch L2 grid, ``DCEval``'s and
    ``SSPEval``'s changes (``noreg``: one L2 of 1e-9)."""
    base = discoeval_preset()
    assert base.name == "discoeval" and base.kind == "mlp"
    p = base.params
    assert (p["trainer"], p["hidden"], p["optimizer"], p["batch_size"]) == (
        "senteval",
        0,
        "adam",
        64,
    )
    assert (p["tenacity"], p["epoch_size"], p["standardize"]) == (5, 4, False)
    assert base.grid == {"l2reg": [1e-5, 1e-4, 1e-3, 1e-2]}
    dc = probe_for_config(base, "discourse_coherence")
    assert dc.kind == "mlp" and dc.params["hidden"] == DC_HIDDEN == 2000
    assert (dc.params["tenacity"], dc.params["epoch_size"]) == (8, 15)
    assert dc.grid == {"l2reg": [1e-9]}
    assert probe_for_config(base, "sentence_section").grid == {"l2reg": [1e-9]}
    assert probe_for_config(base, "sentence_position") is base
    assert probe_for_config(base, "binary_sentence_ordering") is base
    lr = get_probe("lr")
    assert probe_for_config(lr, "discourse_coherence") is lr  # only the preset switches


@pytest.fixture(scope="module")
def ssj(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval-discourse") / "ssj"
    build_ud(
        [ud_dir / "UD_Slovenian-SSJ"],
        lang="sl",
        out=out,
        tasks=["sentence_position", "binary_sentence_ordering"],
        min_per_class=(5, 2, 2),
        jobs=1,
    )
    return out


def test_features_of_a_built_dataset(ssj: Path, tmp_path: Path) -> None:
    card = read_card(str(ssj), None)
    enc = build_encoder("random")
    cache = EmbeddingCache(tmp_path / "cache")
    try:
        for config, width in (("sentence_position", 5), ("binary_sentence_ordering", 3)):
            cfg = load_config(str(ssj), config, None, card, None)
            assert cfg.level == "discourse"
            n_texts = len(cfg.rows["train"]["sentences"][0])
            assert len(cfg.items("train")[0]) == n_texts  # every sentence an item
            feats, stats = discourse_features(cfg, enc, cache, 32, None)
            (layer,) = feats
            assert feats[layer]["train"].shape == (cfg.size("train"), width * enc.dim)
            assert stats["misses"] > 0
    finally:
        cache.close()


def test_evaluate_with_the_preset(ssj: Path, tmp_path: Path) -> None:
    results = evaluate(
        str(ssj),
        config=["binary_sentence_ordering", "sentence_position"],
        encoders=["random"],
        probe="discoeval",
        seeds=1,
        n_boot=20,
        cache=tmp_path / "cache",
        out=tmp_path / "results",
    )
    assert [r["config"] for r in results] == ["binary_sentence_ordering", "sentence_position"]
    for r in results:
        assert r["probe"]["name"] == "discoeval"
        assert 0.0 <= r["metrics"]["accuracy"]["mean"] <= 1.0
        assert Path(r["path"]).is_file()
