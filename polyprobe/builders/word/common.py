"""Shared pieces of the word-level tasks: the candidate record, eligibility reports, sizes and
seeded sampling.

Everything here is pure: functions of lexicon entries, parameters and a seed. Sampling draws
only from :func:`polyprobe.hashing.stable_rng` over inputs sorted by a stable key, so the same
inputs and seed give the same candidates on every machine and Python version.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from polyprobe.hashing import choice_index, lexical_key, stable_u64

T = TypeVar("T")

NONE_LABEL = "None"
DEFAULT_MIN_FORMS = 10_000
SCALE_SHARE = 0.5
SCALE_FLOOR = 1_000
MIN_LABEL_FORMS = 5
NONE_SHARE = 0.3
FREQUENT_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class WordCandidate:
    """One potential row of a word task.

    ``word`` is a form (single-word tasks) or a ``(word1, word2)`` pair. ``group`` ties rows
    that must share a split (a pseudoword and its seed word; a pair's two words).
    ``lexical_key`` is the NFC + case-folded form (of ``word1`` for pairs); ``keys`` and
    ``lemmas`` list every form key / lemma the row touches, so that a form-disjoint or
    lemma-disjoint split can keep both words of a pair on one side."""

    word: str | tuple[str, str]
    label: str
    group: str
    lexical_key: str
    lemma: str
    keys: tuple[str, ...] = ()
    lemmas: tuple[str, ...] = ()


@dataclass
class TaskReport:
    """Why a task is (in)eligible and what was dropped: goes to the card verbatim."""

    task: str
    eligible: bool = True
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    drops: Counter[str] = field(default_factory=Counter)
    counts: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    label_counts: dict[str, int] = field(default_factory=dict)

    def ineligible(self, reason: str) -> None:
        self.eligible = False
        self.reasons.append(reason)


@dataclass
class TaskResult:
    """A task's candidates and report; ``split_counts``: rows per split when the class plan
    raised validation/test to hold every class's floors (None: the task's default split)."""

    task: str
    candidates: list[WordCandidate]
    report: TaskReport
    split_counts: tuple[int, int, int] | None = None

    @property
    def eligible(self) -> bool:
        return self.report.eligible


@dataclass(frozen=True)
class SizeParams:
    """How many forms a task wants. ``scale=False``: LINSPECTOR's fixed ``min_forms`` (10,000)
    is both the eligibility threshold and the size. ``scale=True``: the size is derived from
    the data - 50% of the forms carrying the feature, at least 1,000 - because the shared
    lexicons are far smaller than LINSPECTOR's (German case: 5,712 forms)."""

    min_forms: int = DEFAULT_MIN_FORMS
    scale: bool = False
    scale_share: float = SCALE_SHARE
    scale_floor: int = SCALE_FLOOR

    def target(self, carrying: int) -> int:
        if self.scale:
            return max(self.scale_floor, math.floor(self.scale_share * carrying))
        return self.min_forms

    def as_dict(self) -> dict[str, Any]:
        return {
            "min_forms": self.min_forms,
            "scale": self.scale,
            "scale_share": self.scale_share,
            "scale_floor": self.scale_floor,
        }


def sample(items: Sequence[T], k: int, rng: random.Random) -> list[T]:
    """``k`` items by a partial Fisher-Yates shuffle using only ``rng.random()`` (stable across
    Python versions). ``items`` must already be in a stable order."""
    pool = list(items)
    k = min(k, len(pool))
    for i in range(k):
        j = i + choice_index(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def shuffled(items: Sequence[T], rng: random.Random) -> list[T]:
    return sample(items, len(items), rng)


def key_of(form: str) -> str:
    return lexical_key(form)


_SPACE = re.compile(r"\s")


def has_space(form: str) -> bool:
    r"""LINSPECTOR drops multi-word forms (German *wandert aus*, Turkish *otuz birci*).

    A regex search (``\s`` is ``str.isspace`` for str patterns) instead of a generator over
    characters: this runs for every entry of every task, ~10x faster on big lexicons."""
    return _SPACE.search(form) is not None


def frequency_split(
    pool: Sequence[T],
    k: int,
    rng: random.Random,
    is_frequent: Any,
    frequent_share: float,
    report: TaskReport,
    what: str,
) -> list[T]:
    """Sample ``k`` of ``pool``: ``frequent_share`` from frequent items and the rest rare.

    When one side is short the other fills the gap (usually: fewer frequent forms than wanted,
    so more rare ones) and the report says so - LINSPECTOR's recipe, made explicit."""
    if is_frequent is None:
        return sample(pool, k, rng)
    frequent = [x for x in pool if is_frequent(x)]
    rare = [x for x in pool if not is_frequent(x)]
    want_freq = round(k * frequent_share)
    take_freq = min(want_freq, len(frequent))
    take_rare = min(k - take_freq, len(rare))
    if take_freq + take_rare < k:  # rare side short: top up from frequent
        take_freq = min(len(frequent), k - take_rare)
    if take_freq < want_freq:
        report.notes.append(
            f"{what}: only {len(frequent)} frequent forms for {want_freq} wanted; "
            f"filled with rare forms ({take_freq} frequent / {take_rare} rare)"
        )
    elif take_rare < k - want_freq:
        report.notes.append(
            f"{what}: only {len(rare)} rare forms; filled with frequent forms "
            f"({take_freq} frequent / {take_rare} rare)"
        )
    report.counts[f"{what}_frequent"] = take_freq
    report.counts[f"{what}_rare"] = take_rare
    return sample(frequent, take_freq, rng) + sample(rare, take_rare, rng)


def character_bin(word: str) -> str:
    """LINSPECTOR's character bins over Unicode code points (NFC): <=4, 5-8, 9-12, 13-16,
    17-20, >20."""
    n = len(unicodedata.normalize("NFC", word))
    if n <= 4:
        return "1-4"
    if n > 20:
        return ">20"
    low = 4 * ((n - 1) // 4) + 1
    return f"{low}-{low + 3}"


CHARACTER_BINS = ("1-4", "5-8", "9-12", "13-16", "17-20", ">20")


# ------------------------------------------------------------------------------ components


def scaled_split_sizes(total: int, split_sizes: tuple[int, int, int]) -> tuple[int, int, int]:
    """``total`` rows in the proportions of ``split_sizes``, by largest remainder in integer
    arithmetic: the three add up to ``total`` exactly, with no float rounding to depend on."""
    weight = sum(split_sizes)
    base = [total * c // weight for c in split_sizes]
    remainder = [total * c % weight for c in split_sizes]
    by_remainder = sorted(range(3), key=lambda i: (-remainder[i], i))
    for i in by_remainder[: total - sum(base)]:
        base[i] += 1
    return (base[0], base[1], base[2])


class _UnionFind:
    """Tiny union-find over strings (a few thousand nodes: Python is fine and exact)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # smaller string becomes the root: the result does not depend on union order
            lo, hi = (ra, rb) if ra < rb else (rb, ra)
            self.parent[hi] = lo


def component_names(
    words: Sequence[tuple[str, ...]], lemmas: Sequence[tuple[str, ...]] | None
) -> list[str]:
    """Per row, the name of its connected component over the words it touches (and, when
    ``lemmas`` is given, its lemmas): the smallest form key, or ``lemma:<smallest lemma>`` when
    lemmas link the component. Rows sharing a word (or lemma) get the same name."""
    uf = _UnionFind()
    for i, ws in enumerate(words):
        nodes = [f"f\x00{w}" for w in ws]
        if lemmas is not None:
            nodes += [f"l\x00{lemma}" for lemma in lemmas[i]]
        for node in nodes[1:]:
            uf.union(nodes[0], node)
        if nodes:
            uf.find(nodes[0])
    best_form: dict[str, str] = {}
    best_lemma: dict[str, str] = {}
    for node in sorted(uf.parent):
        kind, _, value = node.partition("\x00")
        target = best_form if kind == "f" else best_lemma
        target.setdefault(uf.find(node), value)
    out = []
    for ws in words:
        root = uf.find(f"f\x00{ws[0]}")
        out.append(f"lemma:{best_lemma[root]}" if root in best_lemma else best_form[root])
    return out


def component_stats(groups: Sequence[str]) -> dict[str, Any]:
    """How many components the rows form and how big the largest is (the card reports it:
    pair graphs percolate)."""
    sizes = sorted(Counter(groups).values(), reverse=True)
    return {
        "components": len(sizes),
        "largest": sizes[0] if sizes else 0,
        "largest_share": round(sizes[0] / len(groups), 4) if sizes else 0.0,
    }


def hashes(names: Sequence[str], *prefix: object) -> np.ndarray:
    """``stable_u64(*prefix, name)`` per name, each distinct name hashed once (lemma-family
    and component names repeat a lot; blake2b per row was a third of a big build)."""
    memo: dict[str, int] = {}
    out = np.empty(len(names), dtype=np.uint64)
    for i, name in enumerate(names):
        value = memo.get(name)
        if value is None:
            value = memo[name] = stable_u64(*prefix, name)
        out[i] = value
    return out
