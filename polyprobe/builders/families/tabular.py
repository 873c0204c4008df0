"""``build classification``, ``build pairs`` and ``build regression``: labelled sentences,
labelled sentence pairs or scored sentence pairs from user files (CSV/TSV/JSONL, presets for
the published formats) → a downstream dataset of one config.

The families' choices: splits are the files' when every row has one, else ratio 80/10/10;
no class floor and only the natural variant by default (a benchmark's own label set and
training set); the config is named ``--name`` (default: the preset, else the family); a pair
config's evaluation features are the preset's or ``--pair-features``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.builders.downstream.tabular import TABULAR_TASKS
from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, parse_min_per_class
from polyprobe.builders.records.examples import ExampleRecords, file_splits
from polyprobe.builders.task import Task
from polyprobe.builders.translations import TranslationOptions
from polyprobe.builders.variants import MinPerClass
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.tabular import PRESETS, parse_columns
from polyprobe.loaders.translations import TranslationProvenance
from polyprobe.metadata import PAIR_FEATURES

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _columns(value: Any) -> dict[str, str]:
    return dict(value) if isinstance(value, dict) else parse_columns(value)


@dataclass(frozen=True, kw_only=True)
class TabularConfig(TranslationOptions, BuildConfig):
    files: tuple[str, ...] = option(
        help="CSV, TSV or JSONL files (UTF-8, plain or gzip); train=FILE dev=FILE test=FILE give "
        "one file per split",
        positional=True,
        parse=lambda v: (str(v),) if isinstance(v, str) else tuple(str(f) for f in v),
        metavar="[SPLIT=]FILE",
        profile=False,
    )
    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class(0))
    columns: dict[str, str] = option(
        default_factory=dict,
        help="ROLE=COLUMN,... mapping file columns to text (classification) or sentence1, "
        "sentence2 (pairs), label or score, split, id; overrides a preset's mapping",
        parse=_columns,
    )
    preset: str | None = option(
        None,
        help="a published format: "
        + "; ".join(f"{k} ({v.kind})" for k, v in sorted(PRESETS.items())),
        choices=(None, *sorted(PRESETS)),
    )
    format: str | None = option(
        None, help="the files' format", choices=(None, "csv", "tsv", "jsonl", "trec-lines")
    )
    name: str | None = option(None, help="the config's name (default: preset or family)")
    description: str = option("", help="the config's description in the card", cli=False)
    pair_features: str | None = option(
        None,
        help="how evaluation joins a pair's two vectors: senteval [u,v,|u-v|,u*v], spanish "
        "[|u-v|,u*v], topic [u,t] (default: the preset's, else senteval)",
        choices=(None, *PAIR_FEATURES),
    )
    source_language: str = option("en", help="the language translated from")
    language_column: str | None = option(
        None,
        help="a column naming each row's language (XNLI's 'language'): only the rows of "
        "--keep-language are kept, the others counted in the card (other-language); with "
        "--preset nli a 'language' column is used when the files have one ('' turns that off)",
        metavar="COL",
    )
    keep_language: str | None = option(
        None, help="the language --language-column keeps (default: --lang)", metavar="LANG"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sample_creation is None and self.translator_given:
            raise UsageError("--translator and its details need --sample-creation")
        if self.name is not None and not _NAME.match(self.name):
            raise UsageError(f"--name {self.name!r}: letters, digits, '_', '.', '-' only")

    def translation(self) -> TranslationProvenance | None:
        if self.sample_creation is None:
            return None
        return TranslationProvenance(
            sample_creation=self.sample_creation,
            system=self.translator,
            version=self.translator_version,
            date=self.translation_date,
            source_language=resolve_language(self.source_language).code,
            target_language=self.language.code,
        )


@dataclass
class TabularInputs(Inputs):
    preset: Any = None  # Preset (user files declare no language: --lang is the user's word)


class TabularFamily(Family[TabularConfig, TabularInputs]):
    """The three families differ in their task (named as the family) and what a row holds."""

    @property
    def tasks(self) -> TaskSet:  # type: ignore[override]
        return TaskSet.of(TABULAR_TASKS[self.name])

    def sources(self, config: TabularConfig) -> TabularInputs:
        from polyprobe.loaders.tabular import sources_for

        if not config.files:
            raise UsageError(f"build {self.name}: give at least one file")
        files, preset = sources_for(
            config.files,
            self.name,
            columns=config.columns,
            preset=config.preset,
            format=config.format,
            version=config.source_version or "unknown",
            language_column=config.language_column,
            keep_language=config.keep_language or config.lang,
        )
        return TabularInputs(files, preset)

    def plan(self, config: TabularConfig, sources: TabularInputs, names: Sequence[str]) -> Plan:
        preset = sources.preset
        published = config.name or (preset.name if preset else self.name)
        pair_features = config.pair_features or (preset.pair_features if preset else "")

        def adapt(_: str, task: Task[Any]) -> Task[Any]:
            # the config's name and pair features: the task's metadata, on this instance
            task.metadata = dataclasses.replace(  # type: ignore[misc]
                task.metadata,
                name=published,
                config="",
                pair_features=pair_features,
                description=config.description or task.metadata.description,
            )
            return task

        translation = config.translation()
        parameters: dict[str, Any] = {
            "preset": config.preset or "",
            "columns": dict(sources.sources[0].columns),
            "formats": {s.name: s.resolved_format for s in sources.sources},
        }
        if config.pair_features is not None:
            parameters["pair_features"] = config.pair_features
        first = sources.sources[0]
        if first.language_column:  # printed only when a filter may apply (cards unchanged)
            parameters["language_filter"] = {
                "column": first.language_column,
                "keep": config.keep_language or config.lang,
                "when": "if the files have the column" if first.language_optional else "always",
            }
        if translation is not None:
            parameters["translation"] = translation.card_entry()
        how = translation.sample_creation if translation is not None else None
        stream = Stream(
            ExampleRecords(tuple(sources.sources)),
            (published,),
            task_of=lambda _: self.name,
            adapt=adapt,
            sample_creation=None if how is None else (lambda _: how),
        )
        return Plan(
            file_splits(sources.sources),
            (stream,),
            parameters=parameters,
            inputs=[s.path for s in sources.sources],
        )

    def card(
        self, config: TabularConfig, sources: TabularInputs, language: Language, outcome: Outcome
    ) -> CardText:
        preset = sources.preset
        what = preset.describe if preset else f"user files ({self.name})"
        how = ""
        t = config.translation()
        if t is not None:
            how = (
                f" The texts are {t.sample_creation.replace('-', ' ')} from "
                f"{t.source_language} by {t.system} (version {t.version}, {t.date}); "
                f"sample_creation: {t.sample_creation} (every row)."
            )
        name = config.name or (preset.name if preset else self.name)
        return CardText(
            pretty_name=f"{name} ({language.name})",
            summary=f"A downstream {self.name} dataset built by polyprobe from {what}.{how}",
            source_datasets=("original",),
            tags=("downstream", self.name, "polyprobe"),
        )


class ClassificationConfig(TabularConfig):
    """build classification's options."""


class PairsConfig(TabularConfig):
    """build pairs's options."""


class RegressionConfig(TabularConfig):
    """build regression's options."""


class Classification(TabularFamily):
    name = "classification"
    help = "downstream dataset: sentence classification from CSV/TSV/JSONL files"
    description = (
        "Build a sentence-classification dataset (one config) from user files: text and label "
        "columns mapped with --columns or a --preset (sentiment-tsv, sqc). Splits from a split "
        "column or train=/dev=/test= files, else ratio 80/10/10. Natural variant and no class "
        "floor by default."
    )
    Config = ClassificationConfig


class Pairs(TabularFamily):
    name = "pairs"
    help = "downstream dataset: sentence-pair classification (NLI, PAWS, SICK-E, ArgMin)"
    description = (
        "Build a sentence-pair classification dataset (one config) from user files: "
        "sentence1, sentence2 and label columns mapped with --columns or a --preset (nli, "
        "paws, sick-e, ukp-argmin: the topic is sentence2 and evaluation uses the topic "
        "vector). Splits as for build classification."
    )
    Config = PairsConfig


class Regression(TabularFamily):
    name = "regression"
    help = "downstream dataset: scored sentence pairs (STS, SICK-R)"
    description = (
        "Build a scored sentence-pair dataset (one config; the label is the score, float32) "
        "from user files: sentence1, sentence2 and score columns mapped with --columns or a "
        "--preset (sts-b, sick-r). Splits as for build classification. Evaluated by cosine STS "
        "(Pearson, Spearman) and, with a train split, SICK-R's regression head."
    )
    Config = RegressionConfig


CLASSIFICATION, PAIRS, REGRESSION = Classification(), Pairs(), Regression()
