"""Frequency lists from UD treebanks and word lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.errors import InputError
from polyprobe.loaders.frequency import FrequencyList, from_conllu, from_word_list, load_frequencies


def test_counts_forms_of_a_treebank(ud_dir: Path) -> None:
    freq = from_conllu(ud_dir / "UD_German-GSD")
    assert len(freq.sources) == 2 and all(len(c) == 64 for c in freq.checksums.values())
    # Case-folded NFC keys: sentence-initial "Die" and "die" are one word.
    assert freq.count("Die") == freq.count("die") > 100
    assert freq.rank("die") is not None and freq.rank("die") <= 5
    assert freq.is_frequent("die") and not freq.is_frequent("Ungewortelein")
    assert "die" in freq and "Ungewortelein" not in freq


def test_multiword_tokens_counted_empty_nodes_not(tmp_path: Path) -> None:
    path = tmp_path / "x.conllu"
    path.write_text(
        "# text = del mar\n"
        "1-2\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\tde\tde\tADP\t_\t_\t3\tcase\t_\t_\n"
        "2\tel\tel\tDET\t_\t_\t3\tdet\t_\t_\n"
        "3\tmar\tmar\tNOUN\t_\t_\t0\troot\t_\t_\n"
        "3.1\tghost\t_\t_\t_\t_\t_\t_\t_\t_\n\n",
        encoding="utf-8",
    )
    freq = from_conllu(path)
    assert freq.counts == {"del": 1, "de": 1, "el": 1, "mar": 1}


def test_word_list_ranks_follow_the_file(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("the\nof\nThe\nand\n\n", encoding="utf-8")
    freq = load_frequencies(path, frequent_rank=2)
    assert [freq.rank(w) for w in ("the", "of", "and")] == [1, 2, 3]
    assert freq.is_frequent("of") and not freq.is_frequent("and")


def test_word_count_file(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_text("Haus\t5\nhaus\t2\nBaum\t9\n", encoding="utf-8")
    freq = from_word_list(path)
    assert freq.count("HAUS") == 7 and freq.rank("baum") == 1


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("a\t1\nb\tx\n", 2, "not an integer"),
        ("a\t1\t2\n", 1, "columns"),
        ("a\t-3\n", 1, "negative"),
    ],
)
def test_bad_word_lists_name_the_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        from_word_list(path)
    assert err.value.line == line and problem in err.value.problem


def test_mixed_word_list_rejected(tmp_path: Path) -> None:
    path = tmp_path / "mixed.tsv"
    path.write_text("a\t1\nb\n", encoding="utf-8")
    with pytest.raises(InputError, match="mixes"):
        from_word_list(path)


def test_from_counts_merges_keys() -> None:
    freq = FrequencyList.from_counts({"Straße": 2, "STRASSE": 1})
    assert freq.count("strasse") == 3  # case-folding maps ß to ss
