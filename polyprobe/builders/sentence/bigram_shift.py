"""``bigram_shift``: was one adjacent pair of words swapped?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.rendering import (
    capital_slots,
    capitalise_first,
    casefold_first,
    keep_case_forms,
    lexical_case,
    render,
    sentence_inputs,
    starts_upper,
)
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.hashing import choice_index, lexical_key, stable_rng
from polyprobe.loaders.records import Sentence, SurfaceToken

CONNEAU_2018 = (
    "Conneau, Alexis, Germán Kruszewski, Guillaume Lample, Loïc Barrault and Marco Baroni "
    "(2018). What you can cram into a single $&!#* vector: Probing sentence embeddings for "
    "linguistic properties. In Proceedings of the 56th Annual Meeting of the Association for "
    "Computational Linguistics (ACL 2018), Volume 1: Long Papers, pages 2126-2136, "
    "Melbourne, Australia."
)


def swappable_pairs(tokens: list[SurfaceToken]) -> list[int]:
    """Left positions ``i`` of adjacent non-PUNCT pairs whose forms differ case-insensitively.

    Case-insensitively (NFC + casefold, as lexical keys): swapping ``The the`` would, after the
    capital moves with the sentence start, reproduce the original string exactly, and an
    "inverted" item identical to its original is a wrong label.
    """
    return _pairs(_movable_keys(tokens))


def _movable_keys(tokens: list[SurfaceToken]) -> list[str | None]:
    """Per token its lexical key, ``None`` for PUNCT (computed once per token, not per pair)."""
    return [None if t.upos == "PUNCT" else lexical_key(t.form) for t in tokens]


def _pairs(keys: list[str | None]) -> list[int]:
    """:func:`swappable_pairs` from the keys of :func:`_movable_keys`."""
    return [
        i
        for i, (a, b) in enumerate(zip(keys, keys[1:], strict=False))
        if a is not None and b is not None and a != b
    ]


def swap_pair(
    tokens: list[SurfaceToken], i: int, params: TaskParams, sentence: Sentence
) -> list[SurfaceToken]:
    """:func:`~polyprobe.builders.rendering.swap_adjacent` for two non-PUNCT tokens, touching
    only the two positions that change.

    ``permute`` validates the order, finds every capital slot and rebuilds every token; for
    a swap of ``i`` and ``i + 1`` only those two positions can differ (an unmoved token keeps
    its form, word ids, spacing and UPOS), and whether they are capital slots depends only on
    the tokens up to ``i + 1``. The moved tokens get exactly ``permute``'s treatment
    (tests/test_perf_tasks.py compares the two on every sentence of real treebanks)."""
    j = i + 1
    slots = capital_slots(tokens[: j + 1])
    out = list(tokens)
    if i in slots or j in slots:
        lexical = lexical_case((tokens[i], tokens[j]), params, sentence)
        lang = params.lang
        for dst, src, src_lexical in ((i, j, lexical[1]), (j, i, lexical[0])):
            tok = tokens[src]
            form = tok.form
            if not src_lexical:
                if src in slots and starts_upper(form):
                    form = casefold_first(form, lang)
                if dst in slots and starts_upper(tokens[dst].form):
                    form = capitalise_first(form, lang)
            out[dst] = SurfaceToken(form, tok.word_ids, tokens[dst].space_after, tok.upos)
    else:
        a, b = tokens[i], tokens[j]
        out[i] = SurfaceToken(b.form, b.word_ids, a.space_after, b.upos)
        out[j] = SurfaceToken(a.form, a.word_ids, b.space_after, a.upos)
    return out


class BigramShift(Task):
    """Original sentence vs. a copy with one random adjacent pair of non-PUNCT tokens swapped.

    Both copies are published (same group). The swap is a pure function of (seed, treebank,
    sent_id) so the pipeline can recompute it; spacing and capitals follow the rules of
    :func:`polyprobe.builders.rendering.permute` so only word order separates the classes.
    """

    name: ClassVar[str] = "bigram_shift"
    relative_cost: ClassVar[float] = 4.3
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Decide whether two adjacent words of the sentence have been swapped (inverted) or "
        "not (original)."
    )
    label_names: ClassVar[tuple[str, ...]] = ("original", "inverted")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = True
    paired_copies: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = False
    notes: ClassVar[tuple[str, ...]] = (
        "Each source sentence gives both an 'original' and an 'inverted' row (same group); "
        "SentEval showed only one of them per sentence.",
        "Units are surface tokens: a multiword token (Spanish 'del') moves whole; punctuation "
        "never moves; two tokens with the same case-folded form are never swapped.",
        "Spacing is positional (the whitespace skeleton is unchanged) and a sentence-initial "
        "capital stays at the sentence start unless the word's capital is lexical (PROPN).",
    )

    def parameters(self) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token moves whole)",
            "movable": "non-PUNCT surface tokens",
            "swap": "one adjacent pair of movable tokens, uniform over pairs with different "
            "case-folded forms, drawn from stable_rng(seed, task, treebank, sent_id)",
            "spacing": "positional",
            "capitalisation": "positional capital moves to the new first word; PROPN"
            + (" and NOUN" if self.params.capitalises_nouns else "")
            + " keep their case",
            "keep_case_forms": sorted(keep_case_forms(self.params)),
        }

    def swap_position(self, sentence: Sentence, pairs: list[int]) -> int:
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        return pairs[choice_index(rng, len(pairs))]

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        keys = _movable_keys(tokens)
        if len(keys) - keys.count(None) < 2:
            return self.drop("fewer than 2 movable tokens")
        pairs = _pairs(keys)
        if not pairs:
            return self.drop("no swappable pair")
        i = self.swap_position(sentence, pairs)
        shifted = swap_pair(tokens, i, self.params, sentence)
        original = sentence_inputs(sentence)
        original_text = original["sentence"]
        shifted_text = render(shifted)
        if shifted_text == original_text:  # e.g. glued "ab"+"abab": same string either way
            return self.drop("swap does not change the text")
        return [
            Candidate(
                original,
                "original",
                copy="original",
            ),
            Candidate(
                {"sentence": shifted_text, "tokens": [t.form for t in shifted]},
                "inverted",
                copy="inverted",
            ),
        ]
