"""``sentence_length_senteval``: sentence length in SentEval's six bins (5-8 ... 26-28)."""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.sentence.sentence_length import bin_name, length_bin
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.loaders.records import Sentence

# Conneau et al. (2018), SentLen: six bins over 5..28 tokens. Lengths outside are dropped
# (SentEval only kept sentences of 5-28 tokens), never folded into an end bin.
SENTEVAL_BINS: tuple[tuple[int, int | None], ...] = (
    (5, 8),
    (9, 12),
    (13, 16),
    (17, 20),
    (21, 25),
    (26, 28),
)
MIN_LENGTH = SENTEVAL_BINS[0][0]
MAX_LENGTH = 28

DROP_SHORT = f"shorter than {MIN_LENGTH} tokens"
DROP_LONG = f"longer than {MAX_LENGTH} tokens"


class SentenceLengthSentEval(Task):
    """Label = SentEval's bin of the number of surface tokens, punctuation included.

    The unit is the one of ``sentence_length`` (surface tokens: a multiword token such as
    Spanish *del* counts once), so the two tasks differ only in their bins. SentEval's
    sentences are 5-28 tokens long; shorter and longer sentences are dropped and counted, not
    merged into the end bins, so that each bin means what it meant in SentEval.
    """

    name: ClassVar[str] = "sentence_length_senteval"
    relative_cost: ClassVar[float] = 0.6
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the length of the sentence in surface tokens (punctuation included), in "
        "SentEval's 6 bins 5-8, 9-12, 13-16, 17-20, 21-25, 26-28."
    )
    label_names: ClassVar[tuple[str, ...]] = tuple(bin_name(lo, hi) for lo, hi in SENTEVAL_BINS)
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    notes: ClassVar[tuple[str, ...]] = (
        "Length counts surface tokens, punctuation included, as in sentence_length: a "
        "multiword token (Spanish 'del' = 'de' + 'el') counts once.",
        "Bins follow SentEval (Conneau et al. 2018): 5-8, 9-12, 13-16, 17-20, 21-25, 26-28. "
        "Sentences shorter than 5 or longer than 28 tokens are dropped (counted by reason).",
    )

    def parameters(self) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token counts once; punctuation included)",
            "bins": [[lo, hi] for lo, hi in SENTEVAL_BINS],
            "outside_bins": "dropped",
        }

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        n = len(tokens)
        if n < MIN_LENGTH:
            return self.drop(DROP_SHORT)
        label = length_bin(n, SENTEVAL_BINS)
        if label is None:
            return self.drop(DROP_LONG)
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
