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

from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, SourceFile, Word
from polyprobe.loaders.segmentation import Token

__all__ = ["guess_upos", "raw_sentence"]

_NO_SPACE = {"SpaceAfter": "No"}


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
    words = [
        Word(
            i,
            form,
            form,
            guess_upos(form, nouns),
            "_",
            {},
            0,
            "_",
            "_",
            {} if space else dict(_NO_SPACE),
        )
        for i, (form, space) in enumerate(tokens, 1)
    ]
    return Sentence(
        sent_id=sent_id, text=text, doc_id=doc_id, source=source, line=line, words=words
    )
