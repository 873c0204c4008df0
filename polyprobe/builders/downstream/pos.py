"""``pos``: token-level UPOS tagging from any UD treebank (LINSPECTOR's POS downstream task).

One row per syntactic word that is a surface token of its own (level ``word-in-context``:
the sentence, its tokens, ``target_index``), labelled with its UPOS. Every token of a sentence
is a row, as in tagging; the rows of a sentence share its ``group``, so a sentence (and every
sentence with the same text) is in one split: group-aware, never token-level, splits. No
lexical control: a tagger is evaluated on running text, where most word forms recur (the
control task of Hewitt & Liang, keyed by the target's form, is what measures memorisation).

Label set: every UPOS the corpus uses, most frequent first; the build's class floors drop the
rare ones (``X``, ``SYM`` in small treebanks), and the card says which.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.citations import UD_CITATION
from polyprobe.builders.downstream.tokens import DROP_IN_MWT, word_positions
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata


class UposObservation(Observation):
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        positions = shared.get(word_positions)
        self.counts.update(w.upos for w in sentence.words if w.id in positions)

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences): counts add up, tags new here after
        the known ones (first-occurrence order, as one pass)."""
        assert isinstance(later, UposObservation)
        self.counts.update(later.counts)


class PosTagging(Task[Sentence]):
    """Label = the UPOS of one token; every token of the sentence is a row."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="pos",
        level=Level.WORD_IN_CONTEXT,
        description="Predict the universal part of speech (UPOS) of the target token in its "
        "sentence (token-level tagging: every token of a sentence is a row).",
        labels_derived="every UPOS of the corpus, most frequent first (class floors may drop "
        "rare ones)",
        citation=UD_CITATION,
        task_type="downstream",
        notes=(
            "Every syntactic word that is a surface token of its own is a row; words inside "
            "multiword tokens have no token to point at and are dropped (counted).",
            "A sentence's rows share its group: splits are by sentence, never by token.",
            "No lexical control (tagging is evaluated on running text); the evaluation's "
            "control task keys on the target form.",
        ),
    )
    reported: ClassVar[frozenset[str]] = frozenset({"upos_counts", "labels"})

    def observation(self) -> UposObservation:
        return UposObservation()

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, UposObservation)
        ranked = sorted(observation.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        labels = tuple(upos for upos, _ in ranked)
        if len(labels) < 2:
            return Fit(label_names=labels, infeasible="fewer than two UPOS in the corpus")
        return Fit(label_names=labels, report={"upos_counts": dict(ranked), "labels": list(labels)})

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {"label": "UPOS of the target token", "rows": "every token"}

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        positions = shared.get(word_positions)
        base = sentence_inputs(sentence)
        out: list[Candidate] = []
        for word in sentence.words:
            index = positions.get(word.id)
            if index is None:
                self.drops[DROP_IN_MWT] += 1
                continue
            inputs: dict[str, Any] = {**base, "target_index": index}
            out.append(Candidate(inputs, word.upos, copy=str(index)))
        return out
