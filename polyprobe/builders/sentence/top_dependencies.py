"""``top_dependencies``: the UD stand-in for SentEval's TopConst.

TopConst labels a sentence by the sequence of top constituents under the root of its
constituency tree (``NP VP .``). UD has no constituents; the closest analogue is the sequence
of the root's dependents' relations in word order, with the root itself marked, e.g.
``nsubj ROOT obj punct``.
"""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.sentence.word_content import DEFAULT_FLOORS, SplitFloors
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.loaders.records import Sentence

OTHER = "OTHER"
ROOT = "ROOT"
DEFAULT_MAX_CLASSES = 19

DROP_FRAGMENT = "fragment (root without non-punct dependents)"
DROP_INTERNAL_PUNCT = "internal punct dependent of the root"


def root_sequence(sentence: Sentence) -> tuple[str | None, str | None]:
    """(label sequence, None) or (None, drop reason) for one sentence.

    The sequence lists the root's dependents' relations without subtypes (``nsubj:pass`` ->
    ``nsubj``) and ``ROOT`` at the root's own position, in word order.

    Excluded:

    * fragments: a root with no dependent other than ``punct`` ("Thanks." gives ``ROOT
      punct``, which says nothing about clause structure);
    * a ``punct`` dependent of the root that is not part of the sentence-final punctuation,
      i.e. not in the run of PUNCT surface tokens that ends the sentence. Commas, dashes,
      colons, brackets and quotation marks inside or at the start of the sentence attach to
      the root in some annotation styles and not in others, and they multiply the sequences;
      final punctuation (``.``, ``?!``, a closing quote after the period) is kept as ``punct``.
    """
    # Runs twice per sentence (observation and candidates), so in one pass over the root's
    # dependents: relations without a subtype (most) are their own base, and since the
    # dependents come in word order the first punct one is the leftmost.
    root_id = sentence.root.id
    parts: list[str] = []
    root_done = False
    content = False
    first_punct = 0
    for d in sentence.children(root_id):
        dep_id = d.id
        rel = d.deprel
        if ":" in rel:
            rel = rel.split(":", 1)[0]
        if rel != "punct":
            content = True
        elif not first_punct:
            first_punct = dep_id
        if not root_done and dep_id > root_id:
            parts.append(ROOT)
            root_done = True
        parts.append(rel)
    if not content:
        return None, DROP_FRAGMENT
    if first_punct:
        tokens = sentence.surface_tokens()
        final_start = len(tokens)
        while final_start > 0 and tokens[final_start - 1].upos == "PUNCT":
            final_start -= 1
        if final_start == len(tokens) or first_punct < tokens[final_start].word_ids[0]:
            return None, DROP_INTERNAL_PUNCT
    if not root_done:
        parts.append(ROOT)
    return " ".join(parts), None


class TopDependencies(Task):
    """Label = the root's dependency sequence if it is one of the most frequent ones, else
    ``OTHER``.

    Classes: the (up to) 19 most frequent sequences that reach ``--min-per-class`` in every
    split (see :class:`~polyprobe.builders.sentence.word_content.SplitFloors`), plus ``OTHER``
    for every other qualifying sentence — SentEval's 19 + 1 design. ``OTHER`` is 71-89% of the
    natural data on the shared treebanks, so the recommended (balanced) variant, whose
    undersampling equalises every class, caps ``OTHER`` at one class's share.

    ``label_names`` is a placeholder on the class: :meth:`derive` sets the instance's
    ``label_names`` (the sequences in frequency order, then ``OTHER``), and the pipeline reads
    the instance's label names after ``derive()``.

    Profile options (``[tasks.top_dependencies]``): ``max_classes`` (19), ``sequences`` (a
    fixed list of sequences; the floors still decide feasibility of OTHER), and from the
    pipeline ``min_per_class`` and ``split``.
    """

    name: ClassVar[str] = "top_dependencies"
    relative_cost: ClassVar[float] = 1.8
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the sequence of relations of the root's dependents (with the root's position "
        "marked, e.g. 'nsubj ROOT obj punct') among the most frequent ones, or OTHER."
    )
    # Placeholder: the real label names (sequences + OTHER) are set on the instance by derive().
    label_names: ClassVar[tuple[str, ...]] = ()
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "UD stand-in for SentEval's TopConst: the label is the sequence of the root's "
        "dependents' relations (subtypes removed: nsubj:pass -> nsubj) in word order, with "
        "ROOT at the root's position.",
        "Dropped: fragments (the root has no dependent other than punct) and sentences whose "
        "root has a punct dependent outside the sentence-final run of punctuation tokens.",
        "Classes: the up to 19 most frequent sequences with at least min-per-class items in "
        "every split, plus OTHER for all remaining qualifying sentences. OTHER dominates the "
        "natural variant; the balanced variant caps it at one class's share.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_classes = int(self.option("max_classes", DEFAULT_MAX_CLASSES))
        fixed = self.option("sequences", None)
        self.fixed_sequences: list[str] | None = list(fixed) if fixed is not None else None
        self.floors = SplitFloors(
            self.option("min_per_class", DEFAULT_FLOORS), self.option("split")
        )
        self._ids: dict[str, int] = {}
        self._seq = array("i")  # per observed sentence: sequence id, -1 if excluded
        self._drops: Counter[str] = Counter()
        # Derived state.
        self.derived: dict[str, Any] | None = None
        self.infeasible: str | None = None
        self.classes: dict[str, int] = {}

    def parameters(self) -> dict[str, Any]:
        return {
            "sequence": "relations of the root's dependents (no subtypes) in word order, ROOT "
            "at the root's position",
            "exclude": [
                "root without non-punct dependents",
                "punct dependent of the root outside the sentence-final punctuation run",
            ],
            "max_classes": self.max_classes,
            "other_label": OTHER,
            "min_per_class": list(self.floors.floors),
        }

    def observe(self, sentence: Sentence) -> None:
        self.floors.add(sentence)
        seq, reason = root_sequence(sentence)
        if seq is None:
            self._seq.append(-1)
            self._drops[str(reason)] += 1
        else:
            self._seq.append(self._ids.setdefault(seq, len(self._ids)))

    def derive(self) -> dict[str, Any]:
        self.floors.finish()
        seq = (
            np.frombuffer(self._seq, dtype=np.int32).astype(np.int64)
            if self._seq
            else (np.zeros(0, dtype=np.int64))
        )
        names = list(self._ids)
        total = np.bincount(seq[seq >= 0], minlength=len(names))
        table = self.floors.table(seq, len(names))
        passing = self.floors.passing(table)
        order = sorted(range(len(names)), key=lambda i: (-int(total[i]), names[i]))
        qualifying = int((seq >= 0).sum())
        out: dict[str, Any] = {
            "sentences": int(seq.size),
            "qualifying": qualifying,
            "excluded": dict(sorted(self._drops.items())),
            "distinct_sequences": len(names),
            **self.floors.describe(),
        }
        if self.fixed_sequences is not None:
            chosen = [s for s in self.fixed_sequences if s != OTHER]
            out["sequences_source"] = "profile"
        else:
            chosen = [names[i] for i in order if passing[i]][: self.max_classes]
            out["sequences_source"] = "derived"
            out["sequences_meeting_floors"] = int(passing.sum())
        out["top_sequences"] = {names[i]: int(total[i]) for i in order[:25]}
        index = {s: i for i, s in enumerate(chosen)}
        other = len(chosen)
        cls = np.full(seq.size, -1, dtype=np.int64)
        for s, i in index.items():
            if s in self._ids:
                cls[seq == self._ids[s]] = i
        cls[(seq >= 0) & (cls < 0)] = other
        final = self.floors.table(cls, other + 1)
        ok = self.floors.passing(final)
        counts = np.bincount(cls[cls >= 0], minlength=other + 1)
        if not chosen:
            self.infeasible = (
                "no root sequence has min-per-class "
                f"{'/'.join(map(str, self.floors.floors))} items in every split"
            )
        elif not ok[other]:
            self.infeasible = "OTHER is below min-per-class in some split"
        else:
            self.infeasible = None
        if self.infeasible is not None:
            self.classes = {}
            self.label_names = ()  # type: ignore[misc]
            out.update({"feasible": False, "infeasible": self.infeasible})
        else:
            self.classes = index
            self.label_names = (*chosen, OTHER)  # type: ignore[misc]
            out.update(
                {
                    "feasible": True,
                    "label_names": list(self.label_names),
                    "class_counts": {
                        n: int(c) for n, c in zip(self.label_names, counts.tolist(), strict=True)
                    },
                    "other_share": round(float(counts[other]) / max(qualifying, 1), 4),
                    "classes_below_floors": [
                        n for n, good in zip(self.label_names, ok.tolist(), strict=True) if not good
                    ],
                }
            )
        self.derived = out
        return out

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self.derived is None:
            raise RuntimeError("top_dependencies: call observe() on every sentence, then derive()")
        if self.infeasible is not None:
            return self.drop(f"task infeasible: {self.infeasible}")
        seq, reason = root_sequence(sentence)
        if seq is None:
            return self.drop(str(reason))
        label = seq if seq in self.classes else OTHER
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
