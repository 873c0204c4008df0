"""``bigram_shift``: was one adjacent pair of words swapped?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.rendering import (
    keep_case_forms,
    render,
    sentence_inputs,
    swap_adjacent,
)
from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.hashing import cached_lexical_key, choice_index, lexical_key, stable_rng
from polyprobe.loaders.records import Sentence, SurfaceToken
from polyprobe.metadata import Level, TaskMetadata


def swappable_pairs(tokens: list[SurfaceToken]) -> list[int]:
    """Left positions ``i`` of adjacent non-PUNCT pairs whose forms differ case-insensitively.

    Case-insensitively (NFC + casefold, as lexical keys): swapping ``The the`` would, after the
    capital moves with the sentence start, reproduce the original string exactly, and an
    "inverted" item identical to its original is a wrong label.
    """
    return _pairs(_movable_keys(tokens))


def _movable_keys(tokens: list[SurfaceToken]) -> list[str | None]:
    """Per token its lexical key, ``None`` for PUNCT (computed once per token, not per pair)."""
    cached = cached_lexical_key
    return [None if t.upos == "PUNCT" else (cached(t.form) or lexical_key(t.form)) for t in tokens]


def _pairs(keys: list[str | None]) -> list[int]:
    """:func:`swappable_pairs` from the keys of :func:`_movable_keys`."""
    return [
        i
        for i, (a, b) in enumerate(zip(keys, keys[1:], strict=False))
        if a is not None and b is not None and a != b
    ]


class BigramShift(Task[Sentence]):
    """Original sentence vs. a copy with one random adjacent pair of non-PUNCT tokens swapped.

    Both copies are published (same group). The swap is a pure function of (seed, treebank,
    sent_id) so the pipeline can recompute it; spacing and capitals follow the rules of
    :func:`polyprobe.builders.rendering.permute` so only word order separates the classes.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="bigram_shift",
        level=Level.SENTENCE,
        description=(
            "Decide whether two adjacent words of the sentence have been swapped (inverted) or "
            "not (original)."
        ),
        labels=("original", "inverted"),
        citation=CONNEAU_2018,
        seed_dependent=True,
        paired_copies=True,
        notes=(
            "Each source sentence gives both an 'original' and an 'inverted' row (same group); "
            "SentEval showed only one of them per sentence.",
            "Units are surface tokens: a multiword token (Spanish 'del') moves whole; "
            "punctuation never moves; two tokens with the same case-folded form are never "
            "swapped.",
            "Spacing is positional (the whitespace skeleton is unchanged) and a sentence-initial "
            "capital stays at the sentence start unless the word's capital is lexical (PROPN).",
        ),
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token moves whole)",
            "movable": "non-PUNCT surface tokens",
            "swap": "one adjacent pair of movable tokens, uniform over pairs with different "
            "case-folded forms, drawn from stable_rng(seed, task, treebank, sent_id)",
            "spacing": "positional",
            "capitalisation": "positional capital moves to the new first word; PROPN"
            + (" and NOUN" if self.context.capitalises_nouns else "")
            + " keep their case",
            "keep_case_forms": sorted(keep_case_forms(self.context)),
        }

    def swap_position(self, sentence: Sentence, pairs: list[int]) -> int:
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        return pairs[choice_index(rng, len(pairs))]

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        keys = _movable_keys(tokens)
        if len(keys) - keys.count(None) < 2:
            return self.drop("fewer than 2 movable tokens")
        pairs = _pairs(keys)
        if not pairs:
            return self.drop("no swappable pair")
        i = self.swap_position(sentence, pairs)
        shifted = swap_adjacent(tokens, i, self.context, sentence)
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
