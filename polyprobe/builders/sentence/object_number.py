"""``object_number``: is the main clause's direct object singular or plural?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.sentence.argument_number import ArgumentNumber
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.sentence.predicates import base_relation
from polyprobe.builders.task import Level
from polyprobe.loaders.records import Word

OBJECT_RELATION = "obj"
DEFAULT_OBJECT_UPOS: tuple[str, ...] = ("NOUN",)


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

    name: ClassVar[str] = "object_number"
    relative_cost: ClassVar[float] = 0.3
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the grammatical number (singular or plural) of the direct object of the main "
        "clause."
    )
    label_names: ClassVar[tuple[str, ...]] = ("Sing", "Plur")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Object = the single obj dependent (any subtype) of the root; sentences with none or "
        "several are dropped, as are coordinated objects (a conj dependent: 'X and Y' is not "
        "singular) and objects whose Number is not Sing or Plur.",
        "Common nouns only by default (option object_upos), as subject_number.",
        "Lexical control: the object's case-folded form never occurs in two splits.",
    )

    argument: ClassVar[str] = "object"
    relations_label: ClassVar[str] = "obj"
    upos_option: ClassVar[str] = "object_upos"
    default_upos: ClassVar[tuple[str, ...]] = DEFAULT_OBJECT_UPOS

    @property
    def object_upos(self) -> tuple[str, ...]:
        return self.allowed_upos

    def parameters(self) -> dict[str, Any]:
        return {
            "relation": OBJECT_RELATION,
            "object_upos": list(self.object_upos),
            "labels": "Number feature of the object: Sing | Plur",
            "drop_if": ["no object", "several objects", "conj dependent", "other Number"],
            "lexical_key": "object form (NFC, case-folded)",
        }

    def is_argument(self, word: Word) -> bool:
        return base_relation(word.deprel) == OBJECT_RELATION
