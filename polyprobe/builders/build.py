"""The build spine: every source family (:mod:`polyprobe.builders.family`) runs through it.

    config ─▶ sources ─▶ languages ─▶ licence ─▶ task set, profile checked ─▶ plan ─▶ tasks
    configured (:mod:`.configure`) ─▶ execution (:mod:`.execution`: processes, ranges,
    shards) ─▶ streams merged (:mod:`.outcomes`) ─▶ the family's post-step ─▶ configs
    adopted, default marked ─▶ fingerprint ─▶ card (release check) ─▶ folder

What a family declares: its options, sources, tasks and plan, what its card says about
itself. What every family gets from here, the same way: option and profile checks,
``--lang`` against the languages the sources declare, the licence rule, task configuration,
the run, releases and ``--previous``, the default config, the fingerprint, ``report.json``
and the atomic folder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe import progress
from polyprobe.builders.assemble import TaskSummary
from polyprobe.builders.families import family_named
from polyprobe.builders.family import Family, Outcome, Plan, TaskSet
from polyprobe.builders.options import BuildConfig, make_config, option_of
from polyprobe.builders.provenance import card_license, fingerprint
from polyprobe.builders.variants import VariantSettings
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.metadata import DatasetMeta, SourceInfo
from polyprobe.version import __version__


@dataclass
class BuildResult:
    """What a build did: the command's closing summary and tests read this."""

    out: Path
    fingerprint: str
    tasks: list[TaskSummary]
    skipped_invalid: dict[str, int]
    split: str
    release: str = ""
    bump_check: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)


def build_family(family: str | Family[Any, Any], **given: Any) -> BuildResult:
    """``polyprobe.build_<family>(...)``: the family's config from ``given`` (its Config's
    fields, over a profile's ``[family]`` section) and :func:`build`."""
    found = family_named(family) if isinstance(family, str) else family
    return build(found, make_config(found.Config, given))


def family_function(name: str) -> Any:
    """``polyprobe.build_<name>``: the family's build as a function whose positional
    arguments are the Config's positional fields (its inputs) and keywords its other
    fields."""
    family = family_named(name)
    positional = [
        f.name
        for f in dataclasses.fields(family.Config)
        if (spec := option_of(family.Config, f.name)) is not None and spec.positional
    ]

    def build_it(*inputs: Any, **options: Any) -> BuildResult:
        if len(inputs) > len(positional):
            raise UsageError(f"build_{name} takes {len(positional)} positional argument(s)")
        return build_family(family, **dict(zip(positional, inputs, strict=False)), **options)

    build_it.__name__ = build_it.__qualname__ = f"build_{name}"
    build_it.__doc__ = f"Build with the {name} family: {family.description}"
    return build_it


def build(family: Family[Any, Any], config: BuildConfig) -> BuildResult:
    """Run ``family`` with ``config`` and write its dataset folder at ``config.out``
    (atomically: on any error, nothing is left behind)."""
    from polyprobe.builders.configure import checked
    from polyprobe.cards.folder import DatasetFolderWriter
    from polyprobe.cards.release import ReleaseRequest

    if not isinstance(config, family.Config):
        raise UsageError(f"build {family.name} takes a {family.Config.__name__}")
    release = ReleaseRequest.make(config.release, config.previous, config.allow_bump_mismatch)
    language = config.language
    sources = family.sources(config)
    task_set = family.task_set(config, sources)
    names = task_set.resolve(config.tasks)
    profile = checked(config, task_set, names)  # before anything long (a generated table)
    mismatch = check_languages(
        config.lang, language, sources.declared(), config.allow_language_mismatch
    )
    infos = licensed(sources.infos(), config.license_overrides)
    license_id, mixed = card_license(infos, config.allow_license_mix)
    plan = family.plan(config, sources, names)
    with DatasetFolderWriter(config.out, overwrite=config.overwrite) as writer:
        outcome = run(plan, task_set, config, profile, writer.tmp)
        outcome = family.finish(config, sources, outcome, writer.tmp)
        summaries = [a.summary for a in outcome.assembled]
        if not any(s.configs for s in summaries):
            raise InfeasibleError(
                "no task could be built: "
                + "; ".join(f"{s.task}: {s.infeasible}" for s in summaries)
            )
        default_given = False
        for assembled in outcome.assembled:
            for card in assembled.cards:
                if not default_given:  # the first config in task order
                    card = dataclasses.replace(
                        card, payload=dataclasses.replace(card.payload, default=True)
                    )
                    default_given = True
                writer.adopt(card)
        parameters = build_parameters(config, language, outcome, language_mismatch=mismatch)
        text = family.card(config, sources, language, outcome)
        meta = DatasetMeta(
            pretty_name=text.pretty_name,
            languages=list(text.languages) or [language.code],
            license=license_id,
            sources=infos,
            polyprobe_version=__version__,
            fingerprint=fingerprint(infos, outcome.recipes, parameters, outcome.profile),
            parameters=parameters,
            skipped_invalid=dict(sorted(outcome.skipped.items())),
            duplicates=dict(outcome.duplicates),
            feasibility={a.name: a.report for a in outcome.assembled},
            profile=outcome.profile,
            license_mix_allowed=config.allow_license_mix and mixed,
            task_categories=list(text.task_categories),
            tags=list(text.tags),
            source_datasets=list(text.source_datasets),
            summary=text.summary,
        )
        hook = release.before_card(meta)
        released: list[DatasetMeta] = []

        def before_card(tmp: Path, card: dict[str, Any]) -> DatasetMeta:
            released.append(hook(tmp, card))
            return released[-1]

        final = writer.finish(meta, before_card=before_card)
    return BuildResult(
        out=final,
        fingerprint=meta.fingerprint,
        tasks=summaries,
        skipped_invalid=meta.skipped_invalid,
        split=outcome.split,
        release=released[-1].release,
        bump_check=dict(released[-1].bump_check),
        facts=outcome.facts,
    )


def run(
    plan: Plan,
    task_set: TaskSet,
    config: BuildConfig,
    profile: dict[str, Any] | None,
    staging: Path,
) -> Outcome:
    """The plan's tasks configured and run; one outcome, in the task order of the plan
    (its input shards prepared first, when it has some)."""
    from polyprobe.builders import outcomes
    from polyprobe.builders.configure import open_lexicon, open_stream
    from polyprobe.builders.execution.run import run_lexicon, run_record_streams
    from polyprobe.builders.execution.stream import RunSettings

    if plan.prepare is not None:
        from polyprobe.builders.execution.prepare import prepared

        with prepared(plan.prepare, plan.inputs, config.jobs) as ready:
            return run(ready, task_set, config, profile, staging)

    variants = VariantSettings(
        split=plan.split,
        sizes=config.sizes,
        balances=config.balances,
        min_per_class=config.min_per_class,
    )
    settings = RunSettings(config.seed, config.on_invalid, variants, staging)
    if plan.lexicon is not None:
        tasks = open_lexicon(plan.lexicon, task_set, config, plan.split, profile)
        done = run_lexicon(plan.lexicon, tasks, settings)
        return outcomes.lexicon_outcome(plan, done, profile)
    progress.inputs(plan.inputs)
    readable = [s for s in plan.streams if s.records is not None]
    opened = [open_stream(s, task_set, config, plan.split, profile) for s in readable]
    ran = iter(run_record_streams(opened, settings, plan.inputs, config.jobs) if opened else [])
    results = [
        outcomes.with_sample_creation(s, next(ran), staging)
        if s.records is not None
        else outcomes.infeasible(s, task_set, variants, config.seed, staging)
        for s in plan.streams
    ]
    order = plan.order or tuple(n for s in plan.streams for n in s.tasks)
    return outcomes.merged(plan, results, order)


def prepared(family: Family[Any, Any], config: BuildConfig) -> tuple[Plan, list[Any]]:
    """The family's plan for ``config`` and every stream with its tasks configured as a build
    configures them (None for a stream without records), without running anything: what
    ``polyprobe profile`` and tests look at."""
    from polyprobe.builders.configure import checked, open_stream

    sources = family.sources(config)
    task_set = family.task_set(config, sources)
    names = task_set.resolve(config.tasks)
    profile = checked(config, task_set, names)
    plan = family.plan(config, sources, names)
    return plan, [
        None if s.records is None else open_stream(s, task_set, config, plan.split, profile)
        for s in plan.streams
    ]


def licensed(infos: Sequence[SourceInfo], overrides: Mapping[str, str]) -> list[SourceInfo]:
    """The sources with ``--license SRC=ID`` applied by source name (``*``: every source
    without its own; ids normalised, ``CC BY-SA 4.0`` -> ``CC-BY-SA-4.0``); a name that is no
    source is an error, so a typo never leaves a wrong licence in a card."""
    from polyprobe.loaders.sources import normalize_license

    names = {i.name for i in infos}
    unknown = sorted(set(overrides) - names - {"*"})
    if unknown:
        raise UsageError(
            f"--license names no source: {', '.join(unknown)}; the sources are "
            + ", ".join(sorted(names))
        )
    for info in infos:
        chosen = overrides.get(info.name, overrides.get("*"))
        if chosen is not None:
            info.license = normalize_license(chosen)
    return list(infos)


def check_languages(
    lang: str,
    language: Language,
    declared: Sequence[tuple[str, Sequence[DeclaredLanguage]]],
    allow: bool,
) -> dict[str, list[str]]:
    """``--lang`` against what the sources declare (``(source name, languages)`` pairs).

    Refused with a :class:`UsageError` naming the sources and their languages: a source
    declaring another language than ``--lang``, which also covers a mix of languages across
    sources (at most one of them can be ``--lang``). With ``allow`` (``--allow-language-
    mismatch``) the build goes on and the mismatch is returned, ``{source: [codes]}``, for
    the card. Sources that declare nothing are not guessed at."""
    wrong = {name: [d for d in langs if d.code != language.iso639_3] for name, langs in declared}
    wrong = {name: langs for name, langs in wrong.items() if langs}
    if not wrong:
        return {}
    if allow:
        return {name: [d.tag for d in langs] for name, langs in wrong.items()}
    said = [(name, langs) for name, langs in declared if langs]
    codes = {d.code for _, langs in said for d in langs}
    listing = "; ".join(f"{name}: {', '.join(d.describe() for d in langs)}" for name, langs in said)
    if len(codes) > 1:
        raise UsageError(
            f"the sources are in different languages ({listing}) and --lang {lang} is "
            f"{language.name}; build one language per dataset, or pass "
            "--allow-language-mismatch to merge them anyway (recorded in the card)"
        )
    (only,) = {d.tag: d for _, langs in said for d in langs}.values()
    raise UsageError(
        f"--lang {lang} is {language.name}, but the sources say {only.name} ({listing}); "
        f"use --lang {only.tag}, or pass --allow-language-mismatch to build anyway "
        "(recorded in the card)"
    )


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
