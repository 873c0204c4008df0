"""The corpus every word task fits on: one value the recipe builds once per build.

Why one object rather than arguments per task: the word tasks share their inputs (the
lexicon entries, the frequency list, the filtered pseudowords, which lemmas each form belongs
to) and ``same_feature`` and ``odd_feature`` share the seeded partitions of the lexicon their
split-wise pairs are generated in. Reading, filtering and partitioning once keeps every task a
function of (corpus, options, context), and the partitions identical between the two tasks.

Reading follows the build's ``--on-invalid`` policy: the lexicon through
:class:`~polyprobe.loaders.unimorph_source.UniMorphSource`, frequency lists through
:class:`~polyprobe.loaders.frequency.FrequencySource`, Wuggy tables through
:class:`~polyprobe.loaders.wuggy.WuggyOutputSource`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.builders.variants import split_components
from polyprobe.builders.word.common import component_names, has_space, hashes, key_of
from polyprobe.builders.word.syncretism import TextEvidence, case_distinguishes, text_evidence
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.loaders.frequency import FrequencyList, FrequencySource
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.unimorph import ReadStats, normalise_layout
from polyprobe.loaders.unimorph_source import UniMorphSource, read_lexicon, unimorph_sources
from polyprobe.metadata import SourceInfo

PathLike = str | os.PathLike[str]

LAYER_TASK_PREFIX = "person_"  # optional tasks from argument layers: person_dat, person_acc
NO_WUGGY = "no Wuggy input: pass --wuggy-output FILE or --wuggy-lexicon FILE"


def is_layer_task(name: str) -> bool:
    """``person_dat``, ``person_acc``: a task on an argument layer's person and number."""
    rest = name[len(LAYER_TASK_PREFIX) :]
    return name.startswith(LAYER_TASK_PREFIX) and rest.isalpha() and rest.islower()


def license_override(overrides: Mapping[str, str], *names: str) -> str | None:
    """The ``--license`` override of the first of ``names`` that has one."""
    for name in names:
        if name in overrides:
            return overrides[name]
    return None


@dataclass
class Pseudowords:
    """Filtered Wuggy rows and everything the card says about them."""

    rows: list[Any]  # PseudowordRow
    source: SourceInfo
    facts: dict[str, Any]
    vocabulary: set[str]
    # Generated table read from the cache? Reported to the caller only: the folder must not
    # depend on the state of the cache.
    cached: bool = False


@dataclass
class WordCorpus:
    """What every word task fits on. ``lang`` is the language code (row ids), ``iso3`` its
    ISO 639-3 code (LINSPECTOR's per-language skips); ``pseudo_missing`` says why there are
    no pseudowords when ``pseudowords`` is None."""

    entries: list[LexEntry]
    lang: str
    iso3: str
    frequencies: FrequencyList | None = None
    pseudowords: Pseudowords | None = None
    pseudo_missing: str | None = None
    unknown_tags: int = 0
    # the feature values each form carries in the --frequencies treebanks (None: no treebank)
    evidence: TextEvidence | None = None
    # form key -> the lemmas of its entries, in order of first appearance
    form_lemmas: dict[str, tuple[str, ...]] = field(init=False)
    # distinct single-word forms: the size rule of the pair tasks counts these
    pair_forms: int = field(init=False)
    # (unit, split counts, seed) -> entries per split: the pair tasks share their partitions
    partitions: dict[tuple[Any, ...], list[list[LexEntry]]] = field(
        init=False, default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        form_lemmas: dict[str, tuple[str, ...]] = {}
        for e in self.entries:
            k = key_of(e.form)
            if e.lemma not in form_lemmas.get(k, ()):
                form_lemmas[k] = (*form_lemmas.get(k, ()), e.lemma)
        self.form_lemmas = form_lemmas
        self.pair_forms = len({key_of(e.form) for e in self.entries if not has_space(e.form)})

    @property
    def case_facts(self) -> tuple[bool, dict[str, Any]]:
        """Does letter case tell the lexicon's words apart (decided from the data, once)?"""
        cached = self.__dict__.get("_case_facts")
        if cached is None:
            cached = self.__dict__["_case_facts"] = case_distinguishes(self.entries)
        return cached  # type: ignore[no-any-return]

    def partition(self, unit: str, counts: tuple[int, int, int], seed: int) -> list[list[LexEntry]]:
        """The entries of each split's part of a seeded partition of the lexicon that moves
        whole units: single forms (``unit="form"``), or lemma families (lemmas linked by a
        shared form, with all their forms) for lemma-disjoint sets. Split in the proportions
        ``counts`` by the variant engine's own component splitter; made once per (unit,
        counts, seed), so both pair tasks generate inside the same parts."""
        key = (unit, counts, seed)
        if key not in self.partitions:
            keys = sorted({key_of(e.form) for e in self.entries})
            if unit == "form":
                names = keys
            else:
                names = component_names([(k,) for k in keys], [self.form_lemmas[k] for k in keys])
            group = hashes(names, "word-unit")
            # One order value per unit: the engine walks a component by the lowest order of
            # its root group, which (a group being the whole unit here) would favour big
            # units if each form had its own order, pulling large lemma families into train.
            order = hashes(names, seed, "word-partition")
            split = split_components(group, np.zeros(len(keys), dtype=np.uint64), order, counts)
            where = dict(zip(keys, split.tolist(), strict=True))
            parts: list[list[LexEntry]] = [[], [], []]
            for e in self.entries:
                parts[where[key_of(e.form)]].append(e)
            self.partitions[key] = parts
        return self.partitions[key]


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


def pseudowords(
    *,
    wuggy_lexicon: str | os.PathLike[str] | None,
    wuggy_output: str | os.PathLike[str] | None,
    forms: Sequence[str],
    frequency_vocab: set[str],
    max_seeds: int,
    seed: int,
    lang: str,
    overrides: Mapping[str, str],
    cache_dir: str | os.PathLike[str] | None,
    policy: InvalidPolicy,
) -> Pseudowords:
    """Read (``wuggy_output``) or generate offline (``wuggy_lexicon``) a Wuggy table and drop
    every pseudoword that is a real word: a UniMorph form, a frequency-list word, a word of
    the Wuggy lexicon, or any seed word of the table."""
    from polyprobe.loaders import wuggy
    from polyprobe.loaders.sources import treebank_metadata

    vocab: set[str] = {key_of(f) for f in forms} | set(frequency_vocab)
    if wuggy_output is not None:
        path = Path(wuggy_output)
        output = wuggy.WuggyOutputSource.from_path(
            path, license_override=license_override(overrides, path.name)
        )
        table = output.table(policy)
        source = output.info
        table_name = path.name
    else:
        assert wuggy_lexicon is not None
        lexicon = Path(wuggy_lexicon)
        cache = Path(cache_dir) if cache_dir is not None else wuggy.default_cache_dir()
        staged = wuggy.stage_lexicon(lexicon, cache)
        vocab.update(key_of(w) for w in staged.words)
        nucleus = wuggy.NUCLEUS_ALIASES.get(lang)
        table = wuggy.generate_pseudowords(
            lexicon, forms, max_seeds=max_seeds, seed=seed, nucleus=nucleus, cache_dir=cache
        )
        lic, _ = treebank_metadata(
            lexicon, license_override=license_override(overrides, lexicon.name)
        )
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
    """The inputs of a word build: the lexicon's sources, the frequency lists' and where
    pseudowords come from (``wuggy_output`` read, or ``wuggy_lexicon`` generated offline into
    ``wuggy_cache`` from at most ``wuggy_max_seeds`` seed words). Made (and checked) before
    anything is read; :meth:`read` reads them into the corpus."""

    lexicons: list[UniMorphSource]
    frequencies: list[FrequencySource]
    wuggy_lexicon: PathLike | None = None
    wuggy_output: PathLike | None = None
    wuggy_max_seeds: int = 10_000
    wuggy_cache: PathLike | None = None
    license_overrides: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def make(
        cls,
        paths: Sequence[PathLike],
        *,
        layout: str | None,
        iso3: str,
        frequencies: Sequence[PathLike] | None,
        license_overrides: Mapping[str, str],
        source_version: str | None,
        **wuggy: Any,
    ) -> WordInputs:
        """``--source-version`` applies to the lexicon (the build's primary source)."""
        if wuggy.get("wuggy_lexicon") is not None and wuggy.get("wuggy_output") is not None:
            raise UsageError(
                "give either --wuggy-lexicon (generate) or --wuggy-output (read), not both"
            )
        seeds = wuggy.get("wuggy_max_seeds", 10_000)
        if seeds < 1:
            raise UsageError(f"--wuggy-max-seeds {seeds}: must be at least 1")
        if layout is not None:
            normalise_layout(layout)  # an unknown layout is a UsageError naming it
        lexicons = unimorph_sources(
            paths,
            layout=layout,
            lang=iso3,
            license_overrides=license_overrides,
            source_version=source_version,
        )
        freq = [
            FrequencySource.from_path(
                p, license_override=license_override(license_overrides, Path(p).name)
            )
            for p in frequencies or ()
        ]
        return cls(lexicons, freq, license_overrides=license_overrides, **wuggy)

    @property
    def has_wuggy(self) -> bool:
        return self.wuggy_output is not None or self.wuggy_lexicon is not None

    def wuggy_output_info(self) -> SourceInfo:
        """The read Wuggy table as a source (known without reading it)."""
        from polyprobe.loaders.wuggy import WuggyOutputSource

        path = Path(self.wuggy_output)  # type: ignore[arg-type]
        override = license_override(self.license_overrides, path.name)
        return WuggyOutputSource.from_path(path, license_override=override).info

    def read(
        self,
        *,
        lang: str,
        iso3: str,
        seed: int,
        pseudo: bool,
        policy: InvalidPolicy,
        say: Callable[[str], None],
    ) -> tuple[WordCorpus, dict[str, Any]]:
        """The corpus and the lexicon's facts (the card's profile). ``pseudo``: read or
        generate the pseudowords too."""
        say("reading the lexicon")
        reader = read_lexicon(self.lexicons, policy)
        entries = list(reader)
        if not entries:
            raise InfeasibleError("the UniMorph files hold no entries")
        facts = lexicon_facts(entries, reader.stats)
        freq = None
        if self.frequencies:
            say("reading frequency lists")
            freq = merged_frequencies(self.frequencies, policy)
            facts["frequency_words"] = len(freq)
        treebanks = [f for f in self.frequencies if f.is_ud]
        evidence = None
        if treebanks:
            from polyprobe.loaders.frequency import conllu_files

            say("reading feature values from the frequency treebanks")
            evidence = text_evidence(
                conllu_files([f.path for f in treebanks]), [f.name for f in treebanks]
            )
        table = None
        if pseudo and self.has_wuggy:
            say("pseudowords")
            table = pseudowords(
                wuggy_lexicon=self.wuggy_lexicon,
                wuggy_output=self.wuggy_output,
                forms=sorted({e.form for e in entries}),
                frequency_vocab=freq.vocabulary() if freq is not None else set(),
                max_seeds=self.wuggy_max_seeds,
                seed=seed,
                lang=lang,
                overrides=self.license_overrides,
                cache_dir=self.wuggy_cache,
                policy=policy,
            )
        corpus = WordCorpus(
            entries,
            lang=lang,
            iso3=iso3,
            frequencies=freq,
            pseudowords=table,
            pseudo_missing=None if table is not None else NO_WUGGY,
            unknown_tags=facts["entries_with_unknown_tags"],
            evidence=evidence,
        )
        facts["case"] = corpus.case_facts[1]
        return corpus, facts
