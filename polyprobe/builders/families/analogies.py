"""``build analogies``: one word-analogy set → a config with every question (label = its
category) and one per category; every question a test row, each category marked semantic or
morphological.

Two ways in, one family: analogy FILES (Google ``: category`` text, vecto CSV, or four words a
line with the category in the file name; ``gram…`` categories are morphological unless
``--semantic``/``--morphological`` say otherwise), or ``--unimorph LEXICON``: morphological
analogies generated from a UniMorph lexicon (:mod:`polyprobe.builders.lexical.generate`),
``--frequencies`` ranking the lemmas, ``--cross-unimorph`` adding a cross-lingual set.

Cross-lingual sets (``--cross FILES --cross-lang xx`` with analogy FILES, or
``--cross-unimorph``) are a mode of this family rather than a family of their own: their
inputs are the same layouts read by the same reader, their rows the same ``word-analogy``
questions; only the pairing differs (:mod:`polyprobe.builders.lexical.crosslingual`). The
card then names both languages (``languages: [--lang, --cross-lang]``) and the direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.lexical.analogies import analogy_tasks
from polyprobe.builders.options import option, paths_option, split_list
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.errors import UsageError
from polyprobe.languages import Language


def _names(value: object) -> tuple[str, ...]:
    return split_list(value) or ()  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class AnalogiesConfig(EvaluationSetConfig):
    paths: tuple[Path, ...] = paths_option(
        help="analogy files forming one set: Google ': category' text, vecto CSV "
        "(,type,word1,word2,word3,target), or four words a line (category = file name, "
        "e.g. ANA_capital-country.txt)",
        positional=True,
        required=False,
        metavar="FILE",
        profile=False,
    )
    name: str = option("", help="the set's name (default: from the files)")
    semantic: tuple[str, ...] = option(
        (), help="comma-separated categories to mark semantic", parse=_names
    )
    morphological: tuple[str, ...] = option(
        (),
        help="comma-separated categories to mark morphological (default: gram* ones)",
        parse=_names,
    )
    source_license: str | None = option(
        None,
        help="licence of the analogy files, for the card (default: unknown; the same as "
        "--license SET=ID)",
    )
    unimorph: tuple[Path, ...] = paths_option(
        help="generate morphological analogies from this UniMorph lexicon (files or folder; "
        "repeatable) instead of reading analogy FILES",
        metavar="LEXICON",
        profile=False,
    )
    frequencies: tuple[Path, ...] = paths_option(
        help="with --unimorph: UD treebank, CoNLL-U file or word list ranking the lemmas "
        "(repeatable; listed as reference sources)",
        profile=False,
    )
    cross_unimorph: tuple[Path, ...] = paths_option(
        help="with --unimorph: another language's lexicon; adds cross-lingual analogies "
        "(a : b in --lang, c : d in it) for the categories both share",
        metavar="LEXICON",
        profile=False,
    )
    cross: tuple[Path, ...] = paths_option(
        help="with analogy FILES: the second language's analogy files, in the same layout "
        "with the same category names; adds a cross-lingual set (word1 : word2 in --lang, "
        "word3 : word4 in --cross-lang; line-aligned categories pair question k with "
        "question k)",
        metavar="FILE",
        profile=False,
    )
    cross_lang: str = option(
        "", help="the language of --cross (required with it) or of --cross-unimorph"
    )
    max_categories: int = option(15, help="with --unimorph")
    pairs_per_category: int = option(40, help="with --unimorph")
    max_questions: int = option(500, help="with --unimorph, per category")
    min_pairs: int = option(5, help="with --unimorph: fewest usable lemmas a category needs")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.unimorph and self.paths:
            raise UsageError("build analogies: give analogy FILES or --unimorph, not both")
        if not self.unimorph and not self.paths:
            raise UsageError("build analogies: give analogy FILES (or --unimorph LEXICON)")
        generated = {
            "--frequencies": self.frequencies,
            "--cross-unimorph": self.cross_unimorph,
        }
        read = {
            "--semantic": self.semantic,
            "--morphological": self.morphological,
            "--source-license": self.source_license,
            "--cross": self.cross,
        }
        mode, wrong = ("--unimorph", read) if self.unimorph else ("analogy FILES", generated)
        for flag, value in wrong.items():
            if value:
                raise UsageError(f"build analogies: {flag} does not apply to {mode}")
        if self.cross_lang and not (self.cross_unimorph or self.cross):
            raise UsageError(
                "build analogies: --cross-lang names the --cross files' or the "
                "--cross-unimorph lexicon's language"
            )
        if self.cross and not self.cross_lang:
            raise UsageError("build analogies: --cross needs --cross-lang (its language)")
        if self.cross and self.cross_lang == self.lang:
            raise UsageError(
                f"build analogies: --cross-lang {self.cross_lang} is --lang: a cross-lingual "
                "set needs two languages"
            )
        if self.source_license:  # the analogy files are the build's one source
            overrides = {"*": self.source_license, **self.license_overrides}
            object.__setattr__(self, "license_overrides", overrides)


class AnalogiesFamily(SetFamily[AnalogiesConfig]):
    name = "analogies"
    help = "lexical: word analogy sets (Google, vecto CSV, FinSemEvl; generated from UniMorph)"
    description = (
        "Build one analogy set: a config with every question (label = its category) and one "
        "per category, every question a test row; each category marked semantic or "
        "morphological."
    )
    Config = AnalogiesConfig
    make_tasks = staticmethod(analogy_tasks)

    def sources(self, config: AnalogiesConfig) -> LexicalSets:
        if config.unimorph:
            from polyprobe.builders.lexical.generate import GenerationOptions
            from polyprobe.builders.records.generated import generated_analogies

            options = GenerationOptions(
                max_categories=config.max_categories,
                pairs_per_category=config.pairs_per_category,
                max_questions=config.max_questions,
                min_pairs=config.min_pairs,
            )
            source = generated_analogies(
                config.unimorph,
                config.frequencies,
                config.cross_unimorph,
                cross_lang=config.cross_lang,
                name=config.name,
                language=config.language,
                seed=config.seed,
                options=options,
                source_version=config.source_version,
            )
            return LexicalSets((source,))
        from polyprobe.loaders.analogies import AnalogySource

        overrides = {c: True for c in config.semantic} | {c: False for c in config.morphological}
        source = AnalogySource(
            config.paths,
            name=config.name,
            lang=config.lang,
            source_version=config.source_version or "unknown",
            semantic=overrides,
        )
        if not config.cross:
            return LexicalSets((source,))
        from polyprobe.builders.records.generated import CrossAnalogyFiles

        second = AnalogySource(
            config.cross,
            lang=config.cross_lang,
            source_version=config.source_version or "unknown",
            semantic=overrides,
        )
        if second.name == source.name:  # one name for two sets: the second's gets its language
            second.name = f"{second.name}-{config.cross_lang}"
        return LexicalSets((CrossAnalogyFiles(source, second, config.seed, config.max_questions),))

    def card(
        self, config: AnalogiesConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        (source,) = sources.sources
        l2 = config.cross_lang if (config.cross or config.cross_unimorph) else ""
        langs = (config.lang, l2) if l2 else ()
        direction = (
            f" Cross-lingual questions: word1 : word2 in {config.lang}, word3 : word4 in {l2}."
            if l2
            else ""
        )
        if config.unimorph:
            return CardText(
                pretty_name=f"Morphological word analogies: {source.name}",
                summary="Morphological word analogies generated from a UniMorph lexicon: a "
                "category contrasts two paradigm cells of one part of speech (named by their "
                "UniMorph tags), its questions pair two lemmas' forms; no question uses a "
                "syncretic or overabundant cell. One config with every question (label = "
                "category) and one per category; every question is a test row. The card's "
                "notes list each category with its size and each infeasible one with why."
                + direction,
                source_datasets=("extended",),
                tags=("lexical", "word-analogy", "unimorph", "polyprobe"),
                languages=langs,
            )
        return CardText(
            pretty_name=f"Word analogies: {source.name}",
            summary="Word analogy questions (a : b :: c : d) as a polyprobe dataset: one config "
            "with every question (label = its category) and one per category; every question "
            "is a test row. Categories are marked semantic or morphological (card profile). "
            "Evaluate with 3CosAdd and 3CosMul over the top-N words of an embedding's "
            "vocabulary, question words excluded, out-of-vocabulary questions counted." + direction,
            source_datasets=("original",),
            tags=("lexical", "word-analogy", "polyprobe"),
            languages=langs,
        )


ANALOGIES = AnalogiesFamily()
