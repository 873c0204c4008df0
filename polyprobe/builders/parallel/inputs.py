"""The opened inputs of a parallel build (the family's sources): one treebank per language or
the parallel text files, the languages (the pivot first when read), and their reading into
one alignment with each language's records and what the inputs say about every item.

Why the reading is kept here: the plan needs it (how each language's rows were made, which
sentences each language has), and so does the post-step (the wide config holds the aligned
sentences); the inputs are read once for both.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.parallel.facts import PUD_FACTS, PUD_PROVENANCE, RowFacts, text_facts
from polyprobe.builders.parallel.texts import ParallelTexts, split_inputs
from polyprobe.builders.records.parallel import (
    AlignedTextRecords,
    LanguageRecords,
    segmenter_source,
)
from polyprobe.builders.records.treebank import TreebankRecords
from polyprobe.errors import UsageError
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.parallel import AlignedRow, Alignment, align, pud_genre
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

__all__ = ["ParallelInputs", "Reading"]


@dataclass(frozen=True)
class Reading:
    """The inputs read: the alignment, what they say about each item, each language's
    records (the pivot's first) and the invalid input counted while reading."""

    alignment: Alignment
    facts: RowFacts
    records: tuple[tuple[str, LanguageRecords], ...]
    skipped: dict[str, int]

    @property
    def pud(self) -> bool:
        return self.facts is PUD_FACTS


@dataclass
class ParallelInputs:
    """The inputs of one build (``texts`` None: treebanks), their languages in the order
    given, the pivot, and the files a build reads (for the default ``--jobs`` and progress)."""

    config: Any  # ParallelConfig
    langs: list[str]
    pivot: str
    files: list[Path]
    treebanks: list[Any] = field(default_factory=list)  # TreebankSource, one per language
    texts: ParallelTexts | None = None
    _reading: Reading | None = None

    @classmethod
    def open(cls, config: Any) -> ParallelInputs:
        from polyprobe.loaders.sources import discover, input_files

        folders, files = split_inputs(config.paths)
        if files:
            texts = ParallelTexts.of(files, ids=config.line_ids, version=config.source_version)
            found = cls(config, list(texts.languages), "", [p for _, p in files], texts=texts)
        else:
            if config.line_ids is not None or config.tokenizer != "auto":
                raise UsageError(
                    "--line-ids and --tokenizer describe parallel text files; treebanks have "
                    "their sentence ids and tokens"
                )
            treebanks = discover(folders, source_version=config.source_version)
            found = cls(config, [], "", input_files(folders), treebanks=treebanks)
            for tb in treebanks:
                tags = sorted({d.tag for d in tb.languages})
                if len(tags) != 1:
                    raise UsageError(
                        f"{tb.path}: a parallel treebank must declare exactly one language "
                        f"(file names or README), found {tags or 'none'}"
                    )
                if tags[0] in found.langs:
                    raise UsageError(f"two treebanks in {tags[0]}: give one treebank per language")
                found.langs.append(tags[0])
        if len(found.langs) < 2:
            raise UsageError("build parallel needs inputs in at least two languages")
        found.pivot = config.language.code
        if found.pivot not in found.langs:
            raise UsageError(
                f"--lang {config.lang} is the pivot language (the wide config's "
                f"sentence), but no input is in it: {', '.join(found.langs)}"
            )
        return found

    def infos(self) -> list[SourceInfo]:
        if self.texts is not None:
            return self.texts.sources()
        return [s.info for s in self.treebanks]

    def declared(self) -> list[tuple[str, list[DeclaredLanguage]]]:
        return []  # every input is in its own language (checked on opening); --lang: the pivot

    def read(self) -> Reading:
        """The inputs read (once: the plan and the post-step share the reading)."""
        if self._reading is None:
            self._reading = self._texts() if self.texts is not None else self._treebanks()
        return self._reading

    def _treebanks(self) -> Reading:
        pairs = sorted(
            zip(self.langs, self.treebanks, strict=True), key=lambda p: p[0] != self.pivot
        )
        alignment = align(pairs, on_invalid=self.config.on_invalid)
        records = tuple(
            (lang, LanguageRecords(TreebankRecords((treebank,)))) for lang, treebank in pairs
        )
        return Reading(alignment, self._treebank_facts(alignment), records, {})

    def _treebank_facts(self, alignment: Alignment) -> RowFacts:
        """PUD's facts when every sentence has a PUD id (genre and original language in the
        id; the options that describe texts are then refused: PUD says it itself); else, for
        other parallel treebanks, the facts of parallel text (original language from
        ``--original-language``, else unknown)."""
        config = self.config
        if all(pud_genre(row.sent_id) is not None for row in alignment.rows):
            if config.describes_texts():
                raise UsageError(
                    "--original-language, --sample-creation and --translator describe parallel "
                    "inputs that do not say it themselves; PUD's sentence ids give each "
                    "sentence's original language, and its translations are human"
                )
            return PUD_FACTS
        originals = {row.sent_id: config.original_language for row in alignment.rows}
        return text_facts(originals, config.sample_creation, {})

    def _texts(self) -> Reading:
        assert self.texts is not None
        config, pivot = self.config, self.pivot
        skipped: Counter[str] = Counter()
        texts = self.texts.read(pivot, InvalidPolicy(config.on_invalid, skipped))
        for lang in texts.languages[1:]:
            if not any(r.texts[lang] and r.texts[pivot] for r in texts.rows):
                raise UsageError(
                    f"no {lang} item has the id of a {pivot} item: the inputs are not "
                    "aligned (a line-aligned file's ids are its line numbers unless --line-ids "
                    "gives them; a TSV's are its id column)"
                )
        fallback = config.original_language or self.texts.translated_from()
        originals = {row.id: row.original or fallback for row in texts.rows}
        records = []
        rows: dict[str, dict[str, Sentence | None]] = {row.id: {} for row in texts.rows}
        for lang in texts.languages:
            language = AlignedTextRecords(
                sources=(segmenter_source(lang, config.tokenizer),),
                items=tuple(r.texts[lang] for r in texts.rows if r.texts[lang] is not None),
            )
            for sentence in language.records(config.on_invalid, Counter()):
                rows[sentence.sent_id][lang] = sentence
            records.append((lang, LanguageRecords(language)))
        alignment = Alignment(
            texts.languages,
            tuple(
                AlignedRow(r.id, r.doc_id, {lang: rows[r.id].get(lang) for lang in texts.languages})
                for r in texts.rows
            ),
        )
        own = {lang: p.sample_creation for lang, p in self.texts.translation_files().items()}
        facts = text_facts(originals, config.sample_creation, own)
        return Reading(alignment, facts, tuple(records), dict(skipped))

    def provenance(self) -> dict[str, Any]:
        """How the translations were made, for the card."""
        config = self.config
        if self.texts is None and self.read().pud:
            # the translations' version is the treebanks' release (PUD has no other)
            versions = sorted({tb.info.version for tb in self.treebanks})
            return {**PUD_PROVENANCE, "version": ", ".join(versions)}
        entry = {
            "sample_creation": config.sample_creation,
            "original_language": config.original_language or "unknown",
            "system": config.translator,
            "version": config.translator_version,
            "date": config.translation_date,
        }
        if self.texts is None:
            return entry
        entry["original_language"] = (
            config.original_language
            or self.texts.translated_from()
            or "per item (original_language column), else unknown"
        )
        return {
            **entry,
            "input": self.texts.describe(),
            **{
                f"translation_file_{lang}": p.card_entry()
                for lang, p in self.texts.translation_files().items()
            },
        }
