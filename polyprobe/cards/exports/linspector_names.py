"""LINSPECTOR's layout: ``<Task>/<language>/{train,dev,test}.txt``, its task names and labels.

LINSPECTOR (Şahin et al. 2020) keeps one folder per task, named as its configs and readers
expect (``intrinsic/data/Case/german/train.txt``), with English language names in lower case
(``german``, ``finnish``, ``serbo-croatian``, ``modern-greek``). The task names are LINSPECTOR's: ``Case``,
``SameFeat``, ``OddFeat``, ``CharacterBin``, ``TagCount``, ``Pseudo``, ...; labels are written
as LINSPECTOR writes them:

* ``CharacterBin``: the bin's index, 1 for 1-4 characters up to 6 for more than 20 (its files:
  ``pochte 2``, ``bell 1``, ``Kapitalverkehrskontrolle 6``), where polyprobe's labels are the
  ranges (``5-8``);
* ``Pseudo``: ``1`` for a real word, ``0`` for a pseudoword (polyprobe's labels are the same);
* every other task: the label name as polyprobe publishes it (feature values such as
  ``Genitive``; ``SameFeat``/``OddFeat``: the feature's name).

A config is written under its task's LINSPECTOR name only when it is the task's recommended
config (named like the task); other variants (``case.natural-full``, lemma-disjoint ones) go
under ``<Task>-<variant>/<language>/`` so that LINSPECTOR's configs pick the recommended one
by default. A word-level task LINSPECTOR does not have keeps its polyprobe name.
"""

from __future__ import annotations

import re

# polyprobe task → LINSPECTOR task folder
LINSPECTOR_TASKS: dict[str, str] = {
    "case": "Case",
    "gender": "Gender",
    "mood": "Mood",
    "number": "Number",
    "person": "Person",
    "polarity": "Polarity",
    "possession": "Possession",
    "tense": "Tense",
    "voice": "Voice",
    "pos": "POS",
    "tag_count": "TagCount",
    "character_bin": "CharacterBin",
    "pseudo": "Pseudo",
    "same_feature": "SameFeat",
    "odd_feature": "OddFeat",
}
# the label names ``character_bin`` publishes (``builders/word/common.py``; cards read the
# published labels and import no builder, so the names are repeated here and a test holds the
# two together)
CHARACTER_BINS = ("1-4", "5-8", "9-12", "13-16", "17-20", ">20")
CHARACTER_BIN_INDEX = {name: str(i) for i, name in enumerate(CHARACTER_BINS, 1)}


def linspector_task(config: str, task: str | None) -> str:
    """The task folder of ``config``: LINSPECTOR's name for the recommended config of one of
    its tasks, ``<Name>-<variant>`` for another variant of it, else the config's own name."""
    if task in LINSPECTOR_TASKS:
        name = LINSPECTOR_TASKS[task]
        if config == task:
            return name
        if config.startswith(f"{task}."):
            return f"{name}-{config[len(task) + 1 :]}"
    return config


def linspector_label(task: str | None, label: str) -> str:
    """The label as LINSPECTOR writes it (CharacterBin: the bin's index)."""
    if task == "character_bin":
        return CHARACTER_BIN_INDEX.get(label, label)
    return label


def language_folder(codes: list[str]) -> str:
    """LINSPECTOR's language folder: the English name in lower case, spaces as ``-``
    (``de`` → ``german``); several languages (a parallel build) are joined by ``+``."""
    from polyprobe.errors import PolyprobeError
    from polyprobe.languages import resolve_language

    names = []
    for code in codes:
        try:
            name = re.sub(r"\s*\(.*?\)", "", resolve_language(str(code)).name)
            names.append(name.strip().lower().replace(" ", "-"))
        except PolyprobeError:
            names.append(str(code).lower())
    return "+".join(names) or "und"
