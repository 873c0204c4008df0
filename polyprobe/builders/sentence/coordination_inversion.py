"""``coordination_inversion``: have the two coordinated main clauses been swapped?"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.rendering import (
    capitalise_first,
    casefold_first,
    lexical_case,
    render,
    sentence_inputs,
    starts_upper,
)
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.hashing import lexical_key, stable_u64
from polyprobe.loaders.records import Sentence, SurfaceToken

# Paired punctuation must open and close inside one clause body: a body that moved with half a
# pair would leave the other half stranded in the other clause. Brackets are directional;
# quotation marks are not reliably so (German „...“ and »...«, English “...”), so all quote
# characters together must come in even numbers.
_BRACKETS: tuple[tuple[str, str], ...] = (("(", ")"), ("[", "]"), ("{", "}"), ("「", "」"))
_QUOTES = frozenset("\"'“”„‟‘’‚‛«»‹›『』")

LONGER = ("first", "second", "equal")


def _base(deprel: str) -> str:
    return deprel.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class Clauses:
    """Token ranges of a qualifying sentence: body 1 = ``[0, sep)``, separator =
    ``[sep, cc]``, body 2 = ``[cc + 1, end)``, final punctuation = ``[end, n)``."""

    sep: int
    cc: int
    end: int

    @property
    def longer(self) -> str:
        first, second = self.sep, self.end - self.cc - 1
        return "first" if first > second else "second" if second > first else "equal"


def _balanced(tokens: list[SurfaceToken]) -> bool:
    text = "".join(t.form for t in tokens if t.upos == "PUNCT")
    if not text:
        return True
    for opening, closing in _BRACKETS:
        depth = 0
        for ch in text:
            if ch == opening:
                depth += 1
            elif ch == closing:
                depth -= 1
                if depth < 0:
                    return False
        if depth:
            return False
    return sum(ch in _QUOTES for ch in text) % 2 == 0


def find_clauses(sentence: Sentence) -> Clauses | str:
    """The two clause bodies of a sentence, or the reason it does not qualify.

    Rules (issue 3): exactly one ``cc`` (any subtype) in the sentence; the root has exactly one
    ``conj``, which has its own ``nsubj`` (any subtype) and governs the ``cc``; the separator is
    the ``cc`` with the punctuation right before it; body 1 is everything before the
    separator and contains no word of the second conjunct; body 2 runs from after the ``cc``
    to the sentence-final punctuation and contains only words of the second conjunct. Bodies
    begin and end with a word (never move a quote or bracket to the wrong side), keep paired
    punctuation inside themselves, and no multiword token straddles a boundary.
    """
    words = sentence.words
    # Runs on every sentence in both passes and most have no cc: an exact comparison, with
    # the subtype split only for relations that have one (``_base(d) == "cc"``).
    ccs = [w for w in words if (d := w.deprel) == "cc" or (":" in d and _base(d) == "cc")]
    if not ccs:
        return "no cc"
    if len(ccs) > 1:
        return "more than one cc"
    root = sentence.root
    conjs = [w for w in sentence.children(root.id) if _base(w.deprel) == "conj"]
    if len(conjs) != 1:
        return "root without exactly one conj"
    conj = conjs[0]
    if not any(_base(c.deprel) == "nsubj" for c in sentence.children(conj.id)):
        return "second conjunct without its own subject"
    cc = ccs[0]
    if cc.head != conj.id:
        return "cc not attached to the second conjunct"
    # Descendants of the conjunct (inclusive).
    inside = {conj.id}
    stack = [conj.id]
    while stack:
        for child in sentence.children(stack.pop()):
            inside.add(child.id)
            stack.append(child.id)
    tokens = sentence.surface_tokens()
    membership: list[bool] = []
    cc_index = -1
    for i, tok in enumerate(tokens):
        flags = {w in inside for w in tok.word_ids}
        if len(flags) != 1:
            return "multiword token across the clause boundary"
        membership.append(flags.pop())
        if cc.id in tok.word_ids:
            if len(tok.word_ids) != 1:
                return "multiword token across the clause boundary"
            cc_index = i
    sep = cc_index
    while sep > 0 and tokens[sep - 1].upos == "PUNCT":
        sep -= 1
    end = len(tokens)
    while end > cc_index + 1 and tokens[end - 1].upos == "PUNCT":
        end -= 1
    body1, body2 = tokens[:sep], tokens[cc_index + 1 : end]
    if not body1 or not body2:
        return "empty clause body"
    if any(membership[:sep]) or not all(membership[cc_index + 1 : end]):
        return "clause spans not contiguous"
    if any(membership[i] and tokens[i].upos != "PUNCT" for i in range(end, len(tokens))):
        return "clause spans not contiguous"
    for body in (body1, body2):
        if body[0].upos == "PUNCT" or body[-1].upos == "PUNCT":
            return "clause body begins or ends with punctuation"
        if not _balanced(body):
            return "paired punctuation across the clause boundary"
    if [lexical_key(t.form) for t in body1] == [lexical_key(t.form) for t in body2]:
        return "identical clauses"
    return Clauses(sep, cc_index, end)


def invert(sentence: Sentence, clauses: Clauses, params: TaskParams) -> list[SurfaceToken]:
    """Body 2 + separator + body 1 + final punctuation.

    Spacing: gaps *inside* a body travel with the body (they belong to its words: ``$20``
    stays glued), the gap before the separator and the gap before the final punctuation are
    positional (they belong to the punctuation: ``memories, but`` -> ``one, but``), and the
    separator and the final punctuation keep their own. Capitals follow
    :func:`polyprobe.builders.rendering.permute`: the sentence start is the only capital slot
    whose occupant changes; if its original occupant starts with a capital, the new first
    word is capitalised unless its case is lexical, and the old first word is lowercased
    unless its case is lexical (PROPN, NOUN in noun-capitalising languages, all caps, keep-case
    forms such as English "I")."""
    tokens = sentence.surface_tokens()
    lexical = lexical_case(tokens, params, sentence)
    lang = params.lang
    sep, cc, end = clauses.sep, clauses.cc, clauses.end
    order = [*range(cc + 1, end), *range(sep, cc + 1), *range(sep), *range(end, len(tokens))]
    out: list[SurfaceToken] = []
    before_sep = tokens[sep - 1].space_after
    before_end = tokens[end - 1].space_after
    last_body2, last_body1 = end - 1, sep - 1
    capital = starts_upper(tokens[0].form)
    for position, j in enumerate(order):
        tok = tokens[j]
        space = tok.space_after
        if j == last_body2:
            space = before_sep
        elif j == last_body1:
            space = before_end
        form = tok.form
        if j == 0 and capital and not lexical[0]:
            form = casefold_first(form, lang)
        if position == 0 and capital and not lexical[j]:
            form = capitalise_first(form, lang)
        out.append(SurfaceToken(form, tok.word_ids, space, tok.upos))
    return out


class CoordinationInversion(Task):
    """Original sentence vs. the same sentence with its two coordinated main clauses swapped
    (*They might be only memories, but I can still feel each one* -> *I can still feel each
    one, but they might be only memories*).

    Balance by which clause is longer (SentEval balanced it): natural text puts the longer
    conjunct second more often (end weight), so in the inverted copies the longer clause would
    come first more often, and clause lengths alone would predict the label. The first pass
    counts qualifying sentences whose first body is longer, second body longer, or equal;
    ``derive`` keeps every sentence of the minority side and of the equal side and the same
    number of the majority side (those with the smallest ``stable_u64(seed, task, treebank,
    sent_id)``), so that in both classes the longer clause comes first exactly as often as
    second. ``balance_longer_clause = false`` in a profile keeps everything.
    """

    name: ClassVar[str] = "coordination_inversion"
    relative_cost: ClassVar[float] = 0.5
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Decide whether the two coordinated main clauses of the sentence have been swapped "
        "(inverted) or not (original)."
    )
    label_names: ClassVar[tuple[str, ...]] = ("original", "inverted")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = True
    paired_copies: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Each source sentence gives both an 'original' and an 'inverted' row (same group); "
        "SentEval showed only one of them per sentence.",
        "A sentence qualifies with exactly one cc; the root has a single conj with its own "
        "subject governing that cc; both clause bodies are contiguous. The separator "
        "(punctuation + cc) and the final punctuation stay in place; only the bodies swap.",
        "Balanced by which clause is longer (in surface tokens): in both classes the longer "
        "clause comes first exactly as often as second (seeded undersampling of the majority "
        "side; equal-length sentences are all kept).",
        "Spacing inside a body moves with it; the gaps before the separator and the final "
        "punctuation are positional. A sentence-initial capital moves to the new first word "
        "unless a word's case is lexical (PROPN, NOUN in noun-capitalising languages).",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0) -> None:
        super().__init__(params, seed)
        self._hashes: dict[str, list[int]] = {"first": [], "second": []}
        self.observed: Counter[str] = Counter()
        self._keep_below: dict[str, int] | None = None
        self._derived: dict[str, Any] = {}
        self.longer: Counter[str] = Counter()

    @property
    def balance(self) -> bool:
        return bool(self.option("balance_longer_clause", True))

    def _hash(self, sentence: Sentence) -> int:
        return stable_u64(self.seed, self.name, sentence.source.treebank, sentence.sent_id)

    def observe(self, sentence: Sentence) -> None:
        clauses = find_clauses(sentence)
        if isinstance(clauses, str):
            return
        self.observed[clauses.longer] += 1
        if clauses.longer in self._hashes:
            self._hashes[clauses.longer].append(self._hash(sentence))

    def derive(self) -> dict[str, Any]:
        first, second = self.observed["first"], self.observed["second"]
        keep = min(first, second)
        if self.balance:
            # Per side, keep the sentences whose hash is <= the keep-th smallest (all of the
            # minority side); -1 keeps none (a side with no counterpart would be a pure cue).
            self._keep_below = {
                side: sorted(self._hashes[side])[keep - 1] if keep else -1
                for side in ("first", "second")
            }
        self._derived = {
            "qualifying": {side: self.observed[side] for side in LONGER},
            "balance_longer_clause": self.balance,
            "kept": {
                "first": keep if self.balance else first,
                "second": keep if self.balance else second,
                "equal": self.observed["equal"],
            },
            "length_unit": "surface tokens of the clause body",
        }
        return dict(self._derived)

    def parameters(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "cc": "exactly one cc (any subtype) in the sentence",
            "conj": "the root's single conj, with its own nsubj, governing the cc",
            "separator": "punctuation before the cc + the cc; stays in place",
            "final_punctuation": "kept in place",
            "balance_longer_clause": self.balance,
            "longer_clause": {side: self.longer[side] for side in LONGER},
        }
        if self._derived:
            params["qualifying"] = self._derived["qualifying"]
        return params

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        clauses = find_clauses(sentence)
        if isinstance(clauses, str):
            return self.drop(clauses)
        side = clauses.longer
        keep_below = self._keep_below
        if (
            keep_below is not None
            and side in keep_below
            and self._hash(sentence) > keep_below[side]
        ):
            return self.drop("longer-clause balance (majority side undersampled)")
        inverted = invert(sentence, clauses, self.params)
        original = sentence_inputs(sentence)
        original_text = original["sentence"]
        inverted_text = render(inverted)
        if inverted_text == original_text:
            return self.drop("inversion does not change the text")
        self.longer[side] += 1
        return [
            Candidate(
                original,
                "original",
                copy="original",
            ),
            Candidate(
                {"sentence": inverted_text, "tokens": [t.form for t in inverted]},
                "inverted",
                copy="inverted",
            ),
        ]
