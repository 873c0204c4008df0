"""The blank spaCy tokenizer's piece cache is made as large as ``VOCAB_RENEWAL`` (spaCy's
default keeps 10,000 pieces, far fewer than a dump has): a memo, so the tokens must equal a
default ``spacy.blank`` tokenizer's on every sentence of both shared dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.loaders.segmentation import VOCAB_RENEWAL, Segmenter, Token
from polyprobe.loaders.wikisource import WikiDumpSource

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def _library(nlp, sentence: str) -> list[Token]:  # noqa: ANN001
    """spaCy's own tokenizer on one sentence, whitespace tokens folded into the space before
    (the rule of ``Segmenter.tokens``)."""
    out: list[Token] = []
    for tok in nlp.tokenizer(sentence):
        if tok.is_space:
            if out:
                out[-1] = (out[-1][0], True)
            continue
        out.append((tok.text, bool(tok.whitespace_)))
    return out


@pytest.mark.parametrize(("name", "lang"), [(EN, "en"), (BG, "bg")])
def test_same_tokens_as_default_spacy_on_every_sentence_of_a_dump(
    data_dir: Path, name: str, lang: str
) -> None:
    import spacy

    source = WikiDumpSource(data_dir / "wikipedia" / name, Segmenter(lang))
    ours = Segmenter(lang)
    assert ours._spacy().tokenizer.max_cache_size == VOCAB_RENEWAL
    reference = spacy.blank(lang)
    assert reference.tokenizer.max_cache_size < VOCAB_RENEWAL  # spaCy's default, 10,000
    sentences = 0
    for doc in source.documents():
        for s in doc.sentences:  # kept and dropped ones
            assert ours.tokens(s.text) == _library(reference, s.text), s.text[:80]
            sentences += 1
    assert sentences > (18_000 if lang == "en" else 40)


@pytest.mark.parametrize(
    "sentence",
    [
        "Two  spaces,\ta tab and\u2003an em space.",
        " A leading space and a trailing one. ",
        "   ",
        "",
        "Don't stop: U.S. e.g. 10a.m. (see :) ) -- ok?!",
        "Ünïcödé – ´accents´ and 3,5 km² … „quotes“.",
    ],
)
def test_same_tokens_as_default_spacy_on_odd_whitespace(sentence: str) -> None:
    """Whitespace tokens (a second space, a tab, an em space) set the space of the token
    before them; a token's text is its slice of the sentence."""
    import spacy

    assert Segmenter("en").tokens(sentence) == _library(spacy.blank("en"), sentence)
