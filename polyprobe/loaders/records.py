"""Typed records that loaders yield. They know nothing of tasks: builders read them.

Syntactic words, multiword-token ranges and empty nodes live in separate lists so that a
multiword token (Spanish *del*) or an enhanced-graph empty node can never be mistaken for a
syntactic word by a task that counts or indexes words.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """Where a sentence came from: treebank name (folder name, e.g. ``UD_English-EWT``), file
    path and the UD split (``train``/``dev``/``test``, or ``None`` for a loose file)."""

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
    _children: list[list[int]] | None = None
    _surface: list[SurfaceToken] | None = None
    # Builders' memo of the unperturbed rendering (text, forms): every task that emits the
    # original sentence asks for the same values (see builders.rendering.sentence_inputs).
    _rendered: tuple[str, list[str]] | None = None

    # --- tree helpers -------------------------------------------------------------------
    def word(self, word_id: int) -> Word:
        return self.words[word_id - 1]

    @property
    def root(self) -> Word:
        for w in self.words:
            if w.head == 0:
                return w
        raise ValueError(f"sentence {self.sent_id} has no root")

    def _child_index(self) -> list[list[int]]:
        if self._children is None:
            kids: list[list[int]] = [[] for _ in range(len(self.words) + 1)]
            for w in self.words:
                kids[w.head].append(w.id)
            self._children = kids
        return self._children

    def children(self, word_id: int) -> list[Word]:
        """Dependents of ``word_id`` (0 = the virtual root) in word order."""
        return [self.words[i - 1] for i in self._child_index()[word_id]]

    def depth(self) -> int:
        """Longest root-to-leaf path counted in nodes (a one-word sentence has depth 1)."""
        kids = self._child_index()
        best = 0
        stack = [(i, 1) for i in kids[0]]
        while stack:
            node, d = stack.pop()
            if d > best:
                best = d
            stack.extend((c, d + 1) for c in kids[node])
        return best

    # --- surface ------------------------------------------------------------------------
    def surface_tokens(self) -> list[SurfaceToken]:
        """Orthographic tokens in order: a multiword token is one unit, its words are hidden.

        Computed once per sentence (every task asks); callers get their own list."""
        if self._surface is None:
            self._surface = self._make_surface_tokens()
        return list(self._surface)

    def _make_surface_tokens(self) -> list[SurfaceToken]:
        out: list[SurfaceToken] = []
        mwts = {m.first: m for m in self.multiword}
        i = 1
        n = len(self.words)
        while i <= n:
            m = mwts.get(i)
            if m is not None:
                out.append(
                    SurfaceToken(m.form, tuple(range(m.first, m.last + 1)), m.space_after, "MWT")
                )
                i = m.last + 1
            else:
                w = self.words[i - 1]
                out.append(SurfaceToken(w.form, (w.id,), w.space_after, w.upos))
                i += 1
        return out
