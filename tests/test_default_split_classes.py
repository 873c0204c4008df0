"""The engine's split choice keeps every class the pool supports (assemble's ``_resplit``):
a family's default ratio split that loses a class to the chance of which groups land in a
10 % split is chosen again among the re-split ratios — most classes kept, then test power —
while a requested split, a split that loses nothing and a class no ratio can keep are left
alone. (The real case: the English excerpt's ``sentence_position``, tests/test_discourse_wiki.py.)"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from polyprobe.builders.assemble import RESPLIT_RATIOS, CandidateSet, _variants
from polyprobe.builders.variants import (
    CandidateColumns,
    SplitSpec,
    VariantSettings,
    make_variants,
)
from polyprobe.metadata import Level, TaskMetadata

LABELS = ("a", "b", "c", "d", "e")
DEFAULT = SplitSpec("ratio", (80, 10, 10), reason="raw text has no splits of its own")
REQUESTED = SplitSpec("ratio", (80, 10, 10), reason="requested with --split ratio:80/10/10")


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def _columns(counts: tuple[int, ...], seed: int = 2) -> CandidateColumns:
    """One row per group; class c has ``counts[c]`` rows. Seed 2 is a seed under which 80/10/10
    leaves class ``c`` 18 test rows (checked by the tests, not assumed)."""
    labels = np.repeat(np.arange(len(counts), dtype=np.int16), counts)
    n = labels.size
    return CandidateColumns(
        label=labels,
        group=np.array([_hash(f"doc{i}") for i in range(n)], dtype=np.uint64),
        key=np.zeros(n, dtype=np.uint64),
        source_split=np.full(n, -1, dtype=np.int8),
        order=np.array([_hash(f"{seed}/{i}") for i in range(n)], dtype=np.uint64),
    )


def _set(columns: CandidateColumns, split: SplitSpec) -> CandidateSet:
    return CandidateSet(
        metadata=TaskMetadata("toy", Level.SENTENCE, "a toy task", labels=LABELS),
        label_names=LABELS,
        columns=columns,
        rows=lambda idx, tv: None,  # type: ignore[arg-type,return-value]
        split=split,
        recipe={},
    )


POOL = (230, 230, 230, 230, 210)


def test_the_default_split_loses_a_class_by_chance() -> None:
    tv = make_variants(_columns(POOL), list(LABELS), VariantSettings(DEFAULT))
    assert tv.dropped_classes == {"c": "18 in test < 20"}


def test_a_default_ratio_split_is_chosen_again_to_keep_every_class() -> None:
    cset, tv, entries = _variants(_set(_columns(POOL), DEFAULT), VariantSettings(DEFAULT))
    assert tv is not None and tv.label_names == list(LABELS) and not tv.dropped_classes
    assert cset.split.mode == "ratio" and cset.split.ratios in RESPLIT_RATIOS
    # most classes first, then test power: among the ratios that keep all five, none gives
    # 500 test rows, so the one with the most test rows
    keeping = {}
    for ratios in RESPLIT_RATIOS:
        other = make_variants(
            _columns(POOL), list(LABELS), VariantSettings(SplitSpec("ratio", ratios))
        )
        if len(other.label_names) == 5:
            keeping[ratios] = len(other.get("balanced", "full").indices["test"])
    assert cset.split.ratios == max(keeping, key=keeping.get)
    assert (80, 10, 10) not in keeping
    assert entries[0][0] == "toy"  # the recommended config is built
    reason = cset.split.reason
    assert reason.startswith("raw text has no splits of its own; re-split ratio:")
    assert (
        "ratio 80/10/10 kept 4 class(es) (dropped c: 18 in test < 20), "
        f"{cset.split.label} keeps 5" in reason
    )
    assert f"({keeping[cset.split.ratios]} test rows in the recommended config)" in reason


def test_a_requested_split_is_kept_and_loses_the_class() -> None:
    cset, tv, _ = _variants(_set(_columns(POOL), REQUESTED), VariantSettings(REQUESTED))
    assert cset.split == REQUESTED
    assert tv is not None and "c" in tv.dropped_classes


@pytest.mark.parametrize("pool", [(400, 400, 400, 400, 400), (400, 400, 400, 400, 40)])
def test_nothing_to_win_back_leaves_the_default(pool: tuple[int, ...]) -> None:
    """A pool whose classes all meet their floors, and one whose fifth class (40 rows) no
    ratio split can keep (50 + 20 + 20 needed): the default split stays, byte for byte."""
    columns = _columns(pool)
    cset, tv, _ = _variants(_set(columns, DEFAULT), VariantSettings(DEFAULT))
    assert cset.split == DEFAULT
    plain = make_variants(columns, list(LABELS), VariantSettings(DEFAULT))
    assert tv is not None and tv.dropped_classes == plain.dropped_classes
    for split in ("train", "validation", "test"):
        assert np.array_equal(
            tv.get("natural", "full").indices[split], plain.get("natural", "full").indices[split]
        )


def test_a_small_treebank_test_split_is_re_split_for_test_power() -> None:
    """The test-power re-split of a treebank's own splits keeps its own ranking: the most
    test rows without keeping fewer classes than the treebank's split (3 here). 50/10/40 gives
    the most test rows and keeps 4, so it is chosen although another ratio keeps all 5: this
    re-split is for test power, not for classes (see _most_test_rows)."""
    columns = _columns(POOL, seed=0)
    # the treebank's own splits: 75 % train, 10 % dev, 15 % test by the row's hash
    bucket = columns.order % 100
    columns.source_split = np.where(bucket < 75, 0, np.where(bucket < 85, 1, 2)).astype(np.int8)
    own = SplitSpec("ud", reason="every input treebank has train, dev and test files")
    assert len(make_variants(columns, list(LABELS), VariantSettings(own)).label_names) == 3
    cset, tv, _ = _variants(_set(columns, own), VariantSettings(own))
    tried = {}
    for ratios in RESPLIT_RATIOS:
        other = make_variants(columns, list(LABELS), VariantSettings(SplitSpec("ratio", ratios)))
        tried[ratios] = (len(other.label_names), len(other.get("balanced", "full").indices["test"]))
    assert max(k for k, _ in tried.values()) == 5
    assert max(tried, key=lambda r: tried[r][1]) == (50, 10, 40) and tried[(50, 10, 40)][0] == 4
    assert cset.split.ratios == (50, 10, 40) and tv is not None and len(tv.label_names) == 4
    ladder = ", ".join("/".join(map(str, r)) for r in RESPLIT_RATIOS)
    assert f"this split gives {tried[(50, 10, 40)][1]}, the most any of {ladder} gives" in (
        cset.split.reason
    )
