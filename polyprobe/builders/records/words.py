"""The inputs of a word build read into the corpus the word tasks fit on
(:class:`~polyprobe.builders.word.corpus.WordCorpus`): a UniMorph lexicon, frequency lists,
a Wuggy table read or generated offline.

Why here and not beside the tasks: reading files, the ``--on-invalid`` policy and the card's
facts about the inputs are the build's business; a word task sees only the corpus. Reading
follows the build's policy: the lexicon through
:class:`~polyprobe.loaders.unimorph_source.UniMorphSource`, frequency lists through
:class:`~polyprobe.loaders.frequency.FrequencySource`, Wuggy tables through
:class:`~polyprobe.loaders.wuggy.WuggyOutputSource`. Licences are the sources' own: the build
applies ``--license`` to every source by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.builders.variants import split_components
from polyprobe.builders.word.common import has_space, key_of
from polyprobe.builders.word.corpus import NO_WUGGY, Pseudowords, WordCorpus, is_layer_task
from polyprobe.builders.word.syncretism import text_evidence
from polyprobe.errors import InfeasibleError
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.frequency import FrequencyList, FrequencySource
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.unimorph import ReadStats
from polyprobe.loaders.unimorph_source import UniMorphSource, read_lexicon, unimorph_sources
from polyprobe.metadata import SourceInfo


def lexicon_facts(entries: Sequence[LexEntry], stats: ReadStats) -> dict[str, Any]:
    """The card's profile of the lexicon: what the reader saw and what it holds."""
    unknown_total = sum(stats.unknown_tags.values())
    facts: dict[str, Any] = {
        "files": {Path(p).name: layout for p, layout in stats.files.items()},
        "lines": sum(stats.lines.values()),
        "blank_lines": stats.blank_lines,
        "entries": stats.entries,
        "duplicate_entries": stats.duplicates,
        "layered_entries": stats.layered,
        "forms": len({key_of(e.form) for e in entries}),
        "lemmas": len({e.lemma for e in entries}),
        "forms_with_space": sum(1 for e in entries if has_space(e.form)),
        "unknown_tags_total": unknown_total,
        "entries_with_unknown_tags": stats.entries_with_unknown,
        "unknown_tags": dict(
            sorted(stats.unknown_tags.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
        ),
    }
    layer_dims = sorted({d for e in entries for d in e.features if is_layer_task(d)})
    facts["optional_layer_tasks"] = {
        d: sum(1 for e in entries if d in e.features) for d in layer_dims
    }
    return facts


def merged_frequencies(sources: Sequence[FrequencySource], policy: InvalidPolicy) -> FrequencyList:
    """Every frequency source as one list (counts summed; with no rank cut-off a word is
    *frequent* when any source has it)."""
    merged: Counter[str] = Counter()
    for source in sources:
        merged.update(source.frequency_list(policy).counts)
    return FrequencyList(dict(merged))


def unit_splitter(group: np.ndarray, order: np.ndarray, counts: tuple[int, int, int]) -> np.ndarray:
    """The corpus's splitter: the variant engine's component splitter on units that are each
    their own component (no key joins two)."""
    return split_components(group, np.zeros(len(group), dtype=np.uint64), order, counts)


@dataclass(frozen=True)
class Wuggy:
    """Where pseudowords come from: a table read (``output``), or one generated offline from
    a syllabified ``lexicon`` into ``cache`` from at most ``max_seeds`` seed words."""

    lexicon: Path | None = None
    output: Path | None = None
    max_seeds: int = 10_000
    cache: Path | None = None

    @property
    def given(self) -> bool:
        return self.output is not None or self.lexicon is not None


def pseudowords(
    wuggy_input: Wuggy,
    *,
    forms: Sequence[str],
    frequency_vocab: set[str],
    seed: int,
    lang: str,
    policy: InvalidPolicy,
) -> Pseudowords:
    """Read or generate a Wuggy table and drop every pseudoword that is a real word: a
    UniMorph form, a frequency-list word, a word of the Wuggy lexicon, or any seed word of the
    table."""
    from polyprobe.loaders import wuggy
    from polyprobe.loaders.sources import treebank_metadata

    vocab: set[str] = {key_of(f) for f in forms} | set(frequency_vocab)
    if wuggy_input.output is not None:
        output = wuggy.WuggyOutputSource.from_path(wuggy_input.output)
        table = output.table(policy)
        source = output.info
        table_name = wuggy_input.output.name
    else:
        assert wuggy_input.lexicon is not None
        lexicon = wuggy_input.lexicon
        cache = wuggy_input.cache or wuggy.default_cache_dir()
        staged = wuggy.stage_lexicon(lexicon, cache)
        vocab.update(key_of(w) for w in staged.words)
        table = wuggy.generate_pseudowords(
            lexicon,
            forms,
            max_seeds=wuggy_input.max_seeds,
            seed=seed,
            nucleus=wuggy.NUCLEUS_ALIASES.get(lang),
            cache_dir=cache,
        )
        lic, _ = treebank_metadata(lexicon)
        table_name = "<cache>/wuggy/tables/" + Path(table.path).name
        source = SourceInfo(
            kind="wuggy-generated",
            name=Path(table.path).name,
            version=f"wuggy {table.params.get('wuggy', 'unknown')}",
            license=lic,
            files=[
                {"name": table_name, "sha256": table.sha256},
                {"name": lexicon.name, "sha256": staged.sha256},
            ],
        )
    # Every seed of the table is a real word too (German *platz* is another row's seed).
    vocab.update(key_of(r.seed) for r in table.rows)
    filtered = wuggy.filter_pseudowords(table.rows, [vocab])
    facts: dict[str, Any] = {
        "wuggy_table": table_name,
        "wuggy_table_sha256": table.sha256,
        "generated": table.generated,
        "table_rows": len(table.rows),
        "pseudowords_kept": len(filtered.kept),
        "pseudowords_removed": dict(sorted(filtered.removed.items())),
        "real_words_removed": filtered.real_words,
        "removed_examples": {k: v[:5] for k, v in sorted(filtered.examples.items())},
        "filter": "case-insensitive (NFC + case-fold) against the UniMorph forms, the frequency "
        "lists, the Wuggy lexicon (when generating) and every seed word of the table",
    }
    if table.generated:
        facts["generation"] = {
            k: v for k, v in table.params.items() if k not in ("lexicon_sha256", "seeds_sha256")
        }
        facts["generation_failures"] = dict(sorted(table.failures.items()))
    return Pseudowords(filtered.kept, source, facts, vocab, table.generated and table.cached)


@dataclass
class WordInputs:
    """The inputs of a word build (the family's sources): the lexicon's sources, the
    frequency lists' and where pseudowords come from. Made before anything is read;
    :meth:`corpus` reads them once, under ``policy`` (its counts go into the card).
    ``pseudo``: the build has the ``pseudo`` task, so the Wuggy table is read too."""

    lexicons: list[UniMorphSource]
    frequencies: list[FrequencySource]
    language: Language
    seed: int
    wuggy: Wuggy = field(default_factory=Wuggy)
    pseudo: bool = False
    policy: InvalidPolicy = field(default_factory=InvalidPolicy)
    _read: tuple[WordCorpus, dict[str, Any]] | None = field(default=None, repr=False)

    @classmethod
    def make(
        cls,
        paths: Sequence[Path],
        frequencies: Sequence[Path],
        *,
        layout: str | None,
        language: Language,
        source_version: str | None,
        **settings: Any,
    ) -> WordInputs:
        """``--source-version`` applies to the lexicon (the build's primary source)."""
        lexicons = unimorph_sources(
            paths, layout=layout, lang=language.iso639_3, source_version=source_version
        )
        freq = [FrequencySource.from_path(p) for p in frequencies]
        return cls(lexicons, freq, language, **settings)

    def infos(self) -> list[SourceInfo]:
        """Lexicon, pseudoword table, frequency lists. A generated table is known only once
        generated, which needs the lexicon: it is read now."""
        pseudo: list[SourceInfo] = []
        if self.pseudo and self.wuggy.output is not None:
            from polyprobe.loaders.wuggy import WuggyOutputSource

            pseudo = [WuggyOutputSource.from_path(self.wuggy.output).info]
        elif self.pseudo and self.wuggy.given:
            generated = self.corpus()[0].pseudowords
            assert generated is not None
            pseudo = [generated.source]
        return [
            *(s.info for s in self.lexicons),
            *pseudo,
            *(s.info for s in self.frequencies),
        ]

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        """What the lexicon's file names and the frequency treebanks declare."""
        return [(s.name, s.languages) for s in (*self.lexicons, *self.frequencies)]

    def corpus(self) -> tuple[WordCorpus, dict[str, Any]]:
        """The corpus every task fits on and the lexicon's facts (the card's profile)."""
        if self._read is None:
            self._read = self._corpus()
        return self._read

    def _corpus(self) -> tuple[WordCorpus, dict[str, Any]]:
        policy, lang = self.policy, self.language.code
        reader = read_lexicon(self.lexicons, policy)
        entries = list(reader)
        if not entries:
            raise InfeasibleError("the UniMorph files hold no entries")
        facts = lexicon_facts(entries, reader.stats)
        freq = None
        if self.frequencies:
            freq = merged_frequencies(self.frequencies, policy)
            facts["frequency_words"] = len(freq)
        treebanks = [f for f in self.frequencies if f.is_ud]
        evidence = None
        if treebanks:
            from polyprobe.loaders.frequency import conllu_files

            evidence = text_evidence(
                conllu_files([f.path for f in treebanks]), [f.name for f in treebanks]
            )
        table = None
        if self.pseudo and self.wuggy.given:
            table = pseudowords(
                self.wuggy,
                forms=sorted({e.form for e in entries}),
                frequency_vocab=freq.vocabulary() if freq is not None else set(),
                seed=self.seed,
                lang=lang,
                policy=policy,
            )
        corpus = WordCorpus(
            entries,
            lang=lang,
            iso3=self.language.iso639_3,
            frequencies=freq,
            pseudowords=table,
            pseudo_missing=None if table is not None else NO_WUGGY,
            unknown_tags=facts["entries_with_unknown_tags"],
            evidence=evidence,
            splitter=unit_splitter,
        )
        facts["case"] = corpus.case_facts[1]
        return corpus, facts
