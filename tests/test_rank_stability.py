"""Rank stability in ``polyprobe correlate``: results made by the real ``evaluate`` (four cheap
encoders, two seeds) on a small built treebank with two train sizes and two balances; the
printed tables, and one Kendall τ recomputed by hand from the scores in the result files."""

from __future__ import annotations

import argparse
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from polyprobe import build_ud
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.cli_reports import add_correlate_parser
from polyprobe.evaluation.rank_stability import compare

ENCODERS = ["majority", "random", "char-ngrams?dim=64", "borep?dim=64"]
CONFIGS = [
    "subject_number.natural-full",
    "subject_number.natural-100",
    "subject_number.ratio1to5-full",
    "pos.balanced-full",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("rank")
    build_ud(
        [data_dir / "ud" / "UD_English-PUD"],
        lang="en",
        tasks="subject_number,pos",
        balances="natural,balanced,1:5",
        sizes="100",
        min_per_class=5,
        out=root / "pud",
    )
    results = evaluate(
        root / "pud",
        config=CONFIGS,
        encoders=ENCODERS,
        seeds=2,
        out=root / "res",
        cache=root / "cache",
        n_boot=100,
    )
    parser = argparse.ArgumentParser()
    add_correlate_parser(parser.add_subparsers())
    args = parser.parse_args(["correlate", str(root / "res"), "--out", str(root / "corr")])
    return {"root": root, "results": results, "args": args}


def _tau_b(a: list[float], b: list[float]) -> float:
    """Kendall's τ-b by counting pairs (no scipy)."""
    conc = disc = ties_a = ties_b = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da == 0 and db == 0:
            continue
        if da == 0:
            ties_a += 1
        elif db == 0:
            ties_b += 1
        elif da * db > 0:
            conc += 1
        else:
            disc += 1
    return (conc - disc) / math.sqrt((conc + disc + ties_a) * (conc + disc + ties_b))


def test_correlate_prints_both_tables(run: dict[str, Any], capsys: pytest.CaptureFixture[str]):
    assert run["args"].func(run["args"]) == 0
    out = capsys.readouterr().out
    assert "| probing \\ downstream | pos.balanced-full |" in out
    assert "## Rank stability (Kendall's τ between encoder rankings)" in out
    assert "| pud | subject_number | lr | size | natural |" in out
    assert "| pud | subject_number | lr | balance | full |" in out
    assert "| pud | subject_number | lr | seed | subject_number.natural-100 |" in out


def test_one_tau_by_hand(run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    run["args"].func(run["args"])
    capsys.readouterr()
    corr = json.loads((run["root"] / "corr" / "correlation.json").read_text(encoding="utf-8"))
    entries = {(e["task"], e["axis"], e["fixed"]): e for e in corr["rank_stability"]}
    size = entries[("subject_number", "size", "natural")]
    assert size["conditions"] == ["100", "full"]
    assert len(size["encoders"]) == 4
    # the scores, read from the result files evaluate wrote, not from the entry
    by = {(r["config"], r["encoder"]["id"]): r["metrics"]["accuracy"] for r in run["results"]}
    encoders = size["encoders"]
    small = [by[("subject_number.natural-100", e)]["mean"] for e in encoders]
    full = [by[("subject_number.natural-full", e)]["mean"] for e in encoders]
    assert size["pairs"][0]["tau"] == pytest.approx(_tau_b(small, full))
    assert size["mean_tau"] == pytest.approx(_tau_b(small, full))
    balance = entries[("subject_number", "balance", "full")]
    assert balance["conditions"] == ["natural", "ratio1to5"]
    # seeds: per-seed scores stored in the results; majority is fitted once and counts the
    # same under both seeds
    seed = entries[("subject_number", "seed", "subject_number.natural-full")]
    assert seed["conditions"] == ["0", "1"]
    assert "majority" in seed["encoders"] and len(seed["encoders"]) == 4
    per_seed = {e: by[("subject_number.natural-full", e)]["per_seed"] for e in encoders}
    s0 = [per_seed[e][0] for e in seed["encoders"]]
    s1 = [per_seed[e][-1] for e in seed["encoders"]]
    tau = seed["pairs"][0]["tau"]
    assert tau == pytest.approx(_tau_b(s0, s1))
    ranking = seed["rankings"]["0"]
    assert sorted(ranking) == sorted(seed["encoders"])
    assert [per_seed[e][0] for e in ranking] == sorted(s0, reverse=True)


def test_compare_hand_counts() -> None:
    # A > B > C > D under one condition; B and A swap under the other: 5 of 6 pairs agree,
    # τ = (5 - 1) / 6
    out = compare(
        {
            "a": {"A": 0.9, "B": 0.8, "C": 0.7, "D": 0.6},
            "b": {"A": 0.8, "B": 0.9, "C": 0.7, "D": 0.6},
        }
    )
    assert out["pairs"][0]["tau"] == pytest.approx(4 / 6)
    assert out["rankings"]["b"] == ["B", "A", "C", "D"]
    too_few = compare({"a": {"A": 1.0, "B": 0.5}, "b": {"A": 0.5, "B": 1.0}})
    assert too_few["mean_tau"] is None
    assert too_few["reason"] == "2 shared encoder(s); at least 3 needed"
