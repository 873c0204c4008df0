"""The spaCy tokenizer is made afresh once it has seen ``VOCAB_RENEWAL`` new words, so that
a worker's memory does not grow with a dump's vocabulary; its vocabulary computes no
lexical attribute but ``is_space`` (``tokenizer_only``): in both cases the tokens equal a
default ``spacy.blank`` tokenizer's. And ``guess_upos``'s letters-only fast path gives the
answer of the category rule."""

from __future__ import annotations

import unicodedata

import pytest

from polyprobe.hashing import lexical_key
from polyprobe.loaders import segmentation
from polyprobe.loaders.raw_records import guess_upos
from polyprobe.loaders.segmentation import Segmenter


def _words(n: int) -> list[str]:
    # distinct made-up words (base-26 numbers in letters), in sentences of 10
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for i in range(n):
        word = ""
        i += 26**3
        while i:
            i, r = divmod(i, 26)
            word += letters[r]
        out.append(word)
    return [" ".join(out[i : i + 10]) + "." for i in range(0, n, 10)]


def test_tokenizer_renewed_after_new_words_same_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = _words(3000) + ["Didn't she say 3.5 km (2 mi.) to St. Paul's?"]
    reference = Segmenter("en", tokenizer="spacy")
    expected = [reference.tokens(s) for s in sentences]
    assert len(reference._nlp.vocab) > 3000  # without renewal every new word stays

    monkeypatch.setattr(segmentation, "VOCAB_RENEWAL", 500)
    bounded = Segmenter("en", tokenizer="spacy")
    renewals = 0
    peak = 0
    for sentence, tokens in zip(sentences, expected, strict=True):
        before = bounded._nlp
        assert bounded.tokens(sentence) == tokens
        renewals += bounded._nlp is None and before is not None
        if bounded._nlp is not None:
            peak = max(peak, len(bounded._nlp.vocab) - bounded._vocab_limit + 500)
    assert renewals >= 5  # 3,000 new words, a fresh tokenizer every ~500
    assert peak <= 500 + 10  # never more than one sentence past the limit


def test_spacy_sentencizer_renewed_same_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    paragraphs = [" ".join(_words(200)[i : i + 4]) for i in range(0, 20, 4)]
    expected = [Segmenter("en", sentences="spacy").split(p) for p in paragraphs]
    monkeypatch.setattr(segmentation, "VOCAB_RENEWAL", 50)
    bounded = Segmenter("en", sentences="spacy")
    assert [bounded.split(p) for p in paragraphs] == expected
    assert bounded._splitter is None or len(bounded._splitter.vocab) <= bounded._split_limit


def _category_rule(form: str, nouns: frozenset[str]) -> str:
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


@pytest.mark.parametrize(
    "form",
    [
        "house",
        "Haus",
        "дом",
        "სახლი",
        "ʻokina",
        "ǅ",
        "x²",
        "3",
        "٣",
        "Ⅻ",
        "...",
        "$",
        "+-",
        "a-b",
        "e.g.",
        "½",
        "A1",
        "ᾼ",
        "ﬁ",
    ],
)
def test_guess_upos_fast_path_matches_category_rule(form: str) -> None:
    nouns = frozenset({lexical_key("house"), lexical_key("дом")})
    assert guess_upos(form, nouns) == _category_rule(form, nouns)
    assert guess_upos(form, frozenset()) == _category_rule(form, frozenset())


SENTENCES = {
    "en": "Didn't Dr. O'Neil pay $3.50 (approx. 2.9 €) at 10:30 a.m. on e-mail@x.org's site?",
    "de": "Das kostet z.B. 3,5 Mio. € – oder? „Ja“, sagte Frau Müller-Lüdenscheidt.",
    "ru": "Т.е. в 1990-х гг. он (т. н. «отец») жил в С.-Петербурге.",
    "ka": "საქართველო არის ქვეყანა. ის მდებარეობს კავკასიაში!",
    "tr": "Dr. Ahmet'in 3.5 km'lik yolu vardı, değil mi?",
}


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_tokenizer_only_vocabulary_same_tokens(lang: str) -> None:
    import spacy

    ours = Segmenter(lang, tokenizer="spacy")
    reference = spacy.blank(ours._spacy_lang or lang) if lang != "ka" else None
    text = SENTENCES[lang] + "  with  spaces\tand tabs "
    got = ours.tokens(text)
    assert ours._nlp.vocab.lex_attr_getters.keys() <= {spacy.attrs.IS_SPACE}
    if reference is not None:
        expected = []
        for tok in reference.tokenizer(text):
            if tok.is_space:
                expected[-1] = (expected[-1][0], True)
                continue
            expected.append((tok.text, bool(tok.whitespace_)))
        assert got == expected
    assert "".join(f + (" " if sp else "") for f, sp in got).split() == text.split()


def test_tokenizer_only_vocabulary_same_tokens_on_a_dump(data_dir) -> None:  # noqa: ANN001
    import spacy

    from polyprobe.loaders.wikisource import WikiDumpSource

    path = (
        data_dir
        / "wikipedia"
        / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
    )
    source = WikiDumpSource(path, Segmenter("en", tokenizer="spacy"))
    ours = Segmenter("en", tokenizer="spacy")
    reference = spacy.blank("en")
    n = 0
    for doc in source.documents():
        for s in doc.sentences[:40]:
            expected = []
            for tok in reference.tokenizer(s.text):
                if tok.is_space:
                    if expected:
                        expected[-1] = (expected[-1][0], True)
                    continue
                expected.append((tok.text, bool(tok.whitespace_)))
            assert ours.tokens(s.text) == expected, s.text
            n += 1
    assert n > 3000
