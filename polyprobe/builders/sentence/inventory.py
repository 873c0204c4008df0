"""Corpus-wide form inventory for the substitution tasks (``odd_man_out``,
``subject_verb_agreement``).

Both tasks put a word into a sentence that was not there. Where that word comes from, how it is
spelled and how frequent it is decide whether a probe can spot the substitution by something
other than the probed property, so they are answered once, here, from the corpus itself:

* **cells**: ``(lemma, UPOS, feats) -> forms`` for the syntactic words that stand alone as a
  surface token (a word inside a multiword token has no spelling of its own in the text);
* **frequency**: counts of case-folded surface forms and their log2 *rank* bands;
* **spelling**: how a form is written when its case is not owed to a sentence start;
* **bigrams**: which adjacent surface forms occur in the corpus (``odd_man_out``'s soft
  preference for replacements that fit their neighbours);
* **UPOS per form**: e.g. "seen as NOUN anywhere" (``subject_verb_agreement`` refuses such
  replacements: *the dog walks* -> *the dog walk* is fine, but a form that is also a noun can
  make the changed sentence grammatical under another parse).

Everything is keyed by :func:`form_key` (the language-aware lowercasing of the first letter,
then :func:`polyprobe.hashing.lexical_key`), so sentence-initial *Dogs* and *dogs* are one form,
and so are Turkish *İçeride* and *içeride* (plain case-folding turns ``İ`` into ``i`` + U+0307).
The inventory is filled by the tasks' observations (the build's first pass) and read when they
fit; a fit keeps what its ``candidates`` read of it (the inventory itself, or only the spellings
it will write: any :class:`Spellings` serves :func:`regular_case`). It holds no per-sentence
state, so memory grows with the vocabulary, not with the corpus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, pairwise
from operator import itemgetter
from typing import Any, Protocol

from polyprobe.builders.rendering import (
    capital_slots,
    capitalise_first,
    casefold_first,
    lexical_case,
    starts_upper,
)
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, SurfaceToken, Word

FeatsKey = tuple[tuple[str, str], ...]
Cell = tuple[str, str, FeatsKey]  # (case-folded lemma, UPOS, sorted feature items)

# Sentence-boundary markers in the bigram table (control characters: no form contains them).
BOS = "\x02"
EOS = "\x03"


def feats_key(feats: dict[str, str]) -> FeatsKey:
    """A hashable, order-independent feature bundle (layered keys such as ``Number[subj]``
    are ordinary keys here)."""
    return tuple(sorted(feats.items()))


def feats_string(key: FeatsKey) -> str:
    """CoNLL-U spelling of a bundle (``_`` when empty), for cards and lexical keys."""
    return "|".join(f"{k}={v}" for k, v in key) or "_"


# form_key is asked for every token in both passes; memoised per language, bounded.
_FORM_KEYS: dict[str, dict[str, str]] = {}
_FORM_KEYS_MAX = 1 << 18


def form_key(form: str, lang: str) -> str:
    """The identity of a form for counting and lookup: the first letter lowered the way the
    language lowers a sentence-initial capital (:func:`casefold_first`: Turkish ``I`` -> ``ı``,
    ``İ`` -> ``i``), the rest case-folded and NFC (:func:`lexical_key`)."""
    cache = _FORM_KEYS.get(lang)
    if cache is None:
        cache = _FORM_KEYS[lang] = {}
    key = cache.get(form)
    if key is None:
        if len(cache) >= _FORM_KEYS_MAX:
            cache.clear()
        key = cache[form] = lexical_key(casefold_first(form, lang))
    return key


def form_keys(forms: Iterable[str], lang: str) -> list[str]:
    """:func:`form_key` of each form (one dict lookup per memoised form: the passes ask for
    every token of a sentence)."""
    get = _FORM_KEYS.setdefault(lang, {}).get
    return [get(form) or form_key(form, lang) for form in forms]


def form_key_getter(lang: str) -> Callable[[str], str]:
    """:func:`form_key` for one language as a function of the form: the memo's lookup, with
    :func:`form_key` only for forms not memoised (or whose key is empty)."""
    get = _FORM_KEYS.setdefault(lang, {}).get

    def key_of(form: str) -> str:
        return get(form) or form_key(form, lang)

    return key_of


def _add(table: dict[Any, dict[str, int]], key: Any, item: str, n: int) -> None:
    inner = table.get(key)
    if inner is None:
        table[key] = {item: n}
    else:
        inner[item] = inner.get(item, 0) + n


def _ordered(value: Any) -> Any:
    """``value`` with every dict (nested too) as its list of items: equal only if the keys
    are in the same order."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    return value


def has_letter(form: str) -> bool:
    return any(c.isalpha() for c in form)


def case_shape(spelling: str) -> str:
    """``upper`` (all capitals, at least two letters), ``title`` (initial capital) or
    ``lower``: replacements keep the original's shape so that case never marks a change."""
    letters = [c for c in spelling if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "upper"
    return "title" if starts_upper(spelling) else "lower"


# A single-word token of a substituted word class as the inventory counts it: (form, lemma,
# UPOS, feature items in the word's own order). Raw strings, not keys: counting them is one
# C-level ``Counter.update`` per sentence, and :func:`form_key`/:func:`feats_key` are then
# applied once per distinct value.
Single = tuple[str, str, str, tuple[tuple[str, str], ...]]


class SentenceDigest:
    """What a :class:`FormInventory` needs of one sentence, computed once per sentence and
    shared by the inventories that observe it (see :func:`sentence_digest`).

    Why shared: ``odd_man_out`` and ``subject_verb_agreement`` both keep an inventory, and
    digesting a sentence (capital slots, lexical case, the words behind single-word tokens) is
    most of what observing it costs them.

    ``forms`` and ``upos``: per surface token its form and UPOS (``MWT`` for a multiword
    token); ``positional``: (form, UPOS) of the tokens whose capital is positional (capital
    slots that are not lexically capitalised); ``mwt_words``: (form, UPOS) of the words inside
    multiword tokens. :meth:`keys` and :meth:`singles` are computed on first request."""

    __slots__ = (
        "forms",
        "upos",
        "positional",
        "mwt_words",
        "_lang",
        "_keys",
        "_singles",
        "_words",
    )

    def __init__(self, sentence: Sentence, context: TaskContext, tokens: list[SurfaceToken]):
        words = sentence.words
        slots = capital_slots(tokens)
        self.positional = [
            (tokens[i].form, tokens[i].upos)
            for i, lexical in zip(
                slots,
                lexical_case([tokens[i] for i in slots], context, sentence),
                strict=True,
            )
            if not lexical
        ]
        self._lang = context.lang
        self._keys: list[str] | None = None
        # cell UPOS set -> singles; the words they come from (one per single-word token).
        self._singles: dict[frozenset[str], list[Single]] = {}
        self.mwt_words: list[tuple[str, str]] = []
        if len(tokens) == len(words):
            # No multiword token: token i is word i (its form and UPOS are the word's).
            self.forms = [w.form for w in words]
            self.upos = [w.upos for w in words]
            self._words: list[Word] = words
            return
        self.forms = [t.form for t in tokens]
        self.upos = [t.upos for t in tokens]
        single_words: list[Word] = []
        for tok in tokens:
            ids = tok.word_ids
            if len(ids) == 1:
                single_words.append(words[ids[0] - 1])
            else:
                for wid in ids:
                    w = words[wid - 1]
                    self.mwt_words.append((w.form, w.upos))
        self._words = single_words

    def keys(self) -> list[str]:
        """:func:`form_key` of every surface form."""
        if self._keys is None:
            self._keys = form_keys(self.forms, self._lang)
        return self._keys

    def singles(self, upos: frozenset[str]) -> list[Single]:
        """The single-word tokens whose UPOS is in ``upos``, as :data:`Single` values (a
        single-word token's form is its word's form)."""
        found = self._singles.get(upos)
        if found is None:
            found = self._singles[upos] = [
                (w.form, w.lemma, w.upos, tuple(w.feats.items()))
                for w in self._words
                if w.upos in upos
            ]
        return found


def sentence_digest(sentence: Sentence, context: TaskContext) -> SentenceDigest:
    """The :class:`SentenceDigest` of ``sentence``. Asked through the record's
    :class:`~polyprobe.builders.task.Shared` (``shared.get(sentence_digest, context)``), so
    every inventory that observes the sentence in one process gets the same digest, made
    once."""
    return SentenceDigest(sentence, context, sentence.surface_tokens())


class FormInventory:
    """Form statistics of a corpus, collected sentence by sentence.

    ``cell_upos`` limits the ``(lemma, UPOS, feats)`` cells to the word classes a task
    substitutes (all other words still count for frequency, spelling, bigrams and UPOS);
    ``bigrams`` turns the bigram table on (it is the largest part of the inventory).
    ``only_upos`` restricts the whole inventory to tokens whose (single) word has one of these
    UPOS (multiword tokens are then skipped): a task that only needs verbs and the noun test
    saves most of the first pass, but frequencies, ranks and bigrams are then partial, so
    they are only meaningful without it.

    Why two layers: ``observe`` only counts raw values of the sentence (C-level
    ``Counter.update`` of the :class:`SentenceDigest` the record's ``Shared`` holds); the keyed
    tables (``form_counts``, ``cells``, ``upos_of``, ``bigrams``, spellings) are brought up to
    date from those counts the first time one of them is read after an ``observe``, applying
    :func:`form_key` and the filters once per distinct value instead of once per token. The
    pending counts are emptied then, so memory stays bounded by the vocabulary.
    """

    def __init__(
        self,
        context: TaskContext,
        cell_upos: Iterable[str],
        *,
        bigrams: bool = False,
        only_upos: Iterable[str] | None = None,
    ) -> None:
        self.context = context
        self.cell_upos = frozenset(cell_upos)
        self.only_upos = None if only_upos is None else frozenset(only_upos)
        self._form_counts: Counter[str] = Counter()
        # case-folded form -> spelling counts where the case is the word's own (not at a
        # capital slot) and, as a fallback, spellings at slots with the positional capital
        # removed.
        self._spell: dict[str, dict[str, int]] = {}
        self._slot_spell: dict[str, dict[str, int]] = {}
        self._cells: dict[Cell, dict[str, int]] = {}
        self._upos_of: dict[str, dict[str, int]] = {}
        self._bigrams: set[tuple[str, str]] | None = set() if bigrams else None
        # Raw counts since the keyed tables were last brought up to date (see the docstring):
        # (form, token UPOS) of every surface token (with ``only_upos``: of those it keeps),
        # cell words, positional capitals, words inside multiword tokens.
        self._new_tokens: Counter[tuple[str, str]] = Counter()
        self._new_singles: Counter[Single] = Counter()
        self._new_positional: Counter[tuple[str, str]] = Counter()
        self._new_mwt_words: Counter[tuple[str, str]] = Counter()
        self._pending = False
        self.sentences = 0
        self.tokens = 0
        self._ranks: dict[str, int] | None = None
        self._spellings: dict[str, str | None] | None = None

    # --- first pass ----------------------------------------------------------------------
    def observe(self, sentence: Sentence, shared: Shared) -> SentenceDigest:
        """Count one sentence (``shared``: the record's per-sentence work, which holds its
        digest). The hot path of the first pass: a few C-level updates per sentence. Returns
        the sentence's digest (the caller may count more of it)."""
        digest = shared.get(sentence_digest, self.context)
        forms = digest.forms
        self.sentences += 1
        self.tokens += len(forms)
        only = self.only_upos
        if only is None:
            self._new_tokens.update(zip(forms, digest.upos, strict=True))
        else:  # only the tokens the fold keeps (C-level filter: a third of them for verbs+nouns)
            tokens = zip(forms, digest.upos, strict=True)
            self._new_tokens.update(compress(tokens, map(only.__contains__, digest.upos)))
        self._new_singles.update(digest.singles(self.cell_upos))
        if digest.positional:
            self._new_positional.update(digest.positional)
        if digest.mwt_words:
            self._new_mwt_words.update(digest.mwt_words)
        if self._bigrams is not None and forms and self.only_upos is None:
            self._bigrams.update(pairwise([BOS, *digest.keys(), EOS]))
        self._pending = True
        self._ranks = None
        self._spellings = None
        return digest

    def merge(self, later: FormInventory) -> None:
        """Take in the sentences ``later`` (a fresh inventory of the same settings) counted
        right after this one's.

        Exact because ``observe`` only adds raw counts, and the keyed tables are folded from
        them in order of first occurrence: adding ``later``'s raw counts to this inventory's
        (``Counter.update`` puts ``later``'s new values after this one's, in ``later``'s order)
        leaves the raw counts one inventory fed both ranges would hold, so the next fold
        makes the same tables, key order included. ``later`` must not have been read (its
        keyed tables folded): a fold's inner order depends on what it folded together."""
        if self._settings() != later._settings():
            raise ValueError("cannot merge form inventories of different settings")
        if any((later._form_counts, later._spell, later._slot_spell, later._cells, later._upos_of)):
            raise ValueError("cannot merge a form inventory that was read (its tables folded)")
        self.sentences += later.sentences
        self.tokens += later.tokens
        self._new_tokens.update(later._new_tokens)
        self._new_singles.update(later._new_singles)
        self._new_positional.update(later._new_positional)
        self._new_mwt_words.update(later._new_mwt_words)
        if self._bigrams is not None and later._bigrams is not None:
            self._bigrams |= later._bigrams
        self._pending = self._pending or later._pending
        if later._pending:
            self._ranks = None
            self._spellings = None

    def _settings(self) -> tuple[Any, ...]:
        return (self.context, self.cell_upos, self.only_upos, self._bigrams is None)

    def state(self) -> dict[str, Any]:
        """What the inventory has counted, its keyed tables folded: the sentences and tokens,
        the form counts, spellings, cells, UPOS per form and the bigrams (if on)."""
        self._update()
        return {
            "sentences": self.sentences,
            "tokens": self.tokens,
            "form_counts": self._form_counts,
            "spell": self._spell,
            "slot_spell": self._slot_spell,
            "cells": self._cells,
            "upos_of": self._upos_of,
            "bigrams": self._bigrams,
        }

    def __eq__(self, other: object) -> bool:
        """Same settings and same :meth:`state`, every dict in the same key order (an
        inventory is part of a task's fit, and fits are compared in full)."""
        if not isinstance(other, FormInventory):
            return NotImplemented
        return self._settings() == other._settings() and _ordered(self.state()) == _ordered(
            other.state()
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by content

    def _update(self) -> None:
        """Fold the raw counts of the sentences observed since the last read into the keyed
        tables: exactly what per-token counting would have produced."""
        if not self._pending:
            return
        self._pending = False
        lang = self.context.lang
        only = self.only_upos
        mwt_counted = only is None or "MWT" in only
        memo = _FORM_KEYS.setdefault(lang, {}).get  # form_key, inlined: once per type
        counts, cells, upos_of = self._form_counts, self._cells, self._upos_of
        spell, slot_spell = self._spell, self._slot_spell
        positional = self._new_positional
        for pair, n in self._new_tokens.items():
            form, upos = pair
            if only is not None and upos not in only:
                continue
            key = memo(form) or form_key(form, lang)
            counts[key] = counts.get(key, 0) + n
            at_slot = positional.get(pair, 0) if positional else 0
            if n > at_slot:
                inner = spell.get(key)
                if inner is None:
                    spell[key] = {form: n - at_slot}
                else:
                    inner[form] = inner.get(form, 0) + n - at_slot
            if at_slot:
                spelled = casefold_first(form, lang) if starts_upper(form) else form
                _add(slot_spell, key, spelled, at_slot)
            if upos != "MWT":
                inner = upos_of.get(key)
                if inner is None:
                    upos_of[key] = {upos: n}
                else:
                    inner[upos] = inner.get(upos, 0) + n
        for (form, upos), n in self._new_mwt_words.items():
            if mwt_counted or upos in only:  # type: ignore[operator]
                _add(upos_of, memo(form) or form_key(form, lang), upos, n)
        sorted_feats: dict[tuple[tuple[str, str], ...], FeatsKey] = {}  # few distinct bundles
        for (form, lemma, upos, items), n in self._new_singles.items():
            if only is None or upos in only:
                feats = sorted_feats.get(items)
                if feats is None:
                    feats = sorted_feats[items] = tuple(sorted(items))
                cell = (memo(lemma) or form_key(lemma, lang), upos, feats)
                key = memo(form) or form_key(form, lang)
                inner = cells.get(cell)
                if inner is None:
                    cells[cell] = {key: n}
                else:
                    inner[key] = inner.get(key, 0) + n
        self._new_tokens = Counter()
        self._new_singles = Counter()
        self._new_positional = Counter()
        self._new_mwt_words = Counter()

    @property
    def form_counts(self) -> Counter[str]:
        """Case-folded form -> tokens."""
        self._update()
        return self._form_counts

    @property
    def cells(self) -> dict[Cell, dict[str, int]]:
        """``(lemma, UPOS, feats)`` -> case-folded form -> tokens (``cell_upos`` only)."""
        self._update()
        return self._cells

    @property
    def upos_of(self) -> dict[str, dict[str, int]]:
        """Case-folded form -> UPOS -> words (inside multiword tokens too)."""
        self._update()
        return self._upos_of

    @property
    def bigrams(self) -> set[tuple[str, str]] | None:
        """Adjacent case-folded forms (with the :data:`BOS`/:data:`EOS` markers), if on."""
        self._update()
        return self._bigrams

    # --- frequency -----------------------------------------------------------------------
    def _rank_table(self) -> dict[str, int]:
        """Competition ranks ("1224"): forms with equal counts share the rank of the first of
        them, so a frequency band never separates two forms of the same count."""
        if self._ranks is None:
            ranks: dict[str, int] = {}
            # count descending, then key: a stable sort by count (reverse keeps the order of
            # equals) of the pairs in key order, both at C level (no key tuple per form)
            order = sorted(sorted(self.form_counts.items()), key=itemgetter(1), reverse=True)
            prev_count = -1
            rank = 0
            for position, (key, count) in enumerate(order, 1):
                if count != prev_count:
                    rank = position
                    prev_count = count
                ranks[key] = rank
            self._ranks = ranks
        return self._ranks

    def rank(self, key: str) -> int | None:
        return self._rank_table().get(key)

    def band(self, key: str) -> int | None:
        """log2 frequency band measured on ranks: band ``k`` holds ranks ``[2^k, 2^(k+1))``.

        Under Zipf's law log2(rank) is log2(frequency) up to a constant, so these are the
        log2 frequency buckets SentEval matched on; ranks rather than counts because counts
        scale with corpus size (a band of counts 8-15 is mid-frequency in a 20k-token
        treebank and rare in EWT), ranks much less."""
        rank = self.rank(key)
        return None if rank is None else rank.bit_length() - 1

    def band_table(self) -> list[dict[str, Any]]:
        """Per band: rank range, count range and number of forms (for the card)."""
        rows: dict[int, dict[str, Any]] = {}
        form_counts = self.form_counts
        for key, rank in self._rank_table().items():
            b = rank.bit_length() - 1
            count = form_counts[key]
            row = rows.get(b)
            if row is None:
                rows[b] = {
                    "band": b,
                    "ranks": [1 << b, (1 << (b + 1)) - 1],
                    "counts": [count, count],
                    "forms": 1,
                }
            else:
                row["counts"][0] = min(row["counts"][0], count)
                row["counts"][1] = max(row["counts"][1], count)
                row["forms"] += 1
        return [rows[b] for b in sorted(rows)]

    # --- spelling ------------------------------------------------------------------------
    def spelling(self, key: str) -> str | None:
        """The usual spelling of a case-folded form where its case is its own: the most
        frequent spelling away from capital slots (ties: the smallest string), else the most
        frequent slot spelling with the positional capital removed; ``None`` if never seen.
        Memoised until the next ``observe`` (the second pass asks for it per token)."""
        memo = self._spellings
        if memo is None:
            memo = self._spellings = {}
        elif key in memo:
            return memo[key]
        found = None
        self._update()
        for table in (self._spell, self._slot_spell):
            counts = table.get(key)
            if counts:
                found = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
                break
        memo[key] = found
        return found

    def seen_as(self, key: str, upos: str) -> bool:
        counts = self.upos_of.get(key)
        return bool(counts) and counts.get(upos, 0) > 0

    def bigram(self, left: str, right: str) -> bool:
        bigrams = self.bigrams
        return bigrams is not None and (left, right) in bigrams

    # --- cells ---------------------------------------------------------------------------
    def cells_of(self, upos: str) -> Iterable[tuple[Cell, dict[str, int]]]:
        """Cells of one UPOS in a fixed order (sorted), for deterministic derivations."""
        return sorted(((c, f) for c, f in self.cells.items() if c[1] == upos), key=lambda x: x[0])


# --- substitution ----------------------------------------------------------------------------


class Spellings(Protocol):
    """Where a substitution looks up the usual spelling of a case-folded form: a whole
    :class:`FormInventory`, or a fit that kept only the spellings of the forms it may replace
    (``odd_man_out``'s, which pickles to another process without the inventory)."""

    def spelling(self, key: str) -> str | None: ...


def regular_case(
    spellings: Spellings,
    tokens: Sequence[SurfaceToken],
    i: int,
    lang: str,
    slots: Sequence[int] | None = None,
    key: str | None = None,
) -> bool:
    """Is token ``i`` written the way the corpus usually writes it (allowing the positional
    capital at a sentence start)?

    A substitution writes the replacement in its usual spelling. If the original were in an
    unusual case (a title-cased headline word, an all-caps shout), the changed copy would differ
    from the original in case as well as in the word: a cue. Such tokens are not replaced.
    (``spellings``: any holder of the usual spellings, at least of token ``i``'s form;
    ``slots``, ``key``: the capital slots and the form's key, if the caller has them.)"""
    form = tokens[i].form
    usual = spellings.spelling(form_key(form, lang) if key is None else key)
    if usual is None or form == usual:
        return usual is not None
    if slots is None:
        slots = capital_slots(tokens)
    return i in slots and form == capitalise_first(usual, lang)


def substitute(
    tokens: Sequence[SurfaceToken],
    i: int,
    spelling: str,
    context: TaskContext,
    slots: Sequence[int] | None = None,
) -> list[SurfaceToken]:
    """Replace the form of surface token ``i`` by ``spelling`` (its usual, non-positional
    spelling), keeping the whitespace skeleton and the capital slot.

    The capital rule is :func:`polyprobe.builders.rendering.permute`'s for a slot whose
    occupant changes: if the original occupant of a capital slot starts with a capital, the new
    occupant is capitalised (a replacement whose usual spelling is already capitalised, such as
    a German noun, is left as written); everywhere else the replacement keeps its usual
    spelling. Spacing is positional, UPOS and word ids stay those of the slot (``slots``: the
    capital slots of ``tokens``, if the caller has them)."""
    tok = tokens[i]
    form = spelling
    if slots is None:
        slots = capital_slots(tokens)
    if i in slots and starts_upper(tok.form):
        form = capitalise_first(spelling, context.lang)
    out = list(tokens)
    out[i] = SurfaceToken(form, tok.word_ids, tok.space_after, tok.upos)
    return out
