"""``odd_man_out`` (SOMO): has one noun or verb been replaced by another word?"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import CONNEAU_2018
from polyprobe.builders.rendering import capital_slots, render, sentence_inputs
from polyprobe.builders.sentence.inventory import (
    BOS,
    EOS,
    FeatsKey,
    FormInventory,
    Single,
    case_shape,
    feats_string,
    form_key,
    form_key_getter,
    has_letter,
    regular_case,
    substitute,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task, TaskContext
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, lexical_key, stable_rng, stable_u64
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

DEFAULT_UPOS: tuple[str, ...] = ("NOUN", "VERB")
DEFAULT_CLASS_SIZE = 8
_SPLIT_ORDER = {"train": 0, "dev": 1, "test": 2}
_SPLIT_NAMES = ("train", "dev", "test", "none")
_NONE: frozenset[str] = frozenset()
TIERS: tuple[str, ...] = ("neither", "one", "both")  # neighbours whose bigram is attested
LABELS: tuple[str, ...] = ("original", "changed")

Home = tuple[str, FeatsKey]  # (UPOS, features) of a form's most frequent analysis
FirstSplitKey = tuple[str, str, FeatsKey]  # (form key, UPOS, features)


def _strings(value: Any, key: str) -> tuple[str, ...]:
    """A TOML list of strings as a tuple; anything else is a usage error naming the key."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise UsageError(f"[tasks.odd_man_out] {key} must be a list of strings, not {value!r}")
    return tuple(str(v) for v in value)


@dataclass(frozen=True)
class OddManOutOptions:
    """``upos``: the word classes that are replaced (default NOUN and VERB, SentEval's); the
    replacement classes are built over them, so they are also the classes that must match.
    ``class_size``: the number of interchangeable forms a replacement class aims at (default
    8; pools are dealt into classes of ``class_size`` to ``2 * class_size - 1`` forms, at least
    2): smaller classes let the variant engine split more finely, larger ones give each
    sentence more replacements. ``split_aware``: keep classes within the UD split where their
    forms first occur and replace only words whose class starts in the sentence's own split;
    default (unset): on exactly when the build splits by the UD files (``--split ud``), where
    the engine would otherwise drop most validation/test items for a key seen in train."""

    upos: tuple[str, ...] = DEFAULT_UPOS
    class_size: int = DEFAULT_CLASS_SIZE
    split_aware: bool | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "upos", _strings(self.upos, "upos"))
        try:
            set_(self, "class_size", int(self.class_size))
        except (TypeError, ValueError):
            raise UsageError(
                f"[tasks.odd_man_out] class_size must be an integer, not {self.class_size!r}"
            ) from None
        if self.split_aware is not None:
            set_(self, "split_aware", bool(self.split_aware))


class OddManOutObservation(Observation):
    """The first pass: the form inventory (cells of the replaced classes, frequencies,
    spellings, bigrams) and, per UD split index, the raw single-token values of the replaced
    classes (keyed once per distinct value in :meth:`OddManOut.classes`: a C-level set update
    here instead of two key computations per token; the inventory has just counted the same
    list)."""

    def __init__(self, context: TaskContext, upos: Iterable[str]) -> None:
        self.inventory = FormInventory(context, upos, bigrams=True)
        self.seen_in_split: dict[int, set[Single]] = {}

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        inventory = self.inventory
        digest = inventory.observe(sentence, shared)
        split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
        seen = self.seen_in_split.get(split)
        if seen is None:
            seen = self.seen_in_split[split] = set()
        seen.update(digest.singles(inventory.cell_upos))

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's): the inventories
        merged (:meth:`FormInventory.merge`), the values seen per split index unioned."""
        if not isinstance(later, OddManOutObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into odd_man_out")
        self.inventory.merge(later.inventory)
        for split, values in later.seen_in_split.items():
            seen = self.seen_in_split.get(split)
            if seen is None:
                self.seen_in_split[split] = set(values)
            else:
                seen |= values


@dataclass(frozen=True)
class ReplacementClasses:
    """The partition of the eligible vocabulary into replacement classes, with what it was
    derived from (see :class:`OddManOut`): what :meth:`OddManOut.classes` returns, for the fit
    to compact and for tests and reports to inspect.

    ``inventory``: the corpus's form inventory (spellings, bands, bigrams); ``home``: per
    eligible form its home analysis, ``lemma`` its most frequent lemma in it; ``class_of``:
    form -> class id, ``members``: class id -> its forms (sorted); ``class_split``: class id ->
    UD split index of its first occurrence (3 when not split-aware); ``first_split``: (form,
    UPOS, feats) -> earliest UD split index it occurs in as a single token (split-aware only,
    else empty: nothing else reads it); ``report``: the counts behind the classes."""

    inventory: FormInventory
    split_aware: bool
    home: dict[str, Home]
    lemma: dict[str, str]
    class_of: dict[str, str]
    members: dict[str, tuple[str, ...]]
    class_split: dict[str, int]
    first_split: dict[FirstSplitKey, int]
    report: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class OddManOutFit(Fit):
    """What the candidate pass reads of the replacement classes, and nothing else.

    Why so little: a build in two processes fits once and pickles the fit to the other
    process, so every byte of it is paid twice per build (with the whole
    :class:`FormInventory` and the derivation tables it pickled to 5.15 MB on all of EWT, 0.35 s
    to dump and 0.25 s to load; as below, 1.13 MB, 0.03 s and 0.05 s).
    What the derivation needs (home analyses, lemmas, bands, first splits) stays in
    :class:`ReplacementClasses`.

    ``cell_upos``: the replaced word classes; ``spellings``: classed form -> its usual
    spelling (only classed forms are ever replaced or replacements; a lowercase spelling is
    the key object itself, so a pickle writes it once), read through :meth:`spelling` (the
    :class:`~polyprobe.builders.sentence.inventory.Spellings` that :func:`regular_case`
    asks); ``class_of``: classed form -> class id (the lexical key); ``class_split``: class id
    -> UD split index of its first occurrence (split-aware only, else empty);
    ``member_set``: class id -> its members; ``of_lemma``: lemma -> the classed forms whose
    lemma (the most frequent in their home analysis) it is, removed from the replacements of
    a word of that lemma by a set difference with its class (keyed by the lemma alone: the
    difference ignores other classes' forms, and (class, lemma) keys would cost a tuple per
    classed form, as nearly every lemma has one form per class); ``classed_home``: classed
    form -> home analysis with the features as a dict (compared to ``word.feats`` without
    sorting; one shared object per analysis, written once by a pickle); and the attested
    bigrams with a classed form on one side: ``follows`` (left context -> classed forms seen
    after it), ``precedes`` (right context -> classed forms seen before it), so that the tiers
    of the candidates are set intersections, not a lookup per class member."""

    split_aware: bool = False
    cell_upos: frozenset[str] = frozenset()
    spellings: dict[str, str] = field(default_factory=dict)
    class_of: dict[str, str] = field(default_factory=dict)
    class_split: dict[str, int] = field(default_factory=dict)
    member_set: dict[str, frozenset[str]] = field(default_factory=dict)
    of_lemma: dict[str, frozenset[str]] = field(default_factory=dict)
    classed_home: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    follows: dict[str, frozenset[str]] = field(default_factory=dict)
    precedes: dict[str, frozenset[str]] = field(default_factory=dict)

    def spelling(self, key: str) -> str | None:
        """The usual spelling of a classed form (``None`` for any other form)."""
        return self.spellings.get(key)


class OddManOut(Task[Sentence]):
    """Original sentence vs. a copy in which one NOUN or VERB was replaced by another form with
    the same UPOS, the same features and the same log2 frequency band.

    **Replacement classes (lexical control).** A word seen as replaced or replacement in one
    split must never be replaced or replacement in another, and the variant engine keeps each
    lexical key in one split, one key per candidate. A key per replaced word is not enough (the
    replacement may be another item's replaced word, with another key), so the vocabulary is
    *partitioned*: every eligible form gets one home analysis (its most frequent NOUN/VERB
    (UPOS, features)); forms with the same home analysis, frequency band and case shape of
    their usual spelling (lower / Title / UPPER: a capitalised noun replacing a lowercase one
    would mark the change) are ordered by a seeded stable hash and dealt into classes of
    ``class_size`` to ``2 * class_size - 1`` forms; a word is only ever replaced by a member of
    its own class, and the class is the lexical key of both copies. Class membership is a
    function of the form alone, so all roles of a form carry one key and land in one split,
    whatever the split mode; classes are small, so the engine can still split finely. (A
    hash-bucket partition of the whole vocabulary would do the same, but its pools shrink with
    the number of buckets; dealing within (analysis, band) keeps every pool at ``class_size``.)
    Under ``--split ud`` classes are also kept within the UD split where their forms first
    occur, and a sentence only replaces a word whose class starts in its own split: the
    engine drops any item whose key occurred in an earlier split, so this keeps every
    validation/test item that can survive (validation and test then consist of sentences with
    a noun or verb unseen in train, i.e. mostly rarer words: the price of lexical control
    under fixed splits).

    **Naturalness.** Among all (position, replacement) pairs the best tier of bigram
    attestation (both neighbours, one, neither; sentence boundaries count as neighbours) is
    taken, then a position uniformly among those reaching it and a replacement uniformly among
    its pairs in that tier (``stable_rng(seed, task, treebank, sent_id)``). The share per tier is
    reported in the recipe. SentEval matched bigram frequencies; with treebank-sized corpora
    most bigrams are unseen, so attestation is a soft preference, not a filter.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="odd_man_out",
        level=Level.SENTENCE,
        description=(
            "Decide whether a noun or verb of the sentence has been replaced by another word of "
            "the same part of speech, inflection and frequency (changed) or not (original)."
        ),
        labels=LABELS,
        citation=CONNEAU_2018,
        seed_dependent=True,
        paired_copies=True,
        lexical_control=True,
        notes=(
            "Each source sentence gives both an 'original' and a 'changed' row (same group); "
            "SentEval showed only one of them per sentence.",
            "One NOUN or VERB that is a surface token by itself (not inside a multiword token) is "
            "replaced by another form with the same UPOS and the same features, from the same log2 "
            "frequency band measured on frequency ranks, and with a different lemma. Each form has "
            "one home analysis (its most frequent NOUN/VERB UPOS+features); forms whose most "
            "frequent UPOS overall is another one are never used (EWT 'out' is a NOUN 3 times).",
            "Lexical control by replacement classes: the vocabulary is partitioned into small "
            "seeded classes of interchangeable forms, replacements stay within a class, and the "
            "class is the lexical key, so no replaced or replacement word occurs in two splits. "
            "Under --split ud, classes stay within the UD split where their forms first occur and "
            "validation/test sentences replace a word first seen in their own split.",
            "Replacements whose bigrams with both neighbours occur in the corpus are preferred; "
            "the recipe reports the share of items per attestation tier.",
            "The replacement takes the original's capital slot: capitalised at a sentence start "
            "when the original was, otherwise written as the corpus usually writes it; originals "
            "in an unusual case (title-cased or all-caps words) are not replaced.",
        ),
    )

    Options: ClassVar[type] = OddManOutOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "frequency_bands",
            "bands",
            "forms_with_home_analysis",
            "forms_without_letters",
            "forms_mostly_other_upos",
            "classes",
            "forms_in_classes",
            "class_sizes",
            "singleton_pools",
            "bigram_types",
        }
    )

    def __init__(self, options: Any = None, context: TaskContext | None = None) -> None:
        super().__init__(options, context)
        # Items per bigram-attestation tier, counted by the candidate pass for the recipe (a
        # tally of what was emitted, like ``drops``; no choice depends on it).
        self.attestation: Counter[str] = Counter()

    @property
    def split_aware(self) -> bool:
        """The ``split_aware`` option, or whether the build splits by the UD files."""
        aware = self.options.split_aware
        return self.context.split == "ud" if aware is None else aware

    # --- first pass ---------------------------------------------------------------------
    def observation(self) -> OddManOutObservation:
        return OddManOutObservation(self.context, self.options.upos)

    def classes(self, observation: Observation | None) -> ReplacementClasses:
        """Home analyses, frequency bands and replacement classes (see the class docstring)."""
        assert isinstance(observation, OddManOutObservation)
        inv = observation.inventory
        size = max(2, self.options.class_size)
        home_of: dict[str, Home] = {}
        lemma_of: dict[str, str] = {}
        class_of: dict[str, str] = {}
        members_of: dict[str, tuple[str, ...]] = {}
        class_split: dict[str, int] = {}
        split_aware = self.split_aware
        first_split = (
            _first_splits(observation.seen_in_split, self.context.lang) if split_aware else {}
        )
        # form -> (UPOS, feats) analyses -> count, and per analysis the lemma counts. Plain
        # dicts in any order: every choice below is a min/sort over a total order.
        analyses: dict[str, dict[Home, int]] = {}
        lemmas: dict[tuple[str, Home], dict[str, int]] = {}
        for (lemma, upos, feats), forms in inv.cells.items():
            home = (upos, feats)
            for key, n in forms.items():
                counts = analyses.get(key)
                if counts is None:
                    analyses[key] = {home: n}
                else:
                    counts[home] = counts.get(home, 0) + n
                by_lemma = lemmas.get((key, home))
                if by_lemma is None:
                    lemmas[(key, home)] = {lemma: n}
                else:
                    by_lemma[lemma] = by_lemma.get(lemma, 0) + n
        pools: dict[tuple[str, FeatsKey, int, str, int], list[str]] = {}
        skipped_no_letter = skipped_other_upos = 0
        upos_of = inv.upos_of
        for key in sorted(analyses):
            if not has_letter(key):
                skipped_no_letter += 1
                continue
            home = _most_frequent(analyses[key])
            # The home UPOS must be the form's most frequent UPOS over *all* its occurrences
            # (strictly): "out" is a NOUN a few times in EWT but an ADP/ADV nearly always.
            by_upos = upos_of[key]
            if any(n >= by_upos.get(home[0], 0) for u, n in by_upos.items() if u != home[0]):
                skipped_other_upos += 1
                continue
            home_of[key] = home
            lemma_of[key] = _most_frequent(lemmas[(key, home)])
            band = inv.band(key)
            spelling = inv.spelling(key)
            assert band is not None and spelling is not None
            split = first_split.get((key, *home), 3) if split_aware else 3
            pools.setdefault((home[0], home[1], band, case_shape(spelling), split), []).append(key)
        classes_per_upos: Counter[str] = Counter()
        forms_in_classes: Counter[str] = Counter()
        singletons = 0
        for (upos, feats, band, shape, split), keys in sorted(pools.items()):
            if len(keys) < 2:
                singletons += 1
                continue
            keys.sort(key=lambda k: (stable_u64(self.seed, self.name, "class", k), k))
            n_classes = max(1, len(keys) // size)
            for c in range(n_classes):
                members = tuple(sorted(keys[c::n_classes]))
                where = f"|{_SPLIT_NAMES[split]}" if split_aware else ""
                class_id = lexical_key(f"{upos}|{feats_string(feats)}|b{band}|{shape}{where}|{c}")
                members_of[class_id] = members
                class_split[class_id] = split
                for k in members:
                    class_of[k] = class_id
                classes_per_upos[upos] += 1
                forms_in_classes[upos] += len(members)
        sizes = [len(m) for m in members_of.values()]
        report = {
            "upos": list(self.options.upos),
            "class_size": size,
            "split_aware": split_aware,
            "frequency_bands": "log2 of the competition rank of the case-folded surface form "
            "(band k = ranks 2^k .. 2^(k+1)-1)",
            "bands": inv.band_table(),
            "forms_with_home_analysis": len(home_of),
            "forms_without_letters": skipped_no_letter,
            "forms_mostly_other_upos": skipped_other_upos,
            "classes": dict(sorted(classes_per_upos.items())),
            "forms_in_classes": dict(sorted(forms_in_classes.items())),
            "class_sizes": [min(sizes), max(sizes)] if sizes else [],
            "singleton_pools": singletons,
            "bigram_types": len(inv.bigrams or ()),
        }
        return ReplacementClasses(
            inventory=inv,
            split_aware=split_aware,
            home=home_of,
            lemma=lemma_of,
            class_of=class_of,
            members=members_of,
            class_split=class_split,
            first_split=first_split,
            report=report,
        )

    def fit(self, observation: Observation | None) -> OddManOutFit:
        """The replacement classes (:meth:`classes`), kept only as the candidate pass reads
        them (see :class:`OddManOutFit`)."""
        classes = self.classes(observation)
        inv = classes.inventory
        member_set: dict[str, frozenset[str]] = {}
        of_lemma: dict[str, list[str]] = {}
        classed_home: dict[str, tuple[str, dict[str, str]]] = {}
        spellings: dict[str, str] = {}
        shared_home: dict[Home, tuple[str, dict[str, str]]] = {}  # one object per analysis
        home_of, lemma_of = classes.home, classes.lemma
        for class_id, members in classes.members.items():
            member_set[class_id] = frozenset(members)
            for k in members:
                of_lemma.setdefault(lemma_of[k], []).append(k)
                home = home_of[k]
                analysis = shared_home.get(home)
                if analysis is None:
                    analysis = shared_home[home] = (home[0], dict(home[1]))
                classed_home[k] = analysis
                usual = inv.spelling(k)
                assert usual is not None
                spellings[k] = k if usual == k else usual
        follows, precedes = _classed_neighbours(inv.bigrams or set(), classes.class_of)
        return OddManOutFit(
            label_names=LABELS,
            report=classes.report,
            split_aware=classes.split_aware,
            cell_upos=inv.cell_upos,
            spellings=spellings,
            class_of=classes.class_of,
            class_split=classes.class_split if classes.split_aware else {},
            member_set=member_set,
            of_lemma={lemma: frozenset(forms) for lemma, forms in of_lemma.items()},
            classed_home=classed_home,
            follows=follows,
            precedes=precedes,
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        total = sum(self.attestation.values())
        params: dict[str, Any] = {
            "unit": "one NOUN/VERB surface token outside multiword tokens",
            "replacement": "same UPOS, same features (the form's most frequent analysis), same "
            "log2 rank band, different lemma, same replacement class",
            "lexical_key": "replacement class (both copies)",
            "choice": "best bigram-attestation tier, then uniform position, then uniform "
            "replacement, from stable_rng(seed, task, treebank, sent_id)",
            "capitalisation": "replacement takes the original's capital slot",
            "upos": list(self.options.upos),
            "class_size": self.options.class_size,
            "split_aware": self.split_aware,
            "bigram_attestation": {
                "items": total,
                **{t: round(self.attestation[t] / total, 4) if total else 0.0 for t in TIERS},
            },
        }
        if isinstance(fit, OddManOutFit):
            params["classes"] = fit.report["classes"]
            params["forms_in_classes"] = fit.report["forms_in_classes"]
        return params

    # --- candidates ---------------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, OddManOutFit)
        lang = self.context.lang
        tokens = sentence.surface_tokens()
        upos = fit.cell_upos  # frozenset(options.upos)
        singles = [i for i, t in enumerate(tokens) if t.upos in upos and len(t.word_ids) == 1]
        if not singles:
            return self.drop("no NOUN/VERB outside multiword tokens")
        key_of = form_key_getter(lang)
        words = sentence.words
        classed_home = fit.classed_home
        classed: list[int] = []
        keys: dict[int, str] = {}  # position -> form key, for the positions looked at
        for i in singles:
            # Classed and in its home analysis (dict equality: order-independent, no sort).
            keys[i] = key = key_of(tokens[i].form)
            home = classed_home.get(key)
            if home is not None:
                word = words[tokens[i].word_ids[0] - 1]
                if word.upos == home[0] and word.feats == home[1]:
                    classed.append(i)
        if not classed:
            return self.drop("no NOUN/VERB with a replacement class")
        slots = capital_slots(tokens)
        regular = [i for i in classed if regular_case(fit, tokens, i, lang, slots, keys[i])]
        if not regular:
            return self.drop("NOUN/VERB only in unusual case")
        class_of = fit.class_of
        if fit.split_aware:
            # Under --split ud the engine drops an item whose key occurred in an earlier
            # split, so only words whose class starts in this sentence's split can survive.
            split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
            class_split = fit.class_split
            regular = [i for i in regular if class_split[class_of[keys[i]]] == split]
            if not regular:
                return self.drop("every NOUN/VERB class seen in an earlier split")
        best = -1
        options: dict[int, frozenset[str]] = {}
        member_set, of_lemma = fit.member_set, fit.of_lemma
        follows, precedes = fit.follows, fit.precedes
        last = len(tokens) - 1
        for i in regular:
            lemma = key_of(words[tokens[i].word_ids[0] - 1].lemma)
            own = keys[i]
            class_id = class_of[own]
            # Tiers by set algebra: the eligible members (class minus the original and the
            # members with its lemma) that follow the left neighbour / precede the right one
            # in an attested bigram (intersections with the derived neighbour sets); the best
            # tier is "both" if the two sets meet, else "one" if either is non-empty, else
            # "neither" (all eligible members). Most sentences reach "both", after which a
            # position only needs its "both" set.
            # (Usually ``own`` has the word's lemma: then one difference removes both.)
            drop = of_lemma.get(lemma, _NONE)
            members = member_set[class_id]
            eligible = members - drop if own in drop else members.difference(drop, (own,))
            if not eligible:
                continue
            left = (keys.get(i - 1) or key_of(tokens[i - 1].form)) if i > 0 else BOS
            right = (keys.get(i + 1) or key_of(tokens[i + 1].form)) if i < last else EOS
            fits_left = eligible & follows.get(left, _NONE)
            before_right = precedes.get(right, _NONE)
            both = fits_left & before_right
            if both:
                top, pool = 2, both
            elif best == 2:
                continue  # this position cannot reach the tier already found
            else:
                fits_right = eligible & before_right
                if fits_left or fits_right:
                    top, pool = 1, fits_left | fits_right
                else:
                    top, pool = 0, eligible
            if top > best:
                best, options = top, {}
            if top == best:
                options[i] = pool
        if not options:
            return self.drop("no replacement with another lemma")
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        positions = sorted(options)
        i = positions[choice_index(rng, len(positions))]
        pool = sorted(options[i])
        r = pool[choice_index(rng, len(pool))]
        spelling = fit.spellings[r]
        changed = substitute(tokens, i, spelling, self.context, slots)
        original = sentence_inputs(sentence)
        original_text = original["sentence"]
        changed_text = render(changed)
        if changed_text == original_text:  # cannot happen (different case-folded forms)
            return self.drop("replacement does not change the text")
        self.attestation[TIERS[best]] += 1
        key = class_of[keys[i]]
        return [
            Candidate(
                original,
                "original",
                copy="original",
                lexical_key=key,
            ),
            Candidate(
                {"sentence": changed_text, "tokens": [t.form for t in changed]},
                "changed",
                copy="changed",
                lexical_key=key,
            ),
        ]

    # --- introspection (tests, reports) ----------------------------------------------------
    def replacement_class(self, fit: OddManOutFit, form: str) -> tuple[str, ...]:
        """The members of a form's replacement class, sorted (empty if it has none)."""
        class_id = fit.class_of.get(form_key(form, self.context.lang))
        return tuple(sorted(fit.member_set[class_id])) if class_id else ()

    def class_id(self, fit: OddManOutFit, form: str) -> str | None:
        return fit.class_of.get(form_key(form, self.context.lang))


def _most_frequent(counts: dict[Any, int]) -> Any:
    """The most frequent of ``counts``' keys, ties to the smallest. Most forms have one
    analysis and one lemma: those need no comparison."""
    if len(counts) == 1:
        return next(iter(counts))
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _first_splits(seen_in_split: dict[int, set[Single]], lang: str) -> dict[FirstSplitKey, int]:
    """(form key, UPOS, feats) -> earliest UD split index it occurs in as a single token, from
    the raw single-token values the observation collected per split index. Keys sorted: the
    values come from sets, whose iteration order depends on string hashing and on the order
    they were filled in (one process or several), and the fit must not."""
    key_of = form_key_getter(lang)
    sorted_feats: dict[tuple[tuple[str, str], ...], FeatsKey] = {}  # few distinct bundles
    first: dict[FirstSplitKey, int] = {}
    for split in sorted(seen_in_split):
        for form, _, upos, items in seen_in_split[split]:
            feats = sorted_feats.get(items)
            if feats is None:
                feats = sorted_feats[items] = tuple(sorted(items))
            k = (key_of(form), upos, feats)
            if k not in first:
                first[k] = split
    return dict(sorted(first.items()))


def _classed_neighbours(
    bigrams: set[tuple[str, str]], classed: Iterable[str]
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """From the attested bigrams, per left form the classed forms seen right after it, and
    per right form the classed forms seen right before it (only classed forms are ever
    replacements, so only they are kept). Keys sorted: the bigrams are a set, whose
    iteration order depends on string hashing and on the order it was filled in. The
    classed forms kept are the objects of ``classed``, not the bigrams' equal strings (which
    may come from another process), so a pickle of the fit writes each form once."""
    canonical = {k: k for k in classed}
    follows: defaultdict[str, set[str]] = defaultdict(set)
    precedes: defaultdict[str, set[str]] = defaultdict(set)
    for left, right in bigrams:
        form = canonical.get(right)
        if form is not None:
            follows[left].add(form)
        form = canonical.get(left)
        if form is not None:
            precedes[right].add(form)
    return (
        {k: frozenset(follows[k]) for k in sorted(follows)},
        {k: frozenset(precedes[k]) for k in sorted(precedes)},
    )
