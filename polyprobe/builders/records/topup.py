"""``build ud ... --top-up DUMP``: the annotated tasks from the treebanks, the text-only tasks
from the treebanks *and* Wikipedia sentences (Wehner 2019 and Eger et al. 2020 topped up their
UD-built sets with Wikipedia for the tasks that need no annotation).

Rules, and why:

* **One group space.** A Wikipedia sentence's duplicate identity is computed exactly as a
  treebank sentence's (NFC, whitespace-normalised text), so identical texts share a group
  whichever source they come from; and a Wikipedia sentence equal to a treebank sentence is
  dropped outright (counted), so no treebank sentence can reach another split through
  Wikipedia.
* **Splits.** Treebank sentences keep their UD split; a Wikipedia sentence gets train,
  validation or test 80/10/10 by a stable hash of its text (so duplicates agree), and the
  variant engine's UD mode then drops anything whose group or lexical key an earlier split
  already holds.
* **Shares.** The card records, per text-only config, how many rows come from each source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.family import Stream
from polyprobe.builders.records.rawtext import TextRecords, raw_text_hash
from polyprobe.builders.records.treebank import TreebankRecords
from polyprobe.builders.task import Shared
from polyprobe.hashing import stable_u64
from polyprobe.loaders.records import Sentence

__all__ = ["TopUpRecords", "top_up_split", "treebank_text_hashes", "rows_by_source"]

TOP_UP_RATIOS = (80, 10, 10)


def top_up_split(sentence: Sentence) -> int:
    """0/1/2 (train/validation/test) for a Wikipedia sentence, 80/10/10 by its text."""
    text = sentence.text or ""
    bucket = stable_u64("top-up split", raw_text_hash(text)) % 100
    return 0 if bucket < TOP_UP_RATIOS[0] else (1 if bucket < sum(TOP_UP_RATIOS[:2]) else 2)


@dataclass(frozen=True)
class TopUpRecords:
    """The treebanks' sentences, then at most ``limit`` kept Wikipedia sentences."""

    treebank: TreebankRecords
    text: TextRecords
    limit: int | None = None

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        yield from self.treebank.records(on_invalid, skipped)
        for n, sentence in enumerate(self.text.records(on_invalid, skipped)):
            if self.limit is not None and n >= self.limit:
                break
            yield sentence

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        if sentence.source.split is not None:  # a treebank file's split
            return self.treebank.identity(sentence)
        return sentence.source.treebank, sentence.sent_id, top_up_split(sentence)

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return self.treebank.text_hash(sentence, shared)

    def describe_input(self) -> str:
        return f"{self.treebank.describe_input()}, {self.text.describe_input()}"


def treebank_text_hashes(records: TreebankRecords) -> frozenset[int]:
    """The duplicate identities of every treebank sentence (read once)."""
    from polyprobe.builders.rendering import text_hash

    return frozenset(text_hash(s) for s in records.records("skip", Counter()))


def rows_by_source(
    staging: Path, assembled_tasks: Sequence[Any], dumps: list[str]
) -> dict[str, dict[str, int]]:
    """Rows per source ("treebanks" or the dump's name) of each text-only config."""
    import pyarrow.parquet as pq

    out: dict[str, dict[str, int]] = {}
    for assembled in assembled_tasks:
        for card in assembled.cards:
            name = card.payload.name
            counts: Counter[str] = Counter()
            for f in sorted((staging / "data" / name).glob("*.parquet")):
                for rid in pq.read_table(f, columns=["id"]).column("id").to_pylist():
                    source = rid.split("/", 1)[0]
                    counts[source if source in dumps else "treebanks"] += 1
            out[name] = dict(sorted(counts.items()))
    return out


def top_up_streams(
    treebanks: TreebankRecords,
    dumps: Sequence[Any],
    names: Sequence[str],
    limit: int | None,
    given: Mapping[str, Mapping[str, Any]],
) -> list[Stream]:
    """The annotated tasks of ``names`` on the treebanks, the text-only ones on the
    treebanks and then the dumps' sentences (``dumps``: ``WikiDumpSource`` with the build's
    segmenter; a sentence equal to a treebank sentence is left out). Both streams' tasks
    take the treebanks' language facts."""
    from polyprobe.builders.records.rawtext import SentenceFilter
    from polyprobe.builders.records.treebank import capitalisation
    from polyprobe.builders.suites import TEXT_TASKS

    text_only = {cls.metadata.name for cls in TEXT_TASKS}
    annotated = tuple(n for n in names if n not in text_only)
    topped = tuple(n for n in names if n in text_only)
    text = TextRecords(
        sources=tuple(dumps),
        sentence_filter=SentenceFilter(),
        exclude=treebank_text_hashes(treebanks),
    )
    streams = []
    if annotated:
        streams.append(Stream(treebanks, annotated, given=given, language=capitalisation))
    if topped:
        streams.append(
            Stream(
                TopUpRecords(treebanks, text, limit),
                topped,
                given=given,
                language=lambda records: capitalisation(records.treebank),
            )
        )
    return streams


def top_up_parameters(
    outcome: Any, staging: Path, dumps: Sequence[Any], limit: int | None
) -> dict[str, Any]:
    """The card's ``top_up`` entry: which tasks, the dumps' drops and segmentation, rows per
    source of each topped config (the topped stream is the one whose records are a
    :class:`TopUpRecords`: the last sentence stream)."""
    from polyprobe.builders.records.rawtext import split_dropped
    from polyprobe.builders.suites import TEXT_TASKS

    invalid, dropped = split_dropped(outcome.skipped)
    outcome.skipped = invalid
    text_only = {cls.metadata.name for cls in TEXT_TASKS}
    topped = next(
        (o for o in outcome.streams if any(a.name in text_only for a in o.assembled)), None
    )
    names = [s.name for s in dumps]
    entry: dict[str, Any] = {
        "dumps": names,
        "tasks": [a.name for a in topped.assembled] if topped else [],
        "max_sentences": limit,
        "wikipedia_split": "80/10/10 by a stable hash of the text",
        "segmentation": dumps[0].segmenter.describe(),
        "sentences_dropped": dropped,
        "rows_by_source": rows_by_source(staging, topped.assembled, names) if topped else {},
        "note": "some encoders were trained on Wikipedia text",
    }
    if topped is not None:
        entry["duplicates"] = dict(topped.duplicates)
    return entry
