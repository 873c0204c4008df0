"""Generated analogy sets as a lexical build's source (:mod:`polyprobe.builders.records.lexical`):
morphological analogies from UniMorph lexicons (the lexicons read, the frequency lists
merged, the generation run once: :mod:`polyprobe.builders.lexical.generate` is the
algorithm), and cross-lingual ones from two languages' analogy files
(:mod:`polyprobe.builders.lexical.crosslingual`); the questions handed out as
:class:`~polyprobe.loaders.records.Example` records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.lexical.crosslingual import cross_from_sets
from polyprobe.builders.lexical.generate import (
    GenerationOptions,
    category_report,
    cross_lingual,
    generate,
)
from polyprobe.builders.records.words import merged_frequencies
from polyprobe.languages import Language
from polyprobe.loaders.analogies import AnalogySet, AnalogySource
from polyprobe.loaders.frequency import FrequencySource
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.unimorph_source import UniMorphSource, read_lexicon, unimorph_sources
from polyprobe.metadata import SourceInfo


def generated_analogies(
    lexicon: Sequence[Path],
    frequencies: Sequence[Path],
    cross_lexicon: Sequence[Path],
    *,
    cross_lang: str,
    name: str,
    language: Language,
    seed: int,
    options: GenerationOptions,
    source_version: str | None,
) -> GeneratedAnalogySource:
    """The source of analogies generated from ``lexicon`` (``--source-version`` is the
    lexicon's); the set is named ``unimorph-analogies-<lang>`` unless ``name`` is given."""
    lexicons = unimorph_sources(lexicon, source_version=source_version)
    return GeneratedAnalogySource(
        tuple(lexicons),
        tuple(FrequencySource.from_path(p) for p in frequencies),
        name=name or f"unimorph-analogies-{language.code}",
        lang=language.code,
        seed=seed,
        options=options,
        cross=tuple(unimorph_sources(cross_lexicon)) if cross_lexicon else (),
        cross_lang=cross_lang,
    )


@dataclass
class GeneratedAnalogySource:
    """A UniMorph lexicon (and frequency sources, for reference) as the source of a
    generated analogy set (and, with a second language's lexicon, a cross-lingual one): its
    card entries (``infos``), its sets and their records. The sets are generated once."""

    lexicons: tuple[UniMorphSource, ...]
    frequencies: tuple[FrequencySource, ...] = ()
    name: str = ""
    lang: str = ""
    seed: int = 0
    options: GenerationOptions = GenerationOptions()
    # a second language's lexicon: a cross-lingual set is made too (see cross_lingual)
    cross: tuple[UniMorphSource, ...] = ()
    cross_lang: str = ""

    def __post_init__(self) -> None:
        self._cache: tuple[AnalogySet, dict[str, Any]] | None = None
        self._cross: AnalogySet | None = None

    @property
    def info(self) -> SourceInfo:
        return self.lexicons[0].info

    def infos(self) -> list[SourceInfo]:
        """The lexicons, then the frequency sources (only consulted: listed for reference)."""
        return [s.info for s in (*self.lexicons, *self.cross, *self.frequencies)]

    def declared_codes(self) -> tuple[str, ...]:
        return tuple(d.code for s in self.lexicons for d in s.languages)

    def read(self, policy: InvalidPolicy) -> tuple[AnalogySet, dict[str, Any]]:
        """The generated set and its report (generated on the first call)."""
        if self._cache is None:
            freq = merged_frequencies(self.frequencies, policy) if self.frequencies else None
            path = str(self.lexicons[0].paths[0])
            aset, report = generate(
                read_lexicon(self.lexicons, policy),
                name=self.name,
                path=path,
                seed=self.seed,
                frequencies=freq,
                options=self.options,
            )
            notes = (
                "Generated from UniMorph paradigms (polyprobe.builders.lexical.generate): "
                "a category contrasts two cells of one POS; no question uses a syncretic "
                "cell or an overabundant one; pairs from "
                + (
                    "the most frequent lemmas (frequency sources: "
                    + ", ".join(f.name for f in self.frequencies)
                    + ")"
                    if self.frequencies
                    else "lemmas in a seeded order (no frequency source)"
                )
                + ".",
                *category_report(report),
            )
            aset = AnalogySet(aset.name, aset.categories, aset.semantic, aset.questions, notes)
            self._cache = (aset, report)
        return self._cache

    def cross_set(self, policy: InvalidPolicy) -> AnalogySet | None:
        if not self.cross:
            return None
        if self._cross is None:
            first = self.read(policy)[0]
            second, _ = generate(
                read_lexicon(self.cross, policy),
                name="cross",
                path=str(self.cross[0].paths[0]),
                seed=self.seed,
                options=self.options,
            )
            cross, _ = cross_lingual(
                first,
                second,
                name=f"{self.name}-{self.cross_lang or self.cross[0].name}",
                seed=self.seed,
                max_questions=self.options.max_questions,
            )
            declared = [d.code for s in self.cross for d in s.languages]
            l2 = self.cross_lang or (declared[0] if declared else "")
            # the languages make evaluation search word4 among the second language's words
            langs = (self.lang, l2) if self.lang and l2 else ()
            self._cross = AnalogySet(
                cross.name, cross.categories, cross.semantic, cross.questions, cross.notes, langs
            )
        return self._cross

    def sets(self, policy: InvalidPolicy) -> list[AnalogySet]:
        cross = self.cross_set(policy)
        return [self.read(policy)[0], *([cross] if cross is not None else [])]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        yield from set_records(self.sets(policy))


def set_records(sets: Sequence[AnalogySet]) -> Iterator[Example]:
    """Every question of ``sets`` as an ``analogy`` example of its set."""
    for aset in sets:
        for q in aset.questions:
            yield Example(
                id=q.key,
                inputs=q.words,
                kind="analogy",
                label=q.category,
                score=None,
                source=SourceFile(aset.name, q.path, "test"),
                line=q.line,
            )


@dataclass
class CrossAnalogyFiles:
    """Two languages' analogy files (``build analogies FILES --cross FILES``): the first
    language's set, then the cross-lingual one
    (:func:`polyprobe.builders.lexical.crosslingual.cross_from_sets`); both read once."""

    first: AnalogySource
    second: AnalogySource
    seed: int = 0
    max_questions: int = 500

    def __post_init__(self) -> None:
        self._sets: list[AnalogySet] | None = None

    @property
    def name(self) -> str:
        return self.first.name

    @property
    def info(self) -> SourceInfo:
        return self.first.info

    def infos(self) -> list[SourceInfo]:
        return [self.first.info, self.second.info]

    def declared_codes(self) -> tuple[str, ...]:
        return self.first.declared_codes()  # --lang is the first language's

    def sets(self, policy: InvalidPolicy) -> list[AnalogySet]:
        if self._sets is None:
            first, second = self.first.read(policy), self.second.read(policy)
            cross = cross_from_sets(
                first,
                second,
                name=f"{first.name}-{self.second.lang}",
                languages=(self.first.lang, self.second.lang),
                seed=self.seed,
                max_questions=self.max_questions,
            )
            self._sets = [first, cross]
        return self._sets

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        yield from set_records(self.sets(policy))
