"""What ``polyprobe report`` (and ``correlate``) say about what they are given (issue 36): a
JSON of another schema is named for what it is, in one line, exit 2, and nothing is written
— it said "no results JSON found" (or "not a polyprobe results file"), leaving the user to
guess that the dataset folder, or the report's own folder, was given for the results folder.

Real inputs where there are any: FinnSim built as a similarity set (its ``report.json`` is a
build report) and its lexical result from ``evaluate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_eval_correlate import make_result

from polyprobe.cli import main

FINNSIM = "word_similarity/finsemevl/FinnSim/FinnSim_judgment_scores.csv"
WHAT_A_RESULT_IS = (
    "a result (written by `polyprobe evaluate --out`) has schema_version and metrics, or "
    "lexical_schema_version and scores"
)
FROM_EVALUATE = "results come from `polyprobe evaluate DATASET --out RESULTS`: give RESULTS"
MADE_FROM = "give the results folder it was made from"


@pytest.fixture(scope="module")
def finnsim(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inputs")
    folder, results = root / "fi-sim", root / "results"
    build = ["build", "similarity", str(data_dir / FINNSIM), "--lang", "fi", "--quiet"]
    assert main([*build, "--out", str(folder)]) == 0
    evaluate = ["evaluate", str(folder), "--encoder", "char-ngrams?dim=64", "--no-progress"]
    assert main([*evaluate, "--out", str(results), "--cache", str(root / "cache")]) == 0
    return {"folder": folder, "results": results, "root": root}


def _report(capsys: pytest.CaptureFixture, *args: str | Path, out: Path) -> tuple[int, str, str]:
    code = main(["report", *map(str, args), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(capsys: pytest.CaptureFixture, given: Path, tmp_path: Path) -> str:
    """The one line ``report`` prints for ``given``; exit 2 and nothing written."""
    out = tmp_path / "report"
    code, stdout, err = _report(capsys, given, out=out)
    assert code == 2 and stdout == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()
    return err.rstrip("\n")


def test_a_dataset_folder_and_its_build_report(
    finnsim: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    capsys.readouterr()
    folder = finnsim["folder"]
    assert _refused(capsys, folder / "report.json", tmp_path) == (
        f"polyprobe: error: {folder / 'report.json'}: not a results JSON: it is a dataset "
        f"folder's build report (what each config counted); {FROM_EVALUATE}"
    )
    assert _refused(capsys, folder, tmp_path) == (
        f"polyprobe: error: {folder}: no results JSON found: it is a dataset folder "
        f"(README.md, report.json); {FROM_EVALUATE}"
    )


def test_a_report_given_for_its_results(
    finnsim: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The lexical result, named on its own, is a report's input (it was refused as "not a
    polyprobe results file"); the report written from it is not."""
    capsys.readouterr()
    (lexical,) = finnsim["results"].rglob("lexical.json")
    first = tmp_path / "first"
    code, out, err = _report(capsys, lexical, out=first)
    assert code == 0, err
    assert out.strip() == f"wrote {first / 'report.md'} and {first / 'lexical-report.json'}"
    given = first / "lexical-report.json"
    assert _refused(capsys, given, tmp_path) == (
        f"polyprobe: error: {given}: not a results JSON: it is the lexical-report.json "
        f"`polyprobe report` writes; {MADE_FROM}"
    )
    assert _refused(capsys, first, tmp_path) == (
        f"polyprobe: error: {first}: no results JSON found: lexical-report.json is the "
        f"lexical-report.json `polyprobe report` writes; {MADE_FROM}"
    )
    # a probing report's own report.json
    probing = tmp_path / "probing"
    probing.mkdir()
    result = make_result(task="tense", config="tense", encoder="random", accuracy=0.7)
    (probing / "lr.json").write_text(json.dumps(result), encoding="utf-8")
    code, _, err = _report(capsys, probing, out=tmp_path / "second")
    assert code == 0, err
    given = tmp_path / "second" / "report.json"
    assert _refused(capsys, given, tmp_path) == (
        f"polyprobe: error: {given}: not a results JSON: it is the report.json "
        f"`polyprobe report` writes; {MADE_FROM}"
    )


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ('{"name": "x", "rows": [], "columns": 3, "owner": "y", "extra": 1}',
         "a JSON object with other keys (name, rows, columns, owner, … (5 keys))"),
        ("{}", "an empty object"),
        ('{"schema_version": 1, "config": "tense"}',
         "a JSON object with schema_version 1 but no metrics"),
        ('{"metrics": {"accuracy": {"mean": 0.5}}}',
         "a JSON object with metrics but no schema_version"),
        ("[1, 2, 3]", "a JSON array of 3 item(s), not an object"),
        ('"results"', "a JSON string, not an object"),
        ("null", "a JSON null, not an object"),
    ],
)  # fmt: skip
def test_other_json_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture, content: str, what: str
) -> None:
    given = tmp_path / "results.json"
    given.write_text(content, encoding="utf-8")
    assert _refused(capsys, given, tmp_path) == (
        f"polyprobe: error: {given}: not a results JSON: it is {what}; {WHAT_A_RESULT_IS}"
    )
    folder = tmp_path / "folder"
    (folder / "deeper").mkdir(parents=True)
    (folder / "deeper" / "a.json").write_text(content, encoding="utf-8")
    (folder / "z.json").write_text("[]", encoding="utf-8")
    assert _refused(capsys, folder, tmp_path) == (
        f"polyprobe: error: {folder}: no results JSON found: deeper/a.json is {what} (and 1 "
        f"other file(s) are not results either); {WHAT_A_RESULT_IS}"
    )


def test_empty_folder_bad_json_and_a_missing_path(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _refused(capsys, empty, tmp_path) == (
        f"polyprobe: error: {empty}: no results JSON found: the folder holds no .json file; "
        f"{WHAT_A_RESULT_IS}"
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 1,', encoding="utf-8")
    assert _refused(capsys, broken, tmp_path).startswith(
        f"polyprobe: error: {broken}: not valid JSON: "
    )
    missing = tmp_path / "nowhere"
    assert _refused(capsys, missing, tmp_path) == (
        f"polyprobe: error: {missing}: no such file or directory"
    )


def test_correlate_names_other_json_the_same_way(
    finnsim: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    capsys.readouterr()
    folder = finnsim["folder"]
    assert main(["correlate", str(folder / "report.json")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"polyprobe: error: {folder / 'report.json'}: not a results JSON: it is a dataset "
        f"folder's build report (what each config counted); {FROM_EVALUATE}\n"
    )
    assert main(["correlate", str(finnsim["results"])]) == 2
    assert capsys.readouterr().err == (
        "polyprobe: error: only lexical results (1): correlate pairs probing with downstream "
        "results; `polyprobe report` tabulates lexical ones\n"
    )
