"""What format a text file's first lines are in, so that a reader given another family's file
refuses it in one line naming the command that reads it.

Why: every reader accepted whatever its own grammar let through. ``build text`` published a
CoNLL-U file's token lines as "sentences" (exit 0); ``build trec`` called a CoNLL-U file named
``train_5500.label`` "truncated: download it again"; ``build unimorph`` read a table's header
as a lexicon entry. A reader now asks :func:`refuse_other_format` about its file's first lines
before it reads them as its own: when they are unmistakably another family's format, the file
is refused (``wrong-format``, fatal: a whole file in the wrong format has no line worth
keeping) with ``<file>: this looks like CoNLL-U (use `build ud`)``.

The rules look at the first :data:`SNIFF_LINES` non-blank lines only, and each needs most of
them to agree, so a reader's own file with a few odd lines is never refused here (its own
checks name those lines). A format is only claimed on signatures its own files always have:

* **CoNLL-U**: token lines of 10 tab-separated columns whose first is an id (``3``, ``3-4``,
  ``3.1``), and ``# sent_id``/``# text`` comments;
* **TREC**: ``COARSE:fine question`` with TREC's six coarse classes;
* **UniMorph**: 3 (or 4) tab-separated columns, one of the 2nd and 3rd a feature bundle;
* **a table with a header**: a first line of 2+ tab- or comma-separated names, one of them
  a usual column name (``sentence``, ``label``, ``lemma``...), and lines below with as
  many fields;
* **entity-tagged tokens** (IOB): token lines of 2 to 4 columns whose last is an entity tag
  (``O``, ``B-PER``, ``S-LOC``; CoNLL-2003's ``-DOCSTART-`` lines count), at least one
  tag not ``O``;
* **XML**: a MediaWiki dump (``<mediawiki``) or an RST document (``<rst>``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import BadLine, numbered_lines
from polyprobe.loaders.unimorph_schema import feats_like

__all__ = ["FORMATS", "SNIFF_LINES", "Format", "refuse_other_format", "sniff", "sniff_file"]

#: How many non-blank lines decide: enough to outvote a stray line, few enough to cost
#: nothing next to the read.
SNIFF_LINES = 50


@dataclass(frozen=True)
class Format:
    """A format the rules recognise: its key, how messages name it, the command that reads it."""

    key: str
    name: str
    command: str


FORMATS: dict[str, Format] = {
    f.key: f
    for f in (
        Format("conllu", "CoNLL-U", "build ud"),
        Format("trec", "TREC question classification (COARSE:fine question)", "build trec"),
        Format("unimorph", "a UniMorph lexicon (lemma, form, features)", "build unimorph"),
        Format("table", "a table with a header", "build tabular"),
        Format("iob", "an entity-tagged token-per-line file (CoNLL-2003/IOB)", "build ner"),
        Format("mediawiki", "a MediaWiki XML dump", "build wiki"),
        Format("rst", "an RST document (rs3 XML)", "build rst"),
    )
}

_TOKEN_ID = re.compile(r"^\d+(?:[-.]\d+)?$")
_CONLLU_COMMENT = re.compile(r"^#\s*(?:sent_id|text|newdoc|newpar)\b")
_TREC_LINE = re.compile(r"^(ABBR|DESC|ENTY|HUM|LOC|NUM):[a-z]+ \S")
_HEADER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,39}$")
# Column names tables of the shared formats use; a header must hold one (so that a word
# list of "Smith, John" lines is not taken for a table).
_HEADER_WORDS = re.compile(
    r"^(?:id|idx|index|text|texts?_?\w*|sentences?\d?|sent\d?|label|labels|gold\w*|score|"
    r"lemma|form|word\d?|words|feats|features|tags?|pos|upos|split|category|class|"
    r"question|answer|premise|hypothesis|source|target|lang|language)$",
    re.IGNORECASE,
)


_HEAD = re.compile(r"^(?:\d+|_)$")
_IOB_TAG = re.compile(r"^(?:O|[BIESLU]-[A-Za-z][\w.-]*)$")


def _most(hits: int, total: int) -> bool:
    """At least 80 % of the lines looked at (and at least one)."""
    return hits > 0 and 5 * hits >= 4 * total


def _conllu(lines: Sequence[str]) -> bool:
    tokens = comments = 0
    for line in lines:
        if line.startswith("#"):
            comments += bool(_CONLLU_COMMENT.match(line))
            continue
        cols = line.split("\t")
        # an id first and a head (a number, or _ on a multiword or empty-node line) 7th:
        # STS-B's 10 columns start with an index too, but its 7th is a source name
        tokens += len(cols) == 10 and bool(_TOKEN_ID.match(cols[0])) and bool(_HEAD.match(cols[6]))
    body = len(lines) - sum(line.startswith("#") for line in lines)
    return tokens > 0 and (_most(tokens, body) or (comments > 0 and 2 * tokens >= body))


def _iob(lines: Sequence[str]) -> bool:
    """Token lines with an entity tag last (2-4 columns), and at least one entity: a word
    list of ``word O`` lines is no NER file."""
    hits = entities = 0
    for line in lines:
        cols = line.split("\t") if "\t" in line else line.split()
        if cols and cols[0] == "-DOCSTART-":
            hits += 1
            continue
        if 2 <= len(cols) <= 4 and _IOB_TAG.match(cols[-1]) and cols[0].strip():
            hits += 1
            entities += cols[-1] != "O"
    return entities > 0 and _most(hits, len(lines))


def _trec(lines: Sequence[str]) -> bool:
    return _most(sum(bool(_TREC_LINE.match(line)) for line in lines), len(lines))


def _bundle(text: str) -> bool:
    """A feature bundle as a UniMorph line has one: a bare number (a table's 0/1 label, a
    score) is a valid tag atom but never a whole bundle."""
    return feats_like(text) and not text.replace(".", "").isdigit()


def _unimorph(lines: Sequence[str]) -> bool:
    hits = 0
    for line in lines:
        cols = line.split("\t")
        if len(cols) in (3, 4) and all(c.strip() for c in cols[:3]):
            hits += _bundle(cols[1].strip()) != _bundle(cols[2].strip())
    return _most(hits, len(lines))


def _table(lines: Sequence[str]) -> bool:
    if len(lines) < 2:
        return False
    head = lines[0]
    sep = "\t" if "\t" in head else "," if "," in head else None
    if sep is None:
        return False
    names = [n.strip().strip('"') for n in head.split(sep)]
    if len(names) < 2 or not all(_HEADER_NAME.match(n) for n in names):
        return False
    if not any(_HEADER_WORDS.match(n) for n in names):
        return False
    if any(feats_like(n) for n in names):  # a UniMorph line of upper-case tags
        return False
    rows = lines[1:]
    return _most(sum(len(r.split(sep)) == len(names) for r in rows), len(rows))


def _xml(lines: Sequence[str], tag: str) -> bool:
    head = " ".join(lines[:5]).lstrip("\ufeff").lower()
    return head.startswith("<") and f"<{tag}" in head


def sniff(lines: Iterable[str]) -> Format | None:
    """The format the first non-blank ``lines`` of a file are recognisably in, or ``None``.
    Refused lines (:class:`~polyprobe.loaders.inputs.BadLine`) are not looked at."""
    kept: list[str] = []
    for line in lines:
        if type(line) is BadLine or not line.strip():
            continue
        kept.append(line.rstrip("\r\n"))
        if len(kept) >= SNIFF_LINES:
            break
    if not kept:
        return None
    if _xml(kept, "mediawiki"):
        return FORMATS["mediawiki"]
    if _xml(kept, "rst"):
        return FORMATS["rst"]
    rules = (("conllu", _conllu), ("trec", _trec), ("unimorph", _unimorph), ("iob", _iob))
    for key, rule in rules:
        if rule(kept):
            return FORMATS[key]
    if _table(kept):
        return FORMATS["table"]
    return None


def refuse_other_format(
    path: str | Path, lines: Iterable[str], reader: str, accepts: Sequence[str] = ()
) -> None:
    """Raise the fatal ``wrong-format`` :class:`InputError` when ``lines`` (a file's first
    lines) are in another format than ``reader``'s (a key of :data:`FORMATS`, or a family
    name such as ``text``); ``accepts`` lists other formats the reader reads too."""
    found = sniff(lines)
    if found is None or found.key == reader or found.key in accepts:
        return
    raise InputError(
        path, None, f"this looks like {found.name} (use `{found.command}`)", "wrong-format"
    )


def _header(line: str) -> list[str] | None:
    """The names of a header line (2+ tab-separated names, none a feature bundle), or None."""
    names = [n.strip() for n in line.split("\t")]
    if len(names) < 2 or not all(_HEADER_NAME.match(n) for n in names):
        return None
    if not any(_HEADER_WORDS.match(n) for n in names):
        return None
    return None if any(feats_like(n) for n in names) else names


def sniff_file(path: str | Path, reader: str, accepts: Sequence[str] = ()) -> None:
    """:func:`refuse_other_format` on the first lines of ``path`` (read through the input
    layer, so a file that is not text is refused there, as the reader would). A headerless
    tab-separated format (``reader`` ``unimorph``) also refuses a header line above lines of
    its own format: read as data, ``lemma form features`` became an entry."""
    head: list[tuple[int, str]] = []
    for number, line in numbered_lines(path, 1 << 16):
        if type(line) is not BadLine and line.strip():
            head.append((number, line))
            if len(head) >= SNIFF_LINES:
                break
    lines = [line for _, line in head]
    if reader == "unimorph" and len(lines) > 1:
        names = _header(lines[0])
        if names is not None and sniff(lines[1:]) is FORMATS["unimorph"]:
            raise InputError(
                path,
                head[0][0],
                f"a header line ({', '.join(names)}): a UniMorph file has none (remove it)",
                "wrong-format",
            )
    refuse_other_format(path, lines, reader, accepts)
