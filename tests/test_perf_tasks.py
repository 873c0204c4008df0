"""The fast paths of the structural sentence tasks agree with the simple computations they
replace, on every sentence of real treebanks.

Each reference below is the straightforward version that the task used before it was made
cheaper (see the docstrings of the fast versions for why they are faster); the tasks' outputs
must stay byte-for-byte identical, so the fast versions must agree everywhere, including on
multiword tokens (Spanish, Turkish), Turkic casing, noun-capitalising German and Georgian.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from polyprobe.builders.rendering import text_hash
from polyprobe.builders.sentence import predicates
from polyprobe.builders.sentence.bigram_shift import swappable_pairs
from polyprobe.builders.sentence.coordination_inversion import _base, find_clauses
from polyprobe.builders.sentence.end_of_sentence import EndOfSentence, lower_for_language
from polyprobe.builders.sentence.top_dependencies import (
    DROP_FRAGMENT,
    DROP_INTERNAL_PUNCT,
    ROOT,
    root_sequence,
)
from polyprobe.builders.sentence.tree_depth import spearman, spearman_of_subset
from polyprobe.builders.sentence.word_content import WordContent, WordContentObservation
from polyprobe.builders.sentence.word_order import (
    WordOrder,
    WordOrderFit,
    WordOrderObservation,
    WordOrderPermuted,
    target_position,
)
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.hashing import lexical_key, normalise_text, stable_u64
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.sources import discover, read_sources

# Small treebanks covering the scripts and conventions the fast paths must respect.
TREEBANKS: tuple[tuple[str, str, bool], ...] = (
    ("UD_English-PUD", "en", False),
    ("UD_German-PUD", "de", True),
    ("UD_Turkish-PUD", "tr", False),
    ("UD_Spanish-PUD", "es", False),
    ("UD_Georgian-GLC", "ka", False),
    ("UD_Czech-PUD", "cs", False),
)


def _sentences(ud_dir: Path, name: str) -> Iterator[Sentence]:
    return read_sources(discover([ud_dir / name]), on_invalid="skip")


def _context(lang: str, capitalises_nouns: bool) -> TaskContext:
    return TaskContext(
        lang=lang,
        capitalises_nouns=capitalises_nouns,
        keep_case_forms=frozenset({"I"} if lang == "en" else ()),
    )


# --- references: the simple versions --------------------------------------------------------


def _ref_swappable_pairs(tokens: list) -> list[int]:
    return [
        i
        for i in range(len(tokens) - 1)
        if tokens[i].upos != "PUNCT"
        and tokens[i + 1].upos != "PUNCT"
        and lexical_key(tokens[i].form) != lexical_key(tokens[i + 1].form)
    ]


def _ref_root_sequence(sentence: Sentence) -> tuple[str | None, str | None]:
    root = sentence.root
    deps = sentence.children(root.id)
    if not any(d.deprel.split(":", 1)[0] != "punct" for d in deps):
        return None, DROP_FRAGMENT
    tokens = sentence.surface_tokens()
    final_start = len(tokens)
    while final_start > 0 and tokens[final_start - 1].upos == "PUNCT":
        final_start -= 1
    first_final_word = tokens[final_start].word_ids[0] if final_start < len(tokens) else None
    parts: list[str] = []
    root_done = False
    for d in deps:
        rel = d.deprel.split(":", 1)[0]
        if rel == "punct" and (first_final_word is None or d.id < first_final_word):
            return None, DROP_INTERNAL_PUNCT
        if not root_done and d.id > root.id:
            parts.append(ROOT)
            root_done = True
        parts.append(rel)
    if not root_done:
        parts.append(ROOT)
    return " ".join(parts), None


def _ref_target_position(sentence: Sentence, target: str, min_length: int) -> int | str:
    """word_order's qualification test without any memo (every lemma keyed afresh)."""
    hits = [w for w in sentence.words if lexical_key(w.lemma) == target]
    if not hits:
        return "target lemma absent"
    if len(hits) > 1:
        return "target lemma occurs more than once"
    word = hits[0]
    if word.upos != "NOUN":
        return "target lemma not a NOUN here"
    tokens = sentence.surface_tokens()
    pos = next(i for i, t in enumerate(tokens) if word.id in t.word_ids)
    if tokens[pos].upos == "MWT":
        return "target inside a multiword token"
    key = lexical_key(tokens[pos].form)
    if sum(1 for t in tokens if lexical_key(t.form) == key) > 1:
        return "target form occurs more than once"
    if len(tokens) < min_length:
        return "shorter than the minimum length L"
    return pos


def _ref_word_content_counts(sentences: list[Sentence]) -> tuple[Counter, Counter, Counter]:
    freq: Counter[str] = Counter()
    noun: Counter[str] = Counter()
    repeated: Counter[str] = Counter()
    for sentence in sentences:
        here: Counter[str] = Counter()
        for tok in sentence.surface_tokens():
            if tok.upos == "PUNCT":
                continue
            key = lexical_key(tok.form)
            here[key] += 1
            if tok.upos == "NOUN":
                noun[key] += 1
        freq.update(here)
        for key, c in here.items():
            if c > 1:
                repeated[key] += c
    return freq, noun, repeated


# --- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_swappable_pairs_match_reference(ud_dir: Path, name: str, lang: str, nouns: bool) -> None:
    n = 0
    for s in _sentences(ud_dir, name):
        tokens = s.surface_tokens()
        pairs = swappable_pairs(tokens)
        assert pairs == _ref_swappable_pairs(tokens), s.sent_id
        n += len(pairs)
    assert n > 5000


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_root_sequence_matches_reference(ud_dir: Path, name: str, lang: str, nouns: bool) -> None:
    for s in _sentences(ud_dir, name):
        assert root_sequence(s) == _ref_root_sequence(s), s.sent_id


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_relation_shortcuts_match_reference(
    ud_dir: Path, name: str, lang: str, nouns: bool
) -> None:
    """The substring shortcuts of predicates.py and find_clauses give the split-based answers."""
    for s in _sentences(ud_dir, name):
        for w in s.words:
            d = w.deprel
            assert predicates.base_relation(d) == d.split(":", 1)[0]
            assert predicates.is_pass_relation(d) == ("pass" in d.split(":")[1:])
            kids = s.children(w.id)
            assert predicates.predicate_dependents(s, w) == [
                c for c in kids if c.deprel.split(":", 1)[0] in ("aux", "cop")
            ]
            assert predicates.auxiliaries(s, w) == [
                c for c in kids if c.deprel.split(":", 1)[0] == "aux"
            ]
        n_cc = sum(1 for w in s.words if _base(w.deprel) == "cc")
        found = find_clauses(s)
        if n_cc == 0:
            assert found == "no cc"
        elif n_cc > 1:
            assert found == "more than one cc"


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_word_content_counts_match_reference(
    ud_dir: Path, name: str, lang: str, nouns: bool
) -> None:
    sentences = list(_sentences(ud_dir, name))
    task = WordContent(None, _context(lang, nouns))
    obs = task.observation()
    assert isinstance(obs, WordContentObservation)
    for s in sentences:
        obs.observe(s, Shared(s))
    freq, noun, repeated = _ref_word_content_counts(sentences)
    got_freq, got_noun, got_repeated = obs.form_counts()
    assert dict(got_freq) == dict(freq)
    assert dict(got_noun) == dict(noun)
    assert dict(got_repeated) == dict(repeated)
    task.fit(obs)  # the counts are what the fit reads
    for s in sentences[:200]:
        if s.text is not None:
            shared = Shared(s)
            assert text_hash(s) == stable_u64("text", normalise_text(s.text))
            assert shared.get(text_hash) == text_hash(s)
            assert shared.get(text_hash) == text_hash(s)  # the remembered answer


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_end_of_sentence_words_match_reference(
    ud_dir: Path, name: str, lang: str, nouns: bool
) -> None:
    task = EndOfSentence(None, _context(lang, False))
    sentences = list(_sentences(ud_dir, name))
    obs = task.observation()
    for s in sentences:
        obs.observe(s, Shared(s))
    assert task.fit(obs).case_mode == "lower"  # the case mode of a non-capitalising language
    for s in sentences:
        ref = [lower_for_language(t.form, lang) for t in s.surface_tokens() if t.upos != "PUNCT"]
        assert task.words(s, "lower") == ref


@pytest.mark.parametrize(("name", "lang", "nouns"), TREEBANKS)
def test_word_order_shared_position_matches_reference(
    ud_dir: Path, name: str, lang: str, nouns: bool
) -> None:
    """Both word_order tasks read each sentence once through one ``Shared`` per sentence (the
    reading and the target position); each answer equals the unmemoised search."""
    sentences = list(_sentences(ud_dir, name))
    context = _context(lang, nouns)
    tasks = [WordOrder(None, context), WordOrderPermuted(None, context)]
    observations = [t.observation() for t in tasks]
    for s in sentences:
        shared = Shared(s)
        for o in observations:
            o.observe(s, shared)
    assert all(isinstance(o, WordOrderObservation) for o in observations)
    assert observations[0].noun_lemmas == observations[1].noun_lemmas
    assert observations[0].lengths == observations[1].lengths
    fits = [t.fit(o) for t, o in zip(tasks, observations, strict=True)]
    assert all(isinstance(f, WordOrderFit) for f in fits)
    assert fits[0] == fits[1]
    fit = fits[0]
    assert fit.target is not None
    for s in sentences:
        shared = Shared(s)
        for t, f in zip(tasks, fits, strict=True):
            t.candidates(s, f, shared)
        ref = _ref_target_position(s, fit.target, fit.min_length)
        hits = [w for w in s.words if lexical_key(w.lemma) == fit.target]
        # the answer the candidate pass left in the shared context, and a fresh search
        for found in (
            shared.get(target_position, fit.target, fit.min_length),
            target_position(s, fit.target, fit.min_length),
        ):
            if not hits:
                assert found == "target lemma absent"
            elif len(hits) > 1:
                assert found == "target lemma occurs more than once"
            assert found == ref, s.sent_id
    assert tasks[0].drops == tasks[1].drops  # the same sentences qualify for both


def test_spearman_of_subset_is_bit_identical() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(5, 30, size=4000)
    y = np.minimum(x // 4 + rng.integers(0, 5, size=x.size), 12)
    ux, xid = np.unique(x, return_inverse=True)
    uy, yid = np.unique(y, return_inverse=True)
    for share in (0.0, 0.0005, 0.01, 0.1, 0.5, 0.9, 1.0):
        for _ in range(5):
            keep = rng.random(x.size) < share
            fast = spearman_of_subset(xid, yid, ux.size, uy.size, keep)
            assert fast == spearman(x[keep], y[keep])  # exact, not approximate
