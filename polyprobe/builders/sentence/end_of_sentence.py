"""``end_of_sentence``: where does the first of two run-together sentences end? (Wehner 2019, EOS.)

Two consecutive sentences of one document are joined without punctuation and (in most
languages) lowercased; the label is the bin of the first sentence's length, i.e. where the
boundary falls. Whether a sentence embedding knows this is a question about discourse-level
structure, so the pairs must really be consecutive: without ``# newdoc`` markup a treebank's file
order need not be document order (GSD treebanks are sentence collections), and the task is
infeasible unless the profile asserts it (``assume_file_order_documents``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from polyprobe.builders.rendering import capital_slots, casefold_first, lexical_case, starts_upper
from polyprobe.builders.sentence.sentence_length import SentenceLength, bin_name, length_bin
from polyprobe.builders.sentence.word_order import median_low
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence

# Bin lower bounds; the last bin is open. Wehner (2019): 6 bins for short-sentence languages,
# 8 for the others (en); which applies is derived from the median sentence length.
SHORT_BIN_STARTS: tuple[int, ...] = (1, 5, 9, 13, 17, 21)
LONG_BIN_STARTS: tuple[int, ...] = (1, 9, 13, 17, 21, 25, 29, 33)
MEDIAN_THRESHOLD = 11  # median length (words) below which the 6 short bins are used
CASE_MODES: tuple[str, ...] = ("lower", "positional", "keep")
# A gap of this many unexplained lines between two sentences of one file means a sentence in
# between was skipped as invalid (a UD sentence block has >= 4 lines: sent_id, text, a word, a
# blank). Smaller gaps are comment lines the reader does not keep (``# newpar`` without a value,
# ``# orig_file_sentence 001#1`` in cs-FicTree: 1 line per sentence), never a sentence.
_SKIP_GAP_LINES = 3

_CAPITAL_I = re.compile("[Iİ]")
# Bound of the memo of lowercased forms (cleared when full: memory stays bounded).
_LOWER_MEMO_MAX = 1 << 18


def lower_for_language(text: str, lang: str) -> str:
    """Lowercase ``text`` with the language's rules for dotted and dotless i.

    Turkic languages map ``I`` to ``ı``; every language maps ``İ`` to ``i`` (Python's default
    gives ``i`` + U+0307, a string no text contains). Both come from
    :func:`polyprobe.builders.rendering.casefold_first` so the renderer and this task agree;
    everything else is ``str.lower`` (which handles Greek final sigma in context).
    """
    return _CAPITAL_I.sub(lambda m: casefold_first(m.group(), lang), text).lower()


def make_bins(starts: tuple[int, ...] | list[int]) -> tuple[tuple[int, int | None], ...]:
    """``(1, 5, 9)`` -> ``((1, 4), (5, 8), (9, None))``."""
    starts = [int(s) for s in starts]
    if (
        not starts
        or starts[0] != 1
        or any(b <= a for a, b in zip(starts, starts[1:], strict=False))
    ):
        raise UsageError(f"end_of_sentence: bin_starts must rise strictly from 1, got {starts}")
    return tuple(
        (lo, hi - 1 if hi is not None else None)
        for lo, hi in zip(starts, [*starts[1:], None], strict=True)
    )


def _block_lines(sentence: Sentence) -> int:
    """Lines of a sentence block the record accounts for (comments kept as key = value, words,
    multiword ranges, empty nodes), i.e. a lower bound of its real size."""
    return (
        len(sentence.comments) + len(sentence.words) + len(sentence.multiword) + len(sentence.empty)
    )


@dataclass(slots=True)
class _Pending:
    """The first sentence of a pair, waiting for its successor."""

    doc: tuple[str, str]
    sent_id: str
    line: int
    next_line: int  # the earliest line the next sentence of the file can start on
    words: list[str]


class EndOfSentence(Task):
    """Label = the bin of the first sentence's length in words, for two consecutive sentences
    of one document joined into one string.

    Pairs are non-overlapping (sentences 1-2, 3-4, ... of each document, counted among the
    sentences that reach the task); a document is a ``(file, doc_id)`` pair, so a new file or a
    new ``# newdoc`` starts one (the reader carries a doc id forward to the following
    sentences). A sentence without a doc id belongs to no document and is dropped, unless
    option ``assume_file_order_documents`` makes its file one document. The candidate's group is
    the document (the doc id; ``file:<name>`` for an assumed file document), so a document never
    straddles splits. Its row id is ``<treebank>/<second sent_id>/end_of_sentence/<first
    sent_id>``: the pipeline sees the pair when the second sentence arrives.

    Stateful by necessity: ``candidates`` keeps the previous sentence of the document and must
    be called once per sentence in stream order (as the pipeline does); calling it again with
    the sentence it has just seen returns the same result.
    """

    name: ClassVar[str] = "end_of_sentence"
    relative_cost: ClassVar[float] = 1.6
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Two consecutive sentences of a document are joined without punctuation; predict the "
        "length of the first one in words (where the sentence boundary falls), in bins."
    )
    # The class default is the 8-bin set (Wehner's English); derive() sets the instance's bins.
    label_names: ClassVar[tuple[str, ...]] = tuple(
        bin_name(lo, hi) for lo, hi in make_bins(LONG_BIN_STARTS)
    )
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = SentenceLength.citation
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Pairs: sentences 1-2, 3-4, ... of each '# newdoc' document (a new file also starts a "
        "document); an odd last sentence is dropped. Without document markup the task is "
        "infeasible unless the profile sets assume_file_order_documents (then each file is "
        "one document). Group = document.",
        "Input: the words (non-PUNCT surface tokens; a multiword token counts once) of both "
        "sentences joined by single spaces. Case: lowercased with the language's i/ı rules; in "
        "a noun-capitalising language only positional capitals (a sentence-initial word that "
        "is not PROPN/NOUN) are lowercased, so that no capital marks the boundary.",
        "Label: bin of the first sentence's length in words: 6 bins (1-4 ... 21+) when the "
        "median sentence length in words is below 11, else 8 bins (1-8, 9-12, ..., 29-32, 33+).",
        "A pair never bridges a sentence the reader skipped as invalid (detected from line "
        "numbers); a pair with a sentence that has no words (only punctuation, e.g. '***') is "
        "dropped.",
        "Row id: <treebank>/<second sent_id>/end_of_sentence/<first sent_id>.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0):
        super().__init__(params, seed)
        self._lengths: Counter[int] = Counter()
        self._with_doc = 0
        self._without_doc = 0
        self._documents = 0
        self._observed_doc: tuple[str, str | None] | None = None
        self._last_observed: tuple[str, str, int] | None = None
        self.median_length: int | None = None
        self.bins = make_bins(LONG_BIN_STARTS)
        self.label_names = tuple(bin_name(lo, hi) for lo, hi in self.bins)  # type: ignore[misc]
        self.assume_file_documents = False
        self.case_mode = "positional" if self.params.capitalises_nouns else "lower"
        self._pending: _Pending | None = None
        self._lowered: dict[str, str] = {}  # form -> lower_for_language(form, lang), bounded
        self._last_call: tuple[tuple[str, str, int], list[Candidate]] | None = None

    def parameters(self) -> dict[str, Any]:
        return {
            "pairs": "non-overlapping consecutive sentences (1-2, 3-4, ...) of one document",
            "document": "# newdoc id within one file"
            + ("; a file without markup is one document" if self.assume_file_documents else ""),
            "assume_file_order_documents": self.assume_file_documents,
            "unit": "non-PUNCT surface tokens (a multiword token counts once)",
            "case": self.case_mode,
            "median_length": self.median_length,
            "bins": [[lo, hi] for lo, hi in self.bins],
            "input": "words of both sentences joined by single spaces",
        }

    # --- first pass ---------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        self._lengths[sum(1 for t in sentence.surface_tokens() if t.upos != "PUNCT")] += 1
        if sentence.doc_id is None:
            self._without_doc += 1
        else:
            self._with_doc += 1
        doc = (sentence.source.path, sentence.doc_id)
        if doc != self._observed_doc:
            self._documents += sentence.doc_id is not None
            self._observed_doc = doc
        self._last_observed = self._key(sentence)

    def derive(self) -> dict[str, Any]:
        """Fix the bins, the case rule and the document rule (profile options ``bin_starts``,
        ``n_bins`` (6 or 8), ``median_threshold``, ``case``, ``assume_file_order_documents``)."""
        self.median_length = median_low(self._lengths)
        threshold = int(self.option("median_threshold", MEDIAN_THRESHOLD))
        starts = self.option("bin_starts")
        if starts is not None:
            rule = "profile bin_starts"
        else:
            n_bins = self.option("n_bins")
            if n_bins is None:
                short = self.median_length is not None and self.median_length < threshold
                n_bins = 6 if short else 8
                rule = f"median length {self.median_length} {'<' if short else '>='} {threshold}"
            else:
                rule = "profile n_bins"
            if int(n_bins) not in (6, 8):
                raise UsageError(f"end_of_sentence: n_bins must be 6 or 8, not {n_bins!r}")
            starts = SHORT_BIN_STARTS if int(n_bins) == 6 else LONG_BIN_STARTS
        self.bins = make_bins(starts)
        self.label_names = tuple(bin_name(lo, hi) for lo, hi in self.bins)  # type: ignore[misc]
        self.assume_file_documents = bool(self.option("assume_file_order_documents", False))
        default_case = "positional" if self.params.capitalises_nouns else "lower"
        self.case_mode = str(self.option("case", default_case))
        if self.case_mode not in CASE_MODES:
            raise UsageError(
                f"end_of_sentence: case must be one of {', '.join(CASE_MODES)}, "
                f"not {self.case_mode!r}"
            )
        if self._with_doc:
            markup = "all sentences" if not self._without_doc else "some sentences"
        else:
            markup = "none"
        feasible = bool(self._with_doc) or self.assume_file_documents
        return {
            "median_length": self.median_length,
            "median_threshold": threshold,
            "length_unit": "non-PUNCT surface tokens",
            "n_bins": len(self.bins),
            "bin_rule": rule,
            "bins": [[lo, hi] for lo, hi in self.bins],
            "case": self.case_mode,
            "document_markup": markup,
            "sentences_with_doc_id": self._with_doc,
            "sentences_without_doc_id": self._without_doc,
            "documents": self._documents,
            "assume_file_order_documents": self.assume_file_documents,
            "feasible": feasible,
        }

    # --- candidates ---------------------------------------------------------------------
    @staticmethod
    def _key(sentence: Sentence) -> tuple[str, str, int]:
        return (sentence.source.path, sentence.sent_id, sentence.line)

    def _document(self, sentence: Sentence) -> tuple[str, str] | None:
        """``(file, group)`` of the sentence's document, or ``None`` when it has none."""
        if sentence.doc_id is not None:
            return (sentence.source.path, sentence.doc_id)
        if self.assume_file_documents:
            return (sentence.source.path, "file:" + Path(sentence.source.path).name)
        return None

    def words(self, sentence: Sentence) -> list[str]:
        """The sentence's non-PUNCT surface forms with the task's case rule applied."""
        tokens = sentence.surface_tokens()
        lang = self.params.lang
        if self.case_mode == "lower":
            # Lowercased per distinct form (a regex pass and str.lower per token otherwise).
            memo = self._lowered
            if len(memo) >= _LOWER_MEMO_MAX:
                memo.clear()
            return [
                memo[f]
                if (f := t.form) in memo
                else memo.setdefault(f, lower_for_language(f, lang))
                for t in tokens
                if t.upos != "PUNCT"
            ]
        elif self.case_mode == "positional":
            lexical = lexical_case(tokens, self.params, sentence)
            forms = [t.form for t in tokens]
            for i in capital_slots(tokens):
                if not lexical[i] and starts_upper(forms[i]):
                    forms[i] = casefold_first(forms[i], lang)
        else:
            forms = [t.form for t in tokens]
        return [f for f, t in zip(forms, tokens, strict=True) if t.upos != "PUNCT"]

    def _unpaired(self, reason: str) -> None:
        self._pending = None
        self.drops[reason] += 1

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        key = self._key(sentence)
        if self._last_call is not None and self._last_call[0] == key:
            return list(self._last_call[1])  # the same call again: same answer, no new drop
        out = self._candidates(sentence, key)
        self._last_call = (key, out)
        return list(out)

    def _candidates(self, sentence: Sentence, key: tuple[str, str, int]) -> list[Candidate]:
        doc = self._document(sentence)
        pending = self._pending
        if pending is not None:
            if doc != pending.doc:
                self._unpaired("unpaired last sentence of a document")
            elif (
                sentence.line > 0
                and pending.line > 0
                and sentence.line - pending.next_line >= _SKIP_GAP_LINES
            ):
                self._unpaired("unpaired: the next sentence was skipped as invalid")
        if doc is None:
            return self.drop("no document markup (# newdoc)")
        if self._pending is None:
            nxt = sentence.line + _block_lines(sentence) + 1 if sentence.line > 0 else 0
            self._pending = _Pending(
                doc, sentence.sent_id, sentence.line, nxt, self.words(sentence)
            )
            if key == self._last_observed:
                self._unpaired("unpaired last sentence of a document")
            return []
        first = self._pending
        self._pending = None
        second = self.words(sentence)
        if not first.words or not second:
            return self.drop("pair with a sentence of punctuation only")
        label = length_bin(len(first.words), self.bins)
        assert label is not None  # bins start at 1 and the last is open
        tokens = first.words + second
        return [
            Candidate(
                {"sentence": " ".join(tokens), "tokens": tokens},
                label,
                copy=first.sent_id,
                group=doc[1],
            )
        ]
