"""``odd_man_out`` (SOMO): has one noun or verb been replaced by another word?"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, ClassVar

from polyprobe.builders.rendering import capital_slots, render, sentence_inputs
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
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
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.hashing import choice_index, lexical_key, stable_rng, stable_u64
from polyprobe.loaders.records import Sentence

DEFAULT_UPOS: tuple[str, ...] = ("NOUN", "VERB")
DEFAULT_CLASS_SIZE = 8
_SPLIT_ORDER = {"train": 0, "dev": 1, "test": 2}
_SPLIT_NAMES = ("train", "dev", "test", "none")
_NONE: frozenset[str] = frozenset()
TIERS: tuple[str, ...] = ("neither", "one", "both")  # neighbours whose bigram is attested

Home = tuple[str, FeatsKey]  # (UPOS, features) of a form's most frequent analysis


class OddManOut(Task):
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

    name: ClassVar[str] = "odd_man_out"
    relative_cost: ClassVar[float] = 10.8
    shard_affinity: ClassVar[str] = "form_inventory"  # its SentenceDigest memo
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Decide whether a noun or verb of the sentence has been replaced by another word of the "
        "same part of speech, inflection and frequency (changed) or not (original)."
    )
    label_names: ClassVar[tuple[str, ...]] = ("original", "changed")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = True
    paired_copies: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = True
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
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
        "Replacements whose bigrams with both neighbours occur in the corpus are preferred; the "
        "recipe reports the share of items per attestation tier.",
        "The replacement takes the original's capital slot: capitalised at a sentence start "
        "when the original was, otherwise written as the corpus usually writes it; originals "
        "in an unusual case (title-cased or all-caps words) are not replaced.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0) -> None:
        super().__init__(params, seed)
        self.inventory = FormInventory(self.params, self.upos, bigrams=True)
        # (form key, UPOS, feats) -> earliest UD split index it occurs in as a single token
        # (set by derive from ``_seen_in_split``: split index -> raw single-token values).
        self._first_split: dict[tuple[str, str, FeatsKey], int] = {}
        self._seen_in_split: dict[int, set[Single]] = {}
        self._home: dict[str, Home] = {}
        self._lemma: dict[str, str] = {}
        self._class_of: dict[str, str] = {}
        self._members: dict[str, tuple[str, ...]] = {}
        self._class_split: dict[str, int] = {}  # class -> UD split of first occurrence
        # For candidates, set by derive: per class id its members as a set and, per lemma, its
        # members with that lemma; per classed form its home analysis with the features as a
        # dict (compared to ``word.feats`` without sorting).
        self._member_set: dict[str, frozenset[str]] = {}
        self._same_lemma: dict[tuple[str, str], frozenset[str]] = {}
        self._classed_home: dict[str, tuple[str, dict[str, str]]] = {}
        # Attested bigrams with a classed form on one side, set by derive: per left context
        # the classed forms seen after it, per right context those seen before it (the tiers
        # of the candidates are then set intersections, not a lookup per class member).
        self._follows: dict[str, frozenset[str]] = {}
        self._precedes: dict[str, frozenset[str]] = {}
        self._derived: dict[str, Any] = {}
        self.attestation: Counter[str] = Counter()

    # --- options ----------------------------------------------------------------------------
    @property
    def upos(self) -> tuple[str, ...]:
        return tuple(self.option("upos", DEFAULT_UPOS))

    @property
    def class_size(self) -> int:
        return int(self.option("class_size", DEFAULT_CLASS_SIZE))

    @property
    def split_aware(self) -> bool:
        return bool(self.option("split_aware", self.option("split") == "ud"))

    # --- first pass ---------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        digest = self.inventory.observe(sentence)
        split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
        # Raw (form, lemma, UPOS, feature items) of the NOUN/VERB tokens per split, keyed once
        # per distinct value in derive (a C-level set update here instead of two key
        # computations per token; the inventory has just counted the same list).
        seen = self._seen_in_split.get(split)
        if seen is None:
            seen = self._seen_in_split[split] = set()
        seen.update(digest.singles(self.inventory.cell_upos))

    def _first_splits(self) -> dict[tuple[str, str, FeatsKey], int]:
        """(form key, UPOS, feats) -> earliest UD split index it occurs in as a single token."""
        key_of = form_key_getter(self.params.lang)
        sorted_feats: dict[tuple[tuple[str, str], ...], FeatsKey] = {}  # few distinct bundles
        first: dict[tuple[str, str, FeatsKey], int] = {}
        for split in sorted(self._seen_in_split):
            for form, _, upos, items in self._seen_in_split[split]:
                feats = sorted_feats.get(items)
                if feats is None:
                    feats = sorted_feats[items] = tuple(sorted(items))
                k = (key_of(form), upos, feats)
                if k not in first:
                    first[k] = split
        return first

    def derive(self) -> dict[str, Any]:
        """Home analyses, frequency bands and replacement classes (see the class docstring)."""
        inv = self.inventory
        size = max(2, self.class_size)
        self._home, self._lemma, self._class_of, self._members = {}, {}, {}, {}
        self._member_set, self._same_lemma, self._classed_home = {}, {}, {}
        self._class_split = {}
        self._first_split = self._first_splits()
        split_aware = self.split_aware
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
            home = min(analyses[key].items(), key=lambda kv: (-kv[1], kv[0]))[0]
            # The home UPOS must be the form's most frequent UPOS over *all* its occurrences
            # (strictly): "out" is a NOUN a few times in EWT but an ADP/ADV nearly always.
            by_upos = upos_of[key]
            if any(n >= by_upos.get(home[0], 0) for u, n in by_upos.items() if u != home[0]):
                skipped_other_upos += 1
                continue
            self._home[key] = home
            self._lemma[key] = min(lemmas[(key, home)].items(), key=lambda kv: (-kv[1], kv[0]))[0]
            band = inv.band(key)
            spelling = inv.spelling(key)
            assert band is not None and spelling is not None
            split = self._first_split.get((key, *home), 3) if split_aware else 3
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
                self._members[class_id] = members
                self._member_set[class_id] = frozenset(members)
                by_lemma: dict[str, list[str]] = {}
                for k in members:
                    by_lemma.setdefault(self._lemma[k], []).append(k)
                for lemma, group in by_lemma.items():
                    self._same_lemma[(class_id, lemma)] = frozenset(group)
                self._class_split[class_id] = split
                for k in members:
                    self._class_of[k] = class_id
                    self._classed_home[k] = (upos, dict(feats))
                classes_per_upos[upos] += 1
                forms_in_classes[upos] += len(members)
        self._follows, self._precedes = _classed_neighbours(inv.bigrams or set(), self._class_of)
        sizes = [len(m) for m in self._members.values()]
        self._derived = {
            "upos": list(self.upos),
            "class_size": size,
            "split_aware": self.split_aware,
            "frequency_bands": "log2 of the competition rank of the case-folded surface form "
            "(band k = ranks 2^k .. 2^(k+1)-1)",
            "bands": inv.band_table(),
            "forms_with_home_analysis": len(self._home),
            "forms_without_letters": skipped_no_letter,
            "forms_mostly_other_upos": skipped_other_upos,
            "classes": dict(sorted(classes_per_upos.items())),
            "forms_in_classes": dict(sorted(forms_in_classes.items())),
            "class_sizes": [min(sizes), max(sizes)] if sizes else [],
            "singleton_pools": singletons,
            "bigram_types": len(inv.bigrams or ()),
        }
        return dict(self._derived)

    def parameters(self) -> dict[str, Any]:
        total = sum(self.attestation.values())
        params: dict[str, Any] = {
            "unit": "one NOUN/VERB surface token outside multiword tokens",
            "replacement": "same UPOS, same features (the form's most frequent analysis), same "
            "log2 rank band, different lemma, same replacement class",
            "lexical_key": "replacement class (both copies)",
            "choice": "best bigram-attestation tier, then uniform position, then uniform "
            "replacement, from stable_rng(seed, task, treebank, sent_id)",
            "capitalisation": "replacement takes the original's capital slot",
            "upos": list(self.upos),
            "class_size": self.class_size,
            "split_aware": self.split_aware,
            "bigram_attestation": {
                "items": total,
                **{t: round(self.attestation[t] / total, 4) if total else 0.0 for t in TIERS},
            },
        }
        if self._derived:
            params["classes"] = self._derived["classes"]
            params["forms_in_classes"] = self._derived["forms_in_classes"]
        return params

    # --- candidates ---------------------------------------------------------------------------
    def candidates(self, sentence: Sentence) -> list[Candidate]:
        inv = self.inventory
        lang = self.params.lang
        tokens = sentence.surface_tokens()
        upos = inv.cell_upos  # frozenset(self.upos)
        singles = [i for i, t in enumerate(tokens) if t.upos in upos and len(t.word_ids) == 1]
        if not singles:
            return self.drop("no NOUN/VERB outside multiword tokens")
        key_of = form_key_getter(lang)
        words = sentence.words
        classed_home = self._classed_home
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
        regular = [i for i in classed if regular_case(inv, tokens, i, lang, slots, keys[i])]
        if not regular:
            return self.drop("NOUN/VERB only in unusual case")
        class_of = self._class_of
        if self.split_aware:
            # Under --split ud the engine drops an item whose key occurred in an earlier
            # split, so only words whose class starts in this sentence's split can survive.
            split = _SPLIT_ORDER.get(sentence.source.split or "", 3)
            regular = [i for i in regular if self._class_split[class_of[keys[i]]] == split]
            if not regular:
                return self.drop("every NOUN/VERB class seen in an earlier split")
        best = -1
        options: dict[int, frozenset[str]] = {}
        member_set, same_lemma = self._member_set, self._same_lemma
        follows, precedes = self._follows, self._precedes
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
            drop = same_lemma.get((class_id, lemma))
            members = member_set[class_id]
            eligible = members.difference(drop, (own,)) if drop else members.difference((own,))
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
        spelling = inv.spelling(r)
        assert spelling is not None
        changed = substitute(tokens, i, spelling, self.params, slots)
        original = sentence_inputs(sentence)
        original_text = original["sentence"]
        changed_text = render(changed)
        if changed_text == original_text:  # cannot happen (different case-folded forms)
            return self.drop("replacement does not change the text")
        self.attestation[TIERS[best]] += 1
        key = self._class_of[keys[i]]
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
    def replacement_class(self, form: str) -> tuple[str, ...]:
        """The members of a form's replacement class (empty if it has none)."""
        class_id = self._class_of.get(form_key(form, self.params.lang))
        return self._members.get(class_id, ()) if class_id else ()

    def class_id(self, form: str) -> str | None:
        return self._class_of.get(form_key(form, self.params.lang))


def _classed_neighbours(
    bigrams: set[tuple[str, str]], classed: dict[str, str]
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """From the attested bigrams, per left form the classed forms seen right after it, and
    per right form the classed forms seen right before it (only classed forms are ever
    replacements, so only they are kept)."""
    follows: defaultdict[str, set[str]] = defaultdict(set)
    precedes: defaultdict[str, set[str]] = defaultdict(set)
    for left, right in bigrams:
        if right in classed:
            follows[left].add(right)
        if left in classed:
            precedes[right].add(left)
    return (
        {k: frozenset(v) for k, v in follows.items()},
        {k: frozenset(v) for k, v in precedes.items()},
    )
