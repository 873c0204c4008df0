"""Raw text → sentences → tokens, offline, for any language.

Choices (measured on the 16 shared UD treebanks, see the project's raw-text notes):

* **Sentences**: segtok's ``split_single`` by default. It is language-agnostic, needs no
  model and had the best macro boundary F1 (95.7; spaCy's sentencizer 91.4), Georgian
  included. ``sentences="spacy"`` uses spaCy's rule-based sentencizer instead.
* **Tokens**: ``spacy.blank(lang)``'s tokenizer (macro token F1 98.6; works offline for most
  languages). Where spaCy has no module for the language (Georgian), ``spacy.blank("xx")``
  plus a suffix rule per script spaCy's character classes lack (without it a final ``.``
  after Mkhedruli letters stays glued: token exact-match 4 %, with it 98.9 F1). Without spaCy
  installed: segtok's ``word_tokenizer`` (F1 98.4), with ``split_contractions`` for English so
  that ``didn't`` is ``did n't`` as in UD. A user may name an installed spaCy pipeline (a
  package name or a folder): its tokenizer is used; nothing is ever downloaded.

What was used, with versions, is :meth:`Segmenter.describe` (the card records it).
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from polyprobe.errors import UsageError

__all__ = ["SCRIPT_SUFFIXES", "SENTENCE_SPLITTERS", "Segmenter", "Token"]

SENTENCE_SPLITTERS: tuple[str, ...] = ("segtok", "spacy")
# Suffix rules added to spaCy's multi-language tokenizer for scripts its character classes
# lack: a sentence-final mark after a letter of the script is a token of its own.
SCRIPT_SUFFIXES: dict[str, str] = {
    "Georgian": r"(?<=[\u10A0-\u10FF\u1C90-\u1CBF\u2D00-\u2D2F])[.!?…]",
    "Armenian": r"(?<=[\u0531-\u0587])[.!?…]",
}

Token = tuple[str, bool]  # (form, space after)

# New words a spaCy tokenizer may add to its vocabulary before it is made afresh. spaCy keeps
# every word it has seen (a lexeme and a cache entry, ~450 bytes each, measured): over a
# dump's millions of distinct words (names, numbers, typos) one worker's memory would grow
# with the dump. Renewing it (one ``spacy.blank``, ~0.5 s) every 200,000 new words bounds
# that to ~90 MB and changes no token (the vocabulary only memoises the rules).
VOCAB_RENEWAL = 200_000


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


class Segmenter:
    """Splits paragraphs into sentences and sentences into tokens for language ``lang``.

    ``tokenizer``: ``auto`` (spaCy's blank tokenizer when spaCy is installed, else segtok),
    ``spacy``, ``segtok``, or the name or folder of an installed spaCy pipeline. Picklable:
    the spaCy object is made again in each process on first use."""

    def __init__(self, lang: str, sentences: str = "segtok", tokenizer: str = "auto") -> None:
        if sentences not in SENTENCE_SPLITTERS:
            raise UsageError(
                f"sentence splitter must be one of {', '.join(SENTENCE_SPLITTERS)}, "
                f"not {sentences!r}"
            )
        self.lang = lang
        self.sentences = sentences
        self.tokenizer = tokenizer
        if tokenizer == "auto":
            self.tokenizer = "spacy" if _version("spacy") else "segtok"
        if self.tokenizer != "segtok" and _version("spacy") is None:
            raise UsageError(
                f"tokenizer {tokenizer!r} needs spaCy, which is not installed "
                "(pip install 'polyprobe[text]'), or use the segtok tokenizer"
            )
        if self.sentences == "spacy" and _version("spacy") is None:
            raise UsageError("the spaCy sentencizer needs spaCy (pip install 'polyprobe[text]')")
        if _version("segtok") is None and (
            self.sentences == "segtok" or self.tokenizer == "segtok"
        ):
            raise UsageError("segtok is not installed (pip install 'polyprobe[text]')")
        self._nlp: Any = None
        self._vocab_limit = 0  # renew the tokenizer when its vocabulary passes this size
        self._spacy_lang: str | None = None
        self._rules: list[str] = []
        self._splitter: Any = None
        self._split_limit = 0

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_nlp"] = None
        state["_splitter"] = None
        return state

    # --- spaCy ------------------------------------------------------------------------------
    def _spacy(self) -> Any:
        if self._nlp is None:
            import spacy

            name = self.tokenizer
            if name == "spacy":
                try:
                    nlp = spacy.blank(self.lang)
                    self._spacy_lang = self.lang
                except ImportError:
                    nlp = spacy.blank("xx")
                    self._spacy_lang = "xx"
                    suffixes = [*nlp.Defaults.suffixes, *SCRIPT_SUFFIXES.values()]
                    nlp.tokenizer.suffix_search = spacy.util.compile_suffix_regex(suffixes).search
                    self._rules = sorted(SCRIPT_SUFFIXES)
                tokenizer_only(nlp)
                # spaCy caches the tokens of at most 10,000 distinct whitespace-separated
                # pieces by default: a dump has far more, and a piece first seen after the
                # cache filled is cut by the prefix/suffix/infix regexes at every occurrence.
                # Up to VOCAB_RENEWAL pieces (the tokenizer is renewed at about that point
                # anyway; ~10 MB): measured on the English excerpt's 17,560 sentences with a
                # fresh tokenizer, 0.65x the CPU. The cache is a memo: same tokens (tested
                # against a default ``spacy.blank`` on every sentence of both shared dumps,
                # ``tests/test_segmentation_cache.py``).
                nlp.tokenizer.max_cache_size = VOCAB_RENEWAL
            else:
                nlp = load_spacy_pipeline(name)
                self._spacy_lang = str(nlp.lang)
            self._nlp = nlp
            self._vocab_limit = len(nlp.vocab) + VOCAB_RENEWAL
        return self._nlp

    # --- sentences ----------------------------------------------------------------------
    def split(self, paragraph: str) -> list[str]:
        """The sentences of one paragraph, stripped, empty ones left out."""
        if self.sentences == "segtok":
            if self._splitter is None:  # segtok's split_single, its slow search reversed
                from polyprobe.loaders.sentsplit import splitter

                self._splitter = splitter()
            found = self._splitter(paragraph)
        else:
            if self._splitter is None:
                import spacy

                nlp = spacy.blank(self._spacy_lang or self.lang) if self.lang else None
                if nlp is None:
                    nlp = spacy.blank("xx")
                nlp.add_pipe("sentencizer")
                self._splitter = nlp
                self._split_limit = len(nlp.vocab) + VOCAB_RENEWAL
            found = [s.text for s in self._splitter(paragraph).sents]
            if len(self._splitter.vocab) > self._split_limit:
                self._splitter = None  # made afresh on the next call (see VOCAB_RENEWAL)
        return [s.strip() for s in found if s.strip()]

    # --- tokens -------------------------------------------------------------------------
    def tokens(self, sentence: str) -> list[Token]:
        """The tokens of one sentence with whether a space follows each (whitespace tokens are
        not tokens: they set the previous token's space)."""
        forms, spaces = self.token_columns(sentence)
        return list(zip(forms, spaces, strict=True))

    def token_columns(self, sentence: str) -> tuple[list[str], list[bool]]:
        """:meth:`tokens` as two lists, the forms and whether a space follows each (as an
        input shard's table stores them: no pair is made per token)."""
        if self.tokenizer == "segtok":
            tokens = self._segtok_tokens(sentence)
            return [f for f, _ in tokens], [b for _, b in tokens]
        nlp = self._spacy()
        forms: list[str] = []
        spaces: list[bool] = []
        for tok in nlp.tokenizer(sentence):
            if tok.is_space:
                if spaces:
                    spaces[-1] = True
                continue
            forms.append(tok.text)
            spaces.append(bool(tok.whitespace_))
        if len(nlp.vocab) > self._vocab_limit:
            self._nlp = None  # made afresh on the next call (see VOCAB_RENEWAL)
        return forms, spaces

    def _segtok_tokens(self, sentence: str) -> list[Token]:
        from segtok.tokenizer import split_contractions, word_tokenizer

        words = word_tokenizer(sentence)
        if self.lang == "en":
            words = split_contractions(words)
        out: list[Token] = []
        pos = 0
        for word in words:
            found = sentence.find(word, pos)
            if found < 0:  # not a substring (cannot happen for segtok's own splits)
                out.append((word, True))
                continue
            pos = found + len(word)
            out.append((word, pos < len(sentence) and sentence[pos].isspace()))
        if out:
            out[-1] = (out[-1][0], False)
        return out

    def _blank_language(self) -> None:
        """What :meth:`_spacy` decides for a blank pipeline (spaCy's own language, or
        ``xx`` with the script suffix rules), found without importing spaCy: ``spacy.blank``
        imports ``spacy.lang.<lang>``, so the language is spaCy's when that module is in
        spaCy's package. Why: a build that reads tokenised shard tables (``build wiki``'s
        final step) needs the card's description, not the tokenizer, and ``import spacy``
        is 2.2 s of the final step's ~7 s at ×5 (bench/README.md)."""
        from importlib.util import find_spec

        found = find_spec("spacy")
        folders = list(found.submodule_search_locations or []) if found else []
        known = any((Path(f) / "lang" / self.lang / "__init__.py").is_file() for f in folders)
        self._spacy_lang = self.lang if known else "xx"
        self._rules = [] if known else sorted(SCRIPT_SUFFIXES)

    # --- card ---------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What split and tokenised the text, with versions (for the card)."""
        if self.sentences == "segtok":
            sentences = {"name": "segtok split_single", "version": _version("segtok")}
        else:
            sentences = {"name": "spaCy sentencizer", "version": _version("spacy")}
        if self.tokenizer == "segtok":
            tokens: dict[str, Any] = {
                "name": "segtok word_tokenizer"
                + (" + split_contractions" if self.lang == "en" else ""),
                "version": _version("segtok"),
            }
        else:
            if self.tokenizer == "spacy" and self._nlp is None:
                self._blank_language()
            else:
                self._spacy()
            tokens = {
                "name": "spaCy blank tokenizer"
                if self.tokenizer == "spacy"
                else f"spaCy pipeline {self.tokenizer} (tokenizer only)",
                "version": _version("spacy"),
                "spacy_lang": self._spacy_lang,
            }
            if self._rules:
                tokens["script_suffix_rules"] = self._rules
        return {"sentences": sentences, "tokens": tokens}


def tokenizer_only(nlp: Any) -> None:
    """Stop a blank pipeline's vocabulary computing the lexical attributes of new words,
    except ``is_space`` (the one :meth:`Segmenter.tokens` reads).

    Why: for every word it has not seen, spaCy runs ~20 Python functions (shape, ``like_num``,
    stop word, prefix, suffix, ...) to fill its lexeme; only tokens' text, spacing and
    ``is_space`` are used here. Measured on the English excerpt's 18,203 sentences with a
    fresh tokenizer: 5.6-6.1 s → 3.7-4.0 s. The tokens do not change: the tokenizer's rules
    (prefixes, suffixes, infixes, exceptions, URL match) read no lexical attribute; tested
    against a default ``spacy.blank`` on the shared dumps (``tests/test_segmentation_vocab.py``).
    """
    from spacy.attrs import IS_SPACE

    getters = nlp.vocab.lex_attr_getters
    nlp.vocab.lex_attr_getters = {IS_SPACE: getters[IS_SPACE]} if IS_SPACE in getters else {}


def load_spacy_pipeline(name: str) -> Any:
    """An installed spaCy pipeline (package name or folder); a one-line ``UsageError`` saying
    how to provide it when it is absent (polyprobe never downloads a model)."""
    import spacy

    if not Path(name).exists() and not spacy.util.is_package(name):
        raise UsageError(
            f"spaCy pipeline {name!r} is not installed and polyprobe never downloads models: "
            f"install it where you have network access (python -m spacy download {name}) "
            "or pass the folder of a saved pipeline"
        )
    try:
        return spacy.load(name)
    except (OSError, ImportError, ValueError) as exc:
        raise UsageError(f"spaCy pipeline {name!r} cannot be loaded: {exc}") from None
