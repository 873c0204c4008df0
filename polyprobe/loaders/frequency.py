"""Word frequency lists: counts and ranks keyed by lexical key (NFC + case-fold).

LINSPECTOR sampled 80% frequent and 20% rare words; this module answers "how frequent is this
form" from whatever the user has: UD treebanks (forms counted), a word-per-line list (already
ranked, most frequent first) or a ``word TAB count`` file. Keys go through
:func:`polyprobe.hashing.lexical_key` so that ``Haus`` in a treebank and ``haus`` in a list meet.
"""

from __future__ import annotations

import gzip
import io
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.hashing import file_sha256, lexical_key

_CONLLU_SUFFIXES = (".conllu", ".conllu.gz", ".conll", ".conll.gz")


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


def _open(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")  # noqa: SIM115 - caller closes


def _numbered(path: Path) -> Iterator[tuple[int, str]]:
    number = 0
    with _open(path) as fh:
        try:
            for number, line in enumerate(fh, 1):  # noqa: B007 - used in the except
                yield number, line.rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise InputError(
                path, number + 1, f"not UTF-8 ({exc.reason})", "bad-encoding"
            ) from None
        except (OSError, EOFError) as exc:
            raise InputError(path, number + 1, f"unreadable ({exc})", "unreadable") from None


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
            raise InputError(path, None, "no such file or folder")
    return out


def count_conllu_forms(path: Path, counts: Counter[str]) -> None:
    """Add the forms of one CoNLL-U file to ``counts``.

    Counted: every syntactic word (integer id) and the surface form of every multiword token
    (Spanish *del* is a word a reader sees); empty nodes (``8.1``) are not words of the text.
    A plain line reader: frequency counting needs only columns 1-2, and a full parse would
    reject whole files for tree errors that do not affect counts."""
    for number, line in _numbered(path):
        if not line or line.startswith("#"):
            continue
        tab = line.find("\t")
        if tab < 0:
            raise InputError(
                path, number, "expected tab-separated CoNLL-U columns", "bad-column-count"
            )
        ident = line[:tab]
        if "." in ident:
            continue
        end = line.find("\t", tab + 1)
        form = line[tab + 1 : end if end >= 0 else None]
        if not form:
            raise InputError(path, number, "empty FORM column", "empty-field")
        counts[lexical_key(form)] += 1


def from_conllu(
    paths: str | Path | Iterable[str | Path], frequent_rank: int | None = None
) -> FrequencyList:
    """Frequencies of forms in UD treebanks (files, ``.gz`` files or treebank folders)."""
    files = conllu_files(paths)
    if not files:
        raise InputError(str(paths), None, "no CoNLL-U files found")
    counts: Counter[str] = Counter()
    for path in files:
        count_conllu_forms(path, counts)
    return FrequencyList(
        dict(counts),
        sources=[str(p) for p in files],
        checksums={str(p): file_sha256(str(p)) for p in files},
        frequent_rank=frequent_rank,
    )


def from_word_list(path: str | Path, frequent_rank: int | None = None) -> FrequencyList:
    """A word-per-line list (most frequent first; the count becomes ``n - line index`` so that
    ranks follow the file's order) or a ``word TAB count`` file (detected per line: a second
    column must be a non-negative integer)."""
    path = Path(path)
    rows: list[tuple[str, int | None]] = []
    for number, line in _numbered(path):
        if not line.strip():
            continue
        cols = line.split("\t")
        word = cols[0].strip()
        if not word:
            raise InputError(path, number, "empty word", "empty-field")
        if len(cols) == 1:
            rows.append((word, None))
        elif len(cols) == 2:
            try:
                n = int(cols[1].strip())
            except ValueError:
                raise InputError(
                    path, number, f"count is not an integer: {cols[1]!r}", "bad-count"
                ) from None
            if n < 0:
                raise InputError(path, number, f"negative count {n}", "bad-count")
            rows.append((word, n))
        else:
            raise InputError(
                path,
                number,
                f"expected 'word' or 'word<TAB>count', found {len(cols)} columns",
                "bad-column-count",
            )
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


def load_frequencies(
    paths: str | Path | Iterable[str | Path], frequent_rank: int | None = None
) -> FrequencyList:
    """One entry point for the CLI's ``--frequencies``: CoNLL-U files/folders are counted, any
    other single file is read as a word list."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if len(paths) == 1 and paths[0].is_file() and not paths[0].name.endswith(_CONLLU_SUFFIXES):
        return from_word_list(paths[0], frequent_rank)
    return from_conllu(paths, frequent_rank)
