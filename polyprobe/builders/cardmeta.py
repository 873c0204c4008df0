"""What the card says about a build: the configs adopted into the folder (the first built is
the ``default``; each config's block names the family that made it), the build parameters,
and the dataset's meta — of one family's build, or of a suite of several families' builds
in one folder (:mod:`polyprobe.builders.suite`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from polyprobe.builders.family import Outcome
from polyprobe.builders.options import BuildConfig
from polyprobe.errors import InfeasibleError
from polyprobe.hubmeta import (
    ANNOTATIONS_CREATORS,
    LANGUAGE_CREATORS,
    MACHINE,
    TRANSLATION_CREATORS,
    ordered,
    source_creators,
)
from polyprobe.languages import Language
from polyprobe.metadata import DatasetMeta, SourceInfo


def adopt(writer: Any, built: Sequence[tuple[str, str | None, Outcome]]) -> list[Any]:
    """Every config of every outcome ``(family, member or None, outcome)`` into the writer, in
    order, the first built marked ``default``; each config's ``polyprobe`` block names its
    family (and, in a suite, its member). The task summaries, in order."""
    summaries = [a.summary for _, _, outcome in built for a in outcome.assembled]
    if not any(s.configs for s in summaries):
        raise InfeasibleError(
            "no task could be built: " + "; ".join(f"{s.task}: {s.infeasible}" for s in summaries)
        )
    default_given = False
    for family, member, outcome in built:
        for assembled in outcome.assembled:
            for card in assembled.cards:
                block = {**card.payload.polyprobe, "family": family}
                if member is not None:
                    block["member"] = member
                payload = dataclasses.replace(card.payload, polyprobe=block)
                if not default_given:  # the first config in task order
                    payload = dataclasses.replace(payload, default=True)
                    default_given = True
                writer.adopt(dataclasses.replace(card, payload=payload))
    return summaries


def build_parameters(
    config: BuildConfig,
    language: Language,
    outcome: Outcome,
    *,
    language_mismatch: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The card's build parameters: the shared ones, with the family's own after the
    variants they qualify. ``allow_language_mismatch`` (and the mismatch it let through)
    only appear when given, so the cards of other builds keep their bytes."""
    extra: dict[str, Any] = {}
    if config.allow_language_mismatch:
        extra["allow_language_mismatch"] = True
        if language_mismatch:
            extra["language_mismatch"] = {k: list(v) for k, v in language_mismatch.items()}
    return {
        "lang": language.code,
        "tasks": [a.name for a in outcome.assembled],
        "sizes": [s.label for s in config.sizes],
        "balances": list(config.balances),
        **outcome.parameters,
        "min_per_class": {
            "train": config.min_per_class.train,
            "validation": config.min_per_class.validation,
            "test": config.min_per_class.test,
        },
        "seed": config.seed,
        "on_invalid": config.on_invalid,
        "allow_license_mix": config.allow_license_mix,
        **extra,
    }


def hub_fields(
    builds: Sequence[tuple[str, Any, Outcome, Sequence[SourceInfo]]],
    renamed: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """The Hub's ``annotations_creators``, ``language_creators`` and ``multilinguality`` of
    the builds ``(family name, task set, outcome, its sources)`` going into one card.

    A task's labels are its rows' sources' (:func:`polyprobe.hubmeta.source_creators`: a
    treebank's features were annotated by experts, ...), except where the task makes them:
    a text-only task (sentence length, word content, bigram shift, ...: the suite that runs
    on raw text) computes its label from the surface and a task with paired copies
    (original/perturbed) makes a perturbation, so both are ``machine-generated``, and a
    perturbation's text is too. A translated build's texts are what its ``sample_creation``
    says (machine- or human-translated). A parallel build is ``translation``; other
    multilinguality follows the card's languages (the card decides)."""
    from polyprobe.builders.suites import TEXT_TASKS

    text_only = {t.metadata.name for t in TEXT_TASKS}
    annotations: list[str] = []
    language: list[str] = []
    multilinguality: list[str] = []
    for family, task_set, outcome, infos in builds:
        kinds = [i.kind for i in infos if i.role == "rows"]
        base = [source_creators(k) for k in kinds]
        by_name = task_set.by_name if task_set is not None else {}
        for assembled in outcome.assembled:
            name = (renamed or {}).get(assembled.name, assembled.name)
            task = by_name.get(name)
            paired = task is not None and task.metadata.paired_copies
            if paired or name in text_only:
                annotations.append(MACHINE)
            else:
                annotations += [a for a, _ in base]
            language += [w for _, w in base]
            if paired:
                language.append(MACHINE)
        translation = outcome.parameters.get("translation")
        if isinstance(translation, Mapping):
            how = TRANSLATION_CREATORS.get(str(translation.get("sample_creation")))
            if how is not None:
                language.append(how)
        if family == "parallel":
            multilinguality = ["translation"]
    return {
        "annotations_creators": ordered(annotations, ANNOTATIONS_CREATORS),
        "language_creators": ordered(language, LANGUAGE_CREATORS),
        "multilinguality": multilinguality,
    }


def suite_meta(
    suite: Any,
    built: Sequence[tuple[Any, Any, Outcome]],
    infos: Sequence[Any],
    license_id: str,
    license_mix_allowed: bool,
    renamed: Mapping[str, Mapping[str, str]] | None = None,
) -> DatasetMeta:
    """The card's dataset part for a suite (``built``: each member with its prepared build and
    outcome): the members' parameters, profiles, skips and duplicates keyed by member, one
    fingerprint over all of them, the members' languages, tags and categories united."""
    from polyprobe.builders.provenance import fingerprint
    from polyprobe.languages import resolve_language
    from polyprobe.version import __version__

    language = resolve_language(suite.lang)
    members: list[dict[str, Any]] = []
    parameters: dict[str, Any] = {"suite": suite.name, "lang": language.code, "members": {}}
    skipped: dict[str, int] = {}
    duplicates: dict[str, Any] = {}
    profile: dict[str, Any] = {}
    recipes: list[dict[str, Any]] = []
    feasibility: dict[str, Any] = {}
    languages: list[str] = []
    tags: list[str] = []
    categories: list[str] = []
    source_datasets: list[str] = []
    for member, prepared, outcome in built:
        config = member.config
        text = member.family.card(config, prepared.sources, config.language, outcome)
        parameters["members"][member.name] = {
            "family": member.family.name,
            **build_parameters(
                config, config.language, outcome, language_mismatch=prepared.mismatch
            ),
        }
        for reason, n in sorted(outcome.skipped.items()):
            skipped[f"{member.name}: {reason}"] = n
        if outcome.duplicates:
            duplicates[member.name] = dict(outcome.duplicates)
        profile[member.name] = outcome.profile
        recipes += [{**r, "member": member.name} for r in outcome.recipes]
        feasibility.update({a.name: a.report for a in outcome.assembled})
        for values, into in (
            (text.languages or (config.language.code,), languages),
            (text.tags, tags),
            (text.task_categories, categories),
            (text.source_datasets, source_datasets),
        ):
            into += [v for v in values if v not in into]
        members.append(
            {
                "name": member.name,
                "family": member.family.name,
                "title": text.pretty_name,
                "summary": text.summary,
                "tasks": [a.name for a in outcome.assembled],
                # published name -> the family's own, where two members share a task name
                "renamed": dict((renamed or {}).get(member.name, {})),
            }
        )
    hub = hub_fields(
        [(m.family.name, p.task_set, o, p.infos) for m, p, o in built],
        {k: v for names in (renamed or {}).values() for k, v in names.items()},
    )
    summary = (
        f"The {language.name} probing suite: {len(members)} builds from "
        f"{len(infos)} source(s) in one dataset ({', '.join(m['name'] for m in members)}). "
        "The overview below gives each task's recommended config; each member's section "
        "after it says how its configs were made."
    )
    return DatasetMeta(
        pretty_name=f"polyprobe {language.name} suite ({suite.name})",
        languages=languages,
        license=license_id,
        sources=list(infos),
        polyprobe_version=__version__,
        fingerprint=fingerprint(infos, recipes, parameters, profile),
        parameters=parameters,
        skipped_invalid=skipped,
        duplicates=duplicates,
        feasibility=feasibility,
        profile=profile,
        license_mix_allowed=license_mix_allowed,
        task_categories=categories,
        tags=[*tags, "suite"] if "suite" not in tags else tags,
        source_datasets=source_datasets,
        summary=summary,
        members=members,
        **hub,
    )
