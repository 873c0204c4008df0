"""Morphological word analogies generated from a UniMorph lexicon, for any language.

A *category* is a contrast between two paradigm cells of one part of speech, named by their
UniMorph tags (``N;NOM;SG->N;NOM;PL``: noun singular → plural; ``V;NFIN->V;PST``: infinitive
→ past; ``ADJ->ADJ;CMPR``): the question ``a : b :: c : d`` takes a and c from the first cell
of two lemmas and b and d from the second. Categories are discovered from the lexicon: every
pair of cells of one POS that differ in at most two features is a candidate; per POS and
contrast (the features that change and how) the best-attested context is kept; the
categories attested by the most lemmas are taken, up to ``max_categories``.

What keeps a question unambiguous (else the lemma is left out of the category):

* each of the two cells has exactly one form for the lemma (no overabundance), and the two
  forms differ;
* **no syncretic cell**: neither form also realises another cell of the same lemma that
  differs from its own cell on a contrasted feature (Slovene ``mesta`` is N;NOM;PL and
  N;GEN;SG: for singular → plural it could be read as a singular, so ``mesto`` is not used;
  N;NOM;SG = N;ACC;SG does not matter there, Case is not contrasted);
* forms with spaces (periphrastic ``ette tasanneet``) are left out.

Pairs come from frequent lemmas: with a frequency source, lemmas ranked by the frequency of
their first-cell form (lemmas never seen come last); without one, in a seeded order. The top
``pairs_per_category`` pairs give every ordered pair of pairs as a question, then a seeded
sample keeps at most ``max_questions`` per category. A category with fewer than
``min_pairs`` usable lemmas is infeasible and reported, with its count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from polyprobe import progress
from polyprobe.hashing import stable_rng, stable_u64
from polyprobe.loaders.analogies import AnalogySet, Question
from polyprobe.loaders.frequency import FrequencyList
from polyprobe.loaders.records import LexEntry

Cell = frozenset[tuple[str, str]]  # (dimension, value) pairs, POS included


@dataclass(frozen=True)
class GenerationOptions:
    max_categories: int = 15
    pairs_per_category: int = 40
    max_questions: int = 500
    min_pairs: int = 5
    max_changed_features: int = 4
    lookahead: int = 3  # per contrast group, candidates checked for usable lemmas


@dataclass
class Paradigm:
    lemma: str
    pos: str
    cells: dict[Cell, set[str]]
    tags: dict[Cell, str]
    line: dict[Cell, int]


@dataclass(frozen=True)
class Category:
    pos: str
    source: Cell
    target: Cell
    name: str

    @property
    def contrasted(self) -> frozenset[str]:
        """The dimensions whose value differs between the two cells (absent counts)."""
        a, b = dict(self.source), dict(self.target)
        return frozenset(d for d in set(a) | set(b) if a.get(d) != b.get(d))


def paradigms(entries: Iterable[LexEntry]) -> list[Paradigm]:
    """Entries grouped by (lemma, POS). A layered entry's cell is its features and its
    layers' (``ERG:Person``...), so cells that differ only inside a layer stay apart: left
    out, every verb of a lexicon that writes agreement as layers or argument tags (UniMorph
    ``eus``) was lost and ``build analogies --unimorph`` found no records."""
    out: dict[tuple[str, str], Paradigm] = {}
    for e in entries:
        if not e.pos:
            continue
        cell: Cell = frozenset(e.features.items())
        if e.layers:
            cell = cell | frozenset(
                (f"{name}:{dim}", value)
                for name, layer in e.layers.items()
                for dim, value in layer.items()
            )
        p = out.get((e.lemma, e.pos))
        if p is None:
            p = out[(e.lemma, e.pos)] = Paradigm(e.lemma, e.pos, {}, {}, {})
        p.cells.setdefault(cell, set()).add(e.form)
        p.tags.setdefault(cell, e.tag)
        p.line.setdefault(cell, e.line)
    return list(out.values())


def is_syncretic(p: Paradigm, cell: Cell, contrasted: frozenset[str]) -> bool:
    """Whether ``cell``'s form also realises a cell of ``p`` that differs from ``cell`` on a
    contrasted dimension (the module docstring's rule)."""
    forms = p.cells[cell]
    mine = dict(cell)
    for other, other_forms in p.cells.items():
        if other == cell or not (forms & other_forms):
            continue
        theirs = dict(other)
        if any(mine.get(d) != theirs.get(d) for d in contrasted):
            return True
    return False


def usable_pair(p: Paradigm, cat: Category) -> tuple[str, str] | None:
    """The lemma's (first-cell form, second-cell form) for ``cat``, or None (see above)."""
    a, b = p.cells.get(cat.source), p.cells.get(cat.target)
    if not a or not b or len(a) != 1 or len(b) != 1:
        return None
    (fa,), (fb,) = a, b
    if fa == fb or " " in fa or " " in fb:
        return None
    contrasted = cat.contrasted
    if is_syncretic(p, cat.source, contrasted) or is_syncretic(p, cat.target, contrasted):
        return None
    return fa, fb


def _tag(p: Paradigm, cell: Cell) -> str:
    return p.tags[cell]


# Values read as the unmarked side of a contrast: a category runs from them (singular →
# plural, infinitive → past), not the other way; its reverse is not a second category.
UNMARKED = frozenset(
    {
        "Singular",
        "Nominative",
        "Present",
        "Infinitive",
        "Nonfinite",
        "Positive",
        "Indicative",
        "Active",
        "First",
        None,
    }
)


def _direction_key(a: Cell, b: Cell) -> tuple[int, int]:
    """Smaller is the better source: more unmarked values on the contrasted dimensions,
    then fewer features."""
    da, db = dict(a), dict(b)
    changed = [d for d in set(da) | set(db) if da.get(d) != db.get(d)]
    return (-sum(da.get(d) in UNMARKED for d in changed), len(da))


def discover(
    pars: list[Paradigm], options: GenerationOptions
) -> tuple[list[list[tuple[Category, int]]], int]:
    """Candidate categories, grouped by (POS, contrasted dimensions) and ranked within a group
    by the number of lemmas having both cells (before the syncretism filter); groups ordered
    by their best candidate. One direction per pair of cells (from the unmarked side)."""
    support: dict[tuple[str, Cell, Cell], int] = defaultdict(int)
    names: dict[tuple[str, Cell, Cell], str] = {}
    for p in progress.track(pars, "analogy categories (paradigms)", unit=" lemma"):
        cells = [c for c, forms in p.cells.items() if len(forms) == 1]
        for a in cells:
            da = dict(a)
            for b in cells:
                if a == b:
                    continue
                db = dict(b)
                changed = [d for d in set(da) | set(db) if da.get(d) != db.get(d)]
                if len(changed) > options.max_changed_features:
                    continue
                if (_direction_key(a, b), p.tags[a]) > (_direction_key(b, a), p.tags[b]):
                    continue  # the other direction is the category
                key = (p.pos, a, b)
                support[key] += 1
                names.setdefault(key, f"{_tag(p, a)}->{_tag(p, b)}")
    groups: dict[tuple[str, frozenset[str]], list[tuple[int, tuple[str, Cell, Cell]]]] = (
        defaultdict(list)
    )
    for key, n in support.items():
        pos, a, b = key
        da, db = dict(a), dict(b)
        dims = frozenset(d for d in set(da) | set(db) if da.get(d) != db.get(d))
        groups[(pos, dims)].append((n, key))
    ordered = []
    for members in groups.values():
        members.sort(key=lambda x: (-x[0], names[x[1]]))
        ordered.append([(Category(k[0], k[1], k[2], names[k]), n) for n, k in members])
    ordered.sort(key=lambda g: (-g[0][1], g[0][0].name))
    return ordered, len(support)


def _round_robin(groups: list[list[tuple[Category, int]]]) -> Iterable[Category]:
    """The best candidate of every group, then the second of every group, ...: categories
    spread over the contrasted dimensions (number, case, tense, ...) before repeating one."""
    depth = max((len(g) for g in groups), default=0)
    for i in range(depth):
        for g in groups:
            if i < len(g):
                yield g[i][0]


def generate(
    entries: Iterable[LexEntry],
    *,
    name: str,
    path: str,
    seed: int = 0,
    frequencies: FrequencyList | None = None,
    options: GenerationOptions = GenerationOptions(),
) -> tuple[AnalogySet, dict[str, Any]]:
    """The analogy set and a report (categories with sizes, infeasible ones with why)."""
    pars = paradigms(entries)
    groups, n_candidates = discover(pars, options)
    by_pos: dict[str, list[Paradigm]] = defaultdict(list)
    for p in pars:
        by_pos[p.pos].append(p)
    questions: list[Question] = []
    kept: dict[str, dict[str, Any]] = {}
    infeasible: dict[str, str] = {}
    usable: dict[Category, list[tuple[Paradigm, tuple[str, str]]]] = {}

    def pairs_of(cat: Category) -> list[tuple[Paradigm, tuple[str, str]]]:
        if cat not in usable:
            found = [(p, usable_pair(p, cat)) for p in by_pos[cat.pos]]
            usable[cat] = [(p, pair) for p, pair in found if pair is not None]
        return usable[cat]

    # Within a group, the few best-attested candidates are re-ranked by their usable lemmas
    # (attestation counts cells, syncretism can leave few of them).
    for g in groups:
        head = sorted(
            g[: options.lookahead], key=lambda x: (-len(pairs_of(x[0])), -x[1], x[0].name)
        )
        g[: options.lookahead] = head
    for cat in _round_robin(groups):
        if len(kept) >= options.max_categories:
            break
        pairs = list(pairs_of(cat))
        if len(pairs) < options.min_pairs:
            infeasible[cat.name] = (
                f"{len(pairs)} lemmas with two unambiguous, non-syncretic forms "
                f"(< {options.min_pairs})"
            )
            continue
        pairs.sort(key=lambda x: _order(x[0], x[1][0], frequencies, seed, cat.name))
        chosen = pairs[: options.pairs_per_category]
        quads = [(i, j) for i in range(len(chosen)) for j in range(len(chosen)) if i != j]
        if len(quads) > options.max_questions:
            rng = stable_rng(seed, "analogy-sample", cat.name)
            quads = sorted(rng.sample(quads, options.max_questions))
        for k, (i, j) in enumerate(quads):
            (pa, (a, b)), (_, (c, d)) = chosen[i], chosen[j]
            questions.append(
                Question((a, b, c, d), cat.name, pa.line[cat.source], path, f"{cat.name}/{k}")
            )
        kept[cat.name] = {
            "pos": cat.pos,
            "contrasted": sorted(cat.contrasted),
            "lemmas_usable": len(pairs),
            "pairs_used": len(chosen),
            "questions": len(quads),
            "example": f"{chosen[0][1][0]} : {chosen[0][1][1]}",
        }
    categories = tuple(kept)
    report = {
        "lemmas": len(pars),
        "candidate_contrasts": n_candidates,
        "categories": kept,
        "infeasible": infeasible,
        "frequency_source": "given" if frequencies is not None else "none (seeded order)",
        "options": {
            "max_categories": options.max_categories,
            "pairs_per_category": options.pairs_per_category,
            "max_questions": options.max_questions,
            "min_pairs": options.min_pairs,
        },
    }
    aset = AnalogySet(name, categories, {c: False for c in categories}, tuple(questions))
    return aset, report


def cross_lingual(
    first: AnalogySet, second: AnalogySet, *, name: str, seed: int = 0, max_questions: int = 500
) -> tuple[AnalogySet, dict[str, Any]]:
    """Cross-lingual questions a : b :: c : d with a : b from ``first``'s language and c : d
    from ``second``'s, for the categories both sets have (the same cell contrast, named by the
    same UniMorph tags): every (first pair, second pair) combination, seeded-sampled to
    ``max_questions`` per category."""

    def pairs(aset: AnalogySet) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for q in aset.questions:
            for pair in (q.words[:2], q.words[2:]):
                if pair not in out[q.category]:
                    out[q.category].append(pair)
        return out

    one, two = pairs(first), pairs(second)
    shared = [c for c in first.categories if c in two]
    questions: list[Question] = []
    report: dict[str, Any] = {
        "categories": {},
        "only_in_one": sorted(set(first.categories) ^ set(second.categories)),
    }
    path = first.questions[0].path if first.questions else ""
    for cat in shared:
        combos = [(i, j) for i in range(len(one[cat])) for j in range(len(two[cat]))]
        if len(combos) > max_questions:
            combos = sorted(stable_rng(seed, "cross-sample", cat).sample(combos, max_questions))
        for k, (i, j) in enumerate(combos):
            (a, b), (c, d) = one[cat][i], two[cat][j]
            questions.append(Question((a, b, c, d), cat, 0, path, f"{cat}/{k}"))
        report["categories"][cat] = {"questions": len(combos)}
    notes = (
        "Cross-lingual analogies: word1 : word2 from one language, word3 : word4 from the "
        "other, for the cell contrasts both generated sets have.",
        *(f"Category {c}: {v['questions']} questions." for c, v in report["categories"].items()),
    )
    aset = AnalogySet(name, tuple(shared), {c: False for c in shared}, tuple(questions), notes)
    return aset, report


def _order(
    p: Paradigm, form: str, freq: FrequencyList | None, seed: int, category: str
) -> tuple[int, int, str]:
    """Most frequent first-cell form first (ties and unseen lemmas in a seeded order)."""
    count = freq.count(form) + freq.count(p.lemma) if freq is not None else 0
    return (-count, stable_u64(seed, category, p.lemma), p.lemma)


def category_report(report: Mapping[str, Any]) -> list[str]:
    """Card notes: each category with its size, each infeasible one with why."""
    lines = [
        f"Category {name}: {c['questions']} questions from {c['pairs_used']} of "
        f"{c['lemmas_usable']} usable lemmas (e.g. {c['example']})."
        for name, c in report["categories"].items()
    ]
    lines += [f"Infeasible category {n}: {why}." for n, why in report["infeasible"].items()]
    return lines
