"""``subject_number``: is the main clause's subject singular or plural?"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.sentence.agreement_cue import (
    CellKey,
    CueCells,
    cell_key,
    cue_note,
    finite_predicate,
    shows_number,
)
from polyprobe.builders.sentence.argument_number import (
    DEFAULT_UPOS,
    LABELS,
    ArgumentNumber,
    upos_list,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, Word
from polyprobe.metadata import Level, TaskMetadata

SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_SUBJECT_UPOS: tuple[str, ...] = DEFAULT_UPOS
AGREEMENT_CUE_CHOICES: tuple[str, ...] = ("keep", "drop")


@dataclass(frozen=True)
class SubjectNumberOptions:
    """``subject_upos``: the UPOS a subject may have (default ``["NOUN"]``, as SentEval). With
    pronouns admitted they would be 54% of EWT items and "I" alone 26%, so the task would
    mostly test pronoun identity; a profile may still admit PROPN/PRON.
    ``agreement_cue``: ``keep`` (default, SentEval's items) or ``drop`` the items whose main
    predicate's form shows number (see :mod:`polyprobe.builders.sentence.agreement_cue`)."""

    subject_upos: tuple[str, ...] = DEFAULT_SUBJECT_UPOS
    agreement_cue: str = "keep"

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "subject_upos", upos_list(self.subject_upos, "subject_number", "subject_upos")
        )
        if self.agreement_cue not in AGREEMENT_CUE_CHOICES:
            raise UsageError(
                f"[tasks.subject_number] agreement_cue must be one of "
                f"{', '.join(AGREEMENT_CUE_CHOICES)}, not {self.agreement_cue!r}"
            )


@dataclass(frozen=True)
class SubjectNumberFit(Fit):
    """The finite predicate cells whose forms show number in this corpus."""

    number_cells: frozenset[CellKey] = field(default_factory=frozenset)


class SubjectNumberObservation(Observation):
    """Every finite verbal form per (lemma, Tense, Mood) cell, and each item's label with its
    predicate's cell (the cue counts need the whole corpus's cells first)."""

    def __init__(self, task: SubjectNumber) -> None:
        self.task = task
        self.cells = CueCells()
        self.items: Counter[tuple[str, CellKey | None]] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        self.cells.observe(sentence)
        selected = self.task.select(sentence)
        if isinstance(selected, str):
            return
        word = finite_predicate(sentence, sentence.root)
        self.items[(selected[1], cell_key(word) if word is not None else None)] += 1

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences): its cells (:meth:`CueCells.merge`)
        and its item counts, new keys after this observation's as one pass inserts them."""
        assert isinstance(later, SubjectNumberObservation)
        self.cells.merge(later.cells)
        self.items.update(later.items)


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
    reported: ClassVar[frozenset[str]] = frozenset({"agreement_cue_items", "number_cells"})
    Options: ClassVar[type] = SubjectNumberOptions
    options: SubjectNumberOptions

    argument: ClassVar[str] = "subject"
    relations_label: ClassVar[str] = "nsubj/nsubj:pass"

    @property
    def allowed_upos(self) -> tuple[str, ...]:
        return self.options.subject_upos

    def observation(self) -> SubjectNumberObservation:
        return SubjectNumberObservation(self)

    def fit(self, observation: Observation | None) -> SubjectNumberFit:
        assert isinstance(observation, SubjectNumberObservation)
        cells = observation.cells.number_cells()
        items: dict[str, Counter[bool]] = {label: Counter() for label in LABELS}
        for (label, key), n in observation.items.items():
            items[label][key is not None and key in cells] += n
        drop = self.options.agreement_cue == "drop"
        report = {
            "agreement_cue": self.options.agreement_cue,
            "agreement_cue_items": {
                label: {"shows_number": c[True], "no_cue": c[False]}
                for label, c in items.items()
            },
            "number_cells": len(cells),
        }
        return SubjectNumberFit(
            LABELS, report, notes=(cue_note(items, LABELS, drop),), number_cells=cells
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        drop_if = ["no subject", "several subjects", "conj dependent", "other Number"]
        if self.options.agreement_cue == "drop":
            drop_if.append("main predicate's form shows number")
        return {
            "relations": list(SUBJECT_RELATIONS),
            "subject_upos": list(self.allowed_upos),
            "labels": "Number feature of the subject: Sing | Plur",
            "drop_if": drop_if,
            "lexical_key": "subject form (NFC, case-folded)",
            "agreement_cue": self.options.agreement_cue,
            "predicate_types": self.predicate_types.table(),
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if self.options.agreement_cue == "drop" and isinstance(fit, SubjectNumberFit):
            if isinstance(self.select(sentence), str):
                return super().candidates(sentence, fit, shared)  # counts the drop reason
            if shows_number(sentence, sentence.root, fit.number_cells):
                return self.drop("main predicate's form shows number (agreement cue)")
        return super().candidates(sentence, fit, shared)

    def is_argument(self, word: Word) -> bool:
        return word.deprel in SUBJECT_RELATIONS
