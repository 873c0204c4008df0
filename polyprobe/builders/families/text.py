"""``build text``: plain UTF-8 text files or folders → the text-only sentence tasks (and, with
``--layout documents``, the discourse tasks).

Layout ``lines`` (default): one sentence per line, no documents (document-level tasks such as
``end_of_sentence`` find no pairs; the discourse tasks are infeasible, with the reason).
Layout ``documents``: documents separated by blank lines, each line a paragraph split into
sentences. The files form one source (named after the first path, or ``--name``); sentences
go through the raw-text recipe (:mod:`.rawtext`) as in ``build wiki``, except that no final
punctuation is required by default (a sentence-per-line corpus often has none).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.families.rawtext import RawTextConfig, RawTextFamily, RawTexts
from polyprobe.builders.family import CardText, Outcome
from polyprobe.builders.options import option, paths_option
from polyprobe.languages import Language
from polyprobe.loaders.plaintext import LAYOUTS
from polyprobe.version import __version__


@dataclass(frozen=True, kw_only=True)
class TextConfig(RawTextConfig):
    paths: tuple[Path, ...] = paths_option(
        help="UTF-8 text files (plain or gzip) or folders of *.txt files",
        positional=True,
        metavar="FILE|FOLDER",
        profile=False,
    )
    layout: str = option(
        "lines",
        help="lines: one sentence per line; documents: documents separated by blank lines, "
        "each line a paragraph split into sentences",
        choices=LAYOUTS,
    )
    name: str | None = option(None, help="the source's name (default: the first path's)")
    final_punct: bool = option(False, help="drop sentences without sentence-final punctuation")


class TextFamily(RawTextFamily[TextConfig]):
    name = "text"
    help = "text-only sentence tasks from plain text files or folders"
    description = (
        "Build the text-only sentence tasks from UTF-8 text: one sentence per line (--layout "
        "lines) or documents separated by blank lines (--layout documents; then also the "
        "discourse tasks, group 'discourse'); tokenised as in build wiki; split by ratio."
    )
    Config = TextConfig

    def texts(self, config: TextConfig) -> list[Any]:
        from polyprobe.loaders.plaintext import PlainTextSource, text_files

        first = config.paths[0]
        name = config.name or (first.name.split(".")[0] if first.is_file() else first.name)
        files = tuple(text_files(config.paths))
        source = PlainTextSource(
            name,
            files,
            config.segmenter(),
            layout=config.layout,
            version=config.source_version,
        )
        return [source]

    def parameters(self, config: TextConfig) -> dict[str, Any]:
        return {"layout": config.layout}

    def card(
        self, config: TextConfig, sources: RawTexts, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.texts)
        return CardText(
            pretty_name=f"polyprobe raw-text probing tasks ({language.name})",
            summary=(
                f"Text-only sentence probing tasks for {language.name} built by polyprobe "
                f"{__version__} from the text source {names} (machine-tokenised)."
            ),
            source_datasets=("original",),
        )


TEXT = TextFamily()
