"""A downstream task on translated text: the English task, run on the English records, with
each row's text replaced by its translation.

Why wrap instead of reading translated records: a translated benchmark must keep the English
build's labels, splits, groups and drops, or its scores are not comparable with the English
ones. Duplicates, train copies of test questions and groups are decided on the English text
(two questions that only became identical in translation stay two groups; an English
duplicate stays one group even if translated two ways). Only the inputs change: the
translation and its whitespace tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.records import Example

DROP_UNTRANSLATED = "no translation (skipped with --on-invalid skip)"


class TranslatedTask:
    """``inner`` with its rows' text replaced by ``translations[example.id]``. Everything
    else (metadata, options, fit, drops) is the inner task's."""

    def __init__(self, inner: Task[Any], translations: Mapping[str, str]) -> None:
        self.inner = inner
        self.translations = translations

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet: a copy or an unpickling is making this object
            raise AttributeError(name)
        return getattr(self.inner, name)

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        text = self.translations.get(example.id)
        if text is None:
            return self.inner.drop(DROP_UNTRANSLATED)
        out = self.inner.candidates(example, fit, shared)
        for candidate in out:
            candidate.inputs = {**candidate.inputs, "sentence": text, "tokens": text.split()}
        return out

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {**self.inner.parameters(fit), "text": "translation of the English question"}
