"""Word-level task logic (LINSPECTOR's type-level suite) as pure functions over lexicon entries.

Each function returns a :class:`TaskResult`: candidates (word or word pair, label, group,
lexical key, lemma) and a report saying whether the task is eligible and why, what was dropped
and which parameters were used. Nothing here splits, writes files or builds cards: the variant
engine and the pipeline do that.
"""

from __future__ import annotations

from polyprobe.builders.word.common import (
    CHARACTER_BINS,
    NONE_LABEL,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    character_bin,
)
from polyprobe.builders.word.pairs import (
    LEMMA_LABEL,
    LINSPECTOR_SKIPS,
    odd_feature,
    odd_feature_label,
    same_feature,
    same_feature_label,
)
from polyprobe.builders.word.pseudo import pseudo_task
from polyprobe.builders.word.single import (
    FEATURE_TASKS,
    TYPE_TASKS,
    character_bin_task,
    person_label,
    pos_task,
    single_feature,
    tag_count,
)

__all__ = [
    "CHARACTER_BINS",
    "FEATURE_TASKS",
    "LEMMA_LABEL",
    "LINSPECTOR_SKIPS",
    "NONE_LABEL",
    "TYPE_TASKS",
    "SizeParams",
    "TaskReport",
    "TaskResult",
    "WordCandidate",
    "character_bin",
    "character_bin_task",
    "odd_feature",
    "odd_feature_label",
    "person_label",
    "pos_task",
    "pseudo_task",
    "same_feature",
    "same_feature_label",
    "single_feature",
    "tag_count",
]
