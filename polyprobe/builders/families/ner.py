"""``build ner``: entity-tagged token-per-line files (CoNLL-2003, IOB2/BIOES/BILOU two-column,
WikiANN ``xx:token``) → a downstream dataset with one config, ``ner``: one row per token,
labelled with its IOB2 tag.

The family's own choices: only the full natural variant and no class floor, whatever the
options say elsewhere (a tagger is trained and scored on whole sentences; a balanced, floored
or smaller-train config would drop tokens, ``I-MISC`` first, and cut sentences): another
``--balances``, ``--min-per-class`` or ``--sizes`` is refused here rather than silently
changed. (The task metadata has no flag for this; the family is where it holds.) Splits are
the files' (``train``/``dev``/``test`` in their names; CoNLL-2003's ``testa``/``testb`` are
dev/test) when every file names one, else 80/10/10 by sentence group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.downstream.ner import NerTagging, parse_type_map
from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, parse_min_per_class, paths_option
from polyprobe.builders.records.tagged import TaggedRecords
from polyprobe.builders.variants import MinPerClass, SizeSpec, SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language

NATURAL_ONLY = "a tagger needs every token of every sentence"


@dataclass(frozen=True, kw_only=True)
class NerConfig(BuildConfig):
    paths: tuple[Path, ...] = paths_option(
        help="entity-tagged files or folders of them: CoNLL-2003 (token POS chunk TAG, "
        "-DOCSTART- lines), token<TAB>TAG (IOB2, IOB1, BIOES, BILOU: converted to IOB2) or "
        "WikiANN (xx:token<TAB>TAG); train/dev/test in a file's name give its split",
        positional=True,
        metavar="FILE_OR_FOLDER",
        profile=False,
    )
    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class(0))
    map_types: dict[str, str] = option(
        default_factory=dict,
        help="rename entity types, e.g. MISC=OTHR (EMBEDDIA's PER/LOC/ORG/OTHR); TYPE=O "
        "untags a type",
        metavar="TYPE=NEW",
        repeat=True,
        parse=parse_type_map,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.balances != ("natural",):
            raise UsageError(f"build ner builds the natural variant only ({NATURAL_ONLY})")
        if self.min_per_class.as_tuple() != (0, 0, 0):
            raise UsageError(f"build ner takes no class floor ({NATURAL_ONLY}: no tag dropped)")
        if self.sizes != (SizeSpec("full"),):
            raise UsageError(f"build ner builds the full training set only ({NATURAL_ONLY})")


def splits_of(sources: Sequence[Any]) -> SplitSpec:
    """The files' own splits when every file's name gives one, else 80/10/10 by sentence
    group; a mix is refused, naming the files without one."""
    files = [f for s in sources for f in s.files]
    without = [f.path.name for f in files if f.split is None]
    if not without:
        return SplitSpec(
            "ud", reason="the files' own splits (from their names)", source_label="source"
        )
    if len(without) < len(files):
        raise UsageError(
            "some files name their split (train/dev/test) and some not: "
            f"{', '.join(without)}; rename them, or give files without splits only "
            "(then sentences are split 80/10/10)"
        )
    return SplitSpec("ratio", (80, 10, 10), reason="the files name no split: ratio 80/10/10")


class NerFamily(Family[NerConfig, Inputs]):
    name = "ner"
    help = "downstream dataset: named-entity tagging (CoNLL-2003, IOB, WikiANN files)"
    description = (
        "Build a token-level NER dataset (config ner: one row per token, label its IOB2 tag, "
        "a sentence's rows one group) from CoNLL-2003, two-column IOB/BIOES/BILOU or "
        "WikiANN files (a folder or files). Tag schemes are detected and converted to IOB2 "
        "(recorded in the card). Natural variant, full train and no class floor only."
    )
    Config = NerConfig
    tasks = TaskSet.of(NerTagging)

    def sources(self, config: NerConfig) -> Inputs:
        from polyprobe.loaders.iob import open_sources

        return Inputs(open_sources(config.paths, version=config.source_version or "unknown"))

    def plan(self, config: NerConfig, sources: Inputs, names: Sequence[str]) -> Plan:
        files = [f for s in sources.sources for f in s.files]
        parameters: dict[str, Any] = {
            "layouts": {f.path.name: f.layout.describe() for f in files},
            "file_splits": {f.path.name: f.split or "" for f in files},
            "map_types": dict(config.map_types),
        }
        given = {"ner": {"map_types": dict(config.map_types)}} if config.map_types else {}
        stream = Stream(TaggedRecords(tuple(sources.sources)), tuple(names), given=given)
        return Plan(
            splits_of(sources.sources),
            (stream,),
            parameters=parameters,
            inputs=[f.path for f in files],
        )

    def card(
        self, config: NerConfig, sources: Inputs, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.sources)
        return CardText(
            pretty_name=f"Named-entity tagging ({language.name})",
            summary=f"Token-level named-entity tagging in {language.name} from {names} as a "
            "polyprobe downstream dataset: one row per token, labelled with its IOB2 tag; a "
            "sentence's rows share its group, so splits are by sentence.",
            source_datasets=("original",),
            tags=("downstream", "named-entity-recognition", "polyprobe"),
            task_categories=("token-classification",),
        )


NER = NerFamily()
