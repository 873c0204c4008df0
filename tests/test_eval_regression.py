"""Every kind of config goes through ``polyprobe evaluate`` and ``polyprobe report`` (issue 35):
a regression set (``build regression``, STS-B layout: scored sentence pairs) is reported with
its test Spearman and Pearson — ``report`` used to refuse the results folder ``evaluate`` had
just written ("missing metrics.accuracy.mean") — and one command over a UD probing build
(sentence and word-in-context tasks), UniMorph (word level), TREC (a downstream classifier),
an NLI-style pair set, the regression set, FinnSim (word similarity), Google analogies and
COSTRA (sentence transformations and orderings) writes a result for each config and one
report holding all of them.

The sentence pairs are made at test time from the first sentences of the English EWT dev
file (real text; nothing is copied into the repository): a sentence with itself scores 5, with
its first k of n words 5k/n, with another sentence 0, so an encoder that sees word overlap
(``char-ngrams``) ranks them well and a test can say by how much."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from polyprobe.cli import main

ENCODER = "char-ngrams?dim=256"
GOOGLE = "word_similarity/vecto_word_benchmarks/word-analogy/monolingual/en/google-analogies.csv"
STS_HEAD = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"


def _ewt_sentences(data_dir: Path, n: int) -> list[str]:
    text = (data_dir / "ud" / "UD_English-EWT" / "en_ewt-ud-dev.conllu").read_text("utf-8")
    found = [m.group(1).strip() for m in re.finditer(r"^# text = (.+)$", text, re.M)]
    return [s for s in found if len(s.split()) >= 6 and "\t" not in s][:n]


def _scored_pairs(sentences: list[str]) -> list[tuple[str, str, float]]:
    pairs = []
    for i, s in enumerate(sentences):
        words = s.split()
        kind = i % 3
        if kind == 0:
            pairs.append((s, s, 5.0))
        elif kind == 1:
            k = max(1, len(words) * (i % 5 + 1) // 6)
            pairs.append((s, " ".join(words[:k]), round(5.0 * k / len(words), 2)))
        else:
            pairs.append((s, sentences[(i * 7 + 3) % len(sentences)], 0.0))
    return pairs


def _sts_file(path: Path, pairs: list[tuple[str, str, float]]) -> Path:
    body = [
        f"{i}\tmain\tewt\t2026\t{i}\tewt\tewt\t{a}\t{b}\t{s}" for i, (a, b, s) in enumerate(pairs)
    ]
    path.write_text(STS_HEAD + "\n" + "\n".join(body) + "\n", encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def built(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One folder per kind of config (small builds from the shared data)."""
    root = tmp_path_factory.mktemp("kinds")
    sentences = _ewt_sentences(data_dir, 240)
    pairs = _scored_pairs(sentences)
    files = [
        f"{split}={_sts_file(root / f'sts-{split}.tsv', part)}"
        for split, part in (("train", pairs[:150]), ("dev", pairs[150:190]), ("test", pairs[190:]))
    ]
    nli = root / "nli.jsonl"
    rows = []
    for i, s in enumerate(sentences):
        other = sentences[(i + 1) % len(sentences)]
        gold = "-" if i % 9 == 4 else ("entailment", "neutral")[i % 2]
        rows.append({"sentence1": s, "sentence2": s if i % 2 == 0 else other, "gold_label": gold})
    nli.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    (root / "costra-src").mkdir()
    lines = (data_dir / "costra" / "data.tsv").read_text(encoding="utf-8").splitlines()
    keep = [ln for ln in lines if ln.split("\t")[1] in ("1", "2", "3")]  # three seeds' sentences
    (root / "costra-src" / "data.tsv").write_text("\n".join(keep) + "\n", encoding="utf-8")
    finnsim = data_dir / "word_similarity" / "finsemevl" / "FinnSim" / "FinnSim_judgment_scores.csv"
    builds = {
        "sts": ["regression", *files, "--preset", "sts-b", "--lang", "en"],
        "ud": ["ud", str(data_dir / "ud" / "UD_Georgian-GLC"), "--lang", "ka",
               "--tasks", "sentence_length,contextual_number", "--sizes", "150"],
        "um": ["unimorph", str(data_dir / "unimorph" / "sigmorphon2018" / "english-dev"),
               "--lang", "en"],
        "an": ["analogies", str(data_dir / GOOGLE), "--lang", "en",
               "--tasks", "google-analogies-family"],
        "trec": ["trec", str(data_dir / "trec"), "--lang", "en", "--sizes", "500"],
        "nli": ["pairs", str(nli), "--preset", "nli", "--lang", "en"],  # '-' rows: dropped
        "sim": ["similarity", str(finnsim), "--lang", "fi"],
        "costra": ["costra", str(root / "costra-src")],
    }  # fmt: skip
    out = {}
    for name, args in builds.items():
        out[name] = root / name
        assert main(["build", *args, "--out", str(out[name]), "--quiet"]) == 0, name
    out["root"] = root
    return out


def test_regression_evaluates_and_reports_spearman_and_pearson(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    results = tmp_path / "results"
    code, out, err = _run(capsys, [
        "evaluate", str(built["sts"]), "--encoder", ENCODER, "--seeds", "1",
        "--out", str(results), "--cache", str(tmp_path / "cache"), "--no-progress",
    ])  # fmt: skip
    assert code == 0, err
    assert re.search(r"^dataset\s+config\s+encoder\s+probe\s+spearman\s+pearson", out, re.M)
    (path,) = results.rglob("*.json")
    assert path.name == "sick-r.json"  # train + validation: SentEval's regression head
    result = json.loads(path.read_text(encoding="utf-8"))
    spearman = result["metrics"]["spearman"]["mean"]
    pearson = result["metrics"]["pearson"]["mean"]
    assert spearman > 0.5 and pearson > 0.5  # word overlap decides the scores
    assert result["split_sizes"] == {"train": 150, "validation": 40, "test": 50}

    code, out, err = _run(capsys, ["report", str(results), "--out", str(tmp_path / "rep")])
    assert code == 0, err
    assert out.strip() == f"wrote {tmp_path / 'rep' / 'report.md'} and " + str(
        tmp_path / "rep" / "scored-report.json"
    )
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "## Scored sentence pairs (STS, SICK-R)" in md
    row = next(line for line in md.splitlines() if line.startswith("| sts |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:5] == ["sts", "regression", "sts-b", result["encoder"]["id"], "sick-r"]
    assert cells[5:7] == [f"{spearman:.3f}", f"{pearson:.3f}"]
    assert cells[-1] == "50"
    data = json.loads((tmp_path / "rep" / "scored-report.json").read_text(encoding="utf-8"))
    assert data["kind"] == "polyprobe-scored-report"
    assert [(r["config"], r["spearman"], r["pearson"]) for r in data["rows"]] == [
        ("sts-b", spearman, pearson)
    ]


def test_a_test_only_regression_set_is_scored_by_cosine(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """No train split: no regression head, the cosine's correlations are the result."""
    test = built["root"] / "sts-test.tsv"
    folder = tmp_path / "sts-test-only"
    assert main(["build", "regression", f"test={test}", "--preset", "sts-b", "--lang", "en",
                 "--out", str(folder), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    results = tmp_path / "results"
    code, _, err = _run(capsys, [
        "evaluate", str(folder), "--encoder", ENCODER, "--out", str(results),
        "--cache", str(tmp_path / "cache"), "--no-progress",
    ])  # fmt: skip
    assert code == 0, err
    (path,) = results.rglob("*.json")
    result = json.loads(path.read_text(encoding="utf-8"))
    assert path.name == "cosine.json" and "regression" not in result["metrics"]
    assert result["metrics"]["spearman"]["mean"] == result["metrics"]["sts_cosine"]["spearman"]
    code, _, err = _run(capsys, ["report", str(path), "--out", str(tmp_path / "rep")])
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| sts-test-only |"))
    assert "| cosine |" in row and "| – | 50 |" in row  # no MSE without the head


def _configs(folder: Path) -> list[str]:
    from polyprobe.cards.card import read_readme

    return [c["config_name"] for c in read_readme(folder / "README.md")[0]["configs"]]


def test_every_kind_of_config_through_evaluate_and_report(
    built: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    names = ("ud", "um", "trec", "nli", "sts", "sim", "an", "costra")
    results = tmp_path / "results"
    code, out, err = _run(capsys, [
        "evaluate", *(str(built[n]) for n in names), "--all", "--encoder", ENCODER,
        "--seeds", "1", "--out", str(results), "--cache", str(tmp_path / "cache"),
        "--no-progress",
    ])  # fmt: skip
    assert code == 0, err
    assert "Traceback" not in err
    expected = {(n, c) for n in names for c in _configs(built[n])}
    written: set[tuple[str, str]] = set()
    for path in results.rglob("*.json"):
        rel = path.relative_to(results).parts
        written.add((rel[0], rel[1]))
    assert written == expected  # one result per config of every dataset
    nli_card = (built["nli"] / "README.md").read_text(encoding="utf-8")
    assert "no-gold-label" in nli_card  # the '-' rows the preset dropped, counted

    code, out, err = _run(capsys, ["report", str(results), "--out", str(tmp_path / "rep")])
    assert code == 0, err
    rep = tmp_path / "rep"
    md = (rep / "report.md").read_text(encoding="utf-8")
    for section in (
        "## accuracy: tasks × encoders",
        "## Scored sentence pairs (STS, SICK-R)",
        "## Word similarity",
        "## Word analogies",
        "## COSTRA: transformations",
        "## COSTRA: orderings",
    ):
        assert md.count(section) == 1, section
    probing: dict[str, Any] = json.loads((rep / "report.json").read_text(encoding="utf-8"))
    datasets = {d["dataset"] for d in probing["details"]}
    assert datasets == {"ud", "um", "trec", "nli"}  # classifiers: accuracy and selectivity
    levels = {d["task"].split(".")[0] for d in probing["details"] if d["dataset"] == "ud"}
    assert levels == {"sentence_length", "contextual_number"}  # sentence, word in context
    scored = json.loads((rep / "scored-report.json").read_text(encoding="utf-8"))
    assert [r["dataset"] for r in scored["rows"]] == ["sts"]
    lexical = json.loads((rep / "lexical-report.json").read_text(encoding="utf-8"))
    assert {r["dataset"]["name"] for r in lexical} == {"sim", "an", "costra"}
