"""UD treebanks as a document source: ``# newdoc id`` documents of sentences.

Why here and not in a task: several discourse tasks (sentence position, ordering, coherence)
need which sentences are neighbours in one document; how a treebank marks that is the
format's business. A document is the run of consecutive sentences of one file that carry the
same doc id (the CoNLL-U reader carries a ``# newdoc id`` forward to the sentences after it).
Sentences without a doc id belong to no document: a treebank without ``# newdoc`` marks (GSD
treebanks are sentence collections) has no documents at all, and its file order is never
taken for document order.

A document never bridges a sentence the reader skipped as invalid (``--on-invalid skip``):
the gap is seen in the line numbers, and the document is cut there into two parts with the
same doc id (so they share a group and never straddle splits).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import LINE_FORMATS, open_binary
from polyprobe.loaders.records import Document, Sentence
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.sources import TreebankSource, read_sources
from polyprobe.metadata import SourceInfo

# A gap of this many unexplained lines between two sentences of one file means a sentence in
# between was skipped (a sentence block has >= 4 lines: sent_id, text, a word, a blank);
# smaller gaps are comment lines the reader does not keep (``# newpar`` without a value).
SKIP_GAP_LINES = 3

_NEWDOC = b"# newdoc"


def _prefix_before_mark(path: str | Path) -> tuple[bool, bytes]:
    """Whether the file has a ``# newdoc`` line, and its bytes before the first one: read
    a megabyte at a time up to that line only (a treebank marks its first document on its
    first lines; decompressing all of EWT's training file for them took ~0.1 s a build).
    Through the input layer, so a missing file or a folder is one clean error, and a gzip
    stream that breaks before the mark (``--on-invalid skip`` or not: nothing after the
    break can be read) is the fatal ``truncated-gzip``/``corrupt-gzip`` naming the file and
    the line reached, never an ``EOFError`` traceback."""
    data = bytearray()
    with open_binary(path, accept=LINE_FORMATS) as fh:
        while True:
            searched = max(0, len(data) - len(_NEWDOC))
            try:
                chunk = fh.read(1 << 20)
            except InputError as exc:
                line = data.count(b"\n") + 1
                raise InputError(
                    exc.path, line, f"{exc.problem} (at line {line})", exc.reason
                ) from None
            if not chunk:
                return False, bytes(data)
            data += chunk
            if data.startswith(_NEWDOC):
                return True, b""
            at = data.find(b"\n" + _NEWDOC, searched)
            if at >= 0:
                return True, bytes(data[:at])


def sentences_before_document_marks(path: str | Path) -> tuple[bool, int]:
    """Whether a CoNLL-U file (plain or gzipped) has a ``# newdoc`` line, and how many
    sentences come before its first one (they belong to no document: the reader carries a
    doc id forward only). A look at the bytes, so a build can say what it leaves out before
    reading the file."""
    found, prefix = _prefix_before_mark(path)
    blocks = [b for b in prefix.replace(b"\r\n", b"\n").split(b"\n\n") if _has_word(b)]
    return found, len(blocks)


def _has_word(block: bytes) -> bool:
    return any(line[:1].isdigit() for line in block.split(b"\n"))


def has_document_marks(path: str | Path) -> bool:
    """Whether a CoNLL-U file (plain or gzipped) has any ``# newdoc`` line."""
    return sentences_before_document_marks(path)[0]


def sentence_text(sentence: Sentence) -> str:
    """The sentence as a reader sees it: ``# text`` when given, else its surface tokens
    joined by their ``SpaceAfter``."""
    if sentence.text is not None:
        return sentence.text
    parts: list[str] = []
    for token in sentence.surface_tokens():
        parts.append(token.form)
        if token.space_after:
            parts.append(" ")
    return "".join(parts).strip()


def _block_lines(sentence: Sentence) -> int:
    """Lines of a sentence block the record accounts for: a lower bound of its real size."""
    return (
        len(sentence.comments) + len(sentence.words) + len(sentence.multiword) + len(sentence.empty)
    )


def _follows(previous: Sentence, sentence: Sentence) -> bool:
    """Whether ``sentence`` comes right after ``previous`` in its file (no sentence skipped
    between them)."""
    if previous.line <= 0 or sentence.line <= 0:
        return True
    expected = previous.line + _block_lines(previous) + 1
    return sentence.line - expected < SKIP_GAP_LINES


def opens_paragraph(sentence: Sentence) -> bool:
    """Whether a sentence carries a ``# newpar`` mark (with an id or without)."""
    return "newpar id" in sentence.comments or "newpar" in sentence.comments


def paragraph_openings(sentences: list[Sentence], whole: bool = True) -> tuple[int, ...]:
    """The indices of a document's sentences that open a paragraph, or ``()`` when the
    treebank marks no paragraph in it. A document's first sentence opens one when any is
    marked (a new document is a new paragraph); ``whole`` False: the sentences are a part cut
    after a skipped sentence, whose first one opens a paragraph only when marked."""
    return _openings([i for i, s in enumerate(sentences) if opens_paragraph(s)], whole)


def _openings(marked: list[int], whole: bool) -> tuple[int, ...]:
    """:func:`paragraph_openings` from the indices of the marked sentences."""
    if not marked:
        return ()
    return tuple(sorted({0, *marked})) if whole else tuple(marked)


class DocumentGrouper:
    """Sentences in, their documents out, one sentence at a time (:func:`ud_documents` is a
    stream of it): a build that reads the treebanks for its sentence tasks pushes the same
    sentences here, so its document tasks need no reading of their own.

    Of the open document's sentences only what its :class:`Document` needs is kept (text,
    sent_id, whether it opens a paragraph), and the last sentence: holding every sentence
    of a document until it closes kept their words alive across the document, and reading
    with the grouper cost ~60% more than reading alone (memory freed a document at a time is
    colder when the reader reuses it than a sentence's, freed at once).

    ``treebanks``: only sentences of these treebanks form documents (None: all). ``counts``
    (when given) receives ``documents``, ``sentences in documents``, ``sentences without a
    document`` and ``documents cut at a skipped sentence``. ``unit_ids`` are the sentences'
    ``sent_id``s."""

    def __init__(
        self, treebanks: Collection[str] | None = None, counts: Counter[str] | None = None
    ) -> None:
        self.treebanks = None if treebanks is None else frozenset(treebanks)
        self.tally = counts if counts is not None else Counter()
        self.first: Sentence | None = None  # the open document's first and last sentences
        self.last: Sentence | None = None
        self.texts: list[str] = []  # per sentence of the open document
        self.ids: list[str] = []
        self.marked: list[int] = []  # indices of its sentences with a ``# newpar`` mark
        self.whole = True  # whether the open document starts its document (not a part after a skip)

    def push(self, sentence: Sentence) -> list[Document]:
        """The document this sentence closes (none, or the one before it)."""
        if self.treebanks is not None and sentence.source.treebank not in self.treebanks:
            return []
        done: list[Document] = []
        last = self.last
        if last is not None:
            same = sentence.doc_id == last.doc_id and sentence.source.path == last.source.path
            if not same or not _follows(last, sentence):
                if same:
                    self.tally["documents cut at a skipped sentence"] += 1
                done = self.close()
                self.whole = not same  # a part after a skipped sentence opens no document
        if sentence.doc_id is None:
            self.tally["sentences without a document"] += 1
            self.whole = True
        else:
            if self.first is None:
                self.first = sentence
            self.last = sentence
            if opens_paragraph(sentence):
                self.marked.append(len(self.ids))
            self.texts.append(sentence_text(sentence))
            self.ids.append(sentence.sent_id)
        return done

    def close(self) -> list[Document]:
        """The open document, when there is one (at the end of the sentences)."""
        first = self.first
        if first is None:
            return []
        assert first.doc_id is not None
        marked = self.marked
        doc = Document(
            doc_id=first.doc_id,
            units=tuple(self.texts),
            unit="sentence",
            sections=(),
            source=first.source,
            line=first.line,
            unit_ids=tuple(self.ids),
            paragraphs=_openings(marked, self.whole),
        )
        self.tally["documents"] += 1
        self.tally["sentences in documents"] += len(self.ids)
        self.first = self.last = None
        self.texts, self.ids, self.marked = [], [], []
        return [doc]


def ud_documents(
    sentences: Iterable[Sentence], counts: Counter[str] | None = None
) -> Iterator[Document]:
    """The documents of a stream of sentences, in stream order, one sentence a unit (see
    :class:`DocumentGrouper`)."""
    grouper = DocumentGrouper(counts=counts)
    for sentence in sentences:
        yield from grouper.push(sentence)
    yield from grouper.close()


@dataclass(frozen=True)
class UdDocumentSource:
    """A treebank's ``# newdoc`` documents as a :class:`~polyprobe.loaders.source.Source` of
    :class:`Document` records (the same card entry as the treebank: its rows come from it)."""

    treebank: TreebankSource

    @property
    def name(self) -> str:
        return self.treebank.name

    @property
    def info(self) -> SourceInfo:
        return self.treebank.info

    def has_documents(self) -> bool:
        """Whether any of the treebank's files marks a document."""
        return any(has_document_marks(f.path) for f in self.treebank.files)

    def sentences_without_document(self) -> int:
        """Sentences of the treebank that belong to no document (before a file's first
        ``# newdoc``, or in a file without one)."""
        return sum(sentences_before_document_marks(f.path)[1] for f in self.treebank.files)

    def records(
        self, policy: InvalidPolicy, counts: Counter[str] | None = None
    ) -> Iterator[Document]:
        return ud_documents(read_sources([self.treebank], policy=policy, lazy=True), counts)


def ud_document_part(
    sources: Sequence[UdDocumentSource], policy: InvalidPolicy, part: int, parts: int
) -> Iterator[Document]:
    """The documents of the ``part``-th of ``parts`` contiguous ranges of the treebanks'
    sentences (:func:`~polyprobe.loaders.sources.read_sources`' ``part``): the parts in order
    are exactly the documents of the sources' :meth:`UdDocumentSource.records` one after the
    other, as a range starts only where a document opens or none is open (a grouper per
    source and one over all sources agree: a document never spans two files)."""
    sentences = read_sources(
        [s.treebank for s in sources], policy=policy, lazy=True, part=part, parts=parts
    )
    return ud_documents(sentences)
