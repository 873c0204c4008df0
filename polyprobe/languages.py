"""Language codes: ``--lang`` takes ISO 639-1 or 639-3; cards use 639-1 where it exists (the
Hugging Face convention) and 639-3 otherwise."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from polyprobe.errors import UsageError


@dataclass(frozen=True)
class Language:
    code: str  # what the card's ``language`` field gets: 639-1 if any, else 639-3
    iso639_3: str
    name: str


def resolve_language(code: str) -> Language:
    raw = code.strip().lower()
    table = _iso639_3()
    found = None
    if len(raw) == 2:
        found = table.alpha_2.get(raw)
    elif len(raw) == 3:
        found = table.alpha_3.get(raw) or table.bibliographic.get(raw)
    if found is None:
        raise UsageError(
            f"--lang {code!r}: not an ISO 639-1 (two letters, e.g. 'en') or ISO 639-3 "
            "(three letters, e.g. 'eng') language code"
        )
    alpha_2 = found.get("alpha_2")
    return Language(code=alpha_2 or found["alpha_3"], iso639_3=found["alpha_3"], name=found["name"])


@dataclass(frozen=True)
class _Table:
    alpha_2: dict[str, dict[str, str]]
    alpha_3: dict[str, dict[str, str]]
    # ISO 639-2/B codes such as 'ger', 'geo' still appear in the wild
    bibliographic: dict[str, dict[str, str]]


@lru_cache(maxsize=1)
def _iso639_3() -> _Table:
    """pycountry's ISO 639-3 table, indexed by code.

    Why not ``pycountry.languages.get``: its first call builds an object per language (7,900
    of them, each attribute through ``__setattr__``), 0.07 s on the path of every build before
    any work starts; loading the same JSON file takes 8 ms. ``tests/test_languages.py``
    checks every code against pycountry's own lookup."""
    spec = importlib.util.find_spec("pycountry")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    path = next(
        (p for p in (Path(f) / "databases" / "iso639-3.json" for f in folders) if p.is_file()),
        None,
    )
    if path is None:  # not where pycountry keeps it: ask pycountry itself
        import pycountry

        path = Path(pycountry.DATABASE_DIR) / "iso639-3.json"
    with open(path, encoding="utf-8") as fh:
        entries: list[dict[str, str]] = json.load(fh)["639-3"]
    index: dict[str, dict[str, dict[str, str]]] = {
        "alpha_2": {},
        "alpha_3": {},
        "bibliographic": {},
    }
    for entry in entries:
        for field, codes in index.items():
            value = entry.get(field)
            if value:
                codes.setdefault(value.lower(), entry)
    return _Table(**index)
