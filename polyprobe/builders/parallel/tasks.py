"""The tasks of ``build parallel``, by input: from treebanks the UD tasks on sentences (those
on documents need a document stream that one language's aligned sentences do not form), from
parallel text the text tasks (they read surface tokens only). Each runs once per language,
published as ``<task>-<lang>``."""

from __future__ import annotations

from polyprobe.builders.family import TaskSet
from polyprobe.builders.sentence.bigram_shift import BigramShift
from polyprobe.builders.sentence.contextual import CONTEXTUAL_TASKS
from polyprobe.builders.sentence.object_number import ObjectNumber
from polyprobe.builders.sentence.raw_agreement import RawSubjectVerbAgreement
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.sentence.tense import Tense
from polyprobe.builders.sentence.tree_depth import TreeDepth
from polyprobe.builders.sentence.voice import Voice
from polyprobe.builders.suites import DOWNSTREAM_TASKS, OPTIONAL_TASKS, SENTENCE_TASKS, TEXT_TASKS

__all__ = ["TEXT_TASK_SET", "TREEBANK_TASK_SET"]

# By default those feasible on PUD's 1,000 sentences at the family's class floors
# (word_content, top_dependencies and coordination_inversion never are: too few items per
# class in a 10% split).
TREEBANK_TASK_SET = TaskSet.of(
    *SENTENCE_TASKS,
    *CONTEXTUAL_TASKS,
    *DOWNSTREAM_TASKS,
    *OPTIONAL_TASKS,
    default=(SentenceLength, TreeDepth, BigramShift, Tense, SubjectNumber, ObjectNumber, Voice),
    groups={
        "contextual": CONTEXTUAL_TASKS,
        "sentence": SENTENCE_TASKS,
        "downstream": DOWNSTREAM_TASKS,
    },
)
# By default those feasible on a corpus of PUD's size at the family's class floors.
TEXT_TASK_SET = TaskSet.of(
    *TEXT_TASKS,
    RawSubjectVerbAgreement,
    default=(SentenceLength, BigramShift),
    groups={"sentence": TEXT_TASKS},
)
