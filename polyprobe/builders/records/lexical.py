"""Lexical evaluation sets (word similarity, analogies, bilingual dictionaries, COSTRA) as the
records of a build: what the four lexical families share.

Why the task set comes from the inputs: a set's configs are only known once its files are
read (Multi-SimLex gives a set per language, per POS and per language pair; an analogy set a
config per category), so the family's tasks are the classes its sets make, one or more per
set, in the order the sources give them (``--tasks`` picks sets by config name). Every set is
an evaluation set: no class floor and the natural variant only by default (similarity rows
are scored, analogy rows are questions, neither has classes to balance); every row is a test
row unless the family splits (a dictionary, by source word). The records are the sources'
:class:`~polyprobe.loaders.records.Example`\\ s (:class:`ExampleRecords`), each set's task
keeping its own set's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from polyprobe.builders.family import Family, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, parse_min_per_class
from polyprobe.builders.records.examples import ExampleRecords
from polyprobe.builders.task import Task
from polyprobe.builders.variants import MinPerClass, SplitSpec
from polyprobe.errors import UsageError
from polyprobe.loaders.declared import DeclaredLanguage, declared
from polyprobe.loaders.records import Example
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

TEST_ONLY = SplitSpec(
    "ud", reason="an evaluation set: every row is a test row", source_label="source"
)


class SetSource(Protocol):
    """A lexical input: its card entry, the languages it declares, its sets and records. A
    source that also consulted other files (a generated set's frequency lists) lists them
    all in ``infos()``."""

    @property
    def name(self) -> str: ...

    @property
    def info(self) -> SourceInfo: ...

    def declared_codes(self) -> tuple[str, ...]: ...

    def sets(self, policy: InvalidPolicy) -> Sequence[Any]: ...

    def records(self, policy: InvalidPolicy) -> Iterator[Example]: ...


@dataclass(frozen=True, kw_only=True)
class EvaluationSetConfig(BuildConfig):
    """The options of every lexical family: the shared ones, with an evaluation set's
    defaults (natural variant only, no class floor)."""

    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class(0))


@dataclass
class LexicalSets:
    """A lexical build's sources (the family's ``sources``)."""

    sources: tuple[SetSource, ...]

    def infos(self) -> list[SourceInfo]:
        infos: list[SourceInfo] = []
        for src in self.sources:
            infos += src.infos() if hasattr(src, "infos") else [src.info]
        return infos

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        out = []
        for src in self.sources:
            langs = [declared(c, src.name) for c in src.declared_codes()]
            out.append((src.name, tuple(d for d in langs if d is not None)))
        return out

    def task_set(
        self, make_tasks: Callable[[Any], Sequence[type[Task[Example]]]], on_invalid: str
    ) -> TaskSet:
        """The tasks of every set the sources hold, in their order (``make_tasks`` turns a
        set into its task classes). The sets are read again when the records are, so what
        this reading skips is not counted twice."""
        policy = InvalidPolicy(on_invalid, Counter())
        tasks: dict[str, type[Task[Any]]] = {}
        for src in self.sources:
            for found in src.sets(policy):
                for task in make_tasks(found):
                    name = task.metadata.name
                    if name in tasks:
                        raise UsageError(f"two inputs give the set {name!r}; build them apart")
                    tasks[name] = task
        return TaskSet(tuple(tasks.values()))

    def plan(self, names: Sequence[str], split: SplitSpec = TEST_ONLY) -> Plan:
        """One stream of the sources' examples for the sets ``names``."""
        return Plan(split=split, streams=(Stream(ExampleRecords(self.sources), tuple(names)),))


C = TypeVar("C", bound=EvaluationSetConfig)


class SetFamily(Family[C, LexicalSets]):
    """A lexical family: its tasks are the classes ``make_tasks`` makes of each set its
    sources hold, run on one stream of their examples; every row is a test row unless
    :meth:`split` says otherwise."""

    make_tasks: ClassVar[Callable[[Any], Sequence[type[Task[Example]]]]]

    def split(self, config: C) -> SplitSpec:
        return TEST_ONLY

    def task_set(self, config: C, sources: LexicalSets) -> TaskSet:
        return sources.task_set(type(self).make_tasks, config.on_invalid)

    def plan(self, config: C, sources: LexicalSets, names: Sequence[str]) -> Plan:
        return sources.plan(names, self.split(config))
