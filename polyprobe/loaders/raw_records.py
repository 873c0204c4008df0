"""A raw sentence as a :class:`~polyprobe.loaders.records.Sentence`, so that the UD family's
text-only tasks (``sentence_length``, ``word_content``, ``bigram_shift``, ``word_order``,
``end_of_sentence``) run on it unchanged.

Why the UD record rather than a record of its own: those tasks only read surface tokens,
their spacing and which tokens are punctuation (never moved, never counted as words), plus,
for ``word_order`` and a noun-restricted ``word_content``, which tokens are nouns. A raw
sentence supplies exactly that and nothing else: each token is a word with ``lemma`` = its
form, UPOS ``PUNCT`` (every character a Unicode punctuation mark), ``SYM`` (symbols), ``NUM``
(digits), ``NOUN`` (a form the given noun lexicon lists only as a noun) or ``X`` (unknown);
no features, every head 0. Tasks that need more (tree depth, tense, subject number...) are
not offered on raw text; ``--annotate`` makes full records instead.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, SourceFile, Word
from polyprobe.loaders.segmentation import Token

__all__ = [
    "DocumentPlace",
    "RawTextSentence",
    "UposGuesser",
    "guess_upos",
    "raw_sentence",
    "raw_sentence_columns",
]


class DocumentPlace(NamedTuple):
    """Where a kept raw sentence stands in its document: what the document stream needs to
    make the document from the sentence records of the same reading
    (:class:`~polyprobe.builders.records.rawdocuments.SentenceDocuments`) instead of reading the
    source again: the document's id and line, the sentence's index among all the document's
    sentences (dropped ones counted), its section title and whether it opens its paragraph."""

    doc_id: str
    line: int
    index: int
    section: str | None
    opens_paragraph: bool


@dataclass(slots=True, eq=False)
class RawTextSentence(Sentence):
    """A raw sentence's record (a :class:`Sentence` to every task) with its
    :class:`DocumentPlace`."""

    place: DocumentPlace | None = None

def guess_upos(form: str, nouns: frozenset[str]) -> str:
    """The UPOS a raw token can be given without a tagger (see the module docstring)."""
    if form.isalpha():  # letters only (most tokens): neither PUNCT, SYM nor NUM, decided in C
        return "NOUN" if nouns and lexical_key(form) in nouns else "X"
    cats = {unicodedata.category(c)[0] for c in form}
    if cats == {"P"}:
        return "PUNCT"
    if cats <= {"S", "P"}:
        return "SYM"
    if form.isdigit():
        return "NUM"
    if nouns and lexical_key(form) in nouns:
        return "NOUN"
    return "X"


def raw_sentence(
    tokens: Sequence[Token],
    text: str,
    sent_id: str,
    doc_id: str | None,
    source: SourceFile,
    line: int,
    nouns: frozenset[str] = frozenset(),
) -> Sentence:
    """The record of one tokenised raw sentence (``text`` is kept as its ``# text``)."""
    return raw_sentence_columns(
        [f for f, _ in tokens],
        [s for _, s in tokens],
        text,
        sent_id,
        doc_id,
        source,
        line,
        UposGuesser(nouns),
    )


class UposGuesser:
    """:func:`guess_upos` with a memo of the forms seen: a dump repeats its forms (the
    ~50 most frequent make half of its tokens), and a dict lookup is ~20× cheaper than the
    character test. The memo is emptied when it holds ``limit`` forms, so a reading's memory
    stays bounded whatever the vocabulary of the dump."""

    __slots__ = ("limit", "memo", "nouns")

    def __init__(self, nouns: frozenset[str] = frozenset(), limit: int = 200_000) -> None:
        self.nouns = nouns
        self.limit = limit
        self.memo: dict[str, str] = {}

    def forms(self, forms: Sequence[str]) -> list[str]:
        """The UPOS of each form."""
        memo = self.memo
        get = memo.get
        out = [get(f) for f in forms]
        if None in out:
            if len(memo) >= self.limit:
                memo.clear()
            nouns = self.nouns
            for i, upos in enumerate(out):
                if upos is None:
                    form = forms[i]
                    upos = out[i] = memo[form] = guess_upos(form, nouns)
        return out  # type: ignore[return-value]


def raw_sentence_columns(
    forms: Sequence[str],
    spaces: Sequence[bool],
    text: str,
    sent_id: str,
    doc_id: str | None,
    source: SourceFile,
    line: int,
    upos: UposGuesser,
    place: DocumentPlace | None = None,
) -> Sentence:
    """:func:`raw_sentence` from the token columns an input shard's table stores (no pair
    is made per token). Its surface tokens are left to :meth:`Sentence.surface_tokens`: made
    here from the same columns they measured no cheaper (stop 26)."""
    tags = upos.forms(forms)
    words = [
        Word(i, form, form, tag, "_", {}, 0, "_", "_", {} if space else {"SpaceAfter": "No"})
        for i, form, tag, space in zip(range(1, len(forms) + 1), forms, tags, spaces, strict=True)
    ]
    return RawTextSentence(
        sent_id=sent_id,
        text=text,
        doc_id=doc_id,
        source=source,
        line=line,
        words=words,
        place=place,
    )
