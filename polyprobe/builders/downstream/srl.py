"""``srl``: semantic role labelling from CoNLL-2009 files as predicate-argument rows.

One row per (predicate, argument) pair the file annotates (level ``arc``: the sentence as
its tokens joined by single spaces, the tokens, ``target_index`` = the argument token,
``head_index`` = its predicate), labelled with the role (``A0``, ``A1``, ``AM-TMP``, ...). A
sentence's rows share its group, so splits are by sentence. Only annotated pairs are rows
(argument identification is not part of the task: the probe classifies the role of a known
argument, as the deprel task classifies the relation of a known arc). Labels: every role of
the corpus, most frequent first (ties by name); natural variant and no class floor, as for
``ner`` (the family enforces it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.conll09 import SrlSentence
from polyprobe.metadata import Level, TaskMetadata


class RoleObservation(Observation):
    def __init__(self) -> None:
        self.roles: Counter[str] = Counter()
        self.predicates = 0
        self.sentences = 0

    def observe(self, sentence: SrlSentence, shared: Shared) -> None:
        self.roles.update(role for _, _, role in sentence.arguments)
        self.predicates += len(sentence.predicates)
        self.sentences += 1

    def merge(self, later: Observation) -> None:
        """Counts add up; roles new here follow the known ones (one pass's order)."""
        assert isinstance(later, RoleObservation)
        self.roles.update(later.roles)
        self.predicates += later.predicates
        self.sentences += later.sentences


class SemanticRoles(Task[SrlSentence]):
    """Label = the role of one argument token for one predicate."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="srl",
        level=Level.ARC,
        description="Predict the semantic role (CoNLL-2009 PropBank/NomBank style: A0, A1, "
        "AM-TMP, ...) of the target token for the predicate at head_index.",
        labels_derived="every role of the corpus, most frequent first",
        task_type="downstream",
        record="srl sentence",
        notes=(
            "One row per annotated (predicate, argument) pair: target_index is the argument, "
            "head_index the predicate; unannotated pairs are not rows.",
            "A sentence's rows share its group: splits are by sentence.",
        ),
    )
    reported: ClassVar[frozenset[str]] = frozenset({"role_counts", "labels"})

    def observation(self) -> RoleObservation:
        return RoleObservation()

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, RoleObservation)
        ranked = sorted(observation.roles.items(), key=lambda kv: (-kv[1], kv[0]))
        labels = tuple(role for role, _ in ranked)
        report = {
            "labels": list(labels),
            "role_counts": dict(ranked),
            "sentences": observation.sentences,
            "predicates": observation.predicates,
        }
        if len(labels) < 2:
            return Fit(label_names=labels, report=report, infeasible="fewer than two roles")
        return Fit(label_names=labels, report=report)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {"label": "role of the argument for the predicate", "rows": "annotated pairs"}

    def candidates(self, sentence: SrlSentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        tokens = list(sentence.tokens)
        base = {"sentence": " ".join(tokens), "tokens": tokens}
        return [
            Candidate({**base, "target_index": arg, "head_index": pred}, role, copy=f"{pred}-{arg}")
            for pred, arg, role in sentence.arguments
        ]
