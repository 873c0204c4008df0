"""Former home of the block-decoded UTF-8 lines, now :mod:`polyprobe.loaders.inputs` (the one
input layer every reader opens its files through). These names stay importable for code
outside the loaders that still uses them (``builders/text/agreement.py`` and
``builders/word/syncretism.py`` import :func:`numbered_lines` from here); new code imports
from :mod:`polyprobe.loaders.inputs`. Nothing is implemented here."""

from __future__ import annotations

from polyprobe.loaders.inputs import (
    BLOCK,
    CONTROL_BYTES,
    BadLine,
    bad_encoding,
    control_problem,
    has_control,
    line_blocks,
    mark_controls,
    not_text,
    numbered_lines,
)

__all__ = [
    "BLOCK",
    "CONTROL_BYTES",
    "BadLine",
    "bad_encoding",
    "control_problem",
    "has_control",
    "line_blocks",
    "mark_controls",
    "not_text",
    "numbered_lines",
]
