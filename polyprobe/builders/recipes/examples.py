"""The record family of sources whose records are :class:`~polyprobe.loaders.records.Example`s
(downstream benchmarks, labelled or scored pairs): any such sources, any tasks that read
examples, on the shared record stream (:mod:`polyprobe.builders.execution.stream`).

Why a family of its own: example sources differ in their files, not in how their records
are named. An example's row group is ``<source>/<id>`` of the first example with the same
normalised input text (so duplicates never straddle splits), its split is the one its source
gives (``train``/``dev``/``test``), and every example source reads under the build's one
``--on-invalid`` policy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.builders.task import Shared, Task, TaskContext
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Example
from polyprobe.loaders.source import InvalidPolicy, Source

_SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}


def example_text_hash(example: Example) -> int:
    """An example's duplicate identity: its inputs, NFC and whitespace-normalised."""
    return stable_u64("text", normalise_text("\t".join(example.inputs)))


@dataclass(frozen=True)
class ExampleFamily:
    """Example sources read in the order given, with the tasks that may be built from them.

    ``tasks`` maps task names to classes; ``profile`` is a checked ``--profile`` file
    (:func:`polyprobe.builders.profile.checked_profile`, with its ``file`` name), whose
    ``[tasks.<name>]`` tables are the tasks' options; the card records it."""

    sources: tuple[Source[Example], ...]
    tasks: Mapping[str, type[Task[Any]]]
    context: TaskContext
    profile: Mapping[str, Any] = field(default_factory=dict)

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        tables = self.profile.get("tasks", {})
        tasks = [self.tasks[n].configure(tables.get(n, {}), self.context) for n in names]
        derived: dict[str, Any] = {"lang": self.context.lang, "tasks": {}}
        if self.profile:
            derived["overrides"] = dict(self.profile)
        return tasks, derived

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Example]:
        policy = InvalidPolicy(on_invalid, skipped)
        for source in self.sources:
            yield from source.records(policy)

    def identity(self, example: Example) -> tuple[str, str, int]:
        source = example.source
        return source.treebank, example.id, _SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, example: Example, shared: Shared) -> int:
        return shared.get(example_text_hash)

    def describe_input(self) -> str:
        return ", ".join(s.name for s in self.sources)
