"""Word similarity sets from every shared file: vecto CSV (SimLex-999 en/ru, SimLex-965,
SemEval-17 mono and cross-lingual), FinnSim (semicolon CSV with a BOM), Multi-SimLex from
Concepticon's layout; hand-checked rows, bad input, builds that validate and load."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import datasets
import pytest

from polyprobe import build_similarity
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.similarity import (
    cross_lingual_pairs,
    multisimlex_pairs,
    read_concepticon,
    read_finnsim,
    read_vecto_csv,
    read_word_pairs,
    repair_finnish_date,
)
from polyprobe.loaders.source import InvalidPolicy


@pytest.fixture(scope="module")
def ws(data_dir: Path) -> Path:
    return data_dir / "word_similarity"


@pytest.fixture(scope="module")
def msl(ws: Path):
    return read_concepticon(ws / "multisimlex_concepticon" / "Vulic-2020-2244.tsv", InvalidPolicy())


VECTO = "vecto_word_benchmarks/word-similarity"


def test_vecto_csv_simlex999_rows_and_languages(ws: Path) -> None:
    s = read_vecto_csv(ws / VECTO / "monolingual/en/simlex999.csv", InvalidPolicy())
    assert s.name == "simlex999-en" and s.languages == ("en",) and len(s.pairs) == 999
    # line 3: "1,smart,intelligent,9.76923076923077"
    smart = s.pairs[1]
    assert (smart.word1, smart.word2, smart.line) == ("smart", "intelligent", 3)
    assert smart.score == pytest.approx(9.76923076923077)
    x = read_vecto_csv(ws / VECTO / "cross-lingual/en-de/semeval17.csv", InvalidPolicy())
    assert x.name == "semeval17-en-de" and x.languages == ("en", "de")
    # "0,fencing,Gymnastik,2.17"
    assert (x.pairs[0].word1, x.pairs[0].word2, x.pairs[0].score) == ("fencing", "Gymnastik", 2.17)
    for rel, n in [
        ("monolingual/ru/simlex965.csv", 965),
        ("monolingual/ru/simlex999.csv", 999),
        ("monolingual/en/semeval17.csv", 500),
        ("cross-lingual/de-es/semeval17.csv", 956),
        ("cross-lingual/en-es/semeval17.csv", 978),
    ]:
        assert len(read_vecto_csv(ws / VECTO / rel, InvalidPolicy()).pairs) == n, rel


def test_finnsim_bom_semicolons_and_spreadsheet_dates(ws: Path) -> None:
    fin = read_finnsim(ws / "finsemevl/FinnSim/FinnSim_judgment_scores.csv", InvalidPolicy())
    assert fin.name == "finnsim-fi" and len(fin.pairs) == 300
    # the BOM is not part of the first word: "aikuinen;vauva;0.7090909091;1.4099215538"
    first = fin.pairs[0]
    assert (first.word1, first.word2, first.score) == ("aikuinen", "vauva", 0.7090909091)
    # line 64 "järvi;suo;1.elo;..." is a spreadsheet date for 1.8
    jarvi = next(p for p in fin.pairs if p.line == 64)
    assert (jarvi.word1, jarvi.word2, jarvi.score) == ("järvi", "suo", 1.8)
    assert "8 scores were stored as Finnish spreadsheet dates" in fin.notes[0]
    assert repair_finnish_date("2.huhti") == "2.4" and repair_finnish_date("2.4") is None
    tr = read_finnsim(ws / "finsemevl/FinnSim/SimLex_TranslationsScores.csv", InvalidPolicy())
    # "helppo;vaikea;SimLex999;easy;difficult;A;0,58;...": the decimal comma, POS A
    assert (tr.pairs[0].word1, tr.pairs[0].word2, tr.pairs[0].score) == ("helppo", "vaikea", 0.58)
    assert tr.pairs[0].pos == "A" and Counter(p.pos for p in tr.pairs).keys() == {"A", "N", "V"}


def test_multisimlex_pair_in_two_languages(msl) -> None:
    """Concept 1 (statue) links to concept 1989 (sculpture): English statue-sculpture
    4.923076923076923, Finnish patsas-veistos 5.4 (columns ENGLISH_SCORE, FINNISH_SCORE)."""
    en = {(p.word1, p.word2): p.score for p in multisimlex_pairs(msl, "en")}
    fi = {(p.word1, p.word2): p.score for p in multisimlex_pairs(msl, "fi")}
    assert en[("statue", "sculpture")] == pytest.approx(4.923076923076923)
    assert fi[("patsas", "veistos")] == pytest.approx(5.4)
    # 1888 pairs in every language; two English SimLex pairs map onto one concept pair
    # (407-1546), whose Finnish words coincide
    assert len(multisimlex_pairs(msl, "en")) == len(multisimlex_pairs(msl, "fi")) == 1888
    assert (len(en), len(fi)) == (1888, 1887)
    cross = {(p.word1, p.word2): p.score for p in cross_lingual_pairs(msl, "fi", "en")}
    assert cross[("patsas", "sculpture")] == pytest.approx((5.4 + 4.923076923076923) / 2)
    assert cross[("veistos", "statue")] == pytest.approx((5.4 + 4.923076923076923) / 2)


def test_bad_input_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "mine.tsv"
    bad.write_text("cat\tdog\t7.5\ncat\tmouse\tseven\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"mine.tsv:2: score 'seven' is not a number"):
        read_word_pairs(bad, InvalidPolicy())
    skipped: Counter[str] = Counter()
    s = read_word_pairs(bad, InvalidPolicy("skip", skipped))
    assert len(s.pairs) == 1 and skipped == {"bad-score": 1}
    csv = tmp_path / "en" / "x.csv"
    csv.parent.mkdir()
    csv.write_text(",word1,word2,similarity\n0,a,b\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"x.csv:2: expected 4 fields, found 3"):
        read_vecto_csv(csv, InvalidPolicy())


def test_builds_validate_and_load(ws: Path, tmp_path: Path, hf_offline: None) -> None:
    r = build_similarity(
        [ws / "multisimlex_concepticon/Vulic-2020-2244.tsv"],
        lang="fi",
        cross_lingual=["en"],
        out=tmp_path / "msl",
    )
    assert validate(r.out).ok
    built = [t.task for t in r.tasks]
    assert built == [
        "multisimlex-fi",
        "multisimlex-fi-adjectives",
        "multisimlex-fi-adverbs",
        "multisimlex-fi-nouns",
        "multisimlex-fi-verbs",
        "multisimlex-fi-en",
    ]
    ds = datasets.load_dataset(str(r.out), "multisimlex-fi")
    assert list(ds) == ["test"] and len(ds["test"]) == 1888
    assert ds["test"].features["label"] == datasets.Value("float32")
    row = next(x for x in ds["test"] if (x["word1"], x["word2"]) == ("patsas", "veistos"))
    assert row["label"] == pytest.approx(5.4, abs=1e-6) and row["id"] == "multisimlex-fi/1-1989"
    r2 = build_similarity(
        [
            ws / "finsemevl/FinnSim/FinnSim_judgment_scores.csv",
            ws / "finsemevl/FinnSim/SimLex_TranslationsScores.csv",
        ],
        lang="fi",
        out=tmp_path / "fin",
    )
    assert validate(r2.out).ok
    r3 = build_similarity(
        [
            ws / VECTO / "monolingual/en/simlex999.csv",
            ws / VECTO / "monolingual/en/semeval17.csv",
            ws / VECTO / "cross-lingual/en-de/semeval17.csv",
        ],
        lang="en",
        out=tmp_path / "en",
    )
    assert validate(r3.out).ok
    assert [t.task for t in r3.tasks] == ["simlex999-en", "semeval17-en", "semeval17-en-de"]
