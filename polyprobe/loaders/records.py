"""Typed records that loaders yield. They know nothing of tasks: builders read them.

Four record kinds cover every input a build reads: a :class:`Sentence` (a treebank's), a
:class:`LexEntry` (a lexicon line), a :class:`Document` (sentences or paragraphs in their
order) and an :class:`Example` (one item of a labelled or scored dataset). A task declares
which kind it reads, so the build spine can hand it records without knowing the format.

Syntactic words, multiword-token ranges and empty nodes live in separate lists so that a
multiword token (Spanish *del*) or an enhanced-graph empty node can never be mistaken for a
syntactic word by a task that counts or indexes words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(slots=True)
class Word:
    """One syntactic word (a CoNLL-U line with an integer id)."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: dict[str, str]
    head: int
    deprel: str
    deps: str
    misc: dict[str, str]

    @property
    def space_after(self) -> bool:
        return self.misc.get("SpaceAfter") != "No"


@dataclass(slots=True)
class MultiwordToken:
    """A surface token spanning syntactic words ``first..last`` (a ``3-4`` range line)."""

    first: int
    last: int
    form: str
    misc: dict[str, str]

    @property
    def space_after(self) -> bool:
        return self.misc.get("SpaceAfter") != "No"


@dataclass(slots=True)
class EmptyNode:
    """An enhanced-dependency empty node (``8.1``); never part of the basic tree."""

    id: str
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: dict[str, str]
    deps: str
    misc: dict[str, str]


@dataclass(slots=True, frozen=True)
class SourceFile:
    """Where a record came from: the source's name (for a treebank its folder name, e.g.
    ``UD_English-EWT``; else the source's own name, e.g. ``trec``), file path and the split
    the source assigns (UD's ``train``/``dev``/``test``, TREC's ``train``/``test``, or
    ``None`` for a loose file). The field keeps its historical name ``treebank``."""

    treebank: str
    path: str
    split: str | None


@dataclass(slots=True)
class SurfaceToken:
    """What a reader sees: one orthographic token, possibly several syntactic words."""

    form: str
    word_ids: tuple[int, ...]
    space_after: bool
    upos: str  # the word's UPOS, or "MWT" for a multiword token


@dataclass(slots=True)
class Sentence:
    sent_id: str
    text: str | None
    doc_id: str | None
    source: SourceFile
    line: int  # 1-based line of the sentence's first line in its file
    words: list[Word]
    multiword: list[MultiwordToken] = field(default_factory=list)
    empty: list[EmptyNode] = field(default_factory=list)
    comments: dict[str, str] = field(default_factory=dict)
    _surface: list[SurfaceToken] | None = None
    # Builders' memo of the unperturbed rendering (text, forms): every task that emits the
    # original sentence asks for the same values (see builders.rendering.sentence_inputs).
    _rendered: tuple[str, list[str]] | None = None
    # The child index (see _child_lists), built on first use: tasks ask for the dependents
    # of a few words several times per sentence, and copying a ready list is cheaper than
    # looking every child up again. Derived, so not compared or shown.
    _kids: list[list[Word]] | None = field(default=None, compare=False, repr=False)

    # --- tree helpers -------------------------------------------------------------------
    def word(self, word_id: int) -> Word:
        return self.words[word_id - 1]

    @property
    def root(self) -> Word:
        kids = self._kids  # once the child index exists, its row 0 lists the roots
        if kids is not None and kids[0]:
            return kids[0][0]
        for w in self.words:
            if w.head == 0:
                return w
        raise ValueError(f"sentence {self.sent_id} has no root")

    def _child_lists(self) -> list[list[Word]]:
        """Row ``i``: the dependents of word ``i`` in word order (row 0: the roots), made in
        one pass over the words on first use and kept. The one child index that
        :meth:`children`, :meth:`depth` and :attr:`root` share."""
        kids = self._kids
        if kids is None:
            kids = self._kids = [[] for _ in range(len(self.words) + 1)]
            for w in self.words:  # word i is words[i - 1], so each row is in word order
                kids[w.head].append(w)
        return kids

    def children(self, word_id: int) -> list[Word]:
        """Dependents of ``word_id`` (0 = the virtual root) in word order."""
        kids = self._kids
        if kids is None:
            kids = self._child_lists()
        return kids[word_id].copy()  # callers own the list they get

    def depth(self) -> int:
        """Longest root-to-leaf path counted in nodes (a one-word sentence has depth 1).

        Breadth-first by levels: one list comprehension per level instead of a push and a
        pop per word, and no (node, depth) tuples."""
        kids = self._kids
        if kids is None:
            kids = self._child_lists()
        level = kids[0]
        depth = 0
        while level:
            depth += 1
            level = [c for w in level for c in kids[w.id]]
        return depth

    # --- surface ------------------------------------------------------------------------
    def surface_tokens(self) -> list[SurfaceToken]:
        """Orthographic tokens in order: a multiword token is one unit, its words are hidden.

        Computed once per sentence (every task asks); callers get their own list."""
        tokens = self._surface
        if tokens is None:
            tokens = self._surface = self._make_surface_tokens()
        return tokens.copy()

    def _make_surface_tokens(self) -> list[SurfaceToken]:
        # ``SpaceAfter`` is read here directly rather than through ``Word.space_after``:
        # the same test, without a property call per word.
        if not self.multiword:  # most sentences: one token per word
            return [
                SurfaceToken(w.form, (w.id,), w.misc.get("SpaceAfter") != "No", w.upos)
                for w in self.words
            ]
        out: list[SurfaceToken] = []
        mwts = {m.first: m for m in self.multiword}
        words = self.words
        i = 1
        n = len(words)
        while i <= n:
            m = mwts.get(i)
            if m is not None:
                out.append(
                    SurfaceToken(
                        m.form,
                        tuple(range(m.first, m.last + 1)),
                        m.misc.get("SpaceAfter") != "No",
                        "MWT",
                    )
                )
                i = m.last + 1
            else:
                w = words[i - 1]
                out.append(SurfaceToken(w.form, (w.id,), w.misc.get("SpaceAfter") != "No", w.upos))
                i += 1
        return out


class LexEntry(NamedTuple):
    """One UniMorph line. ``tag`` is the raw bundle; ``features`` maps dimension -> value name
    (``{"POS": "Noun", "Case": "Accusative", "Number": "Singular"}``); ``layers`` keeps each
    argument/possessor layer's own decoded dimensions (``{"NOM": {"Person": ..., "Number":
    ...}}``); ``unknown_tags`` are atoms the schema does not know (``LGSPEC1`` included), kept
    so that the card can count them. A NamedTuple because lexicons have millions of lines and
    it is created twice as fast as a frozen dataclass."""

    lemma: str
    form: str
    tag: str
    features: Mapping[str, str]
    layers: Mapping[str, Mapping[str, str]]
    pos: str | None
    unknown_tags: tuple[str, ...]
    source: str
    line: int


DOCUMENT_UNITS: tuple[str, ...] = ("sentence", "paragraph")


@dataclass(slots=True, frozen=True)
class Document:
    """A document as an ordered sequence of units (its sentences or paragraphs).

    Why a record of its own: discourse tasks (sentence order, next-sentence, section
    membership) need what no single sentence carries - which units are neighbours and where
    a section starts - and sources such as Wikipedia dumps have no sentence-level
    annotation to hang it on. ``sections`` gives each unit's section title (``None`` where
    there is none) and is empty when the source has no sections at all; ``line`` is where the
    document starts in its file. ``unit_ids`` (optional, one per unit when given) are the
    units' own ids in the source (a treebank's ``sent_id``s), so rows made from a unit can
    name it; without them a unit is named by its 1-based position. ``breaks`` (optional,
    ascending) are the indices ``i`` of units that do not follow unit ``i - 1`` directly in
    the source: a sentence between them was dropped (a Wikipedia sentence with a template
    hole), so no window of neighbours may span the break; the document stays one record (one
    id, one group). ``paragraphs`` (optional, ascending, starting with 0 when given) are the
    indices of the units that open a paragraph in the source (a UD ``# newpar``, a wikitext
    paragraph, a line of a plain-text document): DiscoEval cuts its windows from paragraph
    openings, where the order of sentences is most constrained; empty when the source marks
    no paragraphs."""

    doc_id: str
    units: tuple[str, ...]
    unit: str
    sections: tuple[str | None, ...]
    source: SourceFile
    line: int
    unit_ids: tuple[str, ...] = ()
    breaks: tuple[int, ...] = ()
    paragraphs: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.unit not in DOCUMENT_UNITS:
            raise ValueError(f"unit must be one of {DOCUMENT_UNITS}, not {self.unit!r}")
        if self.sections and len(self.sections) != len(self.units):
            raise ValueError(
                f"document {self.doc_id}: {len(self.sections)} section titles for "
                f"{len(self.units)} units (give one per unit, or none)"
            )
        if self.unit_ids and len(self.unit_ids) != len(self.units):
            raise ValueError(
                f"document {self.doc_id}: {len(self.unit_ids)} unit ids for "
                f"{len(self.units)} units (give one per unit, or none)"
            )
        if any(not 0 < b < len(self.units) for b in self.breaks) or list(self.breaks) != sorted(
            set(self.breaks)
        ):
            raise ValueError(
                f"document {self.doc_id}: breaks {self.breaks} must be distinct ascending unit "
                f"indices between 1 and {len(self.units) - 1}"
            )
        if self.paragraphs and (
            any(not 0 <= p < len(self.units) for p in self.paragraphs)
            or list(self.paragraphs) != sorted(set(self.paragraphs))
        ):
            raise ValueError(
                f"document {self.doc_id}: paragraphs {self.paragraphs} must be distinct "
                f"ascending unit indices below {len(self.units)}"
            )

    def runs(self) -> list[range]:
        """The document's runs of directly consecutive units (one run without breaks)."""
        edges = [0, *self.breaks, len(self.units)]
        return [range(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]

    def unit_id(self, index: int) -> str:
        """The id of unit ``index`` (0-based): its own id, else its 1-based position."""
        return self.unit_ids[index] if self.unit_ids else str(index + 1)


# "analogy": four words a, b, c, d (a is to b as c is to d); "comparison": four texts
# (the first two are closer than the last two, COSTRA's orderings).
# ``in-context``: (sentence, its tokens joined by single spaces - a token never holds
# whitespace, so the join is lossless -, index1, index2): two words of one context.
EXAMPLE_KINDS: tuple[str, ...] = ("text", "word", "analogy", "comparison", "in-context")
_FOUR_INPUTS = ("analogy", "comparison", "in-context")


@dataclass(slots=True, frozen=True)
class Example:
    """One labelled or scored item of a downstream or lexical dataset (a TREC question, a
    SimLex word pair with its score).

    Why one type for all of them: such datasets come already labelled, so what a build needs
    from each is the same - stable ids, one or two inputs, a label or a score, and where the
    item was read - and the downstream build can then treat every such source alike. ``id``
    is stable within its source (``train/12``: split and line) so that rebuilds agree;
    ``kind`` says whether the inputs are texts or words (it decides the published level)."""

    id: str
    inputs: tuple[str, ...]
    kind: str
    label: str | None
    score: float | None
    source: SourceFile
    line: int

    def __post_init__(self) -> None:
        if len(self.inputs) not in ((4,) if self.kind in _FOUR_INPUTS else (1, 2)):
            want = "4 inputs" if self.kind in _FOUR_INPUTS else "1 or 2 inputs"
            raise ValueError(f"example {self.id}: {want}, not {len(self.inputs)}")
        if self.kind not in EXAMPLE_KINDS:
            raise ValueError(f"example {self.id}: kind must be one of {EXAMPLE_KINDS}")
        if self.label is None and self.score is None:
            raise ValueError(f"example {self.id}: give a label or a score")
