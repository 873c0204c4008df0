"""The provenance ``polyprobe translate`` writes beside its output (``FILE.json``), read back
by the families that build from a translation (``build trec --translation``, ``build
parallel`` with a translated TSV): one reader, so both cards say the same about a
translation."""

from __future__ import annotations

import json
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.translations import TranslationProvenance

__all__ = ["provenance_from_sidecar"]


def provenance_from_sidecar(path: Path) -> TranslationProvenance | None:
    """The provenance ``polyprobe translate`` wrote beside its output (``FILE.json``), or
    None when there is none (then the card says the system is unknown)."""
    sidecar = path.with_name(path.name + ".json")
    if not sidecar.is_file():
        return None
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
        return TranslationProvenance(
            sample_creation=str(meta.get("sample_creation", "machine-translated")),
            system=str(meta.get("system", "unknown")),
            version=str(meta.get("version", "unknown")),
            date=str(meta.get("date", "unknown")),
            source_language=str(meta.get("source_language", "en")),
            extra={"translator_id": str(meta.get("translator_id", ""))},
        )
    except (ValueError, TypeError, AttributeError) as exc:
        problem = f"not a translation provenance file ({exc})"
        raise InputError(sidecar, None, problem, "bad-json") from None
