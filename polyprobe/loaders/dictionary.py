"""Bilingual dictionaries (source word → target word) as word-pair
:class:`~polyprobe.loaders.records.Example`s, for cross-lingual mapping evaluation:

* a user's file: ``src TAB tgt`` lines (MUSE's ``src tgt`` with one space is read too); a
  source word with several translations has several lines;
* Multi-SimLex's concepts (Concepticon layout): for two of its 12 languages, each concept's
  word in one and in the other. A cell such as Welsh ``drwg (gwael/drwg)`` or Russian
  ``наставник (учитель)`` names the headword and, in parentheses, the words used for it in
  other pairs (``/``-separated): all of them are translations of the concept, so every
  (source variant, target variant) pair is listed.

Files are read through the input layer (:mod:`polyprobe.loaders.inputs`): strict UTF-8, a
bad byte, control character or over-long line refused at its line (skippable), an empty file
named. A Multi-SimLex concept given twice is refused (``duplicate-id``: its pairs would
publish the same ids); a user's file may list a pair twice (each line its own row id).

The label is the part of speech where the source gives it (Multi-SimLex's ``nouns``,
``verbs``, ``adjectives``, ``adverbs``), else ``unknown``. No split is given here: the build
splits by source word (no source word in train and test).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import no_entries, refused_since, text_lines
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.similarity import MULTISIMLEX_CODES, concept_rows
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

POS_LABELS: tuple[str, ...] = ("adjectives", "adverbs", "nouns", "verbs", "unknown")
_PAREN = re.compile(r"^(.*?)\s*\((.*)\)\s*$")


@dataclass(frozen=True)
class Translation:
    source: str
    target: str
    pos: str
    line: int
    key: str


@dataclass(frozen=True)
class Dictionary:
    name: str
    source_lang: str
    target_lang: str
    pairs: tuple[Translation, ...]
    description: str


def variants(cell: str) -> list[str]:
    """``drwg (gwael/drwg  )`` → ``["drwg", "gwael"]``: the headword, then the alternatives
    in parentheses, each once, whitespace-normalised."""
    text = " ".join(cell.split())
    m = _PAREN.match(text)
    words = [m.group(1), *m.group(2).split("/")] if m else [text]
    out: list[str] = []
    for w in words:
        w = " ".join(w.split())
        if w and w not in out:
            out.append(w)
    return out


def read_pairs_file(path: Path, policy: InvalidPolicy) -> list[Translation]:
    out = []
    before = sum(policy.skipped.values())
    for n, line in text_lines(path, policy):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split(" ")
        fields = [f.strip() for f in fields]
        if len(fields) != 2 or not all(fields):
            problem = "expected a source word and a target word separated by a tab"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        out.append(Translation(fields[0], fields[1], "unknown", n, str(n)))
    if not out:
        raise no_entries(path, refused=refused_since(policy, before))
    return out


def multisimlex_dictionary(path: Path, src: str, tgt: str, policy: InvalidPolicy) -> Dictionary:
    for code in (src, tgt):
        if code not in MULTISIMLEX_CODES:
            raise InputError(path, None, f"Multi-SimLex has no language {code!r}", "bad-language")
    a, b = MULTISIMLEX_CODES[src], MULTISIMLEX_CODES[tgt]
    header, rows = concept_rows(path, policy, ("NUMBER", a, b))
    col = {c: i for i, c in enumerate(header)}
    pairs = []
    for n, row in rows:
        pos = row[col["POS"]].strip() if "POS" in col else "unknown"
        pos = pos if pos in POS_LABELS else "unknown"
        for s in variants(row[col[a]]):
            for t in variants(row[col[b]]):
                key = f"{row[col['NUMBER']]}/{s}/{t}"
                pairs.append(Translation(s, t, pos, n, key))
    desc = f"Multi-SimLex concepts (Vulić et al. 2020) as a {src}-{tgt} dictionary"
    return Dictionary(f"multisimlex-{src}-{tgt}", src, tgt, tuple(pairs), desc)


@dataclass
class DictionarySource:
    """One dictionary: a user's ``src TAB tgt`` file, or Multi-SimLex's concepts for a
    language pair (``multisimlex=True``)."""

    path: Path
    source_lang: str
    target_lang: str
    multisimlex: bool = False
    license: str = ""
    source_version: str = "unknown"

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def info(self) -> SourceInfo:
        licence = self.license or ("CC-BY-4.0" if self.multisimlex else "unknown")
        files = file_entries([(self.path.name, self.path)])
        kind = "dictionary-multisimlex" if self.multisimlex else "dictionary"
        return SourceInfo(kind, self.name, self.source_version, licence, files)

    def declared_codes(self) -> tuple[str, ...]:
        return ()

    def read(self, policy: InvalidPolicy) -> Dictionary:
        if self.multisimlex:
            return multisimlex_dictionary(self.path, self.source_lang, self.target_lang, policy)
        pairs = read_pairs_file(self.path, policy)
        name = f"{self.path.stem}"
        desc = f"{self.source_lang}-{self.target_lang} dictionary {self.path.name}"
        return Dictionary(name, self.source_lang, self.target_lang, tuple(pairs), desc)

    def sets(self, policy: InvalidPolicy) -> list[Dictionary]:
        return [self.read(policy)]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        d = self.read(policy)
        source = SourceFile(d.name, str(self.path), None)
        for p in d.pairs:
            yield Example(p.key, (p.source, p.target), "word", p.pos, None, source, p.line)
