"""``object_number``: is the main clause's direct object singular or plural?"""

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
from polyprobe.builders.sentence.predicates import base_relation
from polyprobe.builders.task import Fit
from polyprobe.loaders.records import Word
from polyprobe.metadata import Level, TaskMetadata

OBJECT_RELATION = "obj"
DEFAULT_OBJECT_UPOS: tuple[str, ...] = DEFAULT_UPOS


@dataclass(frozen=True)
class ObjectNumberOptions:
    """``object_upos``: the UPOS an object may have (default ``["NOUN"]``, as
    ``subject_number``'s ``subject_upos``, so that the two tasks differ only in the argument
    probed); a profile may admit PROPN/PRON."""

    object_upos: tuple[str, ...] = DEFAULT_OBJECT_UPOS

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "object_upos", upos_list(self.object_upos, "object_number", "object_upos")
        )


class ObjectNumber(ArgumentNumber):
    """Label = ``Number`` of the root's single direct object (SentEval's ObjNum on UD).

    The rules mirror ``subject_number`` so that the two tasks differ only in the argument
    probed: common nouns by default (option ``object_upos`` may admit PROPN/PRON), a
    coordinated object ("apples and pears", a ``conj`` dependent) is not singular and is
    dropped, and the object's form is the lexical key: SentEval found that without it a probe
    memorises object nouns rather than reading number, so no object noun is in two splits.
    Objects are the root's ``obj`` dependents, any subtype included (a subtype such as
    ``obj:lvc`` still names the direct object); exactly one is required.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="object_number",
        level=Level.SENTENCE,
        description=(
            "Predict the grammatical number (singular or plural) of the direct object of the "
            "main clause."
        ),
        labels=LABELS,
        citation=CONNEAU_2018,
        lexical_control=True,
        notes=(
            "Object = the single obj dependent (any subtype) of the root; sentences with none "
            "or several are dropped, as are coordinated objects (a conj dependent: 'X and Y' is "
            "not singular) and objects whose Number is not Sing or Plur.",
            "Common nouns only by default (option object_upos), as subject_number.",
            "Lexical control: the object's case-folded form never occurs in two splits.",
        ),
    )
    Options: ClassVar[type] = ObjectNumberOptions
    options: ObjectNumberOptions

    argument: ClassVar[str] = "object"
    relations_label: ClassVar[str] = "obj"

    @property
    def allowed_upos(self) -> tuple[str, ...]:
        return self.options.object_upos

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "relation": OBJECT_RELATION,
            "object_upos": list(self.allowed_upos),
            "labels": "Number feature of the object: Sing | Plur",
            "drop_if": ["no object", "several objects", "conj dependent", "other Number"],
            "lexical_key": "object form (NFC, case-folded)",
            "predicate_types": self.predicate_types.table(),
        }

    def is_argument(self, word: Word) -> bool:
        return base_relation(word.deprel) == OBJECT_RELATION
