"""``build similarity``: graded word-similarity sets (vecto CSV, FinnSim, Multi-SimLex's
Concepticon TSV, ``word1 TAB word2 TAB score``) → one config per set found in the files.

The family's own choices: every pair is a test row (an evaluation set); the label is the
set's score; the language is what the files declare (folder names such as
``monolingual/en``, FinnSim is Finnish, Multi-SimLex's ``--lang``), a cross-lingual set
declares none of its two languages and its config says which. For Multi-SimLex, ``--lang``
picks the language and ``--cross-lingual`` its partners (default: every other Multi-SimLex
language).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.lexical.similarity import similarity_tasks
from polyprobe.builders.options import option, paths_option
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.languages import Language


def partner_list(value: Any) -> tuple[str, ...]:
    """``"en,et"`` -> ``("en", "et")``; ``""`` -> ``()`` (no partner: not the default)."""
    items = value.split(",") if isinstance(value, str) else value
    return tuple(dict.fromkeys(str(i).strip() for i in items if str(i).strip()))


@dataclass(frozen=True, kw_only=True)
class SimilarityConfig(EvaluationSetConfig):
    paths: tuple[Path, ...] = paths_option(
        help="similarity files: vecto CSV (,word1,word2,similarity; language from the folder "
        "name), FinnSim semicolon CSV, Multi-SimLex's Concepticon TSV, or word1<TAB>word2<TAB>"
        "score",
        positional=True,
        metavar="FILE",
        profile=False,
    )
    cross_lingual: tuple[str, ...] | None = option(
        None,
        help="Multi-SimLex: comma-separated partner languages of --lang for cross-lingual "
        "sets (default: all eleven others; '' for none)",
        parse=partner_list,
    )


class SimilarityFamily(SetFamily[SimilarityConfig]):
    name = "similarity"
    help = "lexical: graded word-similarity sets (SimLex, SemEval-17, FinnSim, Multi-SimLex)"
    description = (
        "Build one config per similarity set in the files (a Multi-SimLex file gives --lang's "
        "pairs, one subset per POS, and cross-lingual sets). Scored rows: the label is the "
        "set's similarity score (float32); every pair is a test row; natural variant only."
    )
    Config = SimilarityConfig
    make_tasks = staticmethod(similarity_tasks)

    def sources(self, config: SimilarityConfig) -> LexicalSets:
        from polyprobe.loaders.similarity import MULTISIMLEX_CODES, SimilaritySource

        lang = config.language.code
        others = config.cross_lingual
        if others is None:
            others = tuple(MULTISIMLEX_CODES)
        version = config.source_version or "unknown"
        return LexicalSets(
            tuple(SimilaritySource(p, lang, others, source_version=version) for p in config.paths)
        )

    def card(
        self, config: SimilarityConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        return CardText(
            pretty_name="Word similarity",
            summary="Graded word-similarity sets as polyprobe datasets: each config is one set "
            "(language, or language pair for a cross-lingual set), every pair a test row, the "
            "label the set's similarity score (float). Evaluate with "
            "`polyprobe evaluate ... --encoder ...`: Spearman correlation of cosine similarity "
            "with the scores, out-of-vocabulary pairs counted.",
            source_datasets=("original",),
            tags=("lexical", "word-similarity", "polyprobe"),
            task_categories=("sentence-similarity",),
        )


SIMILARITY = SimilarityFamily()
