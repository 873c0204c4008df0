"""How a build says its texts are translations: the options every family with translated
input shares (``--sample-creation``, ``--translator``, ``--translator-version``,
``--translation-date``) and the provenance ``polyprobe translate`` writes beside its output.
The card records the provenance and every row's ``sample_creation``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polyprobe.builders.options import option
from polyprobe.errors import InputError
from polyprobe.loaders.translations import TranslationProvenance

TRANSLATED = ("human-translated", "machine-translated")


@dataclass(frozen=True, kw_only=True)
class TranslationOptions:
    """A Config mixin. A family gives ``sample_creation`` its own default."""

    sample_creation: str | None = option(
        None,
        help="how the translated texts were made: every row's sample_creation column and "
        "the card say it",
        choices=(None, *TRANSLATED),
    )
    translator: str = option("unknown", help="translation system, for the card")
    translator_version: str = option("unknown", help="its version, for the card")
    translation_date: str = option("unknown", help="when it was made, for the card")

    @property
    def translator_given(self) -> bool:
        details = (self.translator, self.translator_version, self.translation_date)
        return details != ("unknown",) * 3


def provenance_from_sidecar(path: Path) -> TranslationProvenance | None:
    """The provenance ``polyprobe translate`` wrote beside its output (``FILE.json``), or
    None when there is none (then the card says the system is unknown)."""
    import json

    from polyprobe.loaders.inputs import read_text

    if not path.name:  # '', '.', '/': a folder, and no sidecar can be named beside it
        raise InputError(path, None, "is a folder, not a file", "not-a-file")
    sidecar = path.with_name(path.name + ".json")
    if not sidecar.is_file():
        return None
    try:
        meta = json.loads(read_text(sidecar, "translation provenance"))
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
