"""Token-per-line entity-tagged files (CoNLL-2003, two-column IOB/BIOES, WikiANN) as
:class:`TaggedSentence` records with IOB2 tags.

Why one reader for three layouts: NER corpora are published in a handful of near-identical
layouts that differ only in how many columns precede the tag and whether tokens carry a
language prefix, while the sentence structure (one token a line, a blank line between
sentences) is the same. The layout is read from a file's first token line and then held
for every line of that file, so a line that breaks it is named, not silently misread:

* **CoNLL-2003**: ``token POS chunk TAG`` (space separated), ``-DOCSTART- -X- -X- O`` lines
  between documents; the original English release tags IOB1;
* **two columns**: ``token<TAB or space>TAG`` in IOB2, BIOES or BILOU;
* **WikiANN** (Pan et al. 2017, Rahimi et al. 2019's split): ``xx:token<TAB>TAG``; the
  ``xx:`` prefix is stripped and declared as the file's language (checked against
  ``--lang`` by the build, like any declared language).

The tag is always the last column. Each file's scheme is detected from all its tags and
converted to IOB2 (:mod:`polyprobe.loaders.iob_schemes`); the record says what was found so
the card can. A malformed line (no tag column, a tag that is no ``O``/``B-X``/..., a column
count unlike the file's, a WikiANN token without its prefix) is an ``InputError`` naming
file and line; under ``--on-invalid skip`` its sentence is dropped (a tagger needs every
token of a sentence) and the line counted by reason. Every file is opened through the input
layer, and a file in another family's format (CoNLL-U) is refused in one line first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.declared import DeclaredLanguage, declared
from polyprobe.loaders.inputs import (
    BadLine,
    LineStats,
    check_file,
    no_entries,
    numbered_lines,
    text_lines,
)
from polyprobe.loaders.iob_schemes import TAG, Scheme, detect_scheme, to_iob2
from polyprobe.loaders.records import SourceFile
from polyprobe.loaders.sniff import SNIFF_LINES, sniff_file
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

__all__ = [
    "DOCSTART",
    "IobFile",
    "IobSource",
    "Layout",
    "TaggedSentence",
    "iob_files",
    "split_of_name",
]

DOCSTART = "-DOCSTART-"
_PREFIX = re.compile(r"^([a-z]{2,3}):(.+)$")
# Files a corpus folder holds beside its data: never read as tagged text.
_NOT_DATA = re.compile(
    r"^(?:readme|license|licence|copying|changes)\b|\.(?:md|json|ya?ml|py)$", re.I
)
_SPLIT_WORDS: dict[str, str] = {
    "train": "train",
    "training": "train",
    "dev": "dev",
    "development": "dev",
    "valid": "dev",
    "validation": "dev",
    "testa": "dev",  # CoNLL-2003: eng.testa is the development set
    "test": "test",
    "testb": "test",  # and eng.testb the test set
}
_SPLIT_ORDER = {"train": 0, "dev": 1, "test": 2}


@dataclass(slots=True, frozen=True)
class TaggedSentence:
    """One sentence of an entity-tagged file: its tokens and their IOB2 tags (one each), the
    file's scheme as found (what the conversion did), its ``-DOCSTART-`` document when the
    file has them, and where it starts (``id`` = ``<file name>/<line>``: stable)."""

    id: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    scheme: Scheme
    doc_id: str | None
    source: SourceFile
    line: int


@dataclass(frozen=True)
class Layout:
    """How a file's token lines are cut: ``columns`` per line (the tag is the last),
    ``tab`` whether they are tab separated (else runs of spaces), ``prefix`` the WikiANN
    language prefix of every token (``""``: none), ``first`` the line that decided it."""

    columns: int
    tab: bool
    prefix: str
    first: int

    def describe(self) -> str:
        if self.prefix:
            return f"WikiANN ({self.prefix}:token, tag)"
        if self.columns == 4:
            return "CoNLL-2003 (token, POS, chunk, tag)"
        return f"{self.columns} columns, the tag last"


def split_of_name(name: str) -> str | None:
    """The split a file's name gives (``train``/``dev``/``test``; CoNLL-2003's ``testa`` is
    dev, ``testb`` test), or ``None``."""
    found = {_SPLIT_WORDS[w] for w in re.split(r"[^a-z]+", name.lower()) if w in _SPLIT_WORDS}
    return found.pop() if len(found) == 1 else None


def _is_docstart(line: str) -> bool:
    return line.split(None, 1)[0] == DOCSTART


def _fields(line: str, tab: bool) -> list[str]:
    return line.rstrip("\r\n").split("\t") if tab else line.split()


def _layout(path: Path) -> Layout:
    """The layout of ``path`` from its first token lines (read through the input layer): the
    first decides columns and separator; a WikiANN prefix needs 80 % of the first
    :data:`SNIFF_LINES` token lines to carry the same one (a CoNLL token such as ``nl:`` on
    one line is no prefix; a WikiANN line that lost its prefix is named as such)."""
    first: tuple[int, str] | None = None
    prefixes: list[str] = []
    for number, line in numbered_lines(path, 1 << 16):
        if type(line) is BadLine or not line.strip() or _is_docstart(line):
            continue
        if first is None:
            first = (number, line)
        tab = "\t" in first[1]
        match = _PREFIX.match(_fields(line, tab)[0])
        prefixes.append(match.group(1) if match else "")
        if len(prefixes) >= SNIFF_LINES:
            break
    if first is None:
        raise no_entries(path, "no token lines")
    number, line = first
    tab = "\t" in line
    common, count = Counter(prefixes).most_common(1)[0]
    prefix = common if common and 5 * count >= 4 * len(prefixes) else ""
    return Layout(len(_fields(line, tab)), tab, prefix, number)


@dataclass(frozen=True)
class IobFile:
    """One tagged file: where it is, its split (from its name) and its layout."""

    path: Path
    split: str | None
    layout: Layout

    @classmethod
    def open(cls, path: Path) -> IobFile:
        """Checked and sniffed (a CoNLL-U file is refused in one line), its layout read."""
        check_file(path)
        sniff_file(path, "iob")
        return cls(path, split_of_name(path.name), _layout(path))


def iob_files(path: Path) -> list[IobFile]:
    """The tagged files of ``path``: the file itself, or a folder's files (not its README,
    licence or metadata) ordered train, dev, test, then the others, by name."""
    if not path.is_dir():
        return [IobFile.open(path)]
    found = [
        p
        for p in path.iterdir()
        if p.is_file() and not p.name.startswith(".") and not _NOT_DATA.search(p.name)
    ]
    if not found:
        raise InputError(path, None, "no tagged files in this folder", "no-input")
    ordered = sorted(
        found, key=lambda p: (_SPLIT_ORDER.get(split_of_name(p.name) or "", 3), p.name)
    )
    return [IobFile.open(p) for p in ordered]


@dataclass
class _Sentence:
    line: int
    doc: str | None
    tokens: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    bad: bool = False


class _FileReader:
    """One pass over one file: its sentences with their raw tags, bad lines to ``policy``."""

    def __init__(self, file: IobFile, policy: InvalidPolicy) -> None:
        self.file = file
        self.policy = policy
        self.docs = 0

    def error(self, number: int, problem: str, reason: str) -> None:
        self.policy.reject(InputError(self.file.path, number, problem, reason))

    def token(self, number: int, line: str, current: _Sentence) -> None:
        layout = self.file.layout
        cols = _fields(line, layout.tab)
        if len(cols) < 2 or not cols[-1].strip():
            current.bad = True
            return self.error(
                number,
                "no tag column (a token line is TOKEN TAG, or TOKEN POS CHUNK TAG)",
                "no-tag",
            )
        if len(cols) != layout.columns:
            current.bad = True
            return self.error(
                number,
                f"{len(cols)} columns, expected {layout.columns} as on line {layout.first}",
                "bad-column-count",
            )
        token, tag = cols[0].strip(), cols[-1].strip()
        if not TAG.match(tag):
            current.bad = True
            return self.error(
                number,
                f"bad tag {tag!r}: expected O, or B-, I-, E-, S-, L- or U- and an entity type",
                "bad-tag",
            )
        if layout.prefix:
            match = _PREFIX.match(token)
            if match is None or match.group(1) != layout.prefix:
                current.bad = True
                found = f"prefix {match.group(1)!r}" if match else "no language prefix"
                return self.error(
                    number,
                    f"{found}, expected '{layout.prefix}:' as on every token of this WikiANN file",
                    "bad-language-prefix",
                )
            token = match.group(2)
        if not token:
            current.bad = True
            return self.error(number, "empty token", "empty-token")
        current.tokens.append(token)
        current.tags.append(tag)
        return None

    def sentences(self) -> list[_Sentence]:
        """The file's good sentences in order (a sentence with a bad line is left out)."""
        out: list[_Sentence] = []
        current: _Sentence | None = None

        def close() -> None:
            if current is not None and current.tokens and not current.bad:
                out.append(current)

        stats = LineStats()
        refused = 0
        lost = False  # a refused line (skip mode) belongs to the sentence it is in
        for number, line in text_lines(self.file.path, self.policy, stats=stats):
            if stats.refused != refused:
                refused, lost = stats.refused, True
                if current is not None:
                    current.bad = True
            if not line.strip():
                close()
                current, lost = None, False
                continue
            if _is_docstart(line):
                close()
                current = None
                self.docs += 1
                continue
            if current is None:
                current = _Sentence(number, f"doc{self.docs}" if self.docs else None, bad=lost)
            lost = False
            self.token(number, line, current)
        close()
        return out


@dataclass(frozen=True)
class IobSource:
    """A tagged corpus given as one file or a folder of files (one source of the build,
    named as the folder, or the file without its suffix)."""

    path: Path
    files: tuple[IobFile, ...]
    license: str = "unknown"
    version: str = "unknown"

    @classmethod
    def open(cls, path: Path, *, version: str = "unknown") -> IobSource:
        return cls(path, tuple(iob_files(path)), version=version)

    @property
    def name(self) -> str:
        return self.path.name if self.path.is_dir() else self.path.name.split(".")[0]

    @property
    def info(self) -> SourceInfo:
        root = self.path if self.path.is_dir() else self.path.parent
        entries = [(str(f.path.relative_to(root)), f.path) for f in self.files]
        return SourceInfo("iob-ner", self.name, self.version, self.license, file_entries(entries))

    @property
    def languages(self) -> tuple[DeclaredLanguage, ...]:
        """What the WikiANN prefixes declare (nothing for files without them)."""
        out: list[DeclaredLanguage] = []
        for f in self.files:
            if f.layout.prefix:
                found = declared(
                    f.layout.prefix, f"{f.path.name}: token prefix '{f.layout.prefix}:'"
                )
                if found is not None and found not in out:
                    out.append(found)
        return tuple(out)

    def records(self, policy: InvalidPolicy) -> Iterator[TaggedSentence]:
        for f in self.files:
            before = sum(policy.skipped.values())
            reader = _FileReader(f, policy)
            sentences = reader.sentences()
            if not sentences:
                raise no_entries(f.path, "no sentences", sum(policy.skipped.values()) - before)
            scheme = detect_scheme(s.tags for s in sentences)
            source = SourceFile(self.name, str(f.path), f.split)
            for s in sentences:
                yield TaggedSentence(
                    id=f"{f.path.name}/{s.line}",
                    tokens=tuple(s.tokens),
                    tags=to_iob2(s.tags),
                    scheme=scheme,
                    doc_id=s.doc,
                    source=source,
                    line=s.line,
                )


def open_sources(paths: Sequence[Path], version: str = "unknown") -> list[IobSource]:
    """One source per path given; two sources of one name are refused (the card and the
    row ids name sources by name)."""
    sources = [IobSource.open(p, version=version) for p in paths]
    names = [s.name for s in sources]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two inputs are both named {', '.join(twice)}: give distinct names")
    return sources
