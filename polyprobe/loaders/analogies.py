"""Word analogy sets (a : b :: c : d) as :class:`~polyprobe.loaders.records.Example`s of kind
``analogy`` whose label is the question's category, from the layouts they are published in:

* the Google/Mikolov text format (``questions-words.txt``; EMBEDDIA's multilingual sets use
  it too): ``: category`` lines, then ``a b c d`` lines;
* the vecto ``word-benchmarks`` CSV (``,type,word1,word2,word3,target``);
* four space-separated words per line with the category in the file name (FinSemEvl's
  ``ANA_capital-country.txt`` → ``capital-country``).

Whether a category is *semantic* or *morphological* matters to every report of analogy
results (Mikolov et al. report the two apart): a category named ``gram…`` (Google's
syntactic ones) or listed in :data:`MORPHOLOGICAL` is morphological, every other one semantic,
unless the caller says otherwise. Several files form one set (FinSemEvl's seven files).

Files are read through the input layer (:mod:`polyprobe.loaders.inputs`): strict UTF-8, a
bad byte, control character or over-long line refused at its line (skippable: that question
is dropped), an empty file named. Question ids are ``<file stem>/<line>``, so two files of a
set with the same stem would publish one id twice: refused (``duplicate-input``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import csv_rows, no_entries, numbered_lines, refused_since, text_lines
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

SPLIT = "test"
# Morphological categories by name besides Google's ``gram*`` (EMBEDDIA's and the generated
# UniMorph ones); any other category is semantic unless overridden.
MORPHOLOGICAL = frozenset(
    {
        "adj-adv",
        "adj-comparative",
        "adj-superlative",
        "adj-opposite",
        "noun-plural",
        "verb-present-participle",
        "verb-past",
        "verb-3rd-person",
        "nationality-adjective",
    }
)


def is_semantic(category: str) -> bool:
    """Google's convention: ``gram…`` categories are syntactic (morphological)."""
    return not (category.startswith("gram") or category in MORPHOLOGICAL)


@dataclass(frozen=True)
class Question:
    words: tuple[str, str, str, str]
    category: str
    line: int
    path: str
    key: str  # stable within the set: <file stem>/<line>


@dataclass(frozen=True)
class AnalogySet:
    """One analogy set: its name, categories in order with whether each is semantic, and
    its questions."""

    name: str
    categories: tuple[str, ...]
    semantic: Mapping[str, bool]
    questions: tuple[Question, ...]
    notes: tuple[str, ...] = ()  # card notes (how a generated set was made)
    # a cross-lingual set: (language of word1/word2, language of word3/word4); else empty
    languages: tuple[str, ...] = ()


def detect_layout(path: Path) -> str:
    """``vecto`` (CSV with a ``type`` column), ``google`` (``: category`` lines) or
    ``plain`` (four words a line, category from the file name), from the first 1,000 lines
    (lines that are not text decide nothing: the reader refuses them at their line)."""
    lines = []
    for number, line in numbered_lines(path):
        lines.append(line)
        if number >= 1000:
            break
    first = lines[0].strip() if lines else ""
    if first.replace(" ", "").startswith(",type,word1,word2,word3,target") or first.startswith(
        "type,word1,word2,word3,target"
    ):
        return "vecto"
    if any(line.startswith(":") for line in lines):
        return "google"
    return "plain"


def category_from_name(path: Path) -> str:
    """``ANA_capital-country.txt`` → ``capital-country``."""
    return re.sub(r"^(ana|analogy|analogies)[_-]", "", path.stem, flags=re.IGNORECASE)


def _question(
    words: Sequence[str], category: str, path: Path, line: int, policy: InvalidPolicy
) -> Question | None:
    if len(words) != 4 or not all(w.strip() for w in words):
        problem = f"expected 4 words, found {len([w for w in words if w.strip()])}"
        policy.reject(InputError(path, line, problem, "bad-question"))
        return None
    a, b, c, d = (w.strip() for w in words)
    return Question((a, b, c, d), category, line, str(path), f"{path.stem}/{line}")


def _some(path: Path, out: list[Question], policy: InvalidPolicy, before: int) -> list[Question]:
    """``out``, or the fatal ``empty`` of a file that gave no question."""
    if not out:
        raise no_entries(path, "no questions", refused_since(policy, before))
    return out


def read_google(path: Path, policy: InvalidPolicy) -> list[Question]:
    out: list[Question] = []
    before = sum(policy.skipped.values())
    category = ""
    for n, line in text_lines(path, policy):
        if not line.strip():
            continue
        if line.startswith(":"):
            category = line[1:].strip()
            if not category:
                raise InputError(path, n, "a ':' line without a category name", "bad-category")
            continue
        if not category:
            raise InputError(
                path, n, "a question before the first ': category' line", "no-category"
            )
        q = _question(line.split(), category, path, n, policy)
        if q is not None:
            out.append(q)
    return _some(path, out, policy, before)


def read_vecto(path: Path, policy: InvalidPolicy) -> list[Question]:
    before = sum(policy.skipped.values())
    rows = list(csv_rows(path, policy, delimiter=","))
    header = [c.strip() for c in rows[0][1]] if rows else []
    if rows and header[-5:] != ["type", "word1", "word2", "word3", "target"]:
        raise InputError(
            path, rows[0][0], "expected the header ',type,word1,word2,word3,target'", "bad-header"
        )
    offset = len(header) - 5
    out: list[Question] = []
    for n, row in rows[1:]:
        if len(row) != len(header):
            problem = f"expected {len(header)} fields, found {len(row)}"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        category = row[offset].strip()
        q = _question(row[offset + 1 :], category, path, n, policy)
        if q is not None:
            out.append(q)
    return _some(path, out, policy, before)


def read_plain(path: Path, policy: InvalidPolicy) -> list[Question]:
    category = category_from_name(path)
    out: list[Question] = []
    before = sum(policy.skipped.values())
    for n, line in text_lines(path, policy):
        if not line.strip():
            continue
        q = _question(line.split(), category, path, n, policy)
        if q is not None:
            out.append(q)
    return _some(path, out, policy, before)


READERS = {"google": read_google, "vecto": read_vecto, "plain": read_plain}


def default_set_name(paths: Sequence[Path]) -> str:
    """A set's name from its files: one file → its stem; FinSemEvl's ``ANA_*`` files →
    ``finsemevl-analogies``; else the common folder's name."""
    if len(paths) == 1:
        return re.sub(r"[^A-Za-z0-9_-]+", "-", paths[0].stem)
    if all(p.name.upper().startswith("ANA_") for p in paths):
        return "finsemevl-analogies"
    return re.sub(r"[^A-Za-z0-9_-]+", "-", paths[0].parent.name)


@dataclass
class AnalogySource:
    """Analogy files forming one set; ``semantic`` overrides the per-category rule
    (category -> is it semantic)."""

    paths: tuple[Path, ...]
    name: str = ""
    lang: str = ""
    license: str = "unknown"
    source_version: str = "unknown"
    semantic: dict[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.name = self.name or default_set_name(self.paths)

    @property
    def info(self) -> SourceInfo:
        files = file_entries([(p.name, p) for p in self.paths])
        return SourceInfo("analogies", self.name, self.source_version, self.license, files)

    def declared_codes(self) -> tuple[str, ...]:
        return (self.lang,) if self.lang else ()

    def read(self, policy: InvalidPolicy) -> AnalogySet:
        questions: list[Question] = []
        stems: dict[str, Path] = {}
        for path in self.paths:
            if path.stem in stems:
                other = stems[path.stem]
                problem = (
                    "is given twice"
                    if other == path
                    else f"has the same stem as {other}: question ids are <file stem>/<line>, "
                    "so the two files would publish the same ids; rename one of them"
                )
                raise InputError(path, None, problem, "duplicate-input")
            stems[path.stem] = path
            questions += READERS[detect_layout(path)](path, policy)
        categories = tuple(dict.fromkeys(q.category for q in questions))
        semantic = {c: self.semantic.get(c, is_semantic(c)) for c in categories}
        return AnalogySet(self.name, categories, semantic, tuple(questions))

    def sets(self, policy: InvalidPolicy) -> list[AnalogySet]:
        return [self.read(policy)]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        s = self.read(policy)
        for q in s.questions:
            yield Example(
                id=q.key,
                inputs=q.words,
                kind="analogy",
                label=q.category,
                score=None,
                source=SourceFile(s.name, q.path, SPLIT),
                line=q.line,
            )
