"""Where a command writes a folder (``evaluate``, ``report``, ``correlate``, ``export``,
``catalog``): checked before any work, so a file given where a folder belongs is one line
naming it, not an operating-system error from deep inside once the work is done."""

from __future__ import annotations

from pathlib import Path

from polyprobe.errors import UsageError


def output_folder(path: str | Path, flag: str = "--out") -> Path:
    """``path``, once it is known that it is, or can become, a folder: neither it nor any
    existing folder above it is a file (a link to a folder counts as a folder)."""
    out = Path(path)
    for part in (out, *out.parents):
        if not (part.exists() or part.is_symlink()):
            continue
        if part.is_dir():
            return out
        where = "is a file" if part == out else f"is inside {part}, a file"
        raise UsageError(f"{flag} {out}: {where}, not a folder (give a folder to write into)")
    return out
