"""``build costra PATH``: COSTRA's Czech sentence transformations (a folder with ``data.tsv``
and its README, or ``data.tsv`` itself) → ``transformations`` (every transformed sentence
with its seed, label = type, string similarity as a column), one config per transformation
type, and ``comparisons`` (the orderings COSTRA asserts).

The family's own choices: every row is a test row; the licence is read from the README (CC BY
4.0); the language is Czech (``--lang`` defaults to ``cs``); the source version is the
release the file's layout shows (1.0: 5 columns, 1.1: 9; :func:`polyprobe.loaders.costra.release`)
unless ``--source-version`` says otherwise. COSTRA has no option of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.lexical.costra import costra_tasks
from polyprobe.builders.options import option
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.languages import Language


@dataclass(frozen=True, kw_only=True)
class CostraConfig(EvaluationSetConfig):
    path: Path = option(
        help="COSTRA folder or its data.tsv",
        positional=True,
        parse=Path,
        metavar="PATH",
        profile=False,
    )
    lang: str = "cs"


class CostraFamily(SetFamily[CostraConfig]):
    name = "costra"
    help = "lexical: COSTRA's Czech sentence transformations and their orderings"
    description = (
        "Build COSTRA (a folder with data.tsv and README, or data.tsv): 'transformations' "
        "(seed, transformed sentence, string similarity; label = type), a config per "
        "transformation type, and 'comparisons' (the orderings the dataset asserts). Every row "
        "is a test row."
    )
    Config = CostraConfig
    make_tasks = staticmethod(costra_tasks)

    def sources(self, config: CostraConfig) -> LexicalSets:
        from polyprobe.loaders.costra import CostraSource

        return LexicalSets((CostraSource(config.path, config.source_version or None),))

    def card(
        self, config: CostraConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        (source,) = sources.sources
        version = source.info.version
        annotated = (
            " COSTRA 1.0 has no annotated comparisons: `comparisons` holds the basic ones."
            if version == "1.0"
            else ""
        )
        return CardText(
            pretty_name="COSTRA: Czech sentence transformations",
            summary=f"COSTRA {version} (Barančíková & Bojar 2020): Czech seed sentences and 14 kinds "
            "of transformations (paraphrase, minimal change, different meaning, opposite "
            "meaning, nonsense, past, future, ban, possibility, formal, nonstandard, simple, "
            "generalization). `transformations` pairs each transformed sentence with its seed "
            "(label = type; `string_similarity` = Levenshtein ratio to the seed); "
            "`comparisons` holds the orderings the dataset asserts, the same as the `costra` "
            "package's evaluator. Evaluate with `polyprobe evaluate ... --encoder ...`."
            + annotated,
            source_datasets=("original",),
            tags=("lexical", "sentence-embeddings", "costra", "polyprobe"),
            task_categories=("sentence-similarity",),
        )


COSTRA = CostraFamily()
