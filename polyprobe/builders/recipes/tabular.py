"""``build classification``, ``build pairs`` and ``build regression``: labelled sentences or sentence pairs from
user files (CSV/TSV/JSONL, presets for the published formats) → a downstream dataset.

The recipe's choices: splits are the files' (a split column, or one file per split named
``train=PATH``) when every row has one, else ratio 80/10/10 by the engine (groups kept
together); no class floor and only the natural variant by default (a benchmark's own label
set and training set); the config is named ``--name`` (default: the preset, else the task).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.downstream.tabular import TABULAR_TASKS
from polyprobe.builders.recipes.examples import ExampleFamily
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.task import Task, TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.tabular import sources_for
from polyprobe.loaders.translations import TranslationProvenance
from polyprobe.metadata import SourceInfo

TABULAR_DEFAULTS: dict[str, Any] = {"balances": ("natural",), "min_per_class": (0, 0, 0)}
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class NamedExamples(ExampleFamily):
    """Example family whose one task carries the config name and pair features chosen for
    this build (the task's metadata, replaced on the instance)."""

    name: str = ""
    pair_features: str = ""
    description: str = ""

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        tasks, derived = super().open_tasks([self.tasks_key(n) for n in names])
        for task in tasks:
            meta = dataclasses.replace(
                task.metadata,
                name=self.name,
                config="",
                pair_features=self.pair_features,
                description=self.description or task.metadata.description,
            )
            task.metadata = meta  # type: ignore[misc]
        return tasks, derived

    def tasks_key(self, name: str) -> str:
        return next(iter(self.tasks)) if name == self.name else name


@dataclass
class TabularRecipe:
    files: Sequence[str]
    options: BuildOptions
    family: str  # "classification" or "pairs"
    columns: dict[str, str] | None = None
    preset: str | None = None
    format: str | None = None
    name: str | None = None
    description: str = ""
    # the files' texts are translations: every row's sample_creation and the card say how
    translation: TranslationProvenance | None = None

    def __post_init__(self) -> None:
        if not self.files:
            raise UsageError(f"build {self.family}: give at least one file")
        self.tabular, self.chosen = sources_for(
            self.files,
            self.family,
            columns=self.columns,
            preset=self.preset,
            format=self.format,
            version=self.options.source_version or "unknown",
        )
        self.config = self.name or (self.chosen.name if self.chosen else self.family)
        if not _NAME.match(self.config):
            raise UsageError(f"--name {self.config!r}: letters, digits, '_', '.', '-' only")
        self.split_spec = self._split()

    def _split(self) -> SplitSpec:
        given = [s.split is not None or "split" in s.columns for s in self.tabular]
        if all(given):
            return SplitSpec("ud", reason="the files' own splits", source_label="source")
        if any(given):
            raise UsageError(
                "some files have splits (a split column or SPLIT=PATH) and some not: give "
                "every file its split, or none (then rows are split 80/10/10 by ratio)"
            )
        return SplitSpec("ratio", (80, 10, 10), reason="the files give no splits: ratio 80/10/10")

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return []  # user files declare no language: --lang is the user's word

    def sources(self) -> list[SourceInfo]:
        out = []
        for s in self.tabular:
            info = s.info
            override = self.options.license_overrides.get(info.name)
            if override is not None:
                info.license = override
            out.append(info)
        return out

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        lang = resolve_language(options.lang).code
        family = NamedExamples(
            sources=tuple(self.tabular),
            tasks={self.family: TABULAR_TASKS[self.family]},
            context=TaskContext(lang=lang, seed=options.seed, split=self.split_spec.mode),
            name=self.config,
            pair_features=self.chosen.pair_features if self.chosen else "",
            description=self.description,
        )
        extra: dict[str, Any] = {}
        if self.translation is not None:
            extra["translation"] = dataclasses.replace(
                self.translation, target_language=lang
            ).card_entry()
        outcome = run_record_tasks(
            family,
            [self.config],
            options,
            split=self.split_spec,
            staging=staging,
            progress=progress,
            parameters={
                "preset": self.preset or "",
                "columns": dict(self.tabular[0].columns),
                "formats": {s.name: s.resolved_format for s in self.tabular},
                **extra,
            },
        )
        if self.translation is not None:
            from polyprobe.builders.sample_creation import with_sample_creation

            how = self.translation.sample_creation
            outcome.assembled = with_sample_creation(staging, outcome.assembled, lambda _: how)
        return outcome

    def card(self, language: Language, outcome: Outcome) -> CardText:
        what = self.chosen.describe if self.chosen else f"user files ({self.family})"
        how = ""
        if self.translation is not None:
            t = self.translation
            how = (
                f" The texts are {t.sample_creation.replace('-', ' ')} from "
                f"{t.source_language} by {t.system} (version {t.version}, {t.date}); "
                f"sample_creation: {t.sample_creation} (every row)."
            )
        return CardText(
            pretty_name=f"{self.config} ({language.name})",
            summary=f"A downstream {self.family} dataset built by polyprobe from {what}.{how}",
            source_datasets=("original",),
            tags=("downstream", self.family, "polyprobe"),
        )


def _build(family: str, files: Sequence[str | os.PathLike[str]], **kwargs: Any) -> BuildResult:
    own = {
        k: kwargs.pop(k)
        for k in ("columns", "preset", "format", "name", "description", "translation")
        if k in kwargs
    }
    progress = kwargs.pop("progress", None)
    opts = BuildOptions.make(**{**TABULAR_DEFAULTS, **kwargs})
    recipe = TabularRecipe([str(f) for f in files], opts, family, **own)
    return build(recipe, opts, progress=progress)


def build_classification(files: Sequence[str | os.PathLike[str]], **options: Any) -> BuildResult:
    """Sentence classification from ``files`` (``[SPLIT=]PATH``); ``columns`` maps roles
    (text, label, split, id) to file columns, ``preset`` names a published format
    (``sentiment-tsv``, ``sqc``); ``translation`` (a :class:`TranslationProvenance`) marks
    the files' texts as translations (every row's ``sample_creation``, the card's provenance;
    also for pairs and regression); other ``options`` are :meth:`BuildOptions.make`'s."""
    return _build("classification", files, **options)


def build_regression(files: Sequence[str | os.PathLike[str]], **options: Any) -> BuildResult:
    """Scored sentence pairs from ``files``; ``columns`` maps sentence1, sentence2, score,
    split, id; presets ``sts-b``, ``sick-r``. The label is the score (float32)."""
    return _build("regression", files, **options)


def build_pairs(files: Sequence[str | os.PathLike[str]], **options: Any) -> BuildResult:
    """Sentence-pair classification from ``files``; ``columns`` maps sentence1, sentence2,
    label, split, id; presets ``nli``, ``paws``, ``sick-e``, ``ukp-argmin``."""
    return _build("pairs", files, **options)
