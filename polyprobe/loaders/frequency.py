"""Word frequency lists: counts and ranks keyed by lexical key (NFC + case-fold).

LINSPECTOR sampled 80% frequent and 20% rare words; this module answers "how frequent is this
form" from whatever the user has: UD treebanks (forms counted), a word-per-line list (already
ranked, most frequent first) or a ``word TAB count`` file. Keys go through
:func:`polyprobe.hashing.lexical_key` so that ``Haus`` in a treebank and ``haus`` in a list meet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.hashing import file_sha256, lexical_key
from polyprobe.loaders.declared import DeclaredLanguage, treebank_languages
from polyprobe.loaders.inputs import (
    BadLine,
    bad_encoding,
    no_entries,
    numbered_lines,
    refused_since,
)
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.loaders.sources import readme_citation, treebank_metadata
from polyprobe.metadata import SourceInfo

_CONLLU_SUFFIXES = (".conllu", ".conllu.gz", ".conll", ".conll.gz")

#: Reason keys counted under ``--on-invalid skip`` (one line skipped each). A word list that
#: mixes lines with and without counts (``mixed-format``) is a whole-file problem: it raises.
REASONS: dict[str, str] = {
    "bad-column-count": "a CoNLL-U line without a tab, or a list line with more than 2 columns",
    "empty-field": "an empty word (list) or FORM column (CoNLL-U)",
    "bad-count": "a list's count is not a non-negative integer",
    "bad-encoding": "a line is not valid UTF-8",
    "control-character": "a line holds a C0 control character other than tab (NUL, ESC, ...)",
}


def _raise_policy(policy: InvalidPolicy | None) -> InvalidPolicy:
    return policy if policy is not None else InvalidPolicy("raise")


@dataclass
class FrequencyList:
    """Counts per lexical key; rank 1 = most frequent (ties broken by key, so ranks are stable).

    ``frequent_rank`` is the rank up to which a word counts as *frequent*; ``None`` means every
    word in the list is frequent and every word outside it rare (the right reading for small
    lists such as the UD samples, where presence is already a strong signal)."""

    counts: dict[str, int]
    sources: list[str] = field(default_factory=list)
    checksums: dict[str, str] = field(default_factory=dict)
    frequent_rank: int | None = None
    _ranks: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._ranks:
            order = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
            self._ranks = {key: i for i, (key, _) in enumerate(order, 1)}

    def __len__(self) -> int:
        return len(self.counts)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and lexical_key(word) in self.counts

    def count(self, word: str) -> int:
        return self.counts.get(lexical_key(word), 0)

    def rank(self, word: str) -> int | None:
        return self._ranks.get(lexical_key(word))

    def is_frequent(self, word: str) -> bool:
        rank = self.rank(word)
        if rank is None:
            return False
        return self.frequent_rank is None or rank <= self.frequent_rank

    def vocabulary(self) -> set[str]:
        """All keys (used to filter pseudowords against real words)."""
        return set(self.counts)

    @classmethod
    def from_counts(
        cls, counts: Counter[str] | dict[str, int], frequent_rank: int | None = None
    ) -> FrequencyList:
        merged: Counter[str] = Counter()
        for word, n in counts.items():
            merged[lexical_key(word)] += n
        return cls(dict(merged), frequent_rank=frequent_rank)


def conllu_files(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """CoNLL-U files of the given files and treebank folders (sorted, so counts are stable)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(
                sorted(
                    p for p in path.rglob("*") if p.is_file() and p.name.endswith(_CONLLU_SUFFIXES)
                )
            )
        elif path.is_file():
            out.append(path)
        else:
            raise InputError(path, None, "no such file or folder", "missing-file")
    return out


def count_conllu_forms(
    path: Path, counts: Counter[str], policy: InvalidPolicy | None = None
) -> None:
    """Add the forms of one CoNLL-U file to ``counts``.

    Counted: every syntactic word (integer id) and the surface form of every multiword token
    (Spanish *del* is a word a reader sees); empty nodes (``8.1``) are not words of the text.
    A plain line reader: frequency counting needs only columns 1-2, and a full parse would
    reject whole files for tree errors that do not affect counts. A malformed line goes to
    ``policy`` (default: raise); skipped, only that line's form is not counted."""
    reject = _raise_policy(policy).reject
    words = 0
    for number, line in numbered_lines(path):
        if not line or line.startswith("#"):
            continue
        words += 1
        tab = line.find("\t")
        if tab < 0:
            if isinstance(line, BadLine):
                reject(bad_encoding(path, number, line))
            else:
                reject(
                    InputError(
                        path, number, "expected tab-separated CoNLL-U columns", "bad-column-count"
                    )
                )
            continue
        ident = line[:tab]
        if "." in ident:
            continue
        end = line.find("\t", tab + 1)
        form = line[tab + 1 : end if end >= 0 else None]
        if not form:
            reject(InputError(path, number, "empty FORM column", "empty-field"))
            continue
        counts[lexical_key(form)] += 1
    if not words:
        raise no_entries(path, "no token lines")


def from_conllu(
    paths: str | Path | Iterable[str | Path],
    frequent_rank: int | None = None,
    policy: InvalidPolicy | None = None,
) -> FrequencyList:
    """Frequencies of forms in UD treebanks (files, ``.gz`` files or treebank folders)."""
    files = conllu_files(paths)
    if not files:
        raise InputError(str(paths), None, "no CoNLL-U files found", "no-input")
    counts: Counter[str] = Counter()
    for path in files:
        count_conllu_forms(path, counts, policy)
    return FrequencyList(
        dict(counts),
        sources=[str(p) for p in files],
        checksums={str(p): file_sha256(str(p)) for p in files},
        frequent_rank=frequent_rank,
    )


def from_word_list(
    path: str | Path, frequent_rank: int | None = None, policy: InvalidPolicy | None = None
) -> FrequencyList:
    """A word-per-line list (most frequent first; the count becomes ``n - line index`` so that
    ranks follow the file's order) or a ``word TAB count`` file (detected per line: a second
    column must be a non-negative integer). A malformed line goes to ``policy`` (default:
    raise); skipped, it takes no rank."""
    path = Path(path)
    own = _raise_policy(policy)
    reject = own.reject
    before = sum(own.skipped.values())
    rows: list[tuple[str, int | None]] = []
    for number, line in numbered_lines(path):
        if isinstance(line, BadLine):
            reject(bad_encoding(path, number, line))
            continue
        if not line.strip():
            continue
        cols = line.split("\t")
        word = cols[0].strip()
        if not word:
            reject(InputError(path, number, "empty word", "empty-field"))
            continue
        if len(cols) == 1:
            rows.append((word, None))
        elif len(cols) == 2:
            try:
                n = int(cols[1].strip())
            except ValueError:
                reject(
                    InputError(path, number, f"count is not an integer: {cols[1]!r}", "bad-count")
                )
                continue
            if n < 0:
                reject(InputError(path, number, f"negative count {n}", "bad-count"))
                continue
            rows.append((word, n))
        else:
            reject(
                InputError(
                    path,
                    number,
                    f"expected 'word' or 'word<TAB>count', found {len(cols)} columns",
                    "bad-column-count",
                )
            )
    if not rows:
        raise no_entries(path, refused=refused_since(own, before))
    with_counts = sum(1 for _, n in rows if n is not None)
    if with_counts and with_counts != len(rows):
        raise InputError(path, None, "mixes lines with and without counts", "mixed-format")
    counts: Counter[str] = Counter()
    total = len(rows)
    for i, (word, n) in enumerate(rows):
        key = lexical_key(word)
        if n is None:
            counts[key] = max(counts[key], total - i)  # first (highest) occurrence wins
        else:
            counts[key] += n
    return FrequencyList(
        dict(counts),
        sources=[str(path)],
        checksums={str(path): file_sha256(str(path))},
        frequent_rank=frequent_rank,
    )


def is_wiki_dump(path: Path) -> bool:
    """Whether ``path`` is a MediaWiki XML dump (any compression, any encoding): its
    decompressed start holds ``<mediawiki``."""
    from polyprobe.loaders.inputs import open_binary

    if not path.is_file():
        return False
    try:
        with open_binary(path) as stream:
            head = stream.read(4096)
    except (InputError, OSError, EOFError):
        return False
    for encoding in ("utf-8", "utf-16"):
        try:
            if "<mediawiki" in head.decode(encoding, errors="ignore"):
                return True
        except UnicodeDecodeError:
            continue
    return False


def from_dump(
    path: str | Path, frequent_rank: int | None = None, lang: str | None = None
) -> FrequencyList:
    """Token counts of a MediaWiki dump's running text: articles cleaned and split as
    ``build wiki`` does (:mod:`polyprobe.loaders.wikisource`; sentences with a template hole
    left out), tokens of ``lang`` (default: the language the dump declares) counted by lexical
    key, punctuation-only tokens left out. Counting a large dump takes as long as reading it
    for a build: write the counts once with ``polyprobe frequencies DUMP --out words.tsv`` and
    pass that word list."""
    import unicodedata

    from polyprobe.loaders.segmentation import Segmenter
    from polyprobe.loaders.wikisource import WikiDumpSource

    path = Path(path)
    probe = WikiDumpSource(path, Segmenter("xx", tokenizer="segtok"))
    if lang is None:
        declared_langs = probe.languages
        lang = declared_langs[0].tag if declared_langs else "xx"
    segmenter = Segmenter(lang)
    counts: Counter[str] = Counter()
    for doc in WikiDumpSource(path, segmenter).documents():
        for sentence in doc.kept():
            for form, _ in segmenter.tokens(sentence.text):
                if all(unicodedata.category(c)[0] == "P" for c in form):
                    continue
                counts[lexical_key(form)] += 1
    return FrequencyList(
        dict(counts),
        sources=[str(path)],
        checksums={str(path): file_sha256(str(path))},
        frequent_rank=frequent_rank,
    )


def load_frequencies(
    paths: str | Path | Iterable[str | Path],
    frequent_rank: int | None = None,
    policy: InvalidPolicy | None = None,
) -> FrequencyList:
    """One entry point for the CLI's ``--frequencies``: CoNLL-U files/folders are counted, a
    MediaWiki dump's running text is counted (:func:`from_dump`), any other single file is
    read as a word list."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if len(paths) == 1 and is_wiki_dump(paths[0]):
        return from_dump(paths[0], frequent_rank)
    if len(paths) == 1 and paths[0].is_file() and not _is_conllu(paths[0]):
        return from_word_list(paths[0], frequent_rank, policy)
    return from_conllu(paths, frequent_rank, policy)


def _is_conllu(path: Path) -> bool:
    return path.name.endswith(_CONLLU_SUFFIXES)


@dataclass
class FrequencySource:
    """One ``--frequencies`` path as a build source: a UD folder or CoNLL-U file (forms are
    counted, kind ``frequency-ud``) or a word list (kind ``frequency-list``).

    Why a source per path: each path has its own licence and version, and the card lists each
    with its files. ``files`` are named relative to the folder (a file given alone: by its
    name), in the order they are counted; the card prints them so. Records are ``(lexical
    key, count)`` pairs, most frequent first (ties by key); :meth:`frequency_list` gives the
    whole list, which is what a build usually wants."""

    path: Path
    license: str = "unknown"
    version: str = "unknown"
    files: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if not self.files:
            self.files = self._describe_files()

    @classmethod
    def from_path(
        cls,
        path: str | Path,
        *,
        license_override: str | None = None,
        source_version: str | None = None,
    ) -> FrequencySource:
        """Licence and version from the path's folder, as for a treebank folder."""
        lic, version = treebank_metadata(
            path, license_override=license_override, source_version=source_version
        )
        return cls(Path(path), lic, version)

    @property
    def is_ud(self) -> bool:
        return self.path.is_dir() or _is_conllu(self.path)

    @property
    def is_dump(self) -> bool:
        return not self.is_ud and is_wiki_dump(self.path)

    @property
    def languages(self) -> tuple[DeclaredLanguage, ...]:
        """What a treebank path declares (UD file names, README), or a dump (its
        ``xml:lang``); a word list: nothing."""
        if self.is_dump:
            from polyprobe.loaders.segmentation import Segmenter
            from polyprobe.loaders.wikisource import WikiDumpSource

            return WikiDumpSource(self.path, Segmenter("xx", tokenizer="segtok")).languages
        if not self.is_ud:
            return ()
        folder = self.path if self.path.is_dir() else None
        return treebank_languages(folder, conllu_files([self.path]))

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            kind="frequency-ud"
            if self.is_ud
            else ("frequency-wikipedia" if self.is_dump else "frequency-list"),
            name=self.path.name,
            version=self.version,
            license=self.license,
            files=[dict(f) for f in self.files],
            # a treebank folder's own citation; a CoNLL-U file's folder is its treebank
            citation=readme_citation(self.path if self.path.is_dir() else self.path.parent)
            if self.is_ud
            else "",
            role="reference",  # it decides which forms count as frequent; no row comes from it
        )

    def _describe_files(self) -> list[dict[str, str]]:
        path = self.path
        if not self.is_ud:
            return file_entries([(path.name, path)])  # checks the path
        files = conllu_files([path])
        if not files:
            raise InputError(str(path), None, "no CoNLL-U files found", "no-input")
        return file_entries(
            [(f.relative_to(path).as_posix() if path.is_dir() else f.name, f) for f in files]
        )

    def frequency_list(
        self, policy: InvalidPolicy, frequent_rank: int | None = None
    ) -> FrequencyList:
        if self.is_ud:
            return from_conllu([self.path], frequent_rank, policy)
        if self.is_dump:
            return from_dump(self.path, frequent_rank)
        return from_word_list(self.path, frequent_rank, policy)

    def records(self, policy: InvalidPolicy) -> Iterator[tuple[str, int]]:
        counts = self.frequency_list(policy).counts
        return iter(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
