"""The example family of a translated downstream set: the English records, tasks that emit
their rows' translations (:class:`~polyprobe.builders.downstream.translated.TranslatedTask`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.builders.downstream.translated import TranslatedTask
from polyprobe.builders.recipes.examples import ExampleFamily


@dataclass(frozen=True)
class TranslatedExamples(ExampleFamily):
    """An example family whose tasks emit translated text (see :class:`TranslatedTask`)."""

    translations: Mapping[str, str] = field(default_factory=dict)

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Any], dict[str, Any]]:
        tasks, derived = super().open_tasks(names)
        return [TranslatedTask(t, self.translations) for t in tasks], derived
