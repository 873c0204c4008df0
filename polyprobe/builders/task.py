"""The task interface: a named probing task turns records into candidates.

Tasks know nothing of variants, splits, files or cards. A task must be a pure function of
(record, its parameters, the seed): the pipeline may call it again on the same record and must
get the same candidates (perturbations draw from :func:`polyprobe.hashing.stable_rng`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from polyprobe.loaders.records import Sentence


class Level(str, Enum):
    WORD = "word"
    WORD_PAIR = "word-pair"
    WORD_IN_CONTEXT = "word-in-context"
    SENTENCE = "sentence"
    SENTENCE_PAIR = "sentence-pair"
    DISCOURSE = "discourse"


# Input columns per level: part of the published schema (changing it is a major version).
INPUT_COLUMNS: dict[Level, tuple[str, ...]] = {
    Level.WORD: ("word",),
    Level.WORD_PAIR: ("word1", "word2"),
    Level.WORD_IN_CONTEXT: ("sentence", "tokens", "target_index"),
    Level.SENTENCE: ("sentence", "tokens"),
    Level.SENTENCE_PAIR: ("sentence1", "sentence2"),
    Level.DISCOURSE: ("sentence1", "sentence2"),
}


@dataclass(slots=True)
class Candidate:
    """One potential dataset row, before any variant decides where (or whether) it goes.

    ``copy`` distinguishes several rows made from one record (``original``/``inverted``) and
    ends the stable row id ``<treebank>/<sent_id>/<task>/<copy>``. ``group`` and the id prefix
    are filled in by the pipeline, which knows the source and the duplicate-text grouping.
    """

    inputs: dict[str, Any]
    label: str
    copy: str = "0"
    lexical_key: str = ""
    # Only for candidates built from several records (e.g. two sentences of one document): the
    # group to use instead of the sentence's own. The pipeline prefixes it with the treebank.
    group: str | None = None


@dataclass
class TaskParams:
    """Language-specific choices a task may read. Derived from data by the pipeline and written
    into the card; overridable by a profile."""

    lang: str = "und"
    capitalises_nouns: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class Task:
    """Base class. Subclasses set the class attributes and implement :meth:`candidates`.

    Drops are counted by reason in ``self.drops`` (the pipeline copies them into the card);
    a drop is any record the task looked at and rejected for a stated reason.
    """

    name: ClassVar[str]
    level: ClassVar[Level]
    description: ClassVar[str]
    label_names: ClassVar[tuple[str, ...]]
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = ""
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    # Each source record yields several copies with different labels (original/perturbed):
    # the pipeline then also builds an ``unpaired`` variant with one copy per group.
    paired_copies: ClassVar[bool] = False
    # Free-text lines that the card prints under the recipe (e.g. how multiword tokens count).
    notes: ClassVar[tuple[str, ...]] = ()
    # What adding the task to a build costs, relative to ``sentence_length`` (observation,
    # candidates, spooling and writing; measured on EWT with ``python bench/task_costs.py``).
    # Only used to balance tasks across worker processes (``--jobs``); never affects output.
    relative_cost: ClassVar[float] = 1.0
    # Tasks with the same non-empty affinity share per-sentence work through one-entry memos
    # (the form inventory's sentence digest, word order's reading of a sentence), which only
    # pays when they run in one process: ``--jobs`` keeps them in one shard.
    shard_affinity: ClassVar[str] = ""

    def __init__(self, params: TaskParams | None = None, seed: int = 0):
        self.params = params or TaskParams()
        self.seed = seed
        self.drops: Counter[str] = Counter()

    @property
    def input_columns(self) -> tuple[str, ...]:
        return INPUT_COLUMNS[self.level]

    def option(self, key: str, default: Any = None) -> Any:
        """A profile override for this task (``[tasks.<name>]`` in a profile file), or default."""
        return (self.params.extra.get("tasks", {}).get(self.name) or {}).get(key, default)

    def parameters(self) -> dict[str, Any]:
        """Recipe parameters as they appear in the card and the fingerprint."""
        return {}

    # --- optional first pass -----------------------------------------------------------
    # Tasks whose choices depend on the whole corpus (target words, frequency bands, class
    # sets, length windows) see every sentence once through ``observe`` before any
    # ``candidates`` call, then ``derive`` fixes those choices; they are written into the card
    # (and can be overridden by a profile through ``params.extra``).
    needs_observation: ClassVar[bool] = False

    def observe(self, sentence: Sentence) -> None:
        """First pass over the corpus (only called when ``needs_observation``)."""

    def derive(self) -> dict[str, Any]:
        """Fix corpus-derived choices after the first pass; returns them for the card."""
        return {}

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        raise NotImplementedError

    def drop(self, reason: str) -> list[Candidate]:
        self.drops[reason] += 1
        return []
