"""Provenance, once for every family: the sources' declared languages against ``--lang``,
the ``--license`` overrides, the card's licence (and the NonCommercial/ShareAlike mixing
rule) and the fingerprint that names a build.

Why one module: a dataset is only reproducible and citable if every family records its
inputs, recipes and parameters the same way; the fingerprint is the promise that the same
fingerprint means the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from polyprobe.errors import UsageError
from polyprobe.hashing import digest
from polyprobe.languages import Language
from polyprobe.licenses import (
    documented_license,
    resolve_card_license,
    unknown_license_warning,
)
from polyprobe.loaders.declared import DeclaredLanguage
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


def licensed(infos: Sequence[SourceInfo], overrides: Mapping[str, str]) -> list[SourceInfo]:
    """The sources with ``--license SRC=ID`` applied by source name (``*``: every source
    without its own; ids normalised, ``CC BY-SA 4.0`` -> ``CC-BY-SA-4.0``); a name that is no
    source is an error, so a typo never leaves a wrong licence in a card."""
    from polyprobe.loaders.sources import normalize_license

    names = {i.name for i in infos}
    unknown = sorted(set(overrides) - names - {"*"})
    if unknown:
        raise UsageError(
            f"--license names no source: {', '.join(unknown)}; the sources are "
            + ", ".join(sorted(names))
        )
    for info in infos:
        chosen = overrides.get(info.name, overrides.get("*"))
        if chosen is not None:
            info.license = normalize_license(chosen)
        elif info.license == "unknown":
            documented = documented_license(info.kind)
            if documented is not None:
                info.license, info.license_basis = documented
    return list(infos)


def warn_unknown_licenses(infos: Sequence[SourceInfo]) -> list[str]:
    """A warning for every source of rows whose licence is still unknown (no file states
    one, none is documented, no ``--license``), printed while the command shows its
    progress; the warnings, for the caller. The spine calls it once the folder is in place,
    so a build that fails says one thing: its error."""
    from polyprobe import progress

    said = [
        unknown_license_warning(i.name, i.kind)
        for i in infos
        if i.role == "rows" and i.license == "unknown"
    ]
    for line in said:
        progress.say(line)
    return said


def check_languages(
    lang: str,
    language: Language,
    declared: Sequence[tuple[str, Sequence[DeclaredLanguage]]],
    allow: bool,
) -> dict[str, list[str]]:
    """``--lang`` against what the sources declare (``(source name, languages)`` pairs).

    Refused with a :class:`UsageError` naming the sources and their languages: a source
    declaring another language than ``--lang``, which also covers a mix of languages across
    sources (at most one of them can be ``--lang``). With ``allow`` (``--allow-language-
    mismatch``) the build goes on and the mismatch is returned, ``{source: [codes]}``, for
    the card. Sources that declare nothing are not guessed at."""
    wrong = {name: [d for d in langs if d.code != language.iso639_3] for name, langs in declared}
    wrong = {name: langs for name, langs in wrong.items() if langs}
    if not wrong:
        return {}
    if allow:
        return {name: [d.tag for d in langs] for name, langs in wrong.items()}
    said = [(name, langs) for name, langs in declared if langs]
    codes = {d.code for _, langs in said for d in langs}
    listing = "; ".join(f"{name}: {', '.join(d.describe() for d in langs)}" for name, langs in said)
    if len(codes) > 1:
        raise UsageError(
            f"the sources are in different languages ({listing}) and --lang {lang} is "
            f"{language.name}; build one language per dataset, or pass "
            "--allow-language-mismatch to merge them anyway (recorded in the card)"
        )
    (only,) = {d.tag: d for _, langs in said for d in langs}.values()
    raise UsageError(
        f"--lang {lang} is {language.name}, but the sources say {only.name} ({listing}); "
        f"use --lang {only.tag}, or pass --allow-language-mismatch to build anyway "
        "(recorded in the card)"
    )
