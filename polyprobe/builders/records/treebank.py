"""A treebank's sentences as a stream's records (:class:`~polyprobe.builders.family.
Records`): the sentences of every treebank in the order given, named by treebank and
``sent_id``, split by the file they come from, cut into contiguous ranges at ``# newdoc``
documents so that N processes each read 1/N of them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.rendering import text_hash as sentence_text_hash
from polyprobe.builders.task import Shared
from polyprobe.builders.variants import SplitSpec, parse_split
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence

SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}


@dataclass(frozen=True)
class TreebankRecords:
    """The sentences of ``sources`` (``TreebankSource``): plain values, so a worker process
    can receive them."""

    sources: tuple[Any, ...]

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        from polyprobe.loaders.sources import read_sources

        # Builders never change a word: the reader may share its feature dicts.
        return read_sources(self.sources, on_invalid=on_invalid, skipped=skipped, shared_dicts=True)

    def part_records(
        self, on_invalid: str, skipped: Counter[str], part: int, parts: int
    ) -> Iterator[Sentence]:
        """The records of the part-th (0-based) of ``parts`` contiguous ranges of
        :meth:`records`, cut at ``# newdoc`` documents (or anywhere in a file without them):
        ``parts`` processes each read one range instead of every process reading all
        (:func:`~polyprobe.loaders.sources.record_parts`). The ranges in order are exactly
        :meth:`records`, skips and errors included."""
        from polyprobe.loaders.sources import read_sources

        return read_sources(
            self.sources,
            on_invalid=on_invalid,
            skipped=skipped,
            shared_dicts=True,
            part=part,
            parts=parts,
        )

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        source = sentence.source
        return source.treebank, sentence.sent_id, SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return shared.get(sentence_text_hash)

    def describe_input(self) -> str:
        return ", ".join(src.path for src in self.sources)


def capitalisation(records: TreebankRecords) -> dict[str, Any]:
    """The language facts a treebank build derives (capitalisation, from a prefix of the
    sentences; :func:`~polyprobe.builders.profile.derive_capitalisation`)."""
    from polyprobe.builders.profile import derive_capitalisation
    from polyprobe.loaders.sources import read_sources

    return derive_capitalisation(read_sources(records.sources, on_invalid="skip", lazy=True))


def treebank_split(split: str | None, sources: Sequence[Any]) -> SplitSpec:
    """``--split`` if given (``ud`` needs train, dev and test in every treebank), else the
    treebanks' own splits when every one has all three, else ratio 80/10/10 (and why)."""
    lacking = [s.name for s in sources if not {"train", "dev", "test"} <= set(s.splits)]
    if split is not None:
        spec = parse_split(split)
        if spec.mode == "ud":
            if lacking:
                raise UsageError(
                    "--split ud needs train, dev and test files in every treebank; "
                    f"missing in: {', '.join(lacking)} (use --split ratio:80/10/10)"
                )
            return SplitSpec("ud", reason="requested with --split ud")
        return SplitSpec(spec.mode, spec.ratios, reason="requested with --split")
    if not lacking:
        return SplitSpec("ud", reason="every input treebank has train, dev and test files")
    return SplitSpec(
        "ratio",
        (80, 10, 10),
        reason="not every treebank has train, dev and test files ("
        + ", ".join(
            f"{s.name}: {'+'.join(sorted(s.splits)) or 'none'}"
            for s in sources
            if s.name in lacking
        )
        + "), so polyprobe re-splits by ratio 80/10/10",
    )
