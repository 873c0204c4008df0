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

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import capital_slots, casefold_first, lexical_case, starts_upper
from polyprobe.builders.sentence.sentence_length import bin_name, length_bin
from polyprobe.builders.sentence.word_order import median_low
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

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
        raise UsageError(
            f"[tasks.end_of_sentence] bin_starts must rise strictly from 1, got {starts}"
        )
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


def _key(sentence: Sentence) -> tuple[str, str, int]:
    """A sentence's place in the stream: file, sent_id and first line."""
    return (sentence.source.path, sentence.sent_id, sentence.line)


@dataclass(frozen=True)
class EndOfSentenceOptions:
    """``[tasks.end_of_sentence]``: the bins, the case rule and the document rule.

    * ``bin_starts``: lower bounds of the length bins (the last bin is open), rising strictly
      from 1, instead of Wehner's 6 or 8 bins; for a finer or coarser scale. Default ``None``.
    * ``n_bins``: 6 or 8, Wehner's short- or long-sentence bin set, fixed instead of chosen
      from the median length (``bin_starts``, when set, wins). Default ``None`` (derived).
    * ``median_threshold``: the median sentence length in words below which the 6 short bins
      are used (default 11, between Wehner's short- and long-sentence languages).
    * ``case``: ``lower`` | ``positional`` | ``keep``: how the words are cased, so that no
      capital marks the boundary. Default ``None``: ``positional`` in a noun-capitalising
      language (lowercasing its nouns would change words), else ``lower``.
    * ``assume_file_order_documents``: treat each file without ``# newdoc`` markup as one
      document in file order (default ``False``: a file's order need not be document order,
      e.g. GSD treebanks are sentence collections, so the task is infeasible there). Also set
      by the command line's ``--assume-file-order-documents``.
    """

    bin_starts: tuple[int, ...] | None = None
    n_bins: int | None = None
    median_threshold: int = MEDIAN_THRESHOLD
    case: str | None = None
    assume_file_order_documents: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.bin_starts is not None:
            starts = self.bin_starts
            try:
                if isinstance(starts, str | bytes):  # "15" is not [1, 5]
                    raise TypeError
                starts = tuple(int(x) for x in starts)
            except (TypeError, ValueError):
                raise UsageError(
                    f"[tasks.end_of_sentence] bin_starts must be a list of integers, not {starts!r}"
                ) from None
            make_bins(starts)  # refuses starts that do not rise strictly from 1
            set_(self, "bin_starts", starts)
        if self.n_bins is not None:
            try:
                n_bins = int(self.n_bins)
            except (TypeError, ValueError):
                n_bins = None
            if n_bins not in (6, 8):
                raise UsageError(
                    f"[tasks.end_of_sentence] n_bins must be 6 or 8, not {self.n_bins!r}"
                )
            set_(self, "n_bins", n_bins)
        try:
            set_(self, "median_threshold", int(self.median_threshold))
        except (TypeError, ValueError):
            raise UsageError(
                "[tasks.end_of_sentence] median_threshold must be an integer, "
                f"not {self.median_threshold!r}"
            ) from None
        if self.case is not None and self.case not in CASE_MODES:
            raise UsageError(
                f"[tasks.end_of_sentence] case must be one of {', '.join(CASE_MODES)}, "
                f"not {self.case!r}"
            )
        if not isinstance(self.assume_file_order_documents, bool):
            raise UsageError(
                "[tasks.end_of_sentence] assume_file_order_documents must be true or false, "
                f"not {self.assume_file_order_documents!r}"
            )


@dataclass(frozen=True)
class EndOfSentenceFit(Fit):
    """The bins, the case rule, the median length they came from, and the stream position of
    the last sentence (whose pending pair no later sentence will close)."""

    bins: tuple[tuple[int, int | None], ...] = make_bins(LONG_BIN_STARTS)
    case_mode: str = "lower"
    median_length: int | None = None
    last_key: tuple[str, str, int] | None = None


class EndOfSentenceObservation(Observation):
    """Sentence lengths in words, how many sentences carry a doc id, how many documents, and
    where the stream ends."""

    def __init__(self) -> None:
        self.lengths: Counter[int] = Counter()
        self.with_doc = 0
        self.without_doc = 0
        self.documents = 0
        self._doc: tuple[str, str | None] | None = None  # (file, doc id) of the last sentence
        self._first_doc: tuple[str, str | None] | None = None  # ... of the first (for merge)
        self.last_key: tuple[str, str, int] | None = None

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        self.lengths[sum(1 for t in sentence.surface_tokens() if t.upos != "PUNCT")] += 1
        if sentence.doc_id is None:
            self.without_doc += 1
        else:
            self.with_doc += 1
        doc = (sentence.source.path, sentence.doc_id)
        if doc != self._doc:
            self.documents += sentence.doc_id is not None
            if self._doc is None:
                self._first_doc = doc
            self._doc = doc
        self.last_key = _key(sentence)

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's). A document is
        counted where the (file, doc id) changes, so a document that ``later`` opens with and
        this observation ends with (a range cut inside a document) is counted once; the last
        sentence's document and key are ``later``'s when it saw any sentence."""
        if not isinstance(later, EndOfSentenceObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into end_of_sentence")
        if later._doc is None:  # saw nothing
            return
        self.lengths.update(later.lengths)
        self.with_doc += later.with_doc
        self.without_doc += later.without_doc
        first = later._first_doc
        self.documents += later.documents
        if self._doc is None:
            self._first_doc = first
        elif first == self._doc and first is not None and first[1] is not None:
            self.documents -= 1  # one document, counted by both
        self._doc = later._doc
        self.last_key = later.last_key


@dataclass(slots=True)
class _Pending:
    """The first sentence of a pair, waiting for its successor."""

    doc: tuple[str, str]
    sent_id: str
    line: int
    next_line: int  # the earliest line the next sentence of the file can start on
    words: list[str]


@dataclass(slots=True)
class _Pairing:
    """The candidate pass's walk through the stream under one fit: the first sentence of the
    pair being formed, and the answer of the last call (a repeated call repeats it)."""

    fit: EndOfSentenceFit
    pending: _Pending | None = None
    last_call: tuple[tuple[str, str, int], list[Candidate]] | None = None


class EndOfSentence(Task[Sentence]):
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

    Stateful by necessity: a candidate joins two records, so ``candidates`` keeps the previous
    sentence of the document on the task (``_pairing``, begun afresh for each fit) and must be
    called once per sentence in stream order (as the build does); calling it again with the
    sentence it has just seen returns the same result. The last sentence of the stream is
    known from the fit, so its unpaired drop is counted when it arrives.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="end_of_sentence",
        level=Level.SENTENCE,
        description=(
            "Two consecutive sentences of a document are joined without punctuation; predict "
            "the length of the first one in words (where the sentence boundary falls), in bins."
        ),
        labels_derived=(
            "bins of the first sentence's length in words: 6 (1-4, ..., 21+) when the median "
            "sentence length in words is below 11, else 8 (1-8, 9-12, ..., 33+)"
        ),
        citation=WEHNER_2019,
        notes=(
            "Pairs: sentences 1-2, 3-4, ... of each '# newdoc' document (a new file also starts "
            "a document); an odd last sentence is dropped. Without document markup the task is "
            "infeasible unless the profile sets assume_file_order_documents (then each file is "
            "one document). Group = document.",
            "Input: the words (non-PUNCT surface tokens; a multiword token counts once) of both "
            "sentences joined by single spaces. Case: lowercased with the language's i/ı rules; "
            "in a noun-capitalising language only positional capitals (a sentence-initial word "
            "that is not PROPN/NOUN) are lowercased, so that no capital marks the boundary.",
            "Label: bin of the first sentence's length in words: 6 bins (1-4 ... 21+) when the "
            "median sentence length in words is below 11, else 8 bins (1-8, 9-12, ..., 29-32, "
            "33+).",
            "A pair never bridges a sentence the reader skipped as invalid (detected from line "
            "numbers); a pair with a sentence that has no words (only punctuation, e.g. '***') "
            "is dropped.",
            "Row id: <treebank>/<second sent_id>/end_of_sentence/<first sent_id>.",
        ),
    )

    Options: ClassVar[type] = EndOfSentenceOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "median_length",
            "length_unit",
            "bin_rule",
            "bins",
            "document_markup",
            "sentences_with_doc_id",
            "sentences_without_doc_id",
            "documents",
            "feasible",
        }
    )

    def __init__(self, options: Any = None, context: Any = None) -> None:
        super().__init__(options, context)
        self._lowered: dict[str, str] = {}  # form -> lower_for_language(form, lang), bounded
        self._pairing: _Pairing | None = None

    def parameters(self, fit: Fit) -> dict[str, Any]:
        assert isinstance(fit, EndOfSentenceFit)
        assume = self.options.assume_file_order_documents
        return {
            "pairs": "non-overlapping consecutive sentences (1-2, 3-4, ...) of one document",
            "document": "# newdoc id within one file"
            + ("; a file without markup is one document" if assume else ""),
            "assume_file_order_documents": assume,
            "unit": "non-PUNCT surface tokens (a multiword token counts once)",
            "case": fit.case_mode,
            "median_length": fit.median_length,
            "bins": [[lo, hi] for lo, hi in fit.bins],
            "input": "words of both sentences joined by single spaces",
        }

    # --- first pass ---------------------------------------------------------------------
    def observation(self) -> EndOfSentenceObservation:
        return EndOfSentenceObservation()

    def fit(self, observation: Observation | None) -> EndOfSentenceFit:
        """Fix the bins, the case rule and the document rule (options ``bin_starts``,
        ``n_bins`` (6 or 8), ``median_threshold``, ``case``, ``assume_file_order_documents``)."""
        assert isinstance(observation, EndOfSentenceObservation)
        o = self.options
        median_length = median_low(observation.lengths)
        threshold = o.median_threshold
        starts = o.bin_starts
        if starts is not None:
            rule = "profile bin_starts"
        else:
            n_bins = o.n_bins
            if n_bins is None:
                short = median_length is not None and median_length < threshold
                n_bins = 6 if short else 8
                rule = f"median length {median_length} {'<' if short else '>='} {threshold}"
            else:
                rule = "profile n_bins"
            starts = SHORT_BIN_STARTS if n_bins == 6 else LONG_BIN_STARTS
        bins = make_bins(starts)
        assume = o.assume_file_order_documents
        case_mode = o.case or ("positional" if self.context.capitalises_nouns else "lower")
        with_doc, without_doc = observation.with_doc, observation.without_doc
        if not with_doc:
            markup = "none"
        elif without_doc:
            markup = "some sentences"
        else:
            markup = "all sentences"
        report = {
            "median_length": median_length,
            "median_threshold": threshold,
            "length_unit": "non-PUNCT surface tokens",
            "n_bins": len(bins),
            "bin_rule": rule,
            "bins": [[lo, hi] for lo, hi in bins],
            "case": case_mode,
            "document_markup": markup,
            "sentences_with_doc_id": with_doc,
            "sentences_without_doc_id": without_doc,
            "documents": observation.documents,
            "assume_file_order_documents": assume,
            "feasible": bool(with_doc) or assume,
        }
        return EndOfSentenceFit(
            tuple(bin_name(lo, hi) for lo, hi in bins),
            report,
            bins=bins,
            case_mode=case_mode,
            median_length=median_length,
            last_key=observation.last_key,
        )

    # --- candidates ---------------------------------------------------------------------
    def _document(self, sentence: Sentence) -> tuple[str, str] | None:
        """``(file, group)`` of the sentence's document, or ``None`` when it has none."""
        if sentence.doc_id is not None:
            return (sentence.source.path, sentence.doc_id)
        if self.options.assume_file_order_documents:
            return (sentence.source.path, "file:" + Path(sentence.source.path).name)
        return None

    def words(self, sentence: Sentence, case: str) -> list[str]:
        """The sentence's non-PUNCT surface forms with the case rule ``case`` (the fit's
        ``case_mode``) applied."""
        tokens = sentence.surface_tokens()
        lang = self.context.lang
        if case == "lower":
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
        elif case == "positional":
            lexical = lexical_case(tokens, self.context, sentence)
            forms = [t.form for t in tokens]
            for i in capital_slots(tokens):
                if not lexical[i] and starts_upper(forms[i]):
                    forms[i] = casefold_first(forms[i], lang)
        else:
            forms = [t.form for t in tokens]
        return [f for f, t in zip(forms, tokens, strict=True) if t.upos != "PUNCT"]

    def records_ended(self) -> None:
        """A sentence still waiting for its partner is the last of its document (ranges are
        cut between documents): one pass counts it when the next document's first sentence
        arrives; the stream's very last sentence was counted when it came (``last_key``)."""
        pairing = self._pairing
        if pairing is not None and pairing.pending is not None:
            self._unpaired(pairing, "unpaired last sentence of a document")

    def _unpaired(self, pairing: _Pairing, reason: str) -> None:
        pairing.pending = None
        self.drops[reason] += 1

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, EndOfSentenceFit)
        pairing = self._pairing
        if pairing is None or pairing.fit is not fit:
            pairing = self._pairing = _Pairing(fit)
        key = _key(sentence)
        last = pairing.last_call
        if last is not None and last[0] == key:
            return list(last[1])  # the same call again: same answer, no new drop
        out = self._pair(sentence, key, pairing)
        pairing.last_call = (key, out)
        return list(out)

    def _pair(
        self, sentence: Sentence, key: tuple[str, str, int], pairing: _Pairing
    ) -> list[Candidate]:
        fit = pairing.fit
        doc = self._document(sentence)
        pending = pairing.pending
        if pending is not None:
            if doc != pending.doc:
                self._unpaired(pairing, "unpaired last sentence of a document")
            elif (
                sentence.line > 0
                and pending.line > 0
                and sentence.line - pending.next_line >= _SKIP_GAP_LINES
            ):
                self._unpaired(pairing, "unpaired: the next sentence was skipped as invalid")
        if doc is None:
            return self.drop("no document markup (# newdoc)")
        if pairing.pending is None:
            nxt = sentence.line + _block_lines(sentence) + 1 if sentence.line > 0 else 0
            pairing.pending = _Pending(
                doc, sentence.sent_id, sentence.line, nxt, self.words(sentence, fit.case_mode)
            )
            if key == fit.last_key:
                self._unpaired(pairing, "unpaired last sentence of a document")
            return []
        first = pairing.pending
        pairing.pending = None
        second = self.words(sentence, fit.case_mode)
        if not first.words or not second:
            return self.drop("pair with a sentence of punctuation only")
        label = length_bin(len(first.words), fit.bins)
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
