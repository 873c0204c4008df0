"""``sentence_length``: how many surface tokens a sentence has, in Wehner's ten bins."""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.loaders.records import Sentence

# Wehner (2019), SentLen: [1-4], [5-8], ..., [34-55], >=56. ``None`` = open upper end.
BINS: tuple[tuple[int, int | None], ...] = (
    (1, 4),
    (5, 8),
    (9, 12),
    (13, 16),
    (17, 20),
    (21, 25),
    (26, 29),
    (30, 33),
    (34, 55),
    (56, None),
)


def bin_name(lo: int, hi: int | None) -> str:
    return f"{lo}+" if hi is None else f"{lo}-{hi}"


def length_bin(n: int, bins: tuple[tuple[int, int | None], ...] = BINS) -> str | None:
    """The bin label of a length, or ``None`` if no bin holds it."""
    for lo, hi in bins:
        if n >= lo and (hi is None or n <= hi):
            return bin_name(lo, hi)
    return None


class SentenceLength(Task):
    """Label = bin of the number of surface tokens, punctuation included.

    Surface tokens, not syntactic words: that is what a reader (and a tokenizer) sees, and it
    makes the count independent of how a treebank splits contractions (Spanish *del* = *de* +
    *el* counts once). Deterministic: no sampling, no perturbation, no lexical control.
    """

    name: ClassVar[str] = "sentence_length"
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the length of the sentence in surface tokens (punctuation included), "
        "in 10 bins from 1-4 to 56+."
    )
    label_names: ClassVar[tuple[str, ...]] = tuple(bin_name(lo, hi) for lo, hi in BINS)
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = (
        "Wehner, Daniel (2019). Interpretability of Sentence Embeddings in Low-Resource "
        "Languages. Master's thesis, Technische Universität Darmstadt. Published with: Eger, "
        "Steffen, Johannes Daxenberger and Iryna Gurevych (2020). How to Probe Sentence "
        "Embeddings in Low-Resource Languages: On Structural Design Choices for Probing Task "
        "Evaluation. In Proceedings of the 24th Conference on Computational Natural Language "
        "Learning (CoNLL 2020). arXiv:2006.09109."
    )
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    notes: ClassVar[tuple[str, ...]] = (
        "Length counts surface tokens, punctuation included: a multiword token (Spanish 'del' "
        "= 'de' + 'el', English \"don't\") counts once.",
        "Bins follow Wehner (2019): 1-4, 5-8, 9-12, 13-16, 17-20, 21-25, 26-29, 30-33, 34-55, 56+.",
    )

    def parameters(self) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token counts once; punctuation included)",
            "bins": [[lo, hi] for lo, hi in BINS],
        }

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        label = length_bin(len(tokens))
        if label is None:
            return self.drop("empty sentence")
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
