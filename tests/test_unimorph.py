"""UniMorph loader: layouts, layered tags, multi-file lexicons, errors - on the shared lexicons."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.unimorph import (
    LEMMA_FEATS_FORM,
    LEMMA_FORM_FEATS,
    UniMorphReader,
    decode,
    detect_layout,
    expand_paths,
    read_unimorph,
)


@pytest.fixture(scope="module")
def um(data_dir: Path) -> Path:
    return data_dir / "unimorph"


def _find(entries: Iterator, form: str, tag: str | None = None):
    for e in entries:
        if e.form == form and (tag is None or e.tag == tag):
            return e
    raise AssertionError(f"{form} not found")


@pytest.mark.parametrize(
    ("path", "layout"),
    [
        ("lexicons/eng", LEMMA_FORM_FEATS),  # UniMorph 2/3 lexicon, first line blank
        ("lexicons/slv", LEMMA_FORM_FEATS),
        ("sigmorphon2018/german-train-high", LEMMA_FORM_FEATS),
        ("sigmorphon2018/turkish-dev", LEMMA_FORM_FEATS),
        ("sigmorphon2023/deu.trn", LEMMA_FEATS_FORM),  # layered UniMorph 4, 2023 column order
        ("sigmorphon2023/kat.dev", LEMMA_FEATS_FORM),
        ("sigmorphon2023/tur.tst", LEMMA_FEATS_FORM),
    ],
)
def test_layout_detected_for_each_shared_layout(um: Path, path: str, layout: str) -> None:
    assert detect_layout(um / path) == layout


def test_blank_first_line_is_skipped_and_counted(um: Path) -> None:
    reader = UniMorphReader(um / "lexicons" / "slv")
    entries = list(reader)
    assert reader.stats.blank_lines == 1
    assert len(entries) == 60110
    first = entries[0]
    assert (first.lemma, first.form, first.tag, first.line) == ("abak", "ábaka", "N;ACC;DU", 2)
    assert dict(first.features) == {"POS": "Noun", "Case": "Accusative", "Number": "Dual"}


def test_german_form_has_its_case(um: Path) -> None:
    e = _find(read_unimorph(um / "sigmorphon2018" / "german-train-high"), "Hahnes")
    assert e.lemma == "Hahn" and e.tag == "N;GEN;SG"
    assert e.features["Case"] == "Genitive"
    assert e.features["Number"] == "Singular"
    assert e.pos == "N" and e.line == 2


@pytest.mark.parametrize(
    ("form", "tag", "case"),
    [
        # Finnish local cases, hand-checked endings: -lle allative, -lta ablative (external,
        # "at" series), -ssa inessive, -lla adessive, -an illative.
        ("sonaatille", "N;AT+ALL;SG", "Allative+At"),
        ("ammattikunnalta", "N;AT+ABL;SG", "Ablative+At"),
        ("näytteenotossa", "N;IN+ESS;SG", "Essive+In"),
        ("karjalalla", "N;AT+ESS;SG", "At+Essive"),
        ("nagaikkaan", "N;IN+ALL;SG", "Allative+In"),
    ],
)
def test_finnish_compound_cases_are_named_as_linspector_publishes(
    um: Path, form: str, tag: str, case: str
) -> None:
    # LINSPECTOR's Finnish/Hungarian Case files name the parts in alphabetical order
    # (``ihastukselle Allative+At``, ``kellarissa Essive+In``), not UniMorph's AT+ALL order.
    e = _find(read_unimorph(um / "sigmorphon2018" / "finnish-dev", lang="fi"), form)
    assert e.tag == tag
    assert e.features["Case"] == case


def test_turkish_form_has_its_possession(um: Path) -> None:
    e = _find(
        read_unimorph(um / "sigmorphon2018" / "turkish-train-high", lang="tr"), "heyetlerinin"
    )
    assert e.tag == "N;GEN;PL;PSS3P"
    assert e.features["Possession"] == "Possession by 3.pl"
    assert e.features["Case"] == "Genitive"
    assert e.features["Number"] == "Plural"


def test_turkish_intr_is_interrogative_only_for_turkish(um: Path) -> None:
    e = _find(
        read_unimorph(um / "sigmorphon2018" / "turkish-train-high", lang="tur"),
        "yontuyor muydunuz?",
    )
    assert e.features["Interrogativity"] == "Interrogative"
    assert decode("V;INTR").features.get("Valency") == "Intransitive"


def test_layered_unimorph4_tags_from_sigmorphon2023(um: Path) -> None:
    entries = list(
        read_unimorph([um / "sigmorphon2023" / "tur.trn", um / "sigmorphon2023" / "spa.trn"])
    )
    # Nominal: own case, own number, possessor layer.
    e = _find(iter(entries), "albümlerimizden")
    assert e.tag == "N;ABL(PL;PSS(1,PL))" and e.lemma == "albüm"
    assert dict(e.features) == {
        "POS": "Noun",
        "Case": "Ablative",
        "Number": "Plural",
        "Possession": "Possession by 1.pl",
    }
    assert dict(e.layers["PSS"]) == {"Person": "First person", "Number": "Plural"}
    # Verb: subject layer feeds person/number, the dative layer is its own dimension.
    v = _find(iter(entries), "abocínale")
    assert v.tag == "V;IMP;DAT(3,SG);NOM(INFM,2,SG)"
    assert v.features["Person"] == "Second person"
    assert v.features["Number"] == "Singular"
    assert v.features["Politeness"] == "Informal"
    assert v.features["Mood"] == "Imperative-Jussive"
    assert v.features["person_dat"] == "Third person Singular"
    assert "Case" not in v.features  # DAT/NOM here are argument layers, not the verb's case
    assert dict(v.layers["NOM"]) == {
        "Politeness": "Informal",
        "Person": "Second person",
        "Number": "Singular",
    }


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        (
            "V;PRS;NOM(3,SG)",
            {"POS": "Verb", "Tense": "Present", "Person": "Third person", "Number": "Singular"},
        ),
        (
            "V;IMP;DAT(3,PL);NOM(INFM,2,SG)",
            {
                "POS": "Verb",
                "Mood": "Imperative-Jussive",
                "person_dat": "Third person Plural",
                "Politeness": "Informal",
                "Person": "Second person",
                "Number": "Singular",
            },
        ),
        (
            "N;ABL(PL;PSS(2,PL))",
            {
                "POS": "Noun",
                "Case": "Ablative",
                "Number": "Plural",
                "Possession": "Possession by 2.pl",
            },
        ),
        ("N;AT+ABL(SG)", {"POS": "Noun", "Case": "Ablative+At", "Number": "Singular"}),
        ("V;V.PTCP;PST", {"POS": "Verb", "VerbForm": "Participle", "Tense": "Past"}),
        (
            "V;PST;NOM(SG,NEUT)",
            {"POS": "Verb", "Tense": "Past", "Number": "Singular", "Gender": "Neuter"},
        ),
    ],
)
def test_decode_examples(tag: str, expected: dict[str, str]) -> None:
    assert dict(decode(tag).features) == expected


def test_own_number_beats_subject_number() -> None:
    # Turkish predicative noun: the noun is plural, its subject first person singular.
    a = decode("N;PL;PRS;NOM(1,SG)")
    assert a.features["Number"] == "Plural"
    assert dict(a.layers["NOM"]) == {"Person": "First person", "Number": "Singular"}
    flat = decode("N;LGSPEC1;1P;SG;PRS")
    assert flat.features["Number"] == "Singular" and flat.layers["NOM"]["Number"] == "Plural"
    assert flat.unknown_tags == ("LGSPEC1",)


def test_lgspec_and_unknown_tags_are_kept_and_counted(um: Path) -> None:
    reader = UniMorphReader(um / "sigmorphon2018" / "georgian-dev")
    entries = list(reader)
    assert reader.stats.unknown_tags["LGSPEC2"] == 252
    assert any("LGSPEC1" in e.unknown_tags for e in entries)
    assert decode("N;FOO;SG").unknown_tags == ("FOO",)


def test_reader_streams(um: Path) -> None:
    it = read_unimorph(um / "lexicons" / "eng")
    assert isinstance(it, Iterator)
    assert next(it).form == "3rded"


def test_ambiguous_file_is_rejected_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "mixed.tsv"
    bad.write_text("Hund\tHunde\tN;NOM;PL\nKatze\tN;NOM;PL\tKatzen\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_unimorph(bad))
    msg = str(err.value)
    assert str(bad) in msg and "ambiguous layout" in msg and "line 1" in msg and "line 2" in msg
    assert err.value.line == 2 and err.value.reason == "ambiguous-layout"

    words = tmp_path / "words.tsv"
    words.write_text("Hund\tHunde\tHündin\n", encoding="utf-8")
    with pytest.raises(InputError, match="ambiguous layout"):
        detect_layout(words)


def test_bad_lines_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "short.tsv"
    bad.write_text("\nHund\tHunde\tN;NOM;PL\nKatze\tKatzen\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_unimorph(bad))
    assert err.value.line == 3 and "3 tab-separated columns" in str(err.value)

    paren = tmp_path / "paren.tsv"
    paren.write_text("a\tb\tN;NOM(SG\n", encoding="utf-8")
    with pytest.raises(InputError, match="unbalanced"):
        list(read_unimorph(paren, layout="unimorph4"))

    latin1 = tmp_path / "latin1.tsv"
    latin1.write_bytes("Hund\tH\xfcnde\tN;NOM;PL\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        list(read_unimorph(latin1, layout="unimorph"))


def test_layout_override(um: Path, tmp_path: Path) -> None:
    path = um / "sigmorphon2023" / "deu.dev"
    forced = list(read_unimorph(path, layout="sigmorphon2023"))
    assert forced == list(read_unimorph(path))
    with pytest.raises(InputError, match="not a UniMorph feature bundle"):
        list(read_unimorph(path, layout="sigmorphon2018"))
    with pytest.raises(UsageError):
        read_unimorph(path, layout="nonsense")


def test_several_files_form_one_lexicon(tmp_path: Path) -> None:
    # UniMorph ships big lexicons as fin.1, fin.2; a part may even use the 2023 column order.
    (tmp_path / "fin.1").write_text(
        "\ntalo\ttalot\tN;NOM;PL\ntalo\ttalon\tN;GEN;SG\n", encoding="utf-8"
    )
    (tmp_path / "fin.2").write_text(
        "talo\tN;NOM;PL\ttalot\ntalo\tN;ESS;SG\ttalona\n", encoding="utf-8"
    )
    (tmp_path / "fin.10").write_text("kala\tkalat\tN;NOM;PL\n", encoding="utf-8")
    paths = expand_paths(tmp_path / "fin")
    assert [p.name for p in paths] == ["fin.1", "fin.2", "fin.10"]
    reader = UniMorphReader(tmp_path / "fin")
    entries = list(reader)
    assert [e.form for e in entries] == ["talot", "talon", "talona", "kalat"]
    assert reader.stats.duplicates == 1
    assert reader.stats.files[str(tmp_path / "fin.2")] == LEMMA_FEATS_FORM
    assert {e.source for e in entries} == {str(tmp_path / n) for n in ("fin.1", "fin.2", "fin.10")}
    assert len(list(read_unimorph(tmp_path / "fin", dedupe=False))) == 5


def test_gzip_and_directory(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "x.gz", "wt", encoding="utf-8") as fh:
        fh.write("walk\twalked\tV;PST\n")
    (tmp_path / "README.md").write_text("not a lexicon\n", encoding="utf-8")
    entries = list(read_unimorph(tmp_path))
    assert [(e.form, e.features["Tense"]) for e in entries] == [("walked", "Past")]


def test_sigmorphon_splits_merge(um: Path) -> None:
    files = sorted((um / "sigmorphon2018").glob("german-*"))
    reader = UniMorphReader(files)
    assert sum(1 for _ in reader) == 12000 - reader.stats.duplicates
    assert len(reader.stats.files) == 3
