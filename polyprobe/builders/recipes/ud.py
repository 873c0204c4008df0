"""``build ud``: Universal Dependencies treebanks → the sentence-level probing suite.

The recipe: treebank folders or CoNLL-U files (several treebanks of one language merge), the
sentence tasks of the registry, the treebanks' own splits when every treebank has train, dev
and test (else a ratio split), language facts (capitalisation) derived from the data and
overridable by a profile. Everything else is the shared build.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.rendering import text_hash as sentence_text_hash
from polyprobe.builders.execution.stream import RecordStream, run_record_streams
from polyprobe.builders.task import Shared, Task, TaskContext
from polyprobe.builders.variants import MinPerClass, SplitSpec, parse_split
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import SourceInfo
from polyprobe.version import __version__

_SPLIT_CODE = {"train": 0, "dev": 1, "validation": 1, "test": 2}


def split_by_record(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Task names that read sentences, and those that read documents (in the order given)."""
    from polyprobe.builders.discourse.family import is_document_task
    from polyprobe.builders.registry import get_task

    documents = [n for n in names if is_document_task(get_task("ud", n))]
    return [n for n in names if n not in documents], documents


def choose_split(split: str | None, sources: Sequence[Any]) -> SplitSpec:
    """``--split`` if given (``ud`` needs train, dev and test in every treebank), else the
    treebanks' own splits when every one has all three, else ratio 80/10/10 (and why)."""
    lacking = [s.name for s in sources if not {"train", "dev", "test"} <= set(s.splits)]
    if split is not None:
        spec = parse_split(split)
        if spec.mode == "ud":
            if lacking:
                raise UsageError(
                    "--split ud needs train, dev and test files in every treebank; "
                    f"missing in: {', '.join(lacking)} (use --split ratio:80/10/10)"
                )
            return SplitSpec("ud", reason="requested with --split ud")
        return SplitSpec(spec.mode, spec.ratios, reason="requested with --split")
    if not lacking:
        return SplitSpec("ud", reason="every input treebank has train, dev and test files")
    return SplitSpec(
        "ratio",
        (80, 10, 10),
        reason="not every treebank has train, dev and test files ("
        + ", ".join(
            f"{s.name}: {'+'.join(sorted(s.splits)) or 'none'}"
            for s in sources
            if s.name in lacking
        )
        + "), so polyprobe re-splits by ratio 80/10/10",
    )


@dataclass(frozen=True)
class TreebankFamily:
    """The record family of UD builds (see :class:`polyprobe.builders.execution.passes.RecordFamily`):
    plain values, so a worker process can receive it."""

    sources: tuple[Any, ...]  # TreebankSource
    lang: str
    seed: int
    min_per_class: MinPerClass
    split: SplitSpec
    profile_path: str | None = None
    task_options: dict[str, dict[str, Any]] = field(default_factory=dict)

    def open_tasks(self, names: Sequence[str]) -> tuple[list[Task[Any]], dict[str, Any]]:
        """The tasks with every language choice fixed: capitalisation from a prefix of the
        data (a profile's ``[language]`` wins), options from the profile's ``[tasks.*]``
        (command-line task options win over a profile)."""
        from polyprobe.builders.profile import checked_profile, derive_capitalisation
        from polyprobe.builders.registry import family_tasks
        from polyprobe.loaders.sources import read_sources

        known = family_tasks("ud")
        overrides: dict[str, Any] = {"language": {}, "tasks": {}}
        if self.profile_path is not None:
            overrides = checked_profile(self.profile_path, known)
        language = derive_capitalisation(read_sources(self.sources, on_invalid="skip", lazy=True))
        language.update(overrides["language"])
        context = TaskContext(
            lang=self.lang,
            seed=self.seed,
            capitalises_nouns=bool(language["capitalises_nouns"]),
            keep_case_forms=frozenset(language["keep_case_forms"]),
            min_per_class=self.min_per_class.as_tuple(),
            split=self.split.label,
        )
        tasks = [
            known[name].configure(
                {**overrides["tasks"].get(name, {}), **self.task_options.get(name, {})}, context
            )
            for name in names
        ]
        profile: dict[str, Any] = {"lang": self.lang, "language": language, "tasks": {}}
        if self.profile_path is not None:
            profile["overrides"] = {"file": Path(self.profile_path).name, **overrides}
        return tasks, profile

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        from polyprobe.loaders.sources import read_sources

        # Builders never change a word: the reader may share its feature dicts.
        return read_sources(self.sources, on_invalid=on_invalid, skipped=skipped, shared_dicts=True)

    def part_records(
        self, on_invalid: str, skipped: Counter[str], part: int, parts: int
    ) -> Iterator[Sentence]:
        """The records of the part-th (0-based) of ``parts`` contiguous ranges of
        :meth:`records`, cut at ``# newdoc`` documents (or anywhere in a file without them):
        ``parts`` processes each read one range instead of every process reading all
        (:func:`~polyprobe.loaders.sources.record_parts`). The ranges in order are exactly
        :meth:`records`, skips and errors included."""
        from polyprobe.loaders.sources import read_sources

        return read_sources(
            self.sources,
            on_invalid=on_invalid,
            skipped=skipped,
            shared_dicts=True,
            part=part,
            parts=parts,
        )

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        source = sentence.source
        return source.treebank, sentence.sent_id, _SPLIT_CODE.get(source.split or "", -1)

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return shared.get(sentence_text_hash)

    def describe_input(self) -> str:
        return ", ".join(src.path for src in self.sources)


@dataclass
class TreebankRecipe:
    """``build ud`` on the shared build."""

    paths: Sequence[str | os.PathLike[str]]
    options: BuildOptions
    split: str | None = None
    task_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    family: str = "ud"
    top_up: tuple[Path, ...] = ()  # Wikipedia dumps topping up the text-only tasks
    top_up_sentences: int | None = None

    def __post_init__(self) -> None:
        from polyprobe.builders.registry import resolve_task_names
        from polyprobe.loaders.sources import discover

        self.task_names = resolve_task_names("ud", self.options.tasks)
        self.sentence_names, self.document_names = split_by_record(self.task_names)
        self.treebanks = discover(
            [Path(p) for p in self.paths],
            license_overrides=dict(self.options.license_overrides),
            source_version=self.options.source_version,
        )
        self.split_spec = choose_split(self.split, self.treebanks)

    def sources(self) -> list[SourceInfo]:
        return [s.info for s in self.treebanks] + [d.info for d in self._dumps()]

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        """What each treebank's file names and README declare (checked against --lang)."""
        return [(s.name, s.languages) for s in self.treebanks] + [
            (d.name, d.languages) for d in self._dumps()
        ]

    def _dumps(self) -> list[Any]:
        """The ``--top-up`` dumps as sources (for the card and the language check)."""
        if not self.top_up:
            return []
        from polyprobe.loaders.segmentation import Segmenter
        from polyprobe.loaders.wikisource import WikiDumpSource

        segmenter = Segmenter("xx", tokenizer="segtok")
        dumps = [WikiDumpSource(Path(p), segmenter) for p in self.top_up]
        for d in dumps:
            override = self.options.license_overrides.get(d.name)
            if override is not None:
                d.license = override
        return dumps

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        """The sentence tasks on the sentence stream, the document (discourse) tasks on the
        treebanks' ``# newdoc`` documents (:mod:`polyprobe.builders.discourse.ud`): both
        streams planned onto one set of processes (with ``--top-up`` the sentence stream has
        its own passes, and the documents follow it)."""
        from polyprobe.builders.discourse.ud import document_family, with_documents
        from polyprobe.loaders.sources import input_bytes
        from polyprobe.runtime.shards import jobs_for

        family = TreebankFamily(
            sources=tuple(self.treebanks),
            lang=resolve_language(options.lang).code,
            seed=options.seed,
            min_per_class=options.min_per_class,
            split=self.split_spec,
            profile_path=None if options.profile is None else str(options.profile),
            task_options=self.task_options,
        )
        documents, without = None, []
        if self.document_names:
            # the documents are grouped from the sentence stream's readings when it has them
            read_with = family if self.sentence_names and not self.top_up else None
            documents, without = document_family(
                self.treebanks,
                options,
                self.split_spec,
                self.task_options,
                options.profile,
                sentences=read_with,
            )
        jobs = jobs_for(
            options.jobs,
            self.sentence_names + (self.document_names if documents else []),
            input_bytes(s.path for s in self.treebanks),
        )
        streams: list[RecordStream] = []
        sentences = None
        if self.sentence_names:
            if self.top_up:
                from polyprobe.builders.records.topup import run_top_up

                sentences = run_top_up(
                    family,
                    self.sentence_names,
                    self.top_up,
                    options,
                    split=self.split_spec,
                    staging=staging,
                    jobs=jobs,
                    progress=progress,
                    limit=self.top_up_sentences,
                )
            else:
                streams.append(RecordStream(family, tuple(self.sentence_names)))
        if documents is not None:
            streams.append(RecordStream(documents, tuple(self.document_names)))
        outcomes = (
            run_record_streams(
                streams,
                options,
                split=self.split_spec,
                staging=staging,
                jobs=jobs,
                progress=progress,
            )
            if streams
            else []
        )
        if self.sentence_names and not self.top_up:
            sentences = outcomes.pop(0)
        if not self.document_names:
            assert sentences is not None
            return sentences
        return with_documents(
            sentences,
            outcomes.pop(0) if documents is not None else None,
            self.treebanks,
            self.document_names,
            self.task_names,
            without,
            options,
            split=self.split_spec,
            staging=staging,
        )

    def card(self, language: Language, outcome: Outcome) -> CardText:
        names = ", ".join(s.name for s in self.treebanks)
        return CardText(
            pretty_name=f"polyprobe UD probing suite ({language.name})",
            summary=(
                f"Sentence-level probing tasks for {language.name} built by polyprobe "
                f"{__version__} from {names}."
            ),
            source_datasets=tuple(f"universal_dependencies/{s.name}" for s in self.treebanks),
        )


def build_ud(
    paths: Sequence[str | os.PathLike[str]],
    *,
    split: str | None = None,
    task_options: dict[str, dict[str, Any]] | None = None,
    progress: Progress | None = None,
    top_up: Sequence[str | os.PathLike[str]] | None = None,
    top_up_sentences: int | None = None,
    **options: Any,
) -> BuildResult:
    """Build a dataset folder from UD treebanks; mirrors ``polyprobe build ud``. ``top_up``:
    Wikipedia dumps whose sentences (at most ``top_up_sentences``) top up the text-only tasks
    (:mod:`polyprobe.builders.records.topup`). ``options``
    are :meth:`BuildOptions.make`'s (``lang``, ``out``, ``tasks``, ``sizes``, ``seed``,
    ``jobs``, ``release``, ``previous``, ...); ``split`` is ``ud`` or ``ratio:80/10/10``
    (default: the treebanks' own splits when every one has all three); ``task_options`` are
    per-task options as a profile's ``[tasks.<name>]`` gives them."""
    opts = BuildOptions.make(**options)
    recipe = TreebankRecipe(
        paths,
        opts,
        split=split,
        task_options=dict(task_options or {}),
        top_up=tuple(Path(p) for p in top_up or ()),
        top_up_sentences=top_up_sentences,
    )
    return build(recipe, opts, progress=progress)


def profile_ud(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lang: str,
    tasks: Sequence[str] | None = None,
    profile_path: str | os.PathLike[str] | None = None,
    split: str | None = None,
    min_per_class: tuple[int, int, int] = (50, 20, 20),
    on_invalid: str = "raise",
) -> dict[str, Any]:
    """Everything a build of these treebanks would derive, without building (``polyprobe
    profile ud``). The output, edited, is a valid ``--profile`` file's ``[language]`` and
    ``[tasks.*]`` content."""
    from polyprobe.builders.execution.passes import first_pass
    from polyprobe.builders.profile import FeatureCounter

    opts = BuildOptions.make(
        lang=lang, out=".", tasks=tasks, min_per_class=min_per_class, on_invalid=on_invalid
    )
    recipe = TreebankRecipe(paths, opts, split=split)
    spec = recipe.split_spec
    family = TreebankFamily(
        sources=tuple(recipe.treebanks),
        lang=resolve_language(lang).code,
        seed=0,
        min_per_class=opts.min_per_class,
        split=spec,
        profile_path=None if profile_path is None else str(profile_path),
    )
    task_objs, profile = family.open_tasks(recipe.sentence_names)
    counter = FeatureCounter()
    fits, profile["tasks"] = first_pass(family, task_objs, on_invalid, observe_all=counter.observe)
    if recipe.document_names:
        from polyprobe.builders.discourse.ud import profile_documents

        doc_tasks, doc_fits, derived = profile_documents(
            recipe.treebanks, recipe.document_names, opts, spec, profile_path, on_invalid
        )
        task_objs, fits = [*task_objs, *doc_tasks], [*fits, *doc_fits]
        profile["tasks"].update(derived)
    profile["split"] = {"mode": spec.label, "reason": spec.reason}
    profile["labels"] = {t.name: list(f.label_names) for t, f in zip(task_objs, fits, strict=True)}
    profile["sources"] = {
        s.name: {"license": s.license, "version": s.version, "splits": sorted(s.splits)}
        for s in recipe.treebanks
    }
    profile["annotation"] = counter.summary()
    return profile
