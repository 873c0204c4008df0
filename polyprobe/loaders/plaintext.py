"""Plain UTF-8 text files (plain or gzip) as a build's source, from files or folders.

Two layouts, because raw corpora come in both:

* ``lines``: one sentence per line (tokenised or not); no document structure, so
  document-level tasks (``end_of_sentence``, discourse) are infeasible on it.
* ``documents``: documents separated by blank lines; each line of a document is a paragraph,
  split into sentences by the segmenter (a document written one sentence a line marks no
  paragraphs: :meth:`~polyprobe.loaders.rawtext.RawDocument.document`).

Lines are read through the input layer (:mod:`polyprobe.loaders.inputs`) with their true
numbers, so a line that is not UTF-8, holds a control character or is over-long is refused
naming file and line, or under ``--on-invalid skip`` counted; a file that is not text at all,
or holds no text (empty, only blank lines), is refused whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import LineStats, no_entries, text_lines
from polyprobe.loaders.rawtext import RawDocument, RawSentence, segment_paragraphs, sentence_drop
from polyprobe.loaders.records import Document, SourceFile
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.sniff import sniff_file
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

__all__ = ["LAYOUTS", "PlainTextSource", "text_files"]

LAYOUTS: tuple[str, ...] = ("lines", "documents")
TEXT_SUFFIXES: tuple[str, ...] = (".txt", ".txt.gz", ".text")


def text_files(paths: Sequence[str | Path]) -> list[Path]:
    """The files named, and the text files (``*.txt``, ``*.txt.gz``, ``*.text``) under the
    folders named, each folder's sorted by relative path so that a build reads them in a
    fixed order."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(
                (f for f in p.rglob("*") if f.is_file() and f.name.endswith(TEXT_SUFFIXES)),
                key=lambda f: f.relative_to(p).as_posix(),
            )
            if not found:
                raise InputError(
                    p,
                    None,
                    f"the folder holds no text files ({', '.join(TEXT_SUFFIXES)})",
                    "no-input",
                )
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(p, None, "no such file or folder", "missing-file")
    return out


@dataclass
class PlainTextSource:
    """Text files read in the order given, as documents (layout ``documents``) or as
    one-sentence documents of a file (layout ``lines``: the file is one record whose
    sentences are its lines, none of them neighbours)."""

    name: str
    files: tuple[Path, ...]
    segmenter: Segmenter
    layout: str = "lines"
    license: str = "unknown"
    version: str | None = None

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {self.layout!r}")

    @property
    def info(self) -> SourceInfo:
        base = _common_parent(self.files)
        return SourceInfo(
            "text",
            self.name,
            self.version or "unknown",
            self.license,
            file_entries([(f.resolve().relative_to(base).as_posix(), f) for f in self.files]),
        )

    def documents(self, policy: InvalidPolicy) -> Iterator[RawDocument]:
        base = _common_parent(self.files)
        for path in self.files:
            rel = path.resolve().relative_to(base).as_posix()
            source = SourceFile(self.name, str(path), None)
            if self.layout == "lines":
                yield from self._lines(path, rel, source, policy)
            else:
                yield from self._documents(path, rel, source, policy)

    def _good_lines(self, path: Path, policy: InvalidPolicy) -> Iterator[tuple[int, str]]:
        """Stripped lines; a refused line comes as ``""`` (it separates documents like a
        blank one); a file without a line of text is a fatal ``empty``."""
        stats = LineStats()
        sniff_file(path, "text")
        for number, line in text_lines(path, policy, stats=stats, refused_as_blank=True):
            yield number, line.strip()
        if stats.lines == stats.blank + stats.refused:
            raise no_entries(path, "no text on any line", stats.refused)

    def _lines(
        self, path: Path, rel: str, source: SourceFile, policy: InvalidPolicy
    ) -> Iterator[RawDocument]:
        """Each non-empty line is a sentence and a document of its own (``<file>:<line>``):
        lines of a sentence-per-line corpus are not known to be neighbours."""
        for number, line in self._good_lines(path, policy):
            if line:
                sentence = RawSentence(line, None, 0, number, sentence_drop(line))
                yield RawDocument(f"{rel}:{number}", None, source, number, (sentence,))

    def _documents(
        self, path: Path, rel: str, source: SourceFile, policy: InvalidPolicy
    ) -> Iterator[RawDocument]:
        paragraphs: list[tuple[str | None, str, int]] = []

        def flush() -> Iterator[RawDocument]:
            if paragraphs:
                first = paragraphs[0][2]
                sentences = segment_paragraphs(paragraphs, self.segmenter)
                paragraphs.clear()
                if sentences:
                    yield RawDocument(f"{rel}:{first}", None, source, first, sentences)

        for number, line in self._good_lines(path, policy):
            if line:
                paragraphs.append((None, line, number))
            else:
                yield from flush()
        yield from flush()

    def records(self, policy: InvalidPolicy) -> Iterator[Document]:
        """Documents of the kept sentences (layout ``documents`` only makes real ones)."""
        for doc in self.documents(policy):
            document = doc.document("sentence")
            if document.units:
                yield document


def _common_parent(files: Sequence[Path]) -> Path:
    """The deepest folder holding every file (card names are relative to it)."""
    import os

    resolved = [str(f.resolve().parent) for f in files]
    return Path(os.path.commonpath(resolved)) if resolved else Path(".")
