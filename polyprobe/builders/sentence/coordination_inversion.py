"""``coordination_inversion``: have the two coordinated main clauses been swapped?"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.rendering import (
    capitalise_first,
    casefold_first,
    lexical_case,
    render,
    sentence_inputs,
    starts_upper,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task, TaskContext
from polyprobe.hashing import lexical_key, stable_u64
from polyprobe.loaders.records import Sentence, SurfaceToken
from polyprobe.metadata import Level, TaskMetadata

# Paired punctuation must open and close inside one clause body: a body that moved with half a
# pair would leave the other half stranded in the other clause. Brackets are directional;
# quotation marks are not reliably so (German „...“ and »...«, English “...”), so all quote
# characters together must come in even numbers.
_BRACKETS: tuple[tuple[str, str], ...] = (("(", ")"), ("[", "]"), ("{", "}"), ("「", "」"))
_QUOTES = frozenset("\"'“”„‟‘’‚‛«»‹›『』")

LONGER = ("first", "second", "equal")
LABELS: tuple[str, ...] = ("original", "inverted")


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


def invert(sentence: Sentence, clauses: Clauses, context: TaskContext) -> list[SurfaceToken]:
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
    lexical = lexical_case(tokens, context, sentence)
    lang = context.lang
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


@dataclass(frozen=True)
class CoordinationInversionOptions:
    """``balance_longer_clause``: undersample the majority side so that in both classes the
    longer clause comes first exactly as often as second (default true: natural text puts the
    longer conjunct second more often, so clause lengths alone would predict the label);
    ``false`` keeps every qualifying sentence."""

    balance_longer_clause: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "balance_longer_clause", bool(self.balance_longer_clause))


class CoordinationInversionObservation(Observation):
    """The first pass: qualifying sentences per longer side (``first``, ``second``, ``equal``)
    and, for the two sides that may be undersampled, each sentence's seeded hash
    (:func:`_sentence_hash`)."""

    def __init__(self, seed: int, name: str) -> None:
        self.seed = seed
        self.name = name
        self.hashes: dict[str, list[int]] = {"first": [], "second": []}
        self.observed: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        clauses = find_clauses(sentence)
        if isinstance(clauses, str):
            return
        self.observed[clauses.longer] += 1
        if clauses.longer in self.hashes:
            self.hashes[clauses.longer].append(_sentence_hash(self.seed, self.name, sentence))

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences): per side its hashes after this
        observation's (stream order), and its counts."""
        assert isinstance(later, CoordinationInversionObservation)
        for side, hashes in later.hashes.items():
            self.hashes.setdefault(side, []).extend(hashes)
        self.observed.update(later.observed)


@dataclass(frozen=True)
class CoordinationInversionFit(Fit):
    """``keep_below``: per undersampled side, the largest sentence hash kept (-1 keeps none);
    ``None`` when the balance is off."""

    keep_below: dict[str, int] | None = None


def _sentence_hash(seed: int, name: str, sentence: Sentence) -> int:
    """The seeded order in which a side is undersampled: the same in both passes."""
    return stable_u64(seed, name, sentence.source.treebank, sentence.sent_id)


class CoordinationInversion(Task[Sentence]):
    """Original sentence vs. the same sentence with its two coordinated main clauses swapped
    (*They might be only memories, but I can still feel each one* -> *I can still feel each
    one, but they might be only memories*).

    Balance by which clause is longer (SentEval balanced it): natural text puts the longer
    conjunct second more often (end weight), so in the inverted copies the longer clause would
    come first more often, and clause lengths alone would predict the label. The first pass
    counts qualifying sentences whose first body is longer, second body longer, or equal;
    ``fit`` keeps every sentence of the minority side and of the equal side and the same
    number of the majority side (those with the smallest ``stable_u64(seed, task, treebank,
    sent_id)``), so that in both classes the longer clause comes first exactly as often as
    second. ``balance_longer_clause = false`` in a profile keeps everything.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="coordination_inversion",
        level=Level.SENTENCE,
        description=(
            "Decide whether the two coordinated main clauses of the sentence have been swapped "
            "(inverted) or not (original)."
        ),
        labels=LABELS,
        citation=CONNEAU_2018,
        seed_dependent=True,
        paired_copies=True,
        lexical_control=False,
        notes=(
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
        ),
    )

    Options: ClassVar[type] = CoordinationInversionOptions
    reported: ClassVar[frozenset[str]] = frozenset({"qualifying", "kept", "length_unit"})

    def __init__(self, options: Any = None, context: TaskContext | None = None) -> None:
        super().__init__(options, context)
        # Emitted items per longer side, counted by the candidate pass for the recipe (a tally
        # of what was emitted, like ``drops``; no choice depends on it).
        self.longer: Counter[str] = Counter()

    # --- first pass ---------------------------------------------------------------------
    def observation(self) -> CoordinationInversionObservation:
        return CoordinationInversionObservation(self.seed, self.name)

    def fit(self, observation: Observation | None) -> CoordinationInversionFit:
        assert isinstance(observation, CoordinationInversionObservation)
        observed = observation.observed
        balance = self.options.balance_longer_clause
        first, second = observed["first"], observed["second"]
        keep = min(first, second)
        keep_below = None
        if balance:
            # Per side, keep the sentences whose hash is <= the keep-th smallest (all of the
            # minority side); -1 keeps none (a side with no counterpart would be a pure cue).
            keep_below = {
                side: sorted(observation.hashes[side])[keep - 1] if keep else -1
                for side in ("first", "second")
            }
        report = {
            "qualifying": {side: observed[side] for side in LONGER},
            "balance_longer_clause": balance,
            "kept": {
                "first": keep if balance else first,
                "second": keep if balance else second,
                "equal": observed["equal"],
            },
            "length_unit": "surface tokens of the clause body",
        }
        return CoordinationInversionFit(LABELS, report, keep_below=keep_below)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        params: dict[str, Any] = {
            "cc": "exactly one cc (any subtype) in the sentence",
            "conj": "the root's single conj, with its own nsubj, governing the cc",
            "separator": "punctuation before the cc + the cc; stays in place",
            "final_punctuation": "kept in place",
            "balance_longer_clause": self.options.balance_longer_clause,
            "longer_clause": {side: self.longer[side] for side in LONGER},
        }
        if isinstance(fit, CoordinationInversionFit):
            params["qualifying"] = fit.report["qualifying"]
        return params

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, CoordinationInversionFit)
        clauses = find_clauses(sentence)
        if isinstance(clauses, str):
            return self.drop(clauses)
        side = clauses.longer
        keep_below = fit.keep_below
        if (
            keep_below is not None
            and side in keep_below
            and _sentence_hash(self.seed, self.name, sentence) > keep_below[side]
        ):
            return self.drop("longer-clause balance (majority side undersampled)")
        inverted = invert(sentence, clauses, self.context)
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
