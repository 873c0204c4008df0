"""COSTRA as tasks: the transformation pairs (``transformations``, all types, and one config
per type, ``transformations-<type>``), and the orderings the dataset asserts
(``comparisons``).

Why every transformation config has all types as its ``ClassLabel``: a type's id is then the
same in every config, so per-type results join across configs (as with analogy categories).
The rows of a seed share one ``group`` (``seed-<id>``): they are one family of sentences.
"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.costra import COMPARISONS_SET, SEED, TRANSFORMATIONS_SET, CostraSentence
from polyprobe.loaders.records import Example
from polyprobe.metadata import Level, TaskMetadata

CITATION = (
    "Barančíková & Bojar (2020). COSTRA 1.0: A Dataset of Complex Sentence Transformations. "
    "LREC 2020. Barančíková & Bojar (2020). Costra 1.1: An Inquiry into Geometric Properties "
    "of Sentence Spaces. TSD 2020."
)


class LabelSet(Observation):
    def __init__(self, set_name: str) -> None:
        self.set_name = set_name
        self.counts: dict[str, int] = {}

    def observe(self, example: Example, shared: Shared) -> None:
        if example.source.treebank == self.set_name:
            label = example.label or ""
            self.counts[label] = self.counts.get(label, 0) + 1

    def merge(self, later: Observation) -> None:
        """Take in the rows right after this observation's: the counts add up, and labels
        new to this observation follow its own in first-occurrence order (the fit's report
        keeps this order), as one pass would."""
        assert isinstance(later, LabelSet) and later.set_name == self.set_name
        for label, n in later.counts.items():
            self.counts[label] = self.counts.get(label, 0) + n


class CostraTask(Task[Example]):
    metadata: ClassVar[TaskMetadata]
    set_name: ClassVar[str]
    labels: ClassVar[tuple[str, ...]]
    only: ClassVar[str | None] = None

    def observation(self) -> LabelSet:
        return LabelSet(self.set_name)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, LabelSet)
        return Fit(label_names=self.labels, report={"rows": dict(observation.counts)})

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if example.source.treebank != self.set_name:
            return []
        label = example.label or ""
        if self.only is not None and label != self.only:
            return []
        if self.set_name == TRANSFORMATIONS_SET:
            seed, sentence = example.inputs
            inputs = {"sentence1": seed, "sentence2": sentence, "string_similarity": example.score}
            seed_id = example.id.split("/", 1)[0]
            return [Candidate(inputs, label, id=example.id, group=f"seed-{seed_id}")]
        s1, s2, s3, s4 = example.inputs
        inputs = {"sentence1": s1, "sentence2": s2, "sentence3": s3, "sentence4": s4}
        return [Candidate(inputs, label, id=example.id)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        out: dict[str, Any] = {"split": "every row in test (an evaluation set)"}
        if self.set_name == TRANSFORMATIONS_SET:
            out["string_similarity"] = (
                "Levenshtein ratio of sentence2 to its seed sentence1 "
                "(rapidfuzz Indel.normalized_similarity)"
            )
        else:
            out["row"] = "sentence1 should be closer to sentence2 than sentence3 to sentence4"
            out["labels"] = "basic:<type> (paraphrase vs <type>), annotated:<type> (columns 6-9)"
        if self.only is not None:
            out["transformation"] = self.only
        return out


def _task(
    name: str,
    level: Level,
    description: str,
    set_name: str,
    labels: tuple[str, ...],
    only: str | None,
) -> type[CostraTask]:
    meta = TaskMetadata(
        name=name,
        level=level,
        description=description,
        labels=labels,
        citation=CITATION,
        task_type="lexical",
        record="example",
    )
    attrs = {"metadata": meta, "set_name": set_name, "labels": labels, "only": only}
    return type(f"Costra[{name}]", (CostraTask,), attrs)


def costra_tasks(found: tuple[str, list[CostraSentence]]) -> list[type[CostraTask]]:
    """The tasks of one COSTRA set (``transformations`` or ``comparisons``)."""
    from polyprobe.loaders.costra import comparisons

    set_name, sentences = found
    if set_name == TRANSFORMATIONS_SET:
        types = tuple(
            dict.fromkeys(s.transformation for s in sentences if s.transformation != SEED)
        )
        out = [
            _task(
                "transformations",
                Level.SENTENCE_TRANSFORMATION,
                "COSTRA: a Czech seed sentence (sentence1) and one of its transformations "
                "(sentence2), with their string similarity; the label is the transformation "
                "type. Embeddings are judged by how close each type lies to the seed.",
                set_name,
                types,
                None,
            )
        ]
        for t in types:
            out.append(
                _task(
                    f"transformations-{t.replace(' ', '_')}",
                    Level.SENTENCE_TRANSFORMATION,
                    f"COSTRA: seed sentences and their '{t}' transformations, with their "
                    "string similarity.",
                    set_name,
                    types,
                    t,
                )
            )
        return out
    assert set_name == COMPARISONS_SET
    labels = tuple(comparisons(sentences))
    return [
        _task(
            "comparisons",
            Level.SENTENCE_COMPARISON,
            "COSTRA's orderings: sentence1 should be closer to sentence2 than sentence3 is to "
            "sentence4 (a paraphrase closer to its seed than another transformation; the "
            "annotators' comparisons). The label is the transformation the ordering tests.",
            set_name,
            labels,
            None,
        )
    ]
