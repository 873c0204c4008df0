"""Published probing sets (SentEval-style files, X-Probe, SentEval's STS) as tasks, one task
(config) per set of :mod:`polyprobe.loaders.senteval`.

Why a task class per set: a build's sets are only known once its inputs are found, and each
is its own config with its own name and label set, which is what ``TaskMetadata`` carries. A
set's task keeps the examples of its own set (``SourceFile.treebank`` is the set's name) and
ignores the others.

Labels are the files' own: a set's label names are its labels in numeric order when every one
is an integer (SentEval's ``sentence_length`` 0-5, ``tree_depth`` 5-11: string order would put
``10`` before ``5``), else sorted. The sentence is published as given and its ``tokens`` are
its whitespace-separated fields, which is how SentEval reads the field (``line.split()``).

A text in two splits (cross-split duplicates): published sets have them, SentEval's own among
them, and a set re-published with them dropped is no longer the set its published numbers are
on; nor would ``export --format senteval`` -> ``build senteval`` give back the exported rows
(the export writes a row's tokens, so ``Goodluck!`` and ``Good luck!`` become one text; and
two sentences differing only in case can perturb to one text, ``Take Care``/``Take care`` ->
``Care take``, which the original build kept apart, grouping rows by their source sentence).
So by default (``duplicates="keep"``) every row is its own group and stays in its file's
split, and the audit *reports* them: ``cross_split_duplicates`` in the fit report (rows of
validation/test whose normalised text an earlier split holds). ``duplicates="drop"`` groups
rows by their normalised text, so the engine drops such rows from the later split, counted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Example
from polyprobe.loaders.senteval import ProbingSet
from polyprobe.metadata import Level, TaskMetadata

LAYOUT_NAMES = {
    "senteval": "a SentEval probing file (tr|va|te TAB label TAB sentence)",
    "xprobe": "X-Probe split files (tr.txt, va.txt, te.txt: sentence TAB label)",
    "sts": "SentEval's STS layout (STS.input/STS.gs)",
}
DUPLICATES = ("keep", "drop")
SPLIT_ORDER = ("train", "dev", "test")
REPORT_SPLITS = {"dev": "validation", "test": "test"}
NO_SCORE = "no gold score (an empty line of the STS.gs file; SentEval drops the pair too)"


def label_order(labels: Any) -> tuple[str, ...]:
    """Integer labels in numeric order, any other label set sorted."""
    names = list(labels)
    try:
        return tuple(sorted(names, key=int))
    except ValueError:
        return tuple(sorted(names))


class _Labels(Observation):
    """A set's label counts, and per split the multiset of its normalised texts (the audit of
    cross-split duplicates)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.counts: Counter[str] = Counter()
        self.texts: dict[str, Counter[int]] = {s: Counter() for s in SPLIT_ORDER}

    def observe(self, example: Example, shared: Shared) -> None:
        if example.source.treebank == self.name:
            self.counts[example.label or ""] += 1
            split = example.source.split or ""
            if split in self.texts:
                self.texts[split][_text_key(example.inputs[0])] += 1

    def merge(self, later: Observation) -> None:
        assert isinstance(later, _Labels)
        self.counts.update(later.counts)
        for split, texts in later.texts.items():
            self.texts[split].update(texts)

    def cross_split(self) -> dict[str, int]:
        """Rows of validation and test whose normalised text an earlier split holds."""
        seen: set[int] = set()
        out = {}
        for split in SPLIT_ORDER:
            texts = self.texts[split]
            if split in REPORT_SPLITS:
                out[REPORT_SPLITS[split]] = sum(n for t, n in texts.items() if t in seen)
            seen.update(texts)
        return out


def _text_key(text: str) -> int:
    return stable_u64("text", normalise_text(text))


class ProbingFileTask(Task[Example]):
    """Label = the file's label of the sentence."""

    metadata: ClassVar[TaskMetadata]
    layout: ClassVar[str] = "senteval"
    duplicates: ClassVar[str] = "keep"  # see the module docstring
    reported: ClassVar[frozenset[str]] = frozenset({"label_counts", "cross_split_duplicates"})

    def observation(self) -> _Labels:
        return _Labels(self.name)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, _Labels)
        labels = label_order(observation.counts)
        report = {
            "label_counts": {k: observation.counts[k] for k in labels},
            "cross_split_duplicates": observation.cross_split(),
        }
        if len(labels) < 2:
            return Fit(label_names=labels, report=report, infeasible="fewer than two labels")
        return Fit(label_names=labels, report=report)

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        # ``name``, not the metadata's: a suite may publish the set under another name
        if example.source.treebank != self.name:
            return []  # another set of the same build
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        text = example.inputs[0]
        inputs = {"sentence": text, "tokens": text.split()}
        group = example.id if self.duplicates == "keep" else None  # None: the text's group
        return [Candidate(inputs, example.label or "", id=example.id, group=group)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "input": LAYOUT_NAMES[self.layout],
            "labels": "the file's (numeric order when all are integers, else sorted)",
            "splits": "the file's (tr -> train, va -> validation, te -> test)",
            "tokens": "the sentence split on whitespace (as SentEval reads it)",
            "cross_split_duplicates": (
                "kept in their splits and counted (the set as published)"
                if self.duplicates == "keep"
                else "dropped from the later split and counted"
            ),
        }


class StsTask(Task[Example]):
    """Label = the gold similarity score of the sentence pair (a float)."""

    metadata: ClassVar[TaskMetadata]
    layout: ClassVar[str] = "sts"

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        if example.source.treebank != self.name:
            return []
        if example.score is None:
            return self.drop(NO_SCORE)
        first, second = example.inputs
        inputs = {"sentence1": first, "sentence2": second}
        return [Candidate(inputs, "", id=example.id, score=example.score)]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "input": LAYOUT_NAMES["sts"],
            "label": "the STS.gs score (float32)",
            "split": "every pair in test (SentEval evaluates STS12-16 without training)",
        }


def probing_file_tasks(found: ProbingSet, duplicates: str = "keep") -> list[type[Task[Example]]]:
    """The task class of one set (``duplicates``: see the module docstring)."""
    where = LAYOUT_NAMES[found.layout]
    if found.scored:
        meta = TaskMetadata(
            name=found.name,
            level=Level.SENTENCE_PAIR,
            description=f"How similar are the two sentences? The label is the gold score of "
            f"{where}.",
            labels_derived="the STS.gs gold score (a float, 0-5 in STS12-16)",
            task_type="downstream",
            record="example",
            scored=True,
            citation="Conneau & Kiela (2018). SentEval: An Evaluation Toolkit for Universal "
            "Sentence Representations. LREC 2018.",
        )
        attrs: dict[str, Any] = {"metadata": meta}
        return [type(f"Sts[{found.name}]", (StsTask,), attrs)]
    meta = TaskMetadata(
        name=found.name,
        level=Level.SENTENCE,
        description=f"Classify the sentence as {where} labels it (set {found.name!r}).",
        labels_derived="the labels of the file(s): numeric order when all are integers, else "
        "sorted",
        task_type="probing",
        record="example",
    )
    attrs = {"metadata": meta, "layout": found.layout, "duplicates": duplicates}
    return [type(f"ProbingFile[{found.name}]", (ProbingFileTask,), attrs)]
