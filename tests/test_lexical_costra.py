"""COSTRA from data.tsv: a hand-checked transformation with its string similarity, the
comparisons equal to the ``costra`` package's, the licence from the README, a build that
validates and loads, bad input named by file and line."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import datasets
import Levenshtein
import pytest

from polyprobe import build_costra
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.costra import (
    CostraSource,
    comparisons,
    read_costra,
    readme_license,
    string_similarity,
)
from polyprobe.loaders.source import InvalidPolicy

SEED_1 = "V bulváru píšou dobrý příběhy a dost podrobně."
FORMAL_6 = "Bulvární tisk vydává kvalitní příběhy založené na detailech."


def costra_package() -> types.ModuleType:
    """The ``costra`` package's evaluator module. Version 1.1 imports ``pkg_resources`` only
    for its bundled data's path, and setuptools >= 81 no longer ships it: a stand-in is put
    in its place (the tests pass the data path explicitly)."""
    if "pkg_resources" not in sys.modules:
        try:
            import pkg_resources  # noqa: F401
        except ImportError:
            stand_in = types.ModuleType("pkg_resources")
            stand_in.resource_filename = lambda *a: ""  # type: ignore[attr-defined]
            sys.modules["pkg_resources"] = stand_in
    from costra import costra

    return costra


def test_transformation_row_and_string_similarity(data_dir: Path) -> None:
    """data.tsv line 7: ``6  1  formal sentence  Bulvární tisk vydává ...`` whose seed
    (number 1) is line 69 ``68  1  seed  V bulváru píšou dobrý příběhy a dost podrobně.``"""
    src = CostraSource(data_dir / "costra")
    rows = {e.id: e for e in src.records(InvalidPolicy()) if e.kind == "text"}
    row = rows["1/6"]
    assert row.inputs == (SEED_1, FORMAL_6) and row.label == "formal sentence" and row.line == 7
    # the Levenshtein ratio of python-Levenshtein
    assert row.score == pytest.approx(Levenshtein.ratio(SEED_1, FORMAL_6))
    assert string_similarity("abc", "abd") == pytest.approx(2 / 3)
    assert len(rows) == 6968 - 126  # every sentence but the 126 seeds
    assert readme_license(data_dir / "costra") == "CC-BY-4.0"


def test_comparisons_equal_the_costra_package(data_dir: Path) -> None:
    costra = costra_package()
    evaluator = costra.CostraEvaluator(str(data_dir / "costra" / "data.tsv"))
    basic, advanced, _ = evaluator._collect_comparisons()
    ours = comparisons(read_costra(data_dir / "costra" / "data.tsv", InvalidPolicy()))
    theirs = {f"basic:{k}": v for k, v in basic.items() if v}
    theirs |= {f"annotated:{k}": v for k, v in advanced.items() if v}
    assert set(ours) == set(theirs)
    for key, items in theirs.items():
        assert ours[key] == [((int(a), int(b)), (int(c), int(d))) for (a, b), (c, d) in items]


def test_bad_lines_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "data.tsv"
    bad.write_text("0\t1\tseed\tA.\tA .\t\t\t\t\nx\t1\tpast\tB.\tB .\t\t\t\t\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"data.tsv:2: expected a numeric id"):
        read_costra(bad, InvalidPolicy())
    bad.write_text("0\t1\tseed\tA.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"data.tsv:1: expected 5 or 9 tab-separated fields"):
        read_costra(bad, InvalidPolicy())


def test_build_validates_and_loads(data_dir: Path, tmp_path: Path, hf_offline: None) -> None:
    r = build_costra(data_dir / "costra", out=tmp_path / "costra")
    assert validate(r.out).ok
    names = [t.task for t in r.tasks]
    assert names[0] == "transformations" and names[-1] == "comparisons"
    assert "transformations-opposite_meaning" in names and len(names) == 15
    ds = datasets.load_dataset(str(r.out), "transformations-formal_sentence")["test"]
    assert len(ds) == 783 and ds.features["string_similarity"] == datasets.Value("float32")
    row = next(x for x in ds if x["id"] == "transformations/1/6")
    assert (row["sentence1"], row["sentence2"]) == (SEED_1, FORMAL_6)
    assert row["group"] == "transformations/seed-1"
    assert ds.features["label"].int2str(row["label"]) == "formal sentence"
    cmp = datasets.load_dataset(str(r.out), "comparisons")["test"]
    assert len(cmp) == 106643
