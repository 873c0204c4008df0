"""``build unimorph``: a UniMorph lexicon (+ frequency lists, + Wuggy pseudowords) → one dataset
folder per language with LINSPECTOR's type-level suite, under leakage controls LINSPECTOR
lacked (forms never cross splits; in ``-lemma-disjoint`` configs, lemmas never do either).

The family's own choices: files given together form one lexicon (SIGMORPHON's train/dev/test
are merged and re-split); every word task fits on the whole lexicon at once (a lexicon, read
in the build's process: a few hundred thousand lines at most, so candidates stay Python
objects); split *sizes*, not ratios (LINSPECTOR published 7000/2000/1000; ``--scale`` derives
them from the data). ``--min-forms``, ``--scale`` and ``--split-sizes`` are every word task's
options, below a profile's ``[tasks.<name>]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.family import CardText, Family, Lexicon, Outcome, Plan, TaskSet
from polyprobe.builders.options import (
    BuildConfig,
    flag_of,
    option,
    option_of,
    optional_path,
    paths_option,
)
from polyprobe.builders.records.word_sets import candidate_sets
from polyprobe.builders.records.words import WordInputs, Wuggy
from polyprobe.builders.variants import SplitSpec
from polyprobe.builders.word.common import FREQUENT_SHARE, NONE_SHARE, SCALE_SHARE
from polyprobe.builders.word.tasks import (
    DEFAULT_SPLIT_SIZES,
    WORD_TASKS,
    WordOptions,
    check_sizes,
    layer_task,
    parse_split_sizes,
)
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.version import __version__


@dataclass(frozen=True, kw_only=True)
class UnimorphConfig(BuildConfig):
    paths: tuple[Path, ...] = paths_option(
        help="UniMorph files or folders (one lexicon, merged)",
        positional=True,
        profile=False,
    )
    layout: str | None = option(
        None,
        help="column order of every file: lemma-form-feats (UniMorph 2-4, SIGMORPHON 2018) or "
        "lemma-feats-form (SIGMORPHON 2023); default: detected per file",
    )
    frequencies: tuple[Path, ...] = paths_option(
        help="word lists (word per line, or word TAB count) and/or UD treebanks: sample 80%% "
        "frequent / 20%% rare forms",
        metavar="FILE|UD_PATH",
        profile=False,
    )
    wuggy_lexicon: Path | None = option(
        None,
        help="syllabified lexicon (word TAB syl-la-bles TAB freq): generate pseudowords offline",
        parse=optional_path,
        profile=False,
    )
    wuggy_output: Path | None = option(
        None, help="an existing Wuggy output table", parse=optional_path, profile=False
    )
    wuggy_max_seeds: int = option(10_000, help="seed words for generation (~0.34 s each)")
    min_forms: int | None = option(
        None,
        help="forms a task needs and takes (default 10000, LINSPECTOR); with --scale, the "
        "floor of the derived size (default 1000)",
    )
    split_sizes: tuple[int, ...] = option(
        DEFAULT_SPLIT_SIZES,
        help="train,validation,test rows; with --scale, proportions",
        parse=parse_split_sizes,
        metavar="SPLIT_SIZES",
    )
    scale: bool = option(
        False,
        help="derive sizes from the data: 50%% of the forms carrying a feature (floor "
        "--min-forms or 1000), split in the --split-sizes proportions",
    )
    wuggy_cache: Path | None = option(
        None,
        help="where generated Wuggy tables are cached (default: polyprobe's cache folder)",
        parse=optional_path,
        cli=False,
        profile=False,
    )

    def __post_init__(self) -> None:
        super().__post_init__()

        def spell(name: str) -> str:
            spec = option_of(type(self), name)
            assert spec is not None
            return flag_of(name, spec)

        try:
            floor, counts = check_sizes(self.min_forms, self.split_sizes, spell)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        object.__setattr__(self, "min_forms", floor)
        object.__setattr__(self, "split_sizes", counts)
        if self.wuggy_lexicon is not None and self.wuggy_output is not None:
            raise UsageError(
                "give either --wuggy-lexicon (generate) or --wuggy-output (read), not both"
            )
        if self.wuggy_max_seeds < 1:
            raise UsageError(f"--wuggy-max-seeds {self.wuggy_max_seeds}: must be at least 1")
        if self.layout is not None:
            from polyprobe.loaders.unimorph import normalise_layout

            normalise_layout(self.layout)  # an unknown layout is a UsageError naming it

    def word_options(self) -> WordOptions:
        """What this config's options set for every word task."""
        return WordOptions(
            min_forms=self.min_forms,
            scale=self.scale,
            split_sizes=self.split_sizes,  # type: ignore[arg-type]
        )


# LINSPECTOR's 15, in the order the card lists them; argument-layer tasks (person_dat,
# person_acc, ...) are made by their name, only when named.
WORD_TASK_SET = TaskSet.of(*WORD_TASKS, maker=layer_task)


class UnimorphFamily(Family[UnimorphConfig, WordInputs]):
    name = "unimorph"
    help = "word-level probing tasks (LINSPECTOR's suite) from a UniMorph lexicon"
    description = (
        "Build LINSPECTOR's type-level word tasks (case, gender, mood, number, person, "
        "polarity, possession, tense, voice, pos, tag_count, character_bin, pseudo, "
        "same_feature, odd_feature) for one language from UniMorph files. Several files form "
        "one lexicon (SIGMORPHON's train/dev/test are merged and re-split). Word forms never "
        "occur in two splits; '-lemma-disjoint' configs keep every lemma in one split."
    )
    Config = UnimorphConfig
    tasks = WORD_TASK_SET

    def sources(self, config: UnimorphConfig) -> WordInputs:
        names = WORD_TASK_SET.resolve(config.tasks)
        wuggy = Wuggy(
            config.wuggy_lexicon, config.wuggy_output, config.wuggy_max_seeds, config.wuggy_cache
        )
        return WordInputs.make(
            config.paths,
            config.frequencies,
            layout=config.layout,
            language=config.language,
            source_version=config.source_version,
            seed=config.seed,
            wuggy=wuggy,
            pseudo="pseudo" in names,
            policy=InvalidPolicy(config.on_invalid),
        )

    def plan(self, config: UnimorphConfig, sources: WordInputs, names: Sequence[str]) -> Plan:
        corpus, lexicon = sources.corpus()
        wo = config.word_options()
        pw = corpus.pseudowords
        profile: dict[str, Any] = {"lexicon": lexicon}
        if pw is not None:
            profile["pseudowords"] = pw.facts
        parameters = {
            "layout": config.layout or "detected per file",
            "min_forms": wo.sizes.min_forms,
            "scale": wo.scale,
            "scale_share": SCALE_SHARE if wo.scale else None,
            "scale_floor": wo.sizes.scale_floor if wo.scale else None,
            "split_sizes": list(wo.split_sizes),
            "split_sizes_meaning": "proportions of each task's derived size (--scale)"
            if wo.scale
            else "train/validation/test rows",
            "none_share": NONE_SHARE,
            "frequent_share": FREQUENT_SHARE if sources.frequencies else None,
            "frequencies": [s.name for s in sources.frequencies],
            "wuggy": pw.facts["wuggy_table"] if pw is not None else None,
            "wuggy_max_seeds": config.wuggy_max_seeds if config.wuggy_lexicon is not None else None,
        }
        summary = f"sizes {'/'.join(map(str, wo.split_sizes))}" + (
            " (proportions; sizes derived per task with --scale)" if wo.scale else ""
        )
        return Plan(
            split=SplitSpec("sizes", counts=wo.split_sizes),  # each set has its own
            lexicon=Lexicon(
                corpus,
                tuple(names),
                candidate_sets,
                defaults={
                    "min_forms": wo.min_forms,
                    "scale": wo.scale,
                    "split_sizes": wo.split_sizes,
                },
                profile=profile,
            ),
            parameters=parameters,
            skipped=dict(sources.policy.skipped),
            summary=summary,
            facts={"lexicon": lexicon, "wuggy_cached": bool(pw is not None and pw.cached)},
        )

    def card(
        self, config: UnimorphConfig, sources: WordInputs, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.lexicons)
        return CardText(
            pretty_name=f"polyprobe word-level probing suite ({language.name})",
            summary=(
                f"Type-level word probing tasks for {language.name} (the suite of LINSPECTOR, "
                f"Şahin et al. 2020) built by polyprobe {__version__} from UniMorph "
                f"({names}). Word forms never occur in two splits of a config; "
                "`-lemma-disjoint` configs keep every lemma in one split. Tasks that could not "
                "be built are listed with the reason in `report.json`."
            ),
            source_datasets=tuple(f"unimorph/{s.name}" for s in sources.lexicons),
            tags=("probing", "polyprobe", "linspector", "morphology", "word-level"),
        )


UNIMORPH = UnimorphFamily()
