"""LINSPECTOR's downstream models on real treebanks: the tagger's POS accuracy and the
parser's UAS/LAS with CIs, for a random encoder and the bundled MiniLM, on English (the first
1,000 sentences of EWT's dev file, re-split 80/10/10) and German (PUD, 1,000 sentences).
Training is cut short for CI (``SHORT``), yet MiniLM beats random by more than the CIs'
half-widths: the tagger over MiniLM's last layer, the parser over its layer 3 (``minilm#3``;
the last layer is tuned for sentence similarity, and over it the parser does no better than
over random vectors on German, evaluation/README.md). ``correlate`` takes the tagger's
results of three encoders. The st: encoder's word vectors, one forward pass per sentence,
equal the per-item ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe import build_ud
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.downstream.run import DownstreamSpec
from polyprobe.evaluation.encoders import Item, build_encoder

SHORT = {"tagger": {"max_epochs": 4, "patience": 4}, "parser": {"max_epochs": 3, "patience": 3}}
ENCODERS = {"tagger": ["random", "minilm", "minilm#3"], "parser": ["random", "minilm#3"]}
SEEDS = {"tagger": 2, "parser": 1}  # two tagger seeds: a rank-stability comparison
EN_SENTENCES = 1000


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")


def _head(source: Path, n: int, out: Path) -> Path:
    """The first ``n`` sentences of a CoNLL-U file."""
    blocks = source.read_text(encoding="utf-8").strip().split("\n\n")[:n]
    out.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def results(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("downstream-ud")
    ewt = ud_dir / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
    sources = {"en": _head(ewt, EN_SENTENCES, root / "en_ewt-ud-dev.conllu"),
               "de": ud_dir / "UD_German-PUD"}  # fmt: skip
    out: dict = {"root": root}
    for lang, source in sources.items():
        folder = root / lang
        build_ud([source], lang=lang, out=folder, tasks=["pos", "parse", "sentence_length"])
        for model, config in (("tagger", "pos"), ("parser", "parse")):
            rs = evaluate(
                str(folder), config=config, encoders=ENCODERS[model],
                probe=DownstreamSpec(model, SHORT[model]), seeds=SEEDS[model], n_boot=300,
                cache=root / "cache", out=root / "results",
            )  # fmt: skip
            out[(lang, model)] = {r["encoder"]["spec"]: r for r in rs}
        # a probing task for correlate: the tagger's three encoders under the lr probe
        evaluate(str(folder), config="sentence_length", encoders=ENCODERS["tagger"], probe="lr",
                 seeds=1, n_boot=100, cache=root / "cache", out=root / "results")  # fmt: skip
    return out


def _beats(better: dict, worse: dict) -> tuple[bool, float, float]:
    """Whether ``better``'s mean exceeds ``worse``'s by more than the wider CI half-width."""
    for m in (better, worse):
        assert m["ci95"][0] <= m["mean"] <= m["ci95"][1]
    half = max(better["mean"] - better["ci95"][0], worse["ci95"][1] - worse["mean"])
    gap = better["mean"] - worse["mean"]
    return gap > half, gap, half


@pytest.mark.parametrize("lang", ["en", "de"])
def test_tagger_minilm_beats_random_by_more_than_the_cis(results: dict, lang: str) -> None:
    by_encoder = results[(lang, "tagger")]
    rnd = by_encoder["random"]["metrics"]["token_accuracy"]
    for spec in ("minilm", "minilm#3"):
        lm = by_encoder[spec]["metrics"]["token_accuracy"]
        ok, gap, half = _beats(lm, rnd)
        assert ok, (lang, spec, gap, half, rnd, lm)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("metric", ["uas", "las"])
def test_parser_minilm_beats_random_by_more_than_the_cis(
    results: dict, lang: str, metric: str
) -> None:
    by_encoder = results[(lang, "parser")]
    for r in by_encoder.values():
        uas, las = r["metrics"]["uas"], r["metrics"]["las"]
        assert 0 < las["mean"] <= uas["mean"] < 1
    rnd = by_encoder["random"]["metrics"][metric]
    lm = by_encoder["minilm#3"]["metrics"][metric]
    ok, gap, half = _beats(lm, rnd)
    assert ok, (lang, metric, gap, half, rnd, lm)


def test_results_say_what_was_trained(results: dict) -> None:
    r = results[("en", "parser")]["minilm#3"]
    assert r["headline"] == "las" and r["probe"]["params"]["hidden"] == 250  # LINSPECTOR's
    assert r["probe"]["params"]["batch_size"] == 32 and r["encoder"]["layer"] == 3
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
    assert len(rows) == 10  # 2 languages x (3 tagger + 2 parser encoders)


def test_correlate_pairs_the_tagger_with_probing_results(
    results: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three encoders with the tagger's POS accuracy (downstream) and the lr probe's
    sentence_length accuracy (probing): correlate prints a Spearman for the pair in each
    language, and a rank-stability row for the tagger across its two seeds."""
    import json

    from polyprobe.cli import main

    folder = results["root"] / "correlation"
    assert main(["correlate", str(results["root"] / "results"), "--out", str(folder)]) == 0
    printed = capsys.readouterr().out
    corr = json.loads((folder / "correlation.json").read_text(encoding="utf-8"))
    for lang in ("en", "de"):
        (group,) = [g for g in corr["groups"] if g["language"] == lang and g["probe"] == "lr"]
        pos, parse = f"{lang}:pos (tagger)", f"{lang}:parse (parser)"  # dataset:config (model)
        assert {pos, parse} <= set(group["downstream_tasks"]), group["downstream_tasks"]
        (pair,) = [p for p in group["pairs"] if p["downstream"] == pos]
        assert pair["probing"] == f"{lang}:sentence_length" and len(pair["encoders"]) == 3
        assert pair["spearman"] is not None and -1 <= pair["spearman"] <= 1
        assert sorted(group["scores"][pos].values()) == sorted(
            r["metrics"]["token_accuracy"]["mean"] for r in results[(lang, "tagger")].values()
        )
    rows = [e for e in corr["rank_stability"] if e["probe"] == "tagger" and e["axis"] == "seed"]
    assert len(rows) == 2 and all(len(e["encoders"]) == 3 for e in rows), rows
    assert "pos (tagger)" in printed and "## Rank stability" in printed
