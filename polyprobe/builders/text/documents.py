"""Raw-text documents (Wikipedia articles, blank-line separated plain-text documents) as a
document source of the discourse tasks (:class:`~polyprobe.builders.discourse.family.
DocumentFamily`), beside the sentence stream of :mod:`polyprobe.builders.text.family`.

What it decides, and why:

* **The same sentences as the sentence tasks**: a sentence the source marks (template hole,
  markup left) or the build's :class:`SentenceFilter` refuses (too short, no final
  punctuation: list items, captions) is not a unit of the document either
  (:func:`~polyprobe.builders.text.family.sentence_verdict`, one rule for both streams).
* **Gaps, not new documents**: a dropped sentence does not cut the article into documents
  of their own; the article stays one record (one id, one group, so it never straddles
  splits) whose :attr:`~polyprobe.loaders.records.Document.breaks` mark where a sentence is
  missing, and no window of neighbours (sentence position, ordering, coherence) spans one.
  A window must never join two sentences that were not adjacent on the page.
* **Names**: a unit's id is the sentence's index on the page (dropped ones counted), as the
  sentence tasks' ``<doc id>/<index>``; rows name the page and the window's first sentence.
* **Sections**: Wikipedia's section titles go with each unit (the lead untitled), which
  makes ``sentence_section`` feasible; plain text has none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.text.family import DROPPED, SentenceFilter, sentence_verdict
from polyprobe.loaders.records import Document
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

__all__ = ["LINES_NO_DOCUMENTS", "RAW_TEXT_DEFAULTS", "RawDocumentSource", "has_documents"]

LINES_NO_DOCUMENTS = (
    "the text source is one sentence per line (--layout lines), so no sentence is known to "
    "follow another: there are no documents (use --layout documents: documents separated by "
    "blank lines)"
)

# Every window of an article rather than DiscoEval's first (sentence position, binary
# sentence ordering; coherence takes every window by default, as DiscoEval does): the first
# window gives one row per article, and a dump excerpt (the shared English one: 103 articles with running text) then
# falls below the class floors of every split (about 10 rows per class in validation). A full
# dump has millions of articles: a profile's ``[tasks.<name>] windows = 1`` (and
# ``per_document = 1``) restores DiscoEval's choice there. Sentence section takes as many lead
# and body sentences of each article as its shorter part has (``per_document = 0``).
RAW_TEXT_DEFAULTS: dict[str, dict[str, int]] = {
    "sentence_position": {"windows": 0},
    "binary_sentence_ordering": {"windows": 0},
    "discourse_coherence": {"windows": 0},
    "sentence_section": {"per_document": 0},
}


def has_documents(source: Any) -> bool:
    """Whether a raw-text source has documents of more than one sentence in it (a
    sentence-per-line text source has none)."""
    return getattr(source, "layout", "documents") != "lines"


@dataclass(frozen=True)
class RawDocumentSource:
    """A raw-text source's documents as :class:`Document` records of kept sentences.

    ``source`` is a :class:`~polyprobe.loaders.wikisource.WikiDumpSource`, a
    :class:`~polyprobe.builders.text.shards.TokenizedSource` (a dump read back from its
    shards) or a :class:`~polyprobe.loaders.plaintext.PlainTextSource`. Dropped sentences are
    counted into the policy's tally as ``dropped: <reason>`` (as the sentence stream does,
    so a build with only discourse tasks still reports its drops)."""

    source: Any
    sentence_filter: SentenceFilter

    @property
    def name(self) -> str:
        return str(self.source.name)

    @property
    def info(self) -> SourceInfo:
        info: SourceInfo = self.source.info
        return info

    def records(self, policy: InvalidPolicy) -> Iterator[Document]:
        segmenter = self.source.segmenter
        keep = self.sentence_filter
        tally: Counter[str] = policy.skipped
        for raw in self.source.documents(policy):
            drops = []
            for sentence in raw.sentences:
                reason, _ = sentence_verdict(sentence, segmenter, keep)
                if reason is not None:
                    tally[DROPPED + reason] += 1
                drops.append(reason)
            document = raw.document("sentence", drops)
            if document.units:
                yield document
