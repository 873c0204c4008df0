"""CoNLL-2009 shared-task files (semantic role labelling) as :class:`SrlSentence` records.

Why a reader of its own: CoNLL-2009 is token-per-line like CoNLL-U but its columns differ
(``ID FORM LEMMA PLEMMA POS PPOS FEAT PFEAT HEAD PHEAD DEPREL PDEPREL FILLPRED PRED
APRED1 ... APREDn``): a token with ``FILLPRED = Y`` is a predicate, and the *i*-th ``APRED``
column holds every token's role for the sentence's *i*-th predicate (``_`` for none). So
the number of argument columns must equal the number of predicates of the sentence; a
sentence where it does not, a line with fewer than 14 columns or ids out of order, is an
``InputError`` naming file and line (under ``--on-invalid skip``: the sentence dropped, the
problem counted). Splits come from file names as for the NER reader (``train``,
``development``, ``test``/``evaluation``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import check_file, no_entries, text_lines
from polyprobe.loaders.iob import split_of_name
from polyprobe.loaders.records import SourceFile
from polyprobe.loaders.sniff import sniff_file
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

__all__ = ["FIXED_COLUMNS", "Conll09Source", "SrlSentence", "split_of_srl_name"]

#: Columns before the argument columns (ID ... PRED).
FIXED_COLUMNS = 14
_FILLPRED, _PRED = 12, 13


@dataclass(slots=True, frozen=True)
class SrlSentence:
    """One CoNLL-2009 sentence: its tokens, its predicates (0-based token index and sense,
    ``chased.01``) and its arguments ``(predicate index, argument index, role)``."""

    id: str
    tokens: tuple[str, ...]
    predicates: tuple[tuple[int, str], ...]
    arguments: tuple[tuple[int, int, str], ...]
    source: SourceFile
    line: int


def split_of_srl_name(name: str) -> str | None:
    """The split a CoNLL-2009 file's name gives: the NER reader's words, and the shared
    task's ``evaluation`` (test) and ``trial`` (dev)."""
    lowered = name.lower()
    if "evaluation" in lowered:
        return "test"
    if "trial" in lowered:
        return "dev"
    return split_of_name(name)


def _sentence(
    path: Path, lines: list[tuple[int, list[str]]], policy: InvalidPolicy, source: SourceFile
) -> SrlSentence | None:
    """One block of token lines as a sentence, or None (its problem handed to ``policy``)."""
    first = lines[0][0]
    for i, (number, cols) in enumerate(lines, 1):
        if len(cols) < FIXED_COLUMNS:
            problem = f"{len(cols)} columns, a CoNLL-2009 token line has at least {FIXED_COLUMNS}"
            policy.reject(InputError(path, number, problem, "bad-column-count"))
            return None
        if cols[0] != str(i):
            problem = f"token id {cols[0]!r}, expected {i} (ids count 1, 2, ... in a sentence)"
            policy.reject(InputError(path, number, problem, "bad-id"))
            return None
    predicates = tuple(
        (i, cols[_PRED]) for i, (_, cols) in enumerate(lines) if cols[_FILLPRED] == "Y"
    )
    for number, cols in lines:
        found = len(cols) - FIXED_COLUMNS
        if found != len(predicates):
            problem = (
                f"{found} argument columns for the sentence's {len(predicates)} predicates "
                "(FILLPRED = Y)"
            )
            policy.reject(InputError(path, number, problem, "bad-argument-columns"))
            return None
    arguments = tuple(
        (p_index, a_index, cols[FIXED_COLUMNS + k])
        for a_index, (_, cols) in enumerate(lines)
        for k, (p_index, _) in enumerate(predicates)
        if cols[FIXED_COLUMNS + k] != "_"
    )
    return SrlSentence(
        id=f"{path.name}/{first}",
        tokens=tuple(cols[1] for _, cols in lines),
        predicates=predicates,
        arguments=arguments,
        source=source,
        line=first,
    )


@dataclass(frozen=True)
class Conll09Source:
    """CoNLL-2009 files: one file, or a folder's ``.txt``/``.conll*`` files (train, dev,
    test, then others by name)."""

    path: Path
    files: tuple[Path, ...]
    license: str = "unknown"
    version: str = "unknown"

    @classmethod
    def open(cls, path: Path, *, version: str = "unknown") -> Conll09Source:
        if path.is_dir():
            order = {"train": 0, "dev": 1, "test": 2}
            files = sorted(
                (
                    p
                    for p in path.iterdir()
                    if p.is_file() and (".conll" in p.name or p.suffix == ".txt")
                ),
                key=lambda p: (order.get(split_of_srl_name(p.name) or "", 3), p.name),
            )
            if not files:
                raise InputError(path, None, "no CoNLL-2009 files in this folder", "no-input")
        else:
            files = [check_file(path)]
        for f in files:
            sniff_file(f, "conll09")
        return cls(path, tuple(files), version=version)

    @property
    def name(self) -> str:
        return self.path.name if self.path.is_dir() else self.path.name.split(".")[0]

    @property
    def info(self) -> SourceInfo:
        root = self.path if self.path.is_dir() else self.path.parent
        entries = [(str(f.relative_to(root)), f) for f in self.files]
        return SourceInfo("conll2009", self.name, self.version, self.license, file_entries(entries))

    def records(self, policy: InvalidPolicy) -> Iterator[SrlSentence]:
        for path in self.files:
            source = SourceFile(self.name, str(path), split_of_srl_name(path.name))
            block: list[tuple[int, list[str]]] = []
            found = 0
            before = sum(policy.skipped.values())
            for number, line in chain(text_lines(path, policy), [(0, "")]):
                if line.strip():
                    block.append((number, line.rstrip("\r\n").split("\t")))
                    continue
                if block:
                    sentence = _sentence(path, block, policy, source)
                    block = []
                    if sentence is not None:
                        found += 1
                        yield sentence
            if not found:
                raise no_entries(path, "no sentences", sum(policy.skipped.values()) - before)


def open_srl_sources(paths: Sequence[Path], version: str = "unknown") -> list[Conll09Source]:
    sources = [Conll09Source.open(p, version=version) for p in paths]
    names = [s.name for s in sources]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two inputs are both named {', '.join(twice)}: give distinct names")
    return sources
