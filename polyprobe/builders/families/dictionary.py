"""``build dictionary``: a bilingual dictionary (``src TAB tgt`` lines, or Multi-SimLex's
concepts for two of its languages) → one config for cross-lingual mapping evaluation.

The family's own choices: ``--lang`` is the source language, ``--target-lang`` the
translations'; rows are split by source word into train and test (``--test-share`` percent of
the source words in test, no source word in both), so a mapping fitted on train is judged on
words it never saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.lexical.dictionary import dictionary_tasks
from polyprobe.builders.options import option
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language


@dataclass(frozen=True, kw_only=True)
class DictionaryConfig(EvaluationSetConfig):
    path: Path = option(
        help="src<TAB>tgt lines, or Multi-SimLex's Concepticon TSV with --multisimlex",
        positional=True,
        parse=Path,
        metavar="FILE",
        profile=False,
    )
    target_lang: str = option(help="the translations' language")
    multisimlex: bool = option(
        False,
        help="FILE is Multi-SimLex's Concepticon TSV: its concepts in --lang and --target-lang",
    )
    test_share: int = option(20, help="percent of source words in test")
    source_license: str | None = option(
        None,
        help="licence of a user's dictionary, for the card (the same as --license NAME=ID)",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.test_share, bool) or not 0 < self.test_share < 100:
            raise UsageError(f"test share must lie between 1 and 99 percent, not {self.test_share}")
        if self.source_license:  # the dictionary is the build's one source
            overrides = {"*": self.source_license, **self.license_overrides}
            object.__setattr__(self, "license_overrides", overrides)


class DictionaryFamily(SetFamily[DictionaryConfig]):
    name = "dictionary"
    help = "lexical: a bilingual dictionary (src TAB tgt, or Multi-SimLex concepts)"
    description = (
        "Build a bilingual dictionary for cross-lingual mapping evaluation: --lang is the "
        "source language; train and test split by source word (no source word in both)."
    )
    Config = DictionaryConfig
    make_tasks = staticmethod(dictionary_tasks)

    def sources(self, config: DictionaryConfig) -> LexicalSets:
        from polyprobe.loaders.dictionary import DictionarySource

        source = DictionarySource(
            config.path,
            config.lang,
            config.target_lang,
            multisimlex=config.multisimlex,
            source_version=config.source_version or "unknown",
        )
        return LexicalSets((source,))

    def split(self, config: DictionaryConfig) -> SplitSpec:
        share = config.test_share
        return SplitSpec(
            "ratio",
            (100 - share, 0, share),
            reason="by source word: no source word in both train and test",
        )

    def card(
        self, config: DictionaryConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        return CardText(
            pretty_name=f"Bilingual dictionary {config.lang}-{config.target_lang}",
            summary="A bilingual dictionary for cross-lingual mapping evaluation: each row a "
            "source word and a translation; train and test split by source word. Evaluate "
            "with `polyprobe evaluate ... --encoder ...`: orthogonal Procrustes fitted on "
            "train, P@1/5/10 on test by nearest neighbour and CSLS, both directions.",
            source_datasets=("original",),
            tags=("lexical", "bilingual-dictionary", "polyprobe"),
            task_categories=("translation",),
        )


DICTIONARY = DictionaryFamily()
