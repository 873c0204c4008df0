"""Parallel text files: the same sentences in several languages, aligned by line or by id.

Three layouts, because parallel corpora come in all three:

* **line-aligned** (Moses/OPUS ``corpus.en`` + ``corpus.de``, FLORES): one text file per
  language, line *i* of every file is one sentence and its translations. The files must have
  the same number of lines: a file with more lines is refused at its first unmatched line
  (reason ``misaligned``, always fatal: after a lost or an extra line no line can be trusted
  to be a translation of its partner). Ids are line numbers, unless an **ids file** gives line
  *i*'s ``id`` (and optionally ``<TAB>document`` and ``<TAB>original_language``), as WMT's
  ``docids`` and FLORES's metadata do.
* **id-aligned TSV**, one file per language: ``id<TAB>text`` per line, or a header line naming
  the columns ``id``, ``text`` and optionally ``document`` and ``original_language``. Files
  may list the ids in different orders and with gaps: an id missing in a language is a gap
  (``None``), never a shifted row.
* **wide TSV**: one file whose header names ``id`` (optional), optionally ``document`` and
  ``original_language``, and one column per language (``en``, ``de``...): the issue's
  ``source``/``target`` pair, or more languages.

Every problem goes through the build's :class:`InvalidPolicy`, naming file and line: an empty
text (``empty-text``: under ``--on-invalid skip`` the language has a gap there), an id given
twice in a file (``duplicate-id``: the later line is dropped), a line without its columns
(``bad-line``), an id holding ``/`` (``bad-id``: row ids are ``<source>/<id>/...``), a bad
byte, control character or over-long line (the input layer's reasons,
:mod:`polyprobe.loaders.inputs`). One id placed in two documents by two files is refused
(``document-mismatch``): splits are drawn by document. A file with no text at all (empty,
only blank lines, a TSV with only its header) is a fatal ``empty``.

Why a record of its own (:class:`AlignedText`) and not a ``Sentence``: these files carry no
tokens and no annotation; the build tokenises them (the raw-text segmenter) into the
``Sentence`` records the text-only tasks read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import no_entries, numbered_lines, refused_since, text_lines
from polyprobe.loaders.records import SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

__all__ = [
    "AlignedText",
    "AlignedTsvFile",
    "IdsFile",
    "LineAlignedFile",
    "TextAlignment",
    "TextRow",
    "align_texts",
    "language_of_file",
]

TSV_SUFFIXES: tuple[str, ...] = (".tsv", ".tsv.gz")
HEADER_EXTRA: tuple[str, ...] = ("document", "original_language")
_LANG_CODE = re.compile(r"^[a-z]{2,3}$")


@dataclass(frozen=True, slots=True)
class AlignedText:
    """One language's text of one aligned item, with where it was read."""

    id: str
    doc_id: str  # the item's document (its id when the input names none)
    text: str
    lang: str
    source: SourceFile
    line: int
    original: str | None = None  # the language the item was written in, if the input says


def _resolve(code: str) -> str | None:
    from polyprobe.languages import resolve_language

    try:
        return resolve_language(code).code
    except UsageError:
        return None


def language_of_file(path: Path) -> str | None:
    """The language a file's name declares: its last suffix when that is a two-letter code
    (``train.de``), else its stem when that is a code (``de.txt``, ``deu.tsv``); else
    ``None`` (the user then writes ``de=PATH``)."""
    name = path.name.removesuffix(".gz")
    stem, dot, suffix = name.rpartition(".")
    if dot and len(suffix) == 2 and _LANG_CODE.match(suffix.lower()):
        return _resolve(suffix.lower())
    base = stem if dot else name
    if _LANG_CODE.match(base.lower()):
        return _resolve(base.lower())
    return None


def _lines(path: Path, policy: InvalidPolicy) -> Iterator[tuple[int, str]]:
    """``(number, line)`` of a UTF-8 file (through the input layer: bad bytes, control
    characters and over-long lines go to the policy, the line is then skipped)."""
    return text_lines(path, policy)


def _count_lines(path: Path) -> int:
    """Lines of a line-aligned file, refused ones too (they hold their item's place); a
    file without a non-blank line is a fatal ``empty``."""
    count = 0
    text = False
    for _, line in numbered_lines(path):
        count += 1
        text = text or not line.isspace() and bool(line)
    if not text:
        raise no_entries(path, "no text on any line")
    return count


def _check_id(path: Path, number: int, item_id: str, policy: InvalidPolicy) -> bool:
    if not item_id:
        policy.reject(InputError(path, number, "empty id", "bad-line"))
        return False
    if "/" in item_id:
        policy.reject(
            InputError(
                path,
                number,
                f"id {item_id!r} holds '/' (published row ids are <source>/<id>/...)",
                "bad-id",
            )
        )
        return False
    return True


@dataclass(frozen=True)
class IdsFile:
    """The ids of a line-aligned corpus: line *i* is ``id``, ``id<TAB>document`` or
    ``id<TAB>document<TAB>original_language`` (an empty document: the id)."""

    path: Path

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            "parallel-ids",
            self.path.name,
            "unknown",
            "unknown",
            file_entries([(self.path.name, self.path)]),
            role="reference",
        )

    def read(self, policy: InvalidPolicy) -> dict[int, tuple[str, str, str | None]]:
        """line number -> (id, document, original language); a bad or duplicate line is
        left out (skip)."""
        out: dict[int, tuple[str, str, str | None]] = {}
        first: dict[str, int] = {}
        before = sum(policy.skipped.values())
        for number, line in _lines(self.path, policy):
            fields = [f.strip() for f in line.split("\t")]
            item_id = fields[0]
            if len(fields) > 3:
                problem = (
                    f"{len(fields)} columns: expected id, id<TAB>document, or "
                    "id<TAB>document<TAB>original_language"
                )
                policy.reject(InputError(self.path, number, problem, "bad-line"))
                continue
            if not _check_id(self.path, number, item_id, policy):
                continue
            if item_id in first:
                problem = f"id {item_id} given twice (first at line {first[item_id]})"
                policy.reject(InputError(self.path, number, problem, "duplicate-id"))
                continue
            original = None
            if len(fields) == 3 and fields[2]:
                original = _resolve(fields[2])
                if original is None:
                    problem = f"original_language {fields[2]!r} is not a language code"
                    policy.reject(InputError(self.path, number, problem, "bad-line"))
                    continue
            first[item_id] = number
            doc = fields[1] if len(fields) >= 2 and fields[1] else item_id
            out[number] = (item_id, doc, original)
        if not out:
            raise no_entries(self.path, "no ids", refused_since(policy, before))
        return out


@dataclass(frozen=True)
class LineAlignedFile:
    """One language's file of a line-aligned corpus (see the module docstring)."""

    path: Path
    lang: str
    license: str = "unknown"
    version: str | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            "parallel-text",
            self.name,
            self.version or "unknown",
            self.license,
            file_entries([(self.path.name, self.path)]),
        )

    def count_lines(self) -> int:
        return _count_lines(self.path)

    def records(
        self,
        policy: InvalidPolicy,
        ids: dict[int, tuple[str, str, str | None]] | None = None,
    ) -> Iterator[AlignedText]:
        """The file's lines as items; ``ids``: line -> (id, document, original language)
        from an ids file (a line the ids file left out, being malformed, is left out here
        too)."""
        source = SourceFile(self.name, str(self.path), None)
        for number, line in _lines(self.path, policy):
            original = None
            if ids is None:
                item_id, doc = str(number), str(number)
            elif number in ids:
                item_id, doc, original = ids[number]
            else:
                continue
            text = line.strip()
            if not text:
                problem = (
                    f"empty text for id {item_id} (a line-aligned file needs a text on every line)"
                )
                policy.reject(InputError(self.path, number, problem, "empty-text"))
                continue
            yield AlignedText(item_id, doc, text, self.lang, source, number, original)


def check_line_counts(files: Sequence[LineAlignedFile], ids: IdsFile | None) -> int:
    """The common line count of line-aligned files (and their ids file); a file with more
    lines than another is refused at its first line without a partner."""
    counted = [(f.path, f.count_lines()) for f in files]
    if ids is not None:
        counted.append((ids.path, _count_lines(ids.path)))
    shortest = min(counted, key=lambda c: c[1])
    for path, n in counted:
        if n != shortest[1]:
            raise InputError(
                path,
                shortest[1] + 1,
                f"line {shortest[1] + 1} has no partner: {path.name} has {n:,} lines but "
                f"{shortest[0].name} has {shortest[1]:,} (line-aligned files need one line per "
                "item in every file)",
                "misaligned",
            )
    return shortest[1]


@dataclass(frozen=True)
class AlignedTsvFile:
    """An id-aligned TSV of one language (``lang`` set) or a wide TSV whose header names a
    column per language (``lang`` empty; :attr:`languages` reads the header)."""

    path: Path
    lang: str = ""
    license: str = "unknown"
    version: str | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            "parallel-tsv",
            self.name,
            self.version or "unknown",
            self.license,
            file_entries([(self.path.name, self.path)]),
        )

    def header(self) -> list[str] | None:
        """The header's column names, or ``None`` when the first line is data."""
        for _, line in _lines(self.path, InvalidPolicy("raise")):
            names = [c.strip() for c in line.split("\t")]
            if "text" in names and "id" in names:
                return names
            if not self.lang and len(names) >= 2:
                return names
            return None
        raise no_entries(self.path)

    def language_columns(self) -> dict[str, str]:
        """Wide TSV: language code -> column name, from the header."""
        names = self.header() or []
        langs: dict[str, str] = {}
        for name in names:
            if name in ("id", *HEADER_EXTRA):
                continue
            code = _resolve(name)
            if code is None:
                raise InputError(
                    self.path,
                    1,
                    f"header column {name!r} is neither id, document, original_language nor "
                    "a language code (a wide TSV names one column per language)",
                    "bad-header",
                )
            if code in langs:
                raise InputError(self.path, 1, f"two columns in language {code}", "bad-header")
            langs[code] = name
        if len(langs) < 2:
            raise InputError(
                self.path,
                1,
                "a wide TSV's header names at least two language columns (e.g. id<TAB>en<TAB>de)",
                "bad-header",
            )
        return langs

    def records(self, policy: InvalidPolicy) -> Iterator[AlignedText]:
        header = self.header()
        source = SourceFile(self.name, str(self.path), None)
        if self.lang:
            columns = {self.lang: "text"}
            names = header or ["id", "text"]
        else:
            columns = self.language_columns()
            names = header or []
        index = {n: i for i, n in enumerate(names)}
        first: dict[str, int] = {}
        before = sum(policy.skipped.values())
        for number, line in _lines(self.path, policy):
            if header is not None and number == 1:
                continue
            if not line.strip():
                continue
            fields = line.split("\t")
            if header is None and len(fields) > 2:
                problem = "more than two columns: expected id<TAB>text (or a header line)"
                policy.reject(InputError(self.path, number, problem, "bad-line"))
                continue
            if len(fields) != len(names):
                problem = f"{len(fields)} columns, expected {len(names)} ({', '.join(names)})"
                policy.reject(InputError(self.path, number, problem, "bad-line"))
                continue
            row_no = len(first) + 1
            item_id = fields[index["id"]].strip() if "id" in index else str(row_no)
            if not _check_id(self.path, number, item_id, policy):
                continue
            if item_id in first:
                problem = f"id {item_id} given twice (first at line {first[item_id]})"
                policy.reject(InputError(self.path, number, problem, "duplicate-id"))
                continue
            first[item_id] = number
            doc = fields[index["document"]].strip() if "document" in index else ""
            original = None
            if "original_language" in index and fields[index["original_language"]].strip():
                value = fields[index["original_language"]].strip()
                original = _resolve(value)
                if original is None:
                    problem = f"original_language {value!r} is not a language code"
                    policy.reject(InputError(self.path, number, problem, "bad-line"))
                    continue
            for lang, column in columns.items():
                text = fields[index[column]].strip()
                if not text:
                    problem = f"empty {lang} text for id {item_id}"
                    policy.reject(InputError(self.path, number, problem, "empty-text"))
                    continue
                yield AlignedText(item_id, doc or item_id, text, lang, source, number, original)
        if not first:
            detail = "only a header, no entries" if header is not None else "no entries"
            raise no_entries(self.path, detail, refused_since(policy, before))


@dataclass(frozen=True)
class TextRow:
    """One aligned item: its document, its original language (if known), each language's
    text (``None``: a gap)."""

    id: str
    doc_id: str
    original: str | None
    texts: dict[str, AlignedText | None]


@dataclass(frozen=True)
class TextAlignment:
    """Every item in the order the pivot lists them (then items only other languages have)."""

    languages: tuple[str, ...]
    rows: tuple[TextRow, ...]

    def coverage(self) -> dict[str, int]:
        return {
            lang: sum(1 for r in self.rows if r.texts.get(lang) is not None)
            for lang in self.languages
        }


def align_texts(
    languages: Sequence[str], items: Iterable[AlignedText], policy: InvalidPolicy
) -> TextAlignment:
    """Align items by id (``languages``: the pivot first, whose items should come first).
    One id in two documents, with two original languages, or twice in one language (two
    files of a language) goes to ``policy`` naming the later file and line (skipped: the
    later item is dropped)."""
    order: dict[str, None] = {}
    texts: dict[str, dict[str, AlignedText]] = {}
    first: dict[str, AlignedText] = {}
    for item in items:
        seen = first.get(item.id, item)
        problem = reason = ""
        other = texts.get(item.id, {}).get(item.lang)
        if seen.doc_id != item.doc_id:
            problem = (
                f"id {item.id} is in document {item.doc_id} here but in {seen.doc_id} at "
                f"{seen.source.path}:{seen.line}; documents decide the splits"
            )
            reason = "document-mismatch"
        elif seen.original and item.original and seen.original != item.original:
            problem = (
                f"id {item.id}: original_language {item.original} here but {seen.original} "
                f"at {seen.source.path}:{seen.line}"
            )
            reason = "original-mismatch"
        elif other is not None:
            problem = (
                f"id {item.id} has a second {item.lang} text (first at "
                f"{other.source.path}:{other.line})"
            )
            reason = "duplicate-id"
        if problem:
            policy.reject(InputError(item.source.path, item.line, problem, reason))
            continue
        if item.id not in first or (item.original and not seen.original):
            first[item.id] = item
        texts.setdefault(item.id, {})[item.lang] = item
        order.setdefault(item.id)
    pivot = languages[0]
    ranked = sorted(order, key=lambda i: pivot not in texts[i])  # stable: pivot's ids first
    rows = tuple(
        TextRow(
            i,
            first[i].doc_id,
            first[i].original,
            {lang: texts[i].get(lang) for lang in languages},
        )
        for i in ranked
    )
    return TextAlignment(tuple(languages), rows)
