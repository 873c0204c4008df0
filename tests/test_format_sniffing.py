"""A reader given another family's file refuses it in one line naming the command that reads
it (issue 36 item 4), UniMorph refuses a 4th column that is not a segmentation, and a stray
CR is reported at its own line (issue 36, "messages that mislead").

Each refusal is checked from outside: exit 2, one ``polyprobe: error:`` line naming the file
(and line), no ``--out`` folder. The rules must never refuse a reader's own file: every
shared treebank, lexicon and TREC file is sniffed as its own format."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from polyprobe.cli import main
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import numbered_lines
from polyprobe.loaders.sniff import FORMATS, sniff, sniff_file
from polyprobe.loaders.unimorph import UniMorphReader
from polyprobe.loaders.unimorph_source import read_lexicon

CONLLU = """# sent_id = s1
# text = The dog barks .
1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_
2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_
3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# sent_id = s2
# text = Cats sleep .
1\tCats\tcat\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_
2\tsleep\tsleep\tVERB\tVBP\t_\t0\troot\t_\t_
3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_
"""
UNIMORPH = [
    "walk\twalked\tV;PST",
    "walk\twalks\tV;3;SG;PRS",
    "talk\ttalked\tV;PST",
    "talk\ttalks\tV;3;SG;PRS",
]


def _build(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> tuple[int, str]:
    code = main(["build", *argv, "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    return code, err


def _refused(code: int, err: str, out: Path, expect: str) -> None:
    assert code == 2
    assert err.count("\n") == 0 and "Traceback" not in err, err
    assert err == f"polyprobe: error: {expect}", err
    assert not out.exists()


def test_build_text_refuses_conllu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "corpus.txt"
    f.write_text(CONLLU, encoding="utf-8")
    out = tmp_path / "out"
    code, err = _build(capsys, out, "text", str(f), "--lang", "en")
    _refused(code, err, out, f"{f}: this looks like CoNLL-U (use `build ud`)")


def test_build_text_refuses_a_lexicon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "eng.txt"
    f.write_text("\n".join(UNIMORPH) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code, err = _build(capsys, out, "text", str(f), "--lang", "en")
    _refused(
        code,
        err,
        out,
        f"{f}: this looks like a UniMorph lexicon (lemma, form, features) (use `build unimorph`)",
    )


def test_a_sentiment_table_with_pos_neg_labels_builds(tmp_path: Path) -> None:
    """POS and NEG are UniMorph polarity tags: a table whose label column holds them reads
    like a lexicon to the sniffer, and is still the user's table."""
    from polyprobe import build_classification

    rows = [f"s{i}\tA {'good' if i % 2 else 'bad'} film number {i} .\t{'POS' if i % 2 else 'NEG'}"
            for i in range(60)]  # fmt: skip
    assert sniff(rows) is FORMATS["unimorph"]
    files = []
    for split, part in (("train", rows[:40]), ("test", rows[40:])):
        f = tmp_path / f"sst-{split}.tsv"
        f.write_text("id\tsentence\tlabel\n" + "\n".join(part) + "\n", encoding="utf-8")
        files.append(f"{split}={f}")
    out = build_classification(files, lang="en", columns="text=sentence,label=label,id=id",
                               min_per_class=(5, 0, 5), out=tmp_path / "sst").out  # fmt: skip
    assert (out / "README.md").is_file()


@pytest.mark.parametrize("family", ["classification", "pairs"])
def test_tabular_builds_refuse_conllu(
    family: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "train.tsv:1: no column(s) label, text in the header (# sent_id = s1)"."""
    f = tmp_path / "train.tsv"
    f.write_text(CONLLU, encoding="utf-8")
    out = tmp_path / "out"
    columns = (
        "text=text,label=label"
        if family == "classification"
        else ("sentence1=a,sentence2=b,label=label")
    )
    code, err = _build(capsys, out, family, f"train={f}", "--lang", "en", "--columns", columns)
    _refused(code, err, out, f"{f}: this looks like CoNLL-U (use `build ud`)")


def test_build_trec_refuses_conllu_named_as_trec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    d = tmp_path / "trec"
    d.mkdir()
    (d / "train_5500.label").write_text(CONLLU, encoding="utf-8")
    (d / "TREC_10.label").write_bytes((data_dir / "trec" / "TREC_10.label").read_bytes())
    out = tmp_path / "out"
    code, err = _build(capsys, out, "trec", str(d))
    # was "truncated: ... (download it again)"
    _refused(code, err, out, f"{d / 'train_5500.label'}: this looks like CoNLL-U (use `build ud`)")


def test_build_unimorph_refuses_conllu_and_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "lexicon"
    f.write_text(CONLLU, encoding="utf-8")
    out = tmp_path / "out"
    code, err = _build(capsys, out, "unimorph", str(f), "--lang", "en")
    _refused(code, err, out, f"{f}: this looks like CoNLL-U (use `build ud`)")
    t = tmp_path / "table.tsv"
    t.write_text("sentence\tlabel\nThe dog barks .\tpresent\nCats slept .\tpast\n", "utf-8")
    code, err = _build(capsys, out, "unimorph", str(t), "--lang", "en")
    _refused(code, err, out, f"{t}: this looks like a table with a header (use `build tabular`)")
    h = tmp_path / "with-header.tsv"
    h.write_text("lemma\tform\tfeatures\n" + "\n".join(UNIMORPH) + "\n", encoding="utf-8")
    code, err = _build(capsys, out, "unimorph", str(h), "--lang", "en")
    expect = f"{h}:1: a header line (lemma, form, features): a UniMorph file has none (remove it)"
    _refused(code, err, out, expect)


def test_unimorph_fourth_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "eng"
    f.write_text("\n".join([*UNIMORPH[:2], "talk\ttalked\tV;PST\tpast", UNIMORPH[3]]) + "\n")
    out = tmp_path / "out"
    code, err = _build(capsys, out, "unimorph", str(f), "--lang", "en")
    expect = (
        f"{f}:3: a 4th column 'past' that is not a morpheme segmentation ('|'-joined morphs, "
        "UniMorph 4's segmentation files); a UniMorph line has 3 columns (lemma-form-feats)"
    )
    _refused(code, err, out, expect)
    # five columns
    f.write_text("\n".join([*UNIMORPH[:3], "talk\ttalks\tV;3;SG;PRS\ttalk|s\tx"]) + "\n")
    with pytest.raises(InputError) as ei:
        list(UniMorphReader([f]))
    assert (ei.value.line, ei.value.reason) == (4, "extra-column")
    assert "5 tab-separated columns" in ei.value.problem
    # UniMorph 4's segmentation column is read (and not published); a trailing tab is nothing
    f.write_text("walk\twalked\tV;PST\twalk|ed\ntalk\ttalks\tV;3;SG;PRS\t\n", encoding="utf-8")
    entries = list(UniMorphReader([f]))
    assert [(e.form, e.tag) for e in entries] == [("walked", "V;PST"), ("talks", "V;3;SG;PRS")]
    # under --on-invalid skip the line is counted under its reason
    from polyprobe.loaders.source import InvalidPolicy

    f.write_text("\n".join([*UNIMORPH[:2], "talk\ttalked\tV;PST\tpast", UNIMORPH[3]]) + "\n")
    policy = InvalidPolicy("skip")
    assert len(list(UniMorphReader([f], policy=policy))) == 3
    assert policy.skipped["extra-column"] == 1


def test_stray_cr_is_reported_at_its_line(tmp_path: Path) -> None:
    f = tmp_path / "eng"
    f.write_bytes(b"walk\twalked\tV;PST\nwalk\twal\rks\tV;3;SG;PRS\ntalk\ttalked\tV;PST\nbad\n")
    lines = list(numbered_lines(f))
    assert [n for n, _ in lines] == [1, 2, 3, 4]  # the CR ends no line
    assert lines[1][1].problem == "control character U+000D (CR) in column 2"  # type: ignore[attr-defined]
    with pytest.raises(InputError) as ei:
        list(UniMorphReader([f]))
    assert ei.value.line == 2 and ei.value.reason == "control-character"
    from polyprobe.loaders.source import InvalidPolicy

    class Recording(InvalidPolicy):
        def __init__(self) -> None:
            super().__init__("skip")
            self.errors: list[InputError] = []

        def reject(self, error: InputError) -> None:
            self.errors.append(error)
            super().reject(error)

    policy = Recording()
    assert len(list(UniMorphReader([f], policy=policy))) == 2
    # the line after the CR's keeps its number: "bad" was reported as line 5
    assert [(e.line, e.reason) for e in policy.errors] == [
        (2, "control-character"),
        (4, "bad-column-count"),
    ]
    # CRLF line ends stay line ends, and a file of CR line ends only (classic Mac) is read
    f.write_bytes(b"walk\twalked\tV;PST\r\ntalk\ttalked\tV;PST\r\n")
    assert [line for _, line in numbered_lines(f)] == UNIMORPH[0:1] + UNIMORPH[2:3]
    f.write_bytes(b"a\rb\rc")
    assert [line for _, line in numbered_lines(f)] == ["a", "b", "c"]


def test_read_lexicon_of_nothing_is_a_user_message() -> None:
    with pytest.raises(UsageError, match="no UniMorph lexicon given"):
        read_lexicon([], policy=None)  # type: ignore[arg-type]


def test_no_shared_file_is_refused_by_its_own_reader(data_dir: Path) -> None:
    treebanks = sorted((data_dir / "ud").glob("UD_*/*.conllu"))
    assert len(treebanks) >= 16
    for f in treebanks:
        head = [line for _, line in itertools.islice(numbered_lines(f), 200)]
        found = sniff(head)
        assert found is not None and found.key == "conllu", f
    lexicons = [
        p
        for p in sorted((data_dir / "unimorph").rglob("*"))
        if p.is_file()
        and p.suffix != ".md"
        and not p.name.upper().startswith(("README", "LICENSE"))
    ]
    assert len(lexicons) >= 40
    for f in lexicons:
        sniff_file(f, "unimorph")  # raises on a false refusal
    for f in sorted((data_dir / "trec").glob("*.label")):
        from polyprobe.loaders.trec import read_trec_file

        assert read_trec_file(f).questions


def test_build_ud_refuses_a_lexicon_and_trec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    f = tmp_path / "en_lex-ud-dev.conllu"
    f.write_text("\n".join(UNIMORPH) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code, err = _build(capsys, out, "ud", str(f), "--lang", "en")
    expect = (
        f"{f}: this looks like a UniMorph lexicon (lemma, form, features) (use `build unimorph`)"
    )
    _refused(code, err, out, expect)
    t = tmp_path / "en_trec-ud-test.conllu"
    t.write_bytes((data_dir / "trec" / "TREC_10.label").read_bytes())
    code, err = _build(capsys, out, "ud", str(t), "--lang", "en")
    expect = f"{t}: this looks like TREC question classification (COARSE:fine question) (use `build trec`)"
    _refused(code, err, out, expect)
    # plain text is no other family's format: the reader's own message names the line
    p = tmp_path / "en_text-ud-test.conllu"
    p.write_text("The dog barks.\nCats sleep.\n", encoding="utf-8")
    code, err = _build(capsys, out, "ud", str(p), "--lang", "en")
    _refused(code, err, out, f"{p}:1: expected 10 tab-separated columns, found 1")


def test_an_empty_lexicon_folder_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "eus"
    folder.mkdir()
    (folder / "README.md").write_text("# nothing here\n", encoding="utf-8")
    out = tmp_path / "out"
    for argv in (["unimorph", str(folder)], ["analogies", "--unimorph", str(folder)]):
        code, err = _build(capsys, out, *argv, "--lang", "eu")
        # was "read_lexicon needs at least one source, all with the same layout, ..."
        _refused(code, err, out, f"{folder}: the folder holds no lexicon files")


def test_what_is_no_other_format() -> None:
    # plain sentences, a list of names with commas, a one-column word list: nobody's format
    assert sniff(["The dog barks.", "Cats sleep all day.", "It rains."]) is None
    assert sniff(["Smith, John", "Doe, Jane", "Roe, Richard"]) is None
    assert sniff(["Haus", "Hauses", "Häuser"]) is None
    # a few odd lines do not make a file another format: 4 of 10 CoNLL-U-like lines
    token = "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_"
    assert sniff([token] * 4 + ["A plain sentence ."] * 6) is None
    found = sniff(["DESC:manner How did serfdom develop ?", "NUM:date When was it built ?"])
    assert found is not None and found.command == "build trec"
    found = sniff(['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">', "<page>"])
    assert found is not None and found.command == "build wiki"
    # a classification table's 0/1 (or score) column is no feature bundle, with or without
    # its header (a bare number is a valid tag atom, never a whole UniMorph bundle)
    rows = [f"r{i}\tA film number {i} .\t{i % 2}" for i in range(40)]
    assert sniff(rows) is None
    assert sniff(["id\tsentence\tlabel", *rows]) is FORMATS["table"]
    assert sniff([f"p{i}\tA b\t3.5" for i in range(10)]) is None
    # STS-B's ten columns start with an index, as a CoNLL-U token line does, but its 7th
    # column is a source name, never a head
    sts = [
        "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore",
        *(f"{i}\tmain-captions\tMSRvid\t2012test\t{i:04d}\tnone\tnone\tA man {i} .\tA boy {i} ."
          f"\t{i % 5}.000" for i in range(20)),
    ]  # fmt: skip
    assert sniff(sts) is FORMATS["table"]
    assert sniff(sts[1:]) is None
