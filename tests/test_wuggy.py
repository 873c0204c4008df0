"""Wuggy: real output tables, real-word filtering, offline generation with our own plugin."""

from __future__ import annotations

import socket
import sys
import urllib.request
from pathlib import Path

import pytest

from polyprobe.errors import InputError
from polyprobe.hashing import file_sha256, lexical_key
from polyprobe.loaders.frequency import from_conllu
from polyprobe.loaders.unimorph import read_unimorph
from polyprobe.loaders.wuggy import (
    NUCLEI,
    Nucleus,
    _refuse_network,
    default_cache_dir,
    derive_nucleus,
    filter_pseudowords,
    generate_pseudowords,
    read_wuggy_output,
    stage_lexicon,
)


@pytest.fixture(scope="module")
def wuggy_dir(data_dir: Path) -> Path:
    return data_dir / "wuggy"


def test_read_german_output_with_statistics(wuggy_dir: Path) -> None:
    table = read_wuggy_output(wuggy_dir / "outputs" / "ort_german")
    assert table.columns[:3] == ("Word", "Match", "Lexicality")
    assert len(table.rows) == 14712
    first = table.rows[0]
    assert (first.seed, first.pseudoword, first.lexicality, first.line) == ("in", "än", "N", 2)
    assert table.sha256 == file_sha256(table.path)


def test_read_turkish_output_word_match_only(wuggy_dir: Path) -> None:
    table = read_wuggy_output(wuggy_dir / "outputs" / "ort_turkish")
    assert table.columns == ("Word", "Match")
    assert len(table.rows) == 49920
    assert (table.rows[0].seed, table.rows[0].pseudoword, table.rows[0].lexicality) == (
        "ve",
        "je",
        None,
    )


def test_bad_tables_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "t.tsv"
    bad.write_text("Seed\tPseudo\nx\ty\n", encoding="utf-8")
    with pytest.raises(InputError, match="Word<TAB>Match"):
        read_wuggy_output(bad)
    bad.write_text("Word\tMatch\tLexicality\nx\ty\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_wuggy_output(bad)
    assert err.value.line == 2 and str(bad) in str(err.value)


def _vocabulary(data_dir: Path, source: str) -> list[str]:
    if source.startswith("ud/"):
        return sorted(from_conllu(data_dir / source).vocabulary())
    return [e.form for e in read_unimorph(sorted(data_dir.joinpath("unimorph").glob(source)))]


@pytest.mark.parametrize(
    ("table", "vocabulary", "real", "reason"),
    [
        # Seed "Platz", match "platz": the seed itself, lower-cased.
        ("ort_german", "sigmorphon2018/german-*", "platz", "same-as-seed"),
        # "based" is a form of the English UniMorph lexicon.
        ("ort_english", "lexicons/eng", "based", "real-word"),
        # "sido" is in no Spanish lexicon here, but in the Spanish UD treebank.
        ("ort_spanish", "ud/UD_Spanish-GSD", "sido", "real-word"),
    ],
)
def test_real_outputs_contain_real_words_that_are_filtered(
    data_dir: Path, wuggy_dir: Path, table: str, vocabulary: str, real: str, reason: str
) -> None:
    rows = read_wuggy_output(wuggy_dir / "outputs" / table).rows
    assert any(r.pseudoword == real for r in rows)
    vocab = _vocabulary(data_dir, vocabulary)
    seeds = [r.seed for r in rows]  # the seed words are real words of the language too
    result = filter_pseudowords(rows, [vocab, seeds])
    kept = {r.pseudoword.casefold() for r in result.kept}
    assert real not in kept
    alone = filter_pseudowords([r for r in rows if r.pseudoword == real], [vocab, seeds])
    assert not alone.kept and alone.removed[reason] >= 1
    assert result.removed[reason] > 0 and result.real_words > 0
    assert len(result.kept) + result.removed_count == len(rows)
    assert not kept & {lexical_key(w) for w in vocab + seeds}


def test_filter_is_case_insensitive() -> None:
    from polyprobe.loaders.wuggy import PseudowordRow

    rows = [
        PseudowordRow("Haus", "Maus", "N", 2),
        PseudowordRow("Haus", "haus", "N", 3),
        PseudowordRow("Haus", "Bauz", "N", 4),
        PseudowordRow("Baum", "bauz", "N", 5),
        PseudowordRow("Baum", "Daum", "W", 6),
    ]
    result = filter_pseudowords(rows, [["MAUS"]])
    assert [r.pseudoword for r in result.kept] == ["Bauz"]
    assert result.removed == {
        "real-word": 1,
        "same-as-seed": 1,
        "duplicate": 1,
        "wuggy-lexicality-W": 1,
    }


def test_nucleus_patterns() -> None:
    english = NUCLEI["english"].pattern()
    assert english.match("yes").groups() == ("y", "e", "s")
    assert english.match("by").groups() == ("b", "y", "")
    assert english.match("strength").groups() == ("str", "e", "ngth")
    derived = derive_nucleus(["ca-sa", "pe-rro", "hoy", "ca-mión"])
    assert set("aeio") <= set(derived.vowels) and "ó" in derived.vowels and not derived.y_vowel
    assert Nucleus("aeiou", y_vowel=False).pattern().match("gr") is None  # no nucleus


def test_staging_validates_and_normalises(tmp_path: Path) -> None:
    lex = tmp_path / "lex.txt"
    lex.write_text("\ncasa\tca-sa\t1.5\r\nperro\tpe-rro\t2\r\n", encoding="utf-8")
    staged = stage_lexicon(lex, tmp_path / "cache")
    assert staged.path.read_text(encoding="utf-8") == "casa\tca-sa\t1.5\nperro\tpe-rro\t2\n"
    assert staged.words == ("casa", "perro")
    lex.write_text("casa\tca-sa\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        stage_lexicon(lex, tmp_path / "cache")
    assert err.value.line == 1


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("POLYPROBE_CACHE", str(tmp_path))
    assert default_cache_dir() == tmp_path / "wuggy"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any attempt to open a connection fails the test (and is recorded)."""
    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(repr(args[1:] if args else kwargs))
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    return attempts


def test_offline_generation_english_absolute_path(
    wuggy_dir: Path, tmp_path: Path, no_network: list[str]
) -> None:
    lexicon = (wuggy_dir / "lexicons" / "orthographic_english.txt").resolve()
    assert lexicon.is_absolute()
    cache = tmp_path / "cache"
    seeds = ["table", "water", "garden", "Happy", "notaword"]
    table = generate_pseudowords(
        lexicon, seeds, max_seeds=3, seed=7, nucleus="en", max_time=2.0, cache_dir=cache
    )
    assert not no_network
    assert table.generated and not table.cached and table.seeds == 3
    assert Path(table.path).parent == cache / "tables"
    assert table.sha256 == file_sha256(table.path)
    assert table.columns == ("Word", "Match", "Lexicality", "Old20", "Ned1")
    assert 0 < len(table.rows) <= 3 * 5
    assert {r.seed for r in table.rows} <= {"table", "water", "garden", "happy"}
    assert all(r.lexicality == "N" and r.pseudoword != r.seed for r in table.rows)
    assert table.params["ncandidates"] == 5 and table.params["overlap"] == "2/3"
    # Wuggy's download function was swapped out only for the duration of the call.
    module = sys.modules["wuggy.generators.wuggygenerator"]
    assert module.urlopen is not _refuse_network
    # Same lexicon, parameters and seed: the cached table, byte for byte.
    again = generate_pseudowords(
        lexicon, seeds, max_seeds=3, seed=7, nucleus="en", max_time=2.0, cache_dir=cache
    )
    assert again.cached and again.path == table.path and again.sha256 == table.sha256
    assert again.rows == table.rows
    # Filtering against the Wuggy lexicon's own words keeps only non-words.
    words = stage_lexicon(lexicon, cache).words
    assert filter_pseudowords(table.rows, [words]).kept
