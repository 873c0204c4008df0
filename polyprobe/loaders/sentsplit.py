"""segtok's ``split_single`` with its two end-anchored tests matched from the end of the text.

Why: segtok decides whether a ``.`` ends a sentence by searching the text before it for its
``ABBREVIATIONS`` pattern, which is anchored at the end (``... $``). A forward search tries
the pattern's long alternation at every position of the fragment, so the test costs time
in the fragment's length: measured on the paragraphs of the shared English excerpt it was
about 90 % of ``split_single`` (2.0 s of 2.3 s; 18,818 fragments). The same pattern compiled
with the ``regex`` module's ``REVERSE`` flag starts at the end and fails at once elsewhere
(0.17 s), and finds a match exactly when the forward search does (a backtracking search
answers *whether* a match exists whatever its direction). ``match`` of a reversed pattern
tries only the end of the text (another 3.5x on these fragments): the same answer, since the
pattern ends in ``$`` and the text it is asked about never ends in whitespace (``$`` could
otherwise also match before a final newline).

The same holds for the lower-case continuation test, ``BEFORE_LOWER.match``: a lazy ``.*?``
then a terminal and spaces at the end, so a forward match grows ``.*?`` over the whole
fragment (20 % of the splitter after the change above); see :func:`_reversed_before_lower`.

Everything else is segtok's own: its patterns and bracket helpers are imported, and the two
loops below follow ``segtok.segmenter._sentences`` and ``_abbreviation_joiner`` (segtok 1.5,
MIT) line by line with those two calls changed. For any other segtok version :func:`splitter`
returns segtok's ``split_single`` itself. ``tests/test_sentsplit.py`` compares the two on
every paragraph of the shared dumps and on hand-written abbreviation cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

__all__ = ["SegtokSplitter", "splitter"]


def splitter() -> Callable[[str], list[str]]:
    """A :class:`SegtokSplitter` for the segtok release it follows (1.5), else segtok's own
    ``split_single``."""
    version = metadata.version("segtok")
    if version.split(".")[:2] == ["1", "5"]:
        return SegtokSplitter()
    from segtok.segmenter import split_single as segtok_split

    return segtok_split  # type: ignore[no-any-return]


class SegtokSplitter:
    """``segtok.segmenter.split_single`` (default arguments) as a callable holding segtok's
    patterns and the reversed abbreviation pattern (compiled once per splitter)."""

    def __init__(self) -> None:
        import regex
        from segtok import segmenter

        self.sg = segmenter
        self.reverse = regex.compile(
            segmenter.ABBREVIATIONS.pattern, segmenter.ABBREVIATIONS.flags | regex.REVERSE
        )
        self.before_lower = _reversed_before_lower(segmenter)

    def __call__(self, text: str) -> list[str]:
        """Split ``text`` at sentence terminals and at newlines, as segtok does."""
        spans = self.sg.DO_NOT_CROSS_LINES.split(text)
        sentences = _sentences(self.sg, self.reverse, self.before_lower, spans)
        return [s for ss in sentences for s in ss.split("\n")]


def _sentences(sg: Any, reverse: Any, before_lower: Any, spans: list[str]) -> Iterator[str]:
    """segtok's ``_sentences`` with ``join_on_lowercase=False`` and the default short
    sentence length: join spans back together into sentences as necessary."""
    last: str | None = None
    for current in _abbreviation_joiner(sg, reverse, spans):
        if last is None:
            last = current
        elif _continues(sg, before_lower, last, current):
            last = f"{last}{current}"
        else:
            yield last.strip()
            last = current
    if last is not None:
        yield last.strip()


def _continues(sg: Any, before_lower: Any, last: str, current: str) -> bool:
    """Whether ``current`` continues the sentence ``last`` (segtok's four join rules, in
    its order: a lower-case continuation, an open round or square bracket closed in a short
    fragment, a continuation word; the one change: ``before_lower.match`` for
    ``BEFORE_LOWER.match``)."""
    if before_lower.match(last) and sg.LOWER_WORD.match(current):
        return True
    short = len(current) < sg.SHORT_SENTENCE_LENGTH or len(last) < sg.SHORT_SENTENCE_LENGTH
    for brackets in ("()", "[]"):
        if (
            short
            and sg._is_open(last, brackets)
            and (
                sg._is_not_opened(current, brackets)
                or last.endswith(" et al. ")
                or (sg.UPPER_CASE_END.search(last) and sg.UPPER_CASE_START.match(current))
            )
        ):
            return True
    return bool(sg.CONTINUATIONS.match(current))


def _abbreviation_joiner(sg: Any, reverse: Any, spans: list[str]) -> Iterator[str]:
    """segtok's ``_abbreviation_joiner``: join spans that end in a known abbreviation (the
    one change: ``reverse.match`` for ``ABBREVIATIONS.search``)."""
    segment: int | None = None
    total = len(spans)
    for pos in range(total):
        if pos and pos % 2:  # even => segment, odd => (potential) terminal
            prev_s = spans[pos - 1]
            next_s = spans[pos + 1] if pos + 1 < total else None
            if not _joined(sg, reverse, prev_s, spans[pos], next_s):
                yield "".join(spans[segment : pos + 1])
                segment = None
        elif segment is None:
            segment = pos
    if segment is not None:
        yield "".join(spans[segment:total])


def _joined(sg: Any, reverse: Any, prev_s: str, marker: str, next_s: str | None) -> bool:
    """Whether the terminal ``marker`` after ``prev_s`` does not end a sentence (segtok's
    rules in its order: a space before it, a known abbreviation, a lone lower-case word, a
    date or a middle initial after a ``.``)."""
    if prev_s[-1:].isspace():
        return True
    if marker[0] != ".":
        return False
    if reverse.match(prev_s):  # prev_s does not end in whitespace (tested above)
        return True
    return bool(
        next_s
        and (
            sg.LONE_WORD.match(next_s)
            or (sg.ENDS_IN_DATE_DIGITS.search(prev_s) and sg.MONTH.match(next_s))
            or (sg.MIDDLE_INITIAL_END.search(prev_s) and sg.UPPER_WORD_START.match(next_s))
        )
    )


def _reversed_before_lower(sg: Any) -> Any:
    """segtok's ``BEFORE_LOWER`` (``.*?`` then a terminal and spaces at the end) as the part
    after ``.*?``, reversed: its ``match`` tries the end of the text only.

    Why: ``BEFORE_LOWER.match`` lets its lazy ``.*?`` (``DOTALL``) grow one character at a
    time over the whole fragment, trying the terminal alternatives at each position: a cost
    in the fragment's length, 20 % of the splitter on the English excerpt. A match exists
    exactly when the rest of the pattern matches somewhere, i.e. ends at the end of the text
    (its ``\\s+$`` takes a final newline too), which the reversed ``match`` tries at once; the
    caller only asks whether it matches."""
    import regex

    prefix = " .*?\n"
    pattern = sg.BEFORE_LOWER.pattern
    if not pattern.startswith(prefix) or not sg.BEFORE_LOWER.flags & regex.DOTALL:
        raise RuntimeError("segtok's BEFORE_LOWER changed: update sentsplit")
    return regex.compile(pattern[len(prefix) :], sg.BEFORE_LOWER.flags | regex.REVERSE)
