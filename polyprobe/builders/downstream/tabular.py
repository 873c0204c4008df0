"""Downstream tasks from user files (:mod:`polyprobe.loaders.tabular`): sentence
classification (``classification``: text + label) and sentence-pair classification
(``pairs``: two texts + label; NLI, PAWS, SICK-E, and ArgMin with its topic).

The label set is the file's, sorted (a benchmark's labels are its own; nothing is derived),
the row id is the file's (``<split>/<id or line>``), and a row's group is the first row with
the same normalised input(s), so a duplicated item never straddles splits.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.records import Example
from polyprobe.metadata import Level, TaskMetadata


class LabelObservation(Observation):
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def observe(self, example: Example, shared: Shared) -> None:
        self.counts[example.label or ""] += 1

    def merge(self, later: Observation) -> None:
        assert isinstance(later, LabelObservation)
        self.counts.update(later.counts)  # later's new labels after this one's, as one pass


class _FileLabels(Task[Example]):
    reported: ClassVar[frozenset[str]] = frozenset({"label_counts"})

    def observation(self) -> LabelObservation:
        return LabelObservation()

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, LabelObservation)
        labels = tuple(sorted(observation.counts))
        report = {"label_counts": dict(sorted(observation.counts.items()))}
        if len(labels) < 2:
            return Fit(label_names=labels, report=report, infeasible="fewer than two labels")
        return Fit(label_names=labels, report=report)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {"labels": "the file's, sorted", "rows": "one per file record"}


class Classification(_FileLabels):
    """Label = the file's label of one text."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="classification",
        level=Level.SENTENCE,
        description="Classify the sentence as the source file labels it.",
        labels_derived="the labels of the file(s), sorted",
        task_type="downstream",
        record="example",
    )

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        text = example.inputs[0]
        inputs = {"sentence": text, "tokens": text.split()}
        return [Candidate(inputs, example.label or "", id=example.id)]


class PairClassification(_FileLabels):
    """Label = the file's label of a pair of texts."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="pairs",
        level=Level.SENTENCE_PAIR,
        description="Classify the relation of the two sentences as the source file labels it.",
        labels_derived="the labels of the file(s), sorted",
        task_type="downstream",
        record="example",
    )

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        first, second = example.inputs
        return [
            Candidate({"sentence1": first, "sentence2": second}, example.label or "", id=example.id)
        ]


class PairRegression(Task[Example]):
    """Label = the file's graded score of a pair of texts (STS, SICK-R): a scored task."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="regression",
        level=Level.SENTENCE_PAIR,
        description="How similar (or related) are the two sentences? The label is the "
        "file's graded score.",
        labels_derived="the file's score (a float)",
        task_type="downstream",
        record="example",
        scored=True,
    )

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        first, second = example.inputs
        inputs = {"sentence1": first, "sentence2": second}
        return [Candidate(inputs, "", id=example.id, score=example.score)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {"label": "the file's score (float32)", "rows": "one per file record"}


TABULAR_TASKS: dict[str, type[Task[Any]]] = {
    "classification": Classification,
    "pairs": PairClassification,
    "regression": PairRegression,
}
