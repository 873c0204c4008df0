"""Word analogy sets as tasks: one config with every question of a set (``<set>``, label =
the question's category) and one config per category (``<set>-<category>``).

Why every config of a set has the whole category list as its ``ClassLabel``: a question's
label means the same in every config of the dataset (``capital-world`` is id 1 everywhere),
so results per category can be joined across configs; a category config simply has zero rows
of the others. Whether each category is semantic or morphological is part of the task's fit
report (the card's profile, which evaluation reads), and of each config's recipe.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.loaders.analogies import AnalogySet
from polyprobe.loaders.records import Example
from polyprobe.metadata import Level, TaskMetadata

MIKOLOV_2013 = (
    "Mikolov, Chen, Corrado & Dean (2013). Efficient Estimation of Word Representations in "
    "Vector Space. ICLR workshop."
)
FINSEMEVL = (
    "Venekoski & Vankka (2017). Finnish resources for evaluating language model semantics. "
    "NoDaLiDa 2017."
)
ULCAR_2020 = (
    "Ulčar, Vaik, Lindström, Dailidėnaitė & Robnik-Šikonja (2020). Multilingual "
    "Culture-Independent Word Analogy Datasets. LREC 2020."
)


class CategoryCounts(Observation):
    """Questions per category of the task's set: the first pass, whose fit report is the
    card's profile entry (categories with their sizes and kinds: what evaluation reads)."""

    def __init__(self, set_name: str) -> None:
        self.set_name = set_name
        self.counts: Counter[str] = Counter()

    def observe(self, example: Example, shared: Shared) -> None:
        if example.source.treebank == self.set_name:
            self.counts[example.label or ""] += 1

    def merge(self, later: Observation) -> None:
        assert isinstance(later, CategoryCounts) and later.set_name == self.set_name
        self.counts.update(later.counts)  # later's new categories after this one's, as one pass


class AnalogyTask(Task[Example]):
    """Label = the question's category; inputs a : b :: c : d (d the answer)."""

    metadata: ClassVar[TaskMetadata]
    set_name: ClassVar[str]
    category: ClassVar[str | None]  # None: every category
    semantic: ClassVar[dict[str, bool]]
    languages: ClassVar[tuple[str, ...]] = ()  # cross-lingual: (word1/word2's, word3/word4's)

    def observation(self) -> CategoryCounts:
        return CategoryCounts(self.set_name)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, CategoryCounts)
        cats = self.metadata.labels or ()
        report = {
            "categories": {
                c: {"is_semantic": self.semantic[c], "questions": observation.counts[c]}
                for c in cats
            },
            "semantic": [c for c in cats if self.semantic[c]],
            "morphological": [c for c in cats if not self.semantic[c]],
        }
        if self.languages:  # what evaluation reads to search word4 in the second language
            l1, l2 = self.languages
            report["cross_lingual"] = {
                "languages": [l1, l2],
                "direction": f"{l1} -> {l2}",
                "answer_candidates": f"the {l2} words of the set (word3 and word4)",
            }
        return Fit(label_names=tuple(cats), report=report)

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if example.source.treebank != self.set_name:
            return []
        label = example.label or ""
        if self.category is not None and label != self.category:
            return []
        a, b, c, d = example.inputs
        return [Candidate({"word1": a, "word2": b, "word3": c, "word4": d}, label, id=example.id)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": "word1 is to word2 as word3 is to word4 (word4 the answer)",
            "split": "every question in test (an evaluation set)",
        }
        if self.languages:
            out["languages"] = (
                f"word1, word2: {self.languages[0]}; word3, word4: {self.languages[1]}"
            )
        if self.category is None:
            out["semantic categories"] = [c for c in fit.label_names if self.semantic[c]]
            out["morphological categories"] = [c for c in fit.label_names if not self.semantic[c]]
        else:
            out["category"] = self.category
            out["is_semantic"] = self.semantic[self.category]
        return out


def _citation(name: str) -> str:
    if name.startswith("google"):
        return MIKOLOV_2013
    if name.startswith("finsemevl"):
        return FINSEMEVL
    return ""


def config_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)


def analogy_tasks(aset: AnalogySet) -> list[type[AnalogyTask]]:
    """The set's tasks: all its questions, then one per category (in file order)."""
    out = []
    for category in (None, *aset.categories):
        name = aset.name if category is None else f"{aset.name}-{config_safe(category)}"
        if category is None:
            what = f"all {len(aset.categories)} categories"
        else:
            kind = "semantic" if aset.semantic[category] else "morphological"
            what = f"category {category} ({kind})"
        cross = (
            f" word1 and word2 are {aset.languages[0]}, word3 and word4 {aset.languages[1]}; "
            f"word4 is searched among the set's {aset.languages[1]} words."
            if aset.languages
            else ""
        )
        meta = TaskMetadata(
            name=name,
            level=Level.WORD_ANALOGY,
            description=f"Word analogies of {aset.name}, {what}: word1 is to word2 as word3 "
            "is to word4. Evaluated by 3CosAdd/3CosMul: is word4 the nearest word to "
            "word2 - word1 + word3 (question words excluded)? The label is the category." + cross,
            labels=tuple(aset.categories),
            citation=ULCAR_2020
            if aset.languages and not _citation(aset.name)
            else _citation(aset.name),
            task_type="lexical",
            record="example",
            notes=aset.notes if category is None else (),
        )
        attrs = {
            "metadata": meta,
            "set_name": aset.name,
            "category": category,
            "semantic": dict(aset.semantic),
            "languages": tuple(aset.languages),
        }
        out.append(type(f"Analogy[{name}]", (AnalogyTask,), attrs))
    return out
