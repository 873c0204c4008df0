"""UniMorph lexicons as build sources: which files form one source, its name, licence, version
and checksums.

Why a source is a folder and not a file: SIGMORPHON ships one language as train/dev/test
files (and UniMorph a big lexicon as ``fin.1``, ``fin.2``), and those are one lexicon with one
licence and one version; the card lists them as one source with a checksum per file. Why
this lives beside the reader, not in the word builder: the naming rule is printed in cards,
and every build that reads a lexicon must apply the same one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import UsageError
from polyprobe.hashing import file_sha256
from polyprobe.loaders.declared import DeclaredLanguage, lexicon_languages
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.sources import treebank_metadata
from polyprobe.loaders.unimorph import ReadStats, UniMorphReader, expand_paths
from polyprobe.metadata import SourceInfo

__all__ = ["UniMorphSource", "lexicon_folders", "read_lexicon", "unimorph_sources"]


@dataclass
class UniMorphSource:
    """One folder's lexicon files, read as one lexicon (entries deduplicated across them).

    ``checksums`` maps each file's name to its sha256, in reading order (the card's order).
    ``stats`` is what the last :meth:`records` pass saw (layouts, lines, duplicates, unknown
    tags), filled as it is iterated."""

    name: str
    folder: Path
    paths: tuple[Path, ...]
    license: str = "unknown"
    version: str = "unknown"
    checksums: dict[str, str] = field(default_factory=dict)
    layout: str | None = None
    lang: str | None = None
    dedupe: bool = True
    stats: ReadStats = field(default_factory=ReadStats, repr=False)
    # what its file names declare (``german-train-high``, ``deu.trn``, ``eng``)
    languages: tuple[DeclaredLanguage, ...] = ()

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            kind="unimorph",
            name=self.name,
            version=self.version,
            license=self.license,
            files=[{"name": n, "sha256": c} for n, c in self.checksums.items()],
        )

    def reader(self, policy: InvalidPolicy) -> UniMorphReader:
        return UniMorphReader(
            self.paths, layout=self.layout, lang=self.lang, dedupe=self.dedupe, policy=policy
        )

    def records(self, policy: InvalidPolicy) -> Iterator[LexEntry]:
        reader = self.reader(policy)
        self.stats = reader.stats
        yield from reader


def lexicon_folders(files: Iterable[str | Path]) -> list[tuple[str, Path, list[Path]]]:
    """``(source name, folder, files)`` per folder, folders in order of first appearance and
    files in the order given. The name is the folder's name, or ``parent/folder`` when two
    given folders share a name (two ``data`` folders must not become one source in a card)."""
    by_folder: dict[Path, list[Path]] = {}
    for f in files:
        p = Path(f)
        by_folder.setdefault(p.resolve().parent, []).append(p)
    names: Counter[str] = Counter(folder.name for folder in by_folder)
    return [
        (
            folder.name if names[folder.name] == 1 else f"{folder.parent.name}/{folder.name}",
            folder,
            group,
        )
        for folder, group in by_folder.items()
    ]


def unimorph_sources(
    paths: str | Path | Iterable[str | Path],
    *,
    layout: str | None = None,
    lang: str | None = None,
    dedupe: bool = True,
    license_overrides: Mapping[str, str] | None = None,
    source_version: str | None = None,
) -> list[UniMorphSource]:
    """The sources of a lexicon given as files, folders or numbered-part stems (as
    :func:`~polyprobe.loaders.unimorph.expand_paths` reads them), one per folder.

    Licence and version: :func:`~polyprobe.loaders.sources.treebank_metadata` of the folder;
    an override is looked up by source name, then by each file's name. Unknown names in
    ``license_overrides`` are not an error here: a build shares one override table between
    the lexicon, frequency lists and pseudoword tables."""
    overrides = dict(license_overrides or {})
    out = []
    for name, folder, group in lexicon_folders(expand_paths(paths)):
        override = next(
            (overrides[k] for k in (name, *(f.name for f in group)) if k in overrides), None
        )
        lic, version = treebank_metadata(
            group[0], license_override=override, source_version=source_version
        )
        out.append(
            UniMorphSource(
                name=name,
                folder=folder,
                paths=tuple(group),
                license=lic,
                version=version,
                checksums={f.name: file_sha256(str(f)) for f in group},
                layout=layout,
                lang=lang,
                dedupe=dedupe,
                languages=lexicon_languages(group),
            )
        )
    return out


def read_lexicon(sources: Sequence[UniMorphSource], policy: InvalidPolicy) -> UniMorphReader:
    """One reader over the files of several sources, in source order, deduplicated across
    all of them: what reading the same files given together has always meant (SIGMORPHON's
    train and test of one language share lines). The sources must agree on layout, language
    and ``dedupe``. Iterate it for the entries; its ``stats`` cover every file."""
    if not sources:
        raise UsageError("no UniMorph lexicon given: name its files or the folder holding them")
    settings = {(s.layout, s.lang, s.dedupe) for s in sources}
    if len(settings) != 1:
        folders = ", ".join(str(s.folder) for s in sources)
        raise UsageError(
            f"the UniMorph lexicons {folders} are read as one lexicon, so they need one "
            "layout, language and deduplication setting"
        )
    first = sources[0]
    return UniMorphReader(
        [p for s in sources for p in s.paths],
        layout=first.layout,
        lang=first.lang,
        dedupe=first.dedupe,
        policy=policy,
    )
