"""A source family is a declaration; the spine runs it.

    family = Config   one frozen dataclass: every option, typed, with its default, help and
                      validation (the single source of the command line, the Python function,
                      a profile's ``[family]`` section and the card's parameters)
           + sources(config)        the inputs, opened through the loaders
           + tasks                  the family's task set (or the sets its inputs hold)
           + plan(config, sources)  the record streams (or the lexicon) the tasks run on,
                                    the split, the family's own card parameters
           [+ finish(...)]          a post-step on the assembled outcome
           + card(...)              what its card says about itself

A family lives in a module of :mod:`polyprobe.builders.families`, which finds it (no
central table).

:func:`polyprobe.builders.build.build` checks the profile, configures the tasks, runs the
plan (processes, ranges, shards), assembles, writes the card: the same for every family. A
family holds no ``run`` and imports nothing from the execution machinery, so the machinery
can change without touching a family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from polyprobe.builders.assemble import AssembledTask
from polyprobe.builders.options import BuildConfig
from polyprobe.builders.task import Shared, Task
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.metadata import SourceInfo


@dataclass
class Outcome:
    """What a plan's run produced: every task assembled (its configs written into the
    staging folder) in the order the card lists them, and what the card says about the run.
    ``streams`` holds each stream's own outcome (a post-step may need them apart)."""

    assembled: list[AssembledTask]
    recipes: list[dict[str, Any]]  # name, recipe version, parameters per task (fingerprint)
    profile: dict[str, Any]  # every language/data-derived choice
    parameters: dict[str, Any] = field(default_factory=dict)  # the family's (card, in order)
    skipped: dict[str, int] = field(default_factory=dict)  # invalid input skipped, by reason
    duplicates: dict[str, int] = field(default_factory=dict)
    split: str = ""  # how splits were made, for the closing summary
    facts: dict[str, Any] = field(default_factory=dict)  # for the caller (closing summary)
    streams: list[Outcome] = field(default_factory=list)


# ------------------------------------------------------------------------------------ tasks


@dataclass(frozen=True)
class TaskSet:
    """A family's tasks in the order that decides its ``default`` config, what it builds when
    no task is named, its groups (``--tasks contextual``) and, for tasks named by a pattern
    rather than listed (UniMorph's ``person_<case>``), a maker of the class for a name."""

    tasks: tuple[type[Task[Any]], ...]
    default: tuple[str, ...] | None = None  # None: every task
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    maker: Callable[[str], type[Task[Any]] | None] | None = None

    @classmethod
    def of(
        cls,
        *tasks: type[Task[Any]],
        default: Iterable[type[Task[Any]]] | None = None,
        groups: Mapping[str, Iterable[type[Task[Any]]]] | None = None,
        maker: Callable[[str], type[Task[Any]] | None] | None = None,
    ) -> TaskSet:
        return cls(
            tasks=tasks,
            default=None if default is None else tuple(t.metadata.name for t in default),
            groups={g: tuple(t.metadata.name for t in ts) for g, ts in (groups or {}).items()},
            maker=maker,
        )

    @property
    def by_name(self) -> dict[str, type[Task[Any]]]:
        return {t.metadata.name: t for t in self.tasks}

    def get(self, name: str) -> type[Task[Any]]:
        """The task class called ``name``; a ``UsageError`` naming the valid tasks otherwise."""
        found = self.by_name.get(name)
        if found is None and self.maker is not None:
            found = self.maker(name)
        if found is None:
            valid = ", ".join([*self.by_name, *self.groups])
            raise UsageError(f"unknown task {name!r}; valid tasks and groups: {valid}")
        return found

    def resolve(self, names: Iterable[str] | None) -> list[str]:
        """Task names in set order, groups expanded, duplicates removed; the default suite
        when ``names`` is empty. Pattern-made names follow the listed ones, sorted."""
        listed = self.by_name
        wanted: set[str] = set()
        made: list[str] = []
        for name in names or (self.default if self.default is not None else listed):
            if name in self.groups:
                wanted.update(self.groups[name])
                continue
            self.get(name)
            wanted.add(name)
            if name not in listed:
                made.append(name)
        return [n for n in listed if n in wanted] + sorted(set(made))

    def with_made(self, names: Iterable[str]) -> dict[str, type[Task[Any]]]:
        """Every listed task and the pattern-made ones among ``names``, by name (what a
        profile's ``[tasks.*]`` may configure)."""
        return {**self.by_name, **{n: self.get(n) for n in names}}


# ---------------------------------------------------------------------------------- streams


class Records(Protocol):
    """How a stream reads and names its records: plain, picklable values (a worker process
    receives them). Optional: ``part_records(on_invalid, skipped, part, parts)`` (the
    ``part``-th of ``parts`` contiguous ranges, together exactly :meth:`records`; then a
    build in several processes runs on record ranges), ``can_be_cut()`` (when that depends
    on the sources), and ``base`` + ``deriver()`` (records made from another stream's, fed
    from its reading)."""

    def records(self, on_invalid: str, skipped: Any) -> Iterator[Any]: ...

    def identity(self, record: Any) -> tuple[str, str, int]:
        """Source name, record id and split code (0/1/2, or -1 when the source has none)."""
        ...

    def text_hash(self, record: Any, shared: Shared) -> int:
        """The record's duplicate identity: records with the same hash share a group."""
        ...

    def describe_input(self) -> str: ...


@dataclass(frozen=True)
class Stream:
    """Tasks on one record stream. ``tasks`` are the names published (a config's name);
    ``task_of`` maps one to the task set's name when they differ (``tense-de`` -> ``tense``)
    and ``adapt`` changes the configured task for this stream (its published name, a
    translation wrapper). ``records`` None: the inputs have no such records, and every task
    is reported infeasible with ``missing``.

    Options of a task, lowest first: ``defaults`` (this stream's), the profile's
    ``[tasks.<name>]``, ``given`` (what the config's own options give one task: ``--unimorph``
    for ``subject_verb_agreement``), the config's ``task_options``. ``language`` derives the language
    facts a task context holds from the records (capitalisation; a profile's ``[language]``
    wins); ``lang`` is the tasks' language when not the build's (one language of a parallel
    build). ``note`` goes into the card's profile under ``documents`` (a document stream
    beside a sentence stream); ``sample_creation`` gives each row's value of that column."""

    records: Records | None
    tasks: tuple[str, ...]
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    given: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    language: Callable[[Records], dict[str, Any]] | None = None
    lang: str | None = None
    task_of: Callable[[str], str] | None = None
    adapt: Callable[[str, Task[Any]], Task[Any]] | None = None
    missing: str = ""
    note: Mapping[str, Any] | None = None
    sample_creation: Callable[[str], str] | None = None
    extra_profile: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Lexicon:
    """Tasks fitted on a whole corpus at once (``Task.whole_corpus``: UniMorph's word tasks),
    in the build's process: ``sets(task, fit, corpus)`` gives a fitted task's candidate sets;
    ``defaults`` are every task's options below a profile's; ``profile`` the card's profile
    entries; ``say`` reports each task as it starts."""

    corpus: Any
    tasks: tuple[str, ...]
    sets: Callable[[Any, Any, Any], Sequence[Any]]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    profile: Mapping[str, Any] = field(default_factory=dict)
    say: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Prepare:
    """Input shards prepared on an executor before any stream reads them (``build wiki``:
    each dump's pages cleaned and tokenised, once, into tables the streams then read), run
    by the spine's execution before the plan's streams.

    ``shards(folder, workers)``: the work, planned into ``folder`` for ``workers`` processes
    (``--jobs``, else by the size of the plan's ``inputs``): picklable items, each with
    ``out``, the one file it writes. ``function(item)`` (a module-level function) does one
    and writes ``out`` atomically (aside as ``<out>.tmp-<pid>-<host>``: ``cards.folder.partial_path``, then renamed), so a file
    that exists is finished, and is reused: with ``cache``, a folder kept between builds, a
    rerun (after an interruption, or a cluster job) resumes; without one the execution
    makes a folder of its own and removes it after the streams ran (a killed build's is
    swept by the next build). ``executor``: what runs the items, this machine's processes
    (``local``) or datatrove's (:data:`EXECUTORS`), with ``executor_options``.
    ``ready(items)``: the plan whose streams read what the items wrote."""

    shards: Callable[[Path, int], Sequence[Any]]
    function: Callable[[Any], None]
    ready: Callable[[Sequence[Any]], Plan]
    executor: str = "local"
    executor_options: Mapping[str, Any] = field(default_factory=dict)
    cache: Path | None = None


# What may run a Prepare's items (``polyprobe.runtime.inputs``, which checks it again).
EXECUTORS: tuple[str, ...] = ("local", "datatrove-local", "datatrove-slurm", "datatrove-ray")


@dataclass(frozen=True)
class Plan:
    """What the spine runs: the record streams (one build, planned together onto the
    processes) or a lexicon, how rows are split, the card's task order, the family's card
    parameters (after the split's), invalid input the family counted while planning, and
    what the build's closing summary prints. With ``prepare``, the input shards are made
    first and the plan its ``ready`` gives is run instead."""

    split: SplitSpec
    streams: tuple[Stream, ...] = ()
    lexicon: Lexicon | None = None
    order: tuple[str, ...] = ()  # the card's task order; default: the streams' in turn
    parameters: Mapping[str, Any] = field(default_factory=dict)
    skipped: Mapping[str, int] = field(default_factory=dict)
    summary: str | None = None  # the closing "split:" line; default: the split's label
    facts: Mapping[str, Any] = field(default_factory=dict)
    # the files the streams read: their size decides the default --jobs, a progress bar
    # shows how much of them a pass has read
    inputs: Sequence[Path] = ()
    prepare: Prepare | None = None


@dataclass(frozen=True)
class CardText:
    """How a family's card presents itself."""

    pretty_name: str
    summary: str
    source_datasets: tuple[str, ...] = ()
    tags: tuple[str, ...] = ("probing", "polyprobe")
    task_categories: tuple[str, ...] = ("text-classification",)
    # The dataset's languages when it has several (a parallel corpus); empty: ``--lang``.
    languages: tuple[str, ...] = ()


class Sources(Protocol):
    """A family's opened inputs: what the card lists and what each declares of its
    language (checked against ``--lang`` before anything is read)."""

    def infos(self) -> list[SourceInfo]: ...

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]: ...


@dataclass
class Inputs:
    """A family's opened sources, as the card lists them: each has ``name`` and ``info``
    (and ``languages``, what it declares, when it says). A family with more to keep
    subclasses it."""

    sources: list[Any]

    def infos(self) -> list[SourceInfo]:
        return [s.info for s in self.sources]

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return [(s.name, tuple(getattr(s, "languages", ()))) for s in self.sources]


C = TypeVar("C", bound=BuildConfig)
S = TypeVar("S", bound=Sources)


class Family(Generic[C, S]):
    """A source family: subclass it in a module of :mod:`polyprobe.builders.families` and
    make one instance at module level; the command line finds it there
    (:func:`polyprobe.builders.families.families`)."""

    name: ClassVar[str]
    help: ClassVar[str]
    description: ClassVar[str]
    Config: ClassVar[type[BuildConfig]]
    tasks: ClassVar[TaskSet | None] = None  # None: the sets the inputs hold (task_set)

    def sources(self, config: C) -> S:
        raise NotImplementedError

    def task_set(self, config: C, sources: S) -> TaskSet:
        """The tasks this build may run: the family's, or those its inputs hold."""
        assert self.tasks is not None, f"{self.name}: a family without tasks needs task_set"
        return self.tasks

    def plan(self, config: C, sources: S, names: Sequence[str]) -> Plan:
        raise NotImplementedError

    def finish(self, config: C, sources: S, outcome: Any, staging: Path) -> Any:
        """A post-step on the assembled outcome (a derived config, notes): by default none."""
        return outcome

    def card(self, config: C, sources: S, language: Language, outcome: Any) -> CardText:
        raise NotImplementedError

    @property
    def python_name(self) -> str:
        return f"build_{self.name}"
