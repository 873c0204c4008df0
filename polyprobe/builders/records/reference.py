"""``--reference-treebank``: how far a machine-annotated raw-text build can be trusted,
measured against a human-annotated treebank of the same language.

Two comparisons, both in the card (``parameters.reference_treebank``):

* **Agreement on the treebank's own sentences**: the first ``sentences`` sentences of the
  treebank are taken as raw text (their ``# text`` only), tokenised by the build's segmenter
  and parsed by the build's annotator; every parser-dependent task is fitted on the gold
  sentences, then makes its rows from the gold record and from the machine record of each
  sentence with that one fit. ``agreement`` is the share of rows made from both whose labels
  are equal; ``coverage`` the share of gold rows the machine record also gives (a misparsed
  root can lose a row, or add one: ``machine_only``).
* **Label distributions**: each task's class shares in this build (machine-annotated raw
  text) beside the same task's shares on the whole treebank (gold).

Why both: agreement says how often a row's label is what a human would have written; the
distributions say whether the raw corpus differs from the treebank in kind (Wikipedia has
more plural subjects, fewer questions) rather than by parsing errors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from polyprobe.builders.task import Shared, Task, TaskContext
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.loaders.records import Sentence

__all__ = ["REFERENCE_SENTENCES", "compare", "gold_sentences", "machine_sentences", "task_rows"]

REFERENCE_SENTENCES = 500  # sentences parsed for the agreement (spaCy sm: a few seconds)
# The fits' class floors on the treebank: low, so that a dev file alone gives every task its
# classes (the comparison makes no dataset; the build's own floors decide its rows).
REFERENCE_FLOORS = (5, 1, 1)


def gold_sentences(
    paths: Sequence[Path], source_version: str | None = None, lang: str | None = None
) -> list[Sentence]:
    """Every sentence of the treebanks at ``paths`` (files or folders), in order; with
    ``lang`` (ISO 639-3), a treebank that declares another language is refused: agreement
    with a treebank of another language means nothing."""
    from polyprobe.loaders.sources import discover, read_sources

    sources = discover(tuple(paths), source_version=source_version)
    if lang is not None:
        for source in sources:
            other = [d for d in source.languages if d.code != lang]
            if other and not any(d.code == lang for d in source.languages):
                raise UsageError(
                    f"--reference-treebank {source.path}: a treebank of {other[0].describe()}, "
                    f"not of the build's language ({lang})"
                )
    return list(read_sources(sources, on_invalid="raise", skipped=Counter()))


def machine_sentences(gold: Iterable[Sentence], segmenter: Any, annotator: Any) -> list[Sentence]:
    """The gold sentences' texts, tokenised and parsed as a raw-text build does, keeping
    each sentence's id, document and place (so rows pair with the gold ones)."""
    items = []
    for s in gold:
        text = s.text or " ".join(w.form for w in s.words)
        forms, spaces = segmenter.token_columns(text)
        if not forms:
            continue
        items.append(
            (list(zip(forms, spaces, strict=True)), text, s.sent_id, s.doc_id, s.source, s.line)
        )
    return annotator.annotate_many(items)


def task_rows(task: Task[Any], fit: Any, records: Iterable[Sentence]) -> dict[tuple[str, str], str]:
    """(sentence id, copy) → label of every row ``task`` makes from ``records``."""
    out: dict[tuple[str, str], str] = {}
    for record in records:
        for c in task.candidates(record, fit, Shared(record)):
            out[(record.sent_id, c.copy)] = c.label
    return out


def _fit(task: Task[Any], records: Iterable[Sentence]) -> Any:
    observation = task.observation()
    if observation is not None:
        for record in records:
            observation.observe(record, Shared(record))
    return task.fit(observation)


def _shares(counts: Mapping[str, int]) -> dict[str, float]:
    total = sum(counts.values())
    return {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {}


def compare(
    tasks: Sequence[type[Task[Any]]],
    gold: Sequence[Sentence],
    machine: Sequence[Sentence],
    context: TaskContext,
    build_counts: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """Per task: agreement and coverage of the machine rows on the parsed sentences
    (``machine``: parses of the first ``len(machine)`` of ``gold``), the treebank's class
    shares and, with ``build_counts`` (task → class counts of this build), the build's."""
    parsed_ids = {s.sent_id for s in machine}
    subset = [s for s in gold if s.sent_id in parsed_ids]
    out: dict[str, Any] = {}
    for cls in tasks:
        task = cls.configure({}, context)
        try:
            fit = _fit(task, gold)
            if getattr(fit, "infeasible", None):
                out[task.name] = {"infeasible": str(fit.infeasible)}
                continue
            gold_all = task_rows(task, fit, gold)
            gold_rows = task_rows(task, fit, subset)
            machine_rows = task_rows(task, fit, machine)
        except InfeasibleError as exc:
            out[task.name] = {"infeasible": str(exc).splitlines()[0]}
            continue
        both = gold_rows.keys() & machine_rows.keys()
        agree = sum(gold_rows[k] == machine_rows[k] for k in both)
        entry: dict[str, Any] = {
            "agreement": round(agree / len(both), 4) if both else None,
            "rows_compared": len(both),
            "coverage": round(len(both) / len(gold_rows), 4) if gold_rows else None,
            "machine_only": len(machine_rows.keys() - gold_rows.keys()),
            "treebank_shares": _shares(Counter(gold_all.values())),
        }
        if build_counts is not None and task.name in build_counts:
            entry["build_shares"] = _shares(build_counts[task.name])
        out[task.name] = entry
    return out
