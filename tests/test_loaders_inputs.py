"""The input layer (:mod:`polyprobe.loaders.inputs`) on its own, and every reader held to it.

What is checked here, reader by reader, is what the command-line matrix
(``test_bad_input_matrix.py``) checks from outside: the path (missing, a folder, not a
regular file), compression by content (truncated and damaged streams fatal at the line they
break on), strict UTF-8 with no guessed encoding, control characters, the line limit, empty
files, CSV records with true line numbers; the C0 rule shared with ``validate``; and the fast
CoNLL-U reader keeping the same contract as the generic one.
"""

from __future__ import annotations

import ast
import bz2
import collections
import csv
import gzip
import json
import lzma
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import polyprobe.cards.validate as validate_module
from polyprobe.controlchars import CONTROL_PATTERN, control_name, first_control
from polyprobe.errors import InputError
from polyprobe.loaders import inputs
from polyprobe.loaders.aligned_text import LineAlignedFile
from polyprobe.loaders.analogies import AnalogySource
from polyprobe.loaders.conllu import read_conllu
from polyprobe.loaders.costra import read_costra
from polyprobe.loaders.dictionary import read_pairs_file
from polyprobe.loaders.frequency import from_word_list
from polyprobe.loaders.inputs import (
    MAX_LINE_CHARS,
    BadLine,
    check_file,
    compression_of,
    csv_rows,
    numbered_lines,
    open_binary,
    read_text,
    text_lines,
)
from polyprobe.loaders.rst import RstSource, read_relation_map
from polyprobe.loaders.similarity import SimilaritySource
from polyprobe.loaders.source import FATAL_REASONS, InvalidPolicy
from polyprobe.loaders.tabular import TabularSource
from polyprobe.loaders.translations import read_translations
from polyprobe.loaders.ud_documents import sentences_before_document_marks
from polyprobe.loaders.unimorph import UniMorphReader

REPO = Path(__file__).resolve().parent.parent


def _lines(path: Path, policy: InvalidPolicy | None = None) -> list[tuple[int, str]]:
    return list(text_lines(path, policy or InvalidPolicy()))


# ------------------------------------------------------------------------------ paths


def test_missing_folder_and_pipe_are_one_error_naming_the_path(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "dir").mkdir()
    for name, words in (("nope", "no such file"), ("dir", "is a folder"), ("pipe", "not a regular")):
        with pytest.raises(InputError) as err:
            check_file(tmp_path / name, "profile")
        e = err.value
        assert (e.path, e.line, e.reason) == (str(tmp_path / name), None, "missing-file")
        assert words in e.problem and "(the profile)" in e.problem
        assert e.reason in FATAL_REASONS
        with pytest.raises(InputError):  # every way in checks the path the same way
            list(numbered_lines(tmp_path / name))


def test_compression_by_content_and_zstd_refused_by_name(tmp_path: Path) -> None:
    text = b"a\tb\nc\td\n"
    for name, data, kind in (
        ("words.txt", gzip.compress(text), "gzip"),  # a mis-named gzip file
        ("words.gz", text, "plain"),  # a .gz that is plain text
        ("w.bz2", bz2.compress(text), "bz2"),
        ("w.xz", lzma.compress(text), "xz"),
        ("BZh.txt", b"BZh is a word\n", "plain"),  # not a bzip2 header
    ):
        path = tmp_path / name
        path.write_bytes(data)
        assert compression_of(path) == kind
        with open_binary(path) as fh:
            assert fh.read() == (text if kind != "plain" else data)
    zst = tmp_path / "w.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 20)
    with pytest.raises(InputError, match="zstd-compressed.*zstd -d") as err:
        open_binary(zst)
    assert err.value.reason in FATAL_REASONS


def test_line_formats_read_gzip_and_refuse_other_compressions(tmp_path: Path) -> None:
    path = tmp_path / "lexicon"
    path.write_bytes(gzip.compress(b"a\tb\nc\td"))
    assert list(numbered_lines(path)) == [(1, "a\tb"), (2, "c\td")]
    path.write_bytes(bz2.compress(b"a\tb\n"))
    with pytest.raises(InputError, match="bzip2-compressed; decompress it first") as err:
        list(numbered_lines(path))
    assert err.value.reason == "undecodable"


@pytest.mark.parametrize(
    ("kind", "pack"), [("gzip", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)]
)
def test_broken_streams_are_fatal_at_the_line_they_break_on(
    tmp_path: Path, kind: str, pack: Callable[[bytes], bytes]
) -> None:
    text = b"".join(b"word%d\t%d\n" % (i, i) for i in range(200_000))
    packed = pack(text)
    cut = tmp_path / "cut"
    cut.write_bytes(packed[: len(packed) // 2])
    got: list[int] = []
    with pytest.raises(InputError) as err:
        for number, _ in numbered_lines(cut, accept=("gzip", "bz2", "xz")):
            got.append(number)
    e = err.value
    assert e.reason == f"truncated-{kind}" and e.reason in FATAL_REASONS and e.path == str(cut)
    assert got and e.line == got[-1] + 1  # the first line not read, after all it could read
    damaged = bytearray(packed)
    for i in range(len(damaged) // 2, len(damaged) // 2 + 64):
        damaged[i] ^= 0x5A
    cut.write_bytes(bytes(damaged))
    with pytest.raises(InputError) as err:
        list(numbered_lines(cut, accept=("gzip", "bz2", "xz")))
    assert err.value.reason in (f"corrupt-{kind}", f"truncated-{kind}")
    assert err.value.reason in FATAL_REASONS


# ------------------------------------------------------------------------------ lines


def test_every_refused_line_keeps_its_true_number_and_reading_goes_on(tmp_path: Path) -> None:
    rows = [b"w%d\tx" % i for i in range(1, 11)]
    rows[2] = b"w\xff3\tx"  # line 3
    rows[4] = b"w\x005\tx"  # line 5
    rows[6] = b"w7\t" + b"x" * (MAX_LINE_CHARS + 1)  # line 7
    path = tmp_path / "t.tsv"
    path.write_bytes(b"\n".join(rows) + b"\n")
    bad = {n: line.reason for n, line in numbered_lines(path) if isinstance(line, BadLine)}
    assert bad == {3: "bad-encoding", 5: "control-character", 7: "too-long"}
    policy = InvalidPolicy("skip")
    assert [n for n, _ in text_lines(path, policy)] == [1, 2, 4, 6, 8, 9, 10]
    assert policy.skipped == {"bad-encoding": 1, "control-character": 1, "too-long": 1}
    with pytest.raises(InputError) as err:
        _lines(path)
    assert (err.value.line, err.value.reason) == (3, "bad-encoding")


def test_a_run_without_line_end_is_dropped_as_it_is_read(tmp_path: Path) -> None:
    """A 24 MB "line" costs what a 4 MB one does: never held whole in memory."""
    path = tmp_path / "huge.txt"
    with open(path, "wb") as fh:
        fh.write(b"first\n")
        for _ in range(24):
            fh.write(b"a" * (1 << 20))
        fh.write(b"\nlast\n")
    tracemalloc.start()
    got = list(numbered_lines(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [(n, type(line).__name__) for n, line in got] == [
        (1, "str"),
        (2, "BadLine"),
        (3, "str"),
    ]
    assert got[1][1].reason == "too-long" and f"{MAX_LINE_CHARS:,}" in got[1][1].problem
    assert peak < 16 << 20, peak


def test_limit_is_in_characters_not_bytes(tmp_path: Path) -> None:
    path = tmp_path / "wide.txt"
    line = "ä" * MAX_LINE_CHARS  # 2 MB of UTF-8, exactly the limit in characters
    path.write_text(f"{line}\n{line}ä\n", encoding="utf-8")
    got = [type(x) for _, x in numbered_lines(path)]
    assert got == [str, BadLine]


# -------------------------------------------------------------------------------- CSV


def test_csv_records_have_the_line_they_start_on(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        'id,text\n1,plain\n2,"a quoted\nline break"\n3,"a ""quote"", fine"\n\n4,last\n',
        encoding="utf-8",
    )
    policy = InvalidPolicy("skip")
    got = list(csv_rows(path, policy, delimiter=","))
    assert got == [(1, ["id", "text"]), (2, ["1", "plain"]), (5, ["3", 'a "quote", fine']),
                   (7, ["4", "last"])]  # fmt: skip
    assert policy.skipped == {"control-character": 1}  # the line break in a text
    with pytest.raises(InputError) as err:
        list(csv_rows(path, InvalidPolicy(), delimiter=","))
    assert err.value.line == 3 and "line break" in err.value.problem
    assert "lines 3-4" in err.value.problem


def test_csv_field_limit_is_ours_and_never_the_csv_modules(tmp_path: Path) -> None:
    big = "x" * 500_000  # over csv's default field limit (131,072), under ours
    path = tmp_path / "t.csv"
    path.write_text(f'a,b\n1,"{big}"\n2,"{big}x{big}x"\n3,c\n', encoding="utf-8")
    policy = InvalidPolicy("skip")
    got = [(n, len(f[1])) for n, f in csv_rows(path, policy, delimiter=",")]
    assert got == [(1, 1), (2, 500_000), (4, 1)]
    assert policy.skipped == {"too-long": 1}
    assert csv.field_size_limit() >= MAX_LINE_CHARS


def test_csv_unclosed_quote_is_fatal_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,ok\n2,"never closed\n3,x\n4,y\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(csv_rows(path, InvalidPolicy("skip"), delimiter=","))
    assert (err.value.line, err.value.reason) == (3, "unclosed-quote")
    assert err.value.reason in FATAL_REASONS
    rows = ["a,b", '1,"opens here'] + ["x" * 1000] * 1100  # runs past the limit
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(csv_rows(path, InvalidPolicy("skip"), delimiter=","))
    assert (err.value.line, err.value.reason) == (2, "unclosed-quote")


# ----------------------------------------------------------------- whole small files


def test_read_text_is_strict_and_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_bytes(b"\xef\xbb\xbf[language]\r\nx = 1\r\n")
    assert read_text(path, "profile") == "[language]\r\nx = 1\r\n"  # BOM dropped, ends kept
    cases = {
        b"": ("empty", None),
        b"  \n\n": ("empty", None),
        b"a = 1\nb = '\xe9'\n": ("bad-encoding", 2),
        b"a = 1\r\nb = 2\x1b\n": ("control-character", 2),
        b"a\n" + b"b" * (MAX_LINE_CHARS + 1) + b"\n": ("too-long", 2),
        "a = 1\n".encode("utf-16"): ("undecodable", None),
    }
    for data, (reason, line) in cases.items():
        path.write_bytes(data)
        with pytest.raises(InputError) as err:
            read_text(path, "profile")
        assert (err.value.reason, err.value.line, err.value.path) == (reason, line, str(path))
    path.write_bytes('<a>ä</a>'.encode("utf-16"))  # a format that allows UTF-16 opts in
    assert read_text(path, "RST file", utf16=True) == "<a>ä</a>"


def test_relation_map_is_read_through_the_layer(tmp_path: Path) -> None:
    tsv = tmp_path / "map.tsv"
    tsv.write_text("# fine\tcoarse\nList\tJoint\ncause\tCause\n", encoding="utf-8")
    assert read_relation_map(tsv) == {"List": "Joint", "cause": "Cause"}
    js = tmp_path / "map.json"
    js.write_text(json.dumps({"list": "Joint"}), encoding="utf-8")
    assert read_relation_map(js) == {"list": "Joint"}
    for data, reason, line in (
        (b"List\tJoint\nList\tOther\n", "bad-relation-map", 2),
        (b"List\tJ\xf6int\n", "bad-encoding", 1),
        (b"", "empty", None),
    ):
        tsv.write_bytes(data)
        with pytest.raises(InputError) as err:
            read_relation_map(tsv)
        assert (err.value.reason, err.value.line) == (reason, line)
    with pytest.raises(InputError, match="is a folder, not a file") as err:
        read_relation_map(tmp_path)
    assert err.value.reason == "missing-file"


# ------------------------------------------------------------- no guessed encoding

LATIN1 = "für\tüber\t1.5\n".encode("latin-1")


def _reader_cases(tmp: Path) -> dict[str, tuple[Path, bytes, Callable[[Path], object]]]:
    """Every general reader, a file in its format whose one line is Latin-1, and how to read
    it (under raise)."""
    raise_ = InvalidPolicy
    return {
        "tabular tsv": (
            tmp / "t.tsv",
            b"text\tlabel\n" + "für\tb\n".encode("latin-1") + b"ok\ta\n",
            lambda p: list(TabularSource(p, "classification", {"text": "text", "label": "label"}).records(raise_())),
        ),
        "tabular jsonl": (
            tmp / "t.jsonl",
            b'{"text": "ok", "label": "a"}\n' + '{"text": "für", "label": "b"}\n'.encode("latin-1"),
            lambda p: list(TabularSource(p, "classification", {"text": "text", "label": "label"}).records(raise_())),
        ),
        "translations": (
            tmp / "de.tsv",
            b"id\ttext\n" + "train/2\tfür\n".encode("latin-1") + b"train/1\tok\n",
            lambda p: read_translations(p, raise_()),
        ),
        "similarity": (tmp / "sim.txt", b"a\tb\t1\n" + LATIN1, lambda p: SimilaritySource(p).sets(raise_())),
        "analogies": (
            tmp / "ana.txt",
            b": c\n" + "für a b c\n".encode("latin-1") + b"a b c d\n",
            lambda p: AnalogySource((p,)).read(raise_()),
        ),
        "dictionary": (tmp / "dict.txt", b"a\tb\n" + "für\tfor\n".encode("latin-1"), lambda p: read_pairs_file(p, raise_())),
        "costra": (
            tmp / "data.tsv",
            b"0\t1\tseed\tok\tok\n" + "1\t1\tban\tfür\tfür\n".encode("latin-1"),
            lambda p: read_costra(p, raise_()),
        ),
        "word list": (tmp / "words.txt", b"a\t3\n" + "für\t2\n".encode("latin-1"), lambda p: from_word_list(p, policy=raise_())),
        "unimorph": (
            tmp / "lex",
            b"Haus\tHaus\tN;NOM;SG\n" + "für\tfür\tADP\n".encode("latin-1"),
            lambda p: list(UniMorphReader([p], layout="lemma-form-feats")),
        ),
        "rst": (
            tmp / "d.rs3",
            b"<rst>\n" + "<body>für</body>\n".encode("latin-1") + b"</rst>\n",
            lambda p: list(RstSource.from_paths([p]).records(raise_())),
        ),
        "relation map": (tmp / "map.tsv", b"a\tb\n" + "für\tc\n".encode("latin-1"), read_relation_map),
        "line-aligned text": (
            tmp / "corpus.de",
            b"ok\n" + "für\n".encode("latin-1"),
            lambda p: list(LineAlignedFile(p, "de").records(raise_())),
        ),
    }  # fmt: skip


@pytest.mark.parametrize(
    "reader",
    ["tabular tsv", "tabular jsonl", "translations", "similarity", "analogies", "dictionary"]
    + ["costra", "word list", "unimorph", "rst", "relation map", "line-aligned text"],
)
def test_no_reader_guesses_an_encoding(tmp_path: Path, reader: str) -> None:
    """One Latin-1 line is that line's ``not UTF-8``, never a reason to decode the file as
    something else (``für`` was published as ``fÃ¼r``)."""
    path, data, read = _reader_cases(tmp_path)[reader]
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        read(path)
    assert (err.value.path, err.value.line, err.value.reason) == (str(path), 2, "bad-encoding")
    assert "not UTF-8" in err.value.problem


# --------------------------------------------------------------- texts in fields


def test_parsed_values_with_control_characters_never_reach_rows(tmp_path: Path) -> None:
    """JSON spells a NUL or a line break as an escape, CSV as a quoted multi-line field:
    the line itself is clean, the text is not."""
    cols = {"text": "text", "label": "label"}
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text(
        '{"text": "fine", "label": "a"}\n{"text": "a\\u0000b", "label": "a"}\n'
        '{"text": "two\\nlines", "label": "b"}\n{"text": "ok", "label": "b"}\n',
        encoding="utf-8",
    )
    csvf = tmp_path / "t.csv"
    csvf.write_text('text,label\nfine,a\n"two\nlines",b\nok,b\n', encoding="utf-8")
    for path, lines in ((jsonl, [1, 4]), (csvf, [2, 5])):
        policy = InvalidPolicy("skip")
        got = list(TabularSource(path, "classification", cols).records(policy))
        assert [e.line for e in got] == lines
        assert all(first_control(e.inputs[0]) < 0 for e in got)
        assert set(policy.skipped) == {"control-character"}
    path = tmp_path / "de.jsonl"
    path.write_text('{"id": "a", "text": "x\\u001by"}\n{"id": "b", "text": "ok"}\n', "utf-8")
    policy = InvalidPolicy("skip")
    assert list(read_translations(path, policy)) == ["b"]
    assert policy.skipped == {"control-character": 1}


def test_duplicate_user_ids_per_split(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text(
        "id\ttext\tlabel\tsplit\na\tone\tx\ttrain\nb\ttwo\ty\ttrain\na\tthree\tx\ttest\n"
        "a\tfour\ty\ttrain\n",
        encoding="utf-8",
    )
    cols = {"id": "id", "text": "text", "label": "label", "split": "split"}
    src = TabularSource(path, "classification", cols)
    with pytest.raises(InputError) as err:
        list(src.records(InvalidPolicy()))
    assert (err.value.line, err.value.reason) == (5, "duplicate-id")
    assert "duplicate id 'a' (first on line 2)" in err.value.problem
    policy = InvalidPolicy("skip")
    assert [e.id for e in src.records(policy)] == ["train/a", "train/b", "test/a"]
    assert policy.skipped == {"duplicate-id": 1}


def test_empty_and_header_only_tables_are_named(tmp_path: Path) -> None:
    cols = {"text": "text", "label": "label"}
    path = tmp_path / "t.tsv"
    for data, detail in ((b"", "no entries"), (b"\n \n", "no entries"), (b"text\tlabel\n", "only a header")):
        path.write_bytes(data)
        with pytest.raises(InputError) as err:
            list(TabularSource(path, "classification", cols).records(InvalidPolicy("skip")))
        assert err.value.reason == "empty" and detail in err.value.problem  # fmt: skip
    path.write_bytes(b"text\tlabel\n\xff\ta\n")  # every entry refused under skip
    with pytest.raises(InputError, match="all 1 of them were refused"):
        list(TabularSource(path, "classification", cols).records(InvalidPolicy("skip")))


def test_analogy_files_with_one_stem_would_collide(tmp_path: Path) -> None:
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "q.txt").write_text(": c\nw x y z\n", encoding="utf-8")
    one, two = tmp_path / "a/q.txt", tmp_path / "b/q.txt"
    for paths, words in (((one, two), "same stem"), ((one, one), "given twice")):
        with pytest.raises(InputError, match=words) as err:
            AnalogySource(paths).read(InvalidPolicy("skip"))
        assert err.value.reason == "duplicate-input"


# ------------------------------------------------------------------- one C0 rule


def test_validate_and_the_input_layer_apply_one_rule() -> None:
    """``validate`` searches parquet columns with Arrow's RE2 and the input layer searches
    lines with Python's ``re``, both with :data:`CONTROL_PATTERN`; they agree on every
    character, and what one refuses the other does."""
    assert validate_module._CONTROL == CONTROL_PATTERN
    chars = [chr(i) for i in range(0, 0xA0)] + ["\u2028", "\ufeff", "\U0001f600"]
    texts = [f"a{c}b" for c in chars]
    arrow = pc.match_substring_regex(pa.array(texts), CONTROL_PATTERN).to_pylist()
    python = [first_control(t) >= 0 for t in texts]
    assert arrow == python
    refused = {c for c, hit in zip(chars, python, strict=True) if hit}
    assert refused == {chr(i) for i in range(32)} - {"\t"}
    for c in refused - {"\n", "\r"}:  # within a line; LF/CR end it
        assert inputs.control_problem(f"a{c}b") is not None
        assert control_name(c) in inputs.control_problem(f"a{c}b")
    assert inputs.control_problem("a\tb") is None


def test_the_rule_sits_on_the_ground_floor() -> None:
    tree = ast.parse((REPO / "polyprobe/controlchars.py").read_text(encoding="utf-8"))
    imported = [
        n.module if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    ]
    assert not [m for m in imported if m and m.startswith("polyprobe")]


# --------------------------------------------- the CoNLL-U reader keeps the contract


def _conllu(sents: int = 6) -> bytes:
    out = []
    for i in range(sents):
        out.append(f"# sent_id = s{i}\n1\tw{i}\tw\tX\t_\t_\t0\troot\t_\t_\n\n")
    return "".join(out).encode()


def _defect(kind: str, path: Path) -> Path:
    data = _conllu()
    lines = data.split(b"\n")
    if kind == "missing":
        return path
    if kind == "folder":
        path.mkdir()
        return path
    if kind == "empty":
        path.write_bytes(b"")
        return path
    if kind == "truncated-gz":
        packed = gzip.compress(data * 400, mtime=0)
        path.write_bytes(packed[: len(packed) // 2])
        return path
    insert = {"bad-utf8": b"\xff", "nul": b"\x00", "long-line": b"x" * (MAX_LINE_CHARS + 5)}
    lines[7] = lines[7].replace(b"\tw2\t", b"\tw" + insert[kind] + b"2\t")  # line 8
    path.write_bytes(b"\n".join(lines))
    return path


DEFECTS = ["missing", "folder", "empty", "truncated-gz", "bad-utf8", "nul", "long-line"]


@pytest.mark.parametrize("kind", DEFECTS)
def test_conllu_reader_and_generic_reader_refuse_alike(tmp_path: Path, kind: str) -> None:
    """The same bad file through the fast CoNLL-U reader and a generic reader: the same
    reason, fatal or per line alike, the same line where the defect has one."""

    def conllu(policy: InvalidPolicy) -> int:
        return len(list(read_conllu(path, on_invalid=policy.mode, skipped=policy.skipped)))

    def generic(policy: InvalidPolicy) -> int:
        got = [line for _, line in text_lines(path, policy) if line]
        if not got:
            raise inputs.no_entries(path)
        return len(got)

    path = _defect(kind, tmp_path / "x_t-ud-dev.conllu")
    found = []
    for read in (conllu, generic):
        with pytest.raises(InputError) as err:
            read(InvalidPolicy())
        e = err.value
        found.append((e.path, e.reason, e.reason in FATAL_REASONS, e.line if kind in DEFECTS[4:] else None))
        if e.reason not in FATAL_REASONS:
            policy = InvalidPolicy("skip")
            read(policy)
            assert dict(policy.skipped) == {e.reason: 1}
    assert found[0] == found[1], found
    assert found[0][0] == str(path)


def test_newdoc_look_ahead_on_a_truncated_gzip_is_one_clean_error(tmp_path: Path) -> None:
    data = _conllu(3000)  # no # newdoc: the look-ahead reads until the break
    packed = gzip.compress(data, mtime=0)
    path = tmp_path / "x_t-ud-dev.conllu.gz"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError) as err:
        sentences_before_document_marks(path)
    e = err.value
    assert e.reason == "truncated-gzip" and e.path == str(path) and e.line and e.line > 1
    assert f"at line {e.line}" in e.problem


def test_skip_counts_of_the_generic_reader(tmp_path: Path) -> None:
    """``text_lines`` fills its stats and hands each refused line to the policy once."""
    path = tmp_path / "t.txt"
    path.write_bytes(b"a\n\n\xff\n \nb\n")
    stats = inputs.LineStats()
    policy = InvalidPolicy("skip", collections.Counter())
    got = list(text_lines(path, policy, stats=stats, refused_as_blank=True))
    assert got == [(1, "a"), (2, ""), (3, ""), (4, " "), (5, "b")]
    assert (stats.lines, stats.blank, stats.refused) == (5, 2, 1)
    assert policy.skipped == {"bad-encoding": 1}
