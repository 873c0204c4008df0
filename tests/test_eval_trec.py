"""TREC loader and builder: hand-checked lines on the real files, encoding detection, error
reporting, the leakage decision, and a folder that ``datasets`` loads offline."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe import build_trec
from polyprobe.builders.downstream.trec import DROP_TEST_COPY, TrecCoarse, TrecFine, TrecTask
from polyprobe.builders.task import Candidate, Fit, Shared, TaskContext
from polyprobe.cards.schema import features_from_schema
from polyprobe.cli import main
from polyprobe.errors import InputError
from polyprobe.loaders.records import Example
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.trec import TrecSource, detect_encoding, find_trec_files, read_trec_file


@pytest.fixture(scope="module")
def trec_dir(data_dir: Path) -> Path:
    return data_dir / "trec"


@pytest.fixture(scope="module")
def trec_files(trec_dir: Path) -> dict:
    paths = find_trec_files(trec_dir)
    return {s: read_trec_file(p) for s, p in paths.items()}


@pytest.fixture(scope="module")
def folder(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_trec(trec_dir, out=tmp_path_factory.mktemp("trec") / "trec", seed=0).out


@pytest.fixture(scope="module")
def trec_records(trec_dir: Path) -> list[Example]:
    return list(TrecSource(trec_dir).records(InvalidPolicy("raise")))


def run_task(
    cls: type[TrecTask], records: list[Example]
) -> tuple[TrecTask, Fit, dict[str, list[Candidate]]]:
    """One TREC task through the build's two passes: observe every question, fit, then the
    candidates of each question (one ``Shared`` per question and pass, as the build does)."""
    task = cls(None, TaskContext(lang="en"))
    obs = task.observation()
    for ex in records:
        obs.observe(ex, Shared(ex))
    fit = task.fit(obs)
    out: dict[str, list[Candidate]] = {"train": [], "test": []}
    for ex in records:
        out[ex.source.split or ""] += task.candidates(ex, fit, Shared(ex))
    return task, fit, out


# --------------------------------------------------------------------------- loader


def test_counts_and_encodings(trec_files: dict) -> None:
    train, test = trec_files["train"], trec_files["test"]
    assert len(train.questions) == 5452
    assert len(test.questions) == 500
    assert train.encoding == "iso-8859-1"
    assert "line 66" in train.encoding_note
    assert test.encoding == "ascii" and test.encoding_note == ""
    assert train.non_ascii_lines == [66]
    assert len({q.fine_label for q in train.questions}) == 50
    assert {q.coarse for q in train.questions} == {"ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"}


def test_hand_checked_lines(trec_files: dict) -> None:
    train = trec_files["train"].questions
    first = train[0]
    assert (first.coarse, first.fine, first.line) == ("DESC", "manner", 1)
    assert first.text == "How did serfdom develop in and then leave Russia ?"
    # line 66 holds the only non-ASCII byte (0xF0), decoded as ISO-8859-1 'ð'.
    q66 = train[65]
    assert q66.line == 66
    assert (q66.coarse, q66.fine_label) == ("LOC", "LOC:city")
    assert (
        q66.text
        == "Which city has the oldest relationship as a sister\u00f0city with Los Angeles ?"
    )
    assert q66.tokens[-3:] == ("Los", "Angeles", "?")
    test = trec_files["test"].questions
    assert (test[0].fine_label, test[0].text) == (
        "NUM:dist",
        "How far is it from Denver to Aspen ?",
    )


def test_detect_encoding() -> None:
    assert detect_encoding(b"NUM:dist How far ?\n")[0] == "ascii"
    assert detect_encoding("LOC:city Zürich ?\n".encode())[0] == "utf-8"
    assert detect_encoding("LOC:city Zürich ?\n".encode("latin-1"))[0] == "iso-8859-1"
    # 0x93/0x94 are curly quotes in cp1252 but C1 controls in ISO-8859-1.
    assert detect_encoding(b"DESC:def What is \x93love\x94 ?\n")[0] == "cp1252"
    # 0x81 is undefined in cp1252: ISO-8859-1 decodes anything.
    assert detect_encoding(b"DESC:def What \x81 ?\n")[0] == "iso-8859-1"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("DESC:def", "no-question"),
        ("DESC:def    ", "no-question"),
        ("DESCdef What ?", "bad-label"),
        ("FOO:bar What ?", "unknown-coarse-label"),
        ("", "blank-line"),
    ],
)
def test_malformed_lines(tmp_path: Path, line: str, reason: str) -> None:
    f = tmp_path / "bad.label"
    f.write_text(f"NUM:dist How far ?\n{line}\nHUM:ind Who ?\n", encoding="ascii")
    with pytest.raises(InputError) as info:
        read_trec_file(f)
    assert (info.value.path, info.value.line, info.value.reason) == (str(f), 2, reason)
    assert f"{f}:2:" in str(info.value)
    skipped = read_trec_file(f, on_invalid="skip")
    assert skipped.skipped == Counter({reason: 1})
    assert [q.line for q in skipped.questions] == [1, 3]


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="train_<N>.label"):
        find_trec_files(tmp_path)


# --------------------------------------------------------------------------- builder


def test_duplicates_and_leakage(trec_records: list[Example]) -> None:
    task, fit, rows = run_task(TrecFine, trec_records)
    d = fit.report
    assert d["train_duplicate_copies"] == 72
    assert d["train_duplicated_questions"] == 64
    assert d["test_questions_also_in_train"] == 10
    assert d["train_rows_dropped_as_test_copies"] == 10
    assert task.drops == Counter({DROP_TEST_COPY: 10})
    assert DROP_TEST_COPY == "train copy of a test question"
    assert len(rows["train"]) == 5442 and len(rows["test"]) == 500
    train_groups = {r.group for r in rows["train"]}
    assert not train_groups & {r.group for r in rows["test"]}
    conflict = "Duplicate question with conflicting"
    assert [n for n in fit.notes if conflict in n] == [
        f"{conflict} fine labels: 'What is the chromosome number of an elephant ?'."
    ]
    assert any("Leakage" in n for n in fit.notes)
    coarse_task, coarse_fit, coarse_rows = run_task(TrecCoarse, trec_records)
    assert not [n for n in coarse_fit.notes if conflict in n]
    assert coarse_fit.report == fit.report and coarse_task.drops == task.drops
    assert [r.group for r in coarse_rows["train"]] == [r.group for r in rows["train"]]


def test_tables(folder: Path, trec_dir: Path, tmp_path: Path) -> None:
    path = folder / "data" / "fine" / "train-00000-of-00001.parquet"
    table = pq.read_table(path)
    assert table.column_names == ["id", "sentence", "tokens", "label", "group", "lexical_key"]
    rows = {r["id"]: r for r in table.to_pylist()}
    names = features_from_schema(table.schema)["label"]["names"]
    assert len(names) == 50 and names == sorted(names)
    r66 = rows["trec/train/66"]
    assert names[r66["label"]] == "LOC:city"
    assert r66["group"] == "trec/train/66" and r66["lexical_key"] == ""
    # copies share the group of the first occurrence
    copies = [r for r in rows.values() if r["group"] != r["id"]]
    assert len(copies) == 72
    assert all(int(r["group"].rsplit("/", 1)[1]) < int(r["id"].rsplit("/", 1)[1]) for r in copies)
    # seeded order: another seed permutes rows, same content
    other_folder = build_trec(trec_dir, out=tmp_path / "seed1", seed=1).out
    other = pq.read_table(other_folder / "data" / "fine" / "train-00000-of-00001.parquet")
    assert other.column("id").to_pylist() != table.column("id").to_pylist()
    assert sorted(other.column("id").to_pylist()) == sorted(rows)


def test_folder_loads_offline(folder: Path) -> None:
    code = f"""
import datasets
for cfg, n in (("coarse", 6), ("fine", 50)):
    ds = datasets.load_dataset({str(folder)!r}, cfg)
    assert sorted(ds) == ["test", "train"], sorted(ds)
    names = ds["train"].features["label"].names
    assert len(names) == n, names
    assert ds["test"].features["label"].names == names
    assert ds["train"].num_rows == 5442 and ds["test"].num_rows == 500
    if cfg == "coarse":
        assert names == ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"], names
        row = next(r for r in ds["train"] if r["id"] == "trec/train/66")
        assert names[row["label"]] == "LOC"
ds = datasets.load_dataset({str(folder)!r})
assert ds["train"].features["label"].names[0] == "ABBR"
print("ok")
"""
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env["HF_HOME"] = str(folder.parent / "hf-home")
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")


def test_folder_card_and_determinism(folder: Path, trec_dir: Path, tmp_path: Path) -> None:
    from polyprobe.cards.validate import validate

    checked = validate(folder)
    assert checked.ok, checked.problems
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "Li & Roth" in card or "Li and Roth" in card or "li-roth-2002" in card
    assert "task_type: downstream" in card
    assert "| task: train copy of a test question | 10 |" in card  # the shared drops wording
    assert "Leakage in the source: 10 of the 500 test questions" in card  # the fit's notes
    assert "## Release" in card
    meta = pq.read_schema(folder / "data" / "coarse" / "train-00000-of-00001.parquet").metadata
    assert b"huggingface" in meta
    again = build_trec(trec_dir, out=tmp_path / "again", seed=0).out
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            assert (again / f.relative_to(folder)).read_bytes() == f.read_bytes(), f
    with pytest.raises(Exception, match="exist"):
        build_trec(trec_dir, out=tmp_path / "again", seed=0)


def test_cli_build_trec(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert main(["build", "trec", str(trec_dir), "--out", str(out), "--seed", "3", "--quiet"]) == 0
    assert (out / "README.md").is_file()
    missing = ["build", "trec", str(tmp_path / "nowhere"), "--out", str(tmp_path / "u"), "--quiet"]
    assert main(missing) == 2
    assert not (tmp_path / "u").exists()
