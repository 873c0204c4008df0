"""Parallel treebanks aligned by ``sent_id`` (UD's PUD: the same 1,000 sentences in every
language), read into one alignment: per ``sent_id`` the document, the sentence of every
language (or none), and what each row is — native text or a translation.

Why a module of its own: aligning is where parallel corpora differ from the rest of UD. The
English reference line is ``# text_en`` in most PUD files but ``# english_text`` in Russian;
the Czech file carries 1,000 malformed ``# orig_file_sentence`` comments (no ``=``), which the
CoNLL-U reader ignores like any other comment without a value; ``# parallel_id`` is missing in
Russian and Finnish, so the alignment key is ``sent_id``. A language missing a sentence is a
gap (``None``), never a shifted row; two languages placing one ``sent_id`` in different
documents is an :class:`InputError` (splits are drawn by document, so it would leak).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from polyprobe.errors import InputError
from polyprobe.hashing import stable_u64
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.sources import TreebankSource, read_sources

# The comment keys a translated PUD sentence gives its English source under.
ENGLISH_KEYS: tuple[str, ...] = ("text_en", "english_text")

# PUD's sentence ids: genre letter (n news, w Wikipedia), two digits of the original
# language, then document and sentence numbers (UD_English-PUD's README).
PUD_ID = re.compile(r"^([nw])(\d\d)\d+$")
PUD_GENRES: dict[str, str] = {"n": "news", "w": "wiki"}
PUD_ORIGINALS: dict[str, str] = {"01": "en", "02": "de", "03": "fr", "04": "it", "05": "es"}


def english_reference(sentence: Sentence) -> str | None:
    """The English sentence a translation was made from, as its file gives it."""
    for key in ENGLISH_KEYS:
        value = sentence.comments.get(key)
        if value:
            return value
    return None


def pud_genre(sent_id: str) -> str | None:
    match = PUD_ID.match(sent_id)
    return PUD_GENRES[match.group(1)] if match else None


def pud_original_language(sent_id: str) -> str | None:
    """The language the sentence was written in (PUD's id digits), or None if unknown."""
    match = PUD_ID.match(sent_id)
    return PUD_ORIGINALS.get(match.group(2)) if match else None


def sample_creation(lang: str, original: str | None, translated_by: str = "human") -> str:
    """``native`` when the row's language is the sentence's original one, else a
    translation (PUD's are human; ``translated_by="machine"`` for machine translations).
    An unknown original is taken as native: nothing says it was translated."""
    if original is None or original == lang:
        return "native"
    return f"{translated_by}-translated"


def document_split(doc_id: str, ratios: tuple[int, int, int] = (80, 10, 10)) -> str:
    """The split of a whole document: blake2b of its id into ``ratios`` (percent). A
    function of the id alone, so every language (and every seed) puts a document, and so
    every translation of its sentences, in the same split."""
    bucket = stable_u64("parallel-document-split", doc_id) % 100
    if bucket < ratios[0]:
        return "train"
    if bucket < ratios[0] + ratios[1]:
        return "dev"
    return "test"


@dataclass(frozen=True)
class AlignedRow:
    """One ``sent_id`` across languages: its document and each language's sentence."""

    sent_id: str
    doc_id: str
    sentences: dict[str, Sentence | None]  # language -> sentence (None: missing there)


@dataclass(frozen=True)
class Alignment:
    """Every ``sent_id`` in the pivot's order (then ids only other languages have)."""

    languages: tuple[str, ...]
    rows: tuple[AlignedRow, ...]

    def coverage(self) -> dict[str, int]:
        return {
            lang: sum(1 for r in self.rows if r.sentences.get(lang) is not None)
            for lang in self.languages
        }


def align(
    treebanks: Sequence[tuple[str, TreebankSource]],
    *,
    on_invalid: str = "raise",
    policy: InvalidPolicy | None = None,
) -> Alignment:
    """Read ``(language, treebank)`` pairs (the first is the pivot) and align them by
    ``sent_id``. A sentence without a document id takes its ``sent_id`` as its document (a
    document of one sentence); one ``sent_id`` twice in a treebank, or in different
    documents in two languages, is an :class:`InputError` naming the file and line."""
    langs = [lang for lang, _ in treebanks]
    if len(set(langs)) != len(langs):
        raise ValueError(f"one treebank per language: {langs}")
    by_lang: dict[str, dict[str, Sentence]] = {}
    order: dict[str, None] = {}
    docs: dict[str, tuple[str, str]] = {}  # sent_id -> (doc id, language that said so)
    for lang, source in treebanks:
        seen: dict[str, Sentence] = {}
        for sentence in read_sources([source], on_invalid=on_invalid, policy=policy):
            if sentence.sent_id in seen:
                raise InputError(
                    sentence.source.path,
                    sentence.line,
                    f"sent_id {sentence.sent_id} occurs twice in {source.name}; a parallel "
                    "treebank aligns by sent_id",
                    "duplicate-sent-id",
                )
            seen[sentence.sent_id] = sentence
            order.setdefault(sentence.sent_id)
            doc = sentence.doc_id or sentence.sent_id
            known = docs.setdefault(sentence.sent_id, (doc, lang))
            if known[0] != doc:
                raise InputError(
                    sentence.source.path,
                    sentence.line,
                    f"sent_id {sentence.sent_id} is in document {doc} here but in "
                    f"{known[0]} in the {known[1]} treebank; documents decide the splits",
                    "document-mismatch",
                )
        by_lang[lang] = seen
    rows = tuple(
        AlignedRow(sid, docs[sid][0], {lang: by_lang[lang].get(sid) for lang in langs})
        for sid in order
    )
    return Alignment(tuple(langs), rows)
