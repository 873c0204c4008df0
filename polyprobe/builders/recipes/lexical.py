"""``build similarity`` and ``build analogies``: lexical evaluation sets (graded word
similarity, word analogies) as dataset folders, one config per set found in the inputs.

The recipe's own choices: a set is an evaluation set, so every row is in ``test`` (no
training part is invented); no class floor and the natural variant only (similarity rows are
scored, analogy rows are questions, neither has classes to balance); the language is what the
files declare (folder names such as ``monolingual/en``, FinnSim is Finnish, Multi-SimLex's
``--lang``); a cross-lingual set declares none of its two languages and its config says which.
``--tasks`` selects sets by config name.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.recipes.examples import ExampleFamily
from polyprobe.builders.task import Task, TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.loaders.declared import DeclaredLanguage, declared
from polyprobe.loaders.records import Example
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

LEXICAL_DEFAULTS: dict[str, Any] = {"balances": ("natural",), "min_per_class": (0, 0, 0)}
TEST_ONLY = SplitSpec(
    "ud", reason="an evaluation set: every row is a test row", source_label="source"
)


class SetSource(Protocol):
    """A lexical input: its card entry, the languages it declares, its sets and records."""

    @property
    def name(self) -> str: ...

    @property
    def info(self) -> SourceInfo: ...

    def declared_codes(self) -> tuple[str, ...]: ...

    def sets(self, policy: InvalidPolicy) -> Sequence[Any]: ...

    def records(self, policy: InvalidPolicy) -> Any: ...


@dataclass
class LexicalRecipe:
    """Sets of lexical sources on the shared build; ``make_tasks`` turns a set into its
    task classes (one per config)."""

    family: str
    inputs: Sequence[SetSource]
    options: BuildOptions
    make_tasks: Callable[[Any], Sequence[type[Task[Example]]]]
    text: CardText
    split: SplitSpec = TEST_ONLY
    tasks: dict[str, type[Task[Example]]] = field(default_factory=dict)

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        out = []
        for src in self.inputs:
            langs = [declared(c, f"{src.name}") for c in src.declared_codes()]
            out.append((src.name, tuple(d for d in langs if d is not None)))
        return out

    def sources(self) -> list[SourceInfo]:
        infos = []
        for src in self.inputs:
            # a generated set's source also lists what it only consulted (frequency lists)
            for info in src.infos() if hasattr(src, "infos") else [src.info]:
                override = self.options.license_overrides.get(info.name)
                if override is not None:
                    info.license = override
                infos.append(info)
        return infos

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        policy = InvalidPolicy(options.on_invalid, Counter())
        tasks: dict[str, type[Task[Example]]] = {}
        for src in self.inputs:
            for s in src.sets(policy):
                for task in self.make_tasks(s):
                    name = task.metadata.name
                    if name in tasks:
                        raise UsageError(f"two inputs give the set {name!r}; build them apart")
                    tasks[name] = task
        wanted = list(options.tasks or tasks)
        unknown = [n for n in wanted if n not in tasks]
        if unknown:
            raise UsageError(
                f"unknown set(s) {', '.join(unknown)}; the inputs hold: {', '.join(tasks)}"
            )
        self.tasks = tasks
        family = ExampleFamily(
            sources=tuple(self.inputs),  # type: ignore[arg-type]
            tasks=tasks,
            context=TaskContext(
                lang=options.lang, seed=options.seed, min_per_class=(0, 0, 0), split="source"
            ),
        )
        names = [n for n in tasks if n in wanted]
        return run_record_tasks(
            family, names, options, split=self.split, staging=staging, progress=progress
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        return self.text


def build_lexical(
    family: str,
    inputs: Sequence[SetSource],
    make_tasks: Callable[[Any], Sequence[type[Task[Example]]]],
    text: CardText,
    *,
    split: SplitSpec = TEST_ONLY,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    opts = BuildOptions.make(**{**LEXICAL_DEFAULTS, **options})
    recipe = LexicalRecipe(family, inputs, opts, make_tasks, text, split)
    return build(recipe, opts, progress=progress)


def build_similarity(
    paths: Sequence[str | os.PathLike[str]],
    *,
    cross_lingual: Sequence[str] | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Similarity sets from ``paths`` (vecto CSV, FinnSim, Multi-SimLex's Concepticon TSV,
    ``word1 TAB word2 TAB score``). For Multi-SimLex, ``--lang`` picks the language and
    ``cross_lingual`` its partners (default: every other Multi-SimLex language)."""
    from polyprobe.builders.lexical.similarity import similarity_tasks
    from polyprobe.languages import resolve_language
    from polyprobe.loaders.similarity import MULTISIMLEX_CODES, SimilaritySource

    lang = resolve_language(options["lang"]).code if options.get("lang") else ""
    others = tuple(cross_lingual) if cross_lingual is not None else tuple(MULTISIMLEX_CODES)
    version = options.get("source_version") or "unknown"
    inputs = [SimilaritySource(Path(p), lang, others, source_version=version) for p in paths]
    text = CardText(
        pretty_name="Word similarity",
        summary="Graded word-similarity sets as polyprobe datasets: each config is one set "
        "(language, or language pair for a cross-lingual set), every pair a test row, the "
        "label the set's similarity score (float). Evaluate with "
        "`polyprobe evaluate ... --encoder ...`: Spearman correlation of cosine similarity "
        "with the scores, out-of-vocabulary pairs counted.",
        source_datasets=("original",),
        tags=("lexical", "word-similarity", "polyprobe"),
        task_categories=("sentence-similarity",),
    )
    return build_lexical("similarity", inputs, similarity_tasks, text, progress=progress, **options)


def build_analogies(
    paths: Sequence[str | os.PathLike[str]],
    *,
    name: str = "",
    semantic: Sequence[str] = (),
    morphological: Sequence[str] = (),
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """One analogy set from ``paths`` (Google ``: category`` text, vecto CSV, or four words a
    line with the category in the file name); ``semantic``/``morphological`` override the
    per-category rule (``gram…`` categories are morphological)."""
    from polyprobe.builders.lexical.analogies import analogy_tasks
    from polyprobe.loaders.analogies import AnalogySource

    overrides = {c: True for c in semantic} | {c: False for c in morphological}
    source = AnalogySource(
        tuple(Path(p) for p in paths),
        name=name,
        lang=options.get("lang", ""),
        license=options.pop("source_license", "unknown"),
        source_version=options.get("source_version") or "unknown",
        semantic=overrides,
    )
    text = CardText(
        pretty_name=f"Word analogies: {source.name}",
        summary="Word analogy questions (a : b :: c : d) as a polyprobe dataset: one config "
        "with every question (label = its category) and one per category; every question "
        "is a test row. Categories are marked semantic or morphological (card profile). "
        "Evaluate with 3CosAdd and 3CosMul over the top-N words of an embedding's "
        "vocabulary, question words excluded, out-of-vocabulary questions counted.",
        source_datasets=("original",),
        tags=("lexical", "word-analogy", "polyprobe"),
    )
    return build_lexical("analogies", [source], analogy_tasks, text, progress=progress, **options)


def build_generated_analogies(
    lexicon: Sequence[str | os.PathLike[str]],
    *,
    frequencies: Sequence[str | os.PathLike[str]] = (),
    cross_lexicon: Sequence[str | os.PathLike[str]] = (),
    cross_lang: str = "",
    name: str = "",
    max_categories: int = 15,
    pairs_per_category: int = 40,
    max_questions: int = 500,
    min_pairs: int = 5,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Morphological analogies generated from a UniMorph lexicon (see
    :mod:`polyprobe.builders.lexical.generate`); ``frequencies`` (UD treebanks, CoNLL-U
    files or word lists) rank the lemmas and are listed as reference sources;
    ``cross_lexicon`` (another language's lexicon, ``cross_lang`` its code) adds a
    cross-lingual set (a : b in this language, c : d in the other)."""
    from polyprobe.builders.lexical.analogies import analogy_tasks
    from polyprobe.builders.lexical.generate import GeneratedAnalogySource, GenerationOptions
    from polyprobe.languages import resolve_language
    from polyprobe.loaders.frequency import FrequencySource
    from polyprobe.loaders.unimorph_source import unimorph_sources

    overrides = options.get("license_overrides") or {}
    lang = resolve_language(options["lang"]).code if options.get("lang") else ""
    lexicons = unimorph_sources(
        lexicon, license_overrides=overrides, source_version=options.get("source_version")
    )
    freqs = tuple(
        FrequencySource.from_path(p, license_override=overrides.get(Path(p).name))
        for p in frequencies
    )
    source = GeneratedAnalogySource(
        tuple(lexicons),
        freqs,
        name=name or f"unimorph-analogies-{lang or lexicons[0].name}",
        lang=lang,
        seed=int(options.get("seed", 0)),
        options=GenerationOptions(
            max_categories=max_categories,
            pairs_per_category=pairs_per_category,
            max_questions=max_questions,
            min_pairs=min_pairs,
        ),
        cross=tuple(
            unimorph_sources(cross_lexicon, license_overrides=overrides) if cross_lexicon else ()
        ),
        cross_lang=cross_lang,
    )
    text = CardText(
        pretty_name=f"Morphological word analogies: {source.name}",
        summary="Morphological word analogies generated from a UniMorph lexicon: a "
        "category contrasts two paradigm cells of one part of speech (named by their "
        "UniMorph tags), its questions pair two lemmas' forms; no question uses a syncretic "
        "or overabundant cell. One config with every question (label = category) and one "
        "per category; every question is a test row. The card's notes list each category "
        "with its size and each infeasible one with why.",
        source_datasets=("extended",),
        tags=("lexical", "word-analogy", "unimorph", "polyprobe"),
    )
    return build_lexical("analogies", [source], analogy_tasks, text, progress=progress, **options)


def build_dictionary(
    path: str | os.PathLike[str],
    *,
    source_lang: str,
    target_lang: str,
    multisimlex: bool = False,
    test_share: int = 20,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """A bilingual dictionary (``src TAB tgt`` lines, or Multi-SimLex's concepts for two of
    its languages) split by source word into train and test (``test_share`` percent)."""
    from polyprobe.builders.lexical.dictionary import dictionary_tasks
    from polyprobe.loaders.dictionary import DictionarySource

    if not 0 < test_share < 100:
        raise UsageError(f"test share must lie between 1 and 99 percent, not {test_share}")
    source = DictionarySource(
        Path(path),
        source_lang,
        target_lang,
        multisimlex=multisimlex,
        license=options.pop("source_license", ""),
        source_version=options.get("source_version") or "unknown",
    )
    split = SplitSpec(
        "ratio",
        (100 - test_share, 0, test_share),
        reason="by source word: no source word in both train and test",
    )
    text = CardText(
        pretty_name=f"Bilingual dictionary {source_lang}-{target_lang}",
        summary="A bilingual dictionary for cross-lingual mapping evaluation: each row a "
        "source word and a translation; train and test split by source word. Evaluate "
        "with `polyprobe evaluate ... --encoder ...`: orthogonal Procrustes fitted on train, "
        "P@1/5/10 on test by nearest neighbour and CSLS, both directions.",
        source_datasets=("original",),
        tags=("lexical", "bilingual-dictionary", "polyprobe"),
        task_categories=("translation",),
    )
    options = {"lang": source_lang, "min_per_class": (0, 0, 0), **options}
    return build_lexical(
        "dictionary", [source], dictionary_tasks, text, split=split, progress=progress, **options
    )
