"""``--min-per-class 0`` never publishes a config with an empty split (issue 36): a split
that should hold rows but holds none is reported infeasible with the reason and a remedy
computed on the input; splits meant to be empty (ratio 0 %, a source without that split)
stay allowed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import config_rows

from polyprobe import build_ud
from polyprobe.builders.variants import (
    CandidateColumns,
    MinPerClass,
    SplitSpec,
    VariantSettings,
    make_variants,
)
from polyprobe.errors import InfeasibleError


def _treebank(path: Path, n: int) -> Path:
    """``n`` two-word sentences, each with its own noun and verb (no two share a lexical key),
    tenses alternating Pres/Past."""
    blocks = []
    for i in range(n):
        tense = "Past" if i % 2 else "Pres"
        blocks.append(
            f"# sent_id = s{i}\n# text = n{i} v{i}\n"
            f"1\tn{i}\tn{i}\tNOUN\t_\tNumber=Sing\t2\tnsubj\t_\t_\n"
            f"2\tv{i}\tv{i}\tVERB\t_\tTense={tense}\t0\troot\t_\t_\n"
        )
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return path


def test_empty_splits_are_infeasible_with_a_remedy_that_builds(tmp_path: Path) -> None:
    small = _treebank(tmp_path / "en_small-ud-train.conllu", 6)
    with pytest.raises(InfeasibleError) as caught:
        build_ud([small], lang="en", tasks=["tense"], min_per_class=0, out=tmp_path / "a")
    message = str(caught.value)
    assert "tense: the test split would be empty (6 candidates in 6 components" in message
    assert "remedy: more input - at least 10 components (4 more" in message, message
    assert not (tmp_path / "a").exists()
    bigger = _treebank(tmp_path / "en_bigger-ud-train.conllu", 10)
    out = build_ud([bigger], lang="en", tasks=["tense"], min_per_class=0, out=tmp_path / "b").out
    rows = config_rows(out, "tense")
    assert {s: len(r) for s, r in rows.items()} == {"train": 8, "validation": 1, "test": 1}


def _cols(n: int, split: list[int]) -> CandidateColumns:
    return CandidateColumns(
        label=np.asarray([i % 2 for i in range(n)], dtype=np.int16),
        group=np.arange(1, n + 1, dtype=np.uint64),
        key=np.zeros(n, dtype=np.uint64),
        source_split=np.asarray(split, dtype=np.int8),
        order=np.arange(n, dtype=np.uint64) * 7919 % 1000003,
    )


def test_a_split_the_source_lacks_is_not_reported() -> None:
    """TREC-style: the source has train and test only; its empty validation is meant."""
    cols = _cols(8, [0, 0, 0, 0, 0, 0, 2, 2])
    tv = make_variants(cols, ["a", "b"], VariantSettings(split=SplitSpec("ud"),
                       min_per_class=MinPerClass(0, 0, 0)))
    assert tv.infeasible is None and tv.variants


def test_a_source_split_emptied_is_reported() -> None:
    """The source has a test split but its rows are all of a class dropped elsewhere: the
    published test split would be empty."""
    cols = CandidateColumns(
        label=np.asarray([0, 1, 0, 1, 2, 2], dtype=np.int16),
        group=np.arange(1, 7, dtype=np.uint64),
        key=np.zeros(6, dtype=np.uint64),
        source_split=np.asarray([0, 0, 1, 1, 2, 2], dtype=np.int8),
        order=np.arange(6, dtype=np.uint64),
    )
    tv = make_variants(cols, ["a", "b", "c"], VariantSettings(split=SplitSpec("ud"),
                       min_per_class=MinPerClass(1, 0, 0)))
    assert tv.infeasible is not None
    assert tv.infeasible.startswith("the test split would be empty (6 candidates"), tv.infeasible
    assert "sentences in the source's split that came out empty" in tv.infeasible


def test_zero_share_split_stays_allowed() -> None:
    cols = _cols(6, [-1] * 6)
    tv = make_variants(cols, ["a", "b"], VariantSettings(split=SplitSpec("ratio", (100, 0, 0)),
                       min_per_class=MinPerClass(0, 0, 0)))
    assert tv.infeasible is None and tv.variants
