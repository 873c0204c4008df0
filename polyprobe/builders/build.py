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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe import progress
from polyprobe.builders.assemble import TaskSummary
from polyprobe.builders.families import family_named
from polyprobe.builders.family import Family, Outcome, Plan, TaskSet
from polyprobe.builders.options import BuildConfig, make_config, option_of
from polyprobe.builders.provenance import card_license, fingerprint, warn_unknown_licenses
from polyprobe.builders.variants import VariantSettings
from polyprobe.errors import UsageError
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


@dataclass
class Prepared:
    """One family's build up to its run: the sources opened and checked (languages,
    licences), the task set and the names to build, the profile checked, the plan."""

    family: Family[Any, Any]
    config: BuildConfig
    sources: Any
    task_set: TaskSet
    names: list[str]
    profile: dict[str, Any] | None
    plan: Plan
    infos: list[SourceInfo]
    mismatch: dict[str, list[str]]


def prepare(family: Family[Any, Any], config: BuildConfig) -> Prepared:
    """Everything before the folder: a bad option, profile, language or licence is refused
    here, before any long work (the profile before a generated table is listed)."""
    from polyprobe.builders.configure import checked
    from polyprobe.builders.provenance import check_languages, licensed
    from polyprobe.loaders.language_evidence import check_content

    if not isinstance(config, family.Config):
        raise UsageError(f"build {family.name} takes a {family.Config.__name__}")
    sources = family.sources(config)
    task_set = family.task_set(config, sources)
    names = task_set.resolve(config.tasks)
    profile = checked(config, task_set, names)
    mismatch = check_languages(
        config.lang, config.language, sources.declared(), config.allow_language_mismatch
    )
    content = check_content(
        config.lang,
        config.language,
        [*getattr(sources, "sources", ()), *getattr(sources, "lexicons", ())],
        config.allow_language_mismatch,
    )
    for name, found in content.items():
        mismatch[name] = [*mismatch.get(name, []), *found]
    infos = licensed(sources.infos(), config.license_overrides)
    plan = family.plan(config, sources, names)
    return Prepared(family, config, sources, task_set, names, profile, plan, infos, mismatch)


def produce(p: Prepared, staging: Path, rename: Any = None) -> Outcome:
    """The prepared build's tasks run into ``staging``, and the family's post-step.
    ``rename(name)``: the name each task's configs are published under (a suite renames the
    names two members share)."""
    outcome = run(p.plan, p.task_set, p.config, p.profile, staging, rename)
    return p.family.finish(p.config, p.sources, outcome, staging)


def build(family: Family[Any, Any], config: BuildConfig) -> BuildResult:
    """Run ``family`` with ``config`` and write its dataset folder at ``config.out``
    (atomically: on any error, nothing is left behind)."""
    from polyprobe.builders.cardmeta import adopt, build_parameters, hub_fields
    from polyprobe.cards.folder import DatasetFolderWriter
    from polyprobe.cards.release import ReleaseRequest

    release = ReleaseRequest.make(config.release, config.previous, config.allow_bump_mismatch)
    p = prepare(family, config)
    language = config.language
    license_id, mixed = card_license(p.infos, config.allow_license_mix)
    with DatasetFolderWriter(config.out, overwrite=config.overwrite) as writer:
        outcome = produce(p, writer.tmp)
        summaries = adopt(writer, [(family.name, None, outcome)])
        parameters = build_parameters(config, language, outcome, language_mismatch=p.mismatch)
        text = family.card(config, p.sources, language, outcome)
        meta = DatasetMeta(
            pretty_name=text.pretty_name,
            languages=list(text.languages) or [language.code],
            license=license_id,
            sources=p.infos,
            polyprobe_version=__version__,
            fingerprint=fingerprint(p.infos, outcome.recipes, parameters, outcome.profile),
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
            **hub_fields([(family.name, p.task_set, outcome, p.infos)]),
        )
        final, released = finish(writer, meta, release)
    return BuildResult(
        out=final,
        fingerprint=meta.fingerprint,
        tasks=summaries,
        skipped_invalid=meta.skipped_invalid,
        split=outcome.split,
        release=released.release,
        bump_check=dict(released.bump_check),
        facts=outcome.facts,
    )


def finish(writer: Any, meta: DatasetMeta, release: Any) -> tuple[Path, DatasetMeta]:
    """The card written (after the release check against ``--previous``) and the folder
    moved into place; the folder and the meta its card was written from."""
    hook = release.before_card(meta)
    released: list[DatasetMeta] = []

    def before_card(tmp: Path, card: dict[str, Any]) -> DatasetMeta:
        released.append(hook(tmp, card))
        return released[-1]

    final = writer.finish(meta, before_card=before_card)
    warn_unknown_licenses(meta.sources)  # the folder is in place: the build succeeded
    return final, released[-1]


def run(
    plan: Plan,
    task_set: TaskSet,
    config: BuildConfig,
    profile: dict[str, Any] | None,
    staging: Path,
    rename: Any = None,
    remote: Any = None,
) -> Outcome:
    """The plan's tasks configured and run; one outcome, in the task order of the plan
    (its input shards prepared first, when it has some; ``remote``: where the prepared
    plan's per-range passes run, :class:`~polyprobe.builders.execution.remote.Remote`)."""
    from polyprobe.builders import outcomes
    from polyprobe.builders.configure import open_lexicon, open_stream
    from polyprobe.builders.execution.run import run_lexicon, run_record_streams
    from polyprobe.builders.execution.stream import RunSettings

    if plan.prepare is not None:
        from polyprobe.builders.execution.prepare import prepared

        with prepared(plan.prepare, plan.inputs, config.jobs) as (ready, remote):
            return run(ready, task_set, config, profile, staging, rename, remote)

    variants = VariantSettings(
        split=plan.split,
        sizes=config.sizes,
        balances=config.balances,
        min_per_class=config.min_per_class,
    )
    settings = RunSettings(config.seed, config.on_invalid, variants, staging, remote=remote)
    if plan.lexicon is not None:
        tasks = open_lexicon(plan.lexicon, task_set, config, plan.split, profile, rename)
        done = run_lexicon(plan.lexicon, tasks, settings)
        return outcomes.lexicon_outcome(plan, done, profile)
    progress.inputs(plan.inputs)
    readable = [s for s in plan.streams if s.records is not None]
    opened = [open_stream(s, task_set, config, plan.split, profile, rename) for s in readable]
    ran = iter(run_record_streams(opened, settings, plan.inputs, config.jobs) if opened else [])
    results = [
        outcomes.with_sample_creation(s, next(ran), staging)
        if s.records is not None
        else outcomes.infeasible(s, task_set, variants, config.seed, staging, rename)
        for s in plan.streams
    ]
    order = plan.order or tuple(n for s in plan.streams for n in s.tasks)
    if rename is not None:
        order = tuple(rename(n) for n in order)
    return outcomes.merged(plan, results, order)


def planned(family: Family[Any, Any], config: BuildConfig) -> tuple[Plan, list[Any]]:
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
