"""What raw-text builds read of a UniMorph lexicon (``--unimorph``): which forms are nouns,
and the present-tense paradigms of verbs (for ``subject_verb_agreement`` on raw text).

Why a lexicon: raw text has no part-of-speech tags. A form the lexicon lists *only* as a noun
(``cities``, not ``walks``) is safely a noun wherever it occurs; forms that can also be nouns
are exactly the ones Wehner (2019) excluded as verb targets.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.hashing import lexical_key
from polyprobe.metadata import SourceInfo

__all__ = ["RawLexicon", "noun_lexicon", "read_raw_lexicon"]

# UniMorph value names -> UD values
_PERSON = {"First person": "1", "Second person": "2", "Third person": "3"}
_NUMBER = {"Singular": "Sing", "Plural": "Plur"}

Cell = tuple[str | None, str | None]  # (Person, Number) in UD values


@dataclass(frozen=True)
class RawLexicon:
    """``nouns``: lexical keys of forms listed only as nouns; ``noun_like``: of forms with
    any noun analysis; ``present``: per lemma key its present-tense indicative forms by
    (person, number) cell (forms with several cells keep all); ``lemmas``: lemma key of each
    present form key."""

    nouns: frozenset[str] = frozenset()
    noun_like: frozenset[str] = frozenset()
    present: dict[str, dict[Cell, str]] = field(default_factory=dict)
    cells: dict[str, tuple[str, tuple[Cell, ...]]] = field(default_factory=dict)
    lemma_forms: frozenset[str] = frozenset()


def read_raw_lexicon(sources: Sequence[Any], lang: str) -> RawLexicon:
    """Read UniMorph sources (:func:`~polyprobe.loaders.unimorph_source.unimorph_sources`)."""
    from polyprobe.loaders.source import InvalidPolicy
    from polyprobe.loaders.unimorph_source import read_lexicon

    pos_of: dict[str, set[str]] = {}
    present: dict[str, dict[Cell, str]] = {}
    cells: dict[str, list[Cell]] = {}
    lemma_of: dict[str, str] = {}
    lemma_forms: set[str] = set()
    for entry in read_lexicon(list(sources), InvalidPolicy("skip")):
        form = entry.form.strip()
        if " " in form or not form:
            continue
        key = lexical_key(form)
        pos_of.setdefault(key, set()).add(entry.pos or "?")
        if entry.pos != "V":
            continue
        feats = entry.features
        lemma_forms.add(lexical_key(entry.lemma))
        if feats.get("Tense") != "Present" or "Participle" in str(feats.get("Finiteness", "")):
            continue
        if feats.get("Mood") not in (None, "Indicative"):
            continue
        person = _PERSON.get(feats.get("Person", ""))
        number = _NUMBER.get(feats.get("Number", ""))
        if person is None and number is None:
            continue
        lemma = lexical_key(entry.lemma)
        present.setdefault(lemma, {})[(person, number)] = form
        cells.setdefault(key, []).append((person, number))
        lemma_of[key] = lemma
    nouns = frozenset(k for k, pos in pos_of.items() if pos == {"N"})
    noun_like = frozenset(k for k, pos in pos_of.items() if "N" in pos)
    return RawLexicon(
        nouns,
        noun_like,
        present,
        {k: (lemma_of[k], tuple(dict.fromkeys(c))) for k, c in cells.items()},
        frozenset(lemma_forms),
    )


def noun_lexicon(
    unimorph: Sequence[str | os.PathLike[str]] | None,
    lang: str,
    *,
    source_version: str | None = None,
) -> tuple[frozenset[str], str | None, list[SourceInfo]]:
    """The noun-only forms of ``--unimorph`` (empty without it), how the card names them and
    the lexicon's card entries (role ``reference``: it marks nouns, no row is taken from it)."""
    if not unimorph:
        return frozenset(), None, []
    lexicon, infos = lexicon_and_infos(unimorph, lang, source_version=source_version)
    names = ", ".join(i.name for i in infos)
    return lexicon.nouns, f"the UniMorph lexicon {names} (forms listed only as N)", infos


def lexicon_and_infos(
    unimorph: Sequence[str | os.PathLike[str]],
    lang: str,
    *,
    source_version: str | None = None,
    role: str = "reference",
) -> tuple[RawLexicon, list[SourceInfo]]:
    """The lexicon and its card entries (licences: the build's ``--license`` applies to
    them by name, as to every source)."""
    from polyprobe.loaders.unimorph_source import unimorph_sources

    sources = unimorph_sources(list(unimorph), lang=lang, source_version=source_version)
    infos = []
    for s in sources:
        info = s.info
        info.role = role
        infos.append(info)
    return read_raw_lexicon(sources, lang), infos
