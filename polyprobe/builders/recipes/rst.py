"""``build rst``: RST discourse treebanks (``.rs3``, ``.dis``) → the discourse-relation task.

The recipe: RST files or folders of them (one source; any mix of the two formats), the
treebank's own splits when every file's path names one (``train``/``dev``/``test`` folders,
RST-DT's ``TRAINING``/``TEST``), else a ratio split by document; a relation-to-class mapping
from ``--relation-map`` (TSV ``relation<TAB>class`` or a JSON object) or a profile's
``[tasks.discourse_relations] relation_map``, the identity otherwise. Everything else is the
shared build.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.discourse.family import DocumentFamily
from polyprobe.builders.registry import family_tasks, resolve_task_names
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.task import TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import InputError, UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.rst import RstSource
from polyprobe.metadata import SourceInfo
from polyprobe.version import __version__


def read_relation_map(path: str | os.PathLike[str]) -> dict[str, str]:
    """A relation → class mapping from a JSON object or TSV lines ``relation<TAB>class``
    (``#`` comments and blank lines ignored); errors name the file and line."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "relation map not found", "no-relation-map")
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InputError(
                p, getattr(exc, "lineno", None), f"not JSON: {exc}", "bad-relation-map"
            ) from None
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in data.items()
        ):
            raise InputError(
                p, None, "expected an object of relation: class strings", "bad-relation-map"
            )
        return dict(data)
    mapping: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise InputError(p, number, "expected relation<TAB>class", "bad-relation-map")
        relation = fields[0].strip()
        if relation in mapping:
            raise InputError(p, number, f"relation {relation!r} mapped twice", "bad-relation-map")
        mapping[relation] = fields[1].strip()
    if not mapping:
        raise InputError(p, None, "the relation map is empty", "bad-relation-map")
    return mapping


def choose_rst_split(source: RstSource) -> SplitSpec:
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
            source.relative(p)
            for p in source.paths
            if p.parent.name.lower()
            not in ("train", "training", "dev", "development", "validation", "test")
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


@dataclass
class RstRecipe:
    """``build rst`` on the shared build."""

    paths: Sequence[str | os.PathLike[str]]
    options: BuildOptions
    relation_map: dict[str, str] | None = None
    name: str | None = None
    task_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    family: str = "rst"

    def __post_init__(self) -> None:
        from polyprobe.builders.profile import checked_profile

        self.task_names = resolve_task_names("rst", self.options.tasks)
        path = self.options.profile
        self.profile = (
            {}
            if path is None
            else {"file": path.name, **checked_profile(path, family_tasks("rst"))}
        )
        self.source = RstSource.from_paths(
            [Path(p) for p in self.paths],
            name=self.name,
            version=self.options.source_version or "unknown",
        )
        override = self.options.license_overrides.get(self.source.name)
        if override is not None:
            self.source = RstSource(
                self.source.name, self.source.paths, self.source.root, override, self.source.version
            )
        self.split_spec = choose_rst_split(self.source)
        if self.relation_map is not None:
            self.task_options.setdefault("discourse_relations", {})["relation_map"] = dict(
                self.relation_map
            )

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return [(self.source.name, ())]  # RST files do not say

    def sources(self) -> list[SourceInfo]:
        return [self.source.info]

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        family = DocumentFamily(
            sources=(self.source,),  # type: ignore[arg-type]
            tasks=family_tasks("rst"),
            context=TaskContext(
                lang=resolve_language(options.lang).code,
                seed=options.seed,
                min_per_class=options.min_per_class.as_tuple(),
                split=self.split_spec.label,
            ),
            profile=self.profile,
            task_options=self.task_options,
        )
        return run_record_tasks(
            family,
            self.task_names,
            options,
            split=self.split_spec,
            staging=staging,
            progress=progress,
            parameters={"formats": sorted({p.suffix.lower() for p in self.source.paths})},
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        return CardText(
            pretty_name=f"polyprobe discourse relations ({language.name})",
            summary=(
                f"Discourse relations between adjacent units of RST trees for {language.name}, "
                f"built by polyprobe {__version__} from {self.source.name} "
                f"({len(self.source.paths)} files)."
            ),
            tags=("probing", "discourse", "rst", "polyprobe"),
        )


def build_rst(
    paths: Sequence[str | os.PathLike[str]],
    *,
    relation_map: dict[str, str] | str | os.PathLike[str] | None = None,
    name: str | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Build a dataset folder from RST files or folders; mirrors ``polyprobe build rst``.
    ``relation_map`` is a mapping or the path of one (:func:`read_relation_map`); ``name``
    names the source (default: the files' common folder). ``options`` are
    :meth:`BuildOptions.make`'s."""
    opts = BuildOptions.make(**options)
    mapping = (
        read_relation_map(relation_map)
        if isinstance(relation_map, str | os.PathLike)
        else relation_map
    )
    return build(RstRecipe(paths, opts, relation_map=mapping, name=name), opts, progress=progress)
