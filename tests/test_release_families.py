"""Issue 13's acceptance for every build family, not only UD: a TREC build is released,
checked against its previous release and diffed the way UD builds are (``test_release.py``),
and the ``report.json`` of the three families (UD, UniMorph, TREC) share one schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polyprobe import build_trec, build_ud, build_unimorph
from polyprobe.builders.assemble import REPORT_KEYS, SET_KEYS
from polyprobe.cards.card import read_readme
from polyprobe.cards.diff import diff_folders
from polyprobe.cards.release import ReleaseError
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.demo import DEMO_TREEBANK


def card(folder: Path) -> dict[str, Any]:
    return read_readme(folder / "README.md")[0]


def data_files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted((folder / "data").rglob("*.parquet"))
    }


@pytest.fixture(scope="module")
def trec_dir(data_dir: Path) -> Path:
    return data_dir / "trec"


@pytest.fixture(scope="module")
def trec_v1(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_trec(trec_dir, out=tmp_path_factory.mktemp("trec") / "v1", release="1.0.0").out


# ---------------------------------------------------------------------------------------------
# TREC releases: the same bump check, changelog and diff as UD builds


def test_trec_release_patch_and_wrong_bump(trec_dir: Path, trec_v1: Path, tmp_path: Path) -> None:
    block = card(trec_v1)["polyprobe"]
    assert block["release"] == "1.0.0"
    assert [(e["version"], e["bump"]) for e in block["changelog"]] == [("1.0.0", "initial")]
    assert "bump_check" not in block

    # A wrong bump is refused as UD builds refuse it: ReleaseError naming the required bump,
    # and nothing written.
    v2 = tmp_path / "v2"
    with pytest.raises(
        ReleaseError,
        match=r"--release 2\.0\.0 does not fit .*require a patch bump, i\.e\. --release 1\.0\.1",
    ):
        build_trec(trec_dir, out=v2, release="2.0.0", previous=trec_v1)
    assert not v2.exists()

    # Same rows: a patch.
    result = build_trec(trec_dir, out=v2, release="1.0.1", previous=trec_v1)
    assert result.out == v2
    assert result.release == "1.0.1" and result.bump_check["required"] == "patch"
    block = card(v2)["polyprobe"]
    assert block["release"] == "1.0.1"
    assert [(e["version"], e["bump"]) for e in block["changelog"]] == [
        ("1.0.0", "initial"),
        ("1.0.1", "patch"),
    ]
    assert block["bump_check"]["required"] == "patch"
    assert block["bump_check"]["mismatch_allowed"] is False
    assert data_files(v2) == data_files(trec_v1)  # the same rows, byte for byte
    assert validate(v2).ok, validate(v2).problems

    # Without --release the required version is taken; versions only go up.
    auto = build_trec(trec_dir, out=tmp_path / "auto", previous=v2).out
    assert card(auto)["polyprobe"]["release"] == "1.0.2"
    with pytest.raises(ReleaseError, match="not greater"):
        build_trec(trec_dir, out=tmp_path / "down", release="1.0.0", previous=trec_v1)


def test_trec_wrong_bump_on_the_command_line(
    trec_dir: Path, trec_v1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``polyprobe build trec --previous`` answers a wrong bump as ``build ud`` does."""
    v2 = tmp_path / "v2"
    common = ["build", "trec", str(trec_dir), "--out", str(v2), "--previous", str(trec_v1)]
    capsys.readouterr()
    assert main([*common, "--release", "2.0.0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--release 2.0.0 does not fit" in err
    assert "require a patch bump, i.e. --release 1.0.1" in err
    assert not v2.exists()
    assert main([*common, "--release", "1.0.1", "--quiet"]) == 0
    assert "release 1.0.1 (patch bump from 1.0.0)" in capsys.readouterr().out


def test_diff_on_trec_folders(
    trec_dir: Path, trec_v1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = build_trec(trec_dir, out=tmp_path / "again", release="1.0.0").out
    report = diff_folders(trec_v1, again)
    assert report["identical"] and report["bump"]["bump"] == "patch"
    assert main(["diff", str(trec_v1), str(again)]) == 0
    assert "same configs, rows and card fields" in capsys.readouterr().out

    # The next release: the card differs (release, changelog), the rows do not.
    patch = build_trec(trec_dir, out=tmp_path / "patch", previous=trec_v1).out
    report = diff_folders(trec_v1, patch, max_ids=None)
    assert report["configs"] == {"added": [], "removed": [], "changed": []}
    assert sorted(report["unchanged"]) == ["coarse", "fine"]
    assert not report["changes"]
    assert "polyprobe.release" in report["card"]
    assert report["bump"]["bump"] == "patch"

    # A class floor drops the rare fine classes: the diff names the label-set change.
    floors = build_trec(
        trec_dir, out=tmp_path / "floors", min_per_class=(20, 0, 0), release="1.0.0"
    ).out
    report = diff_folders(trec_v1, floors, max_ids=None)
    assert report["configs"]["changed"] == ["fine"] and report["unchanged"] == ["coarse"]
    assert report["changes"]["fine"]["label_names"]["removed"]
    assert main(["diff", str(trec_v1), str(floors)]) == 1


# ---------------------------------------------------------------------------------------------
# one report.json schema for every family


@pytest.fixture(scope="module")
def family_reports(
    data_dir: Path, trec_v1: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("families")
    ud = build_ud([DEMO_TREEBANK], lang="en", out=root / "ud", min_per_class=(2, 1, 1)).out
    unimorph = build_unimorph(
        [data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"],
        lang="de",
        out=root / "unimorph",
        scale=True,
    ).out
    return {
        name: json.loads((folder / "report.json").read_text(encoding="utf-8"))
        for name, folder in (("ud", ud), ("unimorph", unimorph), ("trec", trec_v1))
    }


def test_report_json_has_one_schema_for_every_family(
    family_reports: dict[str, dict[str, Any]],
) -> None:
    kinds = {
        "level": str,
        "task_type": str,
        "candidates": int,
        "class_counts": dict,
        "task_drops": dict,
        "engine_drops": dict,
        "dropped_classes": dict,
        "built": list,
        "not_built": list,
        "infeasible": (str, type(None)),
        "sets": dict,
        "derived": dict,
    }
    set_kinds = {
        "candidates": int,
        "class_counts": dict,
        "split": str,
        "engine_notes": list,
        "engine_drops": dict,
        "dropped_classes": dict,
        "built": list,
        "not_built": list,
        "infeasible": (str, type(None)),
        "facts": dict,
        "confounds": dict,  # issue 14: the confound audit per built config
    }
    assert set(kinds) == set(REPORT_KEYS) and set(set_kinds) == set(SET_KEYS)
    for family, report in family_reports.items():
        assert report, family
        for task, entry in report.items():
            where = f"{family}: {task}"
            assert sorted(entry) == sorted(REPORT_KEYS), where
            for key, kind in kinds.items():
                assert isinstance(entry[key], kind), (where, key, entry[key])
            for name, s in entry["sets"].items():
                assert sorted(s) == sorted(SET_KEYS), (where, name)
                for key, kind in set_kinds.items():
                    assert isinstance(s[key], kind), (where, name, key, s[key])
    # The schema holds across what the families report: built tasks, infeasible tasks with
    # and without candidate sets, several sets per task (word tasks' lemma-disjoint sets).
    entries = [e for r in family_reports.values() for e in r.values()]
    assert any(e["built"] for e in entries)
    assert any(e["infeasible"] and not e["built"] for e in entries)
    assert any(not e["sets"] for e in entries)
    assert any(len(e["sets"]) > 1 for e in entries)
    assert {e["task_type"] for e in family_reports["trec"].values()} == {"downstream"}
    assert {e["level"] for e in family_reports["unimorph"].values()} >= {"word", "word-pair"}
    # build ud's default suite: the sentence tasks and (issue 19) the discourse tasks, which
    # report "discourse" even when infeasible (a treebank without '# newdoc' lines)
    assert {e["level"] for e in family_reports["ud"].values()} == {"sentence", "discourse"}
