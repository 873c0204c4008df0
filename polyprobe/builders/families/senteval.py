"""``build senteval``: published probing sets in SentEval's line format (SentEval's own
``data/probing`` files, polyprobe's ``export --format senteval``, releases in the same
format), X-Probe's per-split files and SentEval's STS layout -> one config per set.

The family's own choices: labels, splits and texts are the files' (nothing derived); the
leakage audit reports a text in two splits (``cross_split_duplicates`` in report.json) and
keeps it where the files put it, so a published set, and polyprobe's own export, come back
row for row (``--duplicates drop``: the engine drops such a text from the later split,
counted; see :mod:`polyprobe.builders.downstream.probing_files`); no class floor and only the natural variant by default (a
published set's own label distribution and training set); STS pairs are test rows (SentEval
evaluates STS12-16 without training), scored by their gold score.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.downstream.probing_files import DUPLICATES, probing_file_tasks
from polyprobe.builders.family import CardText, Outcome, TaskSet
from polyprobe.builders.options import option, paths_option
from polyprobe.builders.records.lexical import EvaluationSetConfig, LexicalSets, SetFamily
from polyprobe.builders.variants import SplitSpec
from polyprobe.languages import Language

FILE_SPLITS = SplitSpec(
    "ud", reason="the files' own splits (tr/va/te; STS pairs are test)", source_label="source"
)


@dataclass(frozen=True, kw_only=True)
class SentEvalConfig(EvaluationSetConfig):
    paths: tuple[Path, ...] = paths_option(
        help="SentEval probing files (tr|va|te TAB label TAB sentence), X-Probe folders or "
        "files (tr.txt, va.txt, te.txt: sentence TAB label), SentEval STS files "
        "(STS.input.<subset>.txt beside STS.gs.<subset>.txt), or folders of them",
        positional=True,
        metavar="PATH",
        profile=False,
    )
    duplicates: str = option(
        "keep",
        help="a text in two splits: keep (the rows as the files give them, counted in "
        "report.json as cross_split_duplicates) or drop (from the later split, counted)",
        choices=DUPLICATES,
    )


class SentEvalFamily(SetFamily[SentEvalConfig]):
    name = "senteval"
    help = "probing sets in SentEval's line format, X-Probe's files, SentEval's STS files"
    description = (
        "Build one config per probing set in the files: SentEval-style files (tr|va|te TAB "
        "label TAB sentence, no header: SentEval's own, Eger et al. 2020's, polyprobe's "
        "export), X-Probe's tr.txt/va.txt/te.txt (sentence TAB label), SentEval's STS layout "
        "(STS.input/STS.gs: a scored pair config, every pair a test row). Labels, splits and "
        "texts as given; a text repeated in a later split is counted (--duplicates drop: "
        "dropped from it). "
        "Natural variant and no class floor by default."
    )
    Config = SentEvalConfig
    make_tasks = staticmethod(probing_file_tasks)

    def split(self, config: SentEvalConfig) -> SplitSpec:
        return FILE_SPLITS

    def task_set(self, config: SentEvalConfig, sources: LexicalSets) -> TaskSet:  # type: ignore[override]
        def make(found: object) -> list:
            return probing_file_tasks(found, config.duplicates)  # type: ignore[arg-type]

        return sources.task_set(make, config.on_invalid)

    def sources(self, config: SentEvalConfig) -> LexicalSets:
        from polyprobe.loaders.senteval import ProbingFiles, find_sets

        version = config.source_version or "unknown"
        sets = find_sets(config.paths)
        return LexicalSets(tuple(ProbingFiles(s, source_version=version) for s in sets))

    def card(
        self, config: SentEvalConfig, sources: LexicalSets, language: Language, outcome: Outcome
    ) -> CardText:
        layouts = {s.set.layout for s in sources.sources}  # type: ignore[attr-defined]
        categories = ("text-classification",) if layouts - {"sts"} else ()
        if "sts" in layouts:
            categories += ("sentence-similarity",)
        return CardText(
            pretty_name=f"Probing sets ({language.name})",
            summary="Published probing sets re-published by polyprobe: each config is one "
            "set, its labels, splits and texts as the files give them (SentEval's tr/va/te "
            "codes become train/validation/test). polyprobe adds the leakage audit (a text "
            "repeated in a later split is counted in report.json, and kept unless the build "
            "was asked to drop it), checksums and this card.",
            source_datasets=("original",),
            tags=("probing", "senteval", "polyprobe"),
            task_categories=categories,
        )


SENTEVAL = SentEvalFamily()
