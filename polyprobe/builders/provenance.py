"""Provenance, once for every family: the card's licence (and the NonCommercial/ShareAlike
mixing rule), the fingerprint that names a build, and the release check against a previous
release.

Why one module: a dataset is only reproducible and citable if every family records its
inputs, recipes and parameters the same way; the fingerprint is the promise that the same
fingerprint means the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from polyprobe.hashing import digest
from polyprobe.licenses import resolve_card_license
from polyprobe.metadata import SourceInfo
from polyprobe.version import __version__


def card_license(sources: Sequence[SourceInfo], allow_mix: bool) -> tuple[str, bool]:
    """The card's licence id (one id when every source of rows agrees, else ``other``) and
    whether NonCommercial and ShareAlike sources were mixed (refused unless ``allow_mix``).
    Reference sources (frequency lists) inform choices but give no row: their licences are
    listed in the card, not applied to the rows."""
    rows = {s.name: s.license for s in sources if s.role == "rows"}
    return resolve_card_license(rows, allow_mix=allow_mix)


def fingerprint(
    sources: Sequence[SourceInfo],
    recipes: Sequence[dict[str, Any]],
    parameters: dict[str, Any],
    profile: dict[str, Any],
) -> str:
    """Hash of the inputs (every file's checksum and licence), the recipes (name, version and
    parameters of every task), the build parameters, the derived profile and polyprobe's
    version."""
    payload = {
        "polyprobe": __version__,
        "inputs": [{"source": s.name, "files": s.files, "license": s.license} for s in sources],
        "tasks": list(recipes),
        "parameters": parameters,
        "profile": profile,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return digest(blob, size=16).hex()
