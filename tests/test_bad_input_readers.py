"""Bad input at the readers (issue 15, points 1, 2, 4, 5): what each loader refuses, where it
says the problem is, what ``--on-invalid skip`` may drop and what it must never drop, and what
language each source declares.

The command-line view of the same cases is ``test_bad_input_build.py``; here each reader is
checked on its own, so every reader is held to the same rules (a whole-file failure is fatal
under any policy; a control character is refused at its true line and skippable per item)."""

from __future__ import annotations

import bz2
import collections
import gzip
import lzma
from pathlib import Path

import pytest
from test_folder_writer import write_folder

import polyprobe.loaders.conllu as conllu
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.frequency import FrequencySource, from_conllu, from_word_list
from polyprobe.loaders.source import FATAL_REASONS, InvalidPolicy
from polyprobe.loaders.sources import discover, read_sources
from polyprobe.loaders.trec import TrecSource, read_trec_file
from polyprobe.loaders.unimorph import UniMorphReader
from polyprobe.loaders.unimorph_source import unimorph_sources
from polyprobe.loaders.wuggy import read_wuggy_output

C0 = [chr(i) for i in range(32) if chr(i) not in "\t\n"]


def tok(i: int, head: int, form: str = "w") -> str:
    return "\t".join([str(i), form, "w", "X", "_", "_", str(head), "dep", "_", "_"])


def sent(sid: str, form: str = "w") -> str:
    return f"# sent_id = {sid}\n{tok(1, 0, form)}\n{tok(2, 1)}\n\n"


# ------------------------------------------------------------------ 1. duplicate sent_id


def _treebank(tmp_path: Path, files: dict[str, str], name: str = "UD_Toy-A") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for fname, text in files.items():
        (folder / fname).write_text(text, encoding="utf-8")
    return folder


def test_duplicate_sent_id_across_the_files_of_a_treebank(tmp_path: Path) -> None:
    tb = _treebank(
        tmp_path,
        {
            "xx_toy-ud-train.conllu": sent("a") + sent("b"),
            "xx_toy-ud-test.conllu": sent("c") + sent("b"),
        },
    )
    sources = discover([tb])
    with pytest.raises(InputError) as err:
        list(read_sources(sources))
    e = err.value
    assert (e.path, e.line, e.reason) == (str(tb / "xx_toy-ud-test.conllu"), 5, "duplicate-sent-id")
    assert f"{tb / 'xx_toy-ud-train.conllu'}:5" in e.problem and "'b'" in e.problem
    skipped: collections.Counter[str] = collections.Counter()
    got = list(read_sources(sources, on_invalid="skip", skipped=skipped))
    assert [(s.sent_id, s.source.split) for s in got] == [
        ("a", "train"),
        ("b", "train"),
        ("c", "test"),
    ]
    assert skipped == {"duplicate-sent-id": 1}
    policy = InvalidPolicy("skip")
    assert len(list(sources[0].records(policy))) == 3
    assert policy.skipped == {"duplicate-sent-id": 1}


def test_same_sent_id_in_two_treebanks_is_fine(tmp_path: Path) -> None:
    a = _treebank(tmp_path, {"xx_a-ud-test.conllu": sent("s1")}, "UD_Toy-A")
    b = _treebank(tmp_path, {"xx_b-ud-test.conllu": sent("s1")}, "UD_Toy-B")
    assert [s.source.treebank for s in read_sources(discover([a, b]))] == ["UD_Toy-A", "UD_Toy-B"]


# ----------------------------------------------------------------- 2. declared languages


def test_treebank_languages_from_file_names_and_readme(ud_dir: Path, tmp_path: Path) -> None:
    (ewt,) = discover([ud_dir / "UD_English-EWT"])
    assert [(d.code, d.name) for d in ewt.languages] == [("eng", "English")]
    assert "en_ewt-ud-" in ewt.languages[0].evidence
    loose = _treebank(tmp_path, {"mine.conllu": sent("a")}, "Mine")
    assert discover([loose])[0].languages == ()
    odd = _treebank(tmp_path, {"qtd_sagt-ud-test.conllu": sent("a")}, "UD_Turkish_German-SAGT")
    assert discover([odd])[0].languages == ()  # a private-use code: nothing declared
    (odd / "README.md").write_text(
        "# Summary\n\n  Language = {Klingon},\n```\n=== Machine-readable metadata\n"
        "Language: Turkish, German\nLicense: CC BY-SA 4.0\n```\n",
        encoding="utf-8",
    )
    assert [d.code for d in discover([odd])[0].languages] == ["tur", "deu"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("german-train-high", "deu"),
        ("slovene-dev", "slv"),
        ("norwegian-bokmaal-train-low", "nob"),
        ("deu.trn", "deu"),
        ("kat.tst", "kat"),
        ("eng", "eng"),
        ("fin.2", "fin"),
        ("lexicon.tsv", None),
        ("all.txt", None),
    ],
)
def test_unimorph_file_names(tmp_path: Path, name: str, code: str | None) -> None:
    path = tmp_path / name
    path.write_text("Haus\tHäuser\tN;NOM;PL\n", encoding="utf-8")
    (src,) = unimorph_sources([path])
    assert [d.code for d in src.languages] == ([code] if code else [])


def test_trec_and_frequency_sources_declare_their_language(data_dir: Path) -> None:
    assert [d.code for d in TrecSource(data_dir / "trec").languages] == ["eng"]
    freq = FrequencySource.from_path(data_dir / "ud/UD_German-GSD")
    assert [d.code for d in freq.languages] == ["deu"]


# -------------------------------------------------------------- 4. whole-file failures


def _ud_text() -> bytes:
    return (sent("a") + sent("b") + sent("c")).encode()


def _cut_gzip(data: bytes) -> bytes:
    packed = gzip.compress(data * 200, mtime=0)
    return packed[: len(packed) // 2]


WHOLE_FILE = {
    "truncated-gzip": _cut_gzip,
    "utf-16": lambda d: d.decode().encode("utf-16"),
    "utf-16-le-no-bom": lambda d: d.decode().encode("utf-16-le"),
    "utf-32": lambda d: d.decode().encode("utf-32"),
    "utf-32-be-no-bom": lambda d: d.decode().encode("utf-32-be"),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}


@pytest.mark.parametrize("case", sorted(WHOLE_FILE))
def test_conllu_whole_file_failure_is_fatal_under_skip(tmp_path: Path, case: str) -> None:
    path = tmp_path / "xx_t-ud-dev.conllu"
    path.write_bytes(WHOLE_FILE[case](_ud_text()))
    skipped: collections.Counter[str] = collections.Counter()
    with pytest.raises(InputError) as err:
        list(conllu.read_conllu(path, on_invalid="skip", skipped=skipped))
    assert err.value.reason in FATAL_REASONS and err.value.path == str(path)
    assert not skipped


def test_corrupt_gzip_is_fatal_after_the_lines_it_gave(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(_ud_text() * 50, mtime=0))
    data[-6] ^= 0xFF  # the CRC: every line decompresses, the stream check fails at the end
    path = tmp_path / "xx_t-ud-dev.conllu.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError) as err:
        list(conllu.read_conllu(path, on_invalid="skip"))
    assert err.value.reason == "corrupt-gzip" and err.value.path == str(path)


def _lexicon(d: bytes) -> bytes:
    return b"".join(b"Haus%d\tH\xc3\xa4user%d\tN;NOM;PL\n" % (i, i) for i in range(50))


@pytest.mark.parametrize("case", sorted(WHOLE_FILE))
@pytest.mark.parametrize("reader", ["unimorph", "wuggy", "words", "frequency-ud", "trec"])
def test_other_readers_whole_file_failure_is_fatal_under_skip(
    tmp_path: Path, case: str, reader: str
) -> None:
    if reader == "trec" and case == "truncated-gzip":
        return  # TREC files are read as distributed, never gzip
    text = {
        "unimorph": _lexicon(b""),
        "wuggy": b"Word\tMatch\n" + b"".join(b"w%d\tm%d\n" % (i, i) for i in range(50)),
        "words": b"".join(b"w%d\t%d\n" % (i, i) for i in range(50)),
        "frequency-ud": _ud_text(),
        "trec": b"".join(b"HUM:ind Who is %d ?\n" % i for i in range(50)),
    }[reader]
    path = tmp_path / ("questions.label" if reader == "trec" else "f.conllu")
    path.write_bytes(WHOLE_FILE[case](text))
    policy = InvalidPolicy("skip")
    with pytest.raises(InputError) as err:
        if reader == "unimorph":
            list(UniMorphReader([path], layout="lemma-form-feats", policy=policy))
        elif reader == "wuggy":
            read_wuggy_output(path, policy)
        elif reader == "words":
            from_word_list(path, policy=policy)
        elif reader == "frequency-ud":
            from_conllu([path], policy=policy)
        else:
            read_trec_file(path, policy=policy)
    assert err.value.reason in FATAL_REASONS and err.value.path == str(path)
    assert not policy.skipped


# ---------------------------------------------------------------- 5. control characters


@pytest.mark.parametrize("char", C0, ids=[f"U+{ord(c):04X}" for c in C0])
@pytest.mark.parametrize("fast", [True, False])
def test_conllu_refuses_every_c0_character_but_tab(tmp_path: Path, char: str, fast: bool) -> None:
    path = tmp_path / "xx_t-ud-dev.conllu"
    path.write_bytes((sent("a") + sent("b", f"x{char}y") + sent("c")).encode())
    source = conllu.SourceFile("t", str(path), "dev")

    def read(skip: bool, skipped: collections.Counter[str]) -> list[str]:
        got = conllu._read(path, "t", source, skip, skipped, False, fast)
        return [s.sent_id for s in got]

    with pytest.raises(InputError) as err:
        read(False, collections.Counter())
    e = err.value
    assert (e.line, e.reason) == (6, "control-character")
    assert f"U+{ord(char):04X}" in e.problem and "FORM" in e.problem
    skipped: collections.Counter[str] = collections.Counter()
    assert read(True, skipped) == ["a", "c"] and skipped == {"control-character": 1}


def test_conllu_keeps_crlf_tabs_and_blank_control_lines(tmp_path: Path) -> None:
    path = tmp_path / "xx_t-ud-dev.conllu"
    body = (sent("a") + sent("b")).replace("\n", "\r\n") + "\x0c\r\n" + sent("c").rstrip("\n")
    path.write_bytes((body + "\r").encode())  # a last line ended by a lone CR
    got = list(conllu.read_conllu(path))
    assert [s.sent_id for s in got] == ["a", "b", "c"]
    assert got[-1].words[-1].misc == {}


def test_conllu_comment_with_control_character(tmp_path: Path) -> None:
    path = tmp_path / "xx_t-ud-dev.conllu"
    path.write_bytes(("# text = a\x07b\n" + sent("a")).encode())
    with pytest.raises(InputError) as err:
        list(conllu.read_conllu(path))
    assert (err.value.line, err.value.reason) == (1, "control-character")
    assert "comment" in err.value.problem


@pytest.mark.parametrize("reader", ["unimorph", "wuggy", "words", "frequency-ud", "trec"])
def test_line_readers_refuse_control_characters_at_their_line(tmp_path: Path, reader: str) -> None:
    rows = {
        "unimorph": [b"Haus%d\tH\xc3\xa4user\tN;NOM;PL" % i for i in range(9)],
        "wuggy": [b"Word\tMatch"] + [b"w%d\tm%d" % (i, i) for i in range(8)],
        "words": [b"w%d\t%d" % (i, 10 - i) for i in range(9)],
        "frequency-ud": [tok(i, i - 1, f"w{i}").encode() for i in range(1, 10)],
        "trec": [b"HUM:ind Who is %d ?" % i for i in range(9)],
    }[reader]
    rows[6] = rows[6].replace(b"\t", b"\x1f\t", 1) if b"\t" in rows[6] else rows[6] + b"\x1f"
    path = tmp_path / ("questions.label" if reader == "trec" else "f.conllu")
    path.write_bytes(b"\n".join(rows) + b"\n")

    def read(policy: InvalidPolicy) -> object:
        if reader == "unimorph":
            return list(UniMorphReader([path], layout="lemma-form-feats", policy=policy))
        if reader == "wuggy":
            return read_wuggy_output(path, policy).rows
        if reader == "words":
            return from_word_list(path, policy=policy).counts
        if reader == "frequency-ud":
            return from_conllu([path], policy=policy).counts
        return read_trec_file(path, policy=policy).questions

    with pytest.raises(InputError) as err:
        read(InvalidPolicy())
    assert (err.value.line, err.value.reason) == (7, "control-character")
    assert "U+001F" in err.value.problem
    policy = InvalidPolicy("skip")
    assert len(read(policy)) == 8 - (reader == "wuggy")
    assert policy.skipped == {"control-character": 1}


# ------------------------------------------------------------------- 5. validate


@pytest.mark.parametrize("column", ["sentence", "tokens", "word", "id", "lexical_key"])
def test_validate_finds_a_control_character_in_any_string_column(
    tmp_path: Path, column: str
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = write_folder(tmp_path / "ds")
    assert validate(folder).ok
    files = sorted(folder.glob("data/*/*.parquet"))
    path = next(f for f in files if column in pq.read_schema(f).names)
    split = path.name.split("-")[0]
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    row_id = table.column("id").to_pylist()[3]
    if column == "tokens":
        values[3] = [values[3][0], "a\x00b", *values[3][1:]]
    else:
        values[3] = values[3][:1] + "\x00" + values[3][1:]
        if column == "id":
            row_id = values[3]
    i = table.schema.get_field_index(column)
    table = table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))
    pq.write_table(table, path)
    report = validate(folder)
    config = path.parent.name
    found = [p for p in report.problems if "control character" in p]
    assert len(found) == 1, report.summary()
    assert f"config {config!r} split {split!r}" in found[0] and repr(row_id) in found[0]
    assert f"column {column!r}" in found[0] and "U+0000" in found[0]


def test_wuggy_lexicon_with_a_control_character_is_refused(tmp_path: Path) -> None:
    from polyprobe.loaders.wuggy import stage_lexicon

    lexicon = tmp_path / "lexicon.txt"
    lexicon.write_text("house\thou-se\t12.0\nho\x1bme\tho-me\t3.0\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        stage_lexicon(lexicon, tmp_path / "cache")
    assert (err.value.line, err.value.reason) == (2, "control-character")
    assert not (tmp_path / "cache").exists()
