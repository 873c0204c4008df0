"""Token sequences with token-level annotation as a stream's records: entity-tagged
sentences (:class:`~polyprobe.loaders.iob.TaggedSentence`) and CoNLL-2009 SRL sentences
(:class:`~polyprobe.loaders.conll09.SrlSentence`), both with ``id``, ``tokens`` and
``source``.

Why their own kind: they are neither treebank sentences (no UD words to index) nor
examples (labels per token or token pair, not per item). A sentence is named ``<file>/<line>``, its split
is its file's (from the file name), and its duplicate identity is its tokens joined by single
spaces, NFC and whitespace-normalised: a sentence repeated verbatim (WikiANN has many) puts
all its copies in one group, so no token of it is on both sides of a split.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.records.treebank import SPLIT_CODE
from polyprobe.builders.task import Shared
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.iob import TaggedSentence
from polyprobe.loaders.source import InvalidPolicy


def tagged_text_hash(sentence: TaggedSentence) -> int:
    """A tagged sentence's duplicate identity: its tokens, space-joined and normalised."""
    return stable_u64("text", normalise_text(" ".join(sentence.tokens)))


@dataclass(frozen=True)
class TaggedRecords:
    """The sentences of ``sources`` (``IobSource``, ``Conll09Source``) in the order given,
    under the build's one policy."""

    sources: tuple[Any, ...]

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[TaggedSentence]:
        policy = InvalidPolicy(on_invalid, skipped)
        for source in self.sources:
            yield from source.records(policy)

    def identity(self, sentence: TaggedSentence) -> tuple[str, str, int]:
        source = sentence.source
        return source.treebank, sentence.id, SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, sentence: TaggedSentence, shared: Shared) -> int:
        return shared.get(tagged_text_hash)

    def describe_input(self) -> str:
        return ", ".join(str(s.path) for s in self.sources)
