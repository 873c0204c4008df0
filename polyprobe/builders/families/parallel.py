"""``build parallel``: parallel treebanks aligned by ``sent_id`` (PUD) or parallel text files
(line-aligned, id-aligned TSVs, a wide TSV) → one dataset with

* per-language configs ``<task>-<lang>``: one stream per language, the UD sentence tasks
  (from text, the text tasks) exactly as ``build ud`` (``build text``) runs them, with that
  language's facts and label space;
* the wide config ``parallel`` (:mod:`polyprobe.builders.parallel.wide`): one row per aligned
  item with every language's text and labels, written by the post-step with each label's
  agreement with the pivot language (``--lang``).

Splits by document (:mod:`polyprobe.builders.records.parallel`), the same in every language;
every per-language row says how its text was made (``sample_creation``,
:mod:`polyprobe.builders.parallel.facts`). Defaults: pivot ``en``, natural only, class floors
20/5/5 (a PUD split has about 100 test sentences).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.family import CardText, Family, Outcome, Plan, TaskSet
from polyprobe.builders.options import BuildConfig, option, optional_path, parse_min_per_class
from polyprobe.builders.parallel.agreement import agreement, published_labels, with_notes
from polyprobe.builders.parallel.facts import DOCUMENT_SPLIT, creation_counts
from polyprobe.builders.parallel.inputs import ParallelInputs
from polyprobe.builders.parallel.streams import language_streams
from polyprobe.builders.parallel.tasks import TEXT_TASK_SET, TREEBANK_TASK_SET
from polyprobe.builders.parallel.wide import wide_config, wide_recipe
from polyprobe.builders.variants import MinPerClass
from polyprobe.languages import Language, resolve_language
from polyprobe.metadata import SAMPLE_CREATION
from polyprobe.version import __version__

TRANSLATED = tuple(v for v in SAMPLE_CREATION if v.endswith("-translated"))
TAGS = ("probing", "parallel", "multilingual", "polyprobe")


def _inputs(value: Any) -> tuple[str, ...]:
    """Paths as given (``LANG=PATH`` names a file's language), as strings."""
    return tuple(str(v) for v in ([value] if isinstance(value, str | Path) else value))


def _language_code(code: str) -> str:
    return resolve_language(code).code


@dataclass(frozen=True, kw_only=True)
class ParallelConfig(BuildConfig):
    paths: tuple[str, ...] = option(
        help="parallel treebank folders aligned by sent_id, one per language (e.g. UD_*-PUD); "
        "or parallel text files, [LANG=]FILE (the language from LANG= or the file name: "
        "corpus.de, de.txt): line-aligned text (one file per language, line i of each file "
        "is one item), id-aligned TSV (id<TAB>text, or a header naming id, text and "
        "optionally document and original_language), or one wide TSV (header: id, a column "
        "per language, optionally document and original_language)",
        positional=True,
        parse=_inputs,
        metavar="INPUT",
        profile=False,
    )
    lang: str = option(
        "en",
        help="the pivot language (ISO 639-1 or 639-3 code): its sentence fills the wide "
        "config's input columns, its labels are what the agreement compares with",
    )
    balances: tuple[str, ...] = ("natural",)
    min_per_class: MinPerClass = field(default_factory=lambda: parse_min_per_class((20, 5, 5)))
    line_ids: Path | None = option(
        None,
        help="parallel text: ids of the line-aligned files: line i is id, id<TAB>document or "
        "id<TAB>document<TAB>original_language (WMT docids, FLORES metadata); default: ids "
        "are line numbers and every line is its own document",
        parse=optional_path,
        metavar="FILE",
        profile=False,
    )
    original_language: str | None = option(
        None,
        help="parallel text (or treebanks whose sent_ids are not PUD's): the language the "
        "texts were written in (its rows are native, the others translations); a TSV's "
        "original_language column says it per item. Default: unknown",
        parse=_language_code,
        metavar="LANG",
    )
    sample_creation: str = option(
        "human-translated",
        help="parallel text: how the translations were made; each row's sample_creation "
        "column and the card say it",
        choices=TRANSLATED,
    )
    translator: str = option("unknown", help="parallel text: translation system, for the card")
    translator_version: str = option("unknown", help="its version, for the card")
    translation_date: str = option("unknown", help="when it was made, for the card")
    tokenizer: str = option(
        "auto",
        help="parallel text: how texts are tokenised: auto (spaCy's blank tokenizer if "
        "installed, else segtok), spacy, segtok, or an installed spaCy pipeline (name or folder)",
    )

    def describes_texts(self) -> bool:
        """Did the user say how the texts were made (for inputs that do not say it)?"""
        given = (self.translator, self.translator_version, self.translation_date)
        return bool(
            self.original_language
            or given != ("unknown",) * 3
            or self.sample_creation != "human-translated"
        )


class ParallelFamily(Family[ParallelConfig, ParallelInputs]):
    name = "parallel"
    help = "parallel probing set from treebanks aligned by sent_id (PUD) or parallel text"
    description = (
        "Build per-language configs <task>-<lang> of the UD sentence tasks (default: "
        "sentence_length, tree_depth, bigram_shift, tense, subject_number, object_number, "
        "voice; --tasks takes any UD task but the discourse ones) and the wide 'parallel' "
        "config (one row per sent_id: text, English reference, sample_creation and labels per "
        "language, null where missing; label: PUD genre news/wiki) from one treebank per "
        "language. Splits by document (80/10/10 of the documents by hash), identical in every "
        "language. --lang names the pivot language (default en) whose sentence fills the wide "
        "config's input columns; the card gives each label's agreement with the pivot's. From "
        "parallel text files (line- or id-aligned, or a wide TSV) the per-language configs are "
        "the text tasks' (default: sentence_length, bigram_shift; --tasks takes any text task),"
        " texts tokenised as build text does, and the wide config's label is each item's "
        "original language. Every per-language row has a sample_creation column (native, human-"
        "translated, machine-translated or unknown)."
    )
    Config = ParallelConfig

    def sources(self, config: ParallelConfig) -> ParallelInputs:
        return ParallelInputs.open(config)

    def task_set(self, config: ParallelConfig, sources: ParallelInputs) -> TaskSet:
        return TREEBANK_TASK_SET if sources.texts is None else TEXT_TASK_SET

    def plan(self, config: ParallelConfig, sources: ParallelInputs, names: Sequence[str]) -> Plan:
        reading = sources.read()
        streams = language_streams(reading, names, from_text=sources.texts is not None)
        return Plan(
            split=DOCUMENT_SPLIT,
            streams=streams,
            parameters={
                "pivot": sources.pivot,
                "languages": list(sources.langs),
                "translation": sources.provenance(),
            },
            skipped=reading.skipped,
            facts={"sentences": len(reading.alignment.rows), "languages": list(sources.langs)},
            inputs=sources.files,
        )

    def finish(
        self, config: ParallelConfig, sources: ParallelInputs, outcome: Outcome, staging: Path
    ) -> Outcome:
        """The labels each language published, their agreement with the pivot's (notes of
        the per-language configs) and the wide config, first."""
        reading, pivot, langs = sources.read(), sources.pivot, sources.langs
        task_set = self.task_set(config, sources)
        names = task_set.resolve(config.tasks)
        labels = published_labels(staging, outcome.assembled, langs, names, task_set)
        agreed = agreement(labels, langs, pivot)
        creation = creation_counts(reading.alignment, reading.facts)
        wide = wide_config(staging, reading.alignment, labels, config.seed, pivot, reading.facts)
        languages = [lang for lang, _ in reading.records]
        profile = {
            "pivot": pivot,
            "languages": {
                lang: stream.profile
                for lang, stream in zip(languages, outcome.streams, strict=True)
            },
            "agreement": agreed,
            "coverage": reading.alignment.coverage(),
            "sample_creation": creation,
        }
        return dataclasses.replace(
            outcome,
            assembled=[wide, *(with_notes(a, agreed, creation, pivot) for a in outcome.assembled)],
            recipes=[wide_recipe(names), *outcome.recipes],
            profile=profile,
            duplicates={},
        )

    def card(
        self, config: ParallelConfig, sources: ParallelInputs, language: Language, outcome: Any
    ) -> CardText:
        names = ", ".join(s.name for s in sources.infos())
        langs = ", ".join(sources.langs)
        same = f"The same sentences probed in {len(sources.langs)} languages ({langs}), built by "
        if sources.texts is not None:
            return CardText(
                pretty_name="polyprobe parallel probing suite (parallel text)",
                summary=(
                    f"{same}polyprobe {__version__} from the parallel text files {names} "
                    f"({sources.texts.describe()['layout']}): per-language configs "
                    "`<task>-<lang>` of the text tasks and the wide `parallel` config (one row "
                    "per aligned item, every language's text and labels). Splits by document, "
                    "identical in every language; every row says how its text was made in "
                    "`sample_creation`."
                ),
                tags=TAGS,
                languages=tuple(sources.langs),
            )
        pud = sources.read().pud
        return CardText(
            pretty_name="polyprobe parallel probing suite ("
            + ("PUD" if pud else "parallel treebanks")
            + ")",
            summary=(
                f"{same}polyprobe {__version__} from {names}: per-language configs "
                "`<task>-<lang>` and the wide `parallel` config (one row per sent_id, every "
                "language's text and labels). Splits by document, identical in every language. "
                + (
                    "Translations are human (PUD); see `sample_creation`."
                    if pud
                    else "How each row was made: `sample_creation`."
                )
            ),
            source_datasets=tuple(f"universal_dependencies/{s.name}" for s in sources.treebanks),
            tags=TAGS,
            languages=tuple(sources.langs),
        )


PARALLEL = ParallelFamily()
