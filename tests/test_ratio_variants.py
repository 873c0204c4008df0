"""Class-ratio balances (``--balances natural,balanced,1:5,1:10``) on a real treebank: the
class counts follow ``polyprobe.builders.ratios``' rule (recomputed here from the natural
counts, by a loop of its own), the variants nest by row id, the seed decides the rows, bad
ratios are refused with one message, and the card lists the variants."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import config_rows

from polyprobe import build_ud
from polyprobe.builders.ratios import display, parse_balance
from polyprobe.cards.info import read_card_yaml
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError

BALANCES = "natural,balanced,1:5,1:10"
TASKS = "subject_number,subject_verb_distance"
SPLITS = ("train", "validation", "test")


def _build(out: Path, ud: Path, seed: int, tasks: str = TASKS) -> Path:
    build_ud(
        [ud / "UD_English-PUD"],
        lang="en",
        tasks=tasks,
        balances=BALANCES,
        sizes="100",
        min_per_class=5,
        seed=seed,
        out=out,
    )
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    return _build(tmp_path_factory.mktemp("ratio") / "pud", data_dir / "ud", seed=0)


def _ids(folder: Path, config: str) -> dict[str, dict[int, set[str]]]:
    """split -> label id -> row ids."""
    out: dict[str, dict[int, set[str]]] = {}
    for split, rows in config_rows(folder, config).items():
        for row in rows:
            out.setdefault(split, {}).setdefault(row["label"], set()).add(row["id"])
    return out


def _counts(ids: dict[str, dict[int, set[str]]]) -> dict[str, dict[int, int]]:
    return {s: {c: len(v) for c, v in by.items()} for s, by in ids.items()}


def _expected(natural: dict[str, dict[int, int]], ratio: int) -> dict[str, dict[int, int]]:
    """The rule, written out again: rank by total natural count (ties: label id), quota
    floor(m * R**(rank/(K-1)) + 1/2), m the largest every class of the split can fill."""
    total: Counter[int] = Counter()
    for by in natural.values():
        total.update(by)
    classes = sorted(total)
    ranked = sorted(classes, key=lambda c: (total[c], c))
    k = len(classes)

    def quota(m: int, c: int) -> int:
        return math.floor(m * ratio ** (ranked.index(c) / (k - 1)) + 0.5)

    out = {}
    for split, by in natural.items():
        m = 0
        while all(quota(m + 1, c) <= by.get(c, 0) for c in classes):
            m += 1
        out[split] = {c: quota(m, c) for c in classes}
    return out


def test_ratio_class_counts_follow_the_rule(built: Path) -> None:
    for task, ratios in (("subject_number", (5,)), ("subject_verb_distance", (5, 10))):
        natural = _counts(_ids(built, f"{task}.natural-full"))
        for ratio in ratios:
            got = _counts(_ids(built, f"{task}.ratio1to{ratio}-full"))
            assert got == _expected(natural, ratio), (task, ratio)
    # By hand. subject_number train: natural 252 Sing (id 0) / 121 Plur (id 1); 1:5 takes the
    # largest m with 5m <= 252: m = 50, so 50 Plur and 250 Sing (binary: exactly 1:5).
    sn = _counts(_ids(built, "subject_number.ratio1to5-full"))
    assert _counts(_ids(built, "subject_number.natural-full"))["train"] == {0: 252, 1: 121}
    assert sn["train"] == {0: 250, 1: 50}
    for split in SPLITS:
        assert sn[split][0] == 5 * sn[split][1]  # Sing = 5 × Plur in every split
    # subject_verb_distance train: natural 1 / 2-4 / 5-7 / 8-12 = 156 / 119 / 26 / 25, over
    # the task 308 / 240 / 51 / 50, so 8-12 is the rarest (rank 0), 5-7 rank 1 of 3. At 1:10,
    # m = 12: 5-7 gets floor(12 * 10**(1/3) + .5) = 26 (m = 13 would need 28 > 26), 2-4
    # floor(12 * 10**(2/3) + .5) = 56, 1 gets 120.
    svd = read_card_yaml(built)["polyprobe"]["configs"]["subject_verb_distance.ratio1to10-full"]
    assert svd["statistics"]["splits"]["train"]["labels"] == {
        "1": 120,
        "2-4": 56,
        "5-7": 26,
        "8-12": 12,
    }


def test_ratio_not_built_is_a_note(built: Path) -> None:
    text = (built / "README.md").read_text(encoding="utf-8")
    assert (
        "- `subject_number`: 1:10 not built: in validation class Sing has 32 rows, so the "
        "rarest class Plur would keep 3 (\\< --min-per-class 5)"
    ) in text
    assert not (built / "data" / "subject_number.ratio1to10-full").exists()


def test_variants_nest_by_row_id(built: Path) -> None:
    task = "subject_verb_distance"
    natural = _ids(built, f"{task}.natural-full")
    chain = [_ids(built, f"{task}.{b}-full") for b in ("ratio1to5", "ratio1to10")]
    chain.insert(0, _ids(built, task))  # the recommended config is balanced-full
    for split in SPLITS:
        for c, rows in natural[split].items():
            sets = [v[split].get(c, set()) for v in chain] + [rows]
            # every variant takes one class's lowest-order rows: of two, the smaller is a
            # subset of the larger, whatever the quotas
            for a in sets:
                for b in sets:
                    small, large = (a, b) if len(a) <= len(b) else (b, a)
                    assert small <= large, (split, c)
    # the sizes of one ratio nest, validation and test are shared
    for b in ("ratio1to5", "ratio1to10"):
        full, small = _ids(built, f"{task}.{b}-full"), _ids(built, f"{task}.{b}-100")
        rows_small = set().union(*small["train"].values())
        assert rows_small <= set().union(*full["train"].values())
        assert 0 < len(rows_small) <= 100
        assert small["test"] == full["test"]


def test_seed_decides_the_rows(built: Path, tmp_path: Path, data_dir: Path) -> None:
    ud = data_dir / "ud"
    again = _build(tmp_path / "same", ud, seed=0, tasks="subject_number")
    other = _build(tmp_path / "other", ud, seed=1, tasks="subject_number")
    config = "subject_number.ratio1to5-full"
    assert _ids(again, config) == _ids(built, config)
    assert _ids(other, config)["train"] != _ids(built, config)["train"]
    assert _counts(_ids(other, config))["train"][0] == 5 * _counts(_ids(other, config))["train"][1]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("1:0", "balance '1:0': R in 1:R must be a whole number >= 2 (1:1 is balanced)"),
        ("1:1", "balance '1:1': R in 1:R must be a whole number >= 2 (1:1 is balanced)"),
        ("1:x", "balance '1:x': R in 1:R must be a whole number >= 2 (1:1 is balanced)"),
        ("2:1", "balance '2:1': a class ratio is written 1:R, rarest class first (e.g. 1:5)"),
        ("skewed", "unknown balance 'skewed': use natural, balanced and/or 1:R (e.g. 1:5)"),
    ],
)
def test_bad_ratios_refused(given: str, message: str, tmp_path: Path, data_dir: Path) -> None:
    with pytest.raises(UsageError) as err:
        build_ud(
            [data_dir / "ud" / "UD_English-PUD"],
            lang="en",
            balances=f"natural,{given}",
            out=tmp_path / "x",
        )
    assert str(err.value) == message
    assert not (tmp_path / "x").exists()


def test_names() -> None:
    assert parse_balance("1:5") == parse_balance("ratio1to5") == "ratio1to5"
    assert parse_balance(" 1 : 10 ") == "ratio1to10"
    assert display("ratio1to10") == "1:10" and display("balanced") == "balanced"


def test_card_lists_the_variants(built: Path) -> None:
    card: dict[str, Any] = read_card_yaml(built)
    names = {c["config_name"] for c in card["configs"]}
    assert {
        "subject_number.ratio1to5-full",
        "subject_number.ratio1to5-100",
        "subject_verb_distance.ratio1to10-full",
        "subject_verb_distance.ratio1to10-100",
    } <= names
    blocks = card["polyprobe"]["configs"]
    assert blocks["subject_verb_distance.ratio1to10-full"]["variant"]["balance"] == "ratio1to10"
    assert card["polyprobe"]["parameters"]["balances"] == [
        "natural",
        "balanced",
        "ratio1to5",
        "ratio1to10",
    ]
    stats = blocks["subject_number.ratio1to5-full"]["statistics"]["splits"]["train"]["labels"]
    assert stats["Sing"] == 5 * stats["Plur"]
    assert validate(built).problems == []


def test_profile_sets_balances(tmp_path: Path, data_dir: Path) -> None:
    profile = tmp_path / "study.toml"
    profile.write_text('[family]\nbalances = ["natural", "1:5"]\n', encoding="utf-8")
    out = tmp_path / "p"
    build_ud(
        [data_dir / "ud" / "UD_English-PUD"],
        lang="en",
        tasks="subject_number",
        min_per_class=5,
        profile=profile,
        out=out,
    )
    names = {c["config_name"] for c in read_card_yaml(out)["configs"]}
    assert names == {"subject_number", "subject_number.ratio1to5-full"}
    profile.write_text('[family]\nbalances = ["natural", "2:1"]\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_ud([data_dir / "ud" / "UD_English-PUD"], lang="en", profile=profile, out=out)
    assert str(err.value) == (
        f"{profile}: [family] balances: balance '2:1': a class ratio is written 1:R, rarest "
        "class first (e.g. 1:5)"
    )
