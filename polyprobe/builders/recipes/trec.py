"""``build trec``: the original TREC question-classification files → a downstream dataset
with configs ``coarse`` (the default) and ``fine``, splits train/test as distributed.

The recipe's own choices: TREC is English; its label sets are the benchmark's, so no class
floor applies by default (``--min-per-class`` may set one); only the natural, full variant is
built by default (a downstream benchmark is reported on its full training set).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.recipes.examples import ExampleFamily
from polyprobe.builders.registry import family_tasks, resolve_task_names
from polyprobe.builders.stream import run_record_tasks
from polyprobe.builders.task import TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.trec import TrecSource, detect_encoding
from polyprobe.metadata import SourceInfo

TREC_DEFAULTS: dict[str, Any] = {
    "lang": "en",
    "balances": ("natural",),
    "min_per_class": (0, 0, 0),
}
SOURCE_SPLITS = SplitSpec(
    "ud",
    reason="the source's own train/test files (TREC has no validation split)",
    source_label="source",
)


@dataclass
class TrecRecipe:
    """``build trec`` on the shared build."""

    path: str | os.PathLike[str]
    options: BuildOptions
    family: str = "trec"

    def __post_init__(self) -> None:
        from polyprobe.builders.profile import checked_profile

        self.task_names = resolve_task_names("trec", self.options.tasks)
        path = self.options.profile
        self.profile = (
            {}
            if path is None
            else {"file": path.name, **checked_profile(path, family_tasks("trec"))}
        )
        self.trec = TrecSource(Path(self.path), source_version=self.options.source_version)

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return [(self.trec.name, self.trec.languages)]  # TREC is English

    def sources(self) -> list[SourceInfo]:
        info = self.trec.info
        override = self.options.license_overrides.get(info.name)
        if override is not None:
            info.license = override
        return [info]

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        encodings = {}
        for path in self.trec.paths.values():
            encodings[path.name] = detect_encoding(path.read_bytes())
        family = ExampleFamily(
            sources=(self.trec,),
            tasks=family_tasks("trec"),
            context=TaskContext(
                lang="en", seed=options.seed, min_per_class=(0, 0, 0), split="source"
            ),
            profile=self.profile,
        )
        return run_record_tasks(
            family,
            self.task_names,
            options,
            split=SOURCE_SPLITS,
            staging=staging,
            progress=progress,
            parameters={
                "train_copies_of_test": "dropped",
                "encodings": {name: enc for name, (enc, _) in encodings.items()},
                "encoding_notes": {name: note for name, (_, note) in encodings.items() if note},
            },
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        return CardText(
            pretty_name="TREC question classification",
            summary="TREC question classification (Li & Roth 2002) as a polyprobe downstream "
            "dataset: the original train/test files, coarse (6) and fine (50) labels. The "
            "licence of the TREC data is not stated by its distributors (research data).",
            source_datasets=("original",),
            tags=("downstream", "question-classification", "polyprobe"),
        )


def build_trec(
    path: str | os.PathLike[str], *, progress: Progress | None = None, **options: Any
) -> BuildResult:
    """Build the TREC dataset folder from the folder ``path`` of original files; mirrors
    ``polyprobe build trec``. ``options`` are :meth:`BuildOptions.make`'s, with TREC's
    defaults (English, natural only, no class floors)."""
    opts = BuildOptions.make(**{**TREC_DEFAULTS, **options})
    return build(TrecRecipe(path, opts), opts, progress=progress)
