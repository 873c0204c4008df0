"""``export --format linspector`` writes LINSPECTOR's ``<Task>/<language>/{train,dev,test}.txt``
with its task names and label conventions (issue 35, item 2), on the README's German word
build (SIGMORPHON 2018 German, UD German-GSD frequencies, Wuggy's German pseudowords).

LINSPECTOR's own files (``intrinsic/data/CharacterBin/german/dev.txt``) write a bin index,
``pochte 2``, ``bell 1``, ``Kapitalverkehrskontrolle 6``: 1 for 1-4 characters up to 6 for
more than 20; polyprobe's labels are the ranges.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe import build_unimorph
from polyprobe.builders.word.common import CHARACTER_BINS, character_bin
from polyprobe.cards import schema
from polyprobe.cards.export import export, read_linspector
from polyprobe.cards.exports import linspector_names
from polyprobe.cards.exports.linspector_names import language_folder, linspector_label
from polyprobe.cards.folder import split_file
from polyprobe.cli import main

FILES = {"train": "train.txt", "validation": "dev.txt", "test": "test.txt"}


@pytest.fixture(scope="module")
def de_words(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("li") / "de-words"
    return build_unimorph(
        [data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"],
        lang="de",
        scale=True,
        frequencies=[data_dir / "ud" / "UD_German-GSD"],
        wuggy_output=data_dir / "wuggy" / "outputs" / "ort_german",
        out=out,
    ).out


@pytest.fixture(scope="module")
def exported(de_words: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("li-out") / "li"
    assert main(["export", str(de_words), "--format", "linspector", "--out", str(out)]) == 0
    return out


def _expected(folder: Path, config: str, inputs: list[str]) -> dict[str, list[tuple[str, ...]]]:
    out = {}
    for split, name in FILES.items():
        t = pq.read_table(folder / split_file(config, split))
        names = schema.features_from_schema(t.schema)["label"]["names"]
        cols = [t.column(c).to_pylist() for c in inputs]
        labels = [names[i] for i in t.column("label").to_pylist()]
        out[name] = [(*ws, lab) for *ws, lab in zip(*cols, labels, strict=True)]
    return out


def test_linspector_layout_and_task_names(de_words: Path, exported: Path) -> None:
    for task in ("Case", "Mood", "Number", "Person", "Tense", "POS", "TagCount",
                 "CharacterBin", "Pseudo", "SameFeat", "OddFeat"):  # fmt: skip
        assert sorted(p.name for p in (exported / task / "german").iterdir()) == [
            "dev.txt", "test.txt", "train.txt",
        ], task  # fmt: skip
    assert (exported / "Case" / "german" / "train.txt").stat().st_size > 0
    # variants beside the recommended config, never in its folder
    assert (exported / "Case-natural-full" / "german" / "train.txt").exists()
    # Case: polyprobe's label names, one word per line
    assert {n: read_linspector(exported / "Case" / "german" / n) for n in FILES.values()} == (
        _expected(de_words, "case", ["word"])
    )
    # SameFeat: two words and the feature they share
    same = _expected(de_words, "same_feature", ["word1", "word2"])
    assert read_linspector(exported / "SameFeat" / "german" / "dev.txt") == same["dev.txt"]


def test_character_bin_is_written_as_linspector_bin_indices(de_words: Path, exported: Path) -> None:
    assert linspector_names.CHARACTER_BINS == CHARACTER_BINS  # the labels the build publishes
    rows = read_linspector(exported / "CharacterBin" / "german" / "train.txt")
    assert rows and {lab for _, lab in rows} <= {"1", "2", "3", "4", "5", "6"}
    for word, lab in rows:
        assert lab == linspector_label("character_bin", character_bin(word))
    # LINSPECTOR's own German examples: pochte 2, bell 1, Kapitalverkehrskontrolle 6
    assert [linspector_label("character_bin", character_bin(w)) for w in
            ("pochte", "bell", "Kapitalverkehrskontrolle")] == ["2", "1", "6"]  # fmt: skip
    assert ("titrieren", "3") in rows  # 9 letters: the 9-12 bin
    # Pseudo keeps LINSPECTOR's 1 = real word, 0 = pseudoword
    pseudo = dict(read_linspector(exported / "Pseudo" / "german" / "train.txt"))
    assert set(pseudo.values()) == {"0", "1"}
    assert pseudo.get("Beispiel") == "1"


def test_language_folders() -> None:
    assert language_folder(["de"]) == "german"
    assert language_folder(["el"]) == "modern-greek"  # ISO's "Modern Greek (1453-)"
    assert language_folder(["sh"]) == "serbo-croatian"


def test_sentence_configs_are_skipped_by_name(de_words: Path, tmp_path: Path) -> None:
    result = export(de_words, "linspector", tmp_path / "li")
    assert not result["skipped"]  # every config of a word build is word-level
    assert result["written"]["case"]["path"] == "Case/german"
    assert result["written"]["character_bin.natural-full"]["path"] == (
        "CharacterBin-natural-full/german"
    )
