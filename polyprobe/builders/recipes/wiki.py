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
from polyprobe.builders.text.family import SentenceFilter
from polyprobe.builders.text.recipe import RawTextRecipe, agreement_options, text_split
from polyprobe.languages import Language, resolve_language
from polyprobe.version import __version__


class WikiRecipe(RawTextRecipe):
    """``build wiki`` on the shared build."""

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
    task_options: dict[str, dict[str, Any]] | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Build a dataset folder from Wikipedia dumps; mirrors ``polyprobe build wiki``.
    ``sentences``/``tokenizer``: see :class:`~polyprobe.loaders.segmentation.Segmenter`;
    ``unimorph``: a lexicon whose noun-only forms mark nouns (``word_order``, nouns-only
    ``word_content``, ``subject_verb_agreement``'s noun exclusion); ``options`` are
    :meth:`BuildOptions.make`'s."""
    from polyprobe.builders.text.lexicon import noun_lexicon
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
    )
    return build(recipe, opts, progress=progress)
