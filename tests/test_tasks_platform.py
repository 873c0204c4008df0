"""The three platform tasks (sentence_length, bigram_shift, subject_number) and the registry.

Hand-checked sentences are named by treebank and sent_id; each expectation was read off the
CoNLL-U lines (see the docstrings). Invariants run over every sentence of every shared treebank.
The registry imports every task module, so the registry tests import it themselves: a module
that fails to import then fails those tests, not the collection of the task tests here.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import all_treebanks
from ud_helpers import read_treebank, sentence

from polyprobe.builders.rendering import casefold_first, render
from polyprobe.builders.sentence.bigram_shift import BigramShift, swappable_pairs
from polyprobe.builders.sentence.sentence_length import BINS, SentenceLength, length_bin
from polyprobe.builders.sentence.sentence_length_senteval import SentenceLengthSentEval
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.task import Candidate, Fit, Level, Shared, Task, TaskContext
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


def context_for(treebank: str, seed: int = 0) -> TaskContext:
    lang = LANG[treebank.split("_", 1)[1].split("-")[0]]
    return TaskContext(lang=lang, seed=seed, capitalises_nouns=lang == "de")


def empty_fit(task: Task) -> Fit:
    """The task's fit after a first pass over nothing (the build fits every task, even on an
    empty corpus); for the tasks here, which need no first pass, it is the fixed label set."""
    return task.fit(task.observation())


def run(task: Task, s: Sentence, fit: Fit | None = None) -> list[Candidate]:
    """The task's candidates for one sentence, as the build asks for them."""
    return task.candidates(s, empty_fit(task) if fit is None else fit, Shared(s))


def shifter(lang: str, seed: int) -> BigramShift:
    return BigramShift(context=TaskContext(lang=lang, seed=seed))


# --- registry and task metadata -------------------------------------------------------------


def test_registry_order_and_lookup() -> None:
    from polyprobe.builders.families.ud import UD

    tasks = UD.tasks.by_name
    platform = ["sentence_length", "bigram_shift", "subject_number"]
    assert list(tasks)[0] == "sentence_length"  # the default config of a full build
    assert UD.tasks.resolve(None)[0] == "sentence_length"
    assert [n for n in tasks if n in platform] == platform
    assert UD.tasks.get("bigram_shift") is BigramShift
    with pytest.raises(UsageError) as err:
        UD.tasks.get("bigram_shfit")
    message = str(err.value)
    assert "bigram_shfit" in message
    for name in [*tasks, *UD.tasks.groups]:
        assert name in message


def test_registry_resolves_names() -> None:
    """Names come back in the task set's order, groups expanded, duplicates removed; no
    names is the family's default suite (the sentence tasks: the contextual group is
    opt-in)."""
    from polyprobe.builders.families.ud import UD

    tasks = UD.tasks
    assert tasks.resolve(["subject_number", "sentence_length", "subject_number"]) == [
        "sentence_length",
        "subject_number",
    ]
    assert tasks.default is not None and tasks.resolve(None) == list(tasks.default)
    # the default suite: the sentence group, then the discourse group (document tasks)
    assert tasks.resolve(["sentence", "discourse"]) == list(tasks.default)
    assert tasks.resolve(["sentence"]) == list(tasks.groups["sentence"])
    assert tasks.resolve(["contextual"]) == list(tasks.groups["contextual"])
    assert not set(tasks.groups["contextual"]) & set(tasks.default)
    with pytest.raises(UsageError, match="bigram_shfit"):
        tasks.resolve(["bigram_shfit"])


# Tasks whose label set is derived from the corpus by fit() (metadata.labels is None).
# end_of_sentence chooses its bins from the median sentence length (its old class attribute
# held the English default only).
DYNAMIC_LABELS = {"word_content", "tree_depth", "top_dependencies", "end_of_sentence"}


def test_task_metadata() -> None:
    """Every sentence task of the default suite: named as registered, sentence-level, cites
    SentEval or Wehner, and shows its recipe parameters even when fitted on nothing (the
    discourse group: tests/test_discourse_ud.py)."""
    from polyprobe.builders.families.ud import UD

    tasks = UD.tasks.by_name
    for name in UD.tasks.groups["sentence"]:
        cls = tasks[name]
        meta = cls.metadata
        task = cls()
        assert meta.name == name
        assert meta.level is Level.SENTENCE, name
        assert task.input_columns == ("sentence", "tokens"), name
        assert meta.recipe_version == "1.0.0", name
        assert meta.description and meta.citation, name
        assert (meta.labels is None) == (name in DYNAMIC_LABELS), name
        assert meta.labels is not None or meta.labels_derived, name
        assert task.parameters(empty_fit(task)), name
        assert ("Conneau" in meta.citation) or ("Wehner" in meta.citation), name


def test_declared_flags() -> None:
    sl, bs, sn = SentenceLength.metadata, BigramShift.metadata, SubjectNumber.metadata
    assert (sl.seed_dependent, sl.lexical_control) == (False, False)
    assert (bs.seed_dependent, bs.lexical_control) == (True, False)
    assert (sn.seed_dependent, sn.lexical_control) == (False, True)
    assert sl.labels == (
        "1-4", "5-8", "9-12", "13-16", "17-20", "21-25", "26-29", "30-33", "34-55", "56+",
    )  # fmt: skip
    assert sn.labels == ("Sing", "Plur")
    assert bs.labels == ("original", "inverted")
    assert bs.paired_copies and not sl.paired_copies and not sn.paired_copies
    subject = SubjectNumber()
    assert subject.parameters(empty_fit(subject))["subject_upos"] == ["NOUN"]
    assert subject.parameters(empty_fit(subject))["relations"] == ["nsubj", "nsubj:pass"]
    length = SentenceLength()
    assert length.parameters(empty_fit(length))["bins"][-1] == [56, None]
    assert any("once" in note for note in sl.notes)
    assert SubjectNumber.option_names() == ("subject_upos", "agreement_cue")
    assert SentenceLength.option_names() == BigramShift.option_names() == ()
    # subject_number's first pass derives the verb cells that show number (the agreement-cue
    # note); the others need none. Every fit is the fixed label set.
    assert subject.observation() is not None
    assert empty_fit(subject).label_names == sn.labels
    for task in (length, BigramShift()):
        assert task.observation() is None
        assert empty_fit(task).label_names == task.metadata.labels


@pytest.mark.parametrize(
    "cls", [SentenceLength, SentenceLengthSentEval, BigramShift, SubjectNumber]
)
def test_unknown_option_refused(cls: type[Task]) -> None:
    """A profile's ``[tasks.<name>]`` key the task does not know is an error that names the
    table and the key and lists the valid options (``none`` when the task has none)."""
    with pytest.raises(UsageError) as err:
        cls.configure({"no_such_option": 1}, TaskContext())
    message = str(err.value)
    assert f"[tasks.{cls.metadata.name}]" in message and "no_such_option" in message
    valid = ", ".join(cls.option_names()) or "none"
    assert f"valid options: {valid}" in message


# --- sentence_length ------------------------------------------------------------------------


def test_length_bin_edges() -> None:
    edges = {1: "1-4", 4: "1-4", 5: "5-8", 20: "17-20", 21: "21-25", 25: "21-25", 26: "26-29"}
    edges |= {33: "30-33", 34: "34-55", 55: "34-55", 56: "56+", 300: "56+"}
    for n, label in edges.items():
        assert length_bin(n) == label
    assert length_bin(0) is None
    assert [length_bin(lo) for lo, _ in BINS] == list(SentenceLength.metadata.labels)


def test_sentence_length_hand_checked(ud_dir: Path) -> None:
    task = SentenceLength()
    # EWT juancole-0007: 31 syntactic words, MWTs "Allawi's" (1-2) and "man's" (7-8) -> 29
    # surface tokens (26-29); counting words would give 30-33.
    s = sentence(ud_dir / EWT, JUANCOLE_7)
    (c,) = run(task, s)
    assert len(s.words) == 31 and len(c.inputs["tokens"]) == 29
    assert c.label == "26-29" and c.copy == "0" and c.lexical_key == ""
    assert c.inputs["tokens"][:2] == ["Allawi's", "aged"] and "man's" in c.inputs["tokens"]
    assert c.inputs["sentence"] == s.text

    # es-GSD es-dev-001-s248 'Está localizado dentro del área consolidada de la ciudad.':
    # 11 words, 'del' (4-5) counts once -> 10 tokens.
    s = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    (c,) = run(task, s)
    assert len(s.words) == 11
    assert c.inputs["tokens"] == [
        "Está", "localizado", "dentro", "del", "área", "consolidada", "de", "la", "ciudad", ".",
    ]  # fmt: skip
    assert c.label == "9-12"

    # ka-GLC wiki_automotive_00353: 9 words, two MWTs -> 7 tokens -> 5-8 (words: 9-12).
    s = sentence(ud_dir / "UD_Georgian-GLC", "wiki_automotive_00353")
    (c,) = run(task, s)
    assert len(s.words) == 9 and len(c.inputs["tokens"]) == 7 and c.label == "5-8"

    # EWT 'Excerpt:' -> 2 tokens, punctuation counted.
    (c,) = run(task, sentence(ud_dir / EWT, EXCERPT))
    assert c.inputs["tokens"] == ["Excerpt", ":"] and c.label == "1-4"
    assert not task.drops


def test_sentence_length_drops_empty() -> None:
    """No real sentence is empty (CoNLL-U requires a word), so the one drop is synthetic."""
    task = SentenceLength()
    empty = Sentence("x", "", None, SourceFile("T", "t.conllu", None), 1, [])
    assert run(task, empty) == []
    assert task.drops == Counter({"empty sentence": 1})


# --- bigram_shift ---------------------------------------------------------------------------


def test_bigram_shift_spanish_del_moves_whole(ud_dir: Path) -> None:
    """es-dev-001-s248: 8 swappable pairs (every adjacent non-PUNCT pair). Seed 2 draws pair 3
    (del, área): 'del' moves as one token, and no 'de'/'el' appear."""
    s = sentence(ud_dir / "UD_Spanish-GSD", "es-dev-001-s248")
    assert swappable_pairs(s.surface_tokens()) == list(range(8))
    orig, inv = run(shifter("es", 2), s)
    assert (orig.label, orig.copy, inv.label, inv.copy) == (
        "original", "original", "inverted", "inverted",
    )  # fmt: skip
    assert orig.inputs["sentence"] == s.text
    assert inv.inputs["sentence"] == "Está localizado dentro área del consolidada de la ciudad."
    assert len(inv.inputs["tokens"]) == 10
    # Over many seeds, 'del' is always a single token wherever it lands.
    for seed in range(40):
        _, inv = run(shifter("es", seed), s)
        assert inv.inputs["tokens"].count("del") == 1
        assert "el" not in inv.inputs["tokens"]


def test_bigram_shift_georgian_mwt(ud_dir: Path) -> None:
    """ka-GLC wiki_automotive_00353: seed 3 draws pair 1, two MWTs (ტრაქტატში, პირველადაა)."""
    s = sentence(ud_dir / "UD_Georgian-GLC", "wiki_automotive_00353")
    _, inv = run(shifter("ka", 3), s)
    assert inv.inputs["sentence"] == "ამ პირველადაა ტრაქტატში შემოტანილი მექანიკის ცნება."
    assert inv.inputs["tokens"] == [
        "ამ", "პირველადაა", "ტრაქტატში", "შემოტანილი", "მექანიკის", "ცნება", ".",
    ]  # fmt: skip


def test_bigram_shift_clitic_and_capital(ud_dir: Path) -> None:
    """EWT "We've moved on.": pairs 0 and 1. Seed 0 draws pair 0 -> "Moved we've on."."""
    s = sentence(ud_dir / EWT, WE_VE)
    assert swappable_pairs(s.surface_tokens()) == [0, 1]
    _, inv = run(shifter("en", 0), s)
    assert inv.inputs == {"sentence": "Moved we've on.", "tokens": ["Moved", "we've", "on", "."]}
    _, inv = run(shifter("en", 3), s)
    assert inv.inputs["sentence"] == "We've on moved."


def test_bigram_shift_never_swaps_identical_forms(ud_dir: Path) -> None:
    """EWT hiddennook-0005 'AP Photo/Nasser Nasser': 'Photo' and 'Nasser' are separated by the
    glued '/', 'Nasser Nasser' is identical, so only (AP, Photo) can swap, whatever the seed."""
    s = sentence(ud_dir / EWT, NASSER)
    assert swappable_pairs(s.surface_tokens()) == [0]
    for seed in range(5):
        _, inv = run(shifter("en", seed), s)
        assert inv.inputs["sentence"] == "Photo AP/Nasser Nasser"
    # Case-insensitively identical forms are not a pair either ('The the' would render the
    # same string once the capital stays at the sentence start).
    toks = [SurfaceToken("The", (1,), True, "DET"), SurfaceToken("the", (2,), True, "DET")]
    assert swappable_pairs(toks) == []


def test_bigram_shift_drops(ud_dir: Path) -> None:
    task = shifter("en", 0)
    # 'Excerpt:' has one movable token; 'TEHRAN (AFP) -' has two, separated by '('.
    assert run(task, sentence(ud_dir / EWT, EXCERPT)) == []
    assert run(task, sentence(ud_dir / EWT, TEHRAN)) == []
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
    context = context_for(treebank)
    lang = context.lang
    task = BigramShift(context=context)
    again = BigramShift(context=context)
    other = BigramShift(context=context_for(treebank, seed=1))
    length = SentenceLength(context=context)
    subject = SubjectNumber(context=context)
    fits = {t: empty_fit(t) for t in (task, again, other, length, subject)}
    n = multi = moved = sentences = subjects = 0
    for s in read_treebank(ud_dir / treebank):
        sentences += 1
        toks = s.surface_tokens()
        (c,) = run(length, s, fits[length])
        assert c.label == length_bin(len(toks)) and len(c.inputs["tokens"]) == len(toks)
        for c in run(subject, s, fits[subject]):
            subjects += 1
            assert c.label in ("Sing", "Plur")
            assert c.lexical_key and c.lexical_key == c.lexical_key.casefold()
        cands = run(task, s, fits[task])
        assert cands == run(again, s, fits[again])
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
            if run(other, s, fits[other])[1].inputs != inv.inputs:
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
    task = SubjectNumber(context=TaskContext(lang="en"))
    assert run(task, sentence(ud_dir / EWT, JUANCOLE_7)) == []
    assert task.drops == Counter({"coordinated subject (conj dependent)": 1})


def test_subject_number_hand_checked(ud_dir: Path) -> None:
    task = SubjectNumber(context=TaskContext(lang="en"))
    # 'those dogs aren't even friendly.': root 'friendly' (6), nsubj 'dogs' NOUN Number=Plur.
    (c,) = run(task, sentence(ud_dir / EWT, DOGS))
    assert (c.label, c.lexical_key, c.copy) == ("Plur", "dogs", "0")
    assert c.inputs["tokens"] == ["those", "dogs", "aren't", "even", "friendly", "."]
    assert c.inputs["sentence"] == "those dogs aren't even friendly."
    # 'Our extra bedroom is nicer now.': root 'nicer' (5), nsubj 'bedroom' NOUN Number=Sing.
    (c,) = run(task, sentence(ud_dir / EWT, BEDROOM))
    assert (c.label, c.lexical_key) == ("Sing", "bedroom")
    # de-GSD dev-s283 'Essen ist ok.': root 'ok' (3), nsubj 'Essen' NOUN Number=Sing; the
    # lexical key is case-folded.
    (c,) = run(
        SubjectNumber(context=TaskContext(lang="de")),
        sentence(ud_dir / "UD_German-GSD", "dev-s283"),
    )
    assert (c.label, c.lexical_key) == ("Sing", "essen")
    assert not task.drops


def test_subject_number_other_drops_and_profile_upos(ud_dir: Path) -> None:
    task = SubjectNumber(context=TaskContext(lang="en"))
    # "We've moved on.": nsubj 'We' (1) is PRON -> not admitted by default.
    assert run(task, sentence(ud_dir / EWT, WE_VE)) == []
    # 'Excerpt:': the root is the noun itself, no subject.
    assert run(task, sentence(ud_dir / EWT, EXCERPT)) == []
    assert task.drops == Counter(
        {"subject UPOS not allowed": 1, "no nsubj/nsubj:pass dependent of the root": 1}
    )
    # A profile admitting pronouns: 'We' is Number=Plur; key is the case-folded form.
    wide = SubjectNumber.configure({"subject_upos": ("NOUN", "PRON")}, TaskContext(lang="en"))
    (c,) = run(wide, sentence(ud_dir / EWT, WE_VE))
    assert (c.label, c.lexical_key) == ("Plur", "we")
    assert wide.options.subject_upos == ("NOUN", "PRON")
    assert wide.parameters(empty_fit(wide))["subject_upos"] == ["NOUN", "PRON"]
    # As a TOML profile gives it (a list), and refused when it is not a list of tags.
    assert SubjectNumber.configure(
        {"subject_upos": ["NOUN", "PROPN"]}, TaskContext()
    ).options.subject_upos == ("NOUN", "PROPN")
    with pytest.raises(UsageError, match=r"\[tasks.subject_number\] subject_upos"):
        SubjectNumber.configure({"subject_upos": "PRON"}, TaskContext())
    with pytest.raises(UsageError, match=r"\[tasks.subject_number\] subject_upos"):
        SubjectNumber.configure({"subject_upos": [1, 2]}, TaskContext())
