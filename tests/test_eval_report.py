"""``polyprobe report``: tables with the expected rows and cells, selectivity or n/a with a
reason, a heatmap and per-layer curves only for encoders with several layers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from test_eval_correlate import make_result

from polyprobe.errors import InputError
from polyprobe.evaluation.cli_reports import add_report_parser
from polyprobe.evaluation.report import collect, format_score, report

PNG = b"\x89PNG\r\n\x1a\n"


def results() -> list[dict]:
    out = []
    control = {
        "key": "root_lemma",
        "accuracy": {"mean": 0.55, "std": 0.01, "ci95": [0.5, 0.6]},
        "selectivity": 0.25,
    }
    for layer in range(4):
        out.append(
            make_result(
                task="bigram_shift",
                config="bigram_shift",
                encoder="hf:minilm:mean#all",
                layer=layer,
                accuracy=0.6 + 0.05 * layer,
                control=control,
            )
        )
    out.append(
        make_result(task="bigram_shift", config="bigram_shift", encoder="random", accuracy=0.5)
    )
    out.append(
        make_result(task="subject_number", config="subject_number", encoder="random", accuracy=0.7)
    )
    out.append(
        make_result(
            task="trec-coarse",
            config="coarse",
            encoder="random",
            accuracy=0.4,
            task_type="downstream",
            dataset="trec",
            control={"status": "not applicable", "reason": "downstream task"},
        )
    )
    return out


def test_report_files_and_rows(tmp_path: Path) -> None:
    paths = report(results(), tmp_path / "rep")
    md = paths["markdown"].read_text(encoding="utf-8")
    table = [line for line in md.splitlines() if line.startswith("| ")]
    header = table[0]
    assert header == (
        "| dataset | family | task | majority | hf:minilm:mean#0 | hf:minilm:mean#1 | "
        "hf:minilm:mean#2 | "
        "hf:minilm:mean#3 | random |"
    )
    rows = [line.split(" | ")[:3] for line in table[1:4]]  # grouped by dataset
    assert rows == [
        ["| trec", "–", "trec-coarse"],
        ["| ud-en", "–", "bigram_shift"],
        ["| ud-en", "–", "subject_number"],
    ]
    assert "| bigram_shift | 0.500 | 0.600 ± 0.010 [0.580, 0.620] |" in md
    assert "| subject_number | 0.500 | – | – | – | – | 0.700 ± 0.010 [0.680, 0.720] |" in md
    # selectivity where recorded, n/a with the reason otherwise
    assert "| bigram_shift | lr | hf:minilm:mean#2 |" in md
    assert "| 0.550 | 0.250 |" in md
    # one line per distinct n/a reason under the table, rows point to it
    assert "| random | 0.500 ± 0.010 [0.480, 0.520] |" in md
    assert "| 0.500 | – | n/a [1] |" in md and "| 0.500 | – | n/a [2] |" in md
    assert "- [1] downstream task (1 result)" in md  # numbered in the order of the rows
    assert "- [2] lexically disjoint splits (2 results)" in md
    assert md.count("lexically disjoint splits") == 1

    assert paths["heatmap"].read_bytes()[:8] == PNG
    assert [p.name for p in paths["layer_curves"]] == ["layers-bigram_shift.png"]
    assert paths["layer_curves"][0].read_bytes()[:8] == PNG
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["rows"] == ["trec-coarse", "bigram_shift", "subject_number"]
    assert list(data["layer_curves"]["bigram_shift"]) == ["hf:minilm:mean"]
    assert list(data["layer_curves"]["bigram_shift"]["hf:minilm:mean"]) == ["0", "1", "2", "3"]

    again = report(results(), tmp_path / "rep2")
    for key in ("markdown", "heatmap"):
        assert again[key].read_bytes() == paths[key].read_bytes()


def test_no_layers_no_curves(tmp_path: Path) -> None:
    only_random = [r for r in results() if r["encoder"]["id"] == "random"]
    paths = report(only_random, tmp_path)
    assert paths["layer_curves"] == []
    assert "none (no encoder was evaluated at several layers)" in paths["markdown"].read_text()


def test_probes_get_separate_rows() -> None:
    rs = results()
    rs.append(
        make_result(
            task="bigram_shift", config="bigram_shift", encoder="random", accuracy=0.52, probe="mlp"
        )
    )
    data = collect(rs)
    assert "bigram_shift [lr]" in data["rows"] and "bigram_shift [mlp]" in data["rows"]


def test_format_score_and_errors(tmp_path: Path) -> None:
    assert format_score({"mean": 0.5, "std": None, "ci95": None}) == "0.500"
    assert format_score(None) == "–"
    with pytest.raises(InputError):
        report([], tmp_path)
    broken = results()[0]
    del broken["metrics"]["accuracy"]
    with pytest.raises(InputError, match="metrics.accuracy"):
        report([broken], tmp_path)


def test_cli_report(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_report_parser(parser.add_subparsers())
    for i, r in enumerate(results()):
        (tmp_path / f"r{i}.json").write_text(json.dumps(r), encoding="utf-8")
    args = parser.parse_args(["report", str(tmp_path), "--out", str(tmp_path / "out")])
    assert args.func(args) == 0
    assert (tmp_path / "out" / "report.md").is_file()
    assert (tmp_path / "out" / "heatmap.png").is_file()
    args = parser.parse_args(["report", str(tmp_path / "out"), "--out", str(tmp_path / "o2")])
    assert args.func(args) == 2  # report.json in there is not a results file: none found
