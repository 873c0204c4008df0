"""LINSPECTOR's downstream models on real treebanks: the tagger's POS accuracy and the
parser's UAS/LAS with CIs, for a random encoder and the bundled MiniLM, on English (EWT's dev
file, 2,001 sentences, re-split 80/10/10) and German (PUD). Training is cut short for CI
(``max_epochs`` below): enough for the tagger on MiniLM to beat the random baseline by more
than the CIs' half-widths, not for the parser, which is checked for its numbers only. The st: encoder's word vectors,
now one forward pass per sentence, equal the per-item ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe import build_ud
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.downstream.run import DownstreamSpec
from polyprobe.evaluation.encoders import Item, build_encoder

SHORT = {"tagger": {"max_epochs": 4, "patience": 4}, "parser": {"max_epochs": 3, "patience": 3}}


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")


@pytest.fixture(scope="module")
def results(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("downstream-ud")
    sources = {
        "en": ud_dir / "UD_English-EWT" / "en_ewt-ud-dev.conllu",
        "de": ud_dir / "UD_German-PUD",
    }
    out: dict = {"root": root}
    for lang, source in sources.items():
        folder = root / lang
        build_ud([source], lang=lang, out=folder, tasks=["pos", "parse"])
        for model, config in (("tagger", "pos"), ("parser", "parse")):
            rs = evaluate(
                str(folder), config=config, encoders=["random", "minilm"],
                probe=DownstreamSpec(model, SHORT[model]), seeds=1, n_boot=300,
                cache=root / "cache", out=root / "results",
            )  # fmt: skip
            out[(lang, model)] = {r["encoder"]["spec"]: r for r in rs}
    return out


@pytest.mark.parametrize("lang", ["en", "de"])
def test_tagger_minilm_beats_random_by_more_than_the_cis(results: dict, lang: str) -> None:
    by_encoder = results[(lang, "tagger")]
    rnd = by_encoder["random"]["metrics"]["token_accuracy"]
    lm = by_encoder["minilm"]["metrics"]["token_accuracy"]
    for m in (rnd, lm):
        assert m["ci95"][0] <= m["mean"] <= m["ci95"][1]
    half = max(lm["mean"] - lm["ci95"][0], rnd["ci95"][1] - rnd["mean"])
    assert lm["mean"] - rnd["mean"] > half, (lang, rnd, lm)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_parser_reports_uas_and_las_with_cis(results: dict, lang: str) -> None:
    # Three epochs separate nothing yet (the parser's LAS still rises at epoch 10 on PUD):
    # what CI checks is the numbers, not the ranking (the note gives the longer runs).
    for r in results[(lang, "parser")].values():
        uas, las = r["metrics"]["uas"], r["metrics"]["las"]
        assert 0 < las["mean"] <= uas["mean"] < 1
        assert uas["ci95"][0] <= uas["mean"] <= uas["ci95"][1]
        assert las["ci95"][0] <= las["mean"] <= las["ci95"][1]


def test_results_say_what_was_trained(results: dict) -> None:
    r = results[("en", "parser")]["minilm"]
    assert r["headline"] == "las" and r["probe"]["params"]["hidden"] == 250  # LINSPECTOR's
    assert r["training"][0]["epochs"] <= 3 and r["scored_tokens"]["test"] > 1000
    t = results[("de", "tagger")]["minilm"]
    assert t["headline"] == "token_accuracy" and t["probe"]["params"]["layers"] == 1


def test_st_word_vectors_equal_the_per_item_path() -> None:
    enc = build_encoder("minilm")
    enc.resolve()
    tokens = ("The", "zebras", "sleep", "near", "the", "river", ".")
    items = [Item(" ".join(tokens), tokens, j) for j in range(len(tokens))]
    together = enc.encode(items)[None]
    one_by_one = np.stack([enc.encode([it])[None][0] for it in items])
    np.testing.assert_allclose(together, one_by_one, rtol=1e-4, atol=1e-5)


def test_report_tabulates_the_models(results: dict) -> None:
    import json

    from polyprobe.cli import main

    rep = results["root"] / "report"
    assert main(["report", str(results["root"] / "results"), "--out", str(rep)]) == 0
    md = (rep / "report.md").read_text(encoding="utf-8")
    assert "## Downstream models (LINSPECTOR's tagger and parser)" in md
    rows = json.loads((rep / "downstream-report.json").read_text(encoding="utf-8"))["rows"]
    assert {(r["config"], r["model"]) for r in rows} == {("pos", "tagger"), ("parse", "parser")}
    assert len(rows) == 8  # 2 languages x 2 models x 2 encoders
