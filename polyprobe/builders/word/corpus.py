"""The corpus every word task fits on: the word tasks' record type, one value a build makes
once (:mod:`polyprobe.builders.records.words` reads the inputs into it).

Why one object rather than arguments per task: the word tasks share their inputs (the
lexicon entries, the frequency list, the filtered pseudowords, which lemmas each form belongs
to) and ``same_feature`` and ``odd_feature`` share the seeded partitions of the lexicon their
split-wise pairs are generated in. Reading, filtering and partitioning once keeps every task a
function of (corpus, options, context), and the partitions identical between the two tasks.
This module holds only that value and the names the tasks share; how files become a corpus
is not the tasks' business.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.builders.word.common import component_names, has_space, hashes, key_of
from polyprobe.builders.word.syncretism import TextEvidence, case_distinguishes
from polyprobe.loaders.frequency import FrequencyList
from polyprobe.loaders.records import LexEntry
from polyprobe.metadata import SourceInfo

# Split index (0 train, 1 validation, 2 test) per unit, from each unit's group hash and seeded
# order and the split proportions, whole units to one split: the variant engine's component
# splitter, which the build hands the corpus (a task knows no split machinery).
Splitter = Callable[[np.ndarray, np.ndarray, tuple[int, int, int]], np.ndarray]

LAYER_TASK_PREFIX = "person_"  # optional tasks from argument layers: person_dat, person_acc
NO_WUGGY = "no Wuggy input: pass --wuggy-output FILE or --wuggy-lexicon FILE"


def is_layer_task(name: str) -> bool:
    """``person_dat``, ``person_acc``: a task on an argument layer's person and number."""
    rest = name[len(LAYER_TASK_PREFIX) :]
    return name.startswith(LAYER_TASK_PREFIX) and rest.isalpha() and rest.islower()


@dataclass
class Pseudowords:
    """Filtered Wuggy rows and everything the card says about them."""

    rows: list[Any]  # PseudowordRow
    source: SourceInfo
    facts: dict[str, Any]
    vocabulary: set[str]
    # Generated table read from the cache? Reported to the caller only: the folder must not
    # depend on the state of the cache.
    cached: bool = False


@dataclass
class WordCorpus:
    """What every word task fits on. ``lang`` is the language code (row ids), ``iso3`` its
    ISO 639-3 code (LINSPECTOR's per-language skips); ``pseudo_missing`` says why there are
    no pseudowords when ``pseudowords`` is None; ``splitter`` partitions the lexicon for the
    pair tasks (:meth:`partition`)."""

    entries: list[LexEntry]
    lang: str
    iso3: str
    frequencies: FrequencyList | None = None
    pseudowords: Pseudowords | None = None
    pseudo_missing: str | None = None
    unknown_tags: int = 0
    # the feature values each form carries in the --frequencies treebanks (None: no treebank)
    evidence: TextEvidence | None = None
    splitter: Splitter | None = field(default=None, repr=False)
    # form key -> the lemmas of its entries, in order of first appearance
    form_lemmas: dict[str, tuple[str, ...]] = field(init=False)
    # distinct single-word forms: the size rule of the pair tasks counts these
    pair_forms: int = field(init=False)
    # (unit, split counts, seed) -> entries per split: the pair tasks share their partitions
    partitions: dict[tuple[Any, ...], list[list[LexEntry]]] = field(
        init=False, default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        form_lemmas: dict[str, tuple[str, ...]] = {}
        for e in self.entries:
            k = key_of(e.form)
            if e.lemma not in form_lemmas.get(k, ()):
                form_lemmas[k] = (*form_lemmas.get(k, ()), e.lemma)
        self.form_lemmas = form_lemmas
        self.pair_forms = len({key_of(e.form) for e in self.entries if not has_space(e.form)})

    @property
    def case_facts(self) -> tuple[bool, dict[str, Any]]:
        """Does letter case tell the lexicon's words apart (decided from the data, once)?"""
        cached = self.__dict__.get("_case_facts")
        if cached is None:
            cached = self.__dict__["_case_facts"] = case_distinguishes(self.entries)
        return cached  # type: ignore[no-any-return]

    def partition(self, unit: str, counts: tuple[int, int, int], seed: int) -> list[list[LexEntry]]:
        """The entries of each split's part of a seeded partition of the lexicon that moves
        whole units: single forms (``unit="form"``), or lemma families (lemmas linked by a
        shared form, with all their forms) for lemma-disjoint sets. Split in the proportions
        ``counts`` by the variant engine's own component splitter (``splitter``); made once
        per (unit, counts, seed), so both pair tasks generate inside the same parts."""
        key = (unit, counts, seed)
        if key not in self.partitions:
            if self.splitter is None:
                raise ValueError("a corpus made without a splitter cannot be partitioned")
            keys = sorted({key_of(e.form) for e in self.entries})
            if unit == "form":
                names = keys
            else:
                names = component_names([(k,) for k in keys], [self.form_lemmas[k] for k in keys])
            group = hashes(names, "word-unit")
            # One order value per unit: the engine walks a component by the lowest order of
            # its root group, which (a group being the whole unit here) would favour big
            # units if each form had its own order, pulling large lemma families into train.
            order = hashes(names, seed, "word-partition")
            split = self.splitter(group, order, counts)
            where = dict(zip(keys, split.tolist(), strict=True))
            parts: list[list[LexEntry]] = [[], [], []]
            for e in self.entries:
                parts[where[key_of(e.form)]].append(e)
            self.partitions[key] = parts
        return self.partitions[key]
