"""``build parallel``: parallel treebanks aligned by ``sent_id`` (PUD) → one dataset with

* per-language configs ``<task>-<lang>`` for the UD sentence tasks feasible in each language
  (each language's own label space: tense is ``Fut``/``Imp``/``Pqp`` somewhere, ``Ptan``
  elsewhere), built by the UD tasks exactly as ``build ud`` builds them;
* one wide config ``parallel``: one row per ``sent_id`` with the text, ``sample_creation`` and
  every task's label in every language (``null`` where a language has no sentence or its
  config no row), the document, and PUD's genre (news/wiki) as its ``label``.

Why splits by document, drawn from the document id alone: the same content is probed in
every language, so a sentence in train in one language and its translation in test in
another would leak; :func:`polyprobe.loaders.parallel.document_split` puts a document in the
same split in every language and for every seed. Why the agreement table: a label is only
comparable across languages when the annotation agrees; the card gives, per task and
language, how often each label equals the English one on the same sentence.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from polyprobe.builders.assemble import AssembledTask, TaskSummary
from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.recipes.ud import TreebankFamily
from polyprobe.builders.task import Shared, Task
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.parallel import (
    AlignedRow,
    Alignment,
    align,
    document_split,
    english_reference,
    pud_genre,
    pud_original_language,
    sample_creation,
)
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SAMPLE_CREATION, ConfigBlock, Level, SourceInfo, VariantBlock
from polyprobe.version import __version__

PARALLEL_DEFAULTS: dict[str, Any] = {
    "lang": "en",
    "balances": ("natural",),
    "min_per_class": (20, 5, 5),
}
# The UD tasks built per language when none are named: those feasible on PUD's 1,000
# sentences at the default class floors (word_content, top_dependencies and
# coordination_inversion never are: too few items per class in a 10% split); ``--tasks``
# takes any UD task.
PARALLEL_TASKS: tuple[str, ...] = (
    "sentence_length",
    "tree_depth",
    "bigram_shift",
    "tense",
    "subject_number",
    "object_number",
    "voice",
)
DOCUMENT_RATIOS = (80, 10, 10)
DOCUMENT_SPLIT = SplitSpec(
    "ud",
    reason="by document: each document's blake2b hash puts all its sentences in train, "
    "validation or test (80/10/10 of the documents), the same split in every language, so no "
    "translation of a test sentence is in train",
    source_label="document",
)
# What the tasks' split estimates assume: records carry their split, as in a UD build.
_TASK_SPLIT = SplitSpec("ud", reason="by document")
WIDE = "parallel"
GENRES = ("news", "wiki")
# PUD's translations, as its READMEs describe them (the card's provenance entry).
PUD_PROVENANCE: dict[str, Any] = {
    "system": "human translation",
    "by": "DFKI (professional translators; German by DFKI itself) for de, es, ru, tr and the "
    "non-English originals into English; Charles University for cs; University of Turku for fi",
    "via": "English (originals in de, fr, it, es were first translated into English)",
    "date": "2017 (CoNLL 2017 shared task)",
    "source": "README of each UD_*-PUD treebank",
}


_SPLIT_CODE = {"train": 0, "dev": 1, "test": 2}
TRANSLATED: tuple[str, ...] = tuple(v for v in SAMPLE_CREATION if v.endswith("-translated"))


@dataclass(frozen=True)
class RowFacts:
    """What the inputs say about an aligned item, beyond its texts: the wide config's label
    (``label_names``, ``label_of(sent_id)``: ``None`` drops the row with ``drop_reason``),
    the language it was written in (``original_of``) and so each language's
    ``sample_creation`` (``creation(lang, original)``)."""

    label_names: tuple[str, ...]
    label_description: str
    label_phrase: str
    label_of: Callable[[str], str | None]
    drop_reason: str
    original_of: Callable[[str], str | None]
    creation: Callable[[str, str | None], str]
    creation_note: str


PUD_FACTS = RowFacts(
    label_names=GENRES,
    label_description="genre: PUD sent_id starting with n (news) or w (Wikipedia)",
    label_phrase="PUD's genre (news or wiki)",
    label_of=pud_genre,
    drop_reason="not a PUD id",
    original_of=pud_original_language,
    creation=sample_creation,
    creation_note="sample_creation: native where the row's language is the sentence's "
    "original one (PUD sent_id digits 2-3: 01 en, 02 de, 03 fr, 04 it, 05 es), else "
    "human-translated (PUD translated via English).",
)


def text_facts(
    originals: dict[str, str | None], default: str, per_language: dict[str, str]
) -> RowFacts:
    """Row facts of parallel text files: the label is the item's original language
    (``unknown`` where neither the file's ``original_language`` column nor
    ``--original-language`` says), sample_creation ``native`` in that language, else the
    language's own (``per_language``: a ``polyprobe translate`` output's provenance) or
    ``default`` (``--sample-creation``), and ``unknown`` everywhere when the original is
    unknown."""
    names = sorted({o or "unknown" for o in originals.values()})

    def creation(lang: str, original: str | None) -> str:
        if original is None:
            return "unknown"
        return "native" if original == lang else per_language.get(lang, default)

    own = "".join(
        f"; {v} in {k} (its translation file's provenance)" for k, v in per_language.items()
    )
    return RowFacts(
        label_names=tuple(names) or ("unknown",),
        label_description="original language: the language the item was written in "
        "(the file's original_language column, else --original-language; unknown if neither)",
        label_phrase="the item's original language (unknown where the input does not say)",
        label_of=lambda item_id: originals.get(item_id) or "unknown",
        drop_reason="",
        original_of=originals.get,
        creation=creation,
        creation_note="sample_creation: native in the item's original language, "
        f"{default} in the others{own}; unknown where the input does not say which language "
        "the item was written in.",
    )


def _with_document_split(sentence: Sentence) -> Sentence:
    """The sentence with its split replaced by its document's: a new record, the read one is
    left as it is (builders never change a record)."""
    split = document_split(sentence.doc_id or sentence.sent_id, DOCUMENT_RATIOS)
    source = dataclasses.replace(sentence.source, split=split)
    return dataclasses.replace(sentence, source=source)


@dataclass(frozen=True)
class LanguageFamily:
    """One language's treebank as a record family whose tasks are named ``<task>-<lang>``
    and whose records carry their document's split (see :class:`TreebankFamily`)."""

    base: Any  # TreebankFamily, or AlignedTextFamily for parallel text files
    lang: str

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        suffix = f"-{self.lang}"
        tasks, profile = self.base.open_tasks([n.removesuffix(suffix) for n in names])
        for task, name in zip(tasks, names, strict=True):
            # The per-language config's name: the task's metadata with its name suffixed
            # (an instance attribute; the class and every other build keep theirs).
            task.metadata = dataclasses.replace(task.metadata, name=name, config="")  # type: ignore[misc]
        return tasks, profile

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        return map(_with_document_split, self.base.records(on_invalid, skipped))

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        # The split is the document's (set by ``records``), whatever the base family says.
        return sentence.source.treebank, sentence.sent_id, _SPLIT_CODE[sentence.source.split]

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return self.base.text_hash(sentence, shared)

    def describe_input(self) -> str:
        return self.base.describe_input()


@dataclass
class ParallelRecipe:
    """``build parallel`` on the shared build: parallel treebanks (aligned by ``sent_id``)
    or parallel text files (aligned by line or id; :mod:`.parallel_text`)."""

    paths: Sequence[str | os.PathLike[str]]
    options: BuildOptions
    family: str = "parallel"
    # parallel text files only:
    line_ids: str | os.PathLike[str] | None = None
    original_language: str | None = None
    sample_creation: str = "human-translated"  # how the translations were made
    translation: dict[str, str] = field(default_factory=dict)  # system, version, date
    tokenizer: str = "auto"

    def __post_init__(self) -> None:
        from polyprobe.builders.recipes.parallel_text import (
            TEXT_PARALLEL_TASKS,
            ParallelTexts,
            split_inputs,
        )
        from polyprobe.builders.registry import resolve_task_names
        from polyprobe.loaders.sources import discover

        if self.sample_creation not in TRANSLATED:
            raise UsageError(
                f"--sample-creation must be one of {', '.join(TRANSLATED)}, "
                f"not {self.sample_creation!r}"
            )
        folders, files = split_inputs(self.paths)
        self.texts: ParallelTexts | None = None
        self.treebanks: list[Any] = []
        self.langs: list[str] = []
        if files:
            self.task_family = "text"
            self.task_names = resolve_task_names("text", self.options.tasks or TEXT_PARALLEL_TASKS)
            self.texts = ParallelTexts.of(
                files,
                ids=None if self.line_ids is None else Path(self.line_ids),
                licenses=dict(self.options.license_overrides),
                version=self.options.source_version,
            )
            self.langs = list(self.texts.languages)
        else:
            if self.line_ids is not None or self.tokenizer != "auto":
                raise UsageError(
                    "--line-ids and --tokenizer describe parallel text files; treebanks have "
                    "their sentence ids and tokens"
                )
            self.task_family = "ud"
            self.task_names = resolve_task_names("ud", self.options.tasks or PARALLEL_TASKS)
            self.treebanks = discover(
                folders,
                license_overrides=dict(self.options.license_overrides),
                source_version=self.options.source_version,
            )
            for tb in self.treebanks:
                tags = sorted({d.tag for d in tb.languages})
                if len(tags) != 1:
                    raise UsageError(
                        f"{tb.path}: a parallel treebank must declare exactly one language "
                        f"(file names or README), found {tags or 'none'}"
                    )
                if tags[0] in self.langs:
                    raise UsageError(f"two treebanks in {tags[0]}: give one treebank per language")
                self.langs.append(tags[0])
        if len(self.langs) < 2:
            raise UsageError("build parallel needs inputs in at least two languages")
        pivot = resolve_language(self.options.lang).code
        if pivot not in self.langs:
            raise UsageError(
                f"--lang {self.options.lang} is the pivot language (the wide config's "
                f"sentence), but no input is in it: {', '.join(self.langs)}"
            )
        self.pivot = pivot
        if self.original_language is not None:
            self.original_language = resolve_language(self.original_language).code

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        # Every input declares its own language (checked above); --lang names the pivot.
        return []

    def sources(self) -> list[SourceInfo]:
        if self.texts is not None:
            return self.texts.sources()
        return [s.info for s in self.treebanks]

    def _ordered(self) -> list[tuple[str, Any]]:
        """(language, treebank), the pivot first, then in the order given."""
        pairs = list(zip(self.langs, self.treebanks, strict=True))
        return sorted(pairs, key=lambda p: p[0] != self.pivot)

    def _families(
        self, options: BuildOptions, skipped: Counter[str]
    ) -> tuple[Alignment, RowFacts, list[tuple[str, LanguageFamily]]]:
        """The alignment, what the inputs say about each item, and each language's record
        family (the pivot's first)."""
        profile_path = None if options.profile is None else str(options.profile)
        if self.texts is None:
            alignment = align(self._ordered(), on_invalid=options.on_invalid)
            families = [
                (
                    lang,
                    LanguageFamily(
                        TreebankFamily(
                            sources=(treebank,),
                            lang=resolve_language(lang).code,
                            seed=options.seed,
                            min_per_class=options.min_per_class,
                            split=_TASK_SPLIT,
                            profile_path=profile_path,
                        ),
                        lang,
                    ),
                )
                for lang, treebank in self._ordered()
            ]
            return alignment, self._treebank_facts(alignment), families
        from polyprobe.builders.recipes.parallel_text import (
            PARALLEL_FILTER,
            AlignedTextFamily,
            segmenter_source,
        )
        from polyprobe.builders.registry import family_tasks

        texts = self.texts.read(self.pivot, InvalidPolicy(options.on_invalid, skipped))
        for lang in texts.languages[1:]:
            if not any(r.texts[lang] and r.texts[self.pivot] for r in texts.rows):
                raise UsageError(
                    f"no {lang} item has the id of a {self.pivot} item: the inputs are not "
                    "aligned (a line-aligned file's ids are its line numbers unless --line-ids "
                    "gives them; a TSV's are its id column)"
                )
        fallback = self.original_language or self.texts.translated_from()
        originals = {row.id: row.original or fallback for row in texts.rows}
        families = []
        rows: dict[str, dict[str, Sentence | None]] = {row.id: {} for row in texts.rows}
        for lang in texts.languages:
            family = AlignedTextFamily(
                sources=(segmenter_source(lang, self.tokenizer),),
                lang=lang,
                seed=options.seed,
                min_per_class=options.min_per_class,
                split=_TASK_SPLIT,
                tasks=family_tasks("text"),
                sentence_filter=PARALLEL_FILTER,
                profile_path=profile_path,
                items=tuple(r.texts[lang] for r in texts.rows if r.texts[lang] is not None),
            )
            for sentence in family.records(options.on_invalid, Counter()):
                rows[sentence.sent_id][lang] = sentence
            families.append((lang, LanguageFamily(family, lang)))
        alignment = Alignment(
            texts.languages,
            tuple(
                AlignedRow(r.id, r.doc_id, {lang: rows[r.id].get(lang) for lang in texts.languages})
                for r in texts.rows
            ),
        )
        per_language = {
            lang: p.sample_creation for lang, p in self.texts.translation_files().items()
        }
        facts = text_facts(originals, self.sample_creation, per_language)
        return alignment, facts, families

    def _described(self) -> bool:
        """Did the user say how the texts were made (for inputs that do not say it)?"""
        return bool(
            self.original_language or self.translation or self.sample_creation != "human-translated"
        )

    def _treebank_facts(self, alignment: Alignment) -> RowFacts:
        """PUD's facts when every sentence has a PUD id (genre and original language in the
        id; the options that describe texts are then refused: PUD says it itself); else, for
        other parallel treebanks, the facts of parallel text (original language from
        ``--original-language``, else unknown)."""
        if all(pud_genre(row.sent_id) is not None for row in alignment.rows):
            if self._described():
                raise UsageError(
                    "--original-language, --sample-creation and --translator describe parallel "
                    "inputs that do not say it themselves; PUD's sentence ids give each "
                    "sentence's original language, and its translations are human"
                )
            return PUD_FACTS
        originals = {row.sent_id: self.original_language for row in alignment.rows}
        return text_facts(originals, self.sample_creation, {})

    def _provenance(self) -> dict[str, Any]:
        if self.texts is None and self._pud:
            # the translations' version is the treebanks' release (PUD has no other)
            versions = sorted({tb.info.version for tb in self.treebanks})
            return {**PUD_PROVENANCE, "version": ", ".join(versions)}
        if self.texts is None:
            return {
                "sample_creation": self.sample_creation,
                "original_language": self.original_language or "unknown",
                "system": self.translation.get("system", "unknown"),
                "version": self.translation.get("version", "unknown"),
                "date": self.translation.get("date", "unknown"),
            }
        return {
            "sample_creation": self.sample_creation,
            "original_language": self.original_language
            or self.texts.translated_from()
            or "per item (original_language column), else unknown",
            "system": self.translation.get("system", "unknown"),
            "version": self.translation.get("version", "unknown"),
            "date": self.translation.get("date", "unknown"),
            "input": self.texts.describe(),
            **{
                f"translation_file_{lang}": p.card_entry()
                for lang, p in self.texts.translation_files().items()
            },
        }

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        from polyprobe.builders.sample_creation import record_id, with_sample_creation

        skipped: Counter[str] = Counter()
        alignment, facts, families = self._families(options, skipped)
        self._pud = facts is PUD_FACTS
        assembled: list[AssembledTask] = []
        recipes: list[dict[str, Any]] = []
        profile: dict[str, Any] = {"pivot": self.pivot, "languages": {}}
        for lang, family in families:
            outcome = run_record_tasks(
                family,
                [f"{name}-{lang}" for name in self.task_names],
                options,
                split=DOCUMENT_SPLIT,
                staging=staging,
                progress=progress,
            )

            def creation_of(row_id: str, lang: str = lang) -> str:
                return facts.creation(lang, facts.original_of(record_id(row_id)))

            assembled += with_sample_creation(staging, outcome.assembled, creation_of)
            recipes += outcome.recipes
            profile["languages"][lang] = outcome.profile
            skipped.update(outcome.skipped)
        labels = _published_labels(
            staging, assembled, self.langs, self.task_names, self.task_family
        )
        agreement = _agreement(labels, self.langs, self.pivot)
        creation = _creation_counts(alignment, facts)
        assembled = [_with_notes(a, agreement, creation, self.pivot) for a in assembled]
        wide = _wide_config(
            staging, alignment, labels, self.task_names, options.seed, self.pivot, facts
        )
        profile["agreement"] = agreement
        profile["coverage"] = alignment.coverage()
        profile["sample_creation"] = creation
        return Outcome(
            assembled=[wide, *assembled],
            recipes=[
                {"name": WIDE, "version": "1.0.0", "parameters": {"tasks": self.task_names}},
                *recipes,
            ],
            profile=profile,
            parameters={
                "split": DOCUMENT_SPLIT.label,
                "split_reason": DOCUMENT_SPLIT.reason,
                "pivot": self.pivot,
                "languages": list(self.langs),
                "translation": self._provenance(),
            },
            skipped=dict(skipped),
            split=f"{DOCUMENT_SPLIT.label} ({DOCUMENT_SPLIT.reason})",
            facts={"sentences": len(alignment.rows), "languages": list(self.langs)},
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        names = ", ".join(s.name for s in self.sources())
        if self.texts is not None:
            return CardText(
                pretty_name="polyprobe parallel probing suite (parallel text)",
                summary=(
                    f"The same sentences probed in {len(self.langs)} languages "
                    f"({', '.join(self.langs)}), built by polyprobe {__version__} from the "
                    f"parallel text files {names} ({self.texts.describe()['layout']}): "
                    "per-language configs `<task>-<lang>` of the text tasks and the wide "
                    "`parallel` config (one row per aligned item, every language's text and "
                    "labels). Splits by document, identical in every language; every row says "
                    "how its text was made in `sample_creation`."
                ),
                tags=("probing", "parallel", "multilingual", "polyprobe"),
                languages=tuple(self.langs),
            )
        pud = getattr(self, "_pud", True)
        return CardText(
            pretty_name="polyprobe parallel probing suite ("
            + ("PUD" if pud else "parallel treebanks")
            + ")",
            summary=(
                f"The same sentences probed in {len(self.langs)} languages "
                f"({', '.join(self.langs)}), built by polyprobe {__version__} from {names}: "
                "per-language configs `<task>-<lang>` and the wide `parallel` config (one row "
                "per sent_id, every language's text and labels). Splits by document, identical "
                "in every language. "
                + (
                    "Translations are human (PUD); see `sample_creation`."
                    if pud
                    else "How each row was made: `sample_creation`."
                )
            ),
            source_datasets=tuple(f"universal_dependencies/{s.name}" for s in self.treebanks),
            tags=("probing", "parallel", "multilingual", "polyprobe"),
            languages=tuple(self.langs),
        )


def _recommended_card(task: AssembledTask) -> Any:
    for card in task.cards:
        if card.name == task.name:
            return card
    return None


def _published_labels(
    staging: Path,
    assembled: Sequence[AssembledTask],
    langs: Sequence[str],
    tasks: Sequence[str],
    family: str = "ud",
) -> dict[str, dict[str, dict[str, str]]]:
    """task -> language -> sent_id -> label, read back from each per-language recommended
    config as written (so the wide config says exactly what those configs say). Tasks with
    paired copies (a perturbed and an original row per sentence) have no single label per
    sentence and are left out."""
    by_name = {a.name: a for a in assembled}
    out: dict[str, dict[str, dict[str, str]]] = {}
    from polyprobe.builders.registry import family_tasks
    from polyprobe.builders.sample_creation import record_id

    known = family_tasks(family)
    for task in tasks:
        meta = known[task].metadata
        if meta.paired_copies or meta.level != Level.SENTENCE:
            continue
        out[task] = {}
        for lang in langs:
            found: dict[str, str] = {}
            card = _recommended_card(by_name[f"{task}-{lang}"])
            if card is not None:
                names = card.stats.label_names
                for st in card.stats.splits.values():
                    table = pq.read_table(staging / st.path, columns=["id", "label"])
                    for row_id, label in zip(
                        table.column("id").to_pylist(),
                        table.column("label").to_pylist(),
                        strict=True,
                    ):
                        found[record_id(row_id)] = names[label]
            out[task][lang] = found
    return out


def _agreement(
    labels: dict[str, dict[str, dict[str, str]]], langs: Sequence[str], pivot: str
) -> dict[str, dict[str, Any]]:
    """Per task and language: on the sentences both the language and the pivot label, how
    often the labels are equal, overall and per label of the language."""
    out: dict[str, dict[str, Any]] = {}
    for task, per_lang in labels.items():
        ref = per_lang.get(pivot, {})
        out[task] = {}
        for lang in langs:
            if lang == pivot:
                continue
            both = [(lab, ref[sid]) for sid, lab in per_lang[lang].items() if sid in ref]
            by_label: dict[str, list[int]] = {}
            for lab, ref_lab in sorted(both):
                entry = by_label.setdefault(lab, [0, 0])
                entry[0] += lab == ref_lab
                entry[1] += 1
            out[task][lang] = {
                "compared": len(both),
                "agree": sum(a == b for a, b in both),
                "by_label": {k: {"agree": v[0], "of": v[1]} for k, v in by_label.items()},
            }
    return out


def _creation_counts(alignment: Alignment, facts: RowFacts) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = {lang: Counter() for lang in alignment.languages}
    for row in alignment.rows:
        original = facts.original_of(row.sent_id)
        for lang, sentence in row.sentences.items():
            if sentence is not None:
                counts[lang][facts.creation(lang, original)] += 1
    return {lang: dict(sorted(c.items())) for lang, c in counts.items()}


def _percent(agree: int, of: int) -> str:
    return f"{agree}/{of} ({100 * agree / of:.1f}%)" if of else "0/0"


def _with_notes(
    task: AssembledTask,
    agreement: dict[str, dict[str, Any]],
    creation: dict[str, dict[str, int]],
    pivot: str,
) -> AssembledTask:
    """The per-language configs' cards with the language's sample creation and, for tasks
    the wide config carries, each label's agreement with the pivot language."""
    base, _, lang = task.name.rpartition("-")
    notes = [
        "sample_creation of this language's sentences: "
        + ", ".join(f"{k} {v}" for k, v in creation.get(lang, {}).items())
    ]
    entry = agreement.get(base, {}).get(lang)
    if entry is not None and not entry["compared"]:
        notes.append(f"Agreement with the {pivot} label: no sentence is labelled in both")
    elif entry is not None:
        per_label = "; ".join(
            f"{lab} {_percent(v['agree'], v['of'])}" for lab, v in entry["by_label"].items()
        )
        notes.append(
            f"Agreement with the {pivot} label of the same sentence (both labelled): "
            f"{_percent(entry['agree'], entry['compared'])}"
            + (f"; {per_label}" if per_label else "")
        )
    cards = [
        dataclasses.replace(
            c, payload=dataclasses.replace(c.payload, notes=[*c.payload.notes, *notes])
        )
        for c in task.cards
    ]
    return dataclasses.replace(task, cards=cards)


def _struct(langs: Sequence[str]) -> dict[str, Any]:
    return {lang: {"dtype": "string", "_type": "Value"} for lang in langs}


def _wide_config(
    staging: Path,
    alignment: Alignment,
    labels: dict[str, dict[str, dict[str, str]]],
    tasks: Sequence[str],
    seed: int,
    pivot: str,
    facts: RowFacts = PUD_FACTS,
) -> AssembledTask:
    """The ``parallel`` config: every aligned sentence, split by its document."""
    from polyprobe.builders.rendering import sentence_inputs
    from polyprobe.cards.folder import write_config_files
    from polyprobe.cards.payload import ConfigPayload
    from polyprobe.cards.schema import arrow_schema

    langs = list(alignment.languages)
    extra: dict[str, Any] = {
        "sent_id": {"dtype": "string", "_type": "Value"},
        "doc_id": {"dtype": "string", "_type": "Value"},
        "original_language": {"dtype": "string", "_type": "Value"},
        "text": _struct(langs),
        "text_en_reference": _struct(langs),
        "sample_creation": _struct(langs),
        **{task: _struct(langs) for task in labels},
    }
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "validation": [], "test": []}
    dropped: Counter[str] = Counter()
    for row in alignment.rows:
        pivot_sentence = row.sentences.get(pivot)
        label = facts.label_of(row.sent_id)
        if pivot_sentence is None or label is None:
            dropped[
                "no sentence in the pivot language" if pivot_sentence is None else facts.drop_reason
            ] += 1
            continue
        split = {"dev": "validation"}.get(document_split(row.doc_id), document_split(row.doc_id))
        original = facts.original_of(row.sent_id)
        inputs = sentence_inputs(pivot_sentence)
        rows[split].append(
            {
                "id": row.sent_id,
                "sentence": inputs["sentence"],
                "tokens": list(inputs["tokens"]),
                "label": facts.label_names.index(label),
                "group": row.doc_id,
                "lexical_key": "",
                "sent_id": row.sent_id,
                "doc_id": row.doc_id,
                "original_language": original or "",
                "text": {
                    lang: s.text if s is not None else None for lang, s in row.sentences.items()
                },
                "text_en_reference": {
                    lang: english_reference(s) if s is not None else None
                    for lang, s in row.sentences.items()
                },
                "sample_creation": {
                    lang: facts.creation(lang, original) if s is not None else None
                    for lang, s in row.sentences.items()
                },
                **{
                    task: {lang: labels[task][lang].get(row.sent_id) for lang in langs}
                    for task in labels
                },
            }
        )
    schema = arrow_schema(Level.SENTENCE, facts.label_names, extra)
    block = ConfigBlock(
        task=WIDE,
        level=Level.SENTENCE,
        labels=facts.label_names,
        variant=VariantBlock("natural", "full", DOCUMENT_SPLIT.label),
        seed=seed,
    )
    carried = ", ".join(labels) or "none"
    payload = ConfigPayload(
        name=WIDE,
        task=WIDE,
        level=Level.SENTENCE.value,
        description=(
            "One row per parallel sentence (sent_id): its text, English reference, "
            "sample_creation and task labels in every language (null where the language has "
            f"no sentence or its config no row); the label is {facts.label_phrase}, the "
            f"input columns are the {pivot} sentence."
        ),
        label_names=list(facts.label_names),
        polyprobe=block.as_dict(),
        recipe={
            "pivot": pivot,
            "languages": langs,
            "label": facts.label_description,
            "tasks carried": list(labels),
        },
        splits={
            sp: pa.Table.from_pylist(r, schema=schema) if r else None  # type: ignore[misc]
            for sp, r in rows.items()
        },
        dropped=dict(dropped),
        notes=[
            f"Task labels carried: {carried} (a sentence's label is the one its "
            "per-language recommended config gives it; null when that config has no row for "
            "it). Tasks with paired copies (perturbations) have no single label per sentence "
            "and are not carried.",
            "group is the document id: a document's sentences are in one split.",
            facts.creation_note,
            f"split: {DOCUMENT_SPLIT.reason}",
        ],
        extra_features=extra,
    )
    card = write_config_files(staging, payload)
    sizes = {s: len(r) for s, r in rows.items() if r}
    counts = Counter(facts.label_names[r["label"]] for rs in rows.values() for r in rs)
    summary = TaskSummary(
        task=WIDE,
        candidates=sum(sizes.values()),
        class_counts=dict(sorted(counts.items())),
        configs=[WIDE],
        rows=sizes,
    )
    report = {
        "level": Level.SENTENCE.value,
        "task_type": "probing",
        "candidates": summary.candidates,
        "class_counts": summary.class_counts,
        "task_drops": dict(sorted(dropped.items())),
        "engine_drops": {},
        "dropped_classes": {},
        "built": [WIDE],
        "not_built": [],
        "infeasible": None,
        "sets": {},
        "derived": {"languages": langs, "tasks_carried": list(labels), "rows": sizes},
    }
    return AssembledTask(name=WIDE, cards=[card], report=report, summary=summary)


def build_parallel(
    paths: Sequence[str | os.PathLike[str]],
    *,
    progress: Progress | None = None,
    line_ids: str | os.PathLike[str] | None = None,
    original_language: str | None = None,
    sample_creation: str = "human-translated",
    translation: dict[str, str] | None = None,
    tokenizer: str = "auto",
    **options: Any,
) -> BuildResult:
    """Build the parallel dataset folder; mirrors ``polyprobe build parallel``. ``paths``:
    parallel treebanks (one per language, aligned by ``sent_id``), or parallel text files
    (``LANG=PATH`` or a path whose name gives the language: line-aligned text, id-aligned
    TSV, or one wide TSV), with ``line_ids`` (the ids file of line-aligned files),
    ``original_language`` (the language the texts were written in), ``sample_creation``
    (how the other languages' texts were made: ``human-translated``/``machine-translated``),
    ``translation`` (``system``, ``version``, ``date`` for the card)
    and ``tokenizer`` (as ``build text``'s). ``options`` are :meth:`BuildOptions.make`'s with
    this family's defaults (pivot ``en``, natural only, class floors 20/5/5: a PUD split has
    about 100 test sentences)."""
    opts = BuildOptions.make(**{**PARALLEL_DEFAULTS, **options})
    recipe = ParallelRecipe(
        paths,
        opts,
        line_ids=line_ids,
        original_language=original_language,
        sample_creation=sample_creation,
        translation=dict(translation or {}),
        tokenizer=tokenizer,
    )
    return build(recipe, opts, progress=progress)
