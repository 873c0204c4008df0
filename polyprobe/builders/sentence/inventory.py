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
and so are Turkish *İçeride* and *içeride* (plain case-folding turns ``İ`` into ``i`` + U+0307). The inventory is filled by ``observe`` (the pipeline's
first pass) and read by ``candidates``; it holds no per-sentence state, so memory grows with the
vocabulary, not with the corpus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from polyprobe.builders.rendering import (
    capital_slots,
    capitalise_first,
    casefold_first,
    lexical_case,
    starts_upper,
)
from polyprobe.builders.task import TaskParams
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, SurfaceToken

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


def _bump(table: dict[Any, dict[str, int]], key: Any, item: str) -> None:
    inner = table.get(key)
    if inner is None:
        table[key] = {item: 1}
    else:
        inner[item] = inner.get(item, 0) + 1


def has_letter(form: str) -> bool:
    return any(c.isalpha() for c in form)


def case_shape(spelling: str) -> str:
    """``upper`` (all capitals, at least two letters), ``title`` (initial capital) or
    ``lower``: replacements keep the original's shape so that case never marks a change."""
    letters = [c for c in spelling if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "upper"
    return "title" if starts_upper(spelling) else "lower"


class FormInventory:
    """Form statistics of a corpus, collected sentence by sentence.

    ``cell_upos`` limits the ``(lemma, UPOS, feats)`` cells to the word classes a task
    substitutes (all other words still count for frequency, spelling, bigrams and UPOS);
    ``bigrams`` turns the bigram table on (it is the largest part of the inventory).
    ``only_upos`` restricts the whole inventory to tokens whose (single) word has one of these
    UPOS (multiword tokens are then skipped): a task that only needs verbs and the noun test
    saves most of the first pass, but frequencies, ranks and bigrams are then partial, so
    they are only meaningful without it.
    """

    def __init__(
        self,
        params: TaskParams,
        cell_upos: Iterable[str],
        *,
        bigrams: bool = False,
        only_upos: Iterable[str] | None = None,
    ) -> None:
        self.params = params
        self.cell_upos = frozenset(cell_upos)
        self.only_upos = None if only_upos is None else frozenset(only_upos)
        self.form_counts: Counter[str] = Counter()
        # case-folded form -> spelling counts where the case is the word's own (not at a
        # capital slot) and, as a fallback, spellings at slots with the positional capital
        # removed.
        self._spell: dict[str, dict[str, int]] = {}
        self._slot_spell: dict[str, dict[str, int]] = {}
        self.cells: dict[Cell, dict[str, int]] = {}
        self.upos_of: dict[str, dict[str, int]] = {}
        self.bigrams: set[tuple[str, str]] | None = set() if bigrams else None
        self.sentences = 0
        self.tokens = 0
        self._ranks: dict[str, int] | None = None
        self._spellings: dict[str, str | None] | None = None

    # --- first pass ----------------------------------------------------------------------
    def observe(self, sentence: Sentence, tokens: list[SurfaceToken] | None = None) -> None:
        """Count one sentence (``tokens``: its surface tokens, if the caller has them). The
        hot path of the first pass: plain dicts, no per-token object creation."""
        if tokens is None:
            tokens = sentence.surface_tokens()
        slots = capital_slots(tokens)
        # Only slot occupants need the (costly) lexical-case test.
        slot_lexical = dict(
            zip(slots, lexical_case([tokens[i] for i in slots], self.params, sentence), strict=True)
        )
        lang = self.params.lang
        counts = self.form_counts
        spell, slot_spell, upos_of = self._spell, self._slot_spell, self.upos_of
        cell_upos, cells = self.cell_upos, self.cells
        words = sentence.words
        self.sentences += 1
        self.tokens += len(tokens)
        keys: list[str] = []
        only = self.only_upos
        for i, tok in enumerate(tokens):
            if only is not None and tok.upos not in only:
                if len(tok.word_ids) > 1:  # still note the UPOS of the words inside
                    for wid in tok.word_ids:
                        word = words[wid - 1]
                        if word.upos in only:
                            _bump(upos_of, form_key(word.form, lang), word.upos)
                continue
            form = tok.form
            key = form_key(form, lang)
            keys.append(key)
            counts[key] += 1
            if slot_lexical.get(i) is False:
                spelled = casefold_first(form, lang) if starts_upper(form) else form
                table = slot_spell
            else:
                spelled = form
                table = spell
            seen = table.get(key)
            if seen is None:
                table[key] = {spelled: 1}
            else:
                seen[spelled] = seen.get(spelled, 0) + 1
            ids = tok.word_ids
            if len(ids) == 1:
                word = words[ids[0] - 1]
                _bump(upos_of, key, word.upos)
                if word.upos in cell_upos:
                    _bump(
                        cells, (form_key(word.lemma, lang), word.upos, feats_key(word.feats)), key
                    )
            else:
                for wid in ids:
                    word = words[wid - 1]
                    _bump(upos_of, form_key(word.form, lang), word.upos)
        if self.bigrams is not None and keys and only is None:
            bigrams = self.bigrams
            prev = BOS
            for key in keys:
                bigrams.add((prev, key))
                prev = key
            bigrams.add((prev, EOS))
        self._ranks = None
        self._spellings = None

    # --- frequency -----------------------------------------------------------------------
    def _rank_table(self) -> dict[str, int]:
        """Competition ranks ("1224"): forms with equal counts share the rank of the first of
        them, so a frequency band never separates two forms of the same count."""
        if self._ranks is None:
            ranks: dict[str, int] = {}
            order = sorted(self.form_counts.items(), key=lambda kv: (-kv[1], kv[0]))
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
        for key, rank in self._rank_table().items():
            b = rank.bit_length() - 1
            count = self.form_counts[key]
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
        return self.bigrams is not None and (left, right) in self.bigrams

    # --- cells ---------------------------------------------------------------------------
    def cells_of(self, upos: str) -> Iterable[tuple[Cell, dict[str, int]]]:
        """Cells of one UPOS in a fixed order (sorted), for deterministic derivations."""
        return sorted(((c, f) for c, f in self.cells.items() if c[1] == upos), key=lambda x: x[0])


# --- substitution ----------------------------------------------------------------------------


def regular_case(
    inventory: FormInventory,
    tokens: Sequence[SurfaceToken],
    i: int,
    lang: str,
    slots: Sequence[int] | None = None,
) -> bool:
    """Is token ``i`` written the way the corpus usually writes it (allowing the positional
    capital at a sentence start)?

    A substitution writes the replacement in its usual spelling. If the original were in an
    unusual case (a title-cased headline word, an all-caps shout), the changed copy would differ
    from the original in case as well as in the word: a cue. Such tokens are not replaced."""
    form = tokens[i].form
    usual = inventory.spelling(form_key(form, lang))
    if usual is None or form == usual:
        return usual is not None
    if slots is None:
        slots = capital_slots(tokens)
    return i in slots and form == capitalise_first(usual, lang)


def substitute(
    tokens: Sequence[SurfaceToken],
    i: int,
    spelling: str,
    params: TaskParams,
) -> list[SurfaceToken]:
    """Replace the form of surface token ``i`` by ``spelling`` (its usual, non-positional
    spelling), keeping the whitespace skeleton and the capital slot.

    The capital rule is :func:`polyprobe.builders.rendering.permute`'s for a slot whose
    occupant changes: if the original occupant of a capital slot starts with a capital, the new
    occupant is capitalised (a replacement whose usual spelling is already capitalised, such as
    a German noun, is left as written); everywhere else the replacement keeps its usual
    spelling. Spacing is positional, UPOS and word ids stay those of the slot."""
    tok = tokens[i]
    form = spelling
    if i in capital_slots(tokens) and starts_upper(tok.form):
        form = capitalise_first(spelling, params.lang)
    out = list(tokens)
    out[i] = SurfaceToken(form, tok.word_ids, tok.space_after, tok.upos)
    return out
