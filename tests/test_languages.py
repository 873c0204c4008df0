"""``--lang`` resolution: our index of pycountry's ISO 639-3 table answers exactly what
pycountry's own lookup answers, for every code it knows."""

from __future__ import annotations

import pycountry
import pytest

from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language


def _pycountry_resolve(code: str) -> Language | None:
    raw = code.strip().lower()
    found = None
    if len(raw) == 2:
        found = pycountry.languages.get(alpha_2=raw)
    elif len(raw) == 3:
        found = pycountry.languages.get(alpha_3=raw)
        if found is None:
            found = next(
                (x for x in pycountry.languages if getattr(x, "bibliographic", None) == raw),
                None,
            )
    if found is None:
        return None
    alpha_2 = getattr(found, "alpha_2", None)
    return Language(code=alpha_2 or found.alpha_3, iso639_3=found.alpha_3, name=found.name)


def test_every_code_resolves_as_pycountry_does() -> None:
    codes = set()
    for lang in pycountry.languages:
        for field in ("alpha_2", "alpha_3", "bibliographic"):
            value = getattr(lang, field, None)
            if value:
                codes.update({value, value.upper()})
    assert len(codes) > 15000
    for code in sorted(codes):
        assert resolve_language(code) == _pycountry_resolve(code), code


@pytest.mark.parametrize("code", ["", "e", "xx", "zzz", "engl", "en-US"])
def test_unknown_codes_are_refused_with_a_clear_message(code: str) -> None:
    assert _pycountry_resolve(code) is None
    with pytest.raises(UsageError, match="not an ISO 639-1 .* or ISO 639-3"):
        resolve_language(code)


def test_card_codes() -> None:
    assert resolve_language(" EN ") == Language("en", "eng", "English")
    assert resolve_language("ger") == Language("de", "deu", "German")  # 639-2/B
    assert resolve_language("hsb").code == "hsb"  # no 639-1 code: 639-3 on the card
