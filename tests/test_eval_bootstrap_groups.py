"""The bootstrap resamples groups, not rows (``stats.Resampler``): the two orders of a BSO
pair, or a DC window and its broken copy, are one observation. On a paired fixture whose pairs
are right or wrong together the grouped interval is wider than the row one; a fixed tag (the
seed of the resampling RNG) gives a fixed interval; with one row a group it is the row
bootstrap draw for draw; and ``evaluate`` hands the scored rows' ``group`` column down."""

from __future__ import annotations

import numpy as np
import pytest

from polyprobe.evaluation import stats
from polyprobe.evaluation.stats import Resampler, accuracy_summary, bootstrap_ci, summarise


def paired(n_pairs: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_pairs`` pairs (in_order, swapped) of one group each; a probe right on both rows of
    the first 60 % of the pairs and wrong on both of the rest: accuracy 0.6."""
    y = np.tile([0, 1], n_pairs)
    right = np.repeat(np.arange(n_pairs) < int(0.6 * n_pairs), 2)
    pred = np.where(right, y, 1 - y)
    groups = np.repeat([f"doc{i}" for i in range(n_pairs)], 2)
    order = np.argsort([hash_free_shuffle(i) for i in range(2 * n_pairs)])  # rows interleaved
    return y[order], pred[order], groups[order]


def hash_free_shuffle(i: int) -> int:
    return (i * 7919) % 401


def width(ci: tuple[float, float]) -> float:
    return ci[1] - ci[0]


def test_grouped_interval_is_wider_than_the_row_interval() -> None:
    y, pred, groups = paired()
    rows = bootstrap_ci(y, [pred], 2, "t", 1000)
    grouped = bootstrap_ci(y, [pred], 2, "t", 1000, groups)
    assert (pred == y).mean() == pytest.approx(0.6)
    # 400 rows vs 200 independent pairs: the interval is about sqrt(2) wider
    assert width(grouped["accuracy"]) > 1.25 * width(rows["accuracy"])
    assert grouped["accuracy"][0] < 0.6 < grouped["accuracy"][1]
    ctrl_rows = accuracy_summary([(y, pred)], "c", 1000)["ci95"]
    ctrl_grouped = accuracy_summary([(y, pred)], "c", 1000, groups)["ci95"]
    assert width(ctrl_grouped) > 1.25 * width(ctrl_rows)


def test_a_fixed_tag_gives_a_fixed_interval() -> None:
    y, pred, groups = paired()
    first = summarise(y, [pred], ["in_order", "swapped"], "cfg|enc|3|lr", 500, groups)
    again = summarise(y, [pred], ["in_order", "swapped"], "cfg|enc|3|lr", 500, groups)
    other = summarise(y, [pred], ["in_order", "swapped"], "cfg|enc|4|lr", 500, groups)
    assert first == again
    assert first["accuracy"]["ci95"] != other["accuracy"]["ci95"]


def test_one_row_a_group_is_the_row_bootstrap() -> None:
    y, pred, _ = paired(50)
    singletons = [f"row{i}" for i in range(len(y))]
    assert bootstrap_ci(y, [pred], 2, "t", 200, singletons) == bootstrap_ci(y, [pred], 2, "t", 200)


def test_a_draw_takes_whole_groups() -> None:
    groups = np.array(["b", "a", "b", "c", "a", "a"])
    resampler = Resampler(len(groups), groups)
    rng = np.random.default_rng(0)
    for _ in range(20):
        drawn = resampler.draw(rng)
        picked = groups[drawn]
        # as many draws as groups; each drawn group brings all its rows
        counts = {g: int((picked == g).sum()) for g in "abc"}
        assert counts["a"] % 3 == 0 and counts["b"] % 2 == 0
        assert counts["a"] // 3 + counts["b"] // 2 + counts["c"] == 3
    with pytest.raises(ValueError, match="2 groups for 3 rows"):
        Resampler(3, ["a", "b"])


def test_evaluate_hands_the_group_column_to_the_bootstrap(
    ssj_bso, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Binary sentence ordering from SSJ documents: every test group (a document) holds both
    orders of each of its pairs, and the CI is computed over those groups (task and majority baseline alike)."""
    from polyprobe.evaluation import api, evaluate

    seen: list[np.ndarray | None] = []

    def spy(y_true, preds, label_names, tag, n_boot=1000, groups=None):  # type: ignore[no-untyped-def]
        seen.append(groups)
        return stats.summarise(y_true, preds, label_names, tag, n_boot, groups)

    monkeypatch.setattr(api, "summarise", spy)
    evaluate(
        str(ssj_bso),
        config=["binary_sentence_ordering"],
        encoders=["random", "majority"],
        probe="discoeval",
        seeds=1,
        n_boot=20,
        cache=tmp_path / "cache",
        out=tmp_path / "results",
    )
    assert len(seen) == 2
    for groups in seen:
        assert groups is not None and len(groups) > 0
        _, counts = np.unique(groups, return_counts=True)
        # group = the document: both orders of each of its pairs, so even sizes from 2 up
        assert all(c % 2 == 0 for c in counts.tolist()) and counts.min() == 2


@pytest.fixture(scope="module")
def ssj_bso(ud_dir, tmp_path_factory):  # type: ignore[no-untyped-def]
    from polyprobe import build_ud

    out = tmp_path_factory.mktemp("eval-groups") / "ssj"
    build_ud(
        [ud_dir / "UD_Slovenian-SSJ"],
        lang="sl",
        out=out,
        tasks=["binary_sentence_ordering"],
        min_per_class=(5, 2, 2),
        jobs=1,
    )
    return out
