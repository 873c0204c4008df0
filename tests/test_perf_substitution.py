"""The fast paths of the substitution tasks against the simple computations they replace.

``FormInventory.observe`` counts raw values per sentence and keys them once per distinct value
(the sentence's digest shared, through ``Shared``, between the inventories that observe one
sentence); ``odd_man_out`` derives its
first-split table from raw values, compares home analyses as dicts and computes bigram tiers
by set algebra on a bigram index. Each is checked here against a plain per-token version (the
original code) on real treebanks, including multiword tokens (German, Turkish) and Turkic
casing.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest
from test_tasks_perturbation import context_for, read_corpus

from polyprobe.builders.rendering import (
    capital_slots,
    casefold_first,
    lexical_case,
    starts_upper,
)
from polyprobe.builders.sentence.inventory import (
    BOS,
    EOS,
    FormInventory,
    feats_key,
    form_key,
    regular_case,
)
from polyprobe.builders.sentence.odd_man_out import (
    _SPLIT_ORDER,
    OddManOut,
    OddManOutObservation,
    ReplacementClasses,
    _first_splits,
)
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.hashing import choice_index, stable_rng
from polyprobe.loaders.records import Sentence

CORPUS_KEYS = ("en", "de", "tr")


class ReferenceInventory:
    """The per-token inventory (the original ``FormInventory.observe``)."""

    def __init__(
        self, context: TaskContext, cell_upos: Any, *, bigrams: bool = False, only_upos: Any = None
    ) -> None:
        self.context = context
        self.cell_upos = frozenset(cell_upos)
        self.only_upos = None if only_upos is None else frozenset(only_upos)
        self.form_counts: Counter[str] = Counter()
        self.spell: dict[str, dict[str, int]] = {}
        self.slot_spell: dict[str, dict[str, int]] = {}
        self.cells: dict[Any, dict[str, int]] = {}
        self.upos_of: dict[str, dict[str, int]] = {}
        self.bigrams: set[tuple[str, str]] | None = set() if bigrams else None
        self.tokens = 0

    @staticmethod
    def _bump(table: dict[Any, dict[str, int]], key: Any, item: str) -> None:
        inner = table.setdefault(key, {})
        inner[item] = inner.get(item, 0) + 1

    def observe(self, sentence: Sentence) -> None:
        tokens = sentence.surface_tokens()
        slots = capital_slots(tokens)
        slot_lexical = dict(
            zip(
                slots, lexical_case([tokens[i] for i in slots], self.context, sentence), strict=True
            )
        )
        lang = self.context.lang
        words = sentence.words
        only = self.only_upos
        self.tokens += len(tokens)
        keys: list[str] = []
        for i, tok in enumerate(tokens):
            if only is not None and tok.upos not in only:
                if len(tok.word_ids) > 1:
                    for wid in tok.word_ids:
                        word = words[wid - 1]
                        if word.upos in only:
                            self._bump(self.upos_of, form_key(word.form, lang), word.upos)
                continue
            key = form_key(tok.form, lang)
            keys.append(key)
            self.form_counts[key] += 1
            if slot_lexical.get(i) is False:
                spelled = casefold_first(tok.form, lang) if starts_upper(tok.form) else tok.form
                self._bump(self.slot_spell, key, spelled)
            else:
                self._bump(self.spell, key, tok.form)
            if len(tok.word_ids) == 1:
                word = words[tok.word_ids[0] - 1]
                self._bump(self.upos_of, key, word.upos)
                if word.upos in self.cell_upos:
                    cell = (form_key(word.lemma, lang), word.upos, feats_key(word.feats))
                    self._bump(self.cells, cell, key)
            else:
                for wid in tok.word_ids:
                    word = words[wid - 1]
                    self._bump(self.upos_of, form_key(word.form, lang), word.upos)
        if self.bigrams is not None and keys and only is None:
            prev = BOS
            for key in keys:
                self.bigrams.add((prev, key))
                prev = key
            self.bigrams.add((prev, EOS))


def _assert_same(fast: FormInventory, ref: ReferenceInventory) -> None:
    assert fast.form_counts == ref.form_counts
    assert fast.cells == ref.cells
    assert fast.upos_of == ref.upos_of
    assert fast.bigrams == ref.bigrams
    assert fast._spell == ref.spell
    assert fast._slot_spell == ref.slot_spell
    assert fast.tokens == ref.tokens


@pytest.mark.parametrize("key", CORPUS_KEYS)
def test_inventory_matches_per_token_counting(ud_dir: Any, key: str) -> None:
    """Both inventory configurations of the tasks, observed interleaved with one ``Shared``
    per sentence (so the sentence digest is shared) and read in the middle of the corpus (so
    raw counts are folded in twice), equal the per-token tables."""
    context = context_for(key)
    configs: list[tuple[tuple[str, ...], dict[str, Any]]] = [
        (("NOUN", "VERB"), {"bigrams": True}),
        (("VERB", "AUX"), {"only_upos": ("VERB", "AUX", "NOUN")}),
        (("NOUN",), {"only_upos": ("NOUN", "MWT")}),  # multiword tokens counted in only-mode
    ]
    fast = [FormInventory(context, cells, **kw) for cells, kw in configs]
    ref = [ReferenceInventory(context, cells, **kw) for cells, kw in configs]
    for n, s in enumerate(read_corpus(key)):
        shared = Shared(s)
        for f, r in zip(fast, ref, strict=True):
            f.observe(s, shared)
            r.observe(s)
        if n == 500:
            for f, r in zip(fast, ref, strict=True):
                _assert_same(f, r)
    for f, r in zip(fast, ref, strict=True):
        _assert_same(f, r)
        for form in r.form_counts:  # spelling memo against the tables just compared
            assert f.spelling(form) == _reference_spelling(r, form)


def _reference_spelling(ref: ReferenceInventory, key: str) -> str | None:
    for table in (ref.spell, ref.slot_spell):
        counts = table.get(key)
        if counts:
            return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return None


def _reference_first_split(task: OddManOut, sentences: list[Sentence]) -> dict[Any, int]:
    first: dict[Any, int] = {}
    lang = task.context.lang
    for sentence in sentences:
        split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
        for tok in sentence.surface_tokens():
            if len(tok.word_ids) != 1 or tok.upos not in task.options.upos:
                continue
            word = sentence.word(tok.word_ids[0])
            k = (form_key(word.form, lang), word.upos, feats_key(word.feats))
            if split < first.get(k, 4):
                first[k] = split
    return first


def _reference_options(
    task: OddManOut, classes: ReplacementClasses, sentence: Sentence
) -> tuple[int, dict[int, list[str]]]:
    """Best tier and its (position -> replacements) by the original member loop over the
    replacement classes and the whole inventory (not the compact fit), or ``(-1, {})`` where
    the task drops the sentence before tiers."""
    inv = classes.inventory
    lang = task.context.lang
    tokens = sentence.surface_tokens()
    keys = [form_key(t.form, lang) for t in tokens]
    upos = set(task.options.upos)
    singles = [i for i, t in enumerate(tokens) if len(t.word_ids) == 1 and t.upos in upos]
    classed = []
    for i in singles:
        word = sentence.word(tokens[i].word_ids[0])
        key = keys[i]
        if key in classes.class_of and classes.home[key] == (word.upos, feats_key(word.feats)):
            classed.append(i)
    slots = capital_slots(tokens)
    regular = [i for i in classed if regular_case(inv, tokens, i, lang, slots)]
    if classes.split_aware:
        split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
        regular = [i for i in regular if classes.class_split[classes.class_of[keys[i]]] == split]
    best = -1
    options: dict[int, list[str]] = {}
    bigrams = inv.bigrams or set()
    for i in regular:
        lemma = form_key(sentence.word(tokens[i].word_ids[0]).lemma, lang)
        left = keys[i - 1] if i > 0 else BOS
        right = keys[i + 1] if i + 1 < len(tokens) else EOS
        own = keys[i]
        tiered: dict[int, list[str]] = {}
        for r in classes.members[classes.class_of[own]]:
            if r == own or classes.lemma[r] == lemma:
                continue
            tier = ((left, r) in bigrams) + ((r, right) in bigrams)
            tiered.setdefault(tier, []).append(r)
        if not tiered:
            continue
        top = max(tiered)
        if top > best:
            best, options = top, {}
        if top == best:
            options[i] = tiered[top]
    return best, options


@pytest.mark.parametrize("key", CORPUS_KEYS)
@pytest.mark.parametrize("split", ["random", "ud"])
def test_odd_man_out_fast_paths(ud_dir: Any, key: str, split: str) -> None:
    """First splits, home-analysis matching and bigram tiers equal the per-token originals:
    every sentence's chosen tier and replacement pool, found with the compact fit, is the one
    the member loop finds with the replacement classes and the whole inventory."""
    task = OddManOut(None, dataclasses.replace(context_for(key), split=split))
    sentences = list(read_corpus(key))
    observation = task.observation()
    assert isinstance(observation, OddManOutObservation)
    for s in sentences:
        observation.observe(s, Shared(s))
    fit = task.fit(observation)
    classes = task.classes(observation)
    assert fit.split_aware is classes.split_aware is (split == "ud")
    first_split = _first_splits(observation.seen_in_split, task.context.lang)
    assert first_split == _reference_first_split(task, sentences)
    assert classes.first_split == (first_split if split == "ud" else {})
    assert set(fit.classed_home) == set(fit.spellings) == set(classes.class_of)
    lemma_of = {k: lemma for lemma, forms in fit.of_lemma.items() for k in forms}
    assert lemma_of == {k: classes.lemma[k] for k in classes.class_of}
    for k, (upos, feats) in fit.classed_home.items():
        assert (upos, feats_key(feats)) == classes.home[k]
        assert fit.spelling(k) == classes.inventory.spelling(k)
    attested: Counter[int] = Counter()
    for s in sentences:
        best, options = _reference_options(task, classes, s)
        cands = task.candidates(s, fit, Shared(s))
        if not options:
            assert cands == []
            continue
        attested[best] += 1
        rng = stable_rng(task.seed, task.name, s.source.treebank, s.sent_id)
        positions = sorted(options)
        i = positions[choice_index(rng, len(positions))]
        pool = sorted(options[i])
        replacement = pool[choice_index(rng, len(pool))]
        original, changed = (c.inputs["tokens"] for c in cands)
        assert [j for j in range(len(original)) if original[j] != changed[j]] == [i]
        assert form_key(changed[i], task.context.lang) == replacement
    # Every tier the member loop found is what the task recorded.
    assert {t: attested[i] for i, t in enumerate(("neither", "one", "both"))} == {
        t: task.attestation[t] for t in ("neither", "one", "both")
    }
