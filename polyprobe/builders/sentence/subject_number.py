"""``subject_number``: is the main clause's subject singular or plural?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.sentence.argument_number import (
    DEFAULT_UPOS,
    LABELS,
    ArgumentNumber,
    upos_list,
)
from polyprobe.builders.task import Fit
from polyprobe.loaders.records import Word
from polyprobe.metadata import Level, TaskMetadata

SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_SUBJECT_UPOS: tuple[str, ...] = DEFAULT_UPOS


@dataclass(frozen=True)
class SubjectNumberOptions:
    """``subject_upos``: the UPOS a subject may have (default ``["NOUN"]``, as SentEval). With
    pronouns admitted they would be 54% of EWT items and "I" alone 26%, so the task would
    mostly test pronoun identity; a profile may still admit PROPN/PRON."""

    subject_upos: tuple[str, ...] = DEFAULT_SUBJECT_UPOS

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "subject_upos", upos_list(self.subject_upos, "subject_number", "subject_upos")
        )


class SubjectNumber(ArgumentNumber):
    """Label = ``Number`` of the root's single nominal subject.

    Common nouns only by default, as SentEval: with pronouns admitted, pronouns would be 54% of
    EWT items and "I" alone 26%, so the task would mostly test pronoun identity. A profile may
    admit PROPN/PRON via the option ``subject_upos`` (``[tasks.subject_number]``). The
    subject's form is the lexical key, so no subject noun appears in two splits (otherwise a
    probe could memorise nouns).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="subject_number",
        level=Level.SENTENCE,
        description=(
            "Predict the grammatical number (singular or plural) of the subject of the main clause."
        ),
        labels=LABELS,
        citation=CONNEAU_2018,
        lexical_control=True,
        notes=(
            "Subject = the single nsubj/nsubj:pass dependent of the root; sentences with none "
            "or several are dropped, as are coordinated subjects (a conj dependent: 'X and Y' "
            "is not singular) and subjects whose Number is not Sing or Plur.",
            "Lexical control: the subject's case-folded form never occurs in two splits.",
        ),
    )
    Options: ClassVar[type] = SubjectNumberOptions
    options: SubjectNumberOptions

    argument: ClassVar[str] = "subject"
    relations_label: ClassVar[str] = "nsubj/nsubj:pass"

    @property
    def allowed_upos(self) -> tuple[str, ...]:
        return self.options.subject_upos

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "relations": list(SUBJECT_RELATIONS),
            "subject_upos": list(self.allowed_upos),
            "labels": "Number feature of the subject: Sing | Plur",
            "drop_if": ["no subject", "several subjects", "conj dependent", "other Number"],
            "lexical_key": "subject form (NFC, case-folded)",
        }

    def is_argument(self, word: Word) -> bool:
        return word.deprel in SUBJECT_RELATIONS
