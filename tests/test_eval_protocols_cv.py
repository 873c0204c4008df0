"""Evaluation paths without other tests: pooled cross-validation (no test split), the
``wehner`` / ``linspector`` / ``senteval-mlp`` presets end to end, ``vec:`` binary vs text files,
and a word-in-context dataset with a ``w2v:`` baseline trained on a treebank."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyprobe.evaluation import evaluate, protocols
from polyprobe.evaluation.data import load_config, read_card
from polyprobe.evaluation.encoders import Item, build_encoder
from polyprobe.evaluation.probes import SENTEVAL_MLP_GRID
from polyprobe.evaluation.synthetic import toy_sentences, write_folder

K = 4  # outer folds for the pooled-CV tests (not the default 5, so the number is informative)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    """The MLPs here are tiny: on 2 shared cores, torch's intra-op threads cost far more than
    they save (one wehner fold: ~1.9 s with 2 threads under load, ~0.1 s with 1)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _grouped(n: int, prefix: str, separable: bool) -> dict:
    """Toy sentences where groups span 3 rows and every 4th row carries a lexical key shared
    with rows of other groups (and of the other split), so components span several groups."""
    rows = toy_sentences(n, separable=separable, prefix=prefix)
    rows["group"] = [f"{prefix}/g{i // 3}" for i in range(n)]
    rows["lexical_key"] = [f"k{i % 17}" if i % 4 == 0 else "" for i in range(n)]
    return rows


@pytest.fixture(scope="module")
def cv_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cv")
    configs = {
        # train + validation, no test: pooled outer CV over both splits.
        "cue": {
            "train": _grouped(240, "tr", separable=True),
            "validation": _grouped(80, "va", separable=True),
        },
        # train only, random labels.
        "noise": {"train": _grouped(320, "tr", separable=False)},
    }
    return write_folder(
        root / "cvtoy",
        configs,
        {"cue": ["no", "yes"], "noise": ["a", "b"]},
        {"cue": "sentence", "noise": "sentence"},
    )


def _assert_no_split(folds: np.ndarray, groups: np.ndarray, keys: np.ndarray) -> None:
    for g in set(groups.tolist()):
        assert len(set(folds[groups == g].tolist())) == 1, f"group {g} split across folds"
    for k in set(keys.tolist()) - {""}:
        assert len(set(folds[keys == k].tolist())) == 1, f"lexical key {k} split across folds"


@pytest.mark.parametrize(
    ("config", "separable"), [("cue", True), ("noise", False)], ids=["train+val", "train-only"]
)
def test_pooled_cv_folds_protocol_and_known_answers(
    cv_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: str,
    separable: bool,
) -> None:
    cfg = load_config(str(cv_dir), config, None, read_card(str(cv_dir), None))
    assert "test" not in cfg.splits
    pooled_g = np.concatenate([cfg.groups(s) for s in cfg.splits])
    pooled_k = np.concatenate([cfg.keys(s) for s in cfg.splits])
    n = len(pooled_g)
    assert len(set(pooled_k.tolist()) - {""}) == 17  # keys really link rows across groups

    calls: list[tuple[np.ndarray, np.ndarray, int, np.ndarray]] = []
    real = protocols.group_kfold

    def spy(groups: np.ndarray, keys: np.ndarray, k: int, seed: int) -> np.ndarray:
        out = real(groups, keys, k, seed)
        calls.append((np.asarray(groups), np.asarray(keys), k, out))
        return out

    monkeypatch.setattr(protocols, "group_kfold", spy)
    (r,) = evaluate(
        str(cv_dir),
        config=config,
        encoders=["random?dim=32"],
        probe="lr",
        seeds=2,
        folds=K,
        n_boot=200,
        cache=tmp_path / "c",
        out=tmp_path / "o",
    )

    # Every fold assignment the evaluation made (outer, inner, majority, control) keeps each
    # group and each lexical key on one side; the outer ones cover all pooled rows in K folds.
    assert calls
    outer = [c for c in calls if len(c[0]) == n]
    assert outer and all(k == K for _, _, k, _ in outer)
    for groups, keys, _, folds in calls:
        _assert_no_split(folds, groups, keys)
    for groups, _keys, _, folds in outer:
        assert sorted(set(folds.tolist())) == list(range(K))
        assert list(groups) == list(pooled_g)  # pooled in split order: train, validation
        assert np.bincount(folds).max() - np.bincount(folds).min() <= 12  # size-balanced
    # Inner validation folds are drawn from the outer training part only.
    assert any(len(c[0]) < n for c in calls)

    on_disk = json.loads(Path(r["path"]).read_text(encoding="utf-8"))
    assert on_disk["protocol"] == r["protocol"] == "kfold"
    assert on_disk["probe"]["params"]["folds"] == K
    assert on_disk["split_sizes"] == {s: cfg.size(s) for s in cfg.splits}
    per_seed = [[c["fold"] for c in on_disk["probe"]["chosen"] if c["seed"] == s] for s in (0, 1)]
    assert per_seed == [list(range(K))] * 2  # one record per outer fold per seed
    for c in on_disk["probe"]["chosen"]:
        assert c["selected_by"] == "validation" and len(c["grid_scores"]) == 6
    acc = on_disk["metrics"]["accuracy"]
    if separable:
        assert acc["mean"] >= 0.95 and min(acc["per_seed"]) >= 0.93  # observed 0.966, 0.984
    else:
        assert 0.35 < acc["mean"] < 0.65  # observed 0.559
        assert abs(on_disk["metrics"]["macro_f1"]["mean"] - 0.5) < 0.15


def test_pooled_cv_does_not_leak_across_groups(tmp_path: Path) -> None:
    """Labels are random per group and the text is the group's own token, so only a fold that
    splits a group can score above chance; a leaky fold would be near 100%."""
    n_groups = 60
    rows: dict[str, list] = {k: [] for k in ("id", "sentence", "tokens", "label", "group")}
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, n_groups)
    for g in range(n_groups):
        for j in range(4):
            rows["id"].append(f"{g}-{j}")
            rows["sentence"].append(f"tok{g}")
            rows["tokens"].append([f"tok{g}"])
            rows["label"].append(int(labels[g]))
            rows["group"].append(f"g{g}")
    rows["lexical_key"] = [""] * len(rows["id"])
    folder = write_folder(
        tmp_path / "leak", {"leak": {"train": rows}}, {"leak": ["a", "b"]}, {"leak": "sentence"}
    )
    (r,) = evaluate(
        str(folder), encoders=["random?dim=128"], seeds=1, folds=K, n_boot=100, cache=tmp_path / "c"
    )
    assert r["protocol"] == "kfold"
    assert r["metrics"]["accuracy"]["mean"] < 0.75


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    configs = {
        "cue": {
            "train": toy_sentences(160, prefix="tr"),
            "validation": toy_sentences(60, prefix="va"),
            "test": toy_sentences(60, prefix="te"),
        },
        "tiny": {
            "train": toy_sentences(70, prefix="tr"),
            "validation": toy_sentences(15, prefix="va"),
            "test": toy_sentences(15, prefix="te"),
        },
    }
    return write_folder(
        root / "small",
        configs,
        {"cue": ["no", "yes"], "tiny": ["no", "yes"]},
        {"cue": "sentence", "tiny": "sentence"},
    )


MLP_FIXED = {"optimizer": "adam", "standardize": True}


def test_wehner_preset_end_to_end(small_dir: Path, tmp_path: Path) -> None:
    (r,) = evaluate(
        str(small_dir),
        config="tiny",
        encoders=["random?dim=32"],
        probe="wehner",
        seeds=1,
        n_boot=100,
        cache=tmp_path / "c",
        out=tmp_path / "o",
    )
    res = json.loads(Path(r["path"]).read_text(encoding="utf-8"))
    p = res["probe"]
    assert p["name"] == "wehner" and p["grid"] == {}
    params = p["params"]
    assert params["hidden"] == 50 and params["activation"] == "sigmoid"
    assert params["dropout"] == 0.0 and params["optimizer"] == "adam"
    assert params["max_epochs"] == 100 and params["early_stopping"] is False
    assert params["protocol"] == "cv" and params["folds"] == 5
    # Forced CV even though the dataset has a test split: all 100 rows pooled, 5 outer folds.
    assert res["protocol"] == "kfold"
    assert sum(res["split_sizes"].values()) == 100
    assert [c["fold"] for c in p["chosen"]] == list(range(5))
    for c in p["chosen"]:  # no early stopping: every fold trains all 100 epochs
        assert c["epochs"] == 100 and c["best_epoch"] == 100 and c["selected_by"] == "fixed"
    assert res["metrics"]["accuracy"]["mean"] >= 0.85


def test_linspector_preset_records_paper_parameters_and_learns(
    small_dir: Path, tmp_path: Path
) -> None:
    (r,) = evaluate(
        str(small_dir),
        config="cue",
        encoders=["random?dim=32"],
        probe="linspector",
        seeds=1,
        n_boot=100,
        cache=tmp_path / "c",
    )
    p = r["probe"]
    assert p["name"] == "linspector" and p["grid"] == {}
    params = p["params"]
    assert params["hidden"] == 300 and params["activation"] == "relu"
    assert params["dropout"] == 0.5 and params["optimizer"] == "adam"
    assert params["batch_size"] == 16 and params["max_epochs"] == 20
    assert params["patience"] == 5 and params["early_stopping"] is True
    assert r["protocol"] == "split"
    (c,) = p["chosen"]
    assert c["epochs"] <= 20 and 1 <= c["best_epoch"] <= c["epochs"]
    assert r["metrics"]["accuracy"]["mean"] >= 0.9


def test_senteval_mlp_preset_searches_its_grid_and_learns(small_dir: Path, tmp_path: Path) -> None:
    (r,) = evaluate(
        str(small_dir),
        config="cue",
        encoders=["random?dim=32"],
        probe="senteval-mlp",
        seeds=1,
        n_boot=100,
        cache=tmp_path / "c",
    )
    p = r["probe"]
    # SentEval's probing grid (nhid x dropout, each with its L2 grid; tests/test_presets.py)
    assert p["grid"] == SENTEVAL_MLP_GRID
    params = p["params"]
    assert params["activation"] == "sigmoid" and params["optimizer"] == "adam"
    assert params["tenacity"] == 5 and params["epoch_size"] == 4
    assert "hidden" not in params and "dropout" not in params  # searched, not fixed
    (c,) = p["chosen"]
    assert c["selected_by"] == "validation" and len(c["grid_scores"]) == 36
    assert c["hidden"] in (50, 100, 200) and c["dropout"] in (0.0, 0.1, 0.2)
    assert c["validation_accuracy"] == max(c["grid_scores"])
    assert r["metrics"]["accuracy"]["mean"] >= 0.9


def test_vec_binary_and_text_files_give_the_same_embeddings(tmp_path: Path) -> None:
    from gensim.models import KeyedVectors

    words = ["the", "cat", "sat", "on", "mat", "Paris", "naïve"]
    rng = np.random.default_rng(1)
    kv = KeyedVectors(vector_size=8)
    kv.add_vectors(words, rng.standard_normal((len(words), 8)).astype(np.float32))
    kv.save_word2vec_format(str(tmp_path / "w.bin"), binary=True)
    kv.save_word2vec_format(str(tmp_path / "w.vec"), binary=False)
    kv.save_word2vec_format(str(tmp_path / "nohead.vec"), binary=False, write_header=False)

    items = [
        Item("the cat sat", ("the", "cat", "sat")),
        Item("The Cat", ("The", "Cat")),  # casefold fallback
        Item("paris", ("paris",)),  # no casefold match for "Paris": unknown, zero
        Item("naïve mat", ("naïve", "mat")),
        Item("the cat sat on the mat", ("the", "cat", "sat", "on", "the", "mat"), 4),
        Item("zzz", ("zzz",)),
    ]
    encs = {
        name: build_encoder(f"vec:{tmp_path / name}") for name in ("w.bin", "w.vec", "nohead.vec")
    }
    out = {name: e.encode(items)[None] for name, e in encs.items()}
    expected = np.stack(
        [
            (kv["the"] + kv["cat"] + kv["sat"]) / 3,
            (kv["the"] + kv["cat"]) / 2,
            np.zeros(8),
            (kv["naïve"] + kv["mat"]) / 2,
            kv["the"],
            np.zeros(8),
        ]
    )
    for name, mat in out.items():
        assert mat.shape == (len(items), 8), name
        np.testing.assert_allclose(mat, expected, rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_array_equal(out["w.bin"], out["w.vec"])
    # Different files are different encoders (ids carry the file's checksum).
    assert len({e.id for e in encs.values()}) == 3


def _wic_rows(idx: range, words: list[str]) -> dict:
    frames = [
        ("the", "{}", "was", "here"),
        ("we", "saw", "the", "{}"),
        ("they", "{}", "it", "again"),
    ]
    rows: dict[str, list] = {
        k: [] for k in ("id", "sentence", "tokens", "target_index", "label", "group", "lexical_key")
    }
    for i in idx:
        word = words[i % len(words)]
        frame = frames[i % len(frames)]
        toks = [word if t == "{}" else t for t in frame]
        rows["id"].append(str(i))
        rows["sentence"].append(" ".join(toks))
        rows["tokens"].append(toks)
        rows["target_index"].append(frame.index("{}"))
        rows["label"].append(int(i % len(words) >= len(words) // 2))
        rows["group"].append(str(i))
        rows["lexical_key"].append("")
    return rows


def test_word_in_context_with_w2v_treebank_baseline(ud_dir: Path, tmp_path: Path) -> None:
    nouns = ["house", "city", "people", "year", "time", "world", "government", "country"]
    verbs = ["said", "made", "took", "came", "went", "found", "gave", "told"]
    words = nouns + verbs
    folder = write_folder(
        tmp_path / "wic",
        {
            "pos_wic": {
                "train": _wic_rows(range(0, 96), words),
                "validation": _wic_rows(range(96, 128), words),
                "test": _wic_rows(range(128, 176), words),
            }
        },
        {"pos_wic": ["NOUN", "VERB"]},
        {"pos_wic": "word-in-context"},
    )
    treebank = ud_dir / "UD_English-PUD"
    spec = f"w2v:{treebank}?dim=20&epochs=2"

    # The target token, not the sentence, is what a context-free baseline encodes.
    enc = build_encoder(spec)
    enc.cache_root = tmp_path / "c"
    v = enc.encode(
        [
            Item("the house was here", ("the", "house", "was", "here"), 1),
            Item("house", ("house",)),
            Item("we saw the house", ("we", "saw", "the", "house"), 3),
        ]
    )[None]
    assert np.abs(v[0]).sum() > 0
    assert np.array_equal(v[0], v[1]) and np.array_equal(v[0], v[2])

    (r,) = evaluate(
        str(folder),
        encoders=[spec],
        seeds=1,
        n_boot=100,
        cache=tmp_path / "c",
        out=tmp_path / "o",
    )
    res = json.loads(Path(r["path"]).read_text(encoding="utf-8"))
    assert res["level"] == "word-in-context"
    assert res["encoder"]["id"].startswith("w2v:UD_English-PUD@sha-")
    assert res["encoder"]["id"] == enc.id
    assert res["protocol"] == "split"
    assert res["cache"]["misses"] > 0
    assert res["control"]["key"] == "target-form"
    # 16 word types, each its own (non-zero) 20-d vector: the probe can tell nouns from verbs.
    assert res["metrics"]["accuracy"]["mean"] >= 0.8
