"""Word-level task logic (LINSPECTOR's type-level suite) as pure functions over lexicon entries.

Each function returns a :class:`TaskResult`: candidates (word or word pair, label, group,
lexical key, lemma) and a report saying whether the task is eligible and why, what was dropped
and which parameters were used. :mod:`.tasks` makes them :class:`~polyprobe.builders.task.Task`
objects fitted on one :class:`~.corpus.WordCorpus`. The build's side is elsewhere:
:mod:`polyprobe.builders.records.words` reads the inputs into the corpus,
:mod:`polyprobe.builders.records.word_sets` turns a fitted task into the shared assembly's
candidate sets, :mod:`polyprobe.builders.families.unimorph` is the family.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are resolved lazily (PEP 562): importing the package does not pull numpy and the task
# modules in.
_SOURCES = {
    "CHARACTER_BINS": "common",
    "NONE_LABEL": "common",
    "SizeParams": "common",
    "TaskReport": "common",
    "TaskResult": "common",
    "WordCandidate": "common",
    "character_bin": "common",
    "scaled_split_sizes": "common",
    "WordCorpus": "corpus",
    "WORD_TASKS": "tasks",
    "WordFit": "tasks",
    "WordOptions": "tasks",
    "WordTask": "tasks",
    "layer_task": "tasks",
    "LEMMA_LABEL": "pairs",
    "LINSPECTOR_SKIPS": "pairs",
    "odd_feature": "pairs",
    "odd_feature_label": "pairs",
    "same_feature": "pairs",
    "same_feature_label": "pairs",
    "pseudo_task": "pseudo",
    "FEATURE_TASKS": "single",
    "TYPE_TASKS": "single",
    "character_bin_task": "single",
    "person_label": "single",
    "pos_task": "single",
    "single_feature": "single",
    "tag_count": "single",
}

__all__ = sorted(_SOURCES)


def __getattr__(name: str) -> Any:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
