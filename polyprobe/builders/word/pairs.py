"""Word-pair tasks: ``same_feature`` and ``odd_feature`` (LINSPECTOR's SameFeat and OddFeat).

- ``same_feature``: two forms of *different* lemmas that share exactly one compared feature
  value and differ in every other compared feature (a feature present in only one counts as
  differing) -> that feature's dimension name; plus ``lemma`` pairs: one lemma, no feature
  value shared.
- ``odd_feature``: two forms of *one* lemma that differ in exactly one compared feature (a
  feature present in only one counts) -> that dimension; plus ``lemma`` pairs: the same full
  tag bundle, different lemmas.

POS is never compared; LINSPECTOR also skipped Mood for Finnish and Turkish and Interrogativity
for Turkish (:data:`LINSPECTOR_SKIPS`).

A probe sees two *words*, not two analyses, so a pair is labelled over every analysis of both
forms: it keeps its label only if exactly one label arises (LINSPECTOR's German data had 97
pairs with two labels; here a word pair can never carry two). Pairs are found by seeded
pairing inside buckets that can produce each label, then dominant labels are downsampled
(LINSPECTOR's pairs were dominated by Number) by water-filling an equal share per label.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable

from polyprobe.builders.word.common import (
    MIN_LABEL_FORMS,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    has_space,
    key_of,
    sample,
    shuffled,
)
from polyprobe.hashing import stable_rng
from polyprobe.loaders import unimorph_schema as schema
from polyprobe.loaders.records import LexEntry

LEMMA_LABEL = "lemma"
LINSPECTOR_SKIPS: dict[str, frozenset[str]] = {
    "fin": frozenset({schema.MOOD}),
    "tur": frozenset({schema.MOOD, schema.INTERROGATIVITY}),
}
_ISO1 = {"fi": "fin", "tr": "tur"}
# Lemma groups larger than this are sampled for odd_feature (all pairs would be quadratic).
MAX_FORMS_PER_LEMMA = 60
PAIRING_PASSES = 4


def skipped_features(lang: str | None) -> frozenset[str]:
    if lang is None:
        return frozenset()
    return LINSPECTOR_SKIPS.get(_ISO1.get(lang, lang), frozenset())


def _compared(entry: LexEntry, skip: frozenset[str]) -> dict[str, str]:
    return {d: v for d, v in entry.features.items() if d != schema.POS and d not in skip}


class _Analysis:
    """What the pair labels look at: lemma, compared features, the full bundle."""

    __slots__ = ("lemma", "compared", "full")

    def __init__(self, entry: LexEntry, skip: frozenset[str]):
        self.lemma = entry.lemma
        self.compared = _compared(entry, skip)
        self.full = dict(entry.features)


def _same(a: _Analysis, b: _Analysis) -> str | None:
    fa, fb = a.compared, b.compared
    shared = [d for d in fa if d in fb and fa[d] == fb[d]]
    if a.lemma != b.lemma:
        return shared[0] if len(shared) == 1 else None
    return LEMMA_LABEL if not shared and (fa or fb) else None


def _odd(a: _Analysis, b: _Analysis) -> str | None:
    if a.lemma == b.lemma:
        fa, fb = a.compared, b.compared
        diff = [d for d in sorted(fa.keys() | fb.keys()) if fa.get(d) != fb.get(d)]
        return diff[0] if len(diff) == 1 else None
    return LEMMA_LABEL if a.full == b.full else None


def same_feature_label(a: LexEntry, b: LexEntry, skip: frozenset[str] = frozenset()) -> str | None:
    """The ``same_feature`` label of two analyses, or None when they make no item."""
    return _same(_Analysis(a, skip), _Analysis(b, skip))


def odd_feature_label(a: LexEntry, b: LexEntry, skip: frozenset[str] = frozenset()) -> str | None:
    """The ``odd_feature`` label of two analyses, or None when they make no item."""
    return _odd(_Analysis(a, skip), _Analysis(b, skip))


class _Lexicon:
    """Analyses grouped by form key, forms grouped by lemma; multi-word forms left out."""

    def __init__(self, entries: Iterable[LexEntry], report: TaskReport, skip: frozenset[str]):
        self.analyses: dict[str, list[_Analysis]] = {}
        self.form: dict[str, str] = {}
        self.by_lemma: dict[str, list[str]] = {}
        for entry in entries:
            if has_space(entry.form):
                report.drops["form-with-space"] += 1
                continue
            key = key_of(entry.form)
            self.analyses.setdefault(key, []).append(_Analysis(entry, skip))
            self.form.setdefault(key, entry.form)
            keys = self.by_lemma.setdefault(entry.lemma, [])
            if key not in keys:
                keys.append(key)
        report.counts["forms"] = len(self.form)
        report.counts["lemmas"] = len(self.by_lemma)

    def lemmas_of(self, key: str) -> list[str]:
        out: list[str] = []
        for e in self.analyses[key]:
            if e.lemma not in out:
                out.append(e.lemma)
        return out


class _PairCollector:
    """Labels word pairs over all analyses, once per unordered pair."""

    def __init__(
        self,
        lex: _Lexicon,
        label: Callable[[_Analysis, _Analysis], str | None],
        report: TaskReport,
        limit: int,
    ):
        self.lex = lex
        self.label = label
        self.report = report
        self.limit = limit
        self.seen: set[tuple[str, str]] = set()
        self.by_label: dict[str, list[tuple[str, str]]] = {}

    def offer(self, k1: str, k2: str) -> None:
        if k1 == k2:
            return
        pair = (k1, k2) if k1 < k2 else (k2, k1)
        if pair in self.seen:
            return
        self.seen.add(pair)
        labels = {
            lab
            for a in self.lex.analyses[pair[0]]
            for b in self.lex.analyses[pair[1]]
            if (lab := self.label(a, b)) is not None
        }
        if len(labels) > 1:
            self.report.drops["pair-with-two-labels"] += 1
        elif labels:
            self.by_label.setdefault(labels.pop(), []).append(pair)

    def enough(self, label: str) -> bool:
        """More pairs of a label than could ever be used: stop looking (saves most of the time
        on big buckets such as Number=Singular)."""
        return len(self.by_label.get(label, ())) >= self.limit


def _pair_consecutive(
    keys: list[str], collector: _PairCollector, rng_parts: tuple[object, ...], label: str
) -> None:
    """Offer (k0,k1), (k2,k3), ... of several seeded shuffles of ``keys``, until ``label`` has
    enough pairs."""
    if len(keys) < 2:
        return
    ordered = sorted(keys)
    for p in range(PAIRING_PASSES):
        if collector.enough(label):
            return
        order = shuffled(ordered, stable_rng(*rng_parts, p))
        for i in range(0, len(order) - 1, 2):
            collector.offer(order[i], order[i + 1])


def _water_fill(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Equal shares per label; labels with fewer items give their unused share to the rest."""
    quota: dict[str, int] = {}
    remaining = dict(sizes)
    budget = total
    while remaining and budget > 0:
        share = math.ceil(budget / len(remaining))
        small = {k: n for k, n in remaining.items() if n <= share}
        if not small:
            for k in sorted(remaining):
                take = min(share, budget, remaining[k])
                quota[k] = take
                budget -= take
            break
        for k, n in small.items():
            quota[k] = n
            budget -= n
            del remaining[k]
    for k in sizes:
        quota.setdefault(k, 0)
    return quota


def _finish(
    task: str,
    collector: _PairCollector,
    target: int,
    seed: int,
    min_label_pairs: int,
    report: TaskReport,
) -> TaskResult:
    lex = collector.lex
    found = {label: len(pairs) for label, pairs in sorted(collector.by_label.items())}
    report.counts["pairs_found"] = found
    thin = sorted(label for label, n in found.items() if n < min_label_pairs)
    if thin:
        report.notes.append(f"labels with < {min_label_pairs} pairs dropped: {', '.join(thin)}")
        report.drops["label-below-min-pairs"] += sum(found[t] for t in thin)
    usable = {label: n for label, n in found.items() if label not in thin}
    if len(usable) < 2:
        report.ineligible(
            f"fewer than 2 labels with >= {min_label_pairs} pairs (found: {found or 'none'})"
        )
        return TaskResult(task, [], report)
    quota = _water_fill(usable, target)
    ranked = sorted(quota.values(), reverse=True)
    if len(ranked) > 1 and ranked[0] > ranked[1]:
        # No label may outnumber the runner-up: the dominant one (Number in LINSPECTOR's data,
        # ``lemma`` in small lexicons) is cut to the second largest.
        quota = {label: min(n, ranked[1]) for label, n in quota.items()}
    downsampled = {
        label: usable[label] - quota[label] for label in usable if quota[label] < usable[label]
    }
    if downsampled:
        report.notes.append(
            "dominant labels downsampled (equal share, none above the runner-up): "
            + ", ".join(f"{label} {usable[label]}->{quota[label]}" for label in sorted(downsampled))
        )
    if sum(quota.values()) < target:
        report.notes.append(f"{sum(quota.values())} pairs available for a target of {target}")
    candidates: list[WordCandidate] = []
    for label in sorted(usable):
        pairs = sample(
            sorted(collector.by_label[label]), quota[label], stable_rng(seed, "word", task, label)
        )
        flip = stable_rng(seed, "word", task, label, "order")
        for k1, k2 in pairs:
            if flip.random() < 0.5:
                k1, k2 = k2, k1
            lemmas = tuple(dict.fromkeys(lex.lemmas_of(k1) + lex.lemmas_of(k2)))
            group = "|".join(sorted((k1, k2)))
            candidates.append(
                WordCandidate(
                    (lex.form[k1], lex.form[k2]),
                    label,
                    group,
                    k1,
                    lex.lemmas_of(k1)[0],
                    (k1, k2),
                    lemmas,
                )
            )
    report.label_counts = dict(sorted(Counter(c.label for c in candidates).items()))
    return TaskResult(task, candidates, report)


def _target(sizes: SizeParams, lex: _Lexicon, n_pairs: int | None) -> int:
    if n_pairs is not None:
        return n_pairs
    return sizes.target(len(lex.form))


def same_feature(
    entries: Iterable[LexEntry],
    *,
    lang: str | None = None,
    skip: Iterable[str] | None = None,
    sizes: SizeParams | None = None,
    n_pairs: int | None = None,
    seed: int = 0,
    min_label_pairs: int = MIN_LABEL_FORMS,
) -> TaskResult:
    """``same_feature`` pairs. ``skip`` (default: LINSPECTOR's per-language skips for ``lang``)
    lists dimensions never compared; ``n_pairs`` defaults to the size rule of
    :class:`SizeParams` over the number of forms."""
    sizes = sizes or SizeParams()
    skipped = frozenset(skip) if skip is not None else skipped_features(lang)
    report = TaskReport("same_feature")
    lex = _Lexicon(entries, report, skipped)
    target = _target(sizes, lex, n_pairs)
    report.params = {**sizes.as_dict(), "n_pairs": target, "skip": sorted(skipped), "seed": seed}
    collector = _PairCollector(lex, _same, report, target)
    # Different lemmas sharing a value: pair inside each (dimension, value) bucket.
    buckets: dict[tuple[str, str], list[str]] = {}
    for key in sorted(lex.analyses):
        for analysis in lex.analyses[key]:
            for dim, value in analysis.compared.items():
                bucket = buckets.setdefault((dim, value), [])
                if not bucket or bucket[-1] != key:
                    bucket.append(key)
    for (dim, value), keys in sorted(buckets.items()):
        _pair_consecutive(
            list(dict.fromkeys(keys)), collector, (seed, "same_feature", dim, value), dim
        )
    # One lemma, nothing shared: pair inside each lemma.
    for lemma, keys in sorted(lex.by_lemma.items()):
        _pair_consecutive(keys, collector, (seed, "same_feature", "lemma", lemma), LEMMA_LABEL)
    return _finish("same_feature", collector, target, seed, min_label_pairs, report)


def odd_feature(
    entries: Iterable[LexEntry],
    *,
    lang: str | None = None,
    skip: Iterable[str] | None = None,
    sizes: SizeParams | None = None,
    n_pairs: int | None = None,
    seed: int = 0,
    min_label_pairs: int = MIN_LABEL_FORMS,
) -> TaskResult:
    """``odd_feature`` pairs (see the module docstring)."""
    sizes = sizes or SizeParams()
    skipped = frozenset(skip) if skip is not None else skipped_features(lang)
    report = TaskReport("odd_feature")
    lex = _Lexicon(entries, report, skipped)
    target = _target(sizes, lex, n_pairs)
    report.params = {
        **sizes.as_dict(),
        "n_pairs": target,
        "skip": sorted(skipped),
        "seed": seed,
        "max_forms_per_lemma": MAX_FORMS_PER_LEMMA,
    }
    collector = _PairCollector(lex, _odd, report, target)
    # One lemma, one difference: all pairs inside each (sampled) lemma group.
    for lemma, keys in sorted(lex.by_lemma.items()):
        if len(keys) > MAX_FORMS_PER_LEMMA:
            keys = sample(
                sorted(keys),
                MAX_FORMS_PER_LEMMA,
                stable_rng(seed, "odd_feature", "lemma-sample", lemma),
            )
            report.counts["lemmas_sampled"] = report.counts.get("lemmas_sampled", 0) + 1
        keys = sorted(keys)
        for i, k1 in enumerate(keys):
            for k2 in keys[i + 1 :]:
                collector.offer(k1, k2)
    # Same full bundle, different lemmas: pair inside each bundle.
    bundles: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for key in sorted(lex.analyses):
        for analysis in lex.analyses[key]:
            bundle = tuple(sorted(analysis.full.items()))
            keys = bundles.setdefault(bundle, [])
            if not keys or keys[-1] != key:
                keys.append(key)
    for bundle, keys in sorted(bundles.items()):
        _pair_consecutive(
            list(dict.fromkeys(keys)),
            collector,
            (seed, "odd_feature", "lemma", bundle),
            LEMMA_LABEL,
        )
    return _finish("odd_feature", collector, target, seed, min_label_pairs, report)
