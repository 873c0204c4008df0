"""What a polyprobe dataset promises, as types: task levels, the published columns, one frozen
:class:`TaskMetadata` per task, the sources a build read, and the card's ``polyprobe:`` block
of one config.

Why a ground-floor module: builders produce these values, cards print them and evaluation
reads them back, so each of those imports them from here and none imports another to get them
(the card never reaches into the builders to learn what a level's inputs are). Only the
standard library is imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any


class Level(str, Enum):
    WORD = "word"
    WORD_PAIR = "word-pair"
    WORD_IN_CONTEXT = "word-in-context"
    SENTENCE = "sentence"
    SENTENCE_PAIR = "sentence-pair"
    DISCOURSE = "discourse"
    DISCOURSE_RELATION = "discourse-relation"
    # A dependency arc in its sentence: the dependent at ``target_index``, its head at
    # ``head_index`` (the ``deprel`` downstream task).
    ARC = "arc"
    # a : b :: c : d (word analogies; word4 is the answer to "word1 is to word2 as word3 is to ?")
    WORD_ANALOGY = "word-analogy"
    # a seed sentence, a transformation of it and their string similarity (COSTRA)
    SENTENCE_TRANSFORMATION = "sentence-transformation"
    # "sentence1 is closer to sentence2 than sentence3 is to sentence4" (COSTRA's orderings)
    SENTENCE_COMPARISON = "sentence-comparison"
    # word2 translates word1 (a bilingual dictionary entry)
    WORD_TRANSLATION = "word-translation"
    # two words of one context, at ``index1`` and ``index2`` of its tokens (CoSimLex: a word
    # pair's similarity in that context; a pair's two contexts share ``group``)
    WORD_PAIR_IN_CONTEXT = "word-pair-in-context"


# Input columns per level: part of the published schema (changing it is a major version).
INPUT_COLUMNS: dict[Level, tuple[str, ...]] = {
    Level.WORD: ("word",),
    Level.WORD_PAIR: ("word1", "word2"),
    Level.WORD_IN_CONTEXT: ("sentence", "tokens", "target_index"),
    Level.SENTENCE: ("sentence", "tokens"),
    Level.SENTENCE_PAIR: ("sentence1", "sentence2"),
    # A window of a document's sentences in the order shown (sentence position, ordering,
    # coherence) or one sentence (section prediction): a list of strings.
    Level.DISCOURSE: ("sentences",),
    # Two adjacent discourse units of an RST tree, each the list of its EDUs' texts.
    Level.DISCOURSE_RELATION: ("left", "right"),
    Level.ARC: ("sentence", "tokens", "target_index", "head_index"),
    Level.WORD_ANALOGY: ("word1", "word2", "word3", "word4"),
    # string_similarity: float32 Levenshtein ratio of sentence2 to sentence1 (its seed)
    Level.SENTENCE_TRANSFORMATION: ("sentence1", "sentence2", "string_similarity"),
    Level.SENTENCE_COMPARISON: ("sentence1", "sentence2", "sentence3", "sentence4"),
    Level.WORD_TRANSLATION: ("word1", "word2"),
    Level.WORD_PAIR_IN_CONTEXT: ("sentence", "tokens", "index1", "index2"),
}

# Every config's columns are ``id``, the level's inputs, then these.
TRAILING_COLUMNS: tuple[str, ...] = ("label", "group", "lexical_key")

# What a config's ``label`` column holds: a class id (``ClassLabel``, the default) or a graded
# score (``Value("float32")``: SimLex similarity, STS relatedness). The card's ``polyprobe:``
# block says ``label_type: score`` for the latter (absent means ``class``).
LABEL_TYPES: tuple[str, ...] = ("class", "score")

# An optional column after ``lexical_key`` (``Value("string")``) in the configs of builds
# whose rows may be translations (``build parallel``; a translated ``build trec``; user files
# built with ``--sample-creation``): how the row's text came to be. ``native``: written in the row's language; ``human-translated`` /
# ``machine-translated``: a translation (the card names the system, version and date);
# ``unknown``: the input does not say (a parallel text file without --original-language).
SAMPLE_CREATION_COLUMN = "sample_creation"
# How a pair config's two inputs become one feature vector in evaluation (its card's
# ``pair_features``; "" = ``senteval``): SentEval's [u, v, |u-v|, u*v], the Spanish
# SentEval's [|u-v|, u*v], ArgMin's sentence with its topic [u, t].
PAIR_FEATURES: tuple[str, ...] = ("senteval", "spanish", "topic")

SAMPLE_CREATION: tuple[str, ...] = (
    "native",
    "human-translated",
    "machine-translated",
    "unknown",
)
SAMPLE_CREATION_FEATURE: Mapping[str, str] = MappingProxyType({"dtype": "string", "_type": "Value"})

# The splits a dataset folder may hold, in the order they are written and shown.
SPLITS: tuple[str, ...] = ("train", "validation", "test")

# "lexical": intrinsic evaluation sets (word similarity, analogies, dictionaries, COSTRA),
# scored by their own metrics (polyprobe.evaluation.lexical), not by a trained probe.
TASK_TYPES: tuple[str, ...] = ("probing", "downstream", "lexical")


def column_names(level: Level | str) -> list[str]:
    """Column order of a config: ``id``, the level's inputs, ``label``, ``group``,
    ``lexical_key``."""
    return ["id", *INPUT_COLUMNS[Level(level)], *TRAILING_COLUMNS]


@dataclass(frozen=True)
class TaskMetadata:
    """Everything about a task that does not depend on the corpus: one value per task class,
    read by the build (names, levels, flags), printed by the card and documented in
    ``docs/tasks.md``.

    ``labels`` is the label set when it is fixed by the recipe; ``None`` when the task derives
    it from the data (``labels_derived`` then says how). ``config`` names the task's configs
    when that differs from ``name`` (TREC's ``coarse`` for task ``trec-coarse``)."""

    name: str
    level: Level
    description: str
    labels: tuple[str, ...] | None = None
    labels_derived: str = ""
    recipe_version: str = "1.0.0"
    citation: str = ""
    task_type: str = "probing"
    lexical_control: bool = False
    # Each record yields several copies with different labels (original/perturbed): the build
    # then also makes an ``unpaired`` variant with one copy per group.
    paired_copies: bool = False
    # The seed changes which rows a config holds (not only their order).
    seed_dependent: bool = False
    # Free-text lines the card prints under the recipe (e.g. how multiword tokens count).
    notes: tuple[str, ...] = ()
    # The record type the task reads ("sentence", "lexicon entry", "example", "document").
    record: str = "sentence"
    config: str = ""
    # Pair levels: how evaluation combines the two inputs' vectors ("" = SentEval's
    # [u, v, |u-v|, u*v]; "spanish" = [|u-v|, u*v]; "topic" = [u, v]: ArgMin's sentence with
    # its topic vector). Printed in the config's polyprobe block when set.
    pair_features: str = ""
    # The label is a graded score (a float, e.g. SimLex's 0-10 similarity), not a class: the
    # column is published as ``Value("float32")``, and the variant engine builds the natural
    # variant only (no balancing, no class floors; sizes stay nested). ``labels_derived`` then
    # says what the score is and its scale.
    scored: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a task needs a name")
        if self.scored and self.labels is not None:
            raise ValueError(f"{self.name}: a scored task has no label names")
        if self.scored and self.paired_copies:
            raise ValueError(f"{self.name}: a scored task cannot have paired copies")
        if self.labels is None and not self.labels_derived:
            raise ValueError(f"{self.name}: say how the labels are derived (labels_derived)")
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"{self.name}: task_type must be one of {TASK_TYPES}")

    @property
    def inputs(self) -> tuple[str, ...]:
        return INPUT_COLUMNS[self.level]

    @property
    def config_name(self) -> str:
        """The recommended config's name; other configs append ``.<balance>-<size>``."""
        return self.config or self.name


@dataclass
class SourceInfo:
    """One source a build read, as the card lists it: what it is, which version, under which
    licence, and a checksum of every file (so a silently changed input is noticed)."""

    kind: str  # "ud-treebank", "unimorph", "wuggy-output", "trec", ...
    name: str  # "UD_English-EWT"
    version: str  # git HEAD, --source-version, or "unknown"
    license: str  # SPDX-like id, e.g. "CC-BY-SA-4.0"
    files: list[dict[str, str]]  # [{"name": "en_ewt-ud-dev.conllu", "sha256": "..."}]
    citation: str = ""
    # "rows": the dataset's rows come from it; "reference": it only informs choices (a
    # frequency list decides which forms are frequent) — its licence does not bind the rows.
    role: str = "rows"
    # Where the licence comes from when no file of the source states it: its documented
    # licence (polyprobe.licenses.DOCUMENTED), printed in the card so the reader can check.
    license_basis: str = ""

    def card_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "version": self.version,
            "license": self.license,
            "files": self.files,
        }
        if self.citation:
            entry["citation"] = self.citation
        if self.role != "rows":
            entry["role"] = self.role
        if self.license_basis:
            entry["license_basis"] = self.license_basis
        return entry


@dataclass(frozen=True)
class VariantBlock:
    """How a config's rows were chosen from its task's candidates."""

    balance: str  # natural | balanced | unpaired | ratio1toR (class ratio 1:R)
    size: str  # full | 10k | 0.25 ...
    split: str  # ud | ratio:80/10/10 | sizes:7000/2000/1000 | source
    disjoint: str = ""  # word tasks: form | lemma-disjoint

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"balance": self.balance, "size": self.size, "split": self.split}
        if self.disjoint:
            out["disjoint"] = self.disjoint
        return out


@dataclass(frozen=True)
class ConfigBlock:
    """The card's ``polyprobe:`` entry of one config: what evaluation needs besides the
    parquet files (the writer adds ``statistics``)."""

    task: str
    level: Level
    labels: tuple[str, ...]
    variant: VariantBlock
    seed: int
    task_type: str = "probing"
    recipe_version: str = "1.0.0"
    lexical_control: bool = False
    seed_dependent: bool = False
    pair_features: str = ""  # see TaskMetadata.pair_features
    scored: bool = False  # label_type: score (labels then empty)

    @property
    def inputs(self) -> tuple[str, ...]:
        return INPUT_COLUMNS[self.level]

    def as_dict(self) -> dict[str, Any]:
        out = self._class_dict()
        if self.scored:  # only then, so that the cards of class tasks are unchanged
            out["labels"] = []
            out["label_type"] = "score"
        return out

    def _class_dict(self) -> dict[str, Any]:
        extra = {"pair_features": self.pair_features} if self.pair_features else {}
        return {
            "task": self.task,
            "level": self.level.value,
            "inputs": list(self.inputs),
            "labels": list(self.labels),
            "task_type": self.task_type,
            "recipe_version": self.recipe_version,
            "variant": self.variant.as_dict(),
            "seed": self.seed,
            "lexical_control": bool(self.lexical_control),
            "seed_dependent": bool(self.seed_dependent),
            **extra,
        }


@dataclass
class DatasetMeta:
    """The dataset-level part of the card: what was read, how, and what came of it."""

    pretty_name: str
    languages: list[str]
    license: str  # one id when all sources agree, else "other"
    sources: list[SourceInfo]
    polyprobe_version: str
    fingerprint: str
    parameters: dict[str, Any]  # build parameters (seed, sizes, split, min-per-class, ...)
    skipped_invalid: dict[str, int] = field(default_factory=dict)  # reason -> records skipped
    duplicates: dict[str, int] = field(default_factory=dict)  # e.g. {"sentences": n, "groups": m}
    feasibility: dict[str, Any] = field(default_factory=dict)  # task -> report (report.json)
    profile: dict[str, Any] = field(default_factory=dict)  # derived language choices
    license_mix_allowed: bool = False
    task_categories: list[str] = field(default_factory=lambda: ["text-classification"])
    tags: list[str] = field(default_factory=lambda: ["probing", "polyprobe"])
    source_datasets: list[str] = field(default_factory=list)
    summary: str = ""
    # Hub id ("org/name") shown in the card's load snippets; "" shows a folder placeholder.
    # Never the output path: the card must not depend on where the folder was written.
    repo_id: str = ""
    # The dataset's own semantic version (not polyprobe's), its changelog (oldest first:
    # [{"version", "bump", "summary": [...], ...}]) and, for a build checked against a previous
    # release, what the check found (polyprobe.cards.release).
    release: str = "0.1.0"
    changelog: list[dict[str, Any]] = field(default_factory=list)
    bump_check: dict[str, Any] = field(default_factory=dict)
    # A suite's members (polyprobe.builders.suite), in manifest order: each a dict of
    # ``name``, ``family``, ``title``, ``summary``, the ``tasks`` it published and the ones it
    # ``renamed`` (published name -> the family's, where two members share one). Empty for
    # one family's build.
    members: list[dict[str, Any]] = field(default_factory=list)
    # The Hub's standard fields as the build knows them (polyprobe.hubmeta): who made the
    # labels and the texts, and whether the data is multilingual. Empty: the card derives
    # them from the sources' kinds and the languages alone.
    annotations_creators: list[str] = field(default_factory=list)
    language_creators: list[str] = field(default_factory=list)
    multilinguality: list[str] = field(default_factory=list)
