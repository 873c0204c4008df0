"""Shared recipe of ``subject_number`` and ``object_number``: the two tasks must differ only in
which argument of the root they probe, so the selection and drop rules live here once."""

from __future__ import annotations

from typing import ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Task
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, Word


class ArgumentNumber(Task):
    """Label = ``Number`` of the root's single argument of one kind.

    Dropped: no such argument, several, a UPOS outside the allowed set (common nouns by
    default), a ``conj`` dependent (a coordinated argument is not singular), or Number not
    Sing/Plur. The argument's form is the lexical key, so no argument noun is in two splits.
    """

    label_names: ClassVar[tuple[str, ...]] = ("Sing", "Plur")
    lexical_control: ClassVar[bool] = True
    argument: ClassVar[str]  # "subject" | "object": used in drop reasons
    relations_label: ClassVar[str]  # how the relations read in the "none found" drop reason
    upos_option: ClassVar[str]  # the profile option that widens the allowed UPOS
    default_upos: ClassVar[tuple[str, ...]] = ("NOUN",)

    def is_argument(self, word: Word) -> bool:
        raise NotImplementedError

    @property
    def allowed_upos(self) -> tuple[str, ...]:
        return tuple(self.option(self.upos_option, self.default_upos))

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        root = sentence.root
        found = [w for w in sentence.children(root.id) if self.is_argument(w)]
        if not found:
            return self.drop(f"no {self.relations_label} dependent of the root")
        if len(found) > 1:
            return self.drop(f"more than one {self.argument}")
        arg = found[0]
        if arg.upos not in self.allowed_upos:
            return self.drop(f"{self.argument} UPOS not allowed")
        if any(c.deprel == "conj" for c in sentence.children(arg.id)):
            return self.drop(f"coordinated {self.argument} (conj dependent)")
        number = arg.feats.get("Number")
        if number not in ("Sing", "Plur"):
            return self.drop(f"{self.argument} Number not Sing/Plur")
        return [
            Candidate(
                sentence_inputs(sentence),
                number,
                copy="0",
                lexical_key=lexical_key(arg.form),
            )
        ]
