"""Graded word similarity in context (CoSimLex / SemEval-2020 Task 3) as a scored task: one
config per set, one row per (word pair, context), label = the pair's mean similarity in that
context.

Why a row per context rather than per pair: the level's inputs are one context's text,
tokens and the two words' indices (``word-pair-in-context``), what an encoder reads; the
pair's two rows share ``group`` (the pair's line), so SemEval's subtask 1 (the change
between the two contexts) is computed per group, and a split or bootstrap never separates
them. The row id ends ``/context1`` or ``/context2``: the change is context2 - context1.
"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.cosimlex import COSIMLEX_CITATION, ContextPair
from polyprobe.loaders.records import Example
from polyprobe.metadata import Level, TaskMetadata


class InContextTask(Task[Example]):
    """Label = the mean similarity the annotators gave the pair in this context."""

    metadata: ClassVar[TaskMetadata]

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if example.source.treebank != self.name:
            return []
        sentence, tokens, index1, index2 = example.inputs
        pair = example.id.rsplit("/", 1)[0]
        inputs = {
            "sentence": sentence,
            "tokens": tokens.split(" "),
            "index1": int(index1),
            "index2": int(index2),
        }
        return [Candidate(inputs, "", id=example.id, group=f"pair-{pair}", score=example.score)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "row": "two words of one context: tokens[index1], tokens[index2]",
            "label": "the pair's mean similarity in this context (float32)",
            "group": "a pair's two contexts share it; row ids end /context1, /context2",
            "split": "every row in test (an evaluation set)",
        }


def in_context_tasks(found: tuple[str, list[ContextPair]]) -> list[type[InContextTask]]:
    name, pairs = found
    meta = TaskMetadata(
        name=name,
        level=Level.WORD_PAIR_IN_CONTEXT,
        description=f"Graded word similarity in context ({name}, {len(pairs)} pairs, two "
        "contexts each): how similar are tokens[index1] and tokens[index2] as used in this "
        "context? The label is the annotators' mean score. Evaluated as SemEval-2020 Task 3: "
        "the change between a pair's two contexts (uncentred Pearson) and the similarity in "
        "each context (Spearman, Pearson).",
        labels_derived="the pair's mean similarity in the context (CoSimLex scale 0-6)",
        citation=COSIMLEX_CITATION,
        task_type="lexical",
        record="example",
        scored=True,
    )
    return [type(f"InContext[{name}]", (InContextTask,), {"metadata": meta})]
