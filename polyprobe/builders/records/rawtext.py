"""Raw-text sources (Wikipedia dumps, plain text) as a stream's records: their documents'
sentences as :class:`~polyprobe.loaders.records.Sentence` records.

What it decides, and why:

* **Which sentences**: the source already marks sentences with a template hole or markup
  left (counted by reason); here a sentence must also have ``min_tokens`` tokens (and at most
  ``max_tokens``) and, where asked (``final_punct``: Wikipedia by default), end in a
  sentence-final mark, so that list fragments and captions are not "sentences". Every drop
  is counted by reason under ``dropped: <reason>``, which the recipe moves to the card.
* **Neighbours**: a sentence's ``doc_id`` is ``<document>#<run>``, where the run changes
  after every dropped sentence, so a document-level task never pairs the sentences on either
  side of a dropped one as if they were consecutive.
* **Names**: record id ``<document id>/<index of the sentence in the document>`` (dropped
  sentences keep their index, so ids do not move when the filter changes); the source name
  is the dump's or the text source's.
* **Capitals**: which forms keep their capital wherever they stand (names) is measured on
  the first sentences, as for treebanks: a form capitalised in >= 95 % of at least 3
  non-initial occurrences keeps it when a perturbation moves it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from polyprobe.builders.rendering import text_hash as sentence_text_hash
from polyprobe.builders.task import Shared
from polyprobe.builders.variants import SplitSpec, parse_split
from polyprobe.errors import UsageError
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.raw_records import DocumentPlace, UposGuesser, raw_sentence_columns
from polyprobe.loaders.rawtext import RawSentence
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.source import InvalidPolicy

__all__ = [
    "DROPPED",
    "SentenceFilter",
    "TextRecords",
    "card_task_options",
    "raw_text_hash",
    "sentence_verdict",
    "source_counts",
    "split_dropped",
    "text_split",
]

DROPPED = "dropped: "  # prefix of the drop reasons counted with the skipped input
UNMAPPED = "unmapped label: "  # prefix of the parser labels the UD conversion left unmapped
CAPITAL_PREFIX = 5_000  # sentences read to find the forms that keep their capital
KEEP_CASE_MIN = 3
KEEP_CASE_SHARE = 0.95
_FINAL = frozenset(".!?…։።။。！？؟۔।॥")
_CLOSERS = frozenset("\"'»”’)]›」』")


def raw_text_hash(text: str) -> int:
    """A raw sentence's duplicate identity (the same as a treebank sentence's with this
    ``# text``: NFC, whitespace-normalised), so that a Wikipedia sentence equal to a
    treebank sentence is recognised."""
    return stable_u64("text", normalise_text(text))


@dataclass(frozen=True)
class SentenceFilter:
    """Which raw sentences become records."""

    min_tokens: int = 3
    max_tokens: int | None = None
    final_punct: bool = True

    def __post_init__(self) -> None:
        if self.min_tokens < 1:
            raise UsageError(f"--min-tokens must be at least 1, not {self.min_tokens}")
        if self.max_tokens is not None and self.max_tokens < self.min_tokens:
            raise UsageError(
                f"--max-tokens {self.max_tokens} is below --min-tokens {self.min_tokens}"
            )

    def problem(self, forms: Sequence[str]) -> str | None:
        n = len(forms)
        if n < self.min_tokens:
            return f"fewer than {self.min_tokens} tokens"
        if self.max_tokens is not None and n > self.max_tokens:
            return f"more than {self.max_tokens} tokens"
        if self.final_punct:
            last = forms[-1]
            i = len(last) - 1
            while i > 0 and last[i] in _CLOSERS:
                i -= 1
            if last[i] not in _FINAL:
                return "no sentence-final punctuation"
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "min_tokens": self.min_tokens,
            "max_tokens": self.max_tokens,
            "final_punctuation_required": self.final_punct,
        }


@dataclass(frozen=True)
class TextRecords:
    """Raw-text sources read in the order given: plain values, so a worker process can
    receive them. ``exclude`` holds the text hashes of sentences to leave out (a top-up
    leaves out the treebanks' sentences)."""

    sources: tuple[Any, ...]  # WikiDumpSource | PlainTextSource: .name, .documents(policy)
    sentence_filter: SentenceFilter = field(default_factory=SentenceFilter)
    nouns: frozenset[str] = frozenset()
    exclude: frozenset[int] = frozenset()
    annotator: Any = None  # loaders.annotate.Annotator: full UD-style records

    def segmenter(self) -> Segmenter:
        return self.sources[0].segmenter

    def records(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        if self.annotator is not None:
            yield from self._annotated(on_invalid, skipped)
            return
        policy = InvalidPolicy(on_invalid, skipped)
        yield from self._kept((s.documents(policy) for s in self.sources), skipped)

    def can_be_cut(self) -> bool:
        """Only sources read back from input-shard tables (``build wiki``) know where their
        pages are without reading them, and an annotator parses in batches: without one,
        each part is a contiguous range of pages (:meth:`part_records`)."""
        return self.annotator is None and all(
            callable(getattr(s, "page_sizes", None)) for s in self.sources
        )

    def part_records(
        self, on_invalid: str, skipped: Counter[str], part: int, parts: int
    ) -> Iterator[Sentence]:
        """The records of the part-th (0-based) of ``parts`` contiguous ranges of
        :meth:`records`, cut between pages so that each holds about as many sentences
        (every process computes the same cuts from the tables' page columns). A page never
        spans two ranges, so neither does a document; the ranges in order are exactly
        :meth:`records`, skips included (the shards' skipped input is counted by part 0)."""
        if not self.can_be_cut():
            raise ValueError("only sources read back from shard tables can be read in parts")
        from polyprobe.builders.records.shards import page_cuts

        cuts = page_cuts([s.page_sizes() for s in self.sources], parts)
        lo, hi = cuts[part], cuts[part + 1]
        if part == 0:  # the input the shards left out, once for the whole reading
            for source in self.sources:
                skipped.update(source.skipped)
        readings = (
            s.documents(None, pages=(lo[k], hi[k]))
            for k, s in enumerate(self.sources)
            if lo[k] < hi[k]
        )
        yield from self._kept(readings, skipped)

    def _kept(
        self, documents: Iterator[Iterator[Any]], skipped: Counter[str]
    ) -> Iterator[Sentence]:
        """The sentences of every source's documents that the filter keeps, as records; the
        others counted into ``skipped`` by reason."""
        segmenter = self.segmenter()
        keep = self.sentence_filter
        upos = UposGuesser(self.nouns)
        exclude = self.exclude
        for docs in documents:
            for doc in docs:
                run = 0
                doc_id = doc.doc_id
                where = doc.source
                paragraph = None
                for index, raw in enumerate(doc.sentences):
                    opens = paragraph != raw.paragraph
                    paragraph = raw.paragraph
                    reason, columns = sentence_verdict(raw, segmenter, keep, exclude)
                    if reason is not None or columns is None:
                        skipped[DROPPED + str(reason)] += 1
                        run += 1
                        continue
                    forms, spaces = columns
                    yield raw_sentence_columns(
                        forms,
                        spaces,
                        raw.text,
                        f"{doc_id}/{index}",
                        f"{doc_id}#{run}",
                        where,
                        raw.line,
                        upos,
                        DocumentPlace(doc_id, doc.line, index, raw.section, opens),
                    )

    def _annotated(self, on_invalid: str, skipped: Counter[str]) -> Iterator[Sentence]:
        """The kept sentences parsed by the annotator, in batches (same records, same order
        as one at a time); labels the UD conversion left unmapped are counted under
        ``UNMAPPED``, which the post-step moves to the card."""
        from polyprobe.loaders.annotate import BATCH

        policy = InvalidPolicy(on_invalid, skipped)
        segmenter = self.segmenter()
        keep = self.sentence_filter
        exclude = self.exclude
        annotator = self.annotator
        pending: list[Any] = []
        unmapped: Counter[str] = Counter()

        def flush() -> list[Sentence]:
            done = annotator.annotate_many(pending, unmapped)
            pending.clear()
            for label, n in unmapped.items():
                skipped[UNMAPPED + label] += n
            unmapped.clear()
            return done

        for source in self.sources:
            for doc in source.documents(policy):
                run = 0
                doc_id = doc.doc_id
                for index, raw in enumerate(doc.sentences):
                    reason, columns = sentence_verdict(raw, segmenter, keep, exclude)
                    if reason is not None or columns is None:
                        skipped[DROPPED + str(reason)] += 1
                        run += 1
                        continue
                    forms, spaces = columns
                    pending.append(
                        (
                            list(zip(forms, spaces, strict=True)),
                            raw.text,
                            f"{doc_id}/{index}",
                            f"{doc_id}#{run}",
                            doc.source,
                            raw.line,
                        )
                    )
                    if len(pending) >= BATCH:
                        yield from flush()
        if pending:
            yield from flush()

    def identity(self, sentence: Sentence) -> tuple[str, str, int]:
        return sentence.source.treebank, sentence.sent_id, -1

    def text_hash(self, sentence: Sentence, shared: Shared) -> int:
        return shared.get(sentence_text_hash)

    def describe_input(self) -> str:
        return ", ".join(str(getattr(s, "path", s.name)) for s in self.sources)


def sentence_verdict(
    raw: RawSentence,
    segmenter: Segmenter,
    keep: SentenceFilter,
    exclude: frozenset[int] = frozenset(),
) -> tuple[str | None, tuple[Sequence[str], Sequence[bool]] | None]:
    """Why a raw sentence is dropped (``None``: kept), and its tokens when it was tokenised,
    as two columns: the forms and whether a space follows each. The one rule for the
    sentence stream and the document stream (:mod:`polyprobe.builders.records.rawdocuments`), so
    both leave out the same sentences."""
    reason = raw.dropped
    columns = None
    if reason is None:
        forms, spaces = raw.forms, raw.spaces
        if forms is None or spaces is None:
            forms, spaces = segmenter.token_columns(raw.text)
        columns = (forms, spaces)
        reason = keep.problem(forms) if forms else "empty"
    if reason is None and exclude and raw_text_hash(raw.text) in exclude:
        reason = "equal to a treebank sentence"
    return reason, columns


def raw_language(records: TextRecords) -> dict[str, Any]:
    """The language facts a raw-text build derives: no noun is known to be capitalised as a
    common noun; which forms keep their capital is measured on the first sentences."""
    return {
        "capitalises_nouns": False,
        "keep_case_forms": keep_case_forms(records.records("skip", Counter()), CAPITAL_PREFIX),
    }


def keep_case_forms(sentences: Iterator[Sentence], limit: int) -> list[str]:
    """Forms capitalised in >= 95 % of >= 3 non-initial occurrences among the first
    ``limit`` sentences (names, English "I"): a perturbation keeps their capital."""
    upper: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for n, sentence in enumerate(sentences):
        if n >= limit:
            break
        for w in sentence.words[1:]:
            form = w.form
            if not form[:1].isalpha() or w.upos == "PUNCT":
                continue
            key = form.casefold()
            total[key] += 1
            if form[:1].isupper():
                upper[key] += 1
    # Each kept form as it is written capitalised (first letter upper, the rest as seen).
    return sorted(
        key[:1].upper() + key[1:]
        for key, n in total.items()
        if n >= KEEP_CASE_MIN and upper[key] >= KEEP_CASE_SHARE * n
    )


def split_dropped(skipped: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """The stream's skipped counts → (invalid input by reason, dropped sentences by reason);
    unmapped parser labels are neither (:func:`split_unmapped` takes them first)."""
    invalid = {
        k: v for k, v in skipped.items() if not k.startswith(DROPPED) and not k.startswith(UNMAPPED)
    }
    dropped = {k[len(DROPPED) :]: v for k, v in skipped.items() if k.startswith(DROPPED)}
    return dict(sorted(invalid.items())), dict(sorted(dropped.items()))


def split_unmapped(skipped: Mapping[str, int]) -> dict[str, int]:
    """The parser labels the UD conversion left unmapped (written ``dep``), by label."""
    return {k[len(UNMAPPED) :]: v for k, v in sorted(skipped.items()) if k.startswith(UNMAPPED)}


def source_counts(sources: Sequence[Any]) -> dict[str, Any]:
    """What the sources counted while read (dumps read back from their shards: pages by
    kind, lines the cleaner left out), by source, for the card; empty when they count
    nothing (plain text)."""
    out: dict[str, Any] = {}
    for key, attribute in (("pages", "stats"), ("cleaning_left_out", "cleaning")):
        found = [dict(getattr(s, attribute, {})) for s in sources]
        if any(found):
            out[key] = {
                s.name: dict(sorted(c.items())) for s, c in zip(sources, found, strict=True)
            }
    return out


DEFAULT_SPLIT = SplitSpec(
    "ratio",
    (80, 10, 10),
    reason="raw text has no splits of its own: sentences are split by ratio 80/10/10 "
    "(identical sentences always in one split)",
)


def text_split(split: str | None) -> SplitSpec:
    """``--split ratio:a/b/c`` (raw text has no ``ud`` splits), default 80/10/10."""
    if split is None:
        return DEFAULT_SPLIT
    spec = parse_split(split)
    if spec.mode != "ratio":
        raise UsageError("--split: raw text has no splits of its own; use ratio:80/10/10")
    return spec


def card_task_options(
    defaults: Mapping[str, Mapping[str, Any]],
    given: Mapping[str, Mapping[str, Any]],
    explicit: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """The card's ``task_options``: per task, the family's defaults, then the options given
    for that task (``task_options`` win over ``--unimorph``/``--noun-forms``)."""
    out = {k: dict(v) for k, v in explicit.items()}
    for name, table in given.items():
        entry = out.setdefault(name, {})
        for key, value in table.items():
            entry.setdefault(key, value)
    merged = {k: dict(v) for k, v in defaults.items()}
    for name, table in out.items():
        merged.setdefault(name, {}).update(table)
    return {k: merged[k] for k in sorted(merged)}
