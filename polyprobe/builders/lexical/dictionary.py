"""Bilingual dictionaries as tasks: one config per dictionary, level ``word-translation``
(word1 in the source language, word2 its translation), label = the part of speech where the
source gives it. Rows are split by source word (the row's ``lexical_key``), so no source word
is in both train and test: a mapping fitted on train is judged on words it never saw.
"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.hashing import lexical_key
from polyprobe.loaders.dictionary import POS_LABELS, Dictionary
from polyprobe.loaders.records import Example
from polyprobe.metadata import Level, TaskMetadata


class DictionaryTask(Task[Example]):
    metadata: ClassVar[TaskMetadata]
    set_name: ClassVar[str]
    languages: ClassVar[tuple[str, str]]

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if example.source.treebank != self.set_name:
            return []
        src, tgt = example.inputs
        return [
            Candidate(
                {"word1": src, "word2": tgt},
                example.label or "unknown",
                id=example.id,
                lexical_key=f"{self.languages[0]}:{lexical_key(src)}",
            )
        ]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "source language": self.languages[0],
            "target language": self.languages[1],
            "split": "by source word (lexical_key): no source word in two splits",
        }


def dictionary_tasks(d: Dictionary) -> list[type[DictionaryTask]]:
    meta = TaskMetadata(
        name=d.name,
        level=Level.WORD_TRANSLATION,
        description=f"{d.description}: word2 translates word1 ({d.source_lang} → "
        f"{d.target_lang}). Evaluated by a mapping fitted on train (orthogonal Procrustes) "
        "and precision@1/5/10 on test, by nearest neighbour and CSLS. The label is the part "
        "of speech where the source gives it.",
        labels=POS_LABELS,
        task_type="lexical",
        record="example",
        lexical_control=True,
    )
    attrs = {"metadata": meta, "set_name": d.name, "languages": (d.source_lang, d.target_lang)}
    return [type(f"Dictionary[{d.name}]", (DictionaryTask,), attrs)]
