"""``build in-context-similarity``: CoSimLex / SemEval-2020 Task 3 (GWSC) files → one scored
config per file, one row per (word pair, context), level ``word-pair-in-context``.

Why a family of its own rather than a mode of ``build similarity``: its rows are contexts
with token indices, not word pairs, and its evaluation is another (the change between two
contexts); a mode would share only the option parser. The family's own choices: every row is
a test row; ``--gold`` gives the scores of a GWSC contexts file that has none (aligned by
line); a file's language is its name's (``cosimlex_hr.tsv``: hr; checked against ``--lang``
as every declared language is), else ``--lang``; a build of several languages' files (with
``--allow-language-mismatch``) lists them all on the card.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.lexical.in_context import in_context_tasks
from polyprobe.builders.options import paths_option
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.errors import UsageError
from polyprobe.languages import Language


@dataclass(frozen=True, kw_only=True)
class InContextConfig(EvaluationSetConfig):
    paths: tuple[Path, ...] = paths_option(
        help="CoSimLex TSV files (word1 word2 context1 context2 sim1 sim2 ..., the words "
        "marked <strong>...</strong> in the contexts), or GWSC contexts files with --gold",
        positional=True,
        metavar="FILE",
        profile=False,
    )
    gold: tuple[Path, ...] = paths_option(
        help="GWSC gold files (sim_context1 sim_context2 [change]), one per FILE, in order",
        metavar="GOLD",
        profile=False,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.gold and len(self.gold) != len(self.paths):
            raise UsageError(
                f"build in-context-similarity: {len(self.gold)} --gold file(s) for "
                f"{len(self.paths)} FILE(s): give one per FILE, in order"
            )


class InContextFamily(SetFamily[InContextConfig]):
    name = "in-context-similarity"
    help = "lexical: graded word similarity in context (CoSimLex, SemEval-2020 Task 3)"
    description = (
        "Build one scored config per CoSimLex/GWSC file: a row per (word pair, context) with "
        "the context's tokens and the two words' indices; label = the pair's mean similarity "
        "in that context; a pair's two contexts share `group`. Every row is a test row."
    )
    Config = InContextConfig
    make_tasks = staticmethod(in_context_tasks)

    def sources(self, config: InContextConfig) -> LexicalSets:
        from polyprobe.loaders.cosimlex import CoSimLexSource, named_language

        golds: list[Path | None] = list(config.gold) or [None] * len(config.paths)
        version = config.source_version or "unknown"
        return LexicalSets(
            tuple(
                CoSimLexSource(p, named_language(p) or config.lang, g, source_version=version)
                for p, g in zip(config.paths, golds, strict=True)
            )
        )

    def card(
        self, config: InContextConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        langs = tuple(dict.fromkeys(getattr(s, "lang", "") for s in sources.sources))
        langs = tuple(code for code in langs if code)
        return CardText(
            languages=langs if len(langs) > 1 else (),
            pretty_name="Graded word similarity in context",
            summary="CoSimLex (Armendariz et al. 2020), the data of SemEval-2020 Task 3: word "
            "pairs from SimLex-999, each rated in two contexts. One row per (pair, context): "
            "the context's text and tokens, the two words' token indices, the mean rating as "
            "label; a pair's two rows share `group` (ids end `/context1`, `/context2`). "
            "`polyprobe evaluate` scores subtask 1 (the predicted change context2 - context1 "
            "against the gold change, uncentred Pearson) and subtask 2 (the similarity in "
            "each context, Spearman and Pearson).",
            source_datasets=("original",),
            tags=("lexical", "word-similarity-in-context", "cosimlex", "polyprobe"),
            task_categories=("sentence-similarity",),
        )


IN_CONTEXT_SIMILARITY = InContextFamily()
