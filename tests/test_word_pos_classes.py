"""Participles and converbs are their own parts of speech in the word ``pos`` task (issue 14,
point 5), as LINSPECTOR's labels have them; the feature tasks still see them as verb forms.
Hand-checked in SIGMORPHON 2018 russian-dev: ``насылавший`` (насылать, V.PTCP;ACT;PST) is a
Participle; ``клубившись`` (клубиться, V.CVB;PST) a Converb; ``реветь``'s ``ревя`` (V.CVB;PRS)
a Converb."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.builders.word.single import SizeParams, pos_label, pos_task
from polyprobe.loaders import unimorph_schema as schema
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.unimorph import read_unimorph


@pytest.fixture(scope="module")
def russian(data_dir: Path) -> list[LexEntry]:
    files = sorted((data_dir / "unimorph" / "sigmorphon2018").glob("russian-*"))
    return list(read_unimorph(files, lang="rus"))


def test_named_forms(russian: list[LexEntry]) -> None:
    by_form = {e.form: e for e in russian}
    assert pos_label(by_form["насылавший"]) == "Participle"
    assert pos_label(by_form["клубившись"]) == "Converb"
    assert pos_label(by_form["ревя"]) == "Converb"
    # the loader still reads them as verb forms: one verb paradigm for the feature tasks
    assert by_form["насылавший"].features[schema.POS] == "Verb"
    assert by_form["насылавший"].features[schema.VERB_FORM] == "Participle"


def test_pos_task_publishes_participle_and_converb_classes(russian: list[LexEntry]) -> None:
    result = pos_task(russian, sizes=SizeParams(scale=True))
    labels = set(result.report.label_counts)
    assert {"Participle", "Converb", "Verb", "Noun"} <= labels, labels
    by_word = {c.word: c.label for c in result.candidates}
    for word, label in (("насылавший", "Participle"), ("клубившись", "Converb")):
        if word in by_word:
            assert by_word[word] == label
