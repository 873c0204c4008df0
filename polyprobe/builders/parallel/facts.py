"""What the inputs of a parallel build say about each aligned item beyond its texts: the
wide config's label, the language the item was written in, and so how each language's text
was made (``sample_creation``).

Why two kinds: PUD says it in its sentence ids (genre letter, original-language digits) and
its translations are human; parallel text (or other parallel treebanks) says the original
language per item (an ``original_language`` column) or not at all, and the user says how the
translations were made (``--original-language``, ``--sample-creation``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from polyprobe.builders.variants import SplitSpec
from polyprobe.loaders.parallel import Alignment, pud_genre, pud_original_language, sample_creation

__all__ = ["DOCUMENT_SPLIT", "PUD_FACTS", "PUD_PROVENANCE", "RowFacts", "creation_counts"]

DOCUMENT_SPLIT = SplitSpec(
    "ud",
    reason="by document: each document's blake2b hash puts all its sentences in train, "
    "validation or test (80/10/10 of the documents), the same split in every language, so no "
    "translation of a test sentence is in train",
    source_label="document",
)
GENRES = ("news", "wiki")
# PUD's translations, as its READMEs describe them (the card's provenance entry).
PUD_PROVENANCE: dict[str, Any] = {
    "system": "human translation",
    "by": "DFKI (professional translators; German by DFKI itself) for de, es, ru, tr and the "
    "non-English originals into English; Charles University for cs; University of Turku for fi",
    "via": "English (originals in de, fr, it, es were first translated into English)",
    "date": "2017 (CoNLL 2017 shared task)",
    "source": "README of each UD_*-PUD treebank",
}


@dataclass(frozen=True)
class RowFacts:
    """What the inputs say about an aligned item, beyond its texts: the wide config's label
    (``label_names``, ``label_of(sent_id)``: ``None`` drops the row with ``drop_reason``),
    the language it was written in (``original_of``) and so each language's
    ``sample_creation`` (``creation(lang, original)``)."""

    label_names: tuple[str, ...]
    label_description: str
    label_phrase: str
    label_of: Callable[[str], str | None]
    drop_reason: str
    original_of: Callable[[str], str | None]
    creation: Callable[[str, str | None], str]
    creation_note: str

    def row_creation(self, lang: str, record_id: str) -> str:
        """How the text of record ``record_id`` in ``lang`` was made."""
        return self.creation(lang, self.original_of(record_id))


PUD_FACTS = RowFacts(
    label_names=GENRES,
    label_description="genre: PUD sent_id starting with n (news) or w (Wikipedia)",
    label_phrase="PUD's genre (news or wiki)",
    label_of=pud_genre,
    drop_reason="not a PUD id",
    original_of=pud_original_language,
    creation=sample_creation,
    creation_note="sample_creation: native where the row's language is the sentence's "
    "original one (PUD sent_id digits 2-3: 01 en, 02 de, 03 fr, 04 it, 05 es), else "
    "human-translated (PUD translated via English).",
)


def text_facts(
    originals: dict[str, str | None], default: str, per_language: dict[str, str]
) -> RowFacts:
    """Row facts of parallel text files: the label is the item's original language
    (``unknown`` where neither the file's ``original_language`` column nor
    ``--original-language`` says), sample_creation ``native`` in that language, else the
    language's own (``per_language``: a ``polyprobe translate`` output's provenance) or
    ``default`` (``--sample-creation``), and ``unknown`` everywhere when the original is
    unknown."""
    names = sorted({o or "unknown" for o in originals.values()})

    def creation(lang: str, original: str | None) -> str:
        if original is None:
            return "unknown"
        return "native" if original == lang else per_language.get(lang, default)

    own = "".join(
        f"; {v} in {k} (its translation file's provenance)" for k, v in per_language.items()
    )
    return RowFacts(
        label_names=tuple(names) or ("unknown",),
        label_description="original language: the language the item was written in "
        "(the file's original_language column, else --original-language; unknown if neither)",
        label_phrase="the item's original language (unknown where the input does not say)",
        label_of=lambda item_id: originals.get(item_id) or "unknown",
        drop_reason="",
        original_of=originals.get,
        creation=creation,
        creation_note="sample_creation: native in the item's original language, "
        f"{default} in the others{own}; unknown where the input does not say which language "
        "the item was written in.",
    )


def creation_counts(alignment: Alignment, facts: RowFacts) -> dict[str, dict[str, int]]:
    """Per language, how many of its sentences were made how (the card's profile)."""
    counts: dict[str, Counter[str]] = {lang: Counter() for lang in alignment.languages}
    for row in alignment.rows:
        original = facts.original_of(row.sent_id)
        for lang, sentence in row.sentences.items():
            if sentence is not None:
                counts[lang][facts.creation(lang, original)] += 1
    return {lang: dict(sorted(c.items())) for lang, c in counts.items()}
