"""One error family so the CLI can map every failure to an exit code and a one-line message."""

from __future__ import annotations

from pathlib import Path


class PolyprobeError(Exception):
    """Base class: anything polyprobe raises on purpose. The CLI prints it and exits 2."""

    exit_code = 2


class UsageError(PolyprobeError):
    """The user asked for something inconsistent (bad option value, conflicting flags)."""


class InputError(PolyprobeError):
    """Malformed input. Names the file, the line and the problem so the user can fix the source.

    ``reason`` is a short stable key (e.g. ``"bad-column-count"``) used to count skipped items
    by cause when the user chose ``--on-invalid skip``.
    """

    def __init__(self, path: str | Path, line: int | None, problem: str, reason: str = "invalid"):
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str, str]]:
        # Rebuilt from its fields when it crosses a process boundary (``--jobs``): the
        # default pickling would call ``InputError(message)``.
        return (type(self), (self.path, self.line, self.problem, self.reason))


class LicenseMixError(PolyprobeError):
    """Sources whose licences may not be merged into one config without explicit consent."""


class InfeasibleError(PolyprobeError):
    """A requested build cannot produce anything usable (e.g. no task feasible)."""


class JobsPending(PolyprobeError):
    """The work was handed to a cluster and is not finished yet: not a failure. The CLI
    prints what to do next (rerun once the jobs are done) and exits 0."""

    exit_code = 0


class DatasetFolderError(PolyprobeError, ValueError):
    """A dataset folder that no command reads or publishes (``polyprobe.cards.boundary``):
    one line naming the folder, the file and why. A ``ValueError`` for callers of
    ``polyprobe.load`` that catch the standard classes; the subclasses below add the standard
    class of their case."""


class FolderNotFoundError(DatasetFolderError, FileNotFoundError):
    """The path given as a dataset folder does not exist."""


class NotAFolderError(DatasetFolderError, NotADirectoryError):
    """The path given as a dataset folder is a file (or something else that is no folder)."""


class CardNotFoundError(DatasetFolderError, FileNotFoundError):
    """The folder has no ``README.md`` card."""


class CardError(DatasetFolderError):
    """The card cannot be read as one: no front matter, bad YAML, or over a card limit."""


class OutsideFolderError(DatasetFolderError):
    """The folder reaches outside itself: a data file path out of it, or a symbolic link."""


class DataFileError(DatasetFolderError):
    """A data file the card names is missing, not a regular file, or not a readable parquet."""
