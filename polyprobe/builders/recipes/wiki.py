"""``build wiki``: MediaWiki XML dumps (Wikipedia ``pages-articles``; bz2, gzip, xz or plain;
any encoding the XML declares) → the text-only sentence tasks.

The recipe: each dump is a source (name = file name without its suffixes; language from the
dump's ``xml:lang``, checked against ``--lang``); articles are cleaned, split and tokenised
(:mod:`polyprobe.loaders.wikisource`); sentences with a template hole, a formula or markup
left, fewer than ``min_tokens`` tokens or no final punctuation are dropped and counted in
the card; the rest go to the text-only tasks, split by ratio. Everything else is the shared
build.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.records.rawtext import SentenceFilter
from polyprobe.builders.text.recipe import RawTextRecipe, agreement_options, text_split
from polyprobe.languages import Language, resolve_language
from polyprobe.version import __version__


class WikiRecipe(RawTextRecipe):
    """``build wiki`` on the shared build: the dumps are first cut into input shards, each
    cleaned and tokenised into a table (:mod:`polyprobe.builders.records.shards`) on the chosen
    executor; the record stream then reads the tables."""

    executor: str = "local"
    shards: int | None = None  # per dump file (default: enough for the workers)
    shard_cache: Path | None = None
    executor_options: dict[str, Any] = {}  # noqa: RUF012 - replaced per instance

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        import math
        import shutil
        import tempfile

        from polyprobe.builders.records.shards import (
            SHARD_SCRATCH,
            TokenizedSource,
            plan_shards,
            sweep_partial,
            tokenize_shard,
        )
        from polyprobe.cards.folder import make_owned_dir, sweep_orphans
        from polyprobe.errors import PolyprobeError
        from polyprobe.hashing import stable_u64
        from polyprobe.runtime.inputs import run_inputs

        dumps = list(self.text_sources)
        size = sum(Path(d.path).stat().st_size for d in dumps)
        workers = options.jobs or (min(4, os.cpu_count() or 1) if size >= 2 << 20 else 1)
        parts = self.shards or max(1, math.ceil(workers / len(dumps)))
        scratch = Path(tempfile.gettempdir())
        sweep_orphans(scratch, SHARD_SCRATCH)
        if self.shard_cache is not None:
            folder = Path(self.shard_cache)
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder = make_owned_dir(scratch, SHARD_SCRATCH, mode=0o700)
        try:
            sweep_partial(folder)
            plan = plan_shards(dumps, dumps[0].segmenter, parts, folder)
            tasks = [t for per_dump in plan for t in per_dump]
            pending = [t for t in tasks if not Path(t.out).exists()]  # finished: reused
            logs = folder / f"datatrove-{stable_u64('logs', *(t.out for t in pending)):016x}"
            run_inputs(
                tokenize_shard,
                pending,
                workers=workers,
                executor=self.executor,
                logging_dir=logs,
                executor_options=self.executor_options,
            )
            missing = [t.out for t in tasks if not Path(t.out).exists()]
            if missing:
                raise PolyprobeError(
                    f"{len(missing)} of {len(tasks)} input shards are not finished (a "
                    f"{self.executor} job runs them): rerun this command with the same "
                    "--shard-cache once they are done; finished shards are reused"
                )
            self.text_sources = [TokenizedSource.of(d, t) for d, t in zip(dumps, plan, strict=True)]
            try:
                return super().run(options, staging, progress)
            finally:
                self.text_sources = dumps
        finally:
            if self.shard_cache is None:
                shutil.rmtree(folder, ignore_errors=True)

    def card(self, language: Language, outcome: Outcome) -> CardText:
        names = ", ".join(s.name for s in self.text_sources)
        return CardText(
            pretty_name=f"polyprobe Wikipedia probing tasks ({language.name})",
            summary=(
                f"Text-only sentence probing tasks for {language.name} built by polyprobe "
                f"{__version__} from the Wikipedia dump(s) {names}. Sentences are machine-"
                "segmented and tokenised (see the card's segmentation parameters); some "
                "encoders were trained on Wikipedia text."
            ),
            source_datasets=("wikipedia",),
            tags=("probing", "polyprobe", "wikipedia"),
        )


def build_wiki(
    dumps: Sequence[str | os.PathLike[str]],
    *,
    split: str | None = None,
    sentences: str = "segtok",
    tokenizer: str = "auto",
    min_tokens: int = 3,
    max_tokens: int | None = None,
    final_punct: bool = True,
    unimorph: Sequence[str | os.PathLike[str]] | None = None,
    noun_forms: Sequence[str | os.PathLike[str]] | None = None,
    annotate: str | None = None,
    task_options: dict[str, dict[str, Any]] | None = None,
    progress: Progress | None = None,
    executor: str = "local",
    shards: int | None = None,
    shard_cache: str | os.PathLike[str] | None = None,
    executor_options: dict[str, Any] | None = None,
    **options: Any,
) -> BuildResult:
    """Build a dataset folder from Wikipedia dumps; mirrors ``polyprobe build wiki``.
    ``executor`` (``local``, ``datatrove-local``, ``datatrove-slurm``, ``datatrove-ray``) runs
    the input shards (``shards`` per dump file), resumably when ``shard_cache`` is a folder
    kept between builds; the output does not depend on any of the four.
    ``sentences``/``tokenizer``: see :class:`~polyprobe.loaders.segmentation.Segmenter`;
    ``unimorph``: a lexicon whose noun-only forms mark nouns (``word_order``, nouns-only
    ``word_content``, ``subject_verb_agreement``'s noun exclusion); ``options`` are
    :meth:`BuildOptions.make`'s."""
    from polyprobe.loaders.raw_lexicon import noun_lexicon
    from polyprobe.loaders.segmentation import Segmenter
    from polyprobe.loaders.wikisource import WikiDumpSource

    opts = BuildOptions.make(**options)
    lang = resolve_language(opts.lang).code
    segmenter = Segmenter(lang, sentences=sentences, tokenizer=tokenizer)
    sources = [WikiDumpSource(Path(p), segmenter, version=opts.source_version) for p in dumps]
    nouns, noun_source, lexicon_infos = noun_lexicon(unimorph, opts)
    recipe = WikiRecipe(
        "wiki",
        sources,
        opts,
        SentenceFilter(min_tokens, max_tokens, final_punct),
        split=text_split(split),
        nouns=nouns,
        noun_source=noun_source,
        task_options=agreement_options(task_options, unimorph, noun_forms),
        extra_sources=lexicon_infos,
        annotate=annotate,
    )
    from polyprobe.runtime.inputs import EXECUTORS

    if executor not in EXECUTORS:
        from polyprobe.errors import UsageError

        raise UsageError(f"--executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    if shards is not None and shards < 1:
        from polyprobe.errors import UsageError

        raise UsageError(f"--shards must be at least 1, not {shards}")
    recipe.executor = executor
    recipe.shards = shards
    recipe.shard_cache = None if shard_cache is None else Path(shard_cache)
    recipe.executor_options = dict(executor_options or {})
    return build(recipe, opts, progress=progress)
