"""Keeping pandas out of the processes that build datasets.

Why: pyarrow imports pandas, when it is installed, the first time it converts anything (to ask
whether the object is a pandas one). That import costs 0.13-0.17 s per process, on the
critical path of the command and of every build worker, and no build step uses pandas. In the
processes polyprobe owns for a build (``polyprobe build ud`` and its workers) pandas is hidden
from the import system before pyarrow first looks, and pyarrow takes its no-pandas path, which
writes the same bytes (``tests/test_build_jobs.py`` compares a command-line build with an
in-process one that has pandas). Library callers of ``build_ud`` keep pandas: nothing here runs
in their process.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


class _PandasHidden:
    """A meta path finder that answers every ``pandas`` import with ModuleNotFoundError."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(
                f"No module named {name!r}: pandas is hidden in polyprobe build processes "
                "(see polyprobe.builders.pandas_hidden)",
                name=name,
            )
        return None


def hide_pandas() -> bool:
    """Hide pandas from this process's imports from now on, unless it is already imported
    (then nothing changes). Returns whether it is hidden."""
    if "pandas" in sys.modules:
        return False
    if not any(isinstance(f, _PandasHidden) for f in sys.meta_path):
        sys.meta_path.insert(0, _PandasHidden())
    return True
