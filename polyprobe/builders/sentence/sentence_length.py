"""``sentence_length``: how many surface tokens a sentence has, in Wehner's ten bins."""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

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


class SentenceLength(Task[Sentence]):
    """Label = bin of the number of surface tokens, punctuation included.

    Surface tokens, not syntactic words: that is what a reader (and a tokenizer) sees, and it
    makes the count independent of how a treebank splits contractions (Spanish *del* = *de* +
    *el* counts once). Deterministic: no sampling, no perturbation, no lexical control.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="sentence_length",
        level=Level.SENTENCE,
        description=(
            "Predict the length of the sentence in surface tokens (punctuation included), "
            "in 10 bins from 1-4 to 56+."
        ),
        labels=tuple(bin_name(lo, hi) for lo, hi in BINS),
        citation=WEHNER_2019,
        notes=(
            "Length counts surface tokens, punctuation included: a multiword token (Spanish "
            "'del' = 'de' + 'el', English \"don't\") counts once.",
            "Bins follow Wehner (2019): 1-4, 5-8, 9-12, 13-16, 17-20, 21-25, 26-29, 30-33, "
            "34-55, 56+.",
        ),
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token counts once; punctuation included)",
            "bins": [[lo, hi] for lo, hi in BINS],
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        label = length_bin(len(tokens))
        if label is None:
            return self.drop("empty sentence")
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
