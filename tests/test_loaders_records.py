"""The record types every loader yields: LexEntry (moved beside Sentence), Document, Example.

Why: a task declares which record kind it reads, so these types are the contract between
loaders and builders; their validation is what stops a malformed record at the loader."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from polyprobe.loaders import records, unimorph
from polyprobe.loaders.records import Document, Example, LexEntry, SourceFile
from polyprobe.loaders.unimorph import read_unimorph

SRC = SourceFile("trec", "/data/trec/train_5500.label", "train")


def test_lex_entry_is_one_type_importable_from_both_modules() -> None:
    assert unimorph.LexEntry is records.LexEntry
    assert LexEntry._fields == (
        "lemma",
        "form",
        "tag",
        "features",
        "layers",
        "pos",
        "unknown_tags",
        "source",
        "line",
    )
    assert issubclass(LexEntry, tuple)  # still a NamedTuple (speed)


def test_first_german_sigmorphon_entry(data_dir: Path) -> None:
    path = data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"
    first = next(read_unimorph(path))
    assert isinstance(first, LexEntry)
    # Line 1 of the file: "Trichlorid<TAB>Trichlorid<TAB>N;ACC;SG".
    assert (first.lemma, first.form, first.tag, first.line) == (
        "Trichlorid",
        "Trichlorid",
        "N;ACC;SG",
        1,
    )
    assert dict(first.features) == {"POS": "Noun", "Case": "Accusative", "Number": "Singular"}
    assert first.pos == "N" and first.unknown_tags == () and first.source == str(path)


def test_document_keeps_units_and_sections_in_order() -> None:
    doc = Document(
        "enwiki/12",
        ("First para.", "Second para.", "Third."),
        "paragraph",
        (None, "History", "History"),
        SourceFile("enwiki", "/x.xml.bz2", None),
        40,
    )
    assert doc.units[1] == "Second para." and doc.sections[1] == "History"
    assert Document("d", ("a", "b"), "sentence", (), doc.source, 1).sections == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.unit = "sentence"  # type: ignore[misc]
    assert not hasattr(doc, "__dict__")  # slots


@pytest.mark.parametrize(
    ("units", "unit", "sections", "problem"),
    [
        (("a", "b"), "chapter", (), "unit must be one of"),
        (("a", "b"), "sentence", ("S1",), "1 section titles for 2 units"),
    ],
)
def test_document_validation(
    units: tuple[str, ...], unit: str, sections: tuple[str | None, ...], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        Document("d", units, unit, sections, SRC, 1)


def test_example_with_label_or_score() -> None:
    ex = Example("train/12", ("What is it ?",), "text", "DESC:def", None, SRC, 12)
    assert ex.label == "DESC:def" and ex.score is None
    pair = Example("simlex/3", ("old", "new"), "word", None, 1.58, SRC, 3)
    assert pair.inputs == ("old", "new") and pair.score == 1.58
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.label = "x"  # type: ignore[misc]
    assert not hasattr(ex, "__dict__")


@pytest.mark.parametrize(
    ("inputs", "kind", "label", "score", "problem"),
    [
        ((), "text", "A", None, "1 or 2 inputs"),
        (("a", "b", "c"), "text", "A", None, "1 or 2 inputs"),
        (("a",), "sentence", "A", None, "kind must be one of"),
        (("a",), "text", None, None, "a label or a score"),
    ],
)
def test_example_validation(
    inputs: tuple[str, ...], kind: str, label: str | None, score: float | None, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        Example("x/1", inputs, kind, label, score, SRC, 1)
