"""The sped-up sentence helpers against the straightforward versions they replaced.

Why: ``Sentence`` tree and surface helpers and the rendering primitives run for every
sentence of every task, so they were rewritten for speed (levels instead of a stack for
``depth``, cached child lists, a no-multiword fast path for surface tokens, a direct
``swap_adjacent``, shortcuts in ``_all_caps`` and ``capital_slots``). Their outputs feed
the datasets byte for byte, so each must agree with the reference version kept here (the
code as it was before) on every sentence of several real treebanks and on odd strings."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ud_helpers import read_treebank

from polyprobe.builders import rendering
from polyprobe.builders.task import TaskContext
from polyprobe.loaders.records import Sentence, SurfaceToken, Word

PARAMS = {
    "en": TaskContext(lang="en", keep_case_forms=frozenset({"I"})),
    "de": TaskContext(lang="de", capitalises_nouns=True),
    "tr": TaskContext(lang="tr"),
    "es": TaskContext(lang="es"),
    "ka": TaskContext(lang="ka"),
    "fi": TaskContext(lang="fi"),
}
TREEBANKS = {
    "UD_English-EWT": "en",
    "UD_German-GSD": "de",
    "UD_Turkish-IMST": "tr",
    "UD_Spanish-GSD": "es",
    "UD_Georgian-GLC": "ka",
    "UD_Finnish-TDT": "fi",
}

# --------------------------------------------------------------------------------------
# the reference versions (as they were)


def ref_surface(s: Sentence) -> list[SurfaceToken]:
    out: list[SurfaceToken] = []
    mwts = {m.first: m for m in s.multiword}
    i = 1
    n = len(s.words)
    while i <= n:
        m = mwts.get(i)
        if m is not None:
            out.append(
                SurfaceToken(m.form, tuple(range(m.first, m.last + 1)), m.space_after, "MWT")
            )
            i = m.last + 1
        else:
            w = s.words[i - 1]
            out.append(SurfaceToken(w.form, (w.id,), w.space_after, w.upos))
            i += 1
    return out


def ref_kids(s: Sentence) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in range(len(s.words) + 1)]
    for w in s.words:
        kids[w.head].append(w.id)
    return kids


def ref_depth(s: Sentence) -> int:
    kids = ref_kids(s)
    best = 0
    stack = [(i, 1) for i in kids[0]]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in kids[node])
    return best


def ref_root(s: Sentence) -> Word:
    for w in s.words:
        if w.head == 0:
            return w
    raise ValueError(f"sentence {s.sent_id} has no root")


def ref_render(tokens: Sequence[SurfaceToken]) -> str:
    parts: list[str] = []
    last = len(tokens) - 1
    for i, tok in enumerate(tokens):
        parts.append(tok.form)
        if tok.space_after and i < last:
            parts.append(" ")
    return "".join(parts)


def ref_all_caps(form: str) -> bool:
    letters = [c for c in form if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def ref_capital_slots(tokens: Sequence[SurfaceToken]) -> list[int]:
    slots: list[int] = []
    expect = True
    for i, tok in enumerate(tokens):
        if tok.upos == "PUNCT":
            if tok.form and all(c in rendering._TERMINAL_CHARS for c in tok.form):
                expect = True
            continue
        if expect:
            slots.append(i)
            expect = False
    return slots


def ref_is_lexical(tok: SurfaceToken, params: TaskContext, sentence: Sentence | None) -> bool:
    upos = tok.upos
    if upos == "MWT" and sentence is not None:
        upos = sentence.word(tok.word_ids[0]).upos
    if upos == "PROPN" or (upos == "NOUN" and params.capitalises_nouns):
        return True
    return tok.form in params.keep_case_forms or ref_all_caps(tok.form)


def ref_permute(
    tokens: Sequence[SurfaceToken],
    new_order: Sequence[int],
    params: TaskContext,
    sentence: Sentence | None = None,
) -> list[SurfaceToken]:
    n = len(tokens)
    if sorted(new_order) != list(range(n)):
        raise ValueError(f"new_order is not a permutation of range({n}): {list(new_order)}")
    for i, j in enumerate(new_order):
        if i != j and (tokens[i].upos == "PUNCT" or tokens[j].upos == "PUNCT"):
            raise ValueError(f"PUNCT tokens may not move (position {i} <- {j})")
    slots = set(ref_capital_slots(tokens))
    lang = params.lang
    out: list[SurfaceToken] = []
    for i, j in enumerate(new_order):
        src = tokens[j]
        form = src.form
        if i != j and (j in slots or i in slots) and not ref_is_lexical(src, params, sentence):
            if j in slots and rendering.starts_upper(form):
                form = rendering.casefold_first(form, lang)
            if i in slots and rendering.starts_upper(tokens[i].form):
                form = rendering.capitalise_first(form, lang)
        out.append(SurfaceToken(form, src.word_ids, tokens[i].space_after, src.upos))
    return out


def ref_swap(
    tokens: Sequence[SurfaceToken], i: int, params: TaskContext, sentence: Sentence | None
) -> list[SurfaceToken]:
    order = list(range(len(tokens)))
    order[i], order[i + 1] = order[i + 1], order[i]
    return ref_permute(tokens, order, params, sentence)


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    """A result or the exception it raised, comparable across implementations."""
    try:
        return fn(*args)
    except (ValueError, IndexError) as e:
        return (type(e), str(e))


# --------------------------------------------------------------------------------------
# the comparisons


@pytest.mark.parametrize("treebank", sorted(TREEBANKS))
def test_helpers_equal_reference_on_real_sentences(ud_dir: Path, treebank: str) -> None:
    params = PARAMS[TREEBANKS[treebank]]
    rng = random.Random(7)
    for n, s in enumerate(read_treebank(ud_dir / treebank)):
        if n >= 2500:
            break
        # root before and after the child index exists (it takes a shortcut after)
        assert s.root is ref_root(s)
        toks = s.surface_tokens()
        assert toks == ref_surface(s) and s.surface_tokens() == toks
        assert toks is not s.surface_tokens()  # callers own their list
        assert s.depth() == ref_depth(s)
        kids = ref_kids(s)
        for wid in range(len(s.words) + 1):
            got = s.children(wid)
            assert got == [s.words[i - 1] for i in kids[wid]]
            assert all(
                a is b for a, b in zip(got, [s.words[i - 1] for i in kids[wid]], strict=True)
            )
            got.append(s.words[0])  # mutating what we got changes nothing in the sentence
            assert len(s.children(wid)) == len(kids[wid])
        assert s.root is ref_root(s)
        # children(), depth() and root share one child index: whichever builds it first
        s._kids = None
        assert [w.id for w in s.children(0)] == kids[0] and s.depth() == ref_depth(s)
        s._kids = None
        assert s.depth() == ref_depth(s) and s.root is ref_root(s)
        assert rendering.render(toks) == ref_render(toks)
        assert rendering.render(toks[:1]) == ref_render(toks[:1])
        assert rendering.capital_slots(toks) == ref_capital_slots(toks)
        assert rendering.lexical_case(toks, params, s) == [
            ref_is_lexical(t, params, s) for t in toks
        ]
        assert rendering.lexical_case(toks, params) == [
            ref_is_lexical(t, params, None) for t in toks
        ]
        for i in range(-1, len(toks)):  # every adjacent swap, the invalid ones included
            assert _outcome(rendering.swap_adjacent, toks, i, params, s) == _outcome(
                ref_swap, toks, i, params, s
            ), (s.sent_id, i)
        movable = rendering.movable(toks)
        order = list(range(len(toks)))
        shuffled = movable[:]
        rng.shuffle(shuffled)
        for a, b in zip(movable, shuffled, strict=True):
            order[a] = b
        assert rendering.permute(toks, order, params, s) == ref_permute(toks, order, params, s)


ODD = [
    "",
    "I",
    "NATO",
    "NATOs",
    "ABⅰ",  # a lowercase non-letter (U+2170): isupper() is False, yet all letters are upper
    "Aא",  # an uncased letter
    "ǅA",  # a titlecase letter
    "ÄÖ",
    "ß",
    "SS",
    "A1",
    "A-B",
    "ⒶⒷ",
    "ΑΒΓ",
    "ႠႡ",
    "ᲐᲑ",
    "აბ",
    "İI",
    "123",
    "A.B.",
    "ab",
]


def test_all_caps_equals_reference_on_odd_forms() -> None:
    for form in ODD:
        assert rendering._all_caps(form) == ref_all_caps(form), form


@given(st.text(max_size=8))
def test_all_caps_equals_reference(form: str) -> None:
    assert rendering._all_caps(form) == ref_all_caps(form)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([".", ",", "!?", "…", "", "“", ".”", "Word", "word", "ÉTÉ", "I"]),
            st.sampled_from(["PUNCT", "NOUN", "PROPN", "VERB", "X"]),
            st.booleans(),
        ),
        max_size=8,
    ),
    st.integers(-2, 9),
)
def test_capital_slots_and_swap_equal_reference(spec: list[tuple[str, str, bool]], i: int) -> None:
    toks = [SurfaceToken(f, (k + 1,), sp, u) for k, (f, u, sp) in enumerate(spec)]
    assert rendering.capital_slots(toks) == ref_capital_slots(toks)
    assert rendering.render(toks) == ref_render(toks)
    for params in PARAMS.values():
        assert _outcome(rendering.swap_adjacent, toks, i, params, None) == _outcome(
            ref_swap, toks, i, params, None
        )
