"""The confound audit's flag rule (issue 14, point 8) on the issue's own example: Armenian
``tense``, where 83% of Present rows are copular and 0% of Past rows (here as lexical keys:
the copula's lemma)."""

from __future__ import annotations

import numpy as np

from polyprobe.builders.confounds import audit, audit_note


def test_eighty_percent_rule_flags_a_key_confound() -> None:
    # 100 Present rows, 83 with key "linel" (the copula); 100 Past rows, none with it
    labels = np.array([0] * 100 + [1] * 100)
    keys = ["linel"] * 83 + [f"verb{i}" for i in range(17)] + [f"verb{i}" for i in range(100)]
    lengths = np.array([5, 6, 7, 8] * 50)
    result = audit(labels, ["Present", "Past"], lengths, "tokens", keys)
    assert result["flags"] == [
        "lexical key: 83% of Present rows have lexical key 'linel' (vs Past 0%)"
    ]
    assert result["lexical_keys"]["top_by_class"]["Present"][0] == ("linel", 0.83)
    assert result["length"]["cramers_v_quartiles"] == 0.0
    assert "FLAGGED" in audit_note(result)


def test_no_flag_when_both_classes_share_the_key() -> None:
    labels = np.array([0] * 50 + [1] * 50)
    keys = ["be"] * 45 + ["x"] * 5 + ["be"] * 41 + ["y"] * 9
    result = audit(labels, ["Pres", "Past"], np.arange(100) % 7 + 3, "tokens", keys)
    assert result["flags"] == []
    assert "no confound flagged" in audit_note(result)


def test_length_confound_is_flagged() -> None:
    labels = np.array([0] * 50 + [1] * 50)
    lengths = np.array([3] * 50 + [30] * 50)
    result = audit(labels, ["short", "long"], lengths, "tokens", [""] * 100)
    assert result["length"]["spearman_rho"] == 1.0
    assert any("Cramér's V" in f for f in result["flags"])


def test_statistics_equal_scipys() -> None:
    """The audit computes Spearman's rho and Cramér's V itself (scipy.stats is slow to import
    in every build process): they must equal scipy's, ties included."""
    from scipy.stats import spearmanr
    from scipy.stats.contingency import association

    from polyprobe.builders.confounds import _cramers_v, _spearman

    rng = np.random.default_rng(7)
    for _ in range(20):
        labels = rng.integers(0, 4, 500)
        lengths = rng.integers(1, 12, 500) + 3 * labels  # ties and an association
        assert _spearman(labels, lengths) == round(float(spearmanr(labels, lengths)[0]), 4)
        table = np.zeros((4, 14), dtype=np.int64)
        np.add.at(table, (labels, np.minimum(lengths // 3, 13)), 1)
        table = table[:, table.sum(axis=0) > 0]
        v = association(table, method="cramer")
        assert _cramers_v(labels, np.minimum(lengths // 3, 13)) == round(float(v), 4)


def _per_row_reference(labels: np.ndarray, lengths: np.ndarray) -> dict[str, object]:
    """The length audit as it was computed from per-row arrays before the audit worked from
    counts (np.quantile, np.corrcoef of ranks, means of the rows)."""
    from scipy.stats import spearmanr

    edges = np.unique(np.quantile(lengths, [0.25, 0.5, 0.75]))
    bins = np.searchsorted(edges, lengths, side="left")
    rho = spearmanr(labels, lengths)[0]
    return {
        "edges": edges.tolist(),
        "bins": bins,
        "spearman_rho": round(float(rho), 4),
        "mean_by_class": {
            c: round(float(lengths[labels == c].mean()), 2) for c in np.unique(labels).tolist()
        },
    }


def test_the_audit_from_counts_equals_the_per_row_audit() -> None:
    """The audit counts a config a chunk at a time and keeps only rows per (label,
    length): quartiles, Spearman's rho, Cramér's V and the class means must be those of the
    rows themselves (odd and even row counts: the quartiles interpolate)."""
    from polyprobe.builders.confounds import _cramers_v, _quartiles, audit, length_counts

    rng = np.random.default_rng(11)
    for size in (3, 4, 5, 97, 500, 1001):
        labels = rng.integers(0, 3, size)
        lengths = rng.integers(1, 40, size) + 5 * labels
        want = _per_row_reference(labels, lengths)
        counts = length_counts(labels, lengths)
        assert sum(counts.values()) == size
        distinct = np.array([length for _, length in counts])
        weights = np.array(list(counts.values()))
        edges_bins, names = _quartiles(distinct, weights)
        reference_bins = dict(zip(lengths.tolist(), want["bins"].tolist(), strict=True))
        assert edges_bins.tolist() == [reference_bins[x] for x in distinct.tolist()]
        assert len(names) == len(want["edges"]) + 1
        names_ = ["a", "b", "c"]
        result = audit(labels, names_, lengths, "tokens", [""] * size)
        assert result["rows"] == size
        assert result["length"]["spearman_rho"] == want["spearman_rho"]
        assert result["length"]["mean_by_class"] == {
            names_[c]: m for c, m in want["mean_by_class"].items()
        }
        assert result["length"]["cramers_v_quartiles"] == _cramers_v(labels, want["bins"])
