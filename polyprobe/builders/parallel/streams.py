"""One stream per language of a parallel build: the language's records, its tasks published
as ``<task>-<lang>`` (configured as the task set's ``<task>``, so a profile's
``[tasks.tense]`` reaches ``tense-de``), that language's facts, and each row's
``sample_creation`` from what the inputs say about its item. The spine plans every
language's stream together onto the processes."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from typing import Any

from polyprobe.builders.family import Stream
from polyprobe.builders.parallel.facts import RowFacts
from polyprobe.builders.parallel.inputs import Reading
from polyprobe.builders.records.parallel import text_language, treebank_language
from polyprobe.builders.sample_creation import record_id
from polyprobe.builders.task import Task

__all__ = ["language_streams"]


def language_streams(reading: Reading, names: Sequence[str], from_text: bool) -> tuple[Stream, ...]:
    """A stream per language of ``reading`` (the pivot's first) with the tasks ``names``."""
    language = text_language if from_text else treebank_language
    return tuple(
        Stream(
            records,
            tuple(f"{n}-{lang}" for n in names),
            lang=lang,
            language=language,  # type: ignore[arg-type]
            task_of=partial(_unsuffixed, lang),
            adapt=_published_as,
            sample_creation=partial(_creation, reading.facts, lang),
        )
        for lang, records in reading.records
    )


def _unsuffixed(lang: str, published: str) -> str:
    return published.removesuffix(f"-{lang}")


def _published_as(published: str, task: Task[Any]) -> Task[Any]:
    """The configured task under its per-language config's name (an instance attribute; the
    class and every other build keep theirs)."""
    renamed = dataclasses.replace(task.metadata, name=published, config="")
    task.metadata = renamed  # type: ignore[misc]
    return task


def _creation(facts: RowFacts, lang: str, row_id: str) -> str:
    return facts.row_creation(lang, record_id(row_id))
