"""The task interface: a named task turns records into candidates, in the shape of a
scikit-learn estimator.

* **Metadata** (:class:`~polyprobe.metadata.TaskMetadata`): one frozen value per class.
* **Options**: a frozen dataclass per task (``Task.Options``), every field a documented
  parameter; a profile's ``[tasks.<name>]`` table becomes one through :meth:`Task.configure`,
  which refuses an unknown key and lists the valid ones.
* **Fit**: a task whose choices depend on the whole corpus (target words, bins, label sets)
  sees every record once through the :class:`Observation` it makes (:meth:`Task.observe`),
  then :meth:`Task.fit` turns that into a frozen :class:`Fit` value. Nothing corpus-derived
  is kept on the task object.
* **Transform**: :meth:`Task.candidates` (one record at a time) or :meth:`Task.emit` (tasks
  whose candidates come from the whole fitted corpus, such as word pairs), given the fit.

Tasks know nothing of variants, splits, files or cards. ``candidates`` must be a pure
function of (record, options, context, fit): the build may call it again on the same record
and must get the same candidates (perturbations draw from :func:`polyprobe.hashing.stable_rng`).
What a task rejects is counted by reason in ``task.drops`` (the card lists it); a task may
count what its candidate pass emitted the same way (run statistics its recipe prints), but
every choice it derives from the corpus lives in its fit.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from polyprobe.builders.variants import SplitEstimate
from polyprobe.errors import UsageError
from polyprobe.metadata import INPUT_COLUMNS, Level, TaskMetadata

R = TypeVar("R")
T = TypeVar("T")

# The one "class" the variant engine sees for a scored task (its candidates' label names).
SCORE_CLASS = "score"
# The spooled column that carries a scored candidate's score until it is written as ``label``.
SCORE_COLUMN = "score"

__all__ = [
    "Candidate",
    "Fit",
    "Level",
    "NoOptions",
    "Observation",
    "RunStatistics",
    "Shared",
    "SplitEstimate",
    "Task",
    "TaskContext",
    "TaskMetadata",
    "mergeable",
]


@dataclass(slots=True)
class Candidate:
    """One potential dataset row, before any variant decides where (or whether) it goes.

    ``copy`` distinguishes several rows made from one record (``original``/``inverted``) and
    ends the stable row id ``<source>/<record id>/<task>/<copy>``. ``group`` and the id prefix
    are filled in by the build, which knows the source and the duplicate-text grouping.
    """

    inputs: dict[str, Any]
    label: str
    copy: str = "0"
    lexical_key: str = ""
    # Only for candidates built from several records (e.g. two sentences of one document): the
    # group to use instead of the record's own. The build prefixes it with the source name.
    group: str | None = None
    # The row id after the source name, when the record's own id is the row id (TREC's
    # ``train/12``); by default ``<record id>/<task>/<copy>``.
    id: str | None = None
    # Scored tasks (``TaskMetadata.scored``): the row's label, a graded score; ``label`` is
    # then ignored (the engine sees one pseudo-class, :data:`SCORE_CLASS`).
    score: float | None = None


@dataclass(frozen=True)
class TaskContext:
    """What every task of one build may read besides its options: explicit, the same for all
    tasks, never a global. ``keep_case_forms`` and ``capitalises_nouns`` are the language's
    capitalisation facts (derived from the data, overridable by a profile's ``[language]``);
    ``min_per_class`` and ``split`` are the build's class floors and split mode (``None``:
    decided from the data)."""

    lang: str = "und"
    seed: int = 0
    capitalises_nouns: bool = False
    keep_case_forms: frozenset[str] = frozenset()
    min_per_class: tuple[int, int, int] = (50, 20, 20)
    split: str | None = None

    def split_estimate(self) -> SplitEstimate:
        """A fresh estimate of how the variant engine will split this build's items, for
        tasks that choose their classes before candidates exist: the engine answers with its
        own rules, so no task copies them."""
        return SplitEstimate(self.min_per_class, self.split)


class Shared:
    """Per-record work that several tasks share, computed once per record: the build makes one
    for every record it shows the tasks (in both passes) and hands it to each of them.
    ``shared.get(make, *args)`` is ``make(record, *args)``, remembered for this record; ``make``
    must be a module-level function (it is part of the key) and ``args`` hashable."""

    __slots__ = ("_memo", "record")

    def __init__(self, record: Any) -> None:
        self.record = record
        self._memo: dict[Hashable, Any] = {}

    def get(self, make: Callable[..., T], *args: Hashable) -> T:
        key = (make, args) if args else make
        value = self._memo.get(key, _MISSING)
        if value is _MISSING:
            value = self._memo[key] = make(self.record, *args)
        return value  # type: ignore[no-any-return]


_MISSING = object()


class Observation:
    """A task's first-pass state (counts, accumulators): made fresh by
    :meth:`Task.observation`, fed every record, then handed to :meth:`Task.fit`.

    A build in several processes shows each process one contiguous range of the records
    (cut where no derived record, such as a document, spans two ranges) and merges the
    ranges' observations in stream order before fitting: :meth:`merge` must leave exactly
    the state one observation fed every record in order would hold (first occurrences, id
    numbering, the order of keys and of ties included), so that the fit, and every byte of
    the output, does not depend on the number of processes."""

    def observe(self, record: Any, shared: Shared) -> None:
        raise NotImplementedError

    def merge(self, later: Observation) -> None:
        """Take in ``later``, a fresh observation of the same task that was fed the records
        right after this one's (``later`` may be changed or emptied). Observations that
        cannot be merged leave this unimplemented: their build then observes in one
        process."""
        raise NotImplementedError(f"{type(self).__name__} cannot merge observations")


def mergeable(observation: Observation) -> bool:
    """Does ``observation``'s class implement :meth:`Observation.merge`?"""
    return type(observation).merge is not Observation.merge


class RunStatistics:
    """Counts a task keeps while its candidate pass runs, other than a ``Counter`` (which
    needs no class): :meth:`update` adds another copy's counts, as ``Counter.update`` does,
    keys in the order one pass would have met them (see :meth:`Task.run_counts`)."""

    def update(self, other: Any) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Fit:
    """What a task learned from the corpus: a value, never the task's own state.

    ``label_names`` is the label set in label-id order; ``report`` is what the card's profile
    shows for the task (every derived choice, and the counts behind it); ``notes`` are card
    notes that depend on the data. Tasks that keep more (targets, bins, classes) subclass it.
    ``infeasible`` says why the task can make no candidate at all."""

    label_names: tuple[str, ...]
    report: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    infeasible: str | None = None


@dataclass(frozen=True)
class NoOptions:
    """A task without options."""


class Task(Generic[R]):
    """Base class. Subclasses set :attr:`metadata`, optionally :attr:`Options`, and implement
    :meth:`candidates` (per record) or :meth:`emit` (whole corpus). Two-pass tasks implement
    :meth:`observation` and :meth:`fit`."""

    metadata: ClassVar[TaskMetadata]
    Options: ClassVar[type] = NoOptions
    # Keys of ``fit().report`` that ``polyprobe profile`` prints: a profile may carry them
    # back (they are informational and ignored); any other unknown key is an error.
    reported: ClassVar[frozenset[str]] = frozenset()
    # Candidates come from the fitted corpus as a whole (:meth:`emit`), not record by record.
    whole_corpus: ClassVar[bool] = False

    def __init__(self, options: Any = None, context: TaskContext | None = None):
        self.options = options if options is not None else self.Options()
        if not isinstance(self.options, self.Options):
            raise TypeError(f"{self.name}: options must be {self.Options.__name__}")
        self.context = context if context is not None else TaskContext()
        self.drops: Counter[str] = Counter()

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def configure(cls, raw: Mapping[str, Any] | None, context: TaskContext) -> Task[R]:
        """The task with options from a profile's ``[tasks.<name>]`` table (or command-line
        task options). Unknown keys are a ``UsageError`` that lists the valid ones."""
        return cls(options_from(cls, raw or {}), context)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls.Options))

    # The name a task published under another name (a suite's ``<member>-<task>``,
    # :func:`polyprobe.builders.configure.renamed`) keeps drawing its rows under: its seeds,
    # lexical keys and feature lookups, so the suite's config holds the rows of the family's
    # own build. None: the metadata's name.
    identity: str | None = None

    # --- metadata shortcuts ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.identity or self.metadata.name

    @property
    def level(self) -> Level:
        return self.metadata.level

    @property
    def input_columns(self) -> tuple[str, ...]:
        """The columns its candidates are spooled with: the level's inputs (and, for a scored
        task, its score)."""
        inputs = INPUT_COLUMNS[self.metadata.level]
        return (*inputs, SCORE_COLUMN) if self.metadata.scored else inputs

    @property
    def seed(self) -> int:
        return self.context.seed

    # --- fit --------------------------------------------------------------------------------
    def observation(self) -> Observation | None:
        """A fresh first-pass state, or None when the task needs no first pass."""
        return None

    def fit(self, observation: Observation | None) -> Fit:
        """Fix the corpus-derived choices. The default: the metadata's fixed labels (a scored
        task's one pseudo-class)."""
        if self.metadata.scored:
            return Fit(label_names=(SCORE_CLASS,))
        labels = self.metadata.labels
        if labels is None:
            raise NotImplementedError(f"{self.name}: derived labels need a fit()")
        return Fit(label_names=labels)

    # --- transform --------------------------------------------------------------------------
    def candidates(self, record: R, fit: Fit, shared: Shared) -> list[Candidate]:
        raise NotImplementedError

    def emit(self, fit: Fit) -> Iterable[Any]:
        """Whole-corpus tasks: every candidate, from the fit alone."""
        raise NotImplementedError

    def parameters(self, fit: Fit) -> dict[str, Any]:
        """Recipe parameters as the card and the fingerprint show them."""
        return {}

    def drop(self, reason: str) -> list[Candidate]:
        self.drops[reason] += 1
        return []

    def records_ended(self) -> None:
        """This copy of the task has seen the last record of its candidate pass. A task that
        carries state from one record to the next (pairs of consecutive sentences) counts
        here what is left open. A build over record ranges calls it at the end of every
        range, which is cut where no document spans two ranges: a count one pass would make
        when the next range's first record arrives is made here instead (into the same
        counter, in the same key order once the ranges' counts are added up)."""

    # --- run counts -------------------------------------------------------------------------
    def run_counts(self) -> dict[str, Counter[str] | RunStatistics]:
        """What the candidate pass counted on this task: ``drops`` and every other ``Counter``
        or :class:`RunStatistics` attribute (run statistics its recipe prints). A build over
        record ranges
        runs each range's candidate pass on its own copy of the task; the build's copy then
        takes in every range's counts in stream order (:meth:`add_run_counts`), so that the
        recipe and the card read the totals one pass would have counted, keys in the same
        order."""
        return {
            name: value
            for name, value in vars(self).items()
            if isinstance(value, (Counter, RunStatistics))
        }

    def add_run_counts(self, counts: Mapping[str, Counter[str] | RunStatistics]) -> None:
        for name, counted in counts.items():
            getattr(self, name).update(counted)


def options_from(task: type[Task[Any]], raw: Mapping[str, Any]) -> Any:
    """``task.Options`` from a mapping: unknown keys refused (listing the valid ones), keys the
    task's fit reports accepted and ignored (so ``polyprobe profile`` output can be passed back
    as it is)."""
    names = task.option_names()
    unknown = sorted(k for k in raw if k not in names and k not in task.reported)
    if unknown:
        valid = ", ".join(names) or "none"
        raise UsageError(
            f"[tasks.{task.metadata.name}]: unknown option(s) {', '.join(unknown)}; "
            f"valid options: {valid}"
        )
    try:
        return task.Options(**{k: v for k, v in raw.items() if k in names})
    except (TypeError, ValueError) as exc:
        raise UsageError(f"[tasks.{task.metadata.name}]: {exc}") from None
