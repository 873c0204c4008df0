"""Language codes: ``--lang`` takes ISO 639-1 or 639-3; cards use 639-1 where it exists (the
Hugging Face convention) and 639-3 otherwise."""

from __future__ import annotations

from dataclasses import dataclass

from polyprobe.errors import UsageError


@dataclass(frozen=True)
class Language:
    code: str  # what the card's ``language`` field gets: 639-1 if any, else 639-3
    iso639_3: str
    name: str


def resolve_language(code: str) -> Language:
    import pycountry

    raw = code.strip().lower()
    found = None
    if len(raw) == 2:
        found = pycountry.languages.get(alpha_2=raw)
    elif len(raw) == 3:
        found = pycountry.languages.get(alpha_3=raw) or _bibliographic(raw)
    if found is None:
        raise UsageError(
            f"--lang {code!r}: not an ISO 639-1 (two letters, e.g. 'en') or ISO 639-3 "
            "(three letters, e.g. 'eng') language code"
        )
    alpha_2 = getattr(found, "alpha_2", None)
    return Language(code=alpha_2 or found.alpha_3, iso639_3=found.alpha_3, name=found.name)


def _bibliographic(code: str):  # ISO 639-2/B codes such as 'ger', 'geo' still appear in the wild
    import pycountry

    for lang in pycountry.languages:
        if getattr(lang, "bibliographic", None) == code:
            return lang
    return None
