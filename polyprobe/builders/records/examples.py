"""Sources of :class:`~polyprobe.loaders.records.Example` records (downstream benchmarks,
labelled or scored pairs, lexical sets) as a stream's records.

Why one kind for every example source: example sources differ in their files, not in how
their records are named. An example's row group is ``<source>/<id>`` of the first example
with the same normalised input text (so duplicates never straddle splits), its split is the
one its source gives (``train``/``dev``/``test``), and every example source reads under the
build's one ``--on-invalid`` policy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.records.treebank import SPLIT_CODE
from polyprobe.builders.task import Shared
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Example
from polyprobe.loaders.source import InvalidPolicy, Source


def example_text_hash(example: Example) -> int:
    """An example's duplicate identity: its inputs, NFC and whitespace-normalised."""
    return stable_u64("text", normalise_text("\t".join(example.inputs)))


@dataclass(frozen=True)
class ExampleRecords:
    """Example sources read in the order given."""

    sources: tuple[Source[Example], ...]

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Example]:
        policy = InvalidPolicy(on_invalid, skipped)
        for source in self.sources:
            yield from source.records(policy)

    def identity(self, example: Example) -> tuple[str, str, int]:
        source = example.source
        return source.treebank, example.id, SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, example: Example, shared: Shared) -> int:
        return shared.get(example_text_hash)

    def describe_input(self) -> str:
        return ", ".join(s.name for s in self.sources)


def file_splits(files: Sequence[Any]) -> SplitSpec:
    """User files' own splits (a split column, or ``SPLIT=PATH``) when every file has them,
    else ratio 80/10/10; a mix is refused (some rows would have no split)."""
    given = [s.split is not None or "split" in s.columns for s in files]
    if all(given):
        return SplitSpec("ud", reason="the files' own splits", source_label="source")
    if any(given):
        raise UsageError(
            "some files have splits (a split column or SPLIT=PATH) and some not: give "
            "every file its split, or none (then rows are split 80/10/10 by ratio)"
        )
    return SplitSpec("ratio", (80, 10, 10), reason="the files give no splits: ratio 80/10/10")
