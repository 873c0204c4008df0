"""The spine's step after the run: each stream's outcome finished (rows' ``sample_creation``,
tasks of a stream without records reported infeasible) and the streams merged into one
outcome in the family's task order.

Why the merge is the spine's: a build ud, wiki or text runs a sentence stream and a document
stream over the same inputs, a top-up two sentence streams, a parallel build one stream per
language; the card must read the same whatever the family, so how their profiles, counts
and duplicates combine is decided once, here.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyprobe.builders.assemble import assemble
from polyprobe.builders.family import Outcome, Plan, Stream, TaskSet
from polyprobe.builders.variants import VariantSettings


def infeasible(
    stream: Stream,
    task_set: TaskSet,
    settings: VariantSettings,
    seed: int,
    staging: Path,
    rename: Any = None,
) -> Outcome:
    """A stream whose inputs hold no records of its kind: every task made no candidate set,
    with the stream's ``missing`` reason (``rename``: the names they are published under)."""
    reason = stream.missing
    assembled, recipes, names = [], [], []
    for original in stream.tasks:
        name = rename(original) if rename is not None else original
        names.append(name)
        metadata = dataclasses.replace(task_set.get(original).metadata, name=name)
        report = {
            "task": name,
            "level": metadata.level.value,
            "task_type": metadata.task_type,
            "infeasible": reason,
        }
        assembled.append(
            assemble([], settings, seed, staging, task_report=report, infeasible=reason)
        )
        recipes.append({"name": name, "recipe_version": metadata.recipe_version, "parameters": {}})
    return Outcome(
        assembled=assembled,
        recipes=recipes,
        profile={"tasks": {n: {"infeasible": reason} for n in names}},
    )


def with_sample_creation(stream: Stream, outcome: Outcome, staging: Path) -> Outcome:
    """The stream's configs written again with each row's ``sample_creation``, when the
    stream says how its rows were made."""
    if stream.sample_creation is None:
        return outcome
    from polyprobe.builders.sample_creation import with_sample_creation as rewrite

    outcome.assembled = rewrite(staging, outcome.assembled, stream.sample_creation)
    return outcome


def merged(plan: Plan, outcomes: Sequence[Outcome], order: Sequence[str]) -> Outcome:
    """One outcome of the plan's streams, tasks in ``order``. The first stream is the base
    (its profile entry, its duplicate counts); the tasks' derived entries come from every
    stream; invalid input is counted once per reading of the inputs: a document stream,
    which reads (or is fed) the inputs of a sentence stream, counts only when it runs alone;
    document counts are added under their own names, with the streams' notes."""
    streams = plan.streams
    assembled = {a.name: a for o in outcomes for a in o.assembled}
    recipes = {r["name"]: r for o in outcomes for r in o.recipes}
    base = outcomes[0]
    profile = dict(base.profile)
    profile["tasks"] = {}
    for o in outcomes:
        profile["tasks"].update(o.profile.get("tasks", {}))
    documents = [(s, o) for s, o in zip(streams, outcomes, strict=True) if s.note is not None]
    alone = len(outcomes) == len(documents)
    skipped: Counter[str] = Counter()
    for stream, o in zip(streams, outcomes, strict=True):
        if stream.note is None or alone:
            skipped.update(o.skipped)
    skipped.update(plan.skipped)
    duplicates = dict(base.duplicates) if streams[0].note is None else {}
    for stream, o in documents:
        profile["documents"] = dict(stream.note or {})
        if o.duplicates:
            duplicates["documents_read"] = int(o.duplicates.get("sentences_read", 0))
            duplicates["duplicate_documents"] = int(o.duplicates.get("duplicate_sentences", 0))
    return Outcome(
        assembled=[assembled[n] for n in order if n in assembled],
        recipes=[recipes[n] for n in order if n in recipes],
        profile=profile,
        parameters={
            "split": plan.split.label,
            "split_reason": plan.split.reason,
            **plan.parameters,
        },
        skipped=dict(skipped),
        duplicates=duplicates,
        split=plan.summary or f"{plan.split.label} ({plan.split.reason})",
        facts=dict(plan.facts),
        streams=list(outcomes),
    )


def lexicon_outcome(plan: Plan, outcome: Outcome, profile: dict[str, Any] | None) -> Outcome:
    """The lexicon's outcome with the plan's parameters, counts and the profile's overrides."""
    if profile is not None:
        outcome.profile["overrides"] = dict(profile)
    outcome.parameters = dict(plan.parameters)
    outcome.skipped = dict(plan.skipped)
    outcome.split = plan.summary or plan.split.label
    outcome.facts = dict(plan.facts)
    return outcome
