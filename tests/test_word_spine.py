"""``build unimorph`` on the shared build spine: what every family gets, UniMorph builds get the
same way as UD builds — releases and the bump check, ``polyprobe diff``, ``--on-invalid``,
profiles with checked ``[tasks.<name>]`` options, the shared ``report.json`` schema.

A small German lexicon (SIGMORPHON's dev + test, 2,000 entries) with ``--scale --min-forms 150``
keeps each build under two seconds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polyprobe import build_unimorph
from polyprobe.builders.assemble import REPORT_KEYS, SET_KEYS
from polyprobe.builders.word.common import scaled_split_sizes
from polyprobe.cards.card import read_readme
from polyprobe.cards.diff import diff_folders
from polyprobe.cards.release import ReleaseError
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError

TASKS = ["case", "pos", "same_feature"]


@pytest.fixture(scope="module")
def lexicon(data_dir: Path) -> list[Path]:
    folder = data_dir / "unimorph" / "sigmorphon2018"
    return [folder / "german-dev", folder / "german-test"]


def small(paths: list[Path], out: Path, **kw: Any) -> Any:
    kw.setdefault("tasks", TASKS)
    return build_unimorph(
        paths, lang="de", out=out, scale=True, min_forms=150, min_per_class=(5, 2, 2), **kw
    )


def block(folder: Path) -> dict[str, Any]:
    return read_readme(folder / "README.md")[0]["polyprobe"]


def report(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def base(lexicon: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small(lexicon, tmp_path_factory.mktemp("base") / "v1", release="1.0.0").out


# ------------------------------------------------------------------------------ releases


def test_release_then_patch_and_a_wrong_bump_refused(
    base: Path, lexicon: list[Path], tmp_path: Path
) -> None:
    first = block(base)
    assert first["release"] == "1.0.0"
    assert [e["bump"] for e in first["changelog"]] == ["initial"]
    assert validate(base).ok
    # identical rows: a patch, exactly as UD builds refuse anything else
    with pytest.raises(ReleaseError, match=r"require a patch bump, i\.e\. --release 1\.0\.1"):
        small(lexicon, tmp_path / "v2", release="2.0.0", previous=base)
    assert not (tmp_path / "v2").exists()
    result = small(lexicon, tmp_path / "v2", release="1.0.1", previous=base)
    assert result.release == "1.0.1" and result.bump_check["required"] == "patch"
    again = block(result.out)
    assert [e["version"] for e in again["changelog"]] == ["1.0.0", "1.0.1"]
    assert again["changelog"][1]["bump"] == "patch"
    assert again["bump_check"]["mismatch_allowed"] is False
    assert validate(result.out).ok
    assert result.fingerprint == first["fingerprint"]  # same inputs, recipes, parameters
    diff = diff_folders(base, result.out)
    assert diff["changes"] == {} and diff["configs"]["changed"] == []
    assert diff["bump"] == {"bump": "patch", "reasons": ["no change to rows or card"]}


def test_another_seed_needs_a_major_bump(base: Path, lexicon: list[Path], tmp_path: Path) -> None:
    """Word configs are seed-dependent: another seed changes which rows they hold."""
    with pytest.raises(ReleaseError, match="require a major bump"):
        small(lexicon, tmp_path / "s1", seed=1, release="1.0.1", previous=base)
    diff = diff_folders(base, small(lexicon, tmp_path / "s1b", seed=1).out)
    assert not diff["identical"] and diff["changes"]


# ------------------------------------------------------------------------------ --on-invalid


def test_on_invalid_skip_counts_a_bad_line(lexicon: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "lex"
    folder.mkdir()
    paths = []
    for path in lexicon:
        copy = folder / path.name
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if not paths:
            lines.insert(10, "Haus\tHäuser\n")  # two columns: line 11
        copy.write_text("".join(lines), encoding="utf-8")
        paths.append(copy)
    with pytest.raises(InputError, match=r"german-dev:11"):
        small(paths, tmp_path / "raise")
    assert not (tmp_path / "raise").exists()
    result = small(paths, tmp_path / "skip", on_invalid="skip")
    assert result.skipped_invalid == {"bad-column-count": 1}
    meta = block(result.out)
    assert meta["skipped_invalid"] == {"bad-column-count": 1}
    assert meta["parameters"]["on_invalid"] == "skip"
    assert meta["profile"]["lexicon"]["entries"] == 2000  # the other lines all read
    body = (result.out / "README.md").read_text(encoding="utf-8")
    assert "bad-column-count" in body


# ------------------------------------------------------------------------------ profiles


def test_profile_task_options_override_and_are_checked(lexicon: list[Path], tmp_path: Path) -> None:
    profile = tmp_path / "profile.toml"
    profile.write_text("[tasks.case]\nmin_forms = 300\nsplit_sizes = [8, 1, 1]\n")
    result = small(lexicon, tmp_path / "p", profile=profile)
    configs = block(result.out)["configs"]
    # case: its own size floor and proportions; pos: the command line's
    case, pos = report(result.out)["case"]["derived"], report(result.out)["pos"]["derived"]
    assert case["params"]["min_forms"] == 300 and pos["params"]["min_forms"] == 150
    target = case["counts"]["target"]
    assert target == max(300, case["counts"]["carrying_forms"] // 2)
    split = scaled_split_sizes(target, (8, 1, 1))
    assert configs["case"]["variant"]["split"] == "sizes:{}/{}/{}".format(*split)
    assert configs["pos"]["variant"]["split"].startswith("sizes:")
    assert configs["pos"]["variant"]["split"] != "sizes:{}/{}/{}".format(
        *scaled_split_sizes(pos["counts"]["target"], (8, 1, 1))
    )
    overrides = block(result.out)["profile"]["overrides"]
    assert overrides["file"] == "profile.toml"
    assert overrides["tasks"] == {"case": {"min_forms": 300, "split_sizes": [8, 1, 1]}}

    profile.write_text("[tasks.case]\nmin_forms = 300\nnone_share = 0.5\n")
    with pytest.raises(InputError) as err:  # names the profile file
        small(lexicon, tmp_path / "bad", profile=profile)
    assert err.value.reason == "bad-profile"
    assert "profile.toml: [tasks.case]: unknown option(s) none_share" in str(err.value)
    assert "valid options: min_forms, scale, split_sizes" in str(err.value)
    # every table is checked, also that of a task not built
    profile.write_text("[tasks.odd_feature]\nsplit_sizes = [0, 1, 1]\n")
    with pytest.raises(InputError, match=r"\[tasks\.odd_feature\]: split_sizes"):
        small(lexicon, tmp_path / "bad", profile=profile)
    profile.write_text("[tasks.nonsense]\nscale = true\n")
    with pytest.raises(InputError, match="unknown task"):
        small(lexicon, tmp_path / "bad", profile=profile)
    assert not (tmp_path / "bad").exists()


# ------------------------------------------------------------------------------ the report


def test_report_has_the_shared_schema(base: Path, lexicon: list[Path], tmp_path: Path) -> None:
    entries = report(base)
    assert set(entries) == set(TASKS)
    for name, entry in entries.items():
        assert set(entry) == set(REPORT_KEYS), name
        assert set(entry["sets"]) == {"form", "lemma-disjoint"}
        for cset in entry["sets"].values():
            assert set(cset) == set(SET_KEYS)
    same = entries["same_feature"]
    assert same["level"] == "word-pair" and same["task_type"] == "probing"
    assert same["sets"]["form"]["split"].startswith("sizes:")
    assert set(same["sets"]["lemma-disjoint"]["facts"]) >= {"partition", "leakage"}
    assert same["derived"]["counts"]["target_pairs"] > 0
    # an infeasible task keeps its reasons and drops
    gender = report(small(lexicon, tmp_path / "g", tasks=["gender", "case"]).out)["gender"]
    assert set(gender) == set(REPORT_KEYS)
    assert gender["infeasible"] == "no form carries gender" and gender["built"] == []
    assert gender["sets"] == {} and gender["task_drops"]["form-with-space"] > 0


def test_on_invalid_covers_the_wuggy_table(
    lexicon: list[Path], data_dir: Path, tmp_path: Path
) -> None:
    table = tmp_path / "ort_german"
    lines = (data_dir / "wuggy" / "outputs" / "ort_german").read_text(encoding="utf-8")
    rows = lines.splitlines(keepends=True)
    rows.insert(3, "Haus\n")  # one column under a five-column header: line 4
    table.write_text("".join(rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"ort_german:4"):
        small(lexicon, tmp_path / "raise", tasks=["pseudo"], wuggy_output=table)
    result = small(
        lexicon, tmp_path / "skip", tasks=["pseudo"], wuggy_output=table, on_invalid="skip"
    )
    assert result.skipped_invalid == {"bad-column-count": 1}
    assert result.tasks[0].configs and not result.facts["wuggy_cached"]
    meta = block(result.out)
    assert meta["profile"]["pseudowords"]["table_rows"] == 14712
    assert [s["kind"] for s in meta["sources"]] == ["unimorph", "wuggy-output"]
