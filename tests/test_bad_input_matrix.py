"""The bad-input matrix: every build family fed every defect its inputs can have, through the
command line in this process, checked from outside.

A failing case must exit 2 with exactly one line on stderr, ``polyprobe: error: FILE[:LINE]:
...`` naming the bad file (and the line, where the defect has one), no traceback, and leave
nothing behind: no ``--out`` folder, nothing beside it, nothing in the temp dir. A per-line
defect (a byte that is not UTF-8, a NUL, a 10 MB line, an id given twice) must also build
under ``--on-invalid skip``: exit 0, a folder ``polyprobe validate`` accepts, and the card's
``skipped_invalid`` counting the defect's reason once.

:data:`CASES` is the table: a (family, defect) pair that does not apply is simply absent (a
truncated ``.gz`` where a family never reads gzip, duplicate ids where its format has none),
with the reason in a comment.

The inputs are tiny (a 30-sentence CoNLL-U file, 40-line tables), written once per module
from the shared data or by hand in each format's documented layout; each case copies its
family's folder and breaks one file.
"""

from __future__ import annotations

import gzip
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.cli import main

# ---------------------------------------------------------------------------- fixtures

RS3 = """<rst>
<header><relations>
  <rel name="circumstance" type="rst"/>
  <rel name="cause" type="rst"/>
  <rel name="elaboration" type="rst"/>
  <rel name="list" type="multinuc"/>
</relations></header>
<body>
  <segment id="1" parent="2" relname="circumstance">In the third quarter {n},</segment>
  <segment id="2" parent="11" relname="span">the company reported record profits</segment>
  <segment id="3" parent="2" relname="cause">because sales rose in the middle sharply.</segment>
  <segment id="4" parent="12" relname="list">Its shares climbed,</segment>
  <segment id="5" parent="12" relname="list">its bonds rallied,</segment>
  <segment id="6" parent="12" relname="list">and its rivals fell.</segment>
  <group id="11" type="span"/>
  <group id="12" type="multinuc" parent="11" relname="elaboration"/>
</body>
</rst>
"""


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _middle(i: int, n: int) -> str:
    """A marker in the row a per-line defect goes into (the middle one)."""
    return "middle" if i == n // 2 else "plain"


def _ud(data: Path, d: Path) -> None:
    for name, target in (
        ("UD_English-EWT/en_ewt-ud-dev.conllu", d / "en_ewt-ud-dev.conllu"),
        # no # newdoc marks: the discourse tasks' look-ahead for one reads the whole file
        ("UD_German-GSD/de_gsd-ud-dev.conllu", d / "gsd/de_gsd-ud-dev.conllu"),
    ):
        blocks = (data / "ud" / name).read_text("utf-8").split("\n\n")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n\n".join(blocks[:30]) + "\n\n", encoding="utf-8")


def _unimorph(data: Path, d: Path) -> None:
    lines = (data / "unimorph/sigmorphon2018/german-train-high").read_text("utf-8").splitlines()
    _write(d / "german-train-high", lines[:200])
    forms = [line.split("\t")[1] for line in lines[:200]]
    words = [f"{w}\t{200 - i}" for i, w in enumerate(dict.fromkeys(forms))]
    words[len(words) // 2] = "middle\t1"
    _write(d / "words.txt", words)  # a --frequencies word list


def _trec(data: Path, d: Path) -> None:
    d.mkdir(parents=True)
    train = (data / "trec/train_5500.label").read_bytes().splitlines(keepends=True)[:60]
    (d / "trec/train_60.label").parent.mkdir()
    (d / "trec/train_60.label").write_bytes(b"".join(train))
    test = data / "trec/TREC_10.label"
    shutil.copy(test, d / "trec")
    ids = [f"train/{i}" for i in range(1, 61)] + [f"test/{i}" for i in range(1, 501)]
    _write(d / "de.tsv", ["id\ttext"] + [f"{i}\tFrage {_middle(n, 60)} {n} ?" for n, i in enumerate(ids)])


def _rst(data: Path, d: Path) -> None:
    for sub, n in (("train", 1), ("train", 2), ("train", 3), ("dev", 4), ("test", 5)):
        path = d / sub / f"doc{n}.rs3"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(RS3.format(n=n), encoding="utf-8")


def _parallel(data: Path, d: Path) -> None:
    n = 60
    en = [f"Item {i} is {'short' if i % 2 else 'a much longer sentence with more words'} ." for i in range(n)]
    de = [
        f"Satz {i} ist {'kurz' if i % 2 else 'ein viel längerer Satz mit mehr Wörtern'} {_middle(i, n)} ."
        for i in range(n)
    ]
    _write(d / "corpus.en", en)
    _write(d / "corpus.de", de)
    _write(d / "ids.txt", [f"s{i}" for i in range(n)])


def _table(header: str, row: Callable[[int, str], str]) -> Callable[[Path, Path], None]:
    def write(data: Path, d: Path) -> None:
        _write(d / "table.tsv", [header] + [row(i, _middle(i, 40)) for i in range(40)])

    return write


def _concepts(d: Path) -> None:
    """Multi-SimLex's Concepticon layout, 40 concepts paired 1-2, 3-4, ..."""
    rows = ["ID\tNUMBER\tGLOSS\tPOS\tLINKS\tENGLISH\tFINNISH\tENGLISH_SCORE\tFINNISH_SCORE"]
    for k in range(1, 41):
        other = k + 1 if k % 2 else k - 1
        rows.append(f"c-{k}\t{k}\tg{k}\tnouns\t{other}\tword{k}\tsana{k}\t{k % 6}.5\t{k % 5}.5")
    _write(d / "concepts.tsv", rows)


def _similarity(data: Path, d: Path) -> None:
    _write(d / "pairs.txt", [f"word{i}\tterm {_middle(i, 40)}{i}\t{i % 10}.5" for i in range(40)])
    _concepts(d)


def _analogies(data: Path, d: Path) -> None:
    rows = [": capital-country"] + [f"city{i} land{i} city{i + 1} land{i + 1}" for i in range(20)]
    rows += [": gram-plural"] + [f"cat{i} cats{i} dog{_middle(i, 20)} dogs{i}" for i in range(20)]
    _write(d / "questions.txt", rows)


def _dictionary(data: Path, d: Path) -> None:
    _write(d / "fi-en.txt", [f"sana{i}\tword{_middle(i, 40)}{i}" for i in range(40)])
    _concepts(d)


def _costra(data: Path, d: Path) -> None:
    lines = (data / "costra/data.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if int(line.split("\t")[1]) <= 2]
    new_id = {r[0]: str(i) for i, r in enumerate(rows)}
    keep = []
    for r in rows:
        refs = [",".join(new_id[x] for x in f.split(",") if x in new_id) for f in r[5:9]]
        keep.append("\t".join([new_id[r[0]], *r[1:5], *refs]))
    _write(d / "costra/data.tsv", keep)
    shutil.copy(data / "costra/README", d / "costra/README")


def _senteval(data: Path, d: Path) -> None:
    """SentEval's probing line format: split code, label, sentence; no header."""
    codes = ["tr"] * 28 + ["va"] * 6 + ["te"] * 6
    _write(
        d / "probing/subj_number.txt",
        [f"{c}\t{'NN' if i % 2 else 'NNS'}\tThe {_middle(i, 40)} cats number {i} ." for i, c in enumerate(codes)],
    )


def _wiki(data: Path, d: Path) -> None:
    pages = []
    for i in range(30):
        text = " ".join(
            f"Sentence {j} of page {i} is {'short' if j % 2 else 'a good deal longer than that'} ."
            for j in range(4)
        )
        text = text.replace("Sentence 2", "Sentence middle") if i == 15 else text
        pages.append(
            f"<page><title>Page {i}</title><ns>0</ns><id>{i + 1}</id><revision><id>{i + 100}"
            f"</id><text>{text}</text></revision></page>"
        )
    head = '<mediawiki xml:lang="en"><siteinfo><dbname>enwiki</dbname></siteinfo>'
    _write(d / "enwiki-dump.xml", [head, *pages, "</mediawiki>"])


def _text(data: Path, d: Path) -> None:
    _write(
        d / "lines.txt",
        [f"Line {i} is {'short' if i % 2 else 'a good deal longer'} {_middle(i, 60)} ." for i in range(60)],
    )


@dataclass(frozen=True)
class Input:
    """One way a family reads a file: which file the defects go into (relative to the
    family's folder), the build's arguments (``f``: the family folder, ``t``: the target as
    the defect left it), and where in a line a per-line defect goes."""

    target: str
    args: Callable[[Path, Path], list[object]]
    column: int | None = None  # insert after the first character of this tab column...
    # ...of the middle line that holds a word character there; None: after "mid" of the
    # line holding the "middle" marker
    skip_extra: frozenset[str] = frozenset()  # reasons a skipped item may cause besides its own


@dataclass(frozen=True)
class Family:
    write: Callable[[Path, Path], None]
    inputs: dict[str, Input] = field(default_factory=dict)  # variant name -> input ("" default)


ONE = ["--min-per-class", "1"]
FAMILIES: dict[str, Family] = {
    "ud": Family(
        _ud,
        {
            "": Input(
                "en_ewt-ud-dev.conllu",
                lambda f, t: ["ud", t, "--lang", "en", "--tasks", "sentence_length", *ONE],
                column=1,
            ),
            "documents": Input(
                "gsd/de_gsd-ud-dev.conllu",
                lambda f, t: ["ud", t, "--lang", "de"]
                + ["--tasks", "sentence_length,sentence_position", *ONE],
                column=1,
            ),
        },
    ),
    "unimorph": Family(
        _unimorph,
        {
            "": Input(
                "german-train-high",
                lambda f, t: ["unimorph", t, "--lang", "de", "--tasks", "number", "--scale"]
                + ["--min-forms", "10", *ONE],
                column=0,
            ),
            "frequencies": Input(
                "words.txt",
                lambda f, t: ["unimorph", f / "german-train-high", "--frequencies", t]
                + ["--lang", "de", "--tasks", "number", "--scale", "--min-forms", "10", *ONE],
            ),
        },
    ),
    "trec": Family(
        _trec,
        {
            "": Input("trec/train_60.label", lambda f, t: ["trec", f / "trec"], column=-1),
            "translation": Input(
                "de.tsv",
                lambda f, t: ["trec", f / "trec", "--translation", t, "--lang", "de"],
                skip_extra=frozenset({"missing-translation"}),
            ),
        },
    ),
    "rst": Family(
        _rst,
        {
            "": Input(
                "train/doc2.rs3",
                lambda f, t: ["rst", f / "train/doc1.rs3", t, f / "train/doc3.rs3", f / "dev"]
                + [f / "test", "--lang", "en", *ONE],
            )
        },
    ),
    "parallel": Family(
        _parallel,
        {
            "": Input(
                "corpus.de",
                lambda f, t: ["parallel", f / "corpus.en", t, "--tasks", "sentence_length", *ONE],
            ),
            "ids": Input(
                "ids.txt",
                lambda f, t: ["parallel", f / "corpus.en", f / "corpus.de", "--line-ids", t]
                + ["--tasks", "sentence_length", *ONE],
            ),
        },
    ),
    "classification": Family(
        _table("id\tsentence\tlabel", lambda i, m: f"r{i}\tA {m} film number {i} .\t{i % 2}"),
        {
            "": Input(
                "table.tsv",
                lambda f, t: ["classification", t, "--columns", "text=sentence,label=label,id=id"]
                + ["--lang", "en"],
            )
        },
    ),
    "pairs": Family(
        _table(
            "id\tsentence1\tsentence2\tlabel",
            lambda i, m: f"p{i}\tWords in {m} order {i} .\tOrder in words {i} .\t{i % 2}",
        ),
        {"": Input("table.tsv", lambda f, t: ["pairs", t, "--preset", "paws", "--lang", "en"])},
    ),
    "regression": Family(
        _table(
            "id\tsentence1\tsentence2\tscore",
            lambda i, m: f"s{i}\tA dog runs {m} {i} .\tA dog walks {i} .\t{i % 5}.{i % 10}",
        ),
        {
            "": Input(
                "table.tsv",
                lambda f, t: ["regression", t, "--columns"]
                + ["sentence1=sentence1,sentence2=sentence2,score=score,id=id", "--lang", "en"],
            )
        },
    ),
    "similarity": Family(
        _similarity,
        {
            "": Input("pairs.txt", lambda f, t: ["similarity", t, "--lang", "en"]),
            "concepticon": Input(
                "concepts.tsv",
                lambda f, t: ["similarity", t, "--lang", "en", "--cross-lingual", "fi"],
            ),
        },
    ),
    "analogies": Family(
        _analogies,
        {"": Input("questions.txt", lambda f, t: ["analogies", t, "--lang", "en"])},
    ),
    "dictionary": Family(
        _dictionary,
        {
            "": Input(
                "fi-en.txt", lambda f, t: ["dictionary", t, "--lang", "fi", "--target-lang", "en"]
            ),
            "concepticon": Input(
                "concepts.tsv",
                lambda f, t: ["dictionary", t, "--multisimlex", "--lang", "en"]
                + ["--target-lang", "fi"],
            ),
        },
    ),
    "costra": Family(
        _costra,
        {
            # a dropped sentence leaves comparisons that name it (counted as unknown-id)
            "": Input(
                "costra/data.tsv",
                lambda f, t: ["costra", t.parent if t.name == "data.tsv" else t],
                column=3,
                skip_extra=frozenset({"unknown-id"}),
            )
        },
    ),
    # the line format has no ids (duplicate-id does not apply)
    "senteval": Family(
        _senteval,
        {"": Input("probing/subj_number.txt", lambda f, t: ["senteval", t, "--lang", "en"])},
    ),
    "wiki": Family(
        _wiki,
        {
            "": Input(
                "enwiki-dump.xml",
                lambda f, t: ["wiki", t, "--lang", "en", "--tasks", "sentence_length", *ONE],
            )
        },
    ),
    "text": Family(
        _text,
        {
            "": Input(
                "lines.txt",
                lambda f, t: ["text", t, "--lang", "en", "--tasks", "sentence_length", *ONE],
            )
        },
    ),
}

# ------------------------------------------------------------------------------ cases

WHOLE_FILE = ("empty", "folder", "missing")
PER_LINE = ("bad-utf8", "nul", "long-line")
ALL = (*WHOLE_FILE, *PER_LINE)
#: the reason each per-line defect is counted under with --on-invalid skip
REASON = {"bad-utf8": "bad-encoding", "nul": "control-character", "long-line": "too-long"}
DUP_REASON = {"ud": "duplicate-sent-id", "rst": "bad-rs3"}  # else duplicate-id


@dataclass(frozen=True)
class Case:
    family: str
    defect: str
    variant: str = ""
    # "built": under --on-invalid skip the build goes on (per-line defects and duplicates);
    # "fatal": the defect leaves nothing to skip to (a broken XML stream)
    skip: str = "built"
    marks: tuple[pytest.MarkDecorator, ...] = ()  # of the refusal test
    skip_marks: tuple[pytest.MarkDecorator, ...] = ()  # of the --on-invalid skip test

    @property
    def id(self) -> str:
        return f"{self.family}{'-' + self.variant if self.variant else ''}/{self.defect}"


CASES: list[Case] = [
    # every family, every whole-file and per-line defect
    *(
        Case(family, defect)
        for family in ("ud", "unimorph", "rst", "parallel", "classification", "pairs")
        + ("regression", "similarity", "analogies", "dictionary", "costra", "text", "senteval")
        for defect in ALL
    ),
    # TREC: its files' encoding is detected and recorded (the documented exception), so a
    # byte that is not UTF-8 is tested in the translation file, which is strict UTF-8
    *(Case("trec", d) for d in (*WHOLE_FILE, "nul", "long-line")),
    *(Case("trec", d, "translation") for d in ALL),
    # the word list a UniMorph build ranks its forms by (--frequencies)
    *(Case("unimorph", d, "frequencies") for d in ALL),
    Case("unimorph", "truncated-gz", "frequencies", skip="fatal"),
    # a MediaWiki dump is XML: a bad byte or a NUL breaks the parse (fatal at its line, no
    # item to skip); an over-long line drops its page
    *(Case("wiki", d) for d in WHOLE_FILE),
    Case("wiki", "long-line"),
    Case("wiki", "bad-utf8", skip="fatal"),
    Case("wiki", "nul", skip="fatal"),
    # a truncated .gz where the family reads gzip (by content; TREC and RST files are read
    # as distributed, by name): fatal under skip too, nothing after the break is readable
    *(
        Case(family, "truncated-gz", skip="fatal")
        for family in ("ud", "unimorph", "parallel", "classification", "pairs", "regression")
        + ("similarity", "analogies", "dictionary", "costra", "wiki", "text", "senteval")
    ),
    # ... also where the discourse tasks look for a # newdoc mark before reading
    Case("ud", "truncated-gz", "documents", skip="fatal"),
    # ids given twice, where the format has ids: sent_id, .rs3 node ids, line ids, a user's
    # id column, concept numbers, COSTRA's sentence ids, translation ids. (UniMorph, TREC's
    # own files, analogies, word lists, plain text and dumps have none.)
    Case("ud", "duplicate-id"),
    Case("rst", "duplicate-id"),
    Case("parallel", "duplicate-id", "ids"),
    Case("classification", "duplicate-id"),
    Case("pairs", "duplicate-id"),
    Case("regression", "duplicate-id"),
    Case("similarity", "duplicate-id", "concepticon"),
    Case("dictionary", "duplicate-id", "concepticon"),
    Case("costra", "duplicate-id"),
    Case("trec", "duplicate-id", "translation"),
]


def _skippable() -> list[Case]:
    return [c for c in CASES if c.defect in (*PER_LINE, "duplicate-id") and c.skip == "built"]


# --------------------------------------------------------------------------- defects


@dataclass
class Broken:
    """What a defect did: the path the build is given, the path and line the error must
    name."""

    given: Path
    named: Path
    line: int | None = None


_LONG = b"ab " * 3_500_000  # 10.5 MB


def _locate(lines: list[bytes], column: int | None) -> tuple[int, int]:
    """(line index, byte offset) where a per-line defect goes."""
    if column is None:
        index = next(i for i, line in enumerate(lines) if b"middle" in line)
        return index, lines[index].index(b"middle") + 3
    candidates = []
    for i, line in enumerate(lines):
        if column == -1:  # TREC: inside the question, after the label
            if b" " in line:
                candidates.append((i, line.index(b" ") + 2))
            continue
        cols = line.split(b"\t")
        if len(cols) <= column or not cols[column][:1].isalpha():
            continue
        if column == 1 and not cols[0].isdigit():  # CoNLL-U: a word line's FORM
            continue
        candidates.append((i, sum(len(c) + 1 for c in cols[:column]) + 1))
    return candidates[len(candidates) // 2]


def _duplicate(family: str, target: Path) -> int:
    """Give an id a second time in ``target``; the 1-based line of the second."""
    text = target.read_text(encoding="utf-8")
    lines = text.split("\n")
    if family == "ud":
        blocks = text.rstrip("\n").split("\n\n")
        blocks.insert(20, blocks[5])
        target.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
        return "\n\n".join(blocks[:20]).count("\n") + 3
    if family == "rst":
        at = next(i for i, line in enumerate(lines) if 'segment id="3"' in line)
        lines[at] = lines[at].replace('segment id="3"', 'segment id="2"')
    elif family == "costra":
        at = 20
        cols = lines[at].split("\t")
        cols[0] = lines[5].split("\t")[0]
        lines[at] = "\t".join(cols)
    else:  # the first column is the id (a table, the ids file, a concept's ID and NUMBER)
        at = 30
        cols = lines[at].split("\t")
        first = lines[10].split("\t")
        cols[: 2 if family in ("similarity", "dictionary") else 1] = first[
            : 2 if family in ("similarity", "dictionary") else 1
        ]
        lines[at] = "\t".join(cols)
    target.write_text("\n".join(lines), encoding="utf-8")
    return at + 1


def _break(case: Case, folder: Path) -> Broken:
    spec = FAMILIES[case.family].inputs[case.variant]
    target = folder / spec.target
    if case.defect == "empty":
        target.write_bytes(b"")
        return Broken(target, target)
    if case.defect == "folder":
        target.unlink()
        target.mkdir()
        return Broken(target, target)
    if case.defect == "missing":
        target.unlink()
        named = target.parent if case.family == "trec" and not case.variant else target
        return Broken(target, named)
    if case.defect == "truncated-gz":
        packed = gzip.compress(target.read_bytes(), mtime=0)
        gz = target.with_name(target.name + ".gz")
        gz.write_bytes(packed[: len(packed) // 2])
        target.unlink()
        return Broken(gz, gz)
    if case.defect == "duplicate-id":
        return Broken(target, target, _duplicate(case.family, target))
    lines = target.read_bytes().split(b"\n")
    index, at = _locate(lines, spec.column)
    what = {"bad-utf8": b"\xff", "nul": b"\x00", "long-line": _LONG}[case.defect]
    lines[index] = lines[index][:at] + what + lines[index][at:]
    target.write_bytes(b"\n".join(lines))
    line = index + 1
    return Broken(target, target, line)


# ---------------------------------------------------------------------------- running


@pytest.fixture(scope="module")
def clean(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every family's inputs, written once."""
    root = tmp_path_factory.mktemp("clean")
    for name, family in FAMILIES.items():
        family.write(data_dir, root / name)
    return root


class Runner:
    def __init__(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
        self.tmp = tmp_path / "tmpdir"
        self.tmp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(self.tmp))
        self.capsys = capsys
        self.outs = tmp_path / "outs"
        self.outs.mkdir()

    def build(self, argv: list[object], name: str, *extra: str) -> tuple[int, str, Path]:
        out = self.outs / name
        code = main(["build", *map(str, argv), "--out", str(out), "--quiet", *extra])
        return code, self.capsys.readouterr().err, out


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> Runner:
    return Runner(tmp_path, capsys, monkeypatch)


def _prepare(case: Case, clean: Path, tmp_path: Path) -> tuple[list[object], Broken]:
    folder = tmp_path / case.family
    shutil.copytree(clean / case.family, folder)
    broken = _break(case, folder)
    spec = FAMILIES[case.family].inputs[case.variant]
    return spec.args(folder, broken.given), broken


def _params(cases: list[Case], skip: bool = False) -> list[object]:
    return [pytest.param(c, id=c.id, marks=c.skip_marks if skip else c.marks) for c in cases]


@pytest.mark.parametrize("case", _params(CASES))
def test_refused_in_one_line_naming_the_file(
    case: Case, clean: Path, tmp_path: Path, run: Runner
) -> None:
    argv, broken = _prepare(case, clean, tmp_path)
    code, err, out = run.build(argv, "out")
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    line = err.rstrip("\n")
    assert line.startswith("polyprobe: error: ") and "Traceback" not in err, err
    where = f"{broken.named}:{broken.line}: " if broken.line else f"{broken.named}"
    assert where in line, f"{where!r} not in {line!r}"
    if case.defect == "empty":
        assert "empty" in line, line
    if case.defect == "truncated-gz":
        assert "truncated gzip" in line, line
    if case.defect == "long-line":
        assert "1,000,000" in line, line  # the limit is stated
    assert not out.exists()
    assert list(run.outs.iterdir()) == []  # nothing staged beside --out
    assert list(run.tmp.iterdir()) == []  # nothing left in the temp dir


@pytest.mark.parametrize("case", _params(_skippable(), skip=True))
def test_skipped_and_counted_under_skip(
    case: Case, clean: Path, tmp_path: Path, run: Runner
) -> None:
    argv, _ = _prepare(case, clean, tmp_path)
    code, err, out = run.build(argv, "out", "--on-invalid", "skip")
    assert code == 0, err
    report = validate(out)
    assert report.ok, report.summary()
    reason = REASON.get(case.defect) or DUP_REASON.get(case.family, "duplicate-id")
    skipped = read_readme(out / "README.md")[0]["polyprobe"]["skipped_invalid"]
    assert skipped.get(reason) == 1, skipped
    spec = FAMILIES[case.family].inputs[case.variant]
    assert set(skipped) - {reason} <= spec.skip_extra, skipped


@pytest.mark.parametrize("case", _params([c for c in CASES if c.skip == "fatal"]))
def test_fatal_even_under_skip(case: Case, clean: Path, tmp_path: Path, run: Runner) -> None:
    argv, broken = _prepare(case, clean, tmp_path)
    code, err, out = run.build(argv, "out", "--on-invalid", "skip")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    where = f"{broken.named}:{broken.line}: " if broken.line else f"{broken.named}"
    assert err.startswith("polyprobe: error: ") and where in err, err
    assert not out.exists() and list(run.outs.iterdir()) == [] and list(run.tmp.iterdir()) == []


def test_the_table_is_explicit() -> None:
    """Every family is in the table with every whole-file defect, and every case names a
    defect the runner knows: a case that does not apply is left out, never skipped."""
    assert {c.family for c in CASES} == set(FAMILIES) and len(FAMILIES) == 15
    for family in FAMILIES:
        assert {c.defect for c in CASES if c.family == family} >= set(WHOLE_FILE)
    assert len({c.id for c in CASES}) == len(CASES)
    known = {*ALL, "truncated-gz", "duplicate-id"}
    assert {c.defect for c in CASES} <= known
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)?/[a-z0-9-]+", c.id) for c in CASES)
