"""The task registry, per source family. Its order decides which config is a dataset's
``default``: the first task in registry order that is built gets ``default: true``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from polyprobe.builders.discourse.binary_sentence_ordering import BinarySentenceOrdering
from polyprobe.builders.discourse.discourse_coherence import DiscourseCoherence
from polyprobe.builders.discourse.discourse_relations import DiscourseRelations
from polyprobe.builders.discourse.sentence_position import SentencePosition
from polyprobe.builders.discourse.sentence_section import SentenceSection
from polyprobe.builders.downstream.deprel import DeprelLabelling
from polyprobe.builders.downstream.pos import PosTagging
from polyprobe.builders.downstream.trec import TREC_TASKS
from polyprobe.builders.sentence.bigram_shift import BigramShift
from polyprobe.builders.sentence.contextual import CONTEXTUAL_TASKS
from polyprobe.builders.sentence.coordination_inversion import CoordinationInversion
from polyprobe.builders.sentence.end_of_sentence import EndOfSentence
from polyprobe.builders.sentence.object_number import ObjectNumber
from polyprobe.builders.sentence.odd_man_out import OddManOut
from polyprobe.builders.sentence.raw_agreement import RawSubjectVerbAgreement
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.sentence.sentence_length_senteval import SentenceLengthSentEval
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.sentence.subject_verb_agreement import SubjectVerbAgreement
from polyprobe.builders.sentence.subject_verb_distance import SubjectVerbDistance
from polyprobe.builders.sentence.tense import Tense, TensePeriphrastic
from polyprobe.builders.sentence.top_dependencies import TopDependencies
from polyprobe.builders.sentence.tree_depth import TreeDepth
from polyprobe.builders.sentence.voice import Voice
from polyprobe.builders.sentence.word_content import WordContent
from polyprobe.builders.sentence.word_order import WordOrder, WordOrderPermuted
from polyprobe.builders.task import Task
from polyprobe.builders.word.tasks import WORD_TASKS, layer_task
from polyprobe.errors import UsageError

SENTENCE_TASKS: tuple[type[Task[Any]], ...] = (
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

# Tasks over documents (DiscoEval's suite); ``build ud`` runs them on '# newdoc' documents.
DISCOURSE_TASKS: tuple[type[Task[Any]], ...] = (
    SentencePosition,
    BinarySentenceOrdering,
    DiscourseCoherence,
    SentenceSection,
)


# UD downstream tasks (LINSPECTOR's correlation targets): built only when named (``--tasks
# pos,deprel`` or the group ``downstream``), never by default.
UD_DOWNSTREAM_TASKS: tuple[type[Task[Any]], ...] = (PosTagging, DeprelLabelling)
# Variants of a suite task under another recipe option, built only when named (``--tasks
# tense_periphrastic``): the suite's own task stays the recommended one.
UD_OPTIONAL_TASKS: tuple[type[Task[Any]], ...] = (TensePeriphrastic,)


def _by_name(classes: Iterable[type[Task[Any]]]) -> dict[str, type[Task[Any]]]:
    return {cls.metadata.name: cls for cls in classes}


# The text-only sentence tasks: they read surface tokens, spacing, punctuation and (for
# word_order) nouns only, so they run on raw text (``build wiki``, ``build text``).
TEXT_TASKS: tuple[type[Task[Any]], ...] = (
    SentenceLength,
    SentenceLengthSentEval,
    WordContent,
    BigramShift,
    WordOrder,
    WordOrderPermuted,
    EndOfSentence,
)

# family -> every task it offers, in registry order
FAMILIES: dict[str, dict[str, type[Task[Any]]]] = {
    "ud": _by_name(
        (
            *SENTENCE_TASKS,
            *CONTEXTUAL_TASKS,
            *DISCOURSE_TASKS,
            *UD_DOWNSTREAM_TASKS,
            *UD_OPTIONAL_TASKS,
        )
    ),
    "trec": _by_name(TREC_TASKS),
    "unimorph": _by_name(WORD_TASKS),
    "rst": _by_name((DiscourseRelations,)),
    # raw text: subject_verb_agreement by Wehner's lexicon recipe (opt-in: needs --unimorph)
    "wiki": _by_name((*TEXT_TASKS, RawSubjectVerbAgreement, *DISCOURSE_TASKS)),
    "text": _by_name((*TEXT_TASKS, RawSubjectVerbAgreement, *DISCOURSE_TASKS)),
}
# family -> what it builds when no tasks are named. ``build ud``: the sentence-level suite;
# the word-in-context family is opt-in (``--tasks contextual``, one task per FEATS key).
DEFAULTS: dict[str, tuple[str, ...]] = {
    "ud": tuple(cls.metadata.name for cls in (*SENTENCE_TASKS, *DISCOURSE_TASKS)),
    "trec": tuple(cls.metadata.name for cls in TREC_TASKS),
    # LINSPECTOR's 15; argument-layer tasks (person_dat, ...) only when named
    "unimorph": tuple(cls.metadata.name for cls in WORD_TASKS),
    "rst": ("discourse_relations",),
    "wiki": tuple(cls.metadata.name for cls in (*TEXT_TASKS, *DISCOURSE_TASKS)),
    "text": tuple(cls.metadata.name for cls in (*TEXT_TASKS, *DISCOURSE_TASKS)),
}
# family -> group name -> task names
GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "ud": {
        "contextual": tuple(cls.metadata.name for cls in CONTEXTUAL_TASKS),
        "sentence": tuple(cls.metadata.name for cls in SENTENCE_TASKS),
        "discourse": tuple(cls.metadata.name for cls in DISCOURSE_TASKS),
        "downstream": tuple(cls.metadata.name for cls in UD_DOWNSTREAM_TASKS),
    },
    # raw text: the text-only sentence tasks, or the discourse tasks on its documents
    "wiki": {
        "sentence": tuple(cls.metadata.name for cls in TEXT_TASKS),
        "discourse": tuple(cls.metadata.name for cls in DISCOURSE_TASKS),
    },
    "text": {
        "sentence": tuple(cls.metadata.name for cls in TEXT_TASKS),
        "discourse": tuple(cls.metadata.name for cls in DISCOURSE_TASKS),
    },
}


# family -> a maker of tasks whose names follow a pattern rather than a list (UniMorph's
# argument layers: person_dat, person_acc, ...): the class for a name, or None.
MAKERS: dict[str, Callable[[str], type[Task[Any]] | None]] = {"unimorph": layer_task}


def family_tasks(family: str) -> dict[str, type[Task[Any]]]:
    """Every task of ``family`` by name, in registry order."""
    return FAMILIES[family]


def get_task(family: str, name: str) -> type[Task[Any]]:
    """The task class called ``name``; a ``UsageError`` naming the valid tasks otherwise."""
    found = FAMILIES[family].get(name)
    if found is None and family in MAKERS:
        found = MAKERS[family](name)
    if found is None:
        valid = ", ".join([*FAMILIES[family], *GROUPS.get(family, {})])
        raise UsageError(f"unknown task {name!r}; valid tasks and groups: {valid}")
    return found


def resolve_task_names(family: str, names: Iterable[str] | None) -> list[str]:
    """Task names in registry order, groups expanded, duplicates removed; the family's
    default suite when ``names`` is empty."""
    groups = GROUPS.get(family, {})
    wanted: set[str] = set()
    made: list[str] = []  # pattern-made names, after the listed ones, sorted
    for name in names or DEFAULTS[family]:
        if name in groups:
            wanted.update(groups[name])
        else:
            get_task(family, name)
            wanted.add(name)
            if name not in FAMILIES[family]:
                made.append(name)
    return [n for n in FAMILIES[family] if n in wanted] + sorted(set(made))
