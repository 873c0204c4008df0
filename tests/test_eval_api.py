"""End to end through ``datasets.load_dataset`` on small synthetic folders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyprobe.evaluation import evaluate
from polyprobe.evaluation.results import TOP_LEVEL_KEYS, check_schema
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    configs = {
        "cue": {
            "train": toy_sentences(240, prefix="tr"),
            "validation": toy_sentences(80, prefix="va"),
            "test": toy_sentences(80, prefix="te"),
        },
        "noise": {
            "train": toy_sentences(240, separable=False, prefix="tr"),
            "test": toy_sentences(80, separable=False, prefix="te"),
        },
    }
    return write_folder(
        root / "toy",
        configs,
        {"cue": ["no", "yes"], "noise": ["a", "b"]},
        {"cue": "sentence", "noise": "sentence"},
    )


def _strip(result: dict) -> dict:
    return {
        k: v for k, v in result.items() if k not in ("runtime_seconds", "cache", "path", "resumed")
    }


def bag_of_words(texts: list[str]) -> np.ndarray:
    """A deterministic user encoder with an id, so its vectors may be cached."""
    out = np.zeros((len(texts), 16), np.float32)
    for i, text in enumerate(texts):
        for word in text.split():
            out[i, sum(map(ord, word)) % 16] += 1.0
    return out


bag_of_words.polyprobe_id = "toy-bag-of-words-v1"  # type: ignore[attr-defined]


def test_end_to_end_schema_majority_determinism_and_cache(toy_dir: Path, tmp_path: Path) -> None:
    kwargs = dict(
        config="cue",
        encoders=["majority", "random?dim=32", bag_of_words],
        seeds=2,
        out=tmp_path / "out",
        cache=tmp_path / "cache",
    )
    first = evaluate(str(toy_dir), **kwargs)
    assert len(first) == 3
    for r in first:
        assert not check_schema(r)
        assert list(r)[: len(TOP_LEVEL_KEYS)] == list(TOP_LEVEL_KEYS)
        on_disk = json.loads(Path(r["path"]).read_text())
        assert on_disk["metrics"] == r["metrics"]
    maj, rnd, bag = first
    test_labels = np.array(toy_sentences(80, prefix="te")["label"])
    train_labels = np.array(toy_sentences(240, prefix="tr")["label"])
    majority_class = int(np.bincount(train_labels).argmax())
    assert maj["metrics"]["accuracy"]["mean"] == pytest.approx(
        (test_labels == majority_class).mean(), abs=1e-6
    )
    assert maj["majority"]["label"] == ["no", "yes"][majority_class]
    assert rnd["metrics"]["accuracy"]["mean"] > 0.95  # the cue word is a word type
    assert rnd["protocol"] == "split" and rnd["split_sizes"] == {
        "train": 240,
        "validation": 80,
        "test": 80,
    }
    assert rnd["control"]["key"] == "first-bigram" and "selectivity" in rnd["control"]
    # the random baseline is recomputed, never cached; a user encoder with an id is cached
    assert rnd["cache"] == {"hits": 0, "misses": 400, "cached": False}
    assert bag["cache"] == {"hits": 0, "misses": 400}
    assert Path(rnd["path"]).relative_to(tmp_path / "out").parts[:2] == ("toy", "cue")
    again = evaluate(str(toy_dir), force=True, **kwargs)  # recomputed: same numbers
    assert [_strip(r) for r in first] == [_strip(r) for r in again]
    assert again[2]["cache"] == {"hits": 400, "misses": 0}
    assert not any(r.get("resumed") for r in again)


def test_random_labels_are_chance_with_kfold_protocol(toy_dir: Path, tmp_path: Path) -> None:
    (r,) = evaluate(
        str(toy_dir), config="noise", encoders=["random?dim=32"], seeds=1, folds=3, cache=tmp_path
    )
    assert r["protocol"] == "kfold"
    assert 0.3 < r["metrics"]["accuracy"]["mean"] < 0.7
    assert r["probe"]["chosen"][0]["selected_by"].endswith("fold-cv-on-train")


def _lexically_disjoint_folder(tmp_path: Path) -> Path:
    """A two-class folder whose splits share no lexical key (so no control task applies)."""
    splits = {}
    for split, n in (("train", 120), ("validation", 40), ("test", 40)):
        rows = toy_sentences(n, prefix=split[:2])
        rows["lexical_key"] = [f"{split}-{i % 7}" for i in range(n)]
        splits[split] = rows
    folder = write_folder(
        tmp_path / "lex", {"lex": splits}, {"lex": ["no", "yes"]}, {"lex": "sentence"}
    )
    return folder


def test_lexically_disjoint_control_is_not_applicable(tmp_path: Path) -> None:
    folder = _lexically_disjoint_folder(tmp_path)
    (r,) = evaluate(str(folder), encoders=["random?dim=16"], seeds=1, cache=tmp_path / "c")
    assert r["control"]["status"] == "not applicable" and "reason" in r["control"]
    assert r["control"]["key"] == "lexical_key"


def test_deterministic_encoder_with_no_control_and_several_seeds(tmp_path: Path) -> None:
    """A deterministic encoder is fitted once; with no control task either, later seeds have
    nothing to fit (this crashed with "need at least one array to stack" on EWT
    ``subject_number`` and MiniLM ``--seeds 3``)."""
    folder = _lexically_disjoint_folder(tmp_path)
    (r,) = evaluate(str(folder), encoders=[bag_of_words], seeds=3, cache=tmp_path / "c")
    assert r["control"]["status"] == "not applicable"
    assert len(r["probe"]["chosen"]) == 1  # one fit, not three
    assert r["metrics"]["accuracy"]["mean"] > 0.5


def test_plain_parquet_folder_without_card(tmp_path: Path) -> None:
    from datasets import Dataset

    root = tmp_path / "plain" / "data"
    root.mkdir(parents=True)
    for split, n in (("train", 120), ("test", 40)):
        rows = toy_sentences(n, prefix=split)
        Dataset.from_dict(
            {"text": rows["sentence"], "label": [["neg", "pos"][x] for x in rows["label"]]}
        ).to_parquet(str(root / f"{split}-00000-of-00001.parquet"))
    (r,) = evaluate(
        str(tmp_path / "plain"), encoders=["char-ngrams?dim=256"], seeds=1, cache=tmp_path / "c"
    )
    assert r["level"] == "sentence" and r["config"] == "default"
    assert set(r["metrics"]["per_class_f1"]) == {"neg", "pos"}
    assert r["metrics"]["accuracy"]["mean"] > 0.9
    assert r["dataset"]["fingerprint"] is None


def test_word_level_pairs_and_in_context(tmp_path: Path) -> None:
    words = [f"w{i}" for i in range(60)]

    def word_rows(idx: range) -> dict:
        return {
            "id": [str(i) for i in idx],
            "word": [words[i % 60] for i in idx],
            "label": [int(i % 60 < 30) for i in idx],
            "group": [str(i) for i in idx],
            "lexical_key": [""] * len(idx),
        }

    def pair_rows(idx: range) -> dict:
        return {
            "id": [str(i) for i in idx],
            "word1": [words[i % 60] for i in idx],
            "word2": [words[(i * 7) % 60] for i in idx],
            "label": [int(i % 60 < 30) for i in idx],
            "group": [str(i) for i in idx],
            "lexical_key": [""] * len(idx),
        }

    def wic_rows(idx: range) -> dict:
        toks = [["the", words[i % 60], "sleeps"] for i in idx]
        return {
            "id": [str(i) for i in idx],
            "sentence": [" ".join(t) for t in toks],
            "tokens": toks,
            "target_index": [1] * len(idx),
            "label": [int(i % 60 < 30) for i in idx],
            "group": [str(i) for i in idx],
            "lexical_key": [""] * len(idx),
        }

    configs = {
        name: {
            "train": f(range(0, 300)),
            "validation": f(range(300, 400)),
            "test": f(range(400, 500)),
        }
        for name, f in (("word", word_rows), ("pair", pair_rows), ("wic", wic_rows))
    }
    folder = write_folder(
        tmp_path / "words",
        configs,
        {c: ["a", "b"] for c in configs},
        {"word": "word", "pair": "word-pair", "wic": "word-in-context"},
    )
    # 60 word types in 128 random dimensions: any labelling of the types is linearly separable.
    results = evaluate(
        str(folder), config="all", encoders=["random?dim=128"], seeds=1, cache=tmp_path / "c"
    )
    by = {r["config"]: r for r in results}
    assert by["word"]["level"] == "word" and by["word"]["metrics"]["accuracy"]["mean"] == 1.0
    assert (
        by["word"]["control"]["key"] == "word" and by["word"]["control"]["test_key_coverage"] == 1.0
    )
    assert by["pair"]["level"] == "word-pair" and by["pair"]["metrics"]["accuracy"]["mean"] == 1.0
    assert by["wic"]["control"]["key"] == "target-form"
    assert by["wic"]["metrics"]["accuracy"]["mean"] == 1.0


def test_cli_runs_and_reports_usage_errors(
    toy_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import argparse

    from polyprobe.evaluation.cli import add_evaluate_parser

    parser = argparse.ArgumentParser()
    add_evaluate_parser(parser.add_subparsers())
    args = parser.parse_args(
        [
            "evaluate",
            str(toy_dir),
            "--config",
            "cue",
            "--encoder",
            "random?dim=8",
            "--seeds",
            "1",
            "--out",
            str(tmp_path / "o"),
            "--cache",
            str(tmp_path / "c"),
            "--no-progress",
        ]
    )
    assert args.func(args) == 0
    assert "selectivity" in capsys.readouterr().out
    bad = parser.parse_args(
        ["evaluate", str(toy_dir), "--encoder", "bogus", "--out", str(tmp_path / "o")]
    )
    assert bad.func(bad) == 2
    missing = parser.parse_args(
        [
            "evaluate",
            str(toy_dir),
            "--config",
            "nope",
            "--encoder",
            "random",
            "--out",
            str(tmp_path),
        ]
    )
    assert missing.func(missing) == 2


def test_rebuilt_folder_is_not_served_stale_rows(tmp_path: Path) -> None:
    """datasets caches local folders by name; evaluation must see the new contents."""
    seen = []
    for i, prefix in enumerate(("a", "b")):
        rows = {
            s: toy_sentences(n, prefix=prefix + s)
            for s, n in (("train", 60), ("test", 30 + 10 * i))
        }
        folder = write_folder(
            tmp_path / f"v{i}" / "same", {"c": rows}, {"c": ["x", "y"]}, {"c": "sentence"}
        )
        (r,) = evaluate(str(folder), encoders=["majority"], seeds=1, cache=tmp_path / "c")
        seen.append((r["split_sizes"]["test"], r["dataset"]["revision"]))
    assert seen[0][0] == 30 and seen[1][0] == 40 and seen[0][1] != seen[1][1]
