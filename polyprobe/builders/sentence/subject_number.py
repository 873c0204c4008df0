"""``subject_number``: is the main clause's subject singular or plural?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.rendering import render
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence

SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_SUBJECT_UPOS: tuple[str, ...] = ("NOUN",)


class SubjectNumber(Task):
    """Label = ``Number`` of the root's single nominal subject.

    Common nouns only by default, as SentEval: with pronouns admitted, pronouns would be 54% of
    EWT items and "I" alone 26%, so the task would mostly test pronoun identity. A profile may
    admit PROPN/PRON via the option ``subject_upos`` (``[tasks.subject_number]``). The subject's form is the lexical key,
    so no subject noun appears in two splits (otherwise a probe could memorise nouns).
    """

    name: ClassVar[str] = "subject_number"
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

    @property
    def subject_upos(self) -> tuple[str, ...]:
        return tuple(self.option("subject_upos", DEFAULT_SUBJECT_UPOS))

    def parameters(self) -> dict[str, Any]:
        return {
            "relations": list(SUBJECT_RELATIONS),
            "subject_upos": list(self.subject_upos),
            "labels": "Number feature of the subject: Sing | Plur",
            "drop_if": ["no subject", "several subjects", "conj dependent", "other Number"],
            "lexical_key": "subject form (NFC, case-folded)",
        }

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        root = sentence.root
        subjects = [w for w in sentence.children(root.id) if w.deprel in SUBJECT_RELATIONS]
        if not subjects:
            return self.drop("no nsubj/nsubj:pass dependent of the root")
        if len(subjects) > 1:
            return self.drop("more than one subject")
        subj = subjects[0]
        if subj.upos not in self.subject_upos:
            return self.drop("subject UPOS not allowed")
        if any(c.deprel == "conj" for c in sentence.children(subj.id)):
            return self.drop("coordinated subject (conj dependent)")
        number = subj.feats.get("Number")
        if number not in ("Sing", "Plur"):
            return self.drop("subject Number not Sing/Plur")
        tokens = sentence.surface_tokens()
        return [
            Candidate(
                {"sentence": render(tokens), "tokens": [t.form for t in tokens]},
                number,
                copy="0",
                lexical_key=lexical_key(subj.form),
            )
        ]
