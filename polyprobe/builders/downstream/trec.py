"""TREC question classification (Li & Roth 2002) as two downstream tasks, ``trec-coarse``
(config ``coarse``, 6 classes, the default) and ``trec-fine`` (config ``fine``, 50 classes,
``COARSE:fine`` names as found).

TREC is the downstream end of probing–downstream correlation: it is published in exactly the
form probing datasets take (same columns, ``ClassLabel`` labels, a ``polyprobe:`` block), so
that evaluation needs no special case. Splits are the source's own train/test; TREC has no
validation split, so evaluation does group-aware k-fold inside train (SentEval's protocol).

Duplicates and leakage. The source train file repeats questions (72 extra copies of 64
questions) and 10 of the 500 test questions occur verbatim in it. Within-train copies are kept
(they are the distribution as published) and share a ``group`` so that k-fold never puts copies
on both sides of a fold. The train copies of test questions are *dropped from train*: the test
set stays the standard 500 questions, so test accuracy remains comparable with published TREC
numbers, while no test question is seen in training and no group spans two splits. Dropping
from test instead would change the benchmark everyone reports on; keeping both would make a
downstream score partly memorisation.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import LI_ROTH_2002
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.hashing import normalise_text
from polyprobe.loaders.records import Example
from polyprobe.loaders.trec import COARSE_LABELS, FINE_LABELS
from polyprobe.metadata import Level, TaskMetadata

DROP_TEST_COPY = "train copy of a test question"
_NOTES = (
    "TREC has no validation split: evaluate with group-aware k-fold inside train "
    "(SentEval's protocol for TREC).",
    "Questions are as distributed: pre-tokenised (e.g. 'Modesto , California'); the tokens "
    "column holds their whitespace tokens.",
)


def question_text(example: Example) -> str:
    """A question's duplicate identity: NFC, whitespace-normalised text."""
    return normalise_text(example.inputs[0])


class TrecObservation(Observation):
    """Every question's normalised text and labels, per split (the files are small)."""

    def __init__(self) -> None:
        self.texts: dict[str, list[tuple[str, str, str]]] = {"train": [], "test": []}

    def observe(self, example: Example, shared: Shared) -> None:
        label = example.label or ""
        self.texts[example.source.split or ""].append(
            (shared.get(question_text), example.id, label)
        )

    def merge(self, later: Observation) -> None:
        """Take in the questions right after this observation's: each split's list goes on
        with ``later``'s, in order (the fit's first-seen groups then match one pass)."""
        assert isinstance(later, TrecObservation)
        for split, rows in later.texts.items():
            self.texts.setdefault(split, []).extend(rows)
        later.texts = {"train": [], "test": []}


@dataclass(frozen=True)
class TrecFit(Fit):
    test_texts: frozenset[str] = frozenset()
    # normalised text -> id of its first kept question (train first): the group of its copies
    group_of: dict[str, str] = field(default_factory=dict)


class TrecTask(Task[Example]):
    """One TREC label granularity; subclasses fix which."""

    coarse: ClassVar[bool]

    def label(self, example: Example) -> str:
        fine = example.label or ""
        return fine.split(":", 1)[0] if self.coarse else fine

    def observation(self) -> TrecObservation:
        return TrecObservation()

    def fit(self, observation: Observation | None) -> TrecFit:
        assert isinstance(observation, TrecObservation)
        train, test = observation.texts["train"], observation.texts["test"]
        test_texts = {t for t, _, _ in test}
        group_of: dict[str, str] = {}
        kept_labels: set[str] = set()
        labels_by_text: dict[str, set[str]] = defaultdict(set)
        for split, rows in (("train", train), ("test", test)):
            for text, rid, fine in rows:
                label = fine.split(":", 1)[0] if self.coarse else fine
                labels_by_text[text].add(label)
                if split == "train" and text in test_texts:
                    continue
                group_of.setdefault(text, rid)
                kept_labels.add(label)
        train_counts = Counter(t for t, _, _ in train)
        test_counts = Counter(t for t, _, _ in test)
        report = {
            "train_questions": len(train),
            "test_questions": len(test),
            "train_duplicate_copies": sum(c - 1 for c in train_counts.values()),
            "train_duplicated_questions": sum(1 for c in train_counts.values() if c > 1),
            "test_duplicate_copies": sum(c - 1 for c in test_counts.values()),
            "test_questions_also_in_train": sum(1 for t, _, _ in test if t in train_counts),
            "train_rows_dropped_as_test_copies": sum(1 for t, _, _ in train if t in test_texts),
        }
        conflicts = sorted(t for t, labs in labels_by_text.items() if len(labs) > 1)
        standard, unlike = self._standard_labels(kept_labels)
        report.update(standard)
        name = "coarse" if self.coarse else "fine"
        notes = (
            f"Leakage in the source: {report['test_questions_also_in_train']} of the "
            f"{len(test):,} test questions occur verbatim (NFC, whitespace-normalised) in the "
            f"{len(train):,}-question training file. Their "
            f"{report['train_rows_dropped_as_test_copies']} training copies are dropped, so no "
            "test question is seen in training; the test split is the standard one unchanged, "
            "so test accuracy stays comparable with published TREC results.",
            f"Duplicates within train: {report['train_duplicate_copies']} extra copies of "
            f"{report['train_duplicated_questions']} questions are kept as published; copies "
            "share one group, so group-aware folds never separate them.",
            *(f"Duplicate question with conflicting {name} labels: {t!r}." for t in conflicts),
            *unlike,
        )
        return TrecFit(
            label_names=tuple(sorted(kept_labels)),
            report=report,
            notes=notes,
            test_texts=frozenset(test_texts),
            group_of=group_of,
        )

    def _standard_labels(self, kept: set[str]) -> tuple[dict[str, list[str]], tuple[str, ...]]:
        """Report keys and a card note when the label set is not the benchmark's 6 / 50
        classes (e.g. from a smaller train file): results on it are not comparable with
        published TREC numbers, and the card must say so. Nothing when it is the standard
        set, so the cards of standard builds are unchanged."""
        standard = set(COARSE_LABELS if self.coarse else FINE_LABELS)
        missing, extra = sorted(standard - kept), sorted(kept - standard)
        if not missing and not extra:
            return {}, ()
        report = {"standard_labels_missing": missing} if missing else {}
        if extra:
            report["labels_outside_the_standard"] = extra
        name = "coarse" if self.coarse else "fine"
        count = f"{len(kept) - len(extra)} of the standard {len(standard)} {name} classes"
        note = (
            f"Not the standard label set: {count} of Li & Roth (2002)"
            + (f", and {len(extra)} outside it ({', '.join(extra)})" if extra else "")
            + (f"; missing: {', '.join(missing)}" if missing else "")
            + ". Results on this config are not comparable with published TREC numbers."
        )
        return report, (note,)

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, TrecFit)
        text = shared.get(question_text)
        if example.source.split == "train" and text in fit.test_texts:
            return self.drop(DROP_TEST_COPY)
        question = example.inputs[0]
        return [
            Candidate(
                {"sentence": question, "tokens": question.split()},
                self.label(example),
                id=example.id,
                group=fit.group_of[text],
            )
        ]

    def parameters(self, fit: Fit) -> dict[str, Any]:
        n = len(fit.label_names)
        return {
            "source": "original TREC files (train_5500.label, TREC_10.label)",
            "label": f"{'coarse' if self.coarse else 'fine'} question class ({n} classes)",
            "splits": "source train/test; no validation split",
            "train copies of test questions": "dropped",
            "train duplicates": "kept, one group per question",
        }


class TrecCoarse(TrecTask):
    coarse = True
    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="trec-coarse",
        config="coarse",
        level=Level.SENTENCE,
        description="TREC question type, 6 coarse classes (Li & Roth 2002): ABBR, DESC, ENTY, "
        "HUM, LOC, NUM.",
        labels_derived="the coarse classes of the questions kept (six in the standard files)",
        citation=LI_ROTH_2002,
        task_type="downstream",
        record="example",
        notes=_NOTES,
    )


class TrecFine(TrecTask):
    coarse = False
    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="trec-fine",
        config="fine",
        level=Level.SENTENCE,
        description="TREC question type, 50 fine classes (Li & Roth 2002), named COARSE:fine.",
        labels_derived="the COARSE:fine classes of the questions kept (50 in the standard files)",
        citation=LI_ROTH_2002,
        task_type="downstream",
        record="example",
        notes=_NOTES,
    )


TREC_TASKS: tuple[type[TrecTask], ...] = (TrecCoarse, TrecFine)
