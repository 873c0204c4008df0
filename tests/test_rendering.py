"""The renderer and the perturbation primitives, checked on real UD sentences.

Every expected string below was worked out by hand from the CoNLL-U lines of the named
sentence (forms, UPOS, SpaceAfter) and the rules in ``polyprobe/builders/rendering.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import all_treebanks
from ud_helpers import read_treebank, sentence

from polyprobe.builders.rendering import (
    capital_slots,
    capitalise_first,
    casefold_first,
    lexical_case,
    permute,
    render,
    swap_adjacent,
)
from polyprobe.builders.task import TaskContext
from polyprobe.hashing import normalise_text
from polyprobe.loaders.records import SurfaceToken

# What the build derives from EWT (see test_keep_case_forms_derived_from_data).
EN = TaskContext(lang="en", keep_case_forms=frozenset({"I"}))
DE = TaskContext(lang="de", capitalises_nouns=True)

# --- render reproduces `# text` ------------------------------------------------------------
#
# Measured exact-match rates (render(surface tokens) == `# text`) on ../shared/data/ud:
#
#   UD_Czech-FicTree 2600/2600   UD_Czech-PUD 1000/1000     UD_English-EWT 16621/16622
#   UD_English-PUD   1000/1000   UD_Finnish-PUD 999/1000    UD_Finnish-TDT 2892/2919 (99.1%)
#   UD_Georgian-GLC  937/950 (98.6%)                        UD_German-GSD 1776/1776
#   UD_German-PUD    1000/1000   UD_Russian-GSD 1180/1180   UD_Russian-PUD 1000/1000
#   UD_Slovenian-SSJ 2532/2532   UD_Spanish-GSD 1827/1827   UD_Spanish-PUD 1000/1000
#   UD_Turkish-IMST  5635/5635   UD_Turkish-PUD 1000/1000
#
# Every mismatch is whitespace only (equal after NFC + whitespace normalisation):
# * Finnish-TDT (27), Finnish-PUD (1), Georgian-GLC (13): `# text` has double spaces
#   ("oli  nuorukainen", "და  ინფორმაციის") that no token annotation records (these
#   treebanks do not use `SpacesAfter`), so no renderer working from tokens could restore them.
# * EWT (1): newsgroup ..._052200-0011 has a no-break space ("have\xa0been") recorded as
#   `SpacesAfter=\u00A0`; render() deliberately writes one ordinary space (see its docstring).
# No shared treebank has a space inside a token form, so none loses its spaces to rendering.
MIN_EXACT_RATE = 0.98


@pytest.mark.parametrize("treebank", all_treebanks())
def test_render_reproduces_text(ud_dir: Path, treebank: str) -> None:
    total = exact = 0
    other: list[str] = []
    for sent in read_treebank(ud_dir / treebank):
        if sent.text is None:
            continue
        total += 1
        rendered = render(sent.surface_tokens())
        if rendered == sent.text:
            exact += 1
        elif normalise_text(rendered) != normalise_text(sent.text):
            other.append(sent.sent_id)
    assert total > 0
    assert exact / total >= MIN_EXACT_RATE, f"{treebank}: {exact}/{total}"
    assert other == [], f"{treebank}: non-whitespace mismatches {other[:5]}"


def _tok(form: str, upos: str = "NOUN", space: bool = True, wid: int = 1) -> SurfaceToken:
    return SurfaceToken(form, (wid,), space, upos)


def test_render_spacing_and_no_trailing_space() -> None:
    toks = [_tok("Hi", "INTJ", False), _tok(",", "PUNCT"), _tok("you", "PRON", False)]
    toks.append(_tok("!", "PUNCT", True))
    assert render(toks) == "Hi, you!"
    assert render([]) == ""


# --- casing helpers -------------------------------------------------------------------------


def test_casefold_first_only_first_character() -> None:
    assert casefold_first("McCain") == "mcCain"
    assert casefold_first("Straße") == "straße"
    assert casefold_first("") == ""
    # Default Python lowercasing of İ gives "i" + U+0307; we never produce that.
    assert casefold_first("İçeriye") == "içeriye"
    assert casefold_first("Islak", "tr") == "ıslak"
    assert casefold_first("Islak", "en") == "islak"


def test_capitalise_first_titlecase() -> None:
    assert capitalise_first("moved") == "Moved"
    assert capitalise_first("ǆungla") == "ǅungla"  # titlecase digraph, not uppercase Ǆ
    assert capitalise_first("içeriye", "tr") == "İçeriye"
    assert capitalise_first("ijsland", "nl") == "IJsland"
    # Georgian Mkhedruli has no titlecase: the form stays as written (no Mtavruli).
    assert capitalise_first("ამ", "ka") == "ამ"


# --- spacing: real sentences with quotes, brackets, commas, clitics -------------------------

QUOTES = "weblog-blogspot.com_aggressivevoicedaily_20060814163400_ENG_20060814_163400-0008"


def _at(tokens: list[SurfaceToken], form: str) -> int:
    return [t.form for t in tokens].index(form)


def test_spacing_quotes_brackets_comma(ud_dir: Path) -> None:
    """EWT: '"Though we do not deny that fact that Jews were killed in the (second world) war,
    why should the Palestinians pay for it?"' — opening quote glued to 'Though', brackets glued
    inward, 'war' glued to ',', 'it' glued to '?' glued to the closing quote."""
    sent = sentence(ud_dir / "UD_English-EWT", QUOTES)
    toks = sent.surface_tokens()
    assert render(toks) == sent.text
    tail = " do not deny that fact that Jews were killed in the (second world) war, why should"

    # The quote keeps its gluing to whatever word is now first; capital moves with the slot.
    out = swap_adjacent(toks, _at(toks, "Though"), EN, sent)
    assert render(out) == '"We though' + tail + ' the Palestinians pay for it?"'

    # Inside brackets: '(' stays glued to the new first word, ')' to the new last word.
    out = swap_adjacent(toks, _at(toks, "second"), EN, sent)
    assert "killed in the (world second) war, why" in render(out)

    # 'in the (' -> 'the in (': the space before '(' is position 13's and stays.
    out = swap_adjacent(toks, _at(toks, "in"), EN, sent)
    assert "were killed the in (second world) war," in render(out)

    # 'for it?"' -> 'it for?"': the new last word is glued to '?', which stays glued to '"'.
    out = swap_adjacent(toks, _at(toks, "for"), EN, sent)
    assert render(out).endswith('Palestinians pay it for?"')

    # Whitespace skeleton and punctuation are untouched by any swap.
    for i in range(len(toks) - 1):
        if toks[i].upos == "PUNCT" or toks[i + 1].upos == "PUNCT":
            continue
        out = swap_adjacent(toks, i, EN, sent)
        assert [t.space_after for t in out] == [t.space_after for t in toks]
        assert [t.form for t in out if t.upos == "PUNCT"] == [
            t.form for t in toks if t.upos == "PUNCT"
        ]


def test_punctuation_never_moves(ud_dir: Path) -> None:
    sent = sentence(ud_dir / "UD_English-EWT", QUOTES)
    toks = sent.surface_tokens()
    with pytest.raises(ValueError, match="PUNCT"):
        swap_adjacent(toks, _at(toks, "the"), EN, sent)  # 'the (' : '(' is PUNCT
    with pytest.raises(ValueError, match="permutation"):
        permute(toks, [0] * len(toks), EN, sent)


def test_clitic_multiword_token_moves_whole(ud_dir: Path) -> None:
    """EWT 'We've moved on.': We've = We + 've (MWT 1-2), 'on' glued to '.'."""
    sent = sentence(
        ud_dir / "UD_English-EWT",
        "weblog-blogspot.com_marketview_20040611132900_ENG_20040611_132900-0002",
    )
    toks = sent.surface_tokens()
    assert [t.form for t in toks] == ["We've", "moved", "on", "."]
    assert toks[0].word_ids == (1, 2)
    # We've is positional-capital (its first word 'We' is PRON): it is lowercased as a unit.
    assert render(swap_adjacent(toks, 0, EN, sent)) == "Moved we've on."
    # 'moved' lands before '.', and takes position 2's SpaceAfter=No.
    assert render(swap_adjacent(toks, 1, EN, sent)) == "We've on moved."


def test_spanish_del_moves_as_one_unit(ud_dir: Path) -> None:
    """es-GSD es-dev-001-s248 'Está localizado dentro del área consolidada de la ciudad.'
    (del = de + el, MWT 4-5)."""
    sent = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    toks = sent.surface_tokens()
    i = _at(toks, "del")
    assert toks[i].word_ids == (4, 5) and toks[i].upos == "MWT"
    out = swap_adjacent(toks, i - 1, TaskContext(lang="es"), sent)
    assert render(out) == "Está localizado del dentro área consolidada de la ciudad."
    assert out[i - 1].word_ids == (4, 5)
    out = swap_adjacent(toks, 0, TaskContext(lang="es"), sent)
    assert render(out) == "Localizado está dentro del área consolidada de la ciudad."


def test_georgian_multiword_tokens_and_no_case(ud_dir: Path) -> None:
    """ka-GLC wiki_automotive_00353 'ამ ტრაქტატში პირველადაა შემოტანილი მექანიკის ცნება.'
    ტრაქტატში = ტრაქტატ + ში (MWT 2-3), პირველადაა = პირველადა + ა (MWT 4-5). Mkhedruli is
    caseless: nothing is capitalised (no Mtavruli appears)."""
    sent = sentence(ud_dir / "UD_Georgian-GLC", "wiki_automotive_00353")
    toks = sent.surface_tokens()
    assert len(toks) == 7 and len(sent.words) == 9
    ka = TaskContext(lang="ka")
    assert render(swap_adjacent(toks, 0, ka, sent)) == (
        "ტრაქტატში ამ პირველადაა შემოტანილი მექანიკის ცნება."
    )
    assert render(swap_adjacent(toks, 1, ka, sent)) == (
        "ამ პირველადაა ტრაქტატში შემოტანილი მექანიკის ცნება."
    )


# --- capitals -------------------------------------------------------------------------------


def test_english_I_keeps_its_capital(ud_dir: Path) -> None:
    """'I' is capitalised everywhere in English: lowercasing it would create 'i', a form no
    original contains. EWT tacitusproject-0030 'I have.'; newsgroup MeninLingerie-0008
    'Now I have wife and son.'"""
    tb = ud_dir / "UD_English-EWT"
    s1 = sentence(tb, "weblog-blogspot.com_tacitusproject_20040712123425_ENG_20040712_123425-0030")
    assert render(swap_adjacent(s1.surface_tokens(), 0, EN, s1)) == "Have I."
    s2 = sentence(
        tb, "newsgroup-groups.google.com_MeninLingerie_78adf09ead5e7e87_ENG_20041219_035800-0008"
    )
    assert render(swap_adjacent(s2.surface_tokens(), 0, EN, s2)) == "I now have wife and son."
    # Without a derived keep-case list a one-letter capital word is positional.
    assert lexical_case([_tok("I", "PRON")], TaskContext(lang="cs")) == [False]


def test_keep_case_forms_derived_from_data(ud_dir: Path) -> None:
    """The keep-case list comes from the treebank: EWT capitalises 'I' mid-sentence always;
    German GSD's capitalised nouns are handled by capitalises_nouns instead."""
    from polyprobe.builders.profile import derive_capitalisation
    from polyprobe.loaders.sources import discover, read_sources

    en = derive_capitalisation(read_sources(discover([ud_dir / "UD_English-EWT"])))
    assert "I" in en["keep_case_forms"]
    assert "the" not in en["keep_case_forms"] and not en["capitalises_nouns"]
    de = derive_capitalisation(read_sources(discover([ud_dir / "UD_German-GSD"])))
    assert de["capitalises_nouns"]


def test_propn_and_all_caps_keep_case(ud_dir: Path) -> None:
    # de-GSD dev-s1 'Manasse ist ein einzigartiger Parfümeur.' (Manasse PROPN)
    s = sentence(ud_dir / "UD_German-GSD", "dev-s1")
    out = render(swap_adjacent(s.surface_tokens(), 0, DE, s))
    assert out == "Ist Manasse ein einzigartiger Parfümeur."
    # EWT reviews-307209-0001 'LOCATION HAS CLOSED.' (all caps: lexical, nothing changes)
    s = sentence(ud_dir / "UD_English-EWT", "reviews-307209-0001")
    assert render(swap_adjacent(s.surface_tokens(), 0, EN, s)) == "HAS LOCATION CLOSED."
    # EWT hiddennook-0005 'AP Photo/Nasser Nasser': AP is PROPN, '/' keeps its gluing.
    s = sentence(
        ud_dir / "UD_English-EWT",
        "newsgroup-groups.google.com_hiddennook_23708a8afef2f3a8_ENG_20041226_230600-0005",
    )
    assert render(swap_adjacent(s.surface_tokens(), 0, EN, s)) == "Photo AP/Nasser Nasser"


def test_nouns_in_noun_capitalising_language(ud_dir: Path) -> None:
    """de-GSD dev-s283 'Essen ist ok.': with capitalises_nouns the NOUN keeps its capital; a
    profile that forgot to set it would produce 'essen', a form German never writes."""
    s = sentence(ud_dir / "UD_German-GSD", "dev-s283")
    toks = s.surface_tokens()
    assert render(swap_adjacent(toks, 0, DE, s)) == "Ist Essen ok."
    assert render(swap_adjacent(toks, 0, TaskContext(lang="de"), s)) == "Ist essen ok."


def test_turkish_dotted_capital(ud_dir: Path) -> None:
    """tr-IMST 00002213_22 'İçeriye gençten bir erkek girdi.' (İçeriye NOUN)."""
    s = sentence(ud_dir / "UD_Turkish-IMST", "00002213_22")
    out = render(swap_adjacent(s.surface_tokens(), 0, TaskContext(lang="tr"), s))
    assert out == "Gençten içeriye bir erkek girdi."


def test_capital_slot_after_internal_sentence_end(ud_dir: Path) -> None:
    """fi-PUD w04001053 'Saaret sijaitsevat Indo-Australian siirroksessa. Siirros kohosi
    Intian ja Australian laattojen törmätessä.' — 'Siirros' is capitalised because it starts
    the second sentence; the capital stays there."""
    s = sentence(ud_dir / "UD_Finnish-PUD", "w04001053")
    toks = s.surface_tokens()
    assert capital_slots(toks) == [0, 5]
    out = render(swap_adjacent(toks, 5, TaskContext(lang="fi"), s))
    assert out == (
        "Saaret sijaitsevat Indo-Australian siirroksessa. "
        "Kohosi siirros Intian ja Australian laattojen törmätessä."
    )


def test_lowercase_start_transfers_nothing(ud_dir: Path) -> None:
    """EWT enronsent23_11-0014 'those dogs aren't even friendly.' starts lowercase: no capital
    is invented ("aren't" is an MWT and moves whole)."""
    s = sentence(ud_dir / "UD_English-EWT", "email-enronsent23_11-0014")
    toks = s.surface_tokens()
    assert render(swap_adjacent(toks, 0, EN, s)) == "dogs those aren't even friendly."
    assert render(swap_adjacent(toks, 1, EN, s)) == "those aren't dogs even friendly."


def test_permute_general_order(ud_dir: Path) -> None:
    """A longer-range permutation (as later tasks use): es-dev-001-s248, move 'área' to the
    front. Spacing stays positional, the slot capital moves, 'del' stays one unit."""
    s = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    toks = s.surface_tokens()
    a = _at(toks, "área")
    order = [a] + [i for i in range(len(toks)) if i != a]
    out = permute(toks, order, TaskContext(lang="es"), s)
    assert render(out) == "Área está localizado dentro del consolidada de la ciudad."


def test_multiword_token_case_decided_by_first_word(ud_dir: Path) -> None:
    """EWT reviews-030875-0002 "Britt's Pizza is long gone.": "Britt's" is an MWT whose first
    word 'Britt' is PROPN, so it keeps its capital when it leaves the sentence start. Without
    the sentence the MWT's words are unknown and its capital counts as positional."""
    s = sentence(ud_dir / "UD_English-EWT", "reviews-030875-0002")
    toks = s.surface_tokens()
    assert lexical_case(toks, EN, s)[0] is True
    assert render(swap_adjacent(toks, 0, EN, s)) == "Pizza Britt's is long gone."
    assert render(swap_adjacent(toks, 0, EN)) == "Pizza britt's is long gone."
