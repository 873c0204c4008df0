"""Where the benchmarks find the shared data: ``$POLYPROBE_DATA``, else ``../shared/data``
beside the checkout (the tests' rule, in one place for every ``bench/*.py``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def data_root() -> Path:
    return Path(os.environ.get("POLYPROBE_DATA", REPO.parent / "shared" / "data"))


def arguments() -> argparse.ArgumentParser:
    """The benchmarks' common options: ``--data`` (default :func:`data_root`)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=data_root(), help="the shared data folder")
    return ap


def treebank_arguments() -> argparse.ArgumentParser:
    """:func:`arguments` plus the treebank to build (``--treebank``, ``--lang``: EWT)."""
    ap = arguments()
    ap.add_argument("--treebank", default="UD_English-EWT")
    ap.add_argument("--lang", default="en")
    return ap
