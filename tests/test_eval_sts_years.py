"""SentEval's STS ``all`` (senteval/sts.py): per year, the mean and the pair-weighted mean of
its subsets' Pearson and Spearman, in ``report`` beside the per-subset rows. Built from
SentEval's own STS layout (two subsets of STS14, one with an unscored pair), evaluated with a
real encoder, and checked against the means computed here from the per-subset rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from polyprobe import build_senteval
from polyprobe.cli import main
from polyprobe.evaluation.scored_report import sts_years

FIXTURES = Path(__file__).parent / "fixtures" / "senteval" / "sts"
FORUM = [
    ("The cat sat on the mat", "A cat is sitting on a mat", "4.2"),
    ("He plays the guitar", "A man is playing a guitar", "3.8"),
    ("The stock market fell", "Bananas are yellow", "0.2"),
    ("Rain is expected tomorrow", "It will probably rain tomorrow", "4.6"),
    ("She reads a book", "A dog runs in the park", "0.4"),
    ("The train was late", "The train arrived late", "4.4"),
    ("Birds fly south in winter", "Birds migrate in the cold season", "3.9"),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sts-years")
    year = root / "STS14-en-test"
    shutil.copytree(FIXTURES / "STS14-en-test", year)
    (year / "STS.input.deft-forum.txt").write_text(
        "".join(f"{a}\t{b}\n" for a, b, _ in FORUM), encoding="utf-8"
    )
    (year / "STS.gs.deft-forum.txt").write_text(
        "".join(f"{g}\n" for _, _, g in FORUM), encoding="utf-8"
    )
    built = root / "sts"
    build_senteval([year], lang="en", out=built)
    out = root / "results"
    code = main([
        "evaluate", str(built), "--all", "--encoder", "char-ngrams?dim=64", "--seeds", "1",
        "--out", str(out), "--cache", str(root / "cache"), "--no-progress",
    ])  # fmt: skip
    assert code == 0
    code = main(["report", str(out), "--out", str(root / "rep")])
    assert code == 0
    return root / "rep"


def test_report_gives_the_year_mean_and_weighted_mean(results: Path) -> None:
    data = json.loads((results / "scored-report.json").read_text(encoding="utf-8"))
    rows = {r["config"]: r for r in data["rows"]}
    assert set(rows) == {"sts14-headlines", "sts14-deft-forum"}
    assert rows["sts14-headlines"]["n_test"] == 5 and rows["sts14-deft-forum"]["n_test"] == 7
    (year,) = data["sts_years"]
    assert (year["year"], year["subsets"], year["pairs"]) == ("sts14", 2, 12)
    for metric in ("pearson", "spearman"):
        h, f = rows["sts14-headlines"][metric], rows["sts14-deft-forum"][metric]
        assert year[f"{metric}_mean"] == pytest.approx((h + f) / 2)
        assert year[f"{metric}_wmean"] == pytest.approx((5 * h + 7 * f) / 12)
        assert year[f"{metric}_mean"] != pytest.approx(year[f"{metric}_wmean"])
    md = (results / "report.md").read_text(encoding="utf-8")
    assert "### SentEval STS years" in md
    line = next(ln for ln in md.splitlines() if ln.startswith("| sts | sts14 |"))
    assert f"| {year['pearson_wmean']:.3f} |" in line and "| 2 | 12 |" in line


def test_a_subset_without_numbers_is_left_out_and_counted() -> None:
    def row(config: str, pearson: float | None, n: int | None) -> dict:
        return {"dataset": "d", "config": config, "encoder": "e", "model_name": None,
                "probe": "cosine", "pearson": pearson, "spearman": pearson, "n_test": n}  # fmt: skip

    (year,) = sts_years([row("sts12-a", 0.5, 10), row("sts12-b", None, 4), row("sts12-c", 0.2, 30)])
    assert (year["subsets"], year["subsets_found"], year["pairs"]) == (2, 3, 40)
    assert year["pearson_wmean"] == pytest.approx((0.5 * 10 + 0.2 * 30) / 40)
    assert sts_years([row("sick-r", 0.5, 10)]) == []  # not an STS year
