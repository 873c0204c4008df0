"""Entity tag schemes (IOB1, IOB2, BIOES, BILOU) told apart from the data and converted to
IOB2, the one scheme every ``ner`` config publishes.

Why here and not in the reader: a scheme is a property of a file's tag sequences, never of
its layout (CoNLL-2003's four columns carry IOB1 in the original English release and IOB2 in
most re-releases), so it is decided from the tags alone, and a card must say what was found
and what was changed.

Reading follows ``conlleval`` (the CoNLL shared tasks' scorer), so a converted file scores as
it always did: an ``I-X`` that does not continue a chunk of type X (after ``O``, at the start
of a sentence, or after a chunk of another type) opens a new chunk. In IOB1 that is the
scheme's normal use (``B-`` only separates two adjacent chunks of one type); in an IOB2 file
it is a slip, repaired the same way and counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["TAG", "Scheme", "chunks", "detect_scheme", "to_iob2"]

#: A tag: ``O`` or a prefix letter, a hyphen and an entity type (``B-PER``, ``S-LOC``,
#: ``I-MISC``); BIOES uses B/I/E/S, BILOU B/I/L/U.
TAG = re.compile(r"^(?:O|[BIESLU]-[^\s-][^\s]*)$")

_END = {"E": "I", "L": "I"}  # the last token of a chunk: inside it, in IOB2
_SINGLE = {"S": "B", "U": "B"}  # a one-token chunk: its first token, in IOB2


@dataclass(frozen=True)
class Scheme:
    """What a file's tags are: ``name`` (``IOB1``, ``IOB2``, ``BIOES``, ``BILOU``) and how many
    ``I-`` tags open a chunk (made ``B-`` by the conversion; in an IOB2 file, repairs)."""

    name: str
    chunk_opening_i: int = 0

    def describe(self) -> str:
        """The card's words for the scheme found and what converting it did."""
        if self.name == "IOB2":
            if not self.chunk_opening_i:
                return "IOB2 (kept)"
            return (
                f"IOB2 with {self.chunk_opening_i:,} I- tags opening a chunk "
                "(made B-, as conlleval reads them)"
            )
        if self.name == "IOB1":
            return (
                f"IOB1 converted to IOB2 ({self.chunk_opening_i:,} chunk-opening I- tags made B-)"
            )
        return f"{self.name} converted to IOB2 (S-/U- made B-, E-/L- made I-)"


def _opens_chunk(previous: str, tag: str) -> bool:
    """Whether an ``I-`` ``tag`` after ``previous`` starts a chunk (conlleval's reading)."""
    return previous == "O" or previous[2:] != tag[2:]


def detect_scheme(sentences: Iterable[Sequence[str]]) -> Scheme:
    """The scheme of a file's tag sequences (one per sentence, every tag matching
    :data:`TAG`). E-/S- tags mean BIOES, L-/U- BILOU; otherwise IOB1 when ``I-`` tags open
    chunks and every ``B-`` directly follows a chunk of its own type (IOB1's only use of
    ``B-``), else IOB2."""
    letters: set[str] = set()
    opening_i = 0
    b_after_same = 0
    b_elsewhere = 0
    for tags in sentences:
        previous = "O"
        for tag in tags:
            letter = tag[0]
            letters.add(letter)
            if letter == "I" and _opens_chunk(previous, tag):
                opening_i += 1
            elif letter == "B":
                if previous != "O" and previous[2:] == tag[2:]:
                    b_after_same += 1
                else:
                    b_elsewhere += 1
            previous = tag
    if letters & {"L", "U"}:
        return Scheme("BILOU")
    if letters & {"E", "S"}:
        return Scheme("BIOES")
    if opening_i and not b_elsewhere:
        return Scheme("IOB1", opening_i)
    return Scheme("IOB2", opening_i)


def to_iob2(tags: Sequence[str]) -> tuple[str, ...]:
    """One sentence's tags in IOB2: E-/L- become I-, S-/U- become B-, and an ``I-`` that
    opens a chunk becomes ``B-`` (so IOB1 and IOB2 with slips come out as conlleval reads
    them). IOB2 input comes back unchanged."""
    out: list[str] = []
    previous = "O"
    for tag in tags:
        letter = tag[0]
        if letter in _SINGLE:
            tag = f"{_SINGLE[letter]}{tag[1:]}"
        elif letter in _END:
            tag = f"{_END[letter]}{tag[1:]}"
        if tag[0] == "I" and _opens_chunk(previous, tag):
            tag = f"B{tag[1:]}"
        out.append(tag)
        # a chunk ends after E-/S- (L-/U-): the next I- opens a new one
        previous = "O" if letter in "ESLU" else tag
    return tuple(out)


def chunks(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """The entities of IOB2 ``tags`` as ``(type, first, last)`` token indices."""
    found: list[tuple[str, int, int]] = []
    for i, tag in enumerate(tags):
        if tag.startswith("B-"):
            found.append((tag[2:], i, i))
        elif tag.startswith("I-") and found and found[-1][2] == i - 1 and found[-1][0] == tag[2:]:
            found[-1] = (found[-1][0], found[-1][1], i)
    return found
