"""Word similarity sets as scored word-pair tasks, one task (config) per pair set.

Why a task class is made per set: a similarity file's sets are only known once it is read
(Multi-SimLex gives a set per language, per POS and per language pair), and each set must be
its own config with its own description, scale and notes, which is what ``TaskMetadata``
carries. A set's task keeps the examples of its own set (``SourceFile.treebank`` is the set's
name) and ignores the others; every row is a test row (an evaluation set has no training
part), so the engine's natural variant is the whole set.
"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.loaders.records import Example
from polyprobe.loaders.similarity import PairSet
from polyprobe.metadata import Level, TaskMetadata

CITATIONS = {
    "simlex999": "Hill, Reichart & Korhonen (2015). SimLex-999: Evaluating Semantic Models "
    "with (Genuine) Similarity Estimation. Computational Linguistics 41(4).",
    "simlex965": "Panchenko et al. (2016). Human and Machine Judgements for Russian Semantic "
    "Relatedness. AIST 2016.",
    "semeval17": "Camacho-Collados et al. (2017). SemEval-2017 Task 2: Multilingual and "
    "Cross-lingual Semantic Word Similarity. SemEval 2017.",
    "finnsim": "Venekoski & Vankka (2017). Finnish resources for evaluating language model "
    "semantics. NoDaLiDa 2017.",
    "simlex999-translations": "Venekoski & Vankka (2017). Finnish resources for evaluating "
    "language model semantics. NoDaLiDa 2017.",
    "multisimlex": "Vulić et al. (2020). Multi-SimLex: A Large-Scale Evaluation of "
    "Multilingual and Crosslingual Lexical Semantic Similarity. Computational Linguistics "
    "46(4).",
}


class SimilarityTask(Task[Example]):
    """Label = the set's similarity score for the word pair (a float on the set's scale)."""

    metadata: ClassVar[TaskMetadata]
    languages: ClassVar[tuple[str, ...]] = ()
    scale: ClassVar[str] = ""

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        # ``name``, not the metadata's: a suite may publish the set under another name
        # (``similarity-multisimlex-fi-en`` beside a dictionary's ``multisimlex-fi-en``)
        if example.source.treebank != self.name:
            return []  # another set of the same build
        w1, w2 = example.inputs
        return [
            Candidate(
                {"word1": w1, "word2": w2},
                "",
                id=example.id,
                score=example.score,
            )
        ]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        langs = self.languages
        return {
            "languages": "-".join(langs) if langs else "not declared",
            "scale": self.scale,
            "label": "similarity score (float32)",
            "split": "every pair in test (an evaluation set)",
        }


def similarity_task(pair_set: PairSet) -> type[SimilarityTask]:
    """The task class of one pair set."""
    family = next(
        (k for k in sorted(CITATIONS, key=len, reverse=True) if pair_set.name.startswith(k)), ""
    )
    cross = len(pair_set.languages) == 2
    meta = TaskMetadata(
        name=pair_set.name,
        level=Level.WORD_PAIR,
        description=(
            f"{pair_set.description}: how similar are the two words? The label is the "
            f"set's graded similarity score (scale {pair_set.scale})"
            + ("; word1 and word2 are in different languages." if cross else ".")
        ),
        labels_derived=f"the set's similarity score, scale {pair_set.scale}",
        citation=CITATIONS.get(family, ""),
        task_type="lexical",
        record="example",
        scored=True,
        notes=pair_set.notes,
    )
    attrs = {"metadata": meta, "languages": pair_set.languages, "scale": pair_set.scale}
    return type(f"Similarity[{pair_set.name}]", (SimilarityTask,), attrs)


def similarity_tasks(pair_set: PairSet) -> list[type[SimilarityTask]]:
    return [similarity_task(pair_set)]
