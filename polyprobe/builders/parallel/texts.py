"""The inputs of ``build parallel``: treebank folders, or parallel text files (line-aligned,
id-aligned TSV or a wide TSV; :mod:`polyprobe.loaders.aligned_text`) with the language each
is in, and how the text files are read into one alignment by item id."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.errors import UsageError
from polyprobe.languages import resolve_language
from polyprobe.loaders.aligned_text import (
    TSV_SUFFIXES,
    AlignedText,
    AlignedTsvFile,
    IdsFile,
    LineAlignedFile,
    TextAlignment,
    align_texts,
    check_line_counts,
    language_of_file,
)
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.translations import TranslationProvenance
from polyprobe.metadata import SourceInfo

__all__ = ["ParallelTexts", "split_inputs"]


def _lang_prefix(raw: str) -> tuple[str | None, Path]:
    """``de=path`` -> ("de", path); a path holding ``=`` only when its prefix is no code."""
    head, eq, tail = raw.partition("=")
    if eq and head and "/" not in head and not Path(raw).exists():
        try:
            return resolve_language(head).code, Path(tail)
        except UsageError:
            raise UsageError(
                f"{raw}: {head!r} is not a language code (write LANG=PATH, e.g. de={tail})"
            ) from None
    return None, Path(raw)


def split_inputs(
    raw_paths: Sequence[str | Path],
) -> tuple[list[Path], list[tuple[str | None, Path]]]:
    """The arguments of ``build parallel``: treebank folders, and text files each with the
    language its ``LANG=`` prefix gives (``None``: from the file name, or a wide TSV)."""
    folders: list[Path] = []
    files: list[tuple[str | None, Path]] = []
    for raw in raw_paths:
        lang, path = _lang_prefix(str(raw))
        if path.is_dir():
            if lang is not None:
                raise UsageError(f"{raw}: a treebank folder declares its own language")
            folders.append(path)
        else:
            files.append((lang, path))
    if folders and files:
        raise UsageError(
            "build parallel takes parallel treebank folders or parallel text files, not both: "
            f"{folders[0]} is a folder, {files[0][1]} a file"
        )
    return folders, files


@dataclass
class ParallelTexts:
    """The parallel text files of one build, their languages and their reading."""

    line_files: list[LineAlignedFile]
    tsv_files: list[AlignedTsvFile]
    ids: IdsFile | None
    languages: list[str]  # in the order first given

    @classmethod
    def of(
        cls, files: Sequence[tuple[str | None, Path]], *, ids: Path | None, version: str | None
    ) -> ParallelTexts:
        line_files: list[LineAlignedFile] = []
        tsv_files: list[AlignedTsvFile] = []
        langs: list[str] = []

        def add_lang(lang: str, path: Path) -> None:
            if lang in langs:
                raise UsageError(
                    f"{path}: a second input in {lang}; give one file per language (or one "
                    "wide TSV)"
                )
            langs.append(lang)

        for given, path in files:
            if not path.is_file():
                raise UsageError(f"{path}: no such file or folder")
            lang = given or language_of_file(path)
            if path.name.lower().endswith(TSV_SUFFIXES):
                tsv = AlignedTsvFile(path, lang or "", version=version)
                tsv_files.append(tsv)
                for code in [lang] if lang else list(tsv.language_columns()):
                    add_lang(code, path)
                continue
            if lang is None:
                raise UsageError(
                    f"{path}: say the file's language (e.g. de={path}), or name it so "
                    "(corpus.de, de.txt)"
                )
            line_files.append(LineAlignedFile(path, lang, version=version))
            add_lang(lang, path)
        if ids is not None and not line_files:
            raise UsageError("--line-ids gives the ids of line-aligned text files; none given")
        return cls(line_files, tsv_files, None if ids is None else IdsFile(ids), langs)

    def translation_files(self) -> dict[str, TranslationProvenance]:
        """language -> the provenance ``polyprobe translate`` wrote beside a per-language TSV
        (``FILE.json``): that language's texts are its translations."""
        from polyprobe.builders.translations import provenance_from_sidecar

        out: dict[str, TranslationProvenance] = {}
        for tsv in self.tsv_files:
            found = provenance_from_sidecar(tsv.path) if tsv.lang else None
            if found is not None:
                out[tsv.lang] = dataclasses.replace(found, target_language=tsv.lang)
        return out

    def translated_from(self) -> str | None:
        """The language the translation files say they were translated from (one, or None)."""
        found = {
            resolve_language(p.source_language).code for p in self.translation_files().values()
        }
        return found.pop() if len(found) == 1 else None

    def sources(self) -> list[SourceInfo]:
        infos = [f.info for f in (*self.line_files, *self.tsv_files)]
        if self.ids is not None:
            infos.append(self.ids.info)
        return infos

    def read(self, pivot: str, policy: InvalidPolicy) -> TextAlignment:
        """Every file's items aligned by id, the pivot's files first."""
        languages = [pivot, *(lang for lang in self.languages if lang != pivot)]
        if self.line_files:
            check_line_counts(self.line_files, self.ids)
        line_ids = None if self.ids is None else self.ids.read(policy)

        def items() -> Iterator[AlignedText]:
            line_files = sorted(self.line_files, key=lambda f: f.lang != pivot)
            tsv_files = sorted(self.tsv_files, key=lambda f: f.lang not in ("", pivot))
            for line_file in line_files:
                yield from line_file.records(policy, line_ids)
            for tsv in tsv_files:
                yield from tsv.records(policy)

        return align_texts(languages, items(), policy)

    def describe(self) -> dict[str, Any]:
        layout = []
        if self.line_files:
            layout.append("line-aligned" + (" with an ids file" if self.ids else ""))
        if any(t.lang for t in self.tsv_files):
            layout.append("id-aligned TSV")
        if any(not t.lang for t in self.tsv_files):
            layout.append("wide TSV")
        return {"layout": ", ".join(layout), "files": [s.name for s in self.sources()]}
