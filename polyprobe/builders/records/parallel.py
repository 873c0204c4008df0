"""One language of a parallel build as a stream's records: its treebank's sentences, or its
aligned texts tokenised, each carrying its *document's* split.

Why the document's split, drawn from the document id alone
(:func:`polyprobe.loaders.parallel.document_split`): the same content is probed in every
language, so a sentence in train in one language and its translation in test in another would
leak. Every language's stream puts a document, and so every translation of its sentences, in
the same split, for every seed.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.records.rawtext import DROPPED, TextRecords, raw_language
from polyprobe.builders.records.treebank import SPLIT_CODE, capitalisation
from polyprobe.builders.task import Shared
from polyprobe.loaders.aligned_text import AlignedText
from polyprobe.loaders.parallel import document_split
from polyprobe.loaders.raw_records import raw_sentence
from polyprobe.loaders.records import Sentence, SourceFile
from polyprobe.loaders.segmentation import Segmenter

__all__ = [
    "AlignedTextRecords",
    "LanguageRecords",
    "segmenter_source",
    "text_language",
    "treebank_language",
]

DOCUMENT_RATIOS = (80, 10, 10)


def with_document_split(sentence: Sentence) -> Sentence:
    """The sentence with its split replaced by its document's: a new record, the read one is
    left as it is (builders never change a record)."""
    split = document_split(sentence.doc_id or sentence.sent_id, DOCUMENT_RATIOS)
    source = dataclasses.replace(sentence.source, split=split)
    return dataclasses.replace(sentence, source=source)


@dataclass(frozen=True)
class LanguageRecords:
    """One language's records (``sentences``: :class:`~.treebank.TreebankRecords` or
    :class:`AlignedTextRecords`) with their document's split. They read in ranges when the
    language's records do: the split is a function of each record alone."""

    sentences: Any

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        return map(with_document_split, self.sentences.records(on_invalid, skipped))

    def part_records(
        self, on_invalid: str, skipped: Counter[str], part: int, parts: int
    ) -> Iterator[Sentence]:
        read = self.sentences.part_records(on_invalid, skipped, part, parts)
        return map(with_document_split, read)

    def can_be_cut(self) -> bool:
        inner = self.sentences
        check = getattr(inner, "can_be_cut", None)
        cut = callable(getattr(inner, "part_records", None))
        return cut and (not callable(check) or bool(check()))

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        # The split is the document's (set by ``records``), whatever the language's says.
        return sentence.source.treebank, sentence.sent_id, SPLIT_CODE[sentence.source.split]

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return int(self.sentences.text_hash(sentence, shared))

    def describe_input(self) -> str:
        return str(self.sentences.describe_input())


@dataclass(frozen=True)
class _SegmenterOnly:
    """What :class:`TextRecords` asks of its first source: a name and a segmenter."""

    name: str
    segmenter: Segmenter


def segmenter_source(lang: str, tokenizer: str = "auto") -> _SegmenterOnly:
    return _SegmenterOnly(f"tokenizer-{lang}", Segmenter(lang, tokenizer=tokenizer))


@dataclass(frozen=True)
class AlignedTextRecords(TextRecords):
    """One language's aligned texts, tokenised into raw ``Sentence`` records (record id =
    the item id, document = the item's document): a line of a parallel file is one sentence
    already, so no sentence filter applies. Plain values, so a worker can receive them."""

    items: tuple[AlignedText, ...] = ()

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        segmenter = self.segmenter()
        for item in self.items:
            tokens = segmenter.tokens(item.text)
            if not tokens:
                skipped[DROPPED + "no tokens"] += 1
                continue
            source = SourceFile(item.source.treebank, item.source.path, None)
            yield raw_sentence(
                tokens, item.text, item.id, item.doc_id, source, item.line, self.nouns
            )


def treebank_language(records: LanguageRecords) -> dict[str, Any]:
    """A treebank language's facts, as ``build ud`` derives them (capitalisation)."""
    return capitalisation(records.sentences)


def text_language(records: LanguageRecords) -> dict[str, Any]:
    """A text language's facts, as the raw-text builds derive them."""
    return raw_language(records.sentences)
