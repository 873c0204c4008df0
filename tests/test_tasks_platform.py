"""The three platform tasks (sentence_length, bigram_shift, subject_number) and the registry.

Hand-checked sentences are named by treebank and sent_id; each expectation was read off the
CoNLL-U lines (see the docstrings). Invariants run over every sentence of every shared treebank.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import all_treebanks
from ud_helpers import read_treebank, sentence

from polyprobe.builders.registry import DEFAULT_TASKS, TASKS, get_task
from polyprobe.builders.rendering import casefold_first, render
from polyprobe.builders.sentence.bigram_shift import BigramShift, swappable_pairs
from polyprobe.builders.sentence.sentence_length import BINS, SentenceLength, length_bin
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.task import Level, TaskParams
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, SourceFile, SurfaceToken

EWT = "UD_English-EWT"
JUANCOLE_7 = "weblog-juancole.com_juancole_20041111060900_ENG_20041111_060900-0007"
WE_VE = "weblog-blogspot.com_marketview_20040611132900_ENG_20040611_132900-0002"
EXCERPT = "weblog-juancole.com_juancole_20041120060600_ENG_20041120_060600-0002"
TEHRAN = "weblog-blogspot.com_aggressivevoicedaily_20060814163400_ENG_20060814_163400-0004"
NASSER = "newsgroup-groups.google.com_hiddennook_23708a8afef2f3a8_ENG_20041226_230600-0005"
DOGS = "email-enronsent23_11-0014"
BEDROOM = "email-enronsent28_03-0032"

LANG = {
    "Czech": "cs",
    "English": "en",
    "Finnish": "fi",
    "Georgian": "ka",
    "German": "de",
    "Russian": "ru",
    "Slovenian": "sl",
    "Spanish": "es",
    "Turkish": "tr",
}


def params_for(treebank: str) -> TaskParams:
    lang = LANG[treebank.split("_", 1)[1].split("-")[0]]
    return TaskParams(lang=lang, capitalises_nouns=lang == "de")


# --- registry and task metadata -------------------------------------------------------------


def test_registry_order_and_lookup() -> None:
    platform = ["sentence_length", "bigram_shift", "subject_number"]
    assert list(TASKS)[0] == "sentence_length"  # the default config of a full build
    assert [n for n in TASKS if n in platform] == platform
    assert get_task("bigram_shift") is BigramShift
    with pytest.raises(UsageError) as err:
        get_task("bigram_shfit")
    message = str(err.value)
    assert "bigram_shfit" in message
    for name in TASKS:
        assert name in message


# Tasks whose label set is derived from the corpus in derive() (class attribute is empty).
DYNAMIC_LABELS = {"word_content", "tree_depth", "top_dependencies"}


@pytest.mark.parametrize("name", list(DEFAULT_TASKS))
def test_task_metadata(name: str) -> None:
    cls = TASKS[name]
    task = cls()
    assert cls.name == name
    assert cls.level is Level.SENTENCE
    assert task.input_columns == ("sentence", "tokens")
    assert cls.recipe_version == "1.0.0"
    assert cls.description and cls.citation
    assert bool(cls.label_names) != (name in DYNAMIC_LABELS)
    assert task.parameters()
    assert ("Conneau" in cls.citation) or ("Wehner" in cls.citation)


def test_declared_flags() -> None:
    assert (SentenceLength.seed_dependent, SentenceLength.lexical_control) == (False, False)
    assert (BigramShift.seed_dependent, BigramShift.lexical_control) == (True, False)
    assert (SubjectNumber.seed_dependent, SubjectNumber.lexical_control) == (False, True)
    assert SentenceLength.label_names == (
        "1-4", "5-8", "9-12", "13-16", "17-20", "21-25", "26-29", "30-33", "34-55", "56+",
    )  # fmt: skip
    assert SubjectNumber.label_names == ("Sing", "Plur")
    assert BigramShift.label_names == ("original", "inverted")
    assert SubjectNumber().parameters()["subject_upos"] == ["NOUN"]
    assert SubjectNumber().parameters()["relations"] == ["nsubj", "nsubj:pass"]
    assert SentenceLength().parameters()["bins"][-1] == [56, None]
    assert any("once" in note for note in SentenceLength.notes)


# --- sentence_length ------------------------------------------------------------------------


def test_length_bin_edges() -> None:
    edges = {1: "1-4", 4: "1-4", 5: "5-8", 20: "17-20", 21: "21-25", 25: "21-25", 26: "26-29"}
    edges |= {33: "30-33", 34: "34-55", 55: "34-55", 56: "56+", 300: "56+"}
    for n, label in edges.items():
        assert length_bin(n) == label
    assert length_bin(0) is None
    assert [length_bin(lo) for lo, _ in BINS] == list(SentenceLength.label_names)


def test_sentence_length_hand_checked(ud_dir: Path) -> None:
    task = SentenceLength()
    # EWT juancole-0007: 31 syntactic words, MWTs "Allawi's" (1-2) and "man's" (7-8) -> 29
    # surface tokens (26-29); counting words would give 30-33.
    s = sentence(ud_dir / EWT, JUANCOLE_7)
    (c,) = task.candidates(s)
    assert len(s.words) == 31 and len(c.inputs["tokens"]) == 29
    assert c.label == "26-29" and c.copy == "0" and c.lexical_key == ""
    assert c.inputs["tokens"][:2] == ["Allawi's", "aged"] and "man's" in c.inputs["tokens"]
    assert c.inputs["sentence"] == s.text

    # es-GSD es-dev-001-s248 'Está localizado dentro del área consolidada de la ciudad.':
    # 11 words, 'del' (4-5) counts once -> 10 tokens.
    s = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    (c,) = task.candidates(s)
    assert len(s.words) == 11
    assert c.inputs["tokens"] == [
        "Está", "localizado", "dentro", "del", "área", "consolidada", "de", "la", "ciudad", ".",
    ]  # fmt: skip
    assert c.label == "9-12"

    # ka-GLC wiki_automotive_00353: 9 words, two MWTs -> 7 tokens -> 5-8 (words: 9-12).
    s = sentence(ud_dir / "UD_Georgian-GLC", "wiki_automotive_00353")
    (c,) = task.candidates(s)
    assert len(s.words) == 9 and len(c.inputs["tokens"]) == 7 and c.label == "5-8"

    # EWT 'Excerpt:' -> 2 tokens, punctuation counted.
    (c,) = task.candidates(sentence(ud_dir / EWT, EXCERPT))
    assert c.inputs["tokens"] == ["Excerpt", ":"] and c.label == "1-4"
    assert not task.drops


def test_sentence_length_drops_empty() -> None:
    """No real sentence is empty (CoNLL-U requires a word), so the one drop is synthetic."""
    task = SentenceLength()
    empty = Sentence("x", "", None, SourceFile("T", "t.conllu", None), 1, [])
    assert task.candidates(empty) == []
    assert task.drops == Counter({"empty sentence": 1})


# --- bigram_shift ---------------------------------------------------------------------------


def test_bigram_shift_spanish_del_moves_whole(ud_dir: Path) -> None:
    """es-dev-001-s248: 8 swappable pairs (every adjacent non-PUNCT pair). Seed 2 draws pair 3
    (del, área): 'del' moves as one token, and no 'de'/'el' appear."""
    s = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    assert swappable_pairs(s.surface_tokens()) == list(range(8))
    orig, inv = BigramShift(TaskParams(lang="es"), seed=2).candidates(s)
    assert (orig.label, orig.copy, inv.label, inv.copy) == (
        "original", "original", "inverted", "inverted",
    )  # fmt: skip
    assert orig.inputs["sentence"] == s.text
    assert inv.inputs["sentence"] == "Está localizado dentro área del consolidada de la ciudad."
    assert len(inv.inputs["tokens"]) == 10
    # Over many seeds, 'del' is always a single token wherever it lands.
    for seed in range(40):
        _, inv = BigramShift(TaskParams(lang="es"), seed=seed).candidates(s)
        assert inv.inputs["tokens"].count("del") == 1
        assert "el" not in inv.inputs["tokens"]


def test_bigram_shift_georgian_mwt(ud_dir: Path) -> None:
    """ka-GLC wiki_automotive_00353: seed 3 draws pair 1, two MWTs (ტრაქტატში, პირველადაა)."""
    s = sentence(ud_dir / "UD_Georgian-GLC", "wiki_automotive_00353")
    _, inv = BigramShift(TaskParams(lang="ka"), seed=3).candidates(s)
    assert inv.inputs["sentence"] == "ამ პირველადაა ტრაქტატში შემოტანილი მექანიკის ცნება."
    assert inv.inputs["tokens"] == [
        "ამ", "პირველადაა", "ტრაქტატში", "შემოტანილი", "მექანიკის", "ცნება", ".",
    ]  # fmt: skip


def test_bigram_shift_clitic_and_capital(ud_dir: Path) -> None:
    """EWT "We've moved on.": pairs 0 and 1. Seed 0 draws pair 0 -> "Moved we've on."."""
    s = sentence(ud_dir / EWT, WE_VE)
    assert swappable_pairs(s.surface_tokens()) == [0, 1]
    _, inv = BigramShift(TaskParams(lang="en"), seed=0).candidates(s)
    assert inv.inputs == {"sentence": "Moved we've on.", "tokens": ["Moved", "we've", "on", "."]}
    _, inv = BigramShift(TaskParams(lang="en"), seed=3).candidates(s)
    assert inv.inputs["sentence"] == "We've on moved."


def test_bigram_shift_never_swaps_identical_forms(ud_dir: Path) -> None:
    """EWT hiddennook-0005 'AP Photo/Nasser Nasser': 'Photo' and 'Nasser' are separated by the
    glued '/', 'Nasser Nasser' is identical, so only (AP, Photo) can swap, whatever the seed."""
    s = sentence(ud_dir / EWT, NASSER)
    assert swappable_pairs(s.surface_tokens()) == [0]
    for seed in range(5):
        _, inv = BigramShift(TaskParams(lang="en"), seed=seed).candidates(s)
        assert inv.inputs["sentence"] == "Photo AP/Nasser Nasser"
    # Case-insensitively identical forms are not a pair either ('The the' would render the
    # same string once the capital stays at the sentence start).
    toks = [SurfaceToken("The", (1,), True, "DET"), SurfaceToken("the", (2,), True, "DET")]
    assert swappable_pairs(toks) == []


def test_bigram_shift_drops(ud_dir: Path) -> None:
    task = BigramShift(TaskParams(lang="en"), seed=0)
    # 'Excerpt:' has one movable token; 'TEHRAN (AFP) -' has two, separated by '('.
    assert task.candidates(sentence(ud_dir / EWT, EXCERPT)) == []
    assert task.candidates(sentence(ud_dir / EWT, TEHRAN)) == []
    assert task.drops == Counter({"fewer than 2 movable tokens": 1, "no swappable pair": 1})


def _norm(form: str, lang: str) -> str:
    return casefold_first(form, lang)


@pytest.mark.parametrize("treebank", all_treebanks())
def test_invariants_on_real_data(ud_dir: Path, treebank: str) -> None:
    """One pass over every sentence of the treebank (parsing dominates the cost).

    bigram_shift: the inverted copy differs from the original; its tokens are the original's
    with exactly one adjacent pair of non-PUNCT tokens swapped (up to the capital transfer);
    PUNCT tokens and the whitespace skeleton are unchanged; the same seed gives the same
    candidates; another seed picks another pair for most sentences.
    sentence_length: one candidate per sentence, label = bin of the surface-token count.
    subject_number: labels Sing/Plur with a non-empty case-folded key; candidates + drops
    account for every sentence."""
    params = params_for(treebank)
    lang = params.lang
    task = BigramShift(params, seed=0)
    again = BigramShift(params, seed=0)
    other = BigramShift(params, seed=1)
    length = SentenceLength(params)
    subject = SubjectNumber(params)
    n = multi = moved = sentences = subjects = 0
    for s in read_treebank(ud_dir / treebank):
        sentences += 1
        toks = s.surface_tokens()
        (c,) = length.candidates(s)
        assert c.label == length_bin(len(toks)) and len(c.inputs["tokens"]) == len(toks)
        for c in subject.candidates(s):
            subjects += 1
            assert c.label in ("Sing", "Plur")
            assert c.lexical_key and c.lexical_key == c.lexical_key.casefold()
        cands = task.candidates(s)
        assert cands == again.candidates(s)
        if not cands:
            continue
        n += 1
        orig, inv = cands
        a, b = orig.inputs["tokens"], inv.inputs["tokens"]
        assert a == [t.form for t in toks]
        assert orig.inputs["sentence"] == render(toks)
        assert inv.inputs["sentence"] != orig.inputs["sentence"]
        assert len(a) == len(b)
        assert Counter(_norm(f, lang) for f in a) == Counter(_norm(f, lang) for f in b)
        diff = [k for k in range(len(a)) if _norm(a[k], lang) != _norm(b[k], lang)]
        assert len(diff) == 2 and diff[1] == diff[0] + 1, (s.sent_id, diff)
        i = diff[0]
        assert _norm(b[i], lang) == _norm(a[i + 1], lang)
        assert _norm(b[i + 1], lang) == _norm(a[i], lang)
        assert toks[i].upos != "PUNCT" and toks[i + 1].upos != "PUNCT"
        for k, t in enumerate(toks):
            if t.upos == "PUNCT":
                assert b[k] == a[k]
        # Same whitespace skeleton: the inverted string is its tokens on the original spacing.
        skeleton = [
            SurfaceToken(f, t.word_ids, t.space_after, t.upos) for f, t in zip(b, toks, strict=True)
        ]
        assert inv.inputs["sentence"] == render(skeleton)
        if len(swappable_pairs(toks)) > 1:
            multi += 1
            if other.candidates(s)[1].inputs != inv.inputs:
                moved += 1
    assert n > 0
    assert not (set(task.drops) - {"fewer than 2 movable tokens", "no swappable pair"})
    assert multi > 0 and moved / multi > 0.75, (moved, multi)
    assert subjects + sum(subject.drops.values()) == sentences
    if treebank == EWT:
        assert subject.drops["coordinated subject (conj dependent)"] > 0


# --- subject_number -------------------------------------------------------------------------


def test_subject_number_coordinated_subject_dropped(ud_dir: Path) -> None:
    """EWT juancole-0007 'Allawi's aged cousin and the man's wife and daughter-in-law were
    abducted ...': root 'abducted' (17); its only nsubj:pass is 'cousin' (4, NOUN, Sing), which
    has conj dependents 'wife' (9) and 'daughter' (11) -> dropped as coordinated."""
    task = SubjectNumber(TaskParams(lang="en"))
    assert task.candidates(sentence(ud_dir / EWT, JUANCOLE_7)) == []
    assert task.drops == Counter({"coordinated subject (conj dependent)": 1})


def test_subject_number_hand_checked(ud_dir: Path) -> None:
    task = SubjectNumber(TaskParams(lang="en"))
    # 'those dogs aren't even friendly.': root 'friendly' (6), nsubj 'dogs' NOUN Number=Plur.
    (c,) = task.candidates(sentence(ud_dir / EWT, DOGS))
    assert (c.label, c.lexical_key, c.copy) == ("Plur", "dogs", "0")
    assert c.inputs["tokens"] == ["those", "dogs", "aren't", "even", "friendly", "."]
    assert c.inputs["sentence"] == "those dogs aren't even friendly."
    # 'Our extra bedroom is nicer now.': root 'nicer' (5), nsubj 'bedroom' NOUN Number=Sing.
    (c,) = task.candidates(sentence(ud_dir / EWT, BEDROOM))
    assert (c.label, c.lexical_key) == ("Sing", "bedroom")
    # de-GSD dev-s283 'Essen ist ok.': root 'ok' (3), nsubj 'Essen' NOUN Number=Sing; the
    # lexical key is case-folded.
    (c,) = SubjectNumber(TaskParams(lang="de")).candidates(
        sentence(ud_dir / "UD_German-GSD", "dev-s283")
    )
    assert (c.label, c.lexical_key) == ("Sing", "essen")
    assert not task.drops


def test_subject_number_other_drops_and_profile_upos(ud_dir: Path) -> None:
    task = SubjectNumber(TaskParams(lang="en"))
    # "We've moved on.": nsubj 'We' (1) is PRON -> not admitted by default.
    assert task.candidates(sentence(ud_dir / EWT, WE_VE)) == []
    # 'Excerpt:': the root is the noun itself, no subject.
    assert task.candidates(sentence(ud_dir / EWT, EXCERPT)) == []
    assert task.drops == Counter(
        {"subject UPOS not allowed": 1, "no nsubj/nsubj:pass dependent of the root": 1}
    )
    # A profile admitting pronouns: 'We' is Number=Plur; key is the case-folded form.
    wide = SubjectNumber(
        TaskParams(lang="en", extra={"tasks": {"subject_number": {"subject_upos": ("NOUN", "PRON")}}})
    )
    (c,) = wide.candidates(sentence(ud_dir / EWT, WE_VE))
    assert (c.label, c.lexical_key) == ("Plur", "we")
    assert wide.parameters()["subject_upos"] == ["NOUN", "PRON"]
