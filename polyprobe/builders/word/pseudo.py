"""``pseudo``: real word (``1``) vs Wuggy pseudoword (``0``), 50/50.

Each item pair is a seed word and one of its pseudowords, in one group: a pseudoword is built
from its seed's segments (2/3 shared), so seeing the seed in train and its pseudoword in test
would leak. Pseudowords must already be filtered against real words
(:func:`polyprobe.loaders.wuggy.filter_pseudowords`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from polyprobe.builders.word.common import (
    TaskReport,
    TaskResult,
    WordCandidate,
    has_space,
    key_of,
    sample,
)
from polyprobe.hashing import stable_rng
from polyprobe.loaders.wuggy import PseudowordRow

REAL_LABEL = "1"
PSEUDO_LABEL = "0"


def pseudo_task(
    rows: Iterable[PseudowordRow],
    *,
    n_pairs: int | None = None,
    seed: int = 0,
    real_words: Iterable[str] | None = None,
) -> TaskResult:
    """One (seed, pseudoword) pair per seed word, ``n_pairs`` of them (default: all).

    ``real_words``, when given, restricts seeds to words of the probed lexicon (e.g. the
    UniMorph forms), so that the real half of the task is drawn from the same vocabulary as
    the other tasks."""
    report = TaskReport("pseudo")
    allowed = None if real_words is None else {key_of(w) for w in real_words}
    by_seed: dict[str, tuple[str, list[str]]] = {}
    for row in rows:
        if has_space(row.seed) or has_space(row.pseudoword):
            report.drops["form-with-space"] += 1
            continue
        key = key_of(row.seed)
        if allowed is not None and key not in allowed:
            report.drops["seed-not-in-lexicon"] += 1
            continue
        entry = by_seed.setdefault(key, (row.seed, []))
        if row.pseudoword not in entry[1]:
            entry[1].append(row.pseudoword)
    seeds = sorted(by_seed)
    k = len(seeds) if n_pairs is None else min(n_pairs, len(seeds))
    report.params = {"n_pairs": n_pairs, "seed": seed}
    report.counts.update(seed_words=len(seeds), pairs=k)
    if k < 1:
        report.ineligible("no seed word with a pseudoword")
        return TaskResult("pseudo", [], report)
    if n_pairs is not None and len(seeds) < n_pairs:
        report.notes.append(f"{len(seeds)} seed words with pseudowords for {n_pairs} pairs wanted")
    candidates: list[WordCandidate] = []
    for key in sample(seeds, k, stable_rng(seed, "word", "pseudo", "seeds")):
        word, pseudos = by_seed[key]
        pseudo = sample(pseudos, 1, stable_rng(seed, "word", "pseudo", key))[0]
        pkey = key_of(pseudo)
        candidates.append(WordCandidate(word, REAL_LABEL, key, key, word, (key,), (word,)))
        candidates.append(WordCandidate(pseudo, PSEUDO_LABEL, key, pkey, "", (pkey,), ()))
    report.label_counts = dict(sorted(Counter(c.label for c in candidates).items()))
    return TaskResult("pseudo", candidates, report)
