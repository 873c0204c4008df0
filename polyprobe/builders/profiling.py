"""``polyprobe profile ud``: everything a build of these treebanks would derive, without
building: the tasks configured as the spine configures them, their first pass and fits, and
what the treebanks offer. The output, edited, is a valid ``--profile`` file's ``[language]``
and ``[tasks.*]`` content."""

from __future__ import annotations

from collections import Counter
from typing import Any

from polyprobe.builders.configure import checked, open_stream
from polyprobe.builders.execution.passes import first_pass
from polyprobe.builders.families.ud import UD, UdConfig
from polyprobe.builders.profile import FeatureCounter
from polyprobe.builders.records.treebank import TreebankRecords, capitalisation


def profile_ud(config: UdConfig) -> dict[str, Any]:
    sources = UD.sources(config)
    names = UD.tasks.resolve(config.tasks)
    overrides = checked(config, UD.tasks, names)
    plan = UD.plan(config, sources, names)
    counter = FeatureCounter()
    profile: dict[str, Any] | None = None
    labels: dict[str, list[str]] = {}
    derived: dict[str, Any] = {}
    for stream in plan.streams:
        if stream.records is None:
            derived.update({n: {"infeasible": stream.missing} for n in stream.tasks})
            continue
        opened = open_stream(stream, UD.tasks, config, plan.split, overrides)
        sentences = isinstance(stream.records, TreebankRecords)
        fits, found = first_pass(
            stream.records,
            opened.tasks,
            config.on_invalid,
            observe_all=counter.observe if sentences else None,
        )
        if sentences:
            profile = dict(opened.profile)
        derived.update(found)
        labels.update(
            {t.name: list(f.label_names) for t, f in zip(opened.tasks, fits, strict=True)}
        )
    if profile is None:  # no sentence task: the treebanks' facts and annotation all the same
        records = TreebankRecords(tuple(sources.treebanks))
        for sentence in records.records(config.on_invalid, Counter()):
            counter.observe(sentence)
        language = capitalisation(records)
        language.update((overrides or {}).get("language", {}))
        profile = {"lang": config.language.code, "language": language, "tasks": {}}
        if overrides is not None:
            profile["overrides"] = overrides
    profile["tasks"] = derived
    profile["split"] = {"mode": plan.split.label, "reason": plan.split.reason}
    profile["labels"] = labels
    profile["sources"] = {
        s.name: {"license": s.license, "version": s.version, "splits": sorted(s.splits)}
        for s in sources.treebanks
    }
    profile["annotation"] = counter.summary()
    return profile
