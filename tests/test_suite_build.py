"""``polyprobe suite build``: one language's families in one folder (Finnish, from the shared
data: UD_Finnish-TDT, SIGMORPHON 2018 Finnish, FinnSim, Multi-SimLex, FinSemEvl analogies).

What must hold: the folder validates and every config loads with ``datasets``; a task name
an earlier member publishes is published as ``<member>-<task>``, its rows those of the
family's own build; the card has the overview and the members' sections; a rebuild is byte-identical;
releases and ``--previous`` work as on any folder; a bad manifest is refused naming the file
and the member."""

from __future__ import annotations

import filecmp
import json
import textwrap
from pathlib import Path

import pytest

from polyprobe.cards.card import anchored_tables, read_readme
from polyprobe.cards.stats import detectable_difference
from polyprobe.cli import main

FINNISH = """\
[suite]
name = "fi-probing"
lang = "fi"

[members.ud]
paths = ["ud/UD_Finnish-TDT"]

[members.unimorph]
paths = ["unimorph/sigmorphon2018/finnish-*"]
frequencies = ["ud/UD_Finnish-TDT"]
scale = true

[members.similarity]
paths = ["word_similarity/finsemevl/FinnSim/FinnSim_judgment_scores.csv",
         "word_similarity/multisimlex_concepticon/Vulic-2020-2244.tsv"]

[members.analogies]
paths = ["word_similarity/finsemevl/analogy/ANA_*.txt"]
"""


def _write(folder: Path, text: str, name: str = "fi.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _build(manifest: Path, data: Path, out: Path, *extra: str) -> int:
    args = ["suite", "build", str(manifest), "--data", str(data), "--out", str(out), "--quiet"]
    return main([*args, *extra])


@pytest.fixture(scope="session")
def finnish(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> tuple[Path, Path]:
    """The Finnish suite's manifest and its folder, built once."""
    root = tmp_path_factory.mktemp("fi-suite")
    manifest = _write(root, FINNISH)
    out = root / "fi-probing"
    assert _build(manifest, data_dir, out) == 0
    return manifest, out


def _card(folder: Path) -> tuple[dict, str]:
    return read_readme(folder / "README.md")


def test_suite_folder_validates_and_every_config_loads(
    finnish: tuple[Path, Path], hf_offline: None
) -> None:
    import datasets

    from polyprobe.cards.validate import validate

    _, out = finnish
    report = validate(out)
    assert report.ok, report.problems
    data, _ = _card(out)
    names = [c["config_name"] for c in data["configs"]]
    assert len(names) > 30
    for name in names:
        ds = datasets.load_dataset(str(out), name)
        want = {
            s["name"]: s["num_examples"]
            for s in next(i["splits"] for i in data["dataset_info"] if i["config_name"] == name)
        }
        assert {s: ds[s].num_rows for s in ds} == want, name


def test_a_task_name_taken_is_prefixed_by_the_later_member_and_keeps_its_rows(
    finnish: tuple[Path, Path], data_dir: Path, tmp_path: Path
) -> None:
    """``tense`` and ``voice`` are tasks of the UD family and of the UniMorph family: the UD
    member, first in the manifest, keeps the names; UniMorph's are ``unimorph-tense`` and
    ``unimorph-voice``. A renamed task holds the rows its family's own build publishes (its
    seeds and keys are drawn under the task's own name)."""
    from conftest import config_rows

    _, out = finnish
    data, _ = _card(out)
    block = data["polyprobe"]
    names = {c["config_name"] for c in data["configs"]}
    assert {"tense", "voice", "unimorph-tense"} <= names and "ud-tense" not in names
    assert block["configs"]["tense"]["member"] == "ud"
    assert block["configs"]["tense"]["family"] == "ud"
    members = {m["name"]: m for m in block["members"]}
    assert members["ud"]["renamed"] == {}
    assert members["unimorph"]["renamed"] == {"unimorph-tense": "tense", "unimorph-voice": "voice"}
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert "unimorph-tense" in report and "tense" in report

    alone = tmp_path / "ud-alone"
    ud = data_dir / "ud" / "UD_Finnish-TDT"
    assert main(["build", "ud", str(ud), "--lang", "fi", "--out", str(alone), "--quiet"]) == 0
    assert config_rows(out, "tense") == config_rows(alone, "tense")
    assert config_rows(out, "sentence_length") == config_rows(alone, "sentence_length")

    words = tmp_path / "unimorph-alone"
    lexicon = sorted(str(p) for p in (data_dir / "unimorph" / "sigmorphon2018").glob("finnish-*"))
    args = ["build", "unimorph", *lexicon, "--frequencies", str(ud), "--scale", "--lang", "fi"]
    assert main([*args, "--out", str(words), "--quiet"]) == 0
    assert config_rows(out, "unimorph-tense")["train"]  # built, under its suite name
    assert config_rows(out, "unimorph-tense") == config_rows(words, "tense")
    assert config_rows(out, "unimorph-voice.natural-full") == config_rows(
        words, "voice.natural-full"
    )


def test_card_overview_lists_every_built_task_with_its_test_power(
    finnish: tuple[Path, Path],
) -> None:
    _, out = finnish
    data, body = _card(out)
    rows = anchored_tables(body)[("overview", None)]
    header, rows = rows[0], rows[1:]
    assert header[:4] == ["member", "family", "task", "recommended config"]
    by_task = {r[2]: dict(zip(header, r, strict=True)) for r in rows}
    info = {i["config_name"]: i for i in data["dataset_info"]}
    test_rows = {s["name"]: s["num_examples"] for s in info["tense"]["splits"]}["test"]
    assert by_task["tense"]["recommended config"] == "tense"
    assert (
        by_task["tense"]["detectable Δ (points)"] == f"{100 * detectable_difference(test_rows):.1f}"
    )
    assert by_task["finnsim-fi"]["family"] == "similarity"
    assert by_task["finnsim-fi"]["detectable Δ (points)"] == "—"  # a correlation, not accuracy
    # members' sections follow the overview, in manifest order
    headings = [line for line in body.splitlines() if line.startswith("## Member ")]
    assert [h.split("`")[1] for h in headings] == ["ud", "unimorph", "similarity", "analogies"]
    assert body.index("## Overview") < body.index("## Member `ud`")


def test_rebuild_is_byte_identical(
    finnish: tuple[Path, Path], data_dir: Path, tmp_path: Path
) -> None:
    manifest, out = finnish
    again = tmp_path / "again"
    assert _build(manifest, data_dir, again) == 0
    cmp = filecmp.dircmp(out, again)

    def same(c: filecmp.dircmp) -> bool:
        if c.left_only or c.right_only:
            return False
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        return not mismatch and not errors and all(same(s) for s in c.subdirs.values())

    assert same(cmp)


def test_release_then_previous_patch_release(
    finnish: tuple[Path, Path], data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest, _ = finnish
    first, second = tmp_path / "1.0.0", tmp_path / "1.0.1"
    assert _build(manifest, data_dir, first, "--release", "1.0.0") == 0
    assert _build(manifest, data_dir, second, "--previous", str(first), "--release", "1.0.1") == 0
    block = _card(second)[0]["polyprobe"]
    assert block["release"] == "1.0.1"
    assert [e["version"] for e in block["changelog"]] == ["1.0.0", "1.0.1"]
    capsys.readouterr()
    assert main(["diff", str(first), str(second), "--format", "json"]) == 1  # the card's release
    diff = json.loads(capsys.readouterr().out)
    assert diff["configs"] == {"added": [], "removed": [], "changed": []}  # the same rows

    # a member added at the end adds configs and renames none: a minor bump, so 1.0.2 is
    # refused and nothing is written
    more = _write(
        tmp_path,
        manifest.read_text(encoding="utf-8")
        + textwrap.dedent("""
        [members.dictionary]
        path = "word_similarity/multisimlex_concepticon/Vulic-2020-2244.tsv"
        multisimlex = true
        target_lang = "en"
        """),
        "more.toml",
    )
    capsys.readouterr()
    third = tmp_path / "1.0.2"
    assert _build(more, data_dir, third, "--previous", str(second), "--release", "1.0.2") == 2
    assert "minor" in capsys.readouterr().err
    assert not third.exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[suite]\nlang = "fi"\n[members.nosuch]\npaths = ["x"]\n', "nosuch"),
        (
            '[suite]\nlang = "fi"\n[members.ud]\npaths = ["ud/UD_Finnish-TDT"]\nbogus = 1\n',
            "[members.ud] (ud)",
        ),
        (
            '[suite]\nlang = "fi"\n[members.ud]\npaths = ["ud/UD_Finnish-TDT"]\nout = "x"\n',
            "belong to the suite",
        ),
        (
            '[suite]\nlang = "fi"\n[members.analogies]\npaths = ["nowhere/*.txt"]\n',
            "matches no file",
        ),
        ('[suite]\nname = "x"\n', "needs lang"),
        ('[suite]\nlang = "fi"\n[members.ud\n', "not TOML"),
        ('[suite]\nlang = "fi"\n', "names no member"),
    ],
)
def test_bad_manifest_is_refused_naming_the_file(
    text: str, says: str, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _write(tmp_path, text, "bad.toml")
    out = tmp_path / "out"
    assert _build(manifest, data_dir, out) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and says in err, err
    assert "Traceback" not in err
    assert not out.exists()


def test_publish_plan_and_polyprobe_load_work_on_a_suite(
    finnish: tuple[Path, Path], hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    import polyprobe

    _, out = finnish
    capsys.readouterr()
    assert main(["publish", str(out), "--repo-id", "org/fi-probing", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    assert plan.count("create_commit") == 1 and "create_tag 'v0.1.0'" in plan
    assert "data/unimorph-tense/train-00000-of-00001.parquet" in plan
    ds = polyprobe.load(str(out), "unimorph-tense", version="0.1.0")
    assert ds.polyprobe["configs"]["unimorph-tense"]["member"] == "unimorph"
    assert ds["train"].features["label"].names == ["Past", "Present", "None"]  # LINSPECTOR's
