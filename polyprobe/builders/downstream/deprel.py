"""``deprel``: dependency arc labelling from any UD treebank (LINSPECTOR's parsing downstream
task, as arc classification): given a sentence, a dependent and its head, predict the
relation.

Level ``arc``: the sentence, its tokens, ``target_index`` (the dependent) and ``head_index``
(its head). One row per arc whose dependent and head are both surface tokens of their own;
the root (no head token) is not a row. Labels are universal relations (``nmod:poss`` counts as
``nmod``) unless ``subtypes = true``: subtypes are language-specific, and the point of the task
is a label space comparable across languages. A sentence's rows share its group.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import UD_CITATION
from polyprobe.builders.downstream.tokens import DROP_IN_MWT, word_positions
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.records import Sentence, Word
from polyprobe.metadata import Level, TaskMetadata

DROP_HEAD_IN_MWT = "head inside a multiword token"


@dataclass(frozen=True)
class DeprelOptions:
    """``subtypes``: keep language-specific subtypes (``nmod:poss``) as their own labels."""

    subtypes: bool = False


def relation(word: Word, subtypes: bool) -> str:
    return word.deprel if subtypes else word.deprel.split(":", 1)[0]


class DeprelObservation(Observation):
    def __init__(self, subtypes: bool) -> None:
        self.subtypes = subtypes
        self.counts: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        positions = shared.get(word_positions)
        self.counts.update(
            relation(w, self.subtypes)
            for w in sentence.words
            if w.head and w.id in positions and w.head in positions
        )

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences): counts add up, relations new here
        after the known ones (first-occurrence order, as one pass)."""
        assert isinstance(later, DeprelObservation)
        if later.subtypes != self.subtypes:
            raise ValueError("cannot merge deprel observations with and without subtypes")
        self.counts.update(later.counts)


class DeprelLabelling(Task[Sentence]):
    """Label = the relation of one arc (dependent + head); every non-root arc is a row."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="deprel",
        level=Level.ARC,
        description="Predict the dependency relation between the target token and its head "
        "token in the sentence (arc labelling: every non-root arc is a row).",
        labels_derived="every relation of the corpus (universal relations unless subtypes), "
        "most frequent first (class floors may drop rare ones)",
        citation=UD_CITATION,
        task_type="downstream",
        notes=(
            "One row per arc whose dependent and head are surface tokens of their own; the "
            "root has no head token and is not a row; arcs touching a multiword token are "
            "dropped (counted).",
            "A sentence's rows share its group: splits are by sentence, never by arc.",
        ),
    )
    Options: ClassVar[type] = DeprelOptions
    reported: ClassVar[frozenset[str]] = frozenset({"relation_counts", "labels"})

    def observation(self) -> DeprelObservation:
        return DeprelObservation(self.options.subtypes)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, DeprelObservation)
        ranked = sorted(observation.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        labels = tuple(rel for rel, _ in ranked)
        if len(labels) < 2:
            return Fit(label_names=labels, infeasible="fewer than two relations in the corpus")
        return Fit(
            label_names=labels, report={"relation_counts": dict(ranked), "labels": list(labels)}
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "label": "relation of the target token to its head",
            "subtypes": self.options.subtypes,
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        positions = shared.get(word_positions)
        base = sentence_inputs(sentence)
        out: list[Candidate] = []
        for word in sentence.words:
            if not word.head:
                continue
            index = positions.get(word.id)
            if index is None:
                self.drops[DROP_IN_MWT] += 1
                continue
            head = positions.get(word.head)
            if head is None:
                self.drops[DROP_HEAD_IN_MWT] += 1
                continue
            inputs: dict[str, Any] = {**base, "target_index": index, "head_index": head}
            out.append(Candidate(inputs, relation(word, self.options.subtypes), copy=str(index)))
        return out
