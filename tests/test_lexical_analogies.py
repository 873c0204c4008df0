"""Imported word analogies: the vecto CSV (Google's set), FinSemEvl's four-word lines with
the category from the file name, Google's ``: category`` text format; hand-checked questions,
semantic/morphological per category, bad input, builds that validate and load."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest
import yaml

from polyprobe import build_analogies
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.analogies import AnalogySource, detect_layout, read_google
from polyprobe.loaders.source import InvalidPolicy

GOOGLE_CSV = (
    "word_similarity/vecto_word_benchmarks/word-analogy/monolingual/en/google-analogies.csv"
)


def test_google_csv_question_and_categories(data_dir: Path) -> None:
    path = data_dir / GOOGLE_CSV
    assert detect_layout(path) == "vecto"
    s = AnalogySource((path,)).read(InvalidPolicy())
    assert s.name == "google-analogies" and len(s.questions) == 19544
    # line 2: "0,capital-common-countries,Athens,Greece,Baghdad,Iraq"
    q = s.questions[0]
    assert (q.words, q.category, q.line) == (
        ("Athens", "Greece", "Baghdad", "Iraq"),
        "capital-common-countries",
        2,
    )
    assert len(s.categories) == 14
    assert [c for c in s.categories if s.semantic[c]] == [
        "capital-common-countries",
        "capital-world",
        "currency",
        "city-in-state",
        "family",
    ]
    # Mikolov et al.: 8,869 semantic and 10,675 syntactic questions
    assert sum(1 for q in s.questions if s.semantic[q.category]) == 8869


def test_finnish_four_word_lines(data_dir: Path) -> None:
    files = sorted((data_dir / "word_similarity/finsemevl/analogy").glob("ANA_*.txt"))
    s = AnalogySource(tuple(files)).read(InvalidPolicy())
    assert s.name == "finsemevl-analogies" and len(s.questions) == 1037
    # ANA_capital-country.txt line 1: "bangkok thaimaa tallinna viro"
    q = next(q for q in s.questions if q.category == "capital-country")
    assert (q.words, q.line) == (("bangkok", "thaimaa", "tallinna", "viro"), 1)
    assert all(s.semantic.values())  # FinSemEvl's relations are all semantic


def test_google_text_format_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "questions-words.txt"
    path.write_text(
        ": capital-common-countries\nAthens Greece Baghdad Iraq\n"
        ": gram8-plural\nbanana bananas bird birds\nbad line\n",
        encoding="utf-8",
    )
    assert detect_layout(path) == "google"
    with pytest.raises(InputError, match=r"questions-words.txt:5: expected 4 words, found 2"):
        read_google(path, InvalidPolicy())
    s = AnalogySource((path,)).read(InvalidPolicy("skip"))
    assert [q.category for q in s.questions] == ["capital-common-countries", "gram8-plural"]
    assert s.semantic == {"capital-common-countries": True, "gram8-plural": False}
    orphan = tmp_path / "orphan.txt"
    orphan.write_text(": \na b c d\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"orphan.txt:1: a ':' line without a category"):
        read_google(orphan, InvalidPolicy())


def test_builds_validate_and_load(data_dir: Path, tmp_path: Path, hf_offline: None) -> None:
    files = sorted((data_dir / "word_similarity/finsemevl/analogy").glob("ANA_*.txt"))
    r = build_analogies(files, lang="fi", out=tmp_path / "fi")
    assert validate(r.out).ok
    assert r.tasks[0].task == "finsemevl-analogies" and len(r.tasks) == 8
    ds = datasets.load_dataset(str(r.out), "finsemevl-analogies-capital-country")["test"]
    assert len(ds) == 380
    row = next(x for x in ds if x["id"] == "finsemevl-analogies/ANA_capital-country/1")
    assert (row["word1"], row["word2"], row["word3"], row["word4"]) == (
        "bangkok",
        "thaimaa",
        "tallinna",
        "viro",
    )
    assert ds.features["label"].int2str(row["label"]) == "capital-country"
    front = yaml.safe_load((r.out / "README.md").read_text().split("---")[1])
    profile = front["polyprobe"]["profile"]["tasks"]["finsemevl-analogies"]
    assert profile["categories"]["capital-country"] == {"is_semantic": True, "questions": 380}
    g = build_analogies([data_dir / GOOGLE_CSV], lang="en", out=tmp_path / "en")
    assert validate(g.out).ok
    assert [t.rows["test"] for t in g.tasks][:2] == [19544, 506]
