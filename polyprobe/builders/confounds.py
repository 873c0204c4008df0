"""Confound audit of one config: does something other than the task's property predict the
label? Computed from the rows as written (label, inputs, lexical key) for every config, printed
in its card and kept in ``report.json``.

Why: a probe that scores well may have learnt a shortcut. Armenian ``tense`` had 83% of its
Present rows copular and 0% of its Past rows; a probe can then learn "copula" instead of
"tense". The audit checks, per config:

- **length** (tokens of a sentence, characters of a word, both words of a pair): Spearman's
  rho of label id and length (meaningful for ordered labels) and Cramér's V of label and
  length quartile;
- **predicate type** (copular / periphrastic / synthetic verbal / other, for tasks whose
  label hangs on the main predicate: ``tense``, ``subject_number``, ``object_number``): each
  class's shares over the task's candidates (the rows before balancing and splitting: the
  published rows keep no parse), flagged by the same 80% rule, type by type and grouped as
  "has an auxiliary or copula" (Armenian ``tense_periphrastic``: 94% of Present rows, 0% of
  Past rows);
- **lexical keys** (the word the task's label hangs on: the verb lemma of ``tense``, the
  subject noun of ``subject_number``, the form of a word task): each class's most frequent
  keys and their shares.

Flag rule (the issue's): a confound is flagged when one class has >= 80% of its rows in one
length quartile or with one lexical key while another class does not (< 80% there); and when
Cramér's V of label and length quartile is >= 0.3 (a strong association). Flags are written in
the card's notes and under ``confounds`` in ``report.json``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

FLAG_SHARE = 0.8
STRONG_V = 0.3
TOP_KEYS = 3


def _doubled_ranks(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Twice each element's average rank (ties share it, ``scipy.stats.rankdata``'s
    default) when element i stands for ``weights[i]`` rows: an integer, so sums of ranks
    stay exact."""
    values, inverse = np.unique(x, return_inverse=True)
    counts = np.zeros(values.size, dtype=np.int64)
    np.add.at(counts, inverse, weights)
    ends = np.cumsum(counts)
    return (2 * ends - (counts - 1))[inverse]


def _spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> float | None:
    """Spearman's rho (Pearson's r of the average ranks, as ``scipy.stats.spearmanr``
    computes it: a test compares the two) of rows where ``(x[i], y[i])`` stands for
    ``weights[i]`` rows (one each by default). Not scipy itself: importing ``scipy.stats``
    costs a build process about as much as a small task, for two formulas. The sums are
    exact (Python integers of doubled ranks): the audit works from counts, and so the result
    cannot depend on how the rows were grouped."""
    w = np.ones(x.size, dtype=np.int64) if weights is None else np.asarray(weights, np.int64)
    n = int(w.sum())
    if n < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    rx = _doubled_ranks(x, w).tolist()
    ry = _doubled_ranks(y, w).tolist()
    wl = w.tolist()
    sx = sum(a * k for a, k in zip(rx, wl, strict=True))
    sy = sum(b * k for b, k in zip(ry, wl, strict=True))
    sxy = n * sum(a * b * k for a, b, k in zip(rx, ry, wl, strict=True)) - sx * sy
    sxx = n * sum(a * a * k for a, k in zip(rx, wl, strict=True)) - sx * sx
    syy = n * sum(b * b * k for b, k in zip(ry, wl, strict=True)) - sy * sy
    rho = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    return round(rho, 4)


def _cramers_v(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> float | None:
    """Cramér's V of two categorical arrays (bias-uncorrected, as usually reported; equal to
    ``scipy.stats.contingency.association(table, method="cramer")``, a test compares), where
    ``(a[i], b[i])`` stands for ``weights[i]`` rows (one each by default)."""
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    if ua.size < 2 or ub.size < 2:
        return None
    table = np.zeros((ua.size, ub.size), dtype=np.float64)
    np.add.at(table, (ia, ib), 1 if weights is None else weights)
    n = table.sum()
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return round(float(np.sqrt(chi2 / n / (min(table.shape) - 1))), 4)


def _quartiles(lengths: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Length bins at the quartiles (ties merge bins), with their names (``1-7``), of rows
    where ``lengths[i]`` stands for ``weights[i]`` rows. The quartiles are ``np.quantile``'s
    (linear interpolation between the two rows at position ``(n - 1) * q``), computed from
    the counts; exact, as lengths are integers and the steps quarters."""
    values, inverse = np.unique(lengths, return_inverse=True)
    counts = np.zeros(values.size, dtype=np.int64)
    np.add.at(counts, inverse, weights)
    ends = np.cumsum(counts)  # rows with a length <= values[k]
    n = int(ends[-1])

    def at(position: int) -> float:  # the length of the row at ``position`` in sorted order
        return float(values[np.searchsorted(ends, position, side="right")])

    quartiles = []
    for q in (0.25, 0.5, 0.75):
        h = (n - 1) * q
        below = math.floor(h)
        a, b = at(below), at(min(below + 1, n - 1))
        quartiles.append(a + (b - a) * (h - below))
    edges = np.unique(np.array(quartiles))
    bins = np.searchsorted(edges, lengths, side="left")
    names = []
    lo = int(values[0])
    for i in range(edges.size + 1):
        hi = int(edges[i]) if i < edges.size else int(values[-1])
        names.append(f"{lo}-{hi}")
        lo = hi + 1
    return bins, names


def length_counts(labels: np.ndarray, lengths: np.ndarray) -> Counter[tuple[int, int]]:
    """How many rows have each (label id, length): what the length part of the audit reads
    (a caller reading a large config a batch at a time holds no length per row)."""
    labels = np.asarray(labels, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if not labels.size:
        return Counter()
    # one int per row (label and length side by side): np.unique of pairs (axis=0) is 3x slower
    low_label, low_length = int(labels.min()), int(lengths.min())
    width = int(lengths.max()) - low_length + 1
    codes, counts = np.unique(
        (labels - low_label) * width + (lengths - low_length), return_counts=True
    )
    return Counter(
        {
            (low_label + code // width, low_length + code % width): n
            for code, n in zip(codes.tolist(), counts.tolist(), strict=True)
        }
    )


def pair_counts(labels: np.ndarray, values: Sequence[str]) -> Counter[tuple[int, str]]:
    """How many rows have each (label id, value): what the share rule reads."""
    return Counter(zip(np.asarray(labels).tolist(), values, strict=True))


def _share_flags(
    what: str,
    pairs: Mapping[tuple[int, str], int],
    names: Sequence[str],
) -> tuple[dict[str, list[tuple[str, float]]], list[str]]:
    """Per class, its most frequent values of ``what`` with their shares; flags by the 80%
    rule. ``pairs``: rows per (label id, value); an empty value counts for nothing."""
    by_class: dict[int, Counter[str]] = {}
    for (label, value), n in pairs.items():
        if value and n:
            by_class.setdefault(label, Counter())[value] += n
    tops: dict[str, list[tuple[str, float]]] = {}
    flags: list[str] = []
    for c, counts in sorted(by_class.items()):
        total = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_KEYS]
        tops[names[c]] = [(v, round(n / total, 4)) for v, n in ranked]
        value, n = ranked[0]
        if n / total < FLAG_SHARE:
            continue
        others = []
        for d, other in sorted(by_class.items()):
            share = other.get(value, 0) / max(sum(other.values()), 1)
            if d != c and share < FLAG_SHARE:
                others.append(f"{names[d]} {100 * share:.0f}%")
        if others:
            flags.append(
                f"{what}: {100 * n / total:.0f}% of {names[c]} rows have {what} {value!r} "
                f"(vs {', '.join(others[:3])}{', ...' if len(others) > 3 else ''})"
            )
    return tops, flags


def audit(
    labels: np.ndarray,
    label_names: Sequence[str],
    lengths: np.ndarray,
    length_unit: str,
    keys: Sequence[str] | Mapping[tuple[int, str], int],
) -> dict[str, Any]:
    """The audit of one config's rows (all splits together). ``lengths[i]`` is row i's
    length in ``length_unit``; ``keys[i]`` its lexical key ("" for none), or ``keys`` the
    rows per (label id, lexical key) (:func:`pair_counts`)."""
    key_pairs = keys if isinstance(keys, Mapping) else pair_counts(labels, keys)
    return audit_counts(length_counts(labels, lengths), label_names, length_unit, key_pairs)


def audit_counts(
    lengths: Mapping[tuple[int, int], int],
    label_names: Sequence[str],
    length_unit: str,
    keys: Mapping[tuple[int, str], int],
) -> dict[str, Any]:
    """:func:`audit` from counts: rows per (label id, length) (:func:`length_counts`) and
    per (label id, lexical key) (:func:`pair_counts`). What a caller reading a large config
    a batch at a time passes: its memory follows the distinct pairs, not the rows (per-row
    arrays and their sorting copies were ~90 bytes a row of the largest config, the build's
    peak)."""
    pairs = sorted((pair, n) for pair, n in lengths.items() if n > 0)
    labels = np.array([label for (label, _), _ in pairs], dtype=np.int64)
    row_lengths = np.array([length for (_, length), _ in pairs], dtype=np.int64)
    weights = np.array([n for _, n in pairs], dtype=np.int64)
    out: dict[str, Any] = {
        "rows": int(weights.sum()),
        "rule": f"flag: one class >= {FLAG_SHARE:.0%} in one length quartile, one lexical "
        f"key or one predicate type while another class is not; or Cramér's V(label, length "
        f"quartile) >= {STRONG_V}",
    }
    flags: list[str] = []
    if pairs:
        bins, bin_names = _quartiles(row_lengths, weights)
        v = _cramers_v(labels, bins, weights)
        means = {}
        for c in np.unique(labels).tolist():
            mine = labels == c
            total = int((row_lengths[mine] * weights[mine]).sum())  # exact, like numpy's mean
            means[label_names[c]] = round(total / int(weights[mine].sum()), 2)
        out["length"] = {
            "unit": length_unit,
            "spearman_rho": _spearman(labels, row_lengths, weights),
            "cramers_v_quartiles": v,
            "mean_by_class": means,
        }
        quartile_pairs: Counter[tuple[int, str]] = Counter()
        for label, b, n in zip(labels.tolist(), bins.tolist(), weights.tolist(), strict=True):
            quartile_pairs[label, bin_names[b]] += n
        _, length_flags = _share_flags("length quartile", quartile_pairs, label_names)
        flags += length_flags
        if v is not None and v >= STRONG_V:
            flags.append(f"length: Cramér's V of label and length quartile is {v:.2f}")
        if any(key for _, key in keys):
            tops, key_flags = _share_flags("lexical key", keys, label_names)
            out["lexical_keys"] = {"top_by_class": tops}
            flags += key_flags
    out["flags"] = flags
    return out


# Predicate types that carry an auxiliary or a copula (predicates.predicate_type's names).
AUX_OR_COP_TYPES = ("copular", "periphrastic")
AUX_OR_COP = "auxiliary or copula"


def predicate_audit(
    counts: Mapping[str, Mapping[str, int]], label_names: Sequence[str]
) -> dict[str, Any]:
    """Label vs predicate type (copular / periphrastic / synthetic verbal / other) from a
    task's candidate counts (``predicate_types``: label -> type -> candidates, before
    balancing and splitting): each class's shares and flags by the 80% rule (a class >= 80%
    one type while another is not).

    Also grouped: *has an auxiliary or copula* (copular + periphrastic) against the rest, by
    the same rule, with the accuracy of the one-feature rule "aux/cop -> the class most such
    rows have". Why: counted type by type, Armenian ``tense_periphrastic``'s Present rows were
    split between copular and periphrastic (neither 80%), and the periphrastic ones were
    counted as verbal, so "94% of Present rows have an aux or copula, 0% of Past rows" (a rule
    scoring 95.9%) went unflagged. The grouped flag is written only when periphrastic rows
    are part of it (a copular-only split is the per-type flag already)."""
    pairs = {
        (c, kind): int(n)
        for c, name in enumerate(label_names)
        for kind, n in counts.get(name, {}).items()
    }
    tops, flags = _share_flags("predicate type", pairs, label_names)
    grouped: Counter[tuple[int, str]] = Counter()
    for (c, kind), n in pairs.items():
        grouped[c, AUX_OR_COP if kind in AUX_OR_COP_TYPES else "none"] += n
    out: dict[str, Any] = {
        "scope": "candidates (before balancing and splitting)",
        "shares": tops,
        "flags": flags,
    }
    total = sum(grouped.values())
    if not total:
        return out
    shares = {
        label_names[c]: round(
            grouped[c, AUX_OR_COP] / max(grouped[c, AUX_OR_COP] + grouped[c, "none"], 1), 4
        )
        for c in sorted({c for c, _ in grouped})
    }
    by_group: dict[str, Counter[int]] = {}
    for (c, group), n in grouped.items():
        by_group.setdefault(group, Counter())[c] += n
    rule = sum(max(cs.values()) for cs in by_group.values()) / total
    by_class: Counter[int] = Counter()
    for (c, _), n in grouped.items():
        by_class[c] += n
    majority = max(by_class.values()) / total
    out["aux_or_copula"] = {
        "shares": shares,
        "rule_accuracy": round(rule, 4),
        "majority_share": round(majority, 4),
    }
    periphrastic = {c for (c, kind), n in pairs.items() if kind == "periphrastic" and n}
    _, grouped_flags = _share_flags("predicate", grouped, label_names)
    for flag in grouped_flags:
        flagged = next(
            (c for c, name in enumerate(label_names) if f"% of {name} rows" in flag), None
        )
        if flagged is None or flagged not in periphrastic or repr(AUX_OR_COP) not in flag:
            continue
        kinds = ", ".join(
            f"{kind} {100 * n / max(by_class[flagged], 1):.0f}%"
            for kind in AUX_OR_COP_TYPES
            if (n := pairs.get((flagged, kind), 0))
        )
        flags.append(
            flag.replace(f"predicate {AUX_OR_COP!r}", f"an {AUX_OR_COP} ({kinds})")
            + f"; the rule 'has an {AUX_OR_COP}' alone scores {100 * rule:.1f}% (majority "
            f"class {100 * majority:.1f}%)"
        )
    return out


def audit_note(result: dict[str, Any]) -> str:
    """The card's prose line for an audit."""
    length = result.get("length") or {}
    head = (
        f"confound audit ({result['rows']} rows, all splits): label vs length in "
        f"{length.get('unit', '?')} Spearman rho {length.get('spearman_rho')}, Cramér's V "
        f"{length.get('cramers_v_quartiles')}"
    )
    predicate = result.get("predicate_type")
    if predicate:
        shares = "; ".join(
            f"{name} " + ", ".join(f"{kind} {100 * share:.0f}%" for kind, share in tops)
            for name, tops in predicate["shares"].items()
        )
        head += f"; label vs predicate type over the task's candidates: {shares}"
    if result["flags"]:
        return head + "; FLAGGED: " + "; ".join(result["flags"])
    return head + "; no confound flagged (" + result["rule"] + ")"
