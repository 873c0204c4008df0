"""``subject_verb_distance``: how far is the main verb from its subject?"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.predicates import base_relation
from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

# Wehner (2019), SVDist: [1], [2-4], [5-7], [8-12], >=13. ``None`` = open upper end.
BINS: tuple[tuple[int, int | None], ...] = ((1, 1), (2, 4), (5, 7), (8, 12), (13, None))
LABELS: tuple[str, ...] = ("1", "2-4", "5-7", "8-12", "13+")


def distance_bin(distance: int) -> str | None:
    """The label of a subject-verb distance (``None`` below 1, which a tree cannot produce)."""
    for (lo, hi), label in zip(BINS, LABELS, strict=True):
        if distance >= lo and (hi is None or distance <= hi):
            return label
    return None


class SubjectVerbDistance(Task[Sentence]):
    """Label = |root id - subject id| in syntactic-word ids, in Wehner's five bins.

    Wehner's recipe: a VERB root with exactly one ``nsubj``; passive subjects (``nsubj:pass``)
    excluded. Syntactic-word ids, not surface tokens: the distance is a fact of the tree, and a
    contraction (Spanish "del", English "don't") holds two words between which a subject and
    verb can lie. No lexical control (the label is not a word) and no perturbation.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="subject_verb_distance",
        level=Level.SENTENCE,
        description=(
            "Predict the distance, in words, between the main verb and its subject (5 bins)."
        ),
        labels=LABELS,
        citation=WEHNER_2019,  # Wehner 2019 / Eger et al. 2020
        notes=(
            "Candidates: the root is a VERB with exactly one nsubj-family dependent, and that "
            "dependent is plain nsubj (nsubj:pass excluded, as Wehner; other subtypes such as "
            "nsubj:outer dropped too).",
            "Distance = |root id - subject id| in syntactic-word ids (a multiword token such "
            "as Spanish 'del' is two words here); bins [1], [2-4], [5-7], [8-12], >=13 "
            "(Wehner 2019).",
        ),
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "root_upos": "VERB",
            "subject_relation": "nsubj (exactly one; nsubj:pass excluded)",
            "distance": "|root id - subject id| in syntactic-word ids",
            "bins": [[lo, hi] for lo, hi in BINS],
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        root = sentence.root
        if root.upos != "VERB":
            return self.drop("root is not a VERB")
        subjects = [w for w in sentence.children(root.id) if base_relation(w.deprel) == "nsubj"]
        if not subjects:
            return self.drop("no nsubj dependent of the root")
        if len(subjects) > 1:
            return self.drop("more than one subject")
        subj = subjects[0]
        if subj.deprel == "nsubj:pass":
            return self.drop("passive subject (nsubj:pass)")
        if subj.deprel != "nsubj":
            return self.drop("subject relation subtype other than pass")
        label = distance_bin(abs(root.id - subj.id))
        assert label is not None  # ids differ: a word is never its own dependent
        return [
            Candidate(
                sentence_inputs(sentence),
                label,
                copy="0",
            )
        ]
