"""Variant engine tests on synthetic candidates with known answers.

The invariants (no group or key in two splits, nesting, shared validation/test, seeded order)
are checked by one helper on every result, including hypothesis-generated inputs."""

from __future__ import annotations

import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyprobe.builders.variants import (
    DROP_CLASS_FLOOR,
    DROP_GROUP_SEEN,
    DROP_KEY_SEEN,
    NO_ROWS_REASON,
    SPLITS,
    CandidateColumns,
    MinPerClass,
    SizeSpec,
    SplitEstimate,
    SplitSpec,
    TaskVariants,
    VariantSettings,
    _argsort_by_index_ties,
    make_variants,
    parse_sizes,
    parse_split,
)
from polyprobe.errors import UsageError

NO_FLOOR = MinPerClass(0, 0, 0)


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a stand-in for the pipeline's blake2b order hash."""
    z = np.asarray(x, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def cols_of(label, group, key=None, split=None, order=None, seed: int = 0) -> CandidateColumns:
    n = len(label)
    return CandidateColumns(
        label=np.asarray(label, dtype=np.int16),
        group=np.asarray(group, dtype=np.uint64),
        key=np.zeros(n, dtype=np.uint64) if key is None else np.asarray(key, dtype=np.uint64),
        source_split=(
            np.full(n, -1, dtype=np.int8) if split is None else np.asarray(split, dtype=np.int8)
        ),
        order=(
            mix64(np.arange(n) + np.uint64(seed) * np.uint64(1 << 32))
            if order is None
            else np.asarray(order, dtype=np.uint64)
        ),
    )


def random_cols(n: int, n_labels: int = 3, seed: int = 0, keys: bool = True) -> CandidateColumns:
    rng = np.random.default_rng(seed)  # only to *make* test data; the engine uses no RNG
    key = rng.integers(1, max(2, n // 4), n).astype(np.uint64) if keys else None
    if key is not None:
        key[rng.random(n) < 0.3] = 0
    return cols_of(
        label=rng.integers(0, n_labels, n),
        group=rng.integers(1, max(2, n // 2), n),
        key=key,
        split=rng.choice(3, n, p=[0.7, 0.15, 0.15]),
        seed=seed,
    )


def check_invariants(cols: CandidateColumns, tv: TaskVariants, *, classifier: bool = True) -> None:
    """What every result must satisfy, whatever the input (``classifier``: a class task,
    ``min_classes`` 2, whose kept classes all have rows)."""
    by_balance: dict[str, list] = {}
    # a kept class has rows; a variant has rows, and balancing never empties a split that
    # holds rows in the natural pool
    assert not classifier or tv.infeasible is not None or tv.class_counts.sum(axis=0).all()
    for v in tv.variants:
        assert set(v.indices) == set(SPLITS)
        assert sum(len(v.indices[s]) for s in SPLITS) > 0
        for s in SPLITS:
            assert len(v.indices[s]) or not tv.class_counts[SPLITS.index(s)].any()
        seen_g: dict[int, str] = {}
        seen_k: dict[int, str] = {}
        all_idx = []
        for s in SPLITS:
            idx = v.indices[s]
            assert idx.dtype == np.int64
            assert not idx.flags.writeable  # shared between variants: must not be edited
            all_idx.append(idx)
            # output order: sorted by order hash, ties by candidate index
            o = cols.order[idx]
            assert np.all((o[1:] > o[:-1]) | ((o[1:] == o[:-1]) & (idx[1:] > idx[:-1])))
            assert np.all(tv.label_remap[cols.label[idx]] >= 0)  # no dropped class leaks
            for g in np.unique(cols.group[idx]).tolist():
                assert seen_g.setdefault(g, s) == s, f"group {g} in {seen_g[g]} and {s}"
            for k in np.unique(cols.key[idx]).tolist():
                if k:
                    assert seen_k.setdefault(k, s) == s, f"key {k} in {seen_k[k]} and {s}"
        joined = np.concatenate(all_idx)
        assert np.unique(joined).size == joined.size  # no candidate twice
        if v.balance == "balanced":
            for s in SPLITS:
                counts = np.bincount(
                    tv.label_remap[cols.label[v.indices[s]]], minlength=len(tv.label_names)
                )
                if v.size == "full" or s != "train":
                    assert len(set(counts.tolist())) <= 1, (s, counts)
                else:
                    assert counts.max() - counts.min() <= 1
        by_balance.setdefault(v.balance, []).append(v)
    for variants in by_balance.values():
        first = variants[0]
        for v in variants[1:]:
            for s in ("validation", "test"):
                assert np.array_equal(v.indices[s], first.indices[s])
        trains = sorted((v.indices["train"] for v in variants), key=len)
        for small, large in zip(trains, trains[1:], strict=False):
            assert np.isin(small, large).all()  # nested


def run(cols, names=None, split="ud", sizes=None, balances=("natural", "balanced"), floor=None):
    names = names or [f"c{i}" for i in range(int(cols.label.max()) + 1 if len(cols) else 2)]
    spec = parse_split(split) if isinstance(split, str) else split
    tv = make_variants(
        cols,
        names,
        VariantSettings(
            split=spec,
            sizes=parse_sizes(sizes),
            balances=balances,
            min_per_class=NO_FLOOR if floor is None else floor,
        ),
    )
    check_invariants(cols, tv)
    return tv


# ----------------------------------------------------------------------------- parsing


def test_parse_sizes() -> None:
    specs = parse_sizes("10k, 0.25,0.5,5000")
    # absolute sizes get one canonical spelling, so "5000" and "5k" name the same config
    assert [s.label for s in specs] == ["full", "10k", "0.25", "0.5", "5k"]
    assert specs[0] == SizeSpec("full")
    assert specs[1].rows == 10000 and specs[1].fraction is None
    assert specs[2].fraction == 0.25 and specs[2].rows is None
    assert specs[4].rows == 5000
    assert parse_sizes(None) == (SizeSpec("full"),)
    assert parse_sizes("") == (SizeSpec("full"),)
    assert parse_sizes("full,10000,10k,1.5k,2m,.5") == (
        SizeSpec("full"),
        SizeSpec("10k", rows=10000),
        SizeSpec("1500", rows=1500),
        SizeSpec("2m", rows=2_000_000),
        SizeSpec("0.5", fraction=0.5),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ten", "'ten' is not a size"),
        ("0", "at least 1 row"),
        ("1.5", "neither a whole row count nor a fraction"),
        ("-3", "negative"),
        ("1.0", "strictly between 0 and 1"),
        ("0.0", "strictly between 0 and 1"),
        ("10k,,5", "empty item"),
        ("1e3", "not a size"),
        ("0.5k5", "not a size"),
        ("1.0005k", "whole number of rows"),
    ],
)
def test_parse_sizes_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as info:
        parse_sizes(text)
    assert "--sizes" in str(info.value)


def test_parse_split() -> None:
    assert parse_split("ud").mode == "ud"
    assert parse_split(" UD ").mode == "ud"
    spec = parse_split("ratio:70/15/15")
    assert (spec.mode, spec.ratios, spec.label) == ("ratio", (70, 15, 15), "ratio:70/15/15")
    assert parse_split("ratio").ratios == (80, 10, 10)
    assert parse_split("ratio:100/0/0").ratios == (100, 0, 0)
    assert spec.reason


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("random", "not a split mode"),
        ("ratio:80/20", "three non-negative whole percentages"),
        ("ratio:80/10/5", "sum to 95, not 100"),
        ("ratio:0/50/50", "train needs a positive share"),
        ("ratio:a/b/c", "three non-negative"),
        ("ratio:-10/60/50", "three non-negative"),
        ("ratio:80.5/9.5/10", "three non-negative"),
    ],
)
def test_parse_split_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as info:
        parse_split(text)
    assert "--split" in str(info.value)


# ----------------------------------------------------------------------------- ud splits


def test_ud_drop_counts_hand_made() -> None:
    #        0  1  2  3  4  5  6  7  8  9 10
    split = [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2]
    group = [1, 2, 1, 3, 4, 1, 4, 5, 6, 3, 7]
    key = [11, 0, 12, 11, 13, 11, 15, 13, 12, 19, 0]
    label = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    # 2: group 1 in train → group drop        3: key 11 in train → key drop
    # 5: group and key seen → counted once, as group   6: group 4 kept in validation → group
    # 7: key 13 kept in validation → key       8: key 12 only on dropped #2 → kept
    # 9: group 3 only on dropped #3 → kept     4, 10: new group, no/new key → kept
    cols = cols_of(label, group, key, split)
    tv = run(cols, ["a", "b"], sizes="1,2,3")
    assert tv.drops == Counter({DROP_GROUP_SEEN: 3, DROP_KEY_SEEN: 2})
    full = tv.get("natural", "full")
    assert full is not None
    assert {s: sorted(full.indices[s].tolist()) for s in SPLITS} == {
        "train": [0, 1],
        "validation": [4],
        "test": [8, 9, 10],
    }
    assert tv.infeasible is None and tv.label_names == ["a", "b"]
    assert tv.not_built == [
        "natural size 2 not built: 2 available (same as full)",
        "natural size 3 not built: 2 available",
        # validation holds no "b" (no floor here): balancing would empty it, so no balanced
        # variant is built at all
        "balanced not built: no validation row of b (a floor of 0 keeps such a class), so a "
        "balanced split would be empty",
    ]
    one = tv.get("natural", "1")
    assert one is not None and one.indices["train"].tolist() == full.indices["train"][:1].tolist()


def test_ud_needs_source_splits() -> None:
    cols = cols_of([0, 1, 0], [1, 2, 3], split=[0, -1, 2])
    with pytest.raises(ValueError, match="1 candidate"):
        run(cols)


def test_bad_columns_rejected() -> None:
    with pytest.raises(ValueError, match="labels must lie in"):
        run(cols_of([0, 5], [1, 2], split=[0, 1]), names=["a", "b"])
    bad = cols_of([0, 1], [1, 2], split=[0, 1])
    bad.order = bad.order[:1]
    with pytest.raises(ValueError, match="'order' has shape"):
        run(bad)
    with pytest.raises(ValueError, match="unknown balance"):
        run(cols_of([0, 1], [1, 2], split=[0, 1]), balances=("fair",))


# ----------------------------------------------------------------------------- ratio splits


def components_py(cols: CandidateColumns) -> list[int]:
    """Reference: plain Python union-find over group and key nodes; returns a component label
    per candidate."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for g, k in zip(cols.group.tolist(), cols.key.tolist(), strict=True):
        a = find(("g", g))
        if k:
            b = find(("k", k))
            if a != b:
                parent[b] = a
    roots = [find(("g", g)) for g in cols.group.tolist()]
    ids: dict[tuple[str, int], int] = {}
    return [ids.setdefault(r, len(ids)) for r in roots]


def test_ratio_keeps_components_whole() -> None:
    cols = random_cols(3000, seed=3)
    tv = run(cols, split="ratio:60/20/20")
    full = tv.get("natural", "full")
    assert full is not None
    comp = np.asarray(components_py(cols))
    where = np.full(len(cols), -1)
    for s, name in enumerate(SPLITS):
        where[full.indices[name]] = s
    assert (where >= 0).all()  # ratio mode drops nothing without floors
    for c in np.unique(comp):
        assert np.unique(where[comp == c]).size == 1


def test_ratio_chain_component_is_one_unit() -> None:
    # groups 1..50 chained by keys: g_i has keys i and i+1 → one component of 100 candidates
    group = np.repeat(np.arange(1, 51), 2)
    key = np.stack([np.arange(1, 51), np.arange(2, 52)], axis=1).ravel()
    singles = np.arange(1000, 1900)
    cols = cols_of(
        label=np.arange(1000) % 2,
        group=np.concatenate([group, singles]),
        key=np.concatenate([key, np.zeros(900)]),
    )
    tv = run(cols, split="ratio:80/10/10")
    full = tv.get("natural", "full")
    assert full is not None
    train = set(full.indices["train"].tolist())
    assert set(range(100)) <= train  # the big component goes whole, to the split it fits
    assert [len(full.indices[s]) for s in SPLITS] == [800, 100, 100]


@pytest.mark.parametrize("ratios", [(80, 10, 10), (70, 15, 15), (50, 0, 50), (100, 0, 0)])
def test_ratio_close_to_target(ratios: tuple[int, int, int]) -> None:
    n = 20000
    rng = np.random.default_rng(1)
    cols = cols_of(label=rng.integers(0, 2, n), group=rng.integers(0, n // 2, n))  # 1–5 per group
    tv = run(cols, split=SplitSpec("ratio", ratios), balances=("natural",))
    full = tv.get("natural", "full")
    assert full is not None
    got = [len(full.indices[s]) for s in SPLITS]
    assert sum(got) == n
    for g, r in zip(got, ratios, strict=True):
        assert abs(g - n * r / 100) <= 10, (got, ratios)
        if r == 0:
            assert g == 0


def test_ratio_giant_component_goes_to_train() -> None:
    n = 10000
    group = np.arange(n)
    key = np.zeros(n, dtype=np.uint64)
    key[:4000] = 7  # one lexical key shared by 40% of the candidates
    cols = cols_of(label=np.arange(n) % 2, group=group, key=key)
    tv = run(cols, split="ratio:80/10/10", balances=("natural",))
    full = tv.get("natural", "full")
    assert full is not None
    assert set(range(4000)) <= set(full.indices["train"].tolist())
    assert [len(full.indices[s]) for s in SPLITS] == [8000, 1000, 1000]
    assert "largest 4000 candidates" in tv.notes[0]


def test_no_keys_components_are_groups() -> None:
    cols = cols_of(label=np.arange(400) % 2, group=np.arange(400) // 4)
    tv = run(cols, split="ratio:50/25/25", balances=("natural",))
    assert "100 components of (group)" in tv.notes[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(
        st.tuples(
            st.integers(0, 2),  # label
            st.integers(0, 12),  # group
            st.integers(0, 8),  # key (0 = none)
            st.integers(0, 2),  # source split
            st.integers(0, 40),  # order (small: many ties)
        ),
        min_size=0,
        max_size=80,
    ),
    mode=st.sampled_from(["ud", "ratio:80/10/10", "ratio:34/33/33", "ratio:60/0/40"]),
    sizes=st.sampled_from([None, "3,0.5", "1,2,10,0.9"]),
    floor=st.sampled_from([NO_FLOOR, MinPerClass(3, 1, 1), MinPerClass(8, 2, 2)]),
)
def test_invariants_hypothesis(data, mode: str, sizes: str | None, floor: MinPerClass) -> None:
    columns = [list(c) for c in zip(*data, strict=True)] if data else [[] for _ in range(5)]
    label, group, key, split, order = columns
    cols = cols_of(label, group, key, split, order)
    tv = run(cols, names=["a", "b", "c"], split=mode, sizes=sizes, floor=floor)  # invariants
    assert len(tv.label_names) + len(tv.dropped_classes) == 3
    if tv.infeasible is None:
        kept_total = sum(len(v) for v in tv.variants[0].indices.values())
        assert kept_total + sum(tv.drops.values()) == len(cols)
        if mode.startswith("ratio"):
            assert DROP_GROUP_SEEN not in tv.drops
    else:
        assert tv.variants == []


# ----------------------------------------------------------------------------- class floors


def floor_example() -> CandidateColumns:
    # per class (train, validation, test): a (100, 30, 30), b (40, 30, 30), c (60, 10, 25),
    # d (55, 25, 25)
    plan = {0: (100, 30, 30), 1: (40, 30, 30), 2: (60, 10, 25), 3: (55, 25, 25)}
    label, split = [], []
    for c, per_split in plan.items():
        for s, count in enumerate(per_split):
            label += [c] * count
            split += [s] * count
    return cols_of(label, np.arange(len(label)), split=split)


def test_floors_drop_and_report_classes() -> None:
    cols = floor_example()
    tv = run(cols, names=["a", "b", "c", "d"], floor=MinPerClass())
    assert tv.infeasible is None
    assert tv.label_names == ["a", "d"]
    assert tv.label_remap.tolist() == [0, -1, -1, 1]
    assert tv.dropped_classes == {"b": "40 in train < 50", "c": "10 in validation < 20"}
    assert tv.drops == Counter({DROP_CLASS_FLOOR: 100 + 95})
    assert tv.class_counts.tolist() == [[100, 55], [30, 25], [30, 25]]
    natural = tv.get("natural", "full")
    balanced = tv.get("balanced", "full")
    assert natural is not None and balanced is not None
    assert [len(natural.indices[s]) for s in SPLITS] == [155, 55, 55]
    assert [len(balanced.indices[s]) for s in SPLITS] == [110, 50, 50]


def test_several_failing_splits_in_one_reason() -> None:
    cols = floor_example()
    tv = run(cols, names=["a", "b", "c", "d"], floor=MinPerClass(50, 30, 30))
    assert tv.dropped_classes["c"] == "10 in validation < 30, 25 in test < 30"
    assert tv.dropped_classes["d"] == "25 in validation < 30, 25 in test < 30"


def test_infeasible_with_fewer_than_two_classes() -> None:
    cols = floor_example()
    tv = run(cols, names=["a", "b", "c", "d"], floor=MinPerClass(70, 20, 20))
    assert tv.variants == [] and tv.not_built == []
    assert tv.label_names == ["a"]
    assert tv.infeasible is not None
    assert "1 class(es) left" in tv.infeasible and "kept: a" in tv.infeasible
    assert "b: 40 in train < 70" in tv.infeasible
    empty = run(cols_of([], []), names=["a", "b"], floor=MinPerClass())
    assert empty.infeasible == "no candidates" and empty.variants == []


def test_zero_ratio_split_has_no_floor() -> None:
    n = 400
    cols = cols_of(label=np.arange(n) % 2, group=np.arange(n))
    tv = run(cols, split="ratio:80/0/20", floor=MinPerClass(50, 20, 20))
    assert tv.infeasible is None and tv.dropped_classes == {}


# ----------------------------------------------------------------------------- balance, sizes


def test_balanced_counts_and_lowest_order_kept() -> None:
    rng = np.random.default_rng(5)
    n = 5000
    label = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    cols = cols_of(label, np.arange(n), split=rng.choice(3, n, p=[0.8, 0.1, 0.1]))
    tv = run(cols, names=["x", "y", "z"])
    balanced = tv.get("balanced", "full")
    assert balanced is not None
    for s_i, s in enumerate(SPLITS):
        idx = balanced.indices[s]
        in_split = np.flatnonzero(cols.source_split == s_i)
        m = np.bincount(label[in_split], minlength=3).min()
        assert np.bincount(label[idx], minlength=3).tolist() == [m] * 3
        for c in range(3):
            pool = in_split[label[in_split] == c]
            lowest = pool[np.argsort(cols.order[pool], kind="stable")][:m]
            assert set(idx[label[idx] == c].tolist()) == set(lowest.tolist())


def test_sizes_nested_and_shared_eval_splits() -> None:
    cols = random_cols(20000, n_labels=4, seed=7)
    tv = run(cols, sizes="100,0.1,0.5,1003,1m")
    for balance in ("natural", "balanced"):
        variants = [v for v in tv.variants if v.balance == balance]
        assert [v.size for v in variants] == ["full", "100", "0.1", "0.5", "1003"]
        full = variants[0]
        for v in variants[1:]:
            assert v.indices["validation"] is full.indices["validation"]
            assert v.indices["test"] is full.indices["test"]
        n_full = len(full.indices["train"])
        assert [len(v.indices["train"]) for v in variants[1:]] == [
            100,
            n_full // 10,
            n_full // 2,
            1003,
        ]
    b1003 = tv.get("balanced", "1003")
    assert b1003 is not None
    counts = np.bincount(cols.label[b1003.indices["train"]], minlength=4)
    assert counts.tolist() == [251, 251, 251, 250]  # remainder to classes in declared order
    assert tv.not_built == [
        f"natural size 1m not built: {len(tv.variants[0].indices['train'])} available",
        f"balanced size 1m not built: {len(tv.get('balanced', 'full').indices['train'])} available",
    ]


def test_not_built_message_format() -> None:
    n = 300
    cols = cols_of(np.arange(n) % 3, np.arange(n), split=np.zeros(n))
    tv = run(cols, sizes="10k,0.001,200,300")
    assert tv.not_built == [
        "natural size 10k not built: 300 available",
        "natural size 0.001 not built: 300 available (0.001 of 300 is 0 rows)",
        "natural size 300 not built: 300 available (same as full)",
        "balanced size 10k not built: 300 available",
        "balanced size 0.001 not built: 300 available (0.001 of 300 is 0 rows)",
        "balanced size 300 not built: 300 available (same as full)",
    ]
    assert [v.name for v in tv.variants] == [
        "natural-full",
        "natural-200",
        "balanced-full",
        "balanced-200",
    ]


def test_balances_setting_respected() -> None:
    cols = random_cols(2000, seed=2)
    tv = run(cols, balances=("balanced",), sizes="0.5")
    assert [v.name for v in tv.variants] == ["balanced-full", "balanced-0.5"]


# ----------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("mode", ["ud", "ratio:80/10/10"])
def test_deterministic_and_free_of_numpy_rng(mode: str) -> None:
    cols = random_cols(5000, seed=11)
    np.random.seed(1)
    first = run(cols, split=mode, sizes="0.5,100")
    np.random.seed(2)
    np.random.default_rng(3).random(100)
    second = run(cols, split=mode, sizes="0.5,100")
    assert len(first.variants) == len(second.variants)
    for a, b in zip(first.variants, second.variants, strict=True):
        for s in SPLITS:
            assert np.array_equal(a.indices[s], b.indices[s])
    assert first.drops == second.drops and first.not_built == second.not_built


@pytest.mark.parametrize("mode", ["ud", "ratio:80/10/10"])
def test_independent_of_input_order(mode: str) -> None:
    """Shuffling the candidate rows (with their order hashes) selects the same candidates in
    the same output order: only the hashes decide."""
    cols = random_cols(4000, seed=13)
    perm = np.random.default_rng(0).permutation(len(cols))
    shuffled = CandidateColumns(
        cols.label[perm],
        cols.group[perm],
        cols.key[perm],
        cols.source_split[perm],
        cols.order[perm],
    )
    a = run(cols, split=mode, sizes="0.3")
    b = run(shuffled, split=mode, sizes="0.3")
    for va, vb in zip(a.variants, b.variants, strict=True):
        for s in SPLITS:
            assert np.array_equal(cols.order[va.indices[s]], shuffled.order[vb.indices[s]])


def test_seed_changes_output() -> None:
    a = run(random_cols(3000, seed=1), split="ratio:80/10/10")
    cols = random_cols(3000, seed=1)
    cols.order = mix64(np.arange(3000) + np.uint64(99 << 32))
    b = run(cols, split="ratio:80/10/10")
    assert not np.array_equal(a.variants[0].indices["train"], b.variants[0].indices["train"])


@given(st.lists(st.integers(0, 5), max_size=60))
def test_tie_breaking_is_by_index(values: list[int]) -> None:
    arr = np.asarray(values, dtype=np.uint64)
    assert np.array_equal(_argsort_by_index_ties(arr), np.argsort(arr, kind="stable"))


# ----------------------------------------------------------------------------- scale


def test_memory_per_candidate_is_small() -> None:
    n = 300_000
    cols = random_cols(n, seed=21)
    for mode in ("ud", "ratio:80/10/10"):
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        tv = make_variants(
            cols,
            ["a", "b", "c"],
            VariantSettings(parse_split(mode), parse_sizes("10k,0.5"), min_per_class=NO_FLOOR),
        )
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        assert tv.infeasible is None
        assert peak / n < 36, f"{mode}: {peak / n:.1f} bytes per candidate"


# ----------------------------------------------------------------------------- sizes mode
# Absolute split sizes (LINSPECTOR's --split-sizes 7000,2000,1000): components assigned as in
# ratio mode with targets proportional to the counts, then each split cut to its count.


def sizes_spec(counts: tuple[int, int, int]) -> SplitSpec:
    return SplitSpec("sizes", counts=counts, reason="test")


def test_sizes_exact_counts_and_label() -> None:
    n = 12000
    rng = np.random.default_rng(5)
    cols = cols_of(label=rng.integers(0, 3, n), group=np.arange(n))
    spec = sizes_spec((7000, 2000, 1000))
    assert spec.label == "sizes:7000/2000/1000"
    tv = run(cols, split=spec, balances=("natural",))
    full = tv.get("natural", "full")
    assert full is not None
    assert [len(full.indices[s]) for s in SPLITS] == [7000, 2000, 1000]
    # 12000 candidates aimed at 70/20/10 (8400/2400/1200), then cut to the counts
    from polyprobe.builders.variants import DROP_SIZE_CAP

    assert tv.drops[DROP_SIZE_CAP] == 2000
    assert any("split sizes 7000/2000/1000" in note for note in tv.notes)


def test_sizes_truncation_keeps_lowest_order() -> None:
    n = 3000
    order = mix64(np.arange(n))
    cols = cols_of(label=np.arange(n) % 2, group=np.arange(n), order=order)
    tv = run(cols, split=sizes_spec((700, 200, 100)), balances=("natural",))
    full = tv.get("natural", "full")
    assert full is not None
    ratio = run(cols, split=SplitSpec("ratio", (70, 20, 10)), balances=("natural",))
    before = ratio.get("natural", "full")
    assert before is not None
    for s, count in zip(SPLITS, (700, 200, 100), strict=True):
        # same component assignment as ratio 70/20/10, then the lowest-order rows of each split
        assert np.array_equal(full.indices[s], before.indices[s][:count])


def test_sizes_fewer_candidates_than_requested() -> None:
    n = 1000
    cols = cols_of(label=np.arange(n) % 2, group=np.arange(n))
    tv = run(cols, split=sizes_spec((7000, 2000, 1000)), balances=("natural",))
    full = tv.get("natural", "full")
    assert full is not None
    assert [len(full.indices[s]) for s in SPLITS] == [700, 200, 100]
    assert not tv.drops
    assert "fewer candidates than requested" in tv.notes[-1]


def test_sizes_keeps_components_whole_and_zero_split_unfloored() -> None:
    cols = random_cols(3000, seed=9)
    tv = run(cols, split=sizes_spec((1500, 0, 600)), floor=MinPerClass(5, 5, 5))
    full = tv.get("natural", "full")
    assert full is not None
    assert len(full.indices["validation"]) == 0
    assert len(full.indices["train"]) <= 1500 and len(full.indices["test"]) <= 600
    comp = np.asarray(components_py(cols))
    where = np.full(len(cols), -1)
    for s, name in enumerate(SPLITS):
        where[full.indices[name]] = s
    for c in np.unique(comp):
        placed = np.unique(where[(comp == c) & (where >= 0)])
        assert placed.size <= 1  # truncation removes rows, never moves a component


@pytest.mark.parametrize("counts", [None, (0, 10, 10), (10, -1, 5), (10, 5)])
def test_sizes_bad_counts(counts) -> None:
    cols = random_cols(50)
    with pytest.raises(ValueError, match="split"):
        make_variants(
            cols, ["a", "b", "c"], VariantSettings(split=SplitSpec("sizes", counts=counts))
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 12), st.integers(0, 8), st.integers(0, 40)),
        min_size=0,
        max_size=80,
    ),
    counts=st.sampled_from([(10, 3, 3), (40, 20, 20), (1, 0, 1), (100, 100, 100)]),
    sizes=st.sampled_from([None, "3,0.5"]),
)
def test_sizes_invariants_hypothesis(data, counts, sizes) -> None:
    columns = [list(c) for c in zip(*data, strict=True)] if data else [[] for _ in range(4)]
    label, group, key, order = columns
    cols = cols_of(label, group, key, None, order)
    tv = run(cols, names=["a", "b", "c"], split=sizes_spec(counts), sizes=sizes)
    for v in tv.variants:
        if v.size == "full":
            assert all(len(v.indices[s]) <= c for s, c in zip(SPLITS, counts, strict=True))


# ----------------------------------------------------------------------------- floors of 0


def _split_cols(per_split: list[list[int]]) -> CandidateColumns:
    """Candidates for ``ud`` mode (the split is each candidate's source split, so a test
    decides exactly which class lands where): ``per_split[s]`` = the labels of split s, one
    group per candidate."""
    label = [lab for labels in per_split for lab in labels]
    split = [s for s, labels in enumerate(per_split) for _ in labels]
    return cols_of(label, list(range(1, len(label) + 1)), split=split)


def test_floor_zero_drops_a_class_without_rows() -> None:
    # "b" (index 1) has no candidate at all: a floor of 0 keeps every class, but a class
    # with no row teaches nothing and is dropped with its reason, never published
    cols = _split_cols([[0, 0, 2, 2, 2], [0, 2], [0, 2, 2]])
    tv = run(cols, ["a", "b", "c"])
    assert tv.infeasible is None
    assert tv.label_names == ["a", "c"]
    assert tv.dropped_classes == {"b": NO_ROWS_REASON}
    assert tv.label_remap.tolist() == [0, -1, 1]
    assert tv.drops == Counter()  # no candidate was lost
    assert tv.class_counts.tolist() == [[2, 3], [1, 1], [1, 2]]
    bal = tv.get("balanced", "full")
    assert bal is not None
    assert {s: len(bal.indices[s]) for s in SPLITS} == {"train": 4, "validation": 2, "test": 2}
    assert tv.not_built == []


def test_floor_zero_class_missing_from_a_split_builds_no_balanced_variant() -> None:
    # German PUD tree_depth under --min-per-class 0,0,0 in miniature: "b" has train rows
    # but none in validation or test. Balanced splits hold k x the smallest class, so the
    # balanced validation and test would be empty (once they were all empty and the folder
    # writer failed the whole build): the balanced variant is reported, natural is built.
    cols = _split_cols([[0, 0, 1, 1, 2], [0, 2], [0, 2, 2]])
    tv = run(cols, ["a", "b", "c"], sizes="1")
    assert tv.label_names == ["a", "b", "c"] and tv.dropped_classes == {}
    assert [v.name for v in tv.variants] == ["natural-full", "natural-1"]
    assert tv.not_built == [
        "balanced not built: no validation row of b; no test row of b (a floor of 0 keeps "
        "such a class), so a balanced split would be empty"
    ]
    # with a floor of 1 the engine's usual rule applies: "b" is dropped, balanced is built
    floored = run(cols, ["a", "b", "c"], floor=MinPerClass(1, 1, 1))
    assert floored.dropped_classes == {"b": "0 in validation < 1, 0 in test < 1"}
    assert [v.name for v in floored.variants] == ["natural-full", "balanced-full"]


def test_floor_zero_balanced_ignores_a_split_the_source_lacks() -> None:
    # TREC has train and test only: validation holds no row of any class, so it does not
    # stop the balanced variant (it is empty in the natural variant too)
    cols = _split_cols([[0, 0, 0, 1, 1], [], [0, 1, 1]])
    tv = run(cols, ["a", "b"])
    assert tv.not_built == []
    bal = tv.get("balanced", "full")
    assert bal is not None
    assert {s: len(bal.indices[s]) for s in SPLITS} == {"train": 4, "validation": 0, "test": 2}


def test_floor_zero_class_with_rows_in_one_split_only() -> None:
    # every kept class has rows somewhere; a task whose classes all miss test still builds
    # its natural variant, and the balanced one names each missing class per split
    cols = _split_cols([[0, 1], [0], [1]])
    tv = run(cols, ["a", "b"])
    assert [v.name for v in tv.variants] == ["natural-full"]
    assert tv.not_built == [
        "balanced not built: no validation row of b; no test row of a (a floor of 0 keeps "
        "such a class), so a balanced split would be empty"
    ]


def test_floor_zero_keeps_a_lexical_sets_whole_label_list() -> None:
    # a lexical set's label describes its rows (min_classes 1): the per-category subsets of
    # COSTRA share the whole category list, so a category without rows is kept there
    cols = _split_cols([[], [], [2, 2, 2]])
    tv = make_variants(
        cols,
        ["ban", "future", "past"],
        VariantSettings(parse_split("ud"), balances=("natural",), min_per_class=NO_FLOOR),
        min_classes=1,
    )
    check_invariants(cols, tv, classifier=False)
    assert tv.label_names == ["ban", "future", "past"] and tv.dropped_classes == {}
    assert [v.name for v in tv.variants] == ["natural-full"]


def test_split_estimate_fails_a_class_without_items_under_floor_zero() -> None:
    # tasks that choose their classes ask the engine's estimate; it must agree with the
    # engine, which drops a class without rows even at floor 0
    estimate = SplitEstimate((0, 0, 0), "ratio:80/10/10")
    table = np.array([[0.0, 0.0, 0.0], [0.8, 0.1, 0.1], [5.0, 0.0, 0.0]])
    assert estimate.passing(table).tolist() == [False, True, True]
    floored = SplitEstimate((1, 1, 1), "ratio:80/10/10")
    assert floored.passing(table).tolist() == [False, False, False]
