"""The task registry. Its order decides which config is the dataset's ``default``: the first
task in registry order that is built gets ``default: true``."""

from __future__ import annotations

from collections.abc import Iterable

from polyprobe.builders.sentence.bigram_shift import BigramShift
from polyprobe.builders.sentence.contextual import CONTEXTUAL_TASKS
from polyprobe.builders.sentence.coordination_inversion import CoordinationInversion
from polyprobe.builders.sentence.end_of_sentence import EndOfSentence
from polyprobe.builders.sentence.object_number import ObjectNumber
from polyprobe.builders.sentence.odd_man_out import OddManOut
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.sentence.sentence_length_senteval import SentenceLengthSentEval
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.sentence.subject_verb_agreement import SubjectVerbAgreement
from polyprobe.builders.sentence.subject_verb_distance import SubjectVerbDistance
from polyprobe.builders.sentence.tense import Tense
from polyprobe.builders.sentence.top_dependencies import TopDependencies
from polyprobe.builders.sentence.tree_depth import TreeDepth
from polyprobe.builders.sentence.voice import Voice
from polyprobe.builders.sentence.word_content import WordContent
from polyprobe.builders.sentence.word_order import WordOrder, WordOrderPermuted
from polyprobe.builders.task import Task
from polyprobe.errors import UsageError

TASKS: dict[str, type[Task]] = {
    cls.name: cls
    for cls in (
        SentenceLength,
        SentenceLengthSentEval,
        WordContent,
        TreeDepth,
        TopDependencies,
        BigramShift,
        Tense,
        SubjectNumber,
        ObjectNumber,
        OddManOut,
        CoordinationInversion,
        SubjectVerbAgreement,
        SubjectVerbDistance,
        Voice,
        WordOrder,
        WordOrderPermuted,
        EndOfSentence,
    )
}


# What ``build ud`` builds when no --tasks are given: the sentence-level suite. The
# word-in-context family is opt-in (``--tasks contextual``): 18 more tasks, one per FEATS key.
DEFAULT_TASKS: tuple[str, ...] = tuple(TASKS)
TASKS.update({cls.name: cls for cls in CONTEXTUAL_TASKS})
TASK_GROUPS: dict[str, tuple[str, ...]] = {
    "contextual": tuple(cls.name for cls in CONTEXTUAL_TASKS),
    "sentence": DEFAULT_TASKS,
}


def get_task(name: str) -> type[Task]:
    """The task class called ``name``; a ``UsageError`` naming the valid tasks otherwise."""
    try:
        return TASKS[name]
    except KeyError:
        valid = ", ".join([*TASKS, *TASK_GROUPS])
        raise UsageError(f"unknown task {name!r}; valid tasks and groups: {valid}") from None


def resolve_task_names(names: Iterable[str] | None) -> list[str]:
    """Task names in registry order, groups expanded, duplicates removed; the default suite
    when ``names`` is empty."""
    wanted: set[str] = set()
    for name in names or DEFAULT_TASKS:
        if name in TASK_GROUPS:
            wanted.update(TASK_GROUPS[name])
        else:
            get_task(name)
            wanted.add(name)
    return [n for n in TASKS if n in wanted]
