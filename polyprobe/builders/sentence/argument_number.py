"""Shared recipe of ``subject_number`` and ``object_number``: the two tasks must differ only in
which argument of the root they probe, so the selection and drop rules live here once."""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.predicates import PredicateTypes
from polyprobe.builders.task import Candidate, Fit, Shared, Task, TaskContext
from polyprobe.errors import UsageError
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, Word

LABELS: tuple[str, ...] = ("Sing", "Plur")
DEFAULT_UPOS: tuple[str, ...] = ("NOUN",)


def upos_list(value: Any, task: str, key: str) -> tuple[str, ...]:
    """A profile's UPOS list (``subject_upos = ["NOUN", "PRON"]``) as a tuple of strings.

    The two tasks name the option differently, so each options class calls this with its own
    ``key``. A bare string is refused rather than read as a list of its letters."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise UsageError(f"[tasks.{task}] {key} must be a list of UPOS tags, not {value!r}")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise UsageError(f"[tasks.{task}] {key} must be a list of UPOS tags: {bad!r}")
    return tuple(value)


class ArgumentNumber(Task[Sentence]):
    """Label = ``Number`` of the root's single argument of one kind.

    Dropped: no such argument, several, a UPOS outside the allowed set (common nouns by
    default), a ``conj`` dependent (a coordinated argument is not singular), or Number not
    Sing/Plur. The argument's form is the lexical key, so no argument noun is in two splits.

    Subclasses set :attr:`metadata`, their own ``Options`` (the UPOS option's name differs:
    ``subject_upos`` / ``object_upos``) and implement :meth:`is_argument` and
    :attr:`allowed_upos`.
    """

    argument: ClassVar[str]  # "subject" | "object": used in drop reasons
    relations_label: ClassVar[str]  # how the relations read in the "none found" drop reason

    def __init__(self, options: Any = None, context: TaskContext | None = None):
        super().__init__(options, context)
        self.predicate_types = PredicateTypes()  # run statistics for the confound audit

    def is_argument(self, word: Word) -> bool:
        raise NotImplementedError

    @property
    def allowed_upos(self) -> tuple[str, ...]:
        """The UPOS an argument may have (the subclass's option)."""
        raise NotImplementedError

    def select(self, sentence: Sentence) -> tuple[Word, str] | str:
        """The argument and its number, or why the sentence has no item (a drop reason).
        Shared by the candidate pass and a first pass that needs the same items."""
        root = sentence.root
        found = [w for w in sentence.children(root.id) if self.is_argument(w)]
        if not found:
            return f"no {self.relations_label} dependent of the root"
        if len(found) > 1:
            return f"more than one {self.argument}"
        arg = found[0]
        if arg.upos not in self.allowed_upos:
            return f"{self.argument} UPOS not allowed"
        if any(c.deprel == "conj" for c in sentence.children(arg.id)):
            return f"coordinated {self.argument} (conj dependent)"
        number = arg.feats.get("Number")
        if number not in LABELS:
            return f"{self.argument} Number not Sing/Plur"
        return arg, number

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        selected = self.select(sentence)
        if isinstance(selected, str):
            return self.drop(selected)
        arg, number = selected
        self.predicate_types.count(sentence, number)
        return [
            Candidate(
                sentence_inputs(sentence),
                number,
                copy="0",
                lexical_key=lexical_key(arg.form),
            )
        ]
