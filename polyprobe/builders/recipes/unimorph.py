"""``build unimorph``: a UniMorph lexicon (+ frequency lists, + Wuggy pseudowords) → one dataset
folder per language with LINSPECTOR's type-level suite, under leakage controls LINSPECTOR
lacked (forms never cross splits; in ``-lemma-disjoint`` configs, lemmas never do either).

The recipe's own choices: files given together form one lexicon (SIGMORPHON's train/dev/test
are merged and re-split); every word task fits on the whole lexicon at once (a few hundred
thousand lines at most, so candidates stay Python objects); split *sizes*, not ratios
(LINSPECTOR published 7000/2000/1000; ``--scale`` derives them from the data). Everything
else — variants, class floors, releases, ``--on-invalid``, the report — is the shared build.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.assemble import assemble
from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.task import TaskContext
from polyprobe.builders.variants import SplitSpec, VariantSettings
from polyprobe.builders.word.common import FREQUENT_SHARE, NONE_SHARE, SCALE_SHARE
from polyprobe.builders.word.corpus import PathLike, WordCorpus, WordInputs
from polyprobe.builders.word.sets import candidate_sets
from polyprobe.builders.word.tasks import DEFAULT_SPLIT_SIZES, WordOptions, WordTask, check_sizes
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo
from polyprobe.version import __version__


@dataclass
class UniMorphRecipe:
    """``build unimorph`` on the shared build. ``word_options`` (``--min-forms``,
    ``--scale``, ``--split-sizes``) are every word task's options; a profile's
    ``[tasks.<name>]`` overrides them per task."""

    inputs: WordInputs
    options: BuildOptions
    word_options: WordOptions = field(default_factory=WordOptions)
    layout: str | None = None
    log: Callable[[str], None] | None = None
    family: str = "unimorph"

    def __post_init__(self) -> None:
        from polyprobe.builders.registry import resolve_task_names

        self.say = self.log or (lambda _msg: None)
        self.language = resolve_language(self.options.lang)
        self.task_names = resolve_task_names("unimorph", self.options.tasks)
        self.tasks = self._configure()
        self.policy = InvalidPolicy(self.options.on_invalid)
        self.pseudo = "pseudo" in self.task_names and self.inputs.has_wuggy
        self._corpus: tuple[WordCorpus, dict[str, Any]] | None = None

    def _configure(self) -> list[WordTask]:
        """Every task with its options: the command line's, then a profile's
        ``[tasks.<name>]`` (every table is checked, built or not)."""
        from polyprobe.builders.profile import checked_profile
        from polyprobe.builders.registry import family_tasks, get_task

        opts = self.options
        names = [*family_tasks("unimorph"), *self.task_names]
        classes = {n: get_task("unimorph", n) for n in names}
        base = asdict(self.word_options)
        self.overrides: dict[str, Any] = {"language": {}, "tasks": {}}
        if opts.profile is not None:
            self.overrides = checked_profile(opts.profile, classes, base)
        context = TaskContext(
            lang=self.language.code, seed=opts.seed, min_per_class=opts.min_per_class.as_tuple()
        )
        tables = self.overrides["tasks"]
        return [
            classes[n].configure({**base, **tables.get(n, {})}, context)  # type: ignore[misc]
            for n in self.task_names
        ]

    def sources(self) -> list[SourceInfo]:
        """Lexicon, pseudoword table, frequency lists. A generated table is known only once
        generated, which needs the lexicon: it is read now."""
        pseudo: list[SourceInfo] = []
        if self.pseudo and self.inputs.wuggy_output is not None:
            pseudo = [self.inputs.wuggy_output_info()]
        elif self.pseudo:
            generated = self.corpus()[0].pseudowords
            assert generated is not None
            pseudo = [generated.source]
        return [
            *(s.info for s in self.inputs.lexicons),
            *pseudo,
            *(s.info for s in self.inputs.frequencies),
        ]

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        """What the lexicon's file names and the frequency treebanks declare."""
        return [(s.name, s.languages) for s in (*self.inputs.lexicons, *self.inputs.frequencies)]

    def corpus(self) -> tuple[WordCorpus, dict[str, Any]]:
        """The corpus every task fits on and the lexicon's facts, read once."""
        if self._corpus is None:
            self._corpus = self.inputs.read(
                lang=self.language.code,
                iso3=self.language.iso639_3,
                seed=self.options.seed,
                pseudo=self.pseudo,
                policy=self.policy,
                say=self.say,
            )
        return self._corpus

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        corpus, lexicon = self.corpus()
        settings = VariantSettings(
            split=SplitSpec("sizes", counts=self.word_options.split_sizes),  # each set has its own
            sizes=options.sizes,
            balances=options.balances,
            min_per_class=options.min_per_class,
        )
        assembled, recipes = [], []
        for task in progress(self.tasks) if progress is not None else self.tasks:
            self.say(f"task {task.name}")
            fit = task.fit(corpus)
            meta = task.metadata
            report = {"task": task.name, "level": meta.level.value, "task_type": meta.task_type}
            report.update(fit.report)
            if fit.infeasible is not None:  # no candidate set carries the task's drops
                report["task_drops"] = dict(fit.drops)
            sets = candidate_sets(task, fit, corpus)
            assembled.append(
                assemble(
                    sets,
                    settings,
                    options.seed,
                    staging,
                    task_report=report,
                    infeasible=fit.infeasible,
                )
            )
            recipes.append(
                {
                    "name": task.name,
                    "recipe_version": meta.recipe_version,
                    "parameters": task.parameters(fit),
                }
            )
        pw = corpus.pseudowords
        profile: dict[str, Any] = {"lexicon": lexicon}
        if pw is not None:
            profile["pseudowords"] = pw.facts
        if options.profile is not None:
            profile["overrides"] = {"file": options.profile.name, **self.overrides}
        wo = self.word_options
        return Outcome(
            assembled=assembled,
            recipes=recipes,
            profile=profile,
            parameters={
                "layout": self.layout or "detected per file",
                "min_forms": wo.sizes.min_forms,
                "scale": wo.scale,
                "scale_share": SCALE_SHARE if wo.scale else None,
                "scale_floor": wo.sizes.scale_floor if wo.scale else None,
                "split_sizes": list(wo.split_sizes),
                "split_sizes_meaning": "proportions of each task's derived size (--scale)"
                if wo.scale
                else "train/validation/test rows",
                "none_share": NONE_SHARE,
                "frequent_share": FREQUENT_SHARE if self.inputs.frequencies else None,
                "frequencies": [s.name for s in self.inputs.frequencies],
                "wuggy": pw.facts["wuggy_table"] if pw is not None else None,
                "wuggy_max_seeds": self.inputs.wuggy_max_seeds
                if self.inputs.wuggy_lexicon is not None
                else None,
            },
            skipped=dict(self.policy.skipped),
            split=f"sizes {'/'.join(map(str, wo.split_sizes))}"
            + (" (proportions; sizes derived per task with --scale)" if wo.scale else ""),
            facts={"lexicon": lexicon, "wuggy_cached": bool(pw is not None and pw.cached)},
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        names = ", ".join(s.name for s in self.inputs.lexicons)
        return CardText(
            pretty_name=f"polyprobe word-level probing suite ({language.name})",
            summary=(
                f"Type-level word probing tasks for {language.name} (the suite of LINSPECTOR, "
                f"Şahin et al. 2020) built by polyprobe {__version__} from UniMorph "
                f"({names}). Word forms never occur in two splits of a config; "
                "`-lemma-disjoint` configs keep every lemma in one split. Tasks that could not "
                "be built are listed with the reason in `report.json`."
            ),
            source_datasets=tuple(f"unimorph/{s.name}" for s in self.inputs.lexicons),
            tags=("probing", "polyprobe", "linspector", "morphology", "word-level"),
        )


def build_unimorph(
    paths: Sequence[PathLike],
    *,
    layout: str | None = None,
    frequencies: Sequence[PathLike] | None = None,
    wuggy_lexicon: PathLike | None = None,
    wuggy_output: PathLike | None = None,
    wuggy_max_seeds: int = 10_000,
    min_forms: int | None = None,
    split_sizes: Sequence[int] = DEFAULT_SPLIT_SIZES,
    scale: bool = False,
    wuggy_cache: PathLike | None = None,
    log: Callable[[str], None] | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Build the word-level suite for one language from a UniMorph lexicon; mirrors
    ``polyprobe build unimorph``. ``options`` are :meth:`BuildOptions.make`'s (``lang``,
    ``out``, ``tasks``, ``sizes``, ``seed``, ``on_invalid``, ``release``, ``previous``, ...).

    ``min_forms``: LINSPECTOR's eligibility threshold and task size (default 10,000); with
    ``scale=True`` the size is 50% of the forms carrying the feature and ``min_forms`` is its
    floor (default 1,000). ``split_sizes``: train/validation/test rows (LINSPECTOR 7000/2000/
    1000); with ``scale`` they are the proportions of the derived size. Files in ``paths``
    form one lexicon; ``frequencies`` are UD treebank folders, CoNLL-U files or word lists;
    ``wuggy_output`` reads a Wuggy table, ``wuggy_lexicon`` generates one offline (cached in
    ``wuggy_cache``). The result's ``facts`` hold ``lexicon`` (the lexicon's facts, as the
    card's profile) and ``wuggy_cached`` (the generated table came from the cache)."""
    opts = BuildOptions.make(**options)
    try:
        floor, counts = check_sizes(min_forms, split_sizes, lambda k: "--" + k.replace("_", "-"))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    inputs = WordInputs.make(
        paths,
        layout=layout,
        iso3=resolve_language(opts.lang).iso639_3,
        frequencies=frequencies,
        license_overrides=dict(opts.license_overrides),
        source_version=opts.source_version,
        wuggy_lexicon=wuggy_lexicon,
        wuggy_output=wuggy_output,
        wuggy_max_seeds=wuggy_max_seeds,
        wuggy_cache=wuggy_cache,
    )
    word_options = WordOptions(min_forms=floor, scale=scale, split_sizes=counts)
    recipe = UniMorphRecipe(inputs, opts, word_options, layout=layout, log=log)
    return build(recipe, opts, progress=progress)


__all__ = ["UniMorphRecipe", "build_unimorph"]
