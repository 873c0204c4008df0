"""What every input source has in common: the shared ``--on-invalid`` policy, and the
:class:`Source` protocol that treebanks, lexicons, pseudoword tables, frequency lists and
downstream datasets all satisfy.

Why one protocol: a build reads many kinds of input, and the card must list each one the same
way (kind, name, version, licence, a checksum of every file), while the build needs to stream
its records under one rule for malformed input. With one protocol the build spine can do both
without a special case per kind; each reader keeps its own format knowledge.

Why one policy object: ``--on-invalid skip`` must mean the same in every reader (skip the
smallest unit that holds the problem, count it by a stable reason key, never skip a problem
that concerns a whole file), and the counts of all sources of a build end up in one card.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import check_file
from polyprobe.metadata import SourceInfo

__all__ = [
    "FATAL_REASONS",
    "ON_INVALID",
    "InvalidPolicy",
    "Source",
    "file_entries",
]

#: The values of ``--on-invalid``.
ON_INVALID: tuple[str, ...] = ("raise", "skip")

#: Reasons of errors that are always raised, never skipped: they are about a whole file (or the
#: whole input), so there is no smaller unit to drop and skipping would silently lose a source.
#: Reason keys are shared by every reader, so a key here must never name a per-item problem.
FATAL_REASONS: dict[str, str] = {
    "missing-file": "an input path does not exist or is not a regular file (a folder, a pipe)",
    "unreadable": "an input file cannot be opened or read (permissions, disk error)",
    "no-input": "a folder holds no input files of the expected kind (discover)",
    "duplicate-input": "a folder holds both x.conllu and x.conllu.gz (discover)",
    "changed-input": "the input changed during a build: its passes read different sentences",
    "empty": "a file holds no entries at all (or no header where one is required)",
    "ambiguous-layout": "the column order of a UniMorph file cannot be decided from its lines",
    "wrong-format": "a file is in another family's format (CoNLL-U given to build text, ...)",
    "bad-header": "a table's header is not the one its format requires (Wuggy: Word, Match)",
    "mixed-format": "a word list mixes lines with and without counts",
    "truncated-gzip": "a gzip stream ends before its end marker: the rest of the file is lost",
    "corrupt-gzip": "a gzip stream is damaged or not gzip at all: the rest of the file is lost",
    "truncated-bz2": "a bzip2 stream ends before its end marker: the rest of the file is lost",
    "corrupt-bz2": "a bzip2 stream is damaged: the rest of the file is lost",
    "truncated-xz": "an xz stream ends before its end marker: the rest of the file is lost",
    "corrupt-xz": "an xz stream is damaged: the rest of the file is lost",
    "unclosed-quote": "a quoted CSV field is never closed, or runs on for more than the line "
    "limit: every line after the quote would be read as part of one field",
    "undecodable": "a file is not UTF-8 text at all (UTF-16/32 byte-order mark, another "
    "compressed format, zstd): it has no lines to skip",
    "misaligned": "line-aligned parallel files with different line counts: after a lost or an "
    "extra line no line can be trusted to be a translation of its partner",
    "truncated": "a file is shorter than the distributed file of its name, or ends inside its "
    "last line (TREC's known files)",
}


class InvalidPolicy:
    """What to do with malformed input: ``"raise"`` the first problem, or ``"skip"`` the item
    holding it and count it in :attr:`skipped` (reason -> count).

    Readers call :meth:`reject` with the error they would raise; the policy decides. One
    policy may be passed to every source of a build so that the card gets one tally. A
    ``skipped`` counter may be given so that callers of the older ``skipped=`` arguments keep
    seeing the counts in their own counter."""

    __slots__ = ("mode", "skipped")

    def __init__(self, mode: str = "raise", skipped: collections.Counter[str] | None = None):
        if mode not in ON_INVALID:
            raise UsageError(f"on_invalid must be one of {', '.join(ON_INVALID)}, not {mode!r}")
        self.mode = mode
        self.skipped: collections.Counter[str] = (
            skipped if skipped is not None else collections.Counter()
        )

    @property
    def skip(self) -> bool:
        return self.mode == "skip"

    def reject(self, error: InputError) -> None:
        """Raise ``error`` (mode ``raise``, or a whole-file problem), else count it."""
        if self.mode == "raise" or error.reason in FATAL_REASONS:
            raise error
        self.skipped[error.reason] += 1

    def __repr__(self) -> str:
        return f"InvalidPolicy({self.mode!r}, skipped={dict(self.skipped)!r})"


R_co = TypeVar("R_co", covariant=True)


@runtime_checkable
class Source(Protocol[R_co]):
    """One input of a build: what the card says about it, and its records in a fixed order.

    ``records`` must yield the same records in the same order on every call (ids and groups
    downstream depend on which copy comes first) and must hand every malformed item to
    ``policy.reject``. ``info`` must not depend on reading the records, so a card can be
    written (or a licence mix refused) before any record is read."""

    @property
    def name(self) -> str: ...

    @property
    def info(self) -> SourceInfo: ...

    def records(self, policy: InvalidPolicy) -> Iterator[R_co]: ...


def file_entries(files: Iterable[tuple[str, str | Path]]) -> list[dict[str, str]]:
    """The card's ``files`` list for ``(name as printed, path)`` pairs, in the order given.

    The printed name is the caller's choice (a file name, or a path relative to the source's
    folder) because it is part of the card, whose wording must not change with where the
    data happens to sit on disk."""
    # Imported here: polyprobe.hashing imports numpy, and this module must stay light (the
    # command line reads treebank sizes through loaders.sources before numpy is imported).
    from polyprobe.hashing import file_sha256

    # Checked first: a folder or a missing file given as an input is one clean error naming
    # it (the card is made before any record is read), never an IsADirectoryError.
    return [{"name": name, "sha256": file_sha256(str(check_file(path)))} for name, path in files]
