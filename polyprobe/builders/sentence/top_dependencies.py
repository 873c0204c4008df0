"""``top_dependencies``: the UD stand-in for SentEval's TopConst.

TopConst labels a sentence by the sequence of top constituents under the root of its
constituency tree (``NP VP .``). UD has no constituents; the closest analogue is the sequence
of the root's dependents' relations in word order, with the root itself marked, e.g.
``nsubj ROOT obj punct``.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.merging import extend_remapped, merge_ids
from polyprobe.builders.rendering import sentence_inputs, text_hash
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, SplitEstimate, Task
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

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


def _bad(key: str, why: str) -> UsageError:
    return UsageError(f"[tasks.top_dependencies] {key} {why}")


@dataclass(frozen=True)
class TopDependenciesOptions:
    """Options of ``[tasks.top_dependencies]``; the defaults are the recipe the card describes.

    * ``max_classes`` (19): at most this many sequences become classes (the most frequent
      ones that reach the class floors), plus ``OTHER``: SentEval's TopConst had 19 + 1.
    * ``sequences`` (None = derived): a fixed list of sequences (``"nsubj ROOT obj punct"``)
      instead; ``OTHER`` in it is ignored, and the class floors still decide whether ``OTHER``
      is feasible.
    """

    max_classes: int = DEFAULT_MAX_CLASSES
    sequences: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        n = self.max_classes
        whole = (isinstance(n, int) and not isinstance(n, bool)) or (
            isinstance(n, float) and n.is_integer()
        )
        if not whole or n < 1:
            raise _bad("max_classes", f"must be a positive whole number, not {n!r}")
        object.__setattr__(self, "max_classes", int(n))
        if self.sequences is not None:
            seqs = self.sequences
            if isinstance(seqs, (str, bytes, Mapping)):
                raise _bad("sequences", f"must be a list of sequences, not {seqs!r}")
            try:
                items = tuple(seqs)
            except TypeError:
                raise _bad("sequences", f"must be a list of sequences, not {seqs!r}") from None
            bad = [s for s in items if not isinstance(s, str) or not s.strip()]
            if bad:
                raise _bad("sequences", f"must be a list of sequences, not {bad!r}")
            object.__setattr__(self, "sequences", items)


@dataclass(frozen=True)
class TopDependenciesFit(Fit):
    """The sequences that are classes, with their label ids; every other qualifying sentence
    is ``OTHER`` (the last label)."""

    classes: Mapping[str, int] = field(default_factory=dict)


class TopDependenciesObservation(Observation):
    """The first pass: per sentence its sequence id (-1 when excluded, counted by reason), and
    every sentence goes to the split estimate, which decides which sequences reach the
    floors."""

    def __init__(self, estimate: SplitEstimate) -> None:
        self.estimate = estimate
        self.ids: dict[str, int] = {}  # sequence -> id, in order of first occurrence
        self.seq = array("i")  # per observed sentence: sequence id, -1 if excluded
        self.excluded: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        source = sentence.source
        self.estimate.add(source.split, shared.get(text_hash), source.treebank)
        seq, reason = root_sequence(sentence)
        if seq is None:
            self.seq.append(-1)
            self.excluded[str(reason)] += 1
        else:
            self.seq.append(self.ids.setdefault(seq, len(self.ids)))

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's). ``later``'s
        sequence ids are renumbered into this observation's (first-occurrence order: see
        :mod:`polyprobe.builders.merging`); excluded sentences stay -1."""
        if not isinstance(later, TopDependenciesObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into top_dependencies")
        extend_remapped(self.seq, later.seq, merge_ids(self.ids, later.ids))
        self.excluded.update(later.excluded)
        self.estimate.merge(later.estimate)


class TopDependencies(Task[Sentence]):
    """Label = the root's dependency sequence if it is one of the most frequent ones, else
    ``OTHER``.

    Classes: the (up to) 19 most frequent sequences that reach ``--min-per-class`` in every
    split (estimated by the build's :class:`~polyprobe.builders.variants.SplitEstimate`), plus
    ``OTHER`` for every other qualifying sentence — SentEval's 19 + 1 design. ``OTHER`` is
    71-89% of the natural data on the shared treebanks, so the recommended (balanced) variant,
    whose undersampling equalises every class, caps ``OTHER`` at one class's share.

    The label names (the sequences in frequency order, then ``OTHER``) are the fit's; options
    are :class:`TopDependenciesOptions`. The class floors and the split mode are the build's
    (``self.context``).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="top_dependencies",
        level=Level.SENTENCE,
        description=(
            "Predict the sequence of relations of the root's dependents (with the root's "
            "position marked, e.g. 'nsubj ROOT obj punct') among the most frequent ones, or "
            "OTHER."
        ),
        labels=None,
        labels_derived=(
            "the most frequent root dependency sequences meeting the class floors (frequency "
            "order), then OTHER"
        ),
        citation=CONNEAU_2018,
        notes=(
            "UD stand-in for SentEval's TopConst: the label is the sequence of the root's "
            "dependents' relations (subtypes removed: nsubj:pass -> nsubj) in word order, with "
            "ROOT at the root's position.",
            "Dropped: fragments (the root has no dependent other than punct) and sentences "
            "whose root has a punct dependent outside the sentence-final run of punctuation "
            "tokens.",
            "Classes: the up to 19 most frequent sequences with at least min-per-class items "
            "in every split, plus OTHER for all remaining qualifying sentences. OTHER dominates "
            "the natural variant; the balanced variant caps it at one class's share.",
        ),
    )

    Options: ClassVar[type] = TopDependenciesOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "sentences",
            "qualifying",
            "excluded",
            "distinct_sequences",
            "split_mode",
            "split_mode_reason",
            "min_per_class",
            "split_estimate",
            "sequences_source",
            "sequences_meeting_floors",
            "top_sequences",
            "feasible",
            "infeasible",
            "label_names",
            "class_counts",
            "other_share",
            "classes_below_floors",
        }
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "sequence": "relations of the root's dependents (no subtypes) in word order, ROOT "
            "at the root's position",
            "exclude": [
                "root without non-punct dependents",
                "punct dependent of the root outside the sentence-final punctuation run",
            ],
            "max_classes": self.options.max_classes,
            "other_label": OTHER,
            "min_per_class": list(self.context.min_per_class),
        }

    # --- first pass -------------------------------------------------------------------------
    def observation(self) -> TopDependenciesObservation:
        return TopDependenciesObservation(self.context.split_estimate())

    def fit(self, observation: Observation | None) -> TopDependenciesFit:
        if not isinstance(observation, TopDependenciesObservation):
            raise TypeError("top_dependencies: fit() needs the observation of observation()")
        o = self.options
        estimate = observation.estimate
        estimate.finish()
        ids = observation.ids
        seq = (
            np.frombuffer(observation.seq, dtype=np.int32).astype(np.int64)
            if observation.seq
            else (np.zeros(0, dtype=np.int64))
        )
        names = list(ids)
        total = np.bincount(seq[seq >= 0], minlength=len(names))
        table = estimate.table(seq, len(names))
        passing = estimate.passing(table)
        order = sorted(range(len(names)), key=lambda i: (-int(total[i]), names[i]))
        qualifying = int((seq >= 0).sum())
        out: dict[str, Any] = {
            "sentences": int(seq.size),
            "qualifying": qualifying,
            "excluded": dict(sorted(observation.excluded.items())),
            "distinct_sequences": len(names),
            **estimate.describe(),
        }
        if o.sequences is not None:
            chosen = [s for s in o.sequences if s != OTHER]
            out["sequences_source"] = "profile"
        else:
            chosen = [names[i] for i in order if passing[i]][: o.max_classes]
            out["sequences_source"] = "derived"
            out["sequences_meeting_floors"] = int(passing.sum())
        out["top_sequences"] = {names[i]: int(total[i]) for i in order[:25]}
        index = {s: i for i, s in enumerate(chosen)}
        other = len(chosen)
        cls = np.full(seq.size, -1, dtype=np.int64)
        for s, i in index.items():
            if s in ids:
                cls[seq == ids[s]] = i
        cls[(seq >= 0) & (cls < 0)] = other
        final = estimate.table(cls, other + 1)
        ok = estimate.passing(final)
        counts = np.bincount(cls[cls >= 0], minlength=other + 1)
        infeasible: str | None = None
        if not chosen:
            infeasible = (
                "no root sequence has min-per-class "
                f"{'/'.join(map(str, estimate.floors))} items in every split"
            )
        elif not ok[other]:
            infeasible = "OTHER is below min-per-class in some split"
        if infeasible is not None:
            out.update({"feasible": False, "infeasible": infeasible})
            return TopDependenciesFit(label_names=(), report=out, infeasible=infeasible)
        label_names = (*chosen, OTHER)
        out.update(
            {
                "feasible": True,
                "label_names": list(label_names),
                "class_counts": {
                    n: int(c) for n, c in zip(label_names, counts.tolist(), strict=True)
                },
                "other_share": round(float(counts[other]) / max(qualifying, 1), 4),
                "classes_below_floors": [
                    n for n, good in zip(label_names, ok.tolist(), strict=True) if not good
                ],
            }
        )
        return TopDependenciesFit(label_names=label_names, report=out, classes=index)

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if not isinstance(fit, TopDependenciesFit):
            raise TypeError("top_dependencies: candidates need the fit of TopDependencies.fit()")
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        seq, reason = root_sequence(sentence)
        if seq is None:
            return self.drop(str(reason))
        label = seq if seq in fit.classes else OTHER
        return [Candidate(sentence_inputs(sentence), label, copy="0")]
