"""The build spine: every source family is a :class:`Recipe` on one shared build.

    options ─▶ languages ─▶ recipe.sources ─▶ licence ─▶ recipe.run (tasks → assemble, into
    the staging folder) ─▶ configs adopted, default marked ─▶ fingerprint ─▶ card (release
    check) ─▶ folder

What a recipe decides: which sources it reads, which tasks it offers, how their candidates
are made (a record stream, a whole lexicon) and what its card says about itself. What every
family gets from here, the same way: option checks, ``--lang`` against the languages the
sources declare, the licence rule, releases and ``--previous``, the default config, the
fingerprint, ``report.json`` and the atomic folder.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from polyprobe.builders.assemble import AssembledTask, TaskSummary
from polyprobe.builders.provenance import card_license, fingerprint
from polyprobe.builders.variants import (
    MinPerClass,
    SizeSpec,
    SplitSpec,
    VariantSettings,
    parse_sizes,
)
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.metadata import DatasetMeta, SourceInfo
from polyprobe.version import __version__

ON_INVALID = ("raise", "skip")
BALANCES = ("natural", "balanced")

Progress = Callable[[Iterable[Any]], Iterable[Any]]


@dataclass(frozen=True)
class BuildOptions:
    """The options every family's build takes, checked before any input is read (see
    :meth:`make`). A family's own options live on its recipe."""

    lang: str
    out: Path
    tasks: tuple[str, ...] | None = None
    sizes: tuple[SizeSpec, ...] = (SizeSpec("full"),)
    balances: tuple[str, ...] = BALANCES
    min_per_class: MinPerClass = field(default_factory=MinPerClass)
    seed: int = 0
    on_invalid: str = "raise"
    overwrite: bool = False
    license_overrides: Mapping[str, str] = field(default_factory=dict)
    source_version: str | None = None
    allow_license_mix: bool = False
    release: str | None = None
    previous: Path | None = None
    allow_bump_mismatch: bool = False
    profile: Path | None = None
    jobs: int | None = None
    allow_language_mismatch: bool = False

    @classmethod
    def make(
        cls,
        *,
        lang: str,
        out: str | os.PathLike[str],
        tasks: Sequence[str] | None = None,
        sizes: str | Sequence[SizeSpec] | None = None,
        balances: Sequence[str] = BALANCES,
        min_per_class: tuple[int, int, int] | MinPerClass = (50, 20, 20),
        seed: int = 0,
        on_invalid: str = "raise",
        overwrite: bool = False,
        license_overrides: Mapping[str, str] | None = None,
        source_version: str | None = None,
        allow_license_mix: bool = False,
        release: str | None = None,
        previous: str | os.PathLike[str] | None = None,
        allow_bump_mismatch: bool = False,
        profile: str | os.PathLike[str] | None = None,
        jobs: int | None = None,
        allow_language_mismatch: bool = False,
    ) -> BuildOptions:
        """Options from the forms callers use (``"10k,0.5"``, ``(50, 20, 20)``); a
        :class:`UsageError` names the first bad one."""
        if on_invalid not in ON_INVALID:
            raise UsageError(f"--on-invalid must be 'raise' or 'skip', not {on_invalid!r}")
        resolve_language(lang)  # an unknown code is a UsageError naming it
        size_specs = parse_sizes(sizes) if isinstance(sizes, str) or sizes is None else tuple(sizes)
        floors = (
            min_per_class if isinstance(min_per_class, MinPerClass) else MinPerClass(*min_per_class)
        )
        if not balances:
            raise UsageError("--balances: give natural and/or balanced")
        for b in balances:
            if b not in BALANCES:
                raise UsageError(f"unknown balance {b!r}: use natural and/or balanced")
        if jobs is not None and jobs < 1:
            raise UsageError(f"--jobs must be a positive integer, not {jobs}")
        return cls(
            lang=lang,
            out=Path(out),
            tasks=tuple(dict.fromkeys(tasks)) if tasks else None,
            sizes=size_specs,
            balances=tuple(balances),
            min_per_class=floors,
            seed=int(seed),
            on_invalid=on_invalid,
            overwrite=overwrite,
            license_overrides=dict(license_overrides or {}),
            source_version=source_version,
            allow_license_mix=allow_license_mix,
            release=release,
            previous=None if previous is None else Path(previous),
            allow_bump_mismatch=allow_bump_mismatch,
            profile=None if profile is None else Path(profile),
            jobs=jobs,
            allow_language_mismatch=allow_language_mismatch,
        )

    def variant_settings(self, split: SplitSpec) -> VariantSettings:
        """How the variant engine splits, balances and sizes every task of this build."""
        return VariantSettings(
            split=split, sizes=self.sizes, balances=self.balances, min_per_class=self.min_per_class
        )


@dataclass
class Outcome:
    """What a recipe's run produced: every task assembled (configs written into the staging
    folder), in the order the card lists them, and what the card says about the run."""

    assembled: list[AssembledTask]
    recipes: list[dict[str, Any]]  # name, recipe version, parameters per task (fingerprint)
    profile: dict[str, Any]  # every language/data-derived choice
    parameters: dict[str, Any]  # the family's own build parameters (the card's, in order)
    skipped: dict[str, int] = field(default_factory=dict)  # invalid input skipped, by reason
    duplicates: dict[str, int] = field(default_factory=dict)
    split: str = ""  # how splits were made, for the closing summary
    facts: dict[str, Any] = field(default_factory=dict)  # for the caller (closing summary)


@dataclass(frozen=True)
class CardText:
    """How a family's card presents itself."""

    pretty_name: str
    summary: str
    source_datasets: tuple[str, ...] = ()
    tags: tuple[str, ...] = ("probing", "polyprobe")
    task_categories: tuple[str, ...] = ("text-classification",)
    # The dataset's languages when it has several (a parallel corpus); empty: ``--lang``.
    languages: tuple[str, ...] = ()


class Recipe(Protocol):
    """A source family: its sources' languages and descriptions, its tasks' run, its card
    text."""

    family: str

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        """Each source's name and the languages it declares (:mod:`polyprobe.loaders.declared`;
        none when the source says nothing), checked against ``--lang`` before anything is read
        (:func:`check_languages`)."""
        ...

    def sources(self) -> list[SourceInfo]:
        """Every input, described for the card (read before any task runs)."""
        ...

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        """Make and assemble every task into ``staging``."""
        ...

    def card(self, language: Language, outcome: Outcome) -> CardText: ...


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


def build(
    recipe: Recipe, options: BuildOptions, *, progress: Progress | None = None
) -> BuildResult:
    """Run ``recipe`` and write its dataset folder at ``options.out`` (atomically: on any
    error, nothing is left behind)."""
    from polyprobe.cards.folder import DatasetFolderWriter
    from polyprobe.cards.release import ReleaseRequest

    release = ReleaseRequest.make(options.release, options.previous, options.allow_bump_mismatch)
    language = resolve_language(options.lang)
    mismatch = check_languages(
        options.lang, language, recipe.languages(), options.allow_language_mismatch
    )
    sources = recipe.sources()
    license_id, mixed = card_license(sources, options.allow_license_mix)
    with DatasetFolderWriter(options.out, overwrite=options.overwrite) as writer:
        outcome = recipe.run(options, writer.tmp, progress)
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
        parameters = build_parameters(options, language, outcome, language_mismatch=mismatch)
        text = recipe.card(language, outcome)
        meta = DatasetMeta(
            pretty_name=text.pretty_name,
            languages=list(text.languages) or [language.code],
            license=license_id,
            sources=sources,
            polyprobe_version=__version__,
            fingerprint=fingerprint(sources, outcome.recipes, parameters, outcome.profile),
            parameters=parameters,
            skipped_invalid=dict(sorted(outcome.skipped.items())),
            duplicates=dict(outcome.duplicates),
            feasibility={a.name: a.report for a in outcome.assembled},
            profile=outcome.profile,
            license_mix_allowed=options.allow_license_mix and mixed,
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
    options: BuildOptions,
    language: Language,
    outcome: Outcome,
    *,
    language_mismatch: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The card's build parameters: the shared ones, with the family's own after the
    variants they qualify. ``allow_language_mismatch`` (and the mismatch it let through)
    only appear when given, so the cards of other builds keep their bytes."""
    extra: dict[str, Any] = {}
    if options.allow_language_mismatch:
        extra["allow_language_mismatch"] = True
        if language_mismatch:
            extra["language_mismatch"] = {k: list(v) for k, v in language_mismatch.items()}
    return {
        "lang": language.code,
        "tasks": [a.name for a in outcome.assembled],
        "sizes": [s.label for s in options.sizes],
        "balances": list(options.balances),
        **outcome.parameters,
        "min_per_class": {
            "train": options.min_per_class.train,
            "validation": options.min_per_class.validation,
            "test": options.min_per_class.test,
        },
        "seed": options.seed,
        "on_invalid": options.on_invalid,
        "allow_license_mix": options.allow_license_mix,
        **extra,
    }
