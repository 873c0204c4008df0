"""``build srl`` on a hand-made CoNLL-2009 fixture (tests/fixtures/srl): train 3 sentences,
8 annotated arguments (cat A0 and mouse A1 of chased; John A0 and to A2 of promised, early
AM-TMP of leave; Mary A0, house A1, yesterday AM-TMP of sold); development 1 sentence (A1,
AM-MNR of rose); test 1 sentence (A0, A1 of opened)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import config_rows

import polyprobe
from polyprobe.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "srl"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return polyprobe.build_srl([FIXTURES], lang="en", out=tmp_path_factory.mktemp("srl") / "d").out


def test_rows_are_predicate_argument_pairs(built: Path) -> None:
    names = json.loads((built / "report.json").read_text())["srl"]["derived"]["labels"]
    assert names == ["A0", "A1", "AM-TMP", "A2", "AM-MNR"]  # most frequent first, ties by name
    rows = config_rows(built, "srl")
    assert {s: len(r) for s, r in rows.items()} == {"train": 8, "validation": 2, "test": 2}
    promised = {
        (r["tokens"][r["target_index"]], r["tokens"][r["head_index"]]): names[r["label"]]
        for r in rows["train"]
        if r["sentence"].startswith("John promised")
    }
    assert promised == {
        ("John", "promised"): "A0",
        ("to", "promised"): "A2",
        ("early", "leave"): "AM-TMP",
    }
    groups = {s: {r["group"] for r in rs} for s, rs in rows.items()}
    assert len(groups["train"]) == 3 and not groups["train"] & groups["test"]


def test_argument_columns_must_match_predicates(tmp_path: Path) -> None:
    line = "\t".join(
        [
            "1",
            "Rain",
            "rain",
            "rain",
            "NN",
            "NN",
            "_",
            "_",
            "0",
            "0",
            "ROOT",
            "ROOT",
            "Y",
            "rain.01",
        ]
    )
    path = tmp_path / "x-train.txt"
    path.write_text(line + "\n\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        polyprobe.build_srl([path], lang="en", out=tmp_path / "o")
    assert (
        str(err.value)
        == f"{path}:1: 0 argument columns for the sentence's 1 predicates (FILLPRED = Y)"
    )


def test_conllu_refused(data_dir: Path, tmp_path: Path) -> None:
    path = data_dir / "ud" / "UD_German-GSD" / "de_gsd-ud-dev.conllu"
    with pytest.raises(InputError) as err:
        polyprobe.build_srl([path], lang="de", out=tmp_path / "o")
    assert str(err.value) == f"{path}: this looks like CoNLL-U (use `build ud`)"
