"""Downstream sets through evaluation: a scored STS set (built from an STS-B fixture) gets
cosine STS and the SICK-R regression head; a SICK-R fixture builds; the card's pair features
reach the probe; and ``correlate`` runs across probing and downstream results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyprobe import build_pairs, build_regression
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.correlate import correlate
from polyprobe.evaluation.synthetic import toy_sentences, write_folder

VOCAB = ("a", "b", "c", "d")


def bag(texts: list[str]) -> np.ndarray:
    """A bag-of-words encoder over four words: cosines can be worked out by hand."""
    return np.array([[t.split().count(w) for w in VOCAB] for t in texts], dtype=np.float32)


def _sts_b(path: Path, rows: list[tuple[str, str, float]]) -> None:
    head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"
    body = [f"{i}\tmain\tf\t2012\t{i}\tx\ty\t{a}\t{b}\t{s}" for i, (a, b, s) in enumerate(rows)]
    path.write_text(head + "\n" + "\n".join(body) + "\n", encoding="utf-8")


def test_sts_cosine_and_regression_head(tmp_path: Path) -> None:
    """Test pairs ("a b","a b") 5.0, ("a b","a c") 2.5, ("a","c") 0.0: cosines 1, 1/2, 0, so
    Pearson = Spearman = 1 (the cosines are the scores / 5)."""
    rng = np.random.default_rng(0)
    train = []
    for _ in range(60):
        x, y = rng.choice(VOCAB, 3), rng.choice(VOCAB, 3)
        cos = float(bag([" ".join(x)])[0] @ bag([" ".join(y)])[0]) / (
            np.linalg.norm(bag([" ".join(x)])[0]) * np.linalg.norm(bag([" ".join(y)])[0])
        )
        train.append((" ".join(x), " ".join(y) + f" {'d' * 0}".rstrip(), round(5 * cos, 2)))
    files = []
    for split, rows in (
        ("train", train[:45]),
        ("dev", train[45:]),
        ("test", [("a b", "a b", 5.0), ("a b", "a c", 2.5), ("a", "c", 0.0)]),
    ):
        path = tmp_path / f"sts-{split}.tsv"
        _sts_b(path, rows)
        files.append(f"{split}={path}")
    out = build_regression(files, preset="sts-b", lang="en", out=tmp_path / "sts").out
    assert validate(out).ok, str(validate(out))
    block = read_readme(out / "README.md")[0]["polyprobe"]["configs"]["sts-b"]
    assert block["label_type"] == "score" and block["level"] == "sentence-pair"
    (result,) = evaluate(
        str(out), encoders=[bag], seeds=1, out=tmp_path / "res", cache=tmp_path / "c"
    )
    sts = result["metrics"]["sts_cosine"]
    assert sts["pearson"] == pytest.approx(1.0) and sts["spearman"] == pytest.approx(1.0)
    assert sts["n"] == 3
    reg = result["metrics"]["regression"]
    assert reg["selected_on"] == "validation" and reg["spearman"] == pytest.approx(1.0)
    assert result["probe"]["name"] == "sick-r" and result["task_type"] == "downstream"
    assert Path(result["path"]).is_file()


def test_sick_r_fixture_builds_scored(tmp_path: Path) -> None:
    sick = tmp_path / "SICK.txt"
    head = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\tSemEval_set"
    sets = ("TRAIN", "TRIAL", "TEST")
    body = [
        f"{i}\tA dog runs {i}\tA dog walks {i}\t{1 + i % 5}.0\tNEUTRAL\t{sets[i % 3]}"
        for i in range(15)
    ]
    sick.write_text(head + "\n" + "\n".join(body) + "\n", encoding="utf-8")
    out = build_regression([sick], preset="sick-r", lang="en", out=tmp_path / "s").out
    assert validate(out).ok
    import pyarrow.parquet as pq

    test = pq.read_table(out / "data" / "sick-r" / "test-00000-of-00001.parquet").to_pylist()
    assert sorted((r["id"], r["label"]) for r in test)[:2] == [
        ("SICK.txt/test/11", 2.0),
        ("SICK.txt/test/14", 5.0),
    ]


def test_card_pair_features_reach_the_probe(tmp_path: Path) -> None:
    """ArgMin's topic representation [u, t] (2 x 4 dims) instead of SentEval's (4 x 4)."""
    lines = ["topic\thash\tsentence\tannotation\tset"]
    for i in range(24):
        lines.append(
            f"a b\th{i}\t{'c' if i % 2 else 'd'} a x{i}\t{'Argument_for' if i % 2 else 'NoArgument'}\t{('train', 'val', 'test')[i % 3]}"
        )
    path = tmp_path / "argmin.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = build_pairs([path], preset="ukp-argmin", lang="en", out=tmp_path / "am").out
    (result,) = evaluate(str(out), encoders=[bag], seeds=1, cache=tmp_path / "c")
    assert result["metrics"]["accuracy"]["mean"] == 1.0  # c vs d decides the label
    assert (
        read_readme(out / "README.md")[0]["polyprobe"]["configs"]["ukp-argmin"]["pair_features"]
        == "topic"
    )


def test_correlate_across_probing_and_downstream(tmp_path: Path) -> None:
    """Four encoders on a probing set and a downstream set (built by build classification):
    correlate pairs them and reports a coefficient for the pair."""
    probing = write_folder(
        tmp_path / "probing",
        {
            "cue": {
                s: toy_sentences(n, prefix=s[:2])
                for s, n in (("train", 40), ("validation", 20), ("test", 20))
            }
        },
        {"cue": ["no", "yes"]},
        {"cue": "sentence"},
    )
    rows = ["text,label,split"]
    for i in range(60):
        word = ("alpha", "beta")[i % 2]
        rows.append(f"{word} item {i} here,{word},{('train', 'train', 'dev', 'test')[i % 4]}")
    csv = tmp_path / "down.csv"
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    from polyprobe import build_classification

    downstream = build_classification(
        [csv],
        columns={"text": "text", "label": "label", "split": "split"},
        name="topic",
        lang="en",
        out=tmp_path / "down",
    ).out
    encoders = ["random?dim=4", "random?dim=16", "random?dim=64", "char-ngrams"]
    results = evaluate(str(probing), encoders=encoders, seeds=1, cache=tmp_path / "c")
    results += evaluate(str(downstream), encoders=encoders, seeds=1, cache=tmp_path / "c")
    assert {r["task_type"] for r in results} == {"probing", "downstream"}
    corr = correlate(results)
    pairs = [p for g in corr["groups"] for p in g["pairs"]]
    assert pairs and pairs[0]["downstream"].startswith("topic")
    assert pairs[0]["n_encoders"] == 4
