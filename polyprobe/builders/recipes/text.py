"""``build text``: plain UTF-8 text files or folders → the text-only sentence tasks.

Layout ``lines`` (default): one sentence per line, no documents (document-level tasks such as
``end_of_sentence`` find no pairs). Layout ``documents``: documents separated by blank lines,
each line a paragraph split into sentences. Sentences are tokenised as in ``build wiki``;
no final punctuation is required by default (a sentence-per-line corpus often has none).
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


class TextRecipe(RawTextRecipe):
    """``build text`` on the shared build."""

    def card(self, language: Language, outcome: Outcome) -> CardText:
        names = ", ".join(s.name for s in self.text_sources)
        return CardText(
            pretty_name=f"polyprobe raw-text probing tasks ({language.name})",
            summary=(
                f"Text-only sentence probing tasks for {language.name} built by polyprobe "
                f"{__version__} from the text source {names} (machine-tokenised)."
            ),
            source_datasets=("original",),
        )


def build_text(
    paths: Sequence[str | os.PathLike[str]],
    *,
    name: str | None = None,
    layout: str = "lines",
    split: str | None = None,
    sentences: str = "segtok",
    tokenizer: str = "auto",
    min_tokens: int = 3,
    max_tokens: int | None = None,
    final_punct: bool = False,
    unimorph: Sequence[str | os.PathLike[str]] | None = None,
    noun_forms: Sequence[str | os.PathLike[str]] | None = None,
    annotate: str | None = None,
    task_options: dict[str, dict[str, Any]] | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Build a dataset folder from text files or folders; mirrors ``polyprobe build text``.
    ``name``: the source's name in the card and row ids (default: the first path's name)."""
    from polyprobe.errors import UsageError
    from polyprobe.loaders.plaintext import LAYOUTS, PlainTextSource, text_files
    from polyprobe.loaders.raw_lexicon import noun_lexicon
    from polyprobe.loaders.segmentation import Segmenter

    if layout not in LAYOUTS:
        raise UsageError(f"--layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    opts = BuildOptions.make(**options)
    lang = resolve_language(opts.lang).code
    files = text_files([Path(p) for p in paths])
    first = Path(paths[0])
    source_name = name or (first.name.split(".")[0] if first.is_file() else first.name)
    license_id = opts.license_overrides.get(source_name, "unknown")
    source = PlainTextSource(
        source_name,
        tuple(files),
        Segmenter(lang, sentences=sentences, tokenizer=tokenizer),
        layout=layout,
        license=license_id,
        version=opts.source_version,
    )
    nouns, noun_source, lexicon_infos = noun_lexicon(unimorph, opts)
    recipe = TextRecipe(
        "text",
        [source],
        opts,
        SentenceFilter(min_tokens, max_tokens, final_punct),
        split=text_split(split),
        nouns=nouns,
        noun_source=noun_source,
        task_options=agreement_options(task_options, unimorph, noun_forms),
        extra_sources=lexicon_infos,
        annotate=annotate,
        parameters={"layout": layout},
    )
    return build(recipe, opts, progress=progress)
