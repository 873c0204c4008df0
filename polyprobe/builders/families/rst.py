"""``build rst``: RST discourse treebanks (``.rs3``, ``.dis``) → the discourse-relation task.

The family: RST files or folders of them (one source; any mix of the two formats), the
treebank's own splits when every file's path names one (``train``/``dev``/``test`` folders,
RST-DT's ``TRAINING``/``TEST``), else a ratio split by document; a relation-to-class mapping
from ``--relation-map`` (TSV ``relation<TAB>class`` or a JSON object) or a profile's
``[tasks.discourse_relations] relation_map``, the identity otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.discourse.discourse_relations import DiscourseRelations
from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, optional_path, paths_option
from polyprobe.builders.records.documents import DocumentRecords
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.version import __version__

_SPLIT_FOLDERS = ("train", "training", "dev", "development", "validation", "test")


@dataclass(frozen=True, kw_only=True)
class RstConfig(BuildConfig):
    paths: tuple[Path, ...] = paths_option(
        help=".rs3 / .dis files or folders of them",
        positional=True,
        metavar="FILE",
        profile=False,
    )
    relation_map: Path | None = option(
        None,
        help="relation -> coarse class: TSV lines 'relation<TAB>class' or a JSON object "
        "(default: every relation its own class; relations it does not name are dropped "
        "and counted)",
        parse=optional_path,
        metavar="FILE",
    )
    name: str | None = option(None, help="the source's name in ids (default: the files' folder)")


@dataclass
class RstInputs(Inputs):
    relation_map: dict[str, str] | None = None  # (RST files declare no language)

    @property
    def source(self) -> Any:  # RstSource
        return self.sources[0]


class RstFamily(Family[RstConfig, RstInputs]):
    name = "rst"
    help = "discourse relations from RST treebanks (.rs3, .dis)"
    description = (
        "Build the discourse_relations task (DiscoEval's DR) from RST trees in .rs3 "
        "(RSTTool/rstWeb) or .dis (RST-DT) files: every node of the binarised trees is a row "
        "(left and right units as EDU lists, label <nuclearity>-<relation>). The treebank's "
        "own splits are kept when its folders name them (train/dev/test, TRAINING/TEST); "
        "documents never straddle splits."
    )
    Config = RstConfig
    tasks = TaskSet.of(DiscourseRelations)

    def sources(self, config: RstConfig) -> RstInputs:
        from polyprobe.loaders.rst import RstSource, read_relation_map

        source = RstSource.from_paths(
            list(config.paths), name=config.name, version=config.source_version or "unknown"
        )
        mapping = None if config.relation_map is None else read_relation_map(config.relation_map)
        return RstInputs([source], mapping)

    def plan(self, config: RstConfig, sources: RstInputs, names: Sequence[str]) -> Plan:
        given = {}
        if sources.relation_map is not None:
            given["discourse_relations"] = {"relation_map": dict(sources.relation_map)}
        formats = sorted({p.suffix.lower() for p in sources.source.paths})
        return Plan(
            split=rst_split(sources.source),
            streams=(Stream(DocumentRecords((sources.source,)), tuple(names), given=given),),
            parameters={"formats": formats},
            inputs=list(sources.source.paths),
        )

    def card(
        self, config: RstConfig, sources: RstInputs, language: Language, outcome: Outcome
    ) -> CardText:
        source = sources.source
        return CardText(
            pretty_name=f"polyprobe discourse relations ({language.name})",
            summary=(
                f"Discourse relations between adjacent units of RST trees for {language.name}, "
                f"built by polyprobe {__version__} from {source.name} "
                f"({len(source.paths)} files)."
            ),
            tags=("probing", "discourse", "rst", "polyprobe"),
        )


def rst_split(source: Any) -> SplitSpec:
    """The treebank's own splits when every file's path names one, a ratio split by document
    when none does; a mix is refused (some documents would have no split)."""
    splits = source.splits()
    if splits == {None}:
        return SplitSpec(
            "ratio",
            (80, 10, 10),
            reason="no file's path names a split (train/dev/test folders), so polyprobe "
            "splits by document 80/10/10",
        )
    if None in splits:
        lacking = [
            source.relative(p) for p in source.paths if p.parent.name.lower() not in _SPLIT_FOLDERS
        ][:3]
        raise UsageError(
            "some RST files lie in a train/dev/test folder and some do not (e.g. "
            + ", ".join(lacking)
            + "): give files of one kind"
        )
    return SplitSpec(
        "ud",
        reason="the treebank's own splits (" + ", ".join(sorted(s for s in splits if s)) + ")",
        source_label="source",
    )


RST = RstFamily()
