"""``build trec``: the original TREC question-classification files → a downstream dataset
with configs ``coarse`` (the default) and ``fine``, splits train/test as distributed.

With ``--translation``: TREC in another language (Wehner 2019 machine-translated it into
German, Russian, Turkish and Georgian) from a translation file aligned with the English
questions (:mod:`polyprobe.loaders.translations`, e.g. ``polyprobe translate``'s output). The
English build is run and only the rows' text replaced
(:mod:`polyprobe.builders.downstream.translated`): same labels, splits, groups and drops; the
card records ``sample_creation`` and the translation's provenance.

The family's own choices: TREC is English; its label sets are the benchmark's, so no class
floor applies by default (``--min-per-class`` may set one); only the natural, full variant is
built by default (a downstream benchmark is reported on its full training set).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.downstream.translated import TranslatedTask
from polyprobe.builders.downstream.trec import TREC_TASKS
from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, optional_path, parse_min_per_class
from polyprobe.builders.records.examples import ExampleRecords
from polyprobe.builders.translations import TranslationOptions, provenance_from_sidecar
from polyprobe.builders.variants import MinPerClass, SplitSpec
from polyprobe.errors import InputError, UsageError
from polyprobe.hashing import normalise_text
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.loaders.translations import TranslationProvenance, read_translations
from polyprobe.metadata import SourceInfo

SOURCE_SPLITS = SplitSpec(
    "ud",
    reason="the source's own train/test files (TREC has no validation split)",
    source_label="source",
)


@dataclass(frozen=True, kw_only=True)
class TrecConfig(TranslationOptions, BuildConfig):
    path: Path = option(
        help="folder with the TREC .label files",
        positional=True,
        parse=Path,
        metavar="DIR",
        profile=False,
    )
    lang: str = "en"
    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class(0))
    translation: Path | None = option(
        None,
        help="translations of the questions: .jsonl {id, text}, a TSV with id and text "
        "columns (polyprobe translate's output), or one line per question (train file, then "
        "test file); ids are train/<line>, test/<line>. --lang is the translation's language",
        parse=optional_path,
        metavar="FILE",
        profile=False,
    )
    sample_creation: str | None = "machine-translated"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.translation is not None and self.language.code == "en":
            raise UsageError("a translated TREC needs --lang: the translation's language")

    def provenance(self) -> TranslationProvenance:
        """How the translation was made: as given, else what ``polyprobe translate`` wrote
        beside it (``FILE.json``), else machine-translated by an unknown system."""
        if self.translator_given or self.sample_creation != "machine-translated":
            found: TranslationProvenance | None = TranslationProvenance(
                self.sample_creation or "machine-translated",
                self.translator,
                self.translator_version,
                self.translation_date,
            )
        else:
            assert self.translation is not None
            found = provenance_from_sidecar(self.translation)
        return dataclasses.replace(
            found or TranslationProvenance(), target_language=self.language.code
        )


@dataclass
class TrecInputs(Inputs):
    translation: Path | None = None
    provenance: TranslationProvenance | None = None

    @property
    def trec(self) -> Any:  # TrecSource
        return self.sources[0]

    def infos(self) -> list[SourceInfo]:
        info = self.trec.info
        if self.translation is None:
            return [info]
        translated = SourceInfo(
            kind="translation",
            name=self.translation.name,
            version=self.provenance.version if self.provenance else "unknown",
            license=info.license,
            files=file_entries([(self.translation.name, self.translation)]),
        )
        return [info, translated]

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        if self.translation is not None:
            return []  # the translation is in --lang; the English files are its source
        return super().declared()  # TREC is English


class TrecFamily(Family[TrecConfig, TrecInputs]):
    name = "trec"
    help = "downstream dataset: TREC question classification"
    description = (
        "Build a dataset folder (configs coarse, the default, and fine; splits train/test) "
        "from a folder holding the original TREC files train_5500.label and TREC_10.label. "
        "Their encodings (ISO-8859-1, ASCII) are detected and recorded. Train copies of test questions are dropped (the "
        "card says how many). No class floor and only the natural variant by default: the "
        "benchmark's own label sets and training set."
    )
    Config = TrecConfig
    tasks = TaskSet.of(*TREC_TASKS)

    def sources(self, config: TrecConfig) -> TrecInputs:
        from polyprobe.loaders.trec import TrecSource

        trec = TrecSource(config.path, source_version=config.source_version)
        provenance = config.provenance() if config.translation is not None else None
        return TrecInputs([trec], config.translation, provenance)

    def plan(self, config: TrecConfig, sources: TrecInputs, names: Sequence[str]) -> Plan:
        from polyprobe.loaders.trec import detect_encoding

        encodings = {p.name: detect_encoding(p.read_bytes()) for p in sources.trec.paths.values()}
        parameters: dict[str, Any] = {
            "train_copies_of_test": "dropped",
            "encodings": {name: enc for name, (enc, _) in encodings.items()},
            "encoding_notes": {name: note for name, (_, note) in encodings.items() if note},
        }
        skipped: Counter[str] = Counter()
        stream = Stream(ExampleRecords((sources.trec,)), tuple(names), lang="en")
        if sources.translation is not None and sources.provenance is not None:
            translations = _translations(sources, config.on_invalid, skipped)
            how = sources.provenance.sample_creation
            parameters["translation"] = sources.provenance.card_entry()
            stream = dataclasses.replace(
                stream,
                lang=None,
                adapt=lambda _, task: TranslatedTask(task, translations),
                sample_creation=lambda _: how,
            )
        return Plan(SOURCE_SPLITS, (stream,), parameters=parameters, skipped=dict(skipped))

    def card(
        self, config: TrecConfig, sources: TrecInputs, language: Language, outcome: Outcome
    ) -> CardText:
        tags: tuple[str, ...] = ("downstream", "question-classification", "polyprobe")
        p = sources.provenance
        if p is None:
            return CardText(
                pretty_name="TREC question classification",
                summary="TREC question classification (Li & Roth 2002) as a polyprobe "
                "downstream dataset: the original train/test files, coarse (6) and fine (50) "
                "labels. The licence of the TREC data is not stated by its distributors "
                "(research data).",
                source_datasets=("original",),
                tags=tags,
            )
        how = p.sample_creation
        return CardText(
            pretty_name=f"TREC question classification ({language.name}, {how})",
            summary=f"TREC question classification (Li & Roth 2002) in {language.name}: "
            f"the English questions {how.replace('-', ' ')} by {p.system} "
            f"(version {p.version}, {p.date}); labels, "
            "splits, groups and drops are the English build's. sample_creation: "
            f"{how} (every row). The licence of the TREC data is not stated by its "
            "distributors (research data).",
            source_datasets=("original",),
            tags=(*tags[:2], "translated", "polyprobe"),
        )


def _translations(sources: TrecInputs, on_invalid: str, skipped: Counter[str]) -> dict[str, str]:
    """The translation of every English question, by its id, else by its text (files with a
    ``source`` column, such as ``polyprobe translate``'s); a question without one (or, in a
    file without sources, an id that is no question) is an InputError naming the file, or a
    count under skip."""
    policy = InvalidPolicy(on_invalid, skipped)
    english = list(sources.trec.records(InvalidPolicy("skip", Counter())))
    path = sources.translation
    assert path is not None
    found = read_translations(path, policy, order=[e.id for e in english])
    by_source = {normalise_text(t.source): t for t in found.values() if t.source}
    ids = {e.id for e in english}
    for item_id, tr in found.items():
        if item_id not in ids and tr.source is None:
            problem = f"{item_id} is not a TREC question id (train/<line> or test/<line>)"
            policy.reject(InputError(path, tr.line, problem, "unknown-id"))
    out: dict[str, str] = {}
    for example in english:
        tr = found.get(example.id) or by_source.get(normalise_text(example.inputs[0]))
        if tr is None:
            problem = (
                f"no translation for TREC question {example.id} "
                f"({Path(example.source.path).name}:{example.line})"
            )
            policy.reject(InputError(path, None, problem, "missing-translation"))
        else:
            out[example.id] = tr.text
    return out


TREC = TrecFamily()
