"""The cleaner's walk over mwparserfromhell's *token list*, without building its node tree.

Why: ``mwparserfromhell.parse`` is two steps, a C tokenizer and a pure-Python builder that
turns the flat token list into ``Wikicode``/``Node`` objects. Profiled on the shared English
excerpt, the builder took about two thirds of the parse and the parse about 40 % of the
whole input-shard stage (read, clean, split, tokenise); the walker then throws the tree
away at once, keeping only visible text. Walking the tokens gives the same text for a
fraction of the cost.

How it stays exact: the fast path handles the token shapes the tree walker
(:class:`~polyprobe.loaders.wikitext.WikitextCleaner`) reads as plain strings (a link title, a
template name, a tag name, a URL, ``<nowiki>`` contents) only when they are made of text
tokens alone; any other shape of one construct (a link title holding an entity, say) is
handed to the library's own ``Builder`` for just that construct's tokens and walked by the
tree walker. ``tests/test_wikitokens.py`` checks, page by page over both shared dumps, that
the paragraphs equal those of the tree walk over ``mwparserfromhell.parse``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["TokenWalker"]


class TokenWalker:
    """Appends the visible text of a page's tokens to a list, as ``WikitextCleaner._walk``
    would for the parsed tree; ``cleaner`` supplies the rules (hidden namespaces, dropped
    and formula tags) and the tree walk for the shapes this fast path leaves to the library.
    One per cleaner: it holds the tokenizer, not a page."""

    def __init__(self, cleaner: Any) -> None:
        from mwparserfromhell.parser import CTokenizer, use_c
        from mwparserfromhell.parser import tokens as tk

        if use_c and CTokenizer is not None:
            self._tokenizer: Any = CTokenizer()
        else:  # the pure-Python tokenizer yields the same tokens
            from mwparserfromhell.parser.tokenizer import Tokenizer

            self._tokenizer = Tokenizer()
        self.cleaner = cleaner
        self.tk = tk
        self._open = frozenset(
            {
                tk.TemplateOpen,
                tk.ArgumentOpen,
                tk.WikilinkOpen,
                tk.ExternalLinkOpen,
                tk.HeadingStart,
                tk.CommentStart,
                tk.TagOpenOpen,
                tk.HTMLEntityStart,
            }
        )
        self._close = frozenset(
            {
                tk.TemplateClose,
                tk.ArgumentClose,
                tk.WikilinkClose,
                tk.ExternalLinkClose,
                tk.HeadingEnd,
                tk.CommentEnd,
                tk.TagCloseSelfclose,
                tk.TagCloseClose,
                tk.HTMLEntityEnd,
            }
        )
        self._handlers: dict[type, Callable[[list[Any], int, int, list[int], list[str]], None]] = {
            tk.WikilinkOpen: self._wikilink,
            tk.TemplateOpen: self._template,
            tk.TagOpenOpen: self._tag,
            tk.ExternalLinkOpen: self._external,
            tk.HTMLEntityStart: self._entity,
            tk.ArgumentOpen: self._argument,
            tk.HeadingStart: self._heading,
            tk.CommentStart: _nothing,
        }

    # --- the token list -----------------------------------------------------------------
    def tokenize(self, text: str) -> tuple[list[Any], list[int]]:
        """The tokens of ``text`` (as ``mwparserfromhell.parse`` makes them) and, for every
        opening token, the index of its closing one (-1 elsewhere)."""
        tokens = self._tokenizer.tokenize(text, 0, False)
        match = [-1] * len(tokens)
        stack: list[int] = []
        opening, closing = self._open, self._close
        for i, token in enumerate(tokens):
            kind = type(token)
            if kind in opening:
                stack.append(i)
            elif kind in closing:
                match[stack.pop()] = i
        return tokens, match

    def top_level(self, tokens: list[Any], match: list[int]) -> list[tuple[int, int]]:
        """``(start, end)`` (end inclusive) of every top-level construct, in order."""
        spans = []
        i, n = 0, len(tokens)
        while i < n:
            end = match[i] if match[i] >= 0 else i
            spans.append((i, end))
            i = end + 1
        return spans

    def is_heading(self, token: Any) -> bool:
        return type(token) is self.tk.HeadingStart

    # --- walking ------------------------------------------------------------------------
    def walk(
        self, tokens: list[Any], start: int, stop: int, match: list[int], out: list[str]
    ) -> None:
        """The visible text of ``tokens[start:stop]`` (whole constructs) appended to ``out``."""
        text_kind = self.tk.Text
        handlers = self._handlers
        i = start
        while i < stop:
            token = tokens[i]
            kind = type(token)
            if kind is text_kind:
                out.append(token["text"])
                i += 1
                continue
            end = match[i]
            handler = handlers.get(kind)
            if handler is None or end < 0:  # a stray token: let the library decide
                end = i if end < 0 else end
                self.library(tokens, i, end, out)
            else:
                handler(tokens, i, end, match, out)
            i = end + 1

    def library(self, tokens: list[Any], start: int, end: int, out: list[str]) -> None:
        """The construct ``tokens[start:end + 1]`` built by mwparserfromhell and walked by the
        tree walker (the shapes the fast path does not read itself)."""
        from mwparserfromhell.parser import Builder

        code = Builder().build(list(tokens[start : end + 1]))
        self.cleaner._walk(code.nodes, out)

    def title_nodes(self, tokens: list[Any], start: int, end: int, match: list[int]) -> str:
        """The visible text of a heading's title (for the section name)."""
        out: list[str] = []
        self.walk(tokens, start + 1, end, match, out)
        return "".join(out)

    def _plain(self, tokens: list[Any], start: int, stop: int) -> str | None:
        """``tokens[start:stop]`` as a string when they are all text tokens, else ``None``."""
        text_kind = self.tk.Text
        parts = []
        for token in tokens[start:stop]:
            if type(token) is not text_kind:
                return None
            parts.append(token["text"])
        return "".join(parts)

    def _separators(
        self, tokens: list[Any], start: int, end: int, match: list[int], kinds: tuple[type, ...]
    ) -> list[int]:
        """Indices of the top-level tokens of ``kinds`` inside the construct at ``start``."""
        found = []
        i = start + 1
        while i < end:
            if type(tokens[i]) in kinds:
                found.append(i)
            i = match[i] + 1 if match[i] >= 0 else i + 1
        return found

    # --- constructs ---------------------------------------------------------------------
    def _wikilink(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        seps = self._separators(tokens, start, end, match, (self.tk.WikilinkSeparator,))
        if len(seps) > 1:
            self.library(tokens, start, end, out)
            return
        title_end = seps[0] if seps else end
        raw = self._plain(tokens, start + 1, title_end)
        if raw is None:
            self.library(tokens, start, end, out)
            return
        if self.cleaner._hidden_link(raw):
            return
        if seps:
            self.walk(tokens, seps[0] + 1, end, match, out)
        else:
            out.append(raw.strip().lstrip(":").strip())

    def _template(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        seps = self._separators(tokens, start, end, match, (self.tk.TemplateParamSeparator,))
        name = self._plain(tokens, start + 1, seps[0] if seps else end)
        if name is None:
            self.library(tokens, start, end, out)
            return
        self.cleaner._template(name, out)

    def _argument(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        out.append(self.cleaner.parameter_hole)

    def _heading(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        out.append("\n\n")
        self.walk(tokens, start + 1, end, match, out)
        out.append("\n\n")

    def _entity(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        self.library(tokens, start, end, out)

    def _external(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        seps = self._separators(tokens, start, end, match, (self.tk.ExternalLinkSeparator,))
        if len(seps) > 1:
            self.library(tokens, start, end, out)
            return
        if seps:
            self.walk(tokens, seps[0] + 1, end, match, out)
        elif not tokens[start].get("brackets"):
            url = self._plain(tokens, start + 1, end)
            if url is None:
                self.library(tokens, start, end, out)
                return
            out.append(url)

    def _tag(
        self, tokens: list[Any], start: int, end: int, match: list[int], out: list[str]
    ) -> None:
        tk = self.tk
        # the tag's name: text tokens up to its first attribute or the end of the opening tag
        i = start + 1
        while i < end and type(tokens[i]) is tk.Text:
            i += 1
        name = self._plain(tokens, start + 1, i)
        if i < end and type(tokens[i]) not in (tk.TagAttrStart, tk.TagCloseOpen):
            name = None  # a name with markup in it
        # skip the attributes (any tokens, nested constructs whole) to the opening tag's end
        while i < end and type(tokens[i]) not in (tk.TagCloseOpen, tk.TagCloseSelfclose):
            i = match[i] + 1 if match[i] >= 0 else i + 1
        if name is None or i > end:
            self.library(tokens, start, end, out)
            return
        self_closing = type(tokens[i]) is tk.TagCloseSelfclose
        contents: tuple[int, int] | None = None
        if not self_closing:
            close = self._separators(tokens, i, end, match, (tk.TagOpenClose,))
            if len(close) != 1:
                self.library(tokens, start, end, out)
                return
            contents = (i + 1, close[0])
        action = self.cleaner._tag_action(name, tokens[start].get("wiki_markup"))
        if action is not None:
            out.append(action)
            return
        if contents is None:
            return
        if name.strip().casefold() == "nowiki":
            raw = self._plain(tokens, *contents)
            if raw is None:
                self.library(tokens, start, end, out)
                return
            out.append(raw)
            return
        self.walk(tokens, contents[0], contents[1], match, out)


def _nothing(tokens: list[Any], start: int, end: int, match: list[int], out: list[str]) -> None:
    """A comment: nothing visible."""
