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

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, Outcome, Progress
from polyprobe.builders.task import Shared, Task
from polyprobe.builders.text.family import TextFamily, raw_text_hash, split_dropped
from polyprobe.hashing import stable_u64
from polyprobe.loaders.records import Sentence

__all__ = ["TopUpFamily", "run_top_up", "top_up_split"]

TOP_UP_RATIOS = (80, 10, 10)


def top_up_split(sentence: Sentence) -> int:
    """0/1/2 (train/validation/test) for a Wikipedia sentence, 80/10/10 by its text."""
    text = sentence.text or ""
    bucket = stable_u64("top-up split", raw_text_hash(text)) % 100
    return 0 if bucket < TOP_UP_RATIOS[0] else (1 if bucket < sum(TOP_UP_RATIOS[:2]) else 2)


@dataclass(frozen=True)
class TopUpFamily:
    """The treebanks' sentences, then at most ``limit`` kept Wikipedia sentences."""

    treebank: Any  # TreebankFamily
    text: TextFamily
    limit: int | None = None

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        return self.treebank.open_tasks(names)

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


def treebank_text_hashes(family: Any) -> frozenset[int]:
    """The duplicate identities of every treebank sentence (read once)."""
    from polyprobe.builders.rendering import text_hash

    return frozenset(text_hash(s) for s in family.records("skip", Counter()))


def run_top_up(
    treebank_family: Any,
    names: Sequence[str],
    dumps: Sequence[str | os.PathLike[str]],
    options: BuildOptions,
    *,
    split: Any,
    staging: Path,
    jobs: int,
    progress: Progress | None,
    limit: int | None = None,
) -> Outcome:
    """Build ``names`` from the treebanks, the text-only ones topped up from ``dumps``."""
    from polyprobe.builders.registry import TEXT_TASKS, family_tasks
    from polyprobe.builders.stream import run_record_tasks
    from polyprobe.builders.text.family import SentenceFilter
    from polyprobe.loaders.segmentation import Segmenter
    from polyprobe.loaders.wikisource import WikiDumpSource

    text_only = {cls.metadata.name for cls in TEXT_TASKS}
    annotated = [n for n in names if n not in text_only]
    topped = [n for n in names if n in text_only]
    lang = treebank_family.lang
    segmenter = Segmenter(lang)
    sources = tuple(WikiDumpSource(Path(p), segmenter) for p in dumps)
    text = TextFamily(
        sources=sources,
        lang=lang,
        seed=options.seed,
        min_per_class=options.min_per_class,
        split=split,
        tasks=family_tasks("ud"),
        sentence_filter=SentenceFilter(),
        exclude=treebank_text_hashes(treebank_family),
    )
    outcomes: list[Outcome] = []
    if annotated:
        outcomes.append(
            run_record_tasks(
                treebank_family,
                annotated,
                options,
                split=split,
                staging=staging,
                jobs=jobs,
                progress=progress,
            )
        )
    top: Outcome | None = None
    if topped:
        top = run_record_tasks(
            TopUpFamily(treebank_family, text, limit),
            topped,
            options,
            split=split,
            staging=staging,
            jobs=jobs,
            progress=progress,
        )
        outcomes.append(top)
    merged = _merge(outcomes, names)
    invalid, dropped = split_dropped(merged.skipped)
    merged.skipped = invalid
    shares = _shares(staging, top, [s.name for s in sources]) if top else {}
    merged.parameters["top_up"] = {
        "dumps": [s.name for s in sources],
        "tasks": topped,
        "max_sentences": limit,
        "wikipedia_split": "80/10/10 by a stable hash of the text",
        "segmentation": segmenter.describe(),
        "sentences_dropped": dropped,
        "rows_by_source": shares,
        "note": "some encoders were trained on Wikipedia text",
    }
    if top is not None:
        merged.parameters["top_up"]["duplicates"] = dict(top.duplicates)
    return merged


def _merge(outcomes: list[Outcome], names: Sequence[str]) -> Outcome:
    assembled = {a.name: a for o in outcomes for a in o.assembled}
    recipes = {r["name"]: r for o in outcomes for r in o.recipes}
    first = outcomes[0]
    profile = dict(first.profile)
    profile["tasks"] = {k: v for o in outcomes for k, v in o.profile.get("tasks", {}).items()}
    skipped: Counter[str] = Counter()
    for o in outcomes:
        skipped.update(o.skipped)
    return Outcome(
        assembled=[assembled[n] for n in names],
        recipes=[recipes[n] for n in names],
        profile=profile,
        parameters=dict(first.parameters),
        skipped=dict(skipped),
        duplicates=dict(first.duplicates),
        split=first.split,
    )


def _shares(staging: Path, top: Outcome, dumps: list[str]) -> dict[str, dict[str, int]]:
    """Rows per source ("treebanks" or the dump's name) of each text-only config."""
    import pyarrow.parquet as pq

    out: dict[str, dict[str, int]] = {}
    for assembled in top.assembled:
        for card in assembled.cards:
            name = card.payload.name
            counts: Counter[str] = Counter()
            for f in sorted((staging / "data" / name).glob("*.parquet")):
                for rid in pq.read_table(f, columns=["id"]).column("id").to_pylist():
                    source = rid.split("/", 1)[0]
                    counts[source if source in dumps else "treebanks"] += 1
            out[name] = dict(sorted(counts.items()))
    return out
