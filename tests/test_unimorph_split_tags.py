"""UniMorph ``eus``'s split argument tags (issue 37 item 2), on a fixture in its style
(``tests/fixtures/unimorph_eus``: real Basque forms, tags spelt as ``eus`` spells them):
person and number decoded into layers, an allocutive gender kept apart from noun gender,
``tag_count`` counting the tags as written, and ``build analogies --unimorph`` reading the
same file through the same reader as ``build unimorph``."""

from __future__ import annotations

from pathlib import Path

import datasets

from polyprobe import build_analogies
from polyprobe.builders.word import SizeParams, single_feature, tag_count
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.unimorph import UniMorphReader, decode
from polyprobe.loaders.unimorph_schema import split_argument, written_tags

FIXTURE = Path(__file__).parent / "fixtures" / "unimorph_eus"


def _entries() -> dict[str, LexEntry]:
    return {e.form: e for e in UniMorphReader([FIXTURE / "eus"])}


def test_split_tags_are_layers() -> None:
    assert split_argument("ARGABS3") == ("ABS", "3")
    assert split_argument("ARGIOSG") == ("DAT", "SG")  # IO: the dative argument
    assert split_argument("ARGERGINFM") == ("ERG", "INFM")
    assert split_argument("ARGNO3S") is None  # fused: its own rule
    entries = _entries()
    naiz = entries["naiz"]  # izan, 1sg present: "I am"
    assert naiz.tag == "V;ARGABS1;ARGABSSG;PRES;IND"
    assert dict(naiz.layers["ABS"]) == {"Person": "First person", "Number": "Singular"}
    assert (naiz.features["Person"], naiz.features["Number"]) == ("First person", "Singular")
    assert naiz.unknown_tags == ()
    # transitive: the subject is the ERG argument, the object the ABS one
    dugu = entries["dugu"]  # ukan: "we have it"
    assert (dugu.features["Person"], dugu.features["Number"]) == ("First person", "Plural")
    assert dugu.features["person_abs"] == "Third person Singular"
    # three arguments: ABS, DAT (written ARGIO) and ERG
    darabilkinate = entries["darabilkinate"]
    assert dict(darabilkinate.layers["DAT"]) == {"Person": "First person", "Number": "Singular"}
    assert darabilkinate.features["person_erg"] == "Third person Plural"
    assert (darabilkinate.features["Person"], darabilkinate.features["Number"]) == (
        "Third person",
        "Plural",
    )
    # the familiar hi present: person 2 singular, informal, in the ABS layer
    haiz = entries["haiz"]
    assert haiz.layers["ABS"]["Politeness"] == "Informal"
    assert haiz.features["Person"] == "Second person"


def test_allocutive_gender_is_not_noun_gender() -> None:
    entries = _entries()
    zakartzak = entries["zakartzak"]
    assert "Gender" not in zakartzak.features  # was Masculine (issue 37)
    assert zakartzak.features["Addressee gender"] == "Masculine"
    assert zakartzak.features["Addressee politeness"] == "Informal"
    assert "Politeness" not in zakartzak.features
    assert entries["darabilkinate"].features["Addressee gender"] == "Feminine"
    # a layered allocutive spelling is read the same way
    layered = decode("V;IND;PRS;ERG(3,SG);ABS(3,PL);ALLOC(MASC)")
    assert "Gender" not in layered.features
    assert layered.features["Addressee gender"] == "Masculine"
    # and a gender on a split argument tag is the familiar addressee's too
    hik = decode("V;ARGABS3;ARGABSSG;ARGERG2;ARGERGSG;ARGERGINFM;ARGERGMASC;PRES;IND")
    assert "Gender" not in hik.features and hik.features["Addressee gender"] == "Masculine"
    # the gender task sees no Basque verb
    gender = single_feature(
        list(entries.values()), "gender", sizes=SizeParams(min_forms=1), min_label_forms=1
    )
    assert gender.report.counts.get("carrying_forms", 0) == 0


def test_tag_count_counts_tags_as_written() -> None:
    entries = _entries()
    assert written_tags(entries["darabilkinate"].tag) == 11
    assert written_tags("V;PRS;NOM(3,SG)") == 5  # a layer's name is a tag written
    result = tag_count(
        list(entries.values()), sizes=SizeParams(min_forms=len(entries)), min_label_forms=1
    )
    labels = {c.word: c.label for c in result.candidates}
    assert labels["darabilkinate"] == "11"  # was 3 (POS, Mood, Tense)
    assert labels["zakartzak"] == "9"
    assert labels["naiz"] == "5"


def test_person_and_number_tasks_are_fed() -> None:
    entries = list(_entries().values())
    person = single_feature(entries, "person", sizes=SizeParams(min_forms=2), min_label_forms=1)
    # every verb form of the fixture has a subject person (was: "infeasible")
    assert person.report.counts["carrying_forms"] == len(entries)
    number = single_feature(entries, "number", sizes=SizeParams(min_forms=2), min_label_forms=1)
    assert number.report.counts["carrying_forms"] == len(entries)


def test_build_analogies_reads_the_split_tag_lexicon(tmp_path: Path) -> None:
    r = build_analogies(unimorph=[FIXTURE], lang="eu", out=tmp_path / "eu")
    rows = datasets.load_dataset(str(r.out), "unimorph-analogies-eu")["test"]
    assert len(rows) > 0  # was "no records could be read from the inputs"
    ids = set(rows["id"])
    # a category contrasting present and past of the same subject
    assert any("V;ARGABS1;ARGABSSG;PRES;IND->V;ARGABS1;ARGABSSG;PAST;IND" in i for i in ids)
    words = {w for name in ("word1", "word2", "word3", "word4") for w in rows[name]}
    assert "naiz" in words or "nintzen" in words
