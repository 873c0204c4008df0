"""``sentence_length_senteval``: sentence length in SentEval's six bins (5-8 ... 26-28)."""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.sentence_length import bin_name, length_bin
from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

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


class SentenceLengthSentEval(Task[Sentence]):
    """Label = SentEval's bin of the number of surface tokens, punctuation included.

    The unit is the one of ``sentence_length`` (surface tokens: a multiword token such as
    Spanish *del* counts once), so the two tasks differ only in their bins. SentEval's
    sentences are 5-28 tokens long; shorter and longer sentences are dropped and counted, not
    merged into the end bins, so that each bin means what it meant in SentEval.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="sentence_length_senteval",
        level=Level.SENTENCE,
        description=(
            "Predict the length of the sentence in surface tokens (punctuation included), in "
            "SentEval's 6 bins 5-8, 9-12, 13-16, 17-20, 21-25, 26-28."
        ),
        labels=tuple(bin_name(lo, hi) for lo, hi in SENTEVAL_BINS),
        citation=CONNEAU_2018,
        notes=(
            "Length counts surface tokens, punctuation included, as in sentence_length: a "
            "multiword token (Spanish 'del' = 'de' + 'el') counts once.",
            "Bins follow SentEval (Conneau et al. 2018): 5-8, 9-12, 13-16, 17-20, 21-25, "
            "26-28. Sentences shorter than 5 or longer than 28 tokens are dropped (counted by "
            "reason).",
        ),
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "unit": "surface token (multiword token counts once; punctuation included)",
            "bins": [[lo, hi] for lo, hi in SENTEVAL_BINS],
            "outside_bins": "dropped",
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        tokens = sentence.surface_tokens()
        n = len(tokens)
        if n < MIN_LENGTH:
            return self.drop(DROP_SHORT)
        label = length_bin(n, SENTEVAL_BINS)
        if label is None:
            return self.drop(DROP_LONG)
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
