"""Where the benchmarks find the shared data: ``$POLYPROBE_DATA``, else ``../shared/data``
beside the checkout (the tests' rule, in one place for every ``bench/*.py``)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def data_root() -> Path:
    return Path(os.environ.get("POLYPROBE_DATA", REPO.parent / "shared" / "data"))
