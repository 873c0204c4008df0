"""``build srl``: CoNLL-2009 files → a downstream dataset with one config, ``srl``: one row
per annotated predicate-argument pair (level ``arc``), labelled with the role.

The family's choices are ``build ner``'s (:mod:`polyprobe.builders.families.ner`): the full
natural variant only and no class floor (refused otherwise), splits from the file names
(``train``, ``development``, ``test``/``evaluation``) when every file has one, else 80/10/10
by sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.downstream.srl import SemanticRoles
from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, parse_min_per_class, paths_option
from polyprobe.builders.records.tagged import TaggedRecords
from polyprobe.builders.variants import MinPerClass, SizeSpec, SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.loaders.conll09 import split_of_srl_name

NATURAL_ONLY = "a role probe is scored on every annotated argument"


@dataclass(frozen=True, kw_only=True)
class SrlConfig(BuildConfig):
    paths: tuple[Path, ...] = paths_option(
        help="CoNLL-2009 files or folders of them (ID FORM ... FILLPRED PRED APRED1..n); "
        "train/development/test/evaluation in a file's name give its split",
        positional=True,
        metavar="FILE_OR_FOLDER",
        profile=False,
    )
    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class(0))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.balances != ("natural",):
            raise UsageError(f"build srl builds the natural variant only ({NATURAL_ONLY})")
        if self.min_per_class.as_tuple() != (0, 0, 0):
            raise UsageError(f"build srl takes no class floor ({NATURAL_ONLY}: no role dropped)")
        if self.sizes != (SizeSpec("full"),):
            raise UsageError(f"build srl builds the full training set only ({NATURAL_ONLY})")


def _splits(files: Sequence[Path]) -> SplitSpec:
    without = [f.name for f in files if split_of_srl_name(f.name) is None]
    if not without:
        return SplitSpec(
            "ud", reason="the files' own splits (from their names)", source_label="source"
        )
    if len(without) < len(files):
        raise UsageError(
            f"some files name their split and some not: {', '.join(without)}; rename them, "
            "or give files without splits only (then sentences are split 80/10/10)"
        )
    return SplitSpec("ratio", (80, 10, 10), reason="the files name no split: ratio 80/10/10")


class SrlFamily(Family[SrlConfig, Inputs]):
    name = "srl"
    help = "downstream dataset: semantic role labelling (CoNLL-2009 files)"
    description = (
        "Build a semantic-role dataset (config srl: one row per annotated predicate-argument "
        "pair, level arc, label the role, a sentence's rows one group) from CoNLL-2009 files. "
        "Natural variant, full train and no class floor only."
    )
    Config = SrlConfig
    tasks = TaskSet.of(SemanticRoles)

    def sources(self, config: SrlConfig) -> Inputs:
        from polyprobe.loaders.conll09 import open_srl_sources

        return Inputs(open_srl_sources(config.paths, version=config.source_version or "unknown"))

    def plan(self, config: SrlConfig, sources: Inputs, names: Sequence[str]) -> Plan:
        files = [f for s in sources.sources for f in s.files]
        parameters: dict[str, Any] = {
            "file_splits": {f.name: split_of_srl_name(f.name) or "" for f in files}
        }
        stream = Stream(TaggedRecords(tuple(sources.sources)), tuple(names))
        return Plan(_splits(files), (stream,), parameters=parameters, inputs=files)

    def card(
        self, config: SrlConfig, sources: Inputs, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.sources)
        return CardText(
            pretty_name=f"Semantic role labelling ({language.name})",
            summary=f"Semantic roles in {language.name} from {names} (CoNLL-2009) as a "
            "polyprobe downstream dataset: one row per annotated predicate-argument pair, "
            "labelled with its role; a sentence's rows share its group.",
            source_datasets=("original",),
            tags=("downstream", "semantic-role-labeling", "polyprobe"),
            task_categories=("token-classification",),
        )


SRL = SrlFamily()
