"""What the document tasks share: the window option, window starts, the sentence-unit rule,
the repeated-sentence check and the documents' first-pass counts.

Why windows from the start of a document by default: DiscoEval (Chen et al. 2019) and its
Spanish rebuild (Araujo et al. 2022) take the *first* sentences of an article (an article's
opening is where discourse order is most constrained); ``windows`` lets a profile take more
non-overlapping windows of a document, in order, or all of them (``0``). Discourse coherence is
the exception: DiscoEval's DC windows come from anywhere in an article, so it takes every window
by default (``discourse_coherence``'s docstring).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from polyprobe.builders.task import Observation, Shared
from polyprobe.errors import UsageError
from polyprobe.hashing import normalise_text
from polyprobe.loaders.records import Document

PARAGRAPH_UNITS = "document units are paragraphs, not sentences (split them into sentences)"


def check_windows(task: str, windows: Any) -> int:
    """``windows`` as an int >= 0, or a ``UsageError`` naming the task."""
    if isinstance(windows, bool):
        windows = None
    try:
        value = int(windows)
    except (TypeError, ValueError):
        value = -1
    if value < 0 or (isinstance(windows, float) and windows != value):
        raise UsageError(
            f"[tasks.{task}] windows must be a whole number >= 0 (0 = every window), "
            f"not {windows!r}"
        )
    return value


def window_starts(n_units: int, size: int, windows: int) -> range:
    """Starts of the non-overlapping windows of ``size`` units in a document of ``n_units``:
    the first ``windows`` of them (all when ``windows`` is 0)."""
    starts = range(0, n_units - size + 1, size)
    return starts if windows == 0 else starts[:windows]


def document_windows(
    document: Document, size: int, windows: int, stride: int | None = None
) -> list[int]:
    """Starts of the windows of ``size`` units of ``document`` that never span one of its
    breaks (a dropped sentence): windows are cut from the start of each run of consecutive
    units every ``stride`` units (default ``size``: non-overlapping), in document order, and
    the first ``windows`` of them are taken (all when 0). Without breaks and with the default
    stride this is :func:`window_starts` over the whole document."""
    step = stride or size
    starts = [
        run.start + offset
        for run in document.runs()
        for offset in range(0, len(run) - size + 1, step)
    ]
    return starts if windows == 0 else starts[:windows]


ALIGNS: tuple[str, ...] = ("paragraph", "document")


def check_align(task: str, align: Any) -> str:
    """``align`` as one of :data:`ALIGNS`, or a ``UsageError`` naming the task."""
    if align not in ALIGNS:
        raise UsageError(
            f"[tasks.{task}] align must be one of {', '.join(map(repr, ALIGNS))} "
            f"(windows from paragraph openings, or from the document's start), not {align!r}"
        )
    return str(align)


def paragraph_windows(
    document: Document, size: int, windows: int, within: bool = False
) -> list[int]:
    """Starts of the windows of ``size`` units of ``document`` that begin at a paragraph
    opening (:attr:`Document.paragraphs`) and never span a break: at each opening in order, a
    window when the run it is in has ``size`` units from there (``within``: and the paragraph
    has), the next one from the first opening after its end (non-overlapping); the first
    ``windows`` of them (all when 0). Why openings: DiscoEval's windows are the opening
    sentences of a paragraph (an article's first five, a paragraph's first two), where a
    topic sentence leads and the sentences after it point back (pronouns, definite mentions);
    a window cut mid-paragraph has no first sentence to find. Measured on the shared English
    excerpt (MiniLM, logistic regression, 5-fold by article): BSO pairs anywhere 0.50,
    paragraph openings 0.68; SP windows anywhere 0.21, from an opening across paragraphs 0.21,
    inside one paragraph 0.26 (chance 0.5 and 0.2). A document that marks no paragraphs falls
    back to :func:`document_windows`."""
    if not document.paragraphs:
        return document_windows(document, size, windows)
    run_end = {i: run.stop for run in document.runs() for i in run}
    openings = list(document.paragraphs)
    paragraph_end = dict(zip(openings, [*openings[1:], len(document.units)], strict=True))
    starts: list[int] = []
    free = 0  # the first unit no window holds yet
    for opening in openings:
        if opening < free:
            continue
        end = min(run_end[opening], paragraph_end[opening]) if within else run_end[opening]
        if end - opening >= size:
            starts.append(opening)
            free = opening + size
            if windows and len(starts) == windows:
                break
    return starts


def check_stride(task: str, stride: Any, size: int) -> int:
    """``stride`` as an int in 1..``size`` (how far the next window starts), or a
    ``UsageError`` naming the task."""
    if isinstance(stride, bool) or not isinstance(stride, int) or not 1 <= stride <= size:
        raise UsageError(
            f"[tasks.{task}] stride must be a whole number from 1 to {size} ({size} = windows "
            f"do not overlap), not {stride!r}"
        )
    return stride


def no_window_reason(size: int, document: Document | None = None, align: str = "document") -> str:
    """Why a document long enough gives no window: its breaks leave no run of ``size``, or
    (windows from paragraph openings, a document that marks paragraphs) no paragraph opens
    one."""
    marks = align == "paragraph" and document is not None and bool(document.paragraphs)
    if marks and document is not None and longest_run(document) >= size:
        return f"no paragraph opens {size} consecutive sentences"
    return f"no {size} consecutive sentences (dropped sentences cut the document)"


def longest_run(document: Document) -> int:
    """The most directly consecutive units of the document (all of them without breaks)."""
    return max((len(r) for r in document.runs()), default=0)


def repeats(units: Sequence[str]) -> bool:
    """Whether two units of a window are the same text (after normalisation) or one is empty:
    an order or a position would then be ambiguous."""
    texts = [normalise_text(u) for u in units]
    return len(set(texts)) != len(texts) or not all(texts)


def document_key(document: Document) -> tuple[str, str]:
    """A document's identity across the stream: its source's name and its id."""
    return (document.source.treebank, document.doc_id)


class DocumentCounts(Observation):
    """How many documents (by unit kind) and how long they are: every document task reports
    it, so the card says what the windows were cut from. A document's length is its longest
    run of consecutive sentences (all of them when it has no breaks): ``documents_with_5_or_
    more_sentences`` counts the documents a window of 5 can be cut from."""

    def __init__(self) -> None:
        self.documents: Counter[str] = Counter()
        self.lengths: Counter[int] = Counter()
        self.with_paragraphs = 0

    def observe(self, document: Document, shared: Shared) -> None:
        self.documents[document.unit] += 1
        self.with_paragraphs += bool(document.paragraphs)
        if document.unit == "sentence":
            # what windows can be cut from: the longest run between dropped sentences
            self.lengths[longest_run(document)] += 1

    def merge(self, later: Observation) -> None:
        """Take in the counts of the documents right after this observation's
        (``Counter.update`` adds ``later``'s new keys after this one's, as one pass would)."""
        assert isinstance(later, DocumentCounts)
        self.documents.update(later.documents)
        self.lengths.update(later.lengths)
        self.with_paragraphs += later.with_paragraphs

    def report(self, size: int, paragraphs: bool = False) -> dict[str, Any]:
        """The counts, with how many sentence documents have at least ``size`` sentences
        (``paragraphs``: and how many mark paragraphs, for the tasks that align windows with
        them)."""
        return {
            "documents": dict(sorted(self.documents.items())),
            "sentence_documents": sum(self.lengths.values()),
            f"documents_with_{size}_or_more_sentences": sum(
                n for length, n in self.lengths.items() if length >= size
            ),
            **({"documents_marking_paragraphs": self.with_paragraphs} if paragraphs else {}),
        }


def infeasible_reason(counts: DocumentCounts, size: int) -> str | None:
    """Why no window of ``size`` sentences can exist, or None."""
    if not counts.documents:
        return (
            "the source has no documents (a UD treebank needs '# newdoc id' lines; "
            "its file order is not taken for document order)"
        )
    if not counts.lengths:
        return PARAGRAPH_UNITS
    if not any(length >= size for length in counts.lengths):
        return f"no document has {size} or more sentences"
    return None
