"""The language a source says it is in, read from what the source itself states: UD file names
(``en_ewt-ud-train.conllu``), a treebank README's ``Language:`` line, UniMorph and SIGMORPHON
file names (``german-train-high``, ``deu.trn``, ``eng``).

Why: ``--lang`` decides the card's ``language``, the language profile and every
language-specific choice of a build, and nothing used to check it, so English and German
treebanks merged into one "English" dataset, and ``--lang de`` on EWT built a "German" one. The
sources know better. This module only reads what they declare (a source that declares nothing
is not guessed at); the build compares it with ``--lang`` the same way for every family
(:func:`polyprobe.builders.provenance.check_languages`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import UsageError
from polyprobe.languages import resolve_language
from polyprobe.loaders.inputs import read_note

__all__ = [
    "TREC_LANGUAGE",
    "DeclaredLanguage",
    "declared",
    "language_named",
    "lexicon_languages",
    "readme_languages",
    "treebank_languages",
]


@dataclass(frozen=True)
class DeclaredLanguage:
    """One language a source declares: ``code`` is ISO 639-3 (what comparisons use, so that
    ``de`` and ``deu`` agree), ``tag`` the form cards and ``--lang`` use (639-1 if any),
    ``evidence`` where the source says so (printed when it disagrees with ``--lang``)."""

    code: str
    tag: str
    name: str
    evidence: str

    def describe(self) -> str:
        return f"{self.name} ({self.tag}; {self.evidence})"


def declared(code: str, evidence: str) -> DeclaredLanguage | None:
    """The language of an ISO 639-1/639-3 code, or ``None`` for a code that is none (UD's
    private-use ``qtd``, ``qfn``: a source naming no real language declares nothing)."""
    try:
        found = resolve_language(code)
    except UsageError:
        return None
    return DeclaredLanguage(found.iso639_3, found.code, found.name, evidence)


# Names whose ISO 639-3 name is spelt otherwise (SIGMORPHON 2017/2018 file names, UD folder
# and README spellings); every other name is looked up among the ISO 639-3 names.
_NAME_CODES: dict[str, str] = {
    "ancient greek": "grc",
    "azeri": "aze",
    "greek": "ell",
    "greenlandic": "kal",
    "kurmanji": "kmr",
    "livonian": "liv",
    "middle french": "frm",
    "middle high german": "gmh",
    "murrinhpatha": "mwf",
    "norman": "nrf",
    "north sami": "sme",
    "norwegian bokmaal": "nob",
    "occitan": "oci",
    "old armenian": "xcl",
    "old church slavonic": "chu",
    "old east slavic": "orv",
    "old english": "ang",
    "old french": "fro",
    "old irish": "sga",
    "pashto": "pus",
    "serbo croatian": "hbs",
    "slovene": "slv",
    "sorani": "ckb",
    "swahili": "swa",
    "west frisian": "fry",
}


def _by_name(name: str, evidence: str) -> DeclaredLanguage | None:
    """The language of a name (``German``, ``scottish-gaelic``) or of a code written where a
    name is expected; ``None`` if it is neither."""
    key = re.sub(r"[\s_-]+", " ", name.strip().lower())
    if not key:
        return None
    if key in _NAME_CODES:
        return declared(_NAME_CODES[key], evidence)
    if re.fullmatch(r"[a-z]{2,3}", key):
        return declared(key, evidence)
    import pycountry  # only for a name: its table costs 40 ms to build

    found = pycountry.languages.get(name=key)
    return declared(found.alpha_3, evidence) if found is not None else None


def language_named(name: str, evidence: str) -> DeclaredLanguage | None:
    """The language a resource's *name* spells out (``Finnish``, ``north_sami``: a UD folder,
    a Wuggy file, a SIGMORPHON 2018 file), as the declarations here read names; ``None``
    when it names none (``suite init`` finds resources by such names)."""
    return _by_name(name, evidence)


def _unique(found: Iterable[DeclaredLanguage | None]) -> tuple[DeclaredLanguage, ...]:
    """Each language once (its first evidence), in the order found."""
    out: dict[str, DeclaredLanguage] = {}
    for d in found:
        if d is not None:
            out.setdefault(d.code, d)
    return tuple(out.values())


# --------------------------------------------------------------------------- treebanks

_UD_FILE = re.compile(r"^([a-z]{2,3})_([A-Za-z0-9]+)-ud-")
_README_NAMES = ("README.md", "README.txt", "README")
_README_LANGUAGE = re.compile(r"^\s*\**\s*Languages?\s*\**\s*:\s*\**\s*(.+?)\s*$", re.IGNORECASE)


def readme_languages(folder: Path) -> tuple[DeclaredLanguage, ...]:
    """The languages of a README's ``Language:`` line (the last one, as for ``License:``:
    UD's metadata block comes last), names or codes separated by commas, ``and`` or ``/``.
    A BibTeX ``Language = {...}`` field is about the cited paper, not the data: not read."""
    for name in _README_NAMES:
        text = read_note(folder / name)
        if text is None:
            continue
        value = None
        for line in text.splitlines():
            m = _README_LANGUAGE.match(line)
            if m and m.group(1).strip("*_ "):
                value = m.group(1).strip("*_ ")
        if value is None:
            return ()
        evidence = f"{name}: Language: {value}"
        parts = re.split(r"\s*(?:,|;|/|\band\b|&)\s*", value)
        return _unique(_by_name(p, evidence) for p in parts if p)
    return ()


def treebank_languages(folder: Path | None, files: Sequence[Path]) -> tuple[DeclaredLanguage, ...]:
    """What a treebank declares: the language code of its UD file names (``xx_name-ud-*``)
    and its README's ``Language:`` line (``folder``: the treebank folder, or ``None`` for a
    loose file, whose folder's README may describe other files)."""
    found: list[DeclaredLanguage | None] = []
    for path in files:
        m = _UD_FILE.match(path.name)
        if m:
            found.append(declared(m.group(1), f"file names {m.group(1)}_{m.group(2)}-ud-*"))
    if folder is not None:
        found.extend(readme_languages(folder))
    return _unique(found)


# ---------------------------------------------------------------------------- lexicons

# SIGMORPHON 2017/2018 task 1: <language name>-{train-high,train-medium,train-low,dev,test}.
_SIGMORPHON_2018 = re.compile(
    r"^([a-z]+(?:-[a-z]+)*?)-(?:train-(?:high|medium|low)|dev|test|covered-test)$"
)
# SIGMORPHON 2023 (<iso3>.trn/.dev/.tst) and UniMorph lexicons (<iso3>, parts <iso3>.1 ...).
_ISO3_FILE = re.compile(r"^([a-z]{3})(?:\.(?:trn|dev|tst|\d+))?$")
# Three-letter file names that are words, not codes (``dev`` is also Domung's ISO code).
_NOT_CODES = frozenset({"all", "dev", "new", "out", "raw", "tmp", "trn", "tst", "tsv", "txt"})


def lexicon_languages(files: Iterable[Path]) -> tuple[DeclaredLanguage, ...]:
    """What UniMorph files declare by their names: ``german-train-high`` (SIGMORPHON
    2017/2018), ``deu.trn`` (SIGMORPHON 2023), ``eng`` or ``fin.2`` (UniMorph's own
    repositories). Other names declare nothing."""
    found: list[DeclaredLanguage | None] = []
    for path in files:
        m = _ISO3_FILE.match(path.name)
        if m:
            if m.group(1) not in _NOT_CODES:
                found.append(declared(m.group(1), f"file name {path.name}"))
            continue
        m = _SIGMORPHON_2018.match(path.name)
        if m:
            found.append(_by_name(m.group(1), f"file name {path.name}"))
    return _unique(found)


#: TREC (Li & Roth 2002) is English questions.
TREC_LANGUAGE = DeclaredLanguage("eng", "en", "English", "TREC is English questions")
