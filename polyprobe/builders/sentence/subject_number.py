"""``subject_number``: is the main clause's subject singular or plural?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.sentence.argument_number import ArgumentNumber
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.task import Level
from polyprobe.loaders.records import Word

SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_SUBJECT_UPOS: tuple[str, ...] = ("NOUN",)


class SubjectNumber(ArgumentNumber):
    """Label = ``Number`` of the root's single nominal subject.

    Common nouns only by default, as SentEval: with pronouns admitted, pronouns would be 54% of
    EWT items and "I" alone 26%, so the task would mostly test pronoun identity. A profile may
    admit PROPN/PRON via the option ``subject_upos`` (``[tasks.subject_number]``). The subject's form is the lexical key,
    so no subject noun appears in two splits (otherwise a probe could memorise nouns).
    """

    name: ClassVar[str] = "subject_number"
    relative_cost: ClassVar[float] = 0.4
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the grammatical number (singular or plural) of the subject of the main clause."
    )
    label_names: ClassVar[tuple[str, ...]] = ("Sing", "Plur")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Subject = the single nsubj/nsubj:pass dependent of the root; sentences with none or "
        "several are dropped, as are coordinated subjects (a conj dependent: 'X and Y' is not "
        "singular) and subjects whose Number is not Sing or Plur.",
        "Lexical control: the subject's case-folded form never occurs in two splits.",
    )

    argument: ClassVar[str] = "subject"
    relations_label: ClassVar[str] = "nsubj/nsubj:pass"
    upos_option: ClassVar[str] = "subject_upos"
    default_upos: ClassVar[tuple[str, ...]] = DEFAULT_SUBJECT_UPOS

    @property
    def subject_upos(self) -> tuple[str, ...]:
        return self.allowed_upos

    def parameters(self) -> dict[str, Any]:
        return {
            "relations": list(SUBJECT_RELATIONS),
            "subject_upos": list(self.subject_upos),
            "labels": "Number feature of the subject: Sing | Plur",
            "drop_if": ["no subject", "several subjects", "conj dependent", "other Number"],
            "lexical_key": "subject form (NFC, case-folded)",
        }

    def is_argument(self, word: Word) -> bool:
        return word.deprel in SUBJECT_RELATIONS
