"""Class floors of 0 (``--min-per-class 0,0,0``) on real data, in every build family.

A floor of 0 keeps classes that have no row in some split. Balancing such a task once gave a
config whose every split was empty, and the folder writer failed the whole build ("config
'tree_depth' has no rows in any split"). The engine now drops a class without any row and
reports a balance it cannot build; these tests build the real inputs of that bug, validate
the folders and load them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe.cards.info import read_card_yaml
from polyprobe.cards.validate import validate


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.getbasetemp() / "hf-cache"))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``polyprobe`` as a user runs it: the bug failed the command, not a function."""
    return subprocess.run(
        [sys.executable, "-m", "polyprobe", *args], capture_output=True, text=True, check=False
    )


def _build(family: str, *args: str) -> None:
    done = _cli("build", family, *args, "--jobs", "1", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "no rows in any split" not in done.stderr


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def _ids(folder: Path, config: str, split: str) -> set[str]:
    files = sorted((folder / "data" / config).glob(f"{split}-*.parquet"))
    return {i for f in files for i in pq.read_table(f, columns=["id"]).column("id").to_pylist()}


def _loads(folder: Path) -> dict[str, dict[str, int]]:
    """Every config through ``datasets``: rows per split, labels as the card declares."""
    import datasets

    card = read_card_yaml(folder)
    block = card["polyprobe"]["configs"]
    out: dict[str, dict[str, int]] = {}
    for cfg in card["configs"]:
        name = cfg["config_name"]
        ds = datasets.load_dataset(str(folder), name)
        out[name] = {split: len(d) for split, d in ds.items()}
        for d in ds.values():
            assert len(d) > 0
            if block[name]["labels"]:
                assert d.features["label"].names == block[name]["labels"]
    return out


@pytest.fixture(scope="module")
def german_pud(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("floor0") / "de"
    _build(
        "ud",
        str(ud_dir / "UD_German-PUD"),
        "--lang",
        "de",
        "--tasks",
        "tree_depth,sentence_length",
        "--min-per-class",
        "0,0,0",
        "--out",
        str(out),
    )
    return out


def test_german_pud_floor_zero_builds_validates_and_loads(german_pud: Path) -> None:
    assert validate(german_pud).ok
    done = _cli("validate", str(german_pud))
    assert done.returncode == 0, done.stdout + done.stderr
    # German PUD has a test file only: ratio 80/10/10; balanced not built → natural is the
    # recommended config (config <task>) and the only one
    assert _loads(german_pud) == {
        "sentence_length": {"train": 800, "validation": 100, "test": 100},
        "tree_depth": {"train": 126, "validation": 16, "test": 16},
    }
    block = read_card_yaml(german_pud)["polyprobe"]["configs"]
    assert block["tree_depth"]["variant"]["balance"] == "natural"
    assert block["tree_depth"]["labels"] == ["≤4", "5", "6", "7", "8", "9"]


def test_german_pud_tree_depth_report_says_why(german_pud: Path) -> None:
    entry = _report(german_pud)["tree_depth"]
    assert entry["infeasible"] is None and entry["built"] == ["tree_depth"]
    # The depth range is chosen with the engine's estimate, which counts a class without
    # items as failing (once the range was 3..9 with depths 3 and 9 empty: 21 candidates).
    # Depth 9 has one candidate, n01079069 (25 words, a 9-node root path), and it lands in
    # validation; depth 8 has none in test.
    assert entry["candidates"] == 158 and entry["dropped_classes"] == {}
    assert entry["class_counts"]["9"] == 1 and entry["class_counts"]["8"] == 10
    assert entry["not_built"] == [
        "balanced not built: no train row of 9; no test row of 8, 9 "
        "(a floor of 0 keeps such a class), so a balanced split would be empty"
    ]
    assert _ids(german_pud, "tree_depth", "validation") >= {"UD_German-PUD/n01079069/tree_depth/0"}
    card = (german_pud / "README.md").read_text(encoding="utf-8")
    assert "- `tree_depth`: balanced not built: no train row of 9; no test row of 8, 9" in card


def test_german_pud_sentence_length_keeps_its_rare_classes(german_pud: Path) -> None:
    # 1-4: n01027007 (4 words) is German PUD's only sentence under 5 words; 56+:
    # w01030096 and w01065018 (56 words each). All three land in train, so validation and
    # test hold neither class: natural keeps them (floor 0), balanced would empty both.
    entry = _report(german_pud)["sentence_length"]
    assert entry["class_counts"]["1-4"] == 1 and entry["class_counts"]["56+"] == 2
    assert entry["dropped_classes"] == {}
    assert entry["not_built"] == [
        "balanced not built: no validation row of 1-4, 56+; no test row of 1-4, 56+ "
        "(a floor of 0 keeps such a class), so a balanced split would be empty"
    ]
    train = _ids(german_pud, "sentence_length", "train")
    for sent_id in ("n01027007", "w01030096", "w01065018"):
        assert f"UD_German-PUD/{sent_id}/sentence_length/0" in train


def test_unimorph_floor_zero_builds(data_dir: Path, tmp_path: Path) -> None:
    # SIGMORPHON 2018 German dev (1,000 entries): same_feature's Finiteness pairs all fall
    # in train, so balancing would empty validation and test; the build once failed on it
    out = tmp_path / "um"
    lexicon = data_dir / "unimorph" / "sigmorphon2018" / "german-dev"
    _build("unimorph", str(lexicon), "--lang", "de", "--min-per-class", "0,0,0", "--out", str(out))
    assert validate(out).ok
    entry = _report(out)["same_feature"]
    assert entry["built"] == ["same_feature", "same_feature.natural-full-lemma-disjoint"]
    # the pair label "lemma" (same lemma, no feature differs) has no candidate here
    assert entry["dropped_classes"] == {"lemma": "no rows in any split"}
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| lemma | no rows in any split |" in card
    assert entry["not_built"][0] == (
        "balanced not built: no validation row of Finiteness; no test row of Finiteness, "
        "VerbForm (a floor of 0 keeps such a class), so a balanced split would be empty"
    )
    assert _loads(out)["same_feature"] == {"train": 1075, "validation": 279, "test": 123}


def test_trec_balanced_fine_not_built_coarse_built(data_dir: Path, tmp_path: Path) -> None:
    # TREC's default floor is 0. TREC_10 (500 test questions) has no ENTY:cremat, NUM:code,
    # ...: a balanced fine test split would be empty, so only natural fine is built. Coarse
    # has every class in test (validation is empty in every variant: TREC has none). A
    # downstream task recommends its natural config (`coarse`).
    out = tmp_path / "trec"
    _build("trec", str(data_dir / "trec"), "--balances", "natural,balanced", "--out", str(out))
    assert validate(out).ok
    report = _report(out)
    assert report["trec-coarse"]["built"] == ["coarse", "coarse.balanced-full"]
    assert report["trec-fine"]["built"] == ["fine"]
    (why,) = report["trec-fine"]["not_built"]
    assert why.startswith("balanced not built: no test row of ENTY:cremat, ENTY:letter, ")
    assert "NUM:volsize (a floor of 0 keeps such a class)" in why
    assert "validation" not in why
    assert _ids(out, "coarse", "validation") == set()
    assert len(_ids(out, "coarse", "test")) > 0
