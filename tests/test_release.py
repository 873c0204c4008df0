"""Releases (issue 6): version and changelog in the card, the bump check against a previous
release, ``polyprobe diff``, exports (SentEval, LINSPECTOR, MTEB) and the catalog.

Most tests use the bundled demo treebank (a build takes well under a second); the acceptance
test builds EWT twice with a ``--profile`` recipe change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_folder_writer import write_folder

from polyprobe import build_ud
from polyprobe.cards import schema
from polyprobe.cards.card import read_readme
from polyprobe.cards.catalog import build_catalog, write_catalog
from polyprobe.cards.diff import diff_folders, render_markdown
from polyprobe.cards.export import (
    export,
    mteb_metadata,
    read_linspector,
    read_senteval,
    script_of,
)
from polyprobe.cards.folder import PARQUET_OPTIONS, split_file
from polyprobe.cards.release import ReleaseError, bump_version, parse_version
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.demo import DEMO_TREEBANK
from polyprobe.errors import UsageError

DEMO_TASKS = ["sentence_length", "subject_number", "bigram_shift"]


def demo(out: Path, **kw: Any) -> Path:
    kw.setdefault("tasks", DEMO_TASKS)
    return build_ud([DEMO_TREEBANK], lang="en", min_per_class=(2, 1, 1), out=out, **kw).out


def card(folder: Path) -> dict[str, Any]:
    return read_readme(folder / "README.md")[0]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo(tmp_path_factory.mktemp("base") / "v1", release="1.0.0")


def rewrite_split(folder: Path, config: str, split: str, change) -> None:
    """Rewrite one parquet file the way another tool would (keeping its metadata)."""
    path = folder / split_file(config, split)
    table = pq.read_table(path)
    table = change(table)
    pq.write_table(table, path, **PARQUET_OPTIONS)


# ---------------------------------------------------------------------------------------------
# version and changelog in the card


def test_versions() -> None:
    assert parse_version("1.2.3") == (1, 2, 3)
    for bad in ("v1.2.3", "1.2", "01.2.3", "1.2.3-rc1"):
        with pytest.raises(UsageError):
            parse_version(bad)
    assert bump_version("1.2.3", "patch") == "1.2.4"
    assert bump_version("1.2.3", "minor") == "1.3.0"
    assert bump_version("1.2.3", "major") == "2.0.0"


def test_card_has_release_and_changelog_and_stays_valid(base: Path, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    block = card(base)["polyprobe"]
    assert block["release"] == "1.0.0" and block["version"]
    assert block["changelog"] == [
        {
            "version": "1.0.0",
            "bump": "initial",
            "fingerprint": block["fingerprint"],
            "summary": ["first release"],
        }
    ]
    assert "bump_check" not in block
    body = (base / "README.md").read_text(encoding="utf-8")
    assert "## Release" in body and "Version `1.0.0` of this dataset." in body
    assert validate(base).ok, validate(base).problems
    dc = DatasetCard.load(base / "README.md")
    dc.save(tmp_path / "README.md")
    assert (tmp_path / "README.md").read_bytes() == (base / "README.md").read_bytes()
    # the default release of a build without --release
    plain = demo(tmp_path / "plain", tasks=["sentence_length"])
    assert card(plain)["polyprobe"]["release"] == "0.1.0"


def test_same_rows_is_a_patch_and_a_wrong_bump_is_refused(base: Path, tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match=r"require a patch bump, i\.e\. --release 1\.0\.1"):
        demo(tmp_path / "v2", release="1.1.0", previous=base)
    assert not (tmp_path / "v2").exists()
    out = demo(tmp_path / "v2", release="1.0.1", previous=base)
    block = card(out)["polyprobe"]
    assert block["release"] == "1.0.1"
    assert [e["version"] for e in block["changelog"]] == ["1.0.0", "1.0.1"]
    assert block["changelog"][1]["bump"] == "patch"
    assert block["bump_check"]["required"] == "patch"
    assert block["bump_check"]["mismatch_allowed"] is False
    assert validate(out).ok
    # without --release the required version is taken
    auto = demo(tmp_path / "auto", previous=out)
    assert card(auto)["polyprobe"]["release"] == "1.0.2"
    # versions only go up
    with pytest.raises(ReleaseError, match="not greater"):
        demo(tmp_path / "down", release="1.0.0", previous=base)


def test_config_added_is_minor_removed_is_major(base: Path, tmp_path: Path) -> None:
    more = demo(tmp_path / "more", tasks=[*DEMO_TASKS, "object_number"], previous=base)
    assert card(more)["polyprobe"]["release"] == "1.1.0"
    summary = card(more)["polyprobe"]["changelog"][-1]["summary"]
    assert "config object_number added" in summary
    with pytest.raises(ReleaseError, match="require a major bump") as err:
        demo(tmp_path / "less", tasks=["sentence_length", "subject_number"], previous=base,
             release="1.1.0")  # fmt: skip
    assert "config bigram_shift removed" in str(err.value)
    less = demo(
        tmp_path / "less",
        tasks=["sentence_length", "subject_number"],
        previous=base,
        release="1.1.0",
        allow_bump_mismatch=True,
    )
    block = card(less)["polyprobe"]
    assert block["bump_check"]["mismatch_allowed"] is True
    assert block["bump_check"]["required"] == "major"
    assert block["changelog"][-1]["bump_mismatch_allowed"] is True
    assert "--allow-bump-mismatch" in (less / "README.md").read_text(encoding="utf-8")
    assert validate(less).ok


def test_previous_may_be_the_output_folder(tmp_path: Path) -> None:
    out = demo(tmp_path / "ds", tasks=["sentence_length"], release="2.0.0")
    demo(out, tasks=["sentence_length"], previous=out, overwrite=True)
    block = card(out)["polyprobe"]
    assert block["release"] == "2.0.1"
    assert [e["version"] for e in block["changelog"]] == ["2.0.0", "2.0.1"]


def test_bad_release_arguments_fail_before_building(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="semantic version"):
        demo(tmp_path / "x", release="1.0")
    with pytest.raises(UsageError, match="not a directory"):
        demo(tmp_path / "x", release="1.0.0", previous=tmp_path / "missing")
    with pytest.raises(UsageError, match="--previous"):
        demo(tmp_path / "x", allow_bump_mismatch=True)


# ---------------------------------------------------------------------------------------------
# diff


def test_diff_of_identical_builds(base: Path, tmp_path: Path, capsys) -> None:
    again = demo(tmp_path / "again", release="1.0.0")
    report = diff_folders(base, again)
    assert report["identical"] and report["bump"]["bump"] == "patch"
    assert main(["diff", str(base), str(again)]) == 0
    assert "same configs, rows and card fields" in capsys.readouterr().out
    assert main(["diff", str(base), str(tmp_path / "nope")]) == 2


def test_diff_compares_label_names_and_inputs(base: Path, tmp_path: Path, capsys) -> None:
    new = tmp_path / "new"
    shutil.copytree(base, new)
    cfg = "subject_number.natural-full"
    old_table = pq.read_table(new / split_file(cfg, "train"))
    names = schema.features_from_schema(old_table.schema)["label"]["names"]
    assert names == ["Sing", "Plur"]

    # 1) reverse the label order in the features AND the indices: no row changes its label
    def reverse(t: pa.Table) -> pa.Table:
        level_schema = schema.arrow_schema("sentence", names[::-1])
        flipped = pa.array([1 - v for v in t.column("label").to_pylist()], pa.int64())
        t = t.set_column(t.column_names.index("label"), "label", flipped)
        return t.replace_schema_metadata(level_schema.metadata)

    rewrite_split(new, cfg, "train", reverse)
    report = diff_folders(base, new, max_ids=None)
    entry = report["changes"][cfg]
    assert entry["label_names"]["old"] == ["Sing", "Plur"]
    assert entry["label_names"]["new"] == ["Plur", "Sing"]
    # rows are compared by label name, each file read with its own names: nothing relabelled
    assert "splits" not in entry
    assert report["bump"]["bump"] == "major"

    # 2) flip one row's label index without touching the names: one relabelled row
    shutil.rmtree(new)
    shutil.copytree(base, new)
    first_id = old_table.column("id")[0].as_py()

    def relabel_and_edit(t: pa.Table) -> pa.Table:
        labels = t.column("label").to_pylist()
        labels[0] = 1 - labels[0]
        sentences = t.column("sentence").to_pylist()
        sentences[1] = sentences[1] + " Indeed."
        t = t.set_column(t.column_names.index("label"), "label", pa.array(labels, pa.int64()))
        return t.set_column(
            t.column_names.index("sentence"), "sentence", pa.array(sentences, pa.string())
        )

    rewrite_split(new, cfg, "train", relabel_and_edit)
    report = diff_folders(base, new, max_ids=None)
    d = report["changes"][cfg]["splits"]["train"]
    assert (d["relabelled"], d["inputs_changed"], d["added"], d["removed"]) == (1, 1, 0, 0)
    assert d["ids"]["relabelled"] == [first_id]
    assert d["ids"]["inputs_changed"] == [old_table.column("id")[1].as_py()]
    assert d["labels"]["old"] != d["labels"]["new"]
    assert report["unchanged"] == [c for c in report["unchanged"] if c != cfg]
    assert report["bump"]["bump"] == "minor"
    assert main(["diff", str(base), str(new), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["changes"][cfg]["splits"]["train"]["relabelled"]
    assert "relabelled" in render_markdown(report)


def test_diff_reports_card_field_changes(base: Path, tmp_path: Path) -> None:
    other = demo(tmp_path / "other", release="1.0.0", source_version="v9")
    report = diff_folders(base, other)
    assert not report["changes"] and not report["configs"]["added"]
    assert report["card"]["polyprobe.sources"]["new"][0]["version"] == "v9"
    assert report["bump"]["bump"] == "patch"


# ---------------------------------------------------------------------------------------------
# exports


def test_senteval_export_round_trips(base: Path, tmp_path: Path) -> None:
    result = export(base, "senteval", tmp_path / "se")
    assert set(result["written"]) == set(card(base)["polyprobe"]["configs"])
    # SentEval's file names under data/probing/ (its task_path is the export's data folder)
    files = {"subject_number": "subj_number.txt", "bigram_shift.natural-full": None}
    for cfg, name in files.items():
        assert result["written"][cfg]["path"] == f"data/probing/{name or cfg + '.txt'}"
        rows = read_senteval(tmp_path / "se" / result["written"][cfg]["path"])
        expected = []
        for split in ("train", "validation", "test"):
            path = base / split_file(cfg, split)
            if not path.exists():
                continue
            t = pq.read_table(path)
            names = schema.features_from_schema(t.schema)["label"]["names"]
            expected += [  # SentEval reads space-separated tokens: the tokens column, joined
                (split, names[lab], " ".join(toks))
                for lab, toks in zip(
                    t.column("label").to_pylist(), t.column("tokens").to_pylist(), strict=True
                )
            ]
        assert rows == expected and len(rows) > 0


def test_linspector_export(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "words")  # a sentence and a word-level config
    result = export(folder, "linspector", tmp_path / "li")
    assert list(result["written"]) == ["word_class"]
    assert "subject_number" in result["skipped"]
    names_of = {"train": "train.txt", "validation": "dev.txt", "test": "test.txt"}
    expected = {}
    for split, name in names_of.items():
        path = folder / split_file("word_class", split)
        if path.exists():
            t = pq.read_table(path)
            labels = schema.features_from_schema(t.schema)["label"]["names"]
            words, ids = t.column("word").to_pylist(), t.column("label").to_pylist()
            expected[name] = [(w, labels[i]) for w, i in zip(words, ids, strict=True)]
    assert expected
    # <task>/<language>/: word_class is no LINSPECTOR task, so it keeps its name
    language = (card(folder).get("language") or ["und"])[0]
    assert result["written"]["word_class"]["path"].startswith("word_class/")
    out = tmp_path / "li" / result["written"]["word_class"]["path"]
    assert out.parent.name == "word_class" and language
    assert sorted(p.name for p in out.iterdir()) == sorted(expected)
    for name, rows in expected.items():
        assert read_linspector(out / name) == rows


def test_mteb_metadata(base: Path, tmp_path: Path) -> None:
    assert script_of(["ქართული ენა"]) == "Geor"
    assert script_of(["Русский язык", "ok"]) == "Cyrl"
    assert script_of(["東京", "とうきょう", "トー"]) in ("Hani", "Hira", "Kana")
    assert script_of(["123 !"]) == "Zyyy"
    meta = mteb_metadata(base, dataset_path="org/en-probing")
    sn, bs = meta["subject_number"], meta["bigram_shift"]
    assert sn["eval_langs"] == ["eng-Latn"]
    assert sn["dataset"] == {  # the release tag `polyprobe publish` creates, not the fingerprint
        "path": "org/en-probing",
        "revision": "v1.0.0",
        "name": "subject_number",
    }
    assert "polyprobe" not in sn  # mteb's TaskMetadata forbids extra keys
    assert sn["main_score"] == "accuracy" and sn["eval_splits"] == ["test"]
    assert sn["license"] == card(base)["license"].lower()
    assert sn["sample_creation"] == "found" and bs["sample_creation"] == "created"
    assert main(["export", str(base), "--format", "mteb", "--out", str(tmp_path / "m")]) == 0
    provenance = json.loads((tmp_path / "m" / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["fingerprint"] == card(base)["polyprobe"]["fingerprint"]
    assert provenance["release"] == "1.0.0"
    tasks = json.loads((tmp_path / "m" / "tasks.json").read_text(encoding="utf-8"))
    assert {t["dataset"]["name"] for t in tasks} == set(meta)


# ---------------------------------------------------------------------------------------------
# catalog


def test_catalog(base: Path, tmp_path: Path) -> None:
    small = demo(tmp_path / "builds" / "small", tasks=["sentence_length", "tense"])
    catalog = build_catalog([base, tmp_path / "builds"])
    assert [d["name"] for d in catalog["datasets"]] == ["v1", "small"]
    v1 = catalog["datasets"][0]
    assert v1["release"] == "1.0.0" and v1["languages"] == ["en"]
    sn = v1["tasks"]["subject_number"]
    assert sn["status"] == "built" and sn["recommended"] == "subject_number"
    info = {i["config_name"]: i for i in card(base)["dataset_info"]}["subject_number"]
    assert sn["sizes"] == {s["name"]: s["num_examples"] for s in info["splits"]}
    tense = catalog["datasets"][1]["tasks"]["tense"]
    report = json.loads((small / "report.json").read_text(encoding="utf-8"))["tense"]
    assert tense["status"] == ("built" if report["built"] else "infeasible")
    assert catalog["matrix"]["en"]["sentence_length"] == ["v1", "small"]
    assert main(["catalog", str(base), str(small), "--out", str(tmp_path / "cat")]) == 0
    md = (tmp_path / "cat" / "catalog.md").read_text(encoding="utf-8")
    assert "| en |" in md and "subject_number" in md
    assert json.loads((tmp_path / "cat" / "catalog.json").read_text(encoding="utf-8"))
    write_catalog([small], tmp_path / "cat2")


# ---------------------------------------------------------------------------------------------
# acceptance: a recipe change through --profile between two builds of EWT


def test_ewt_profile_change_diff_and_bump(ud_dir: Path, tmp_path: Path, capsys) -> None:
    ewt = ud_dir / "UD_English-EWT"
    profile = tmp_path / "profile.toml"
    profile.write_text('[tasks.subject_number]\nsubject_upos = ["NOUN", "PROPN"]\n')
    common = [str(ewt), "--lang", "en", "--tasks", "subject_number,sentence_length", "--quiet"]
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    assert main(["build", "ud", *common, "--out", str(v1), "--release", "1.0.0"]) == 0
    changed = [*common, "--profile", str(profile), "--previous", str(v1), "--out", str(v2)]
    capsys.readouterr()
    for wrong in ("1.0.1", "2.0.0"):
        assert main(["build", "ud", *changed, "--release", wrong]) == 2
        err = capsys.readouterr().err
        assert f"--release {wrong} does not fit" in err
        assert "require a minor bump, i.e. --release 1.1.0" in err
        assert "config subject_number train" in err
        assert not v2.exists()
    assert main(["build", "ud", *changed, "--release", "1.1.0"]) == 0
    assert "release 1.1.0 (minor bump from 1.0.0)" in capsys.readouterr().out
    assert validate(v2).ok, validate(v2).problems

    report = diff_folders(v1, v2, max_ids=None)
    assert report["configs"] == {
        "added": [],
        "removed": [],
        "changed": ["subject_number", "subject_number.natural-full"],
    }
    assert sorted(report["unchanged"]) == ["sentence_length", "sentence_length.natural-full"]
    assert report["bump"]["bump"] == "minor"
    # the reported rows are exactly the id set differences, recomputed here independently
    for cfg, entry in report["changes"].items():
        assert set(entry) == {"splits"}  # no schema or label-set change
        for split in ("train", "validation", "test"):
            old_ids = set(pq.read_table(v1 / split_file(cfg, split)).column("id").to_pylist())
            new_ids = set(pq.read_table(v2 / split_file(cfg, split)).column("id").to_pylist())
            d = entry["splits"][split]
            assert set(d["ids"].get("added", [])) == new_ids - old_ids
            assert set(d["ids"].get("removed", [])) == old_ids - new_ids
            assert d["relabelled"] == d["inputs_changed"] == 0
    card_changes = report["card"]
    assert "polyprobe.profile.overrides.tasks.subject_number.subject_upos" in card_changes
    assert "polyprobe.release" in card_changes
    changelog = card(v2)["polyprobe"]["changelog"]
    assert [(e["version"], e["bump"]) for e in changelog] == [
        ("1.0.0", "initial"),
        ("1.1.0", "minor"),
    ]
    assert any(line.startswith("config subject_number train:") for line in changelog[1]["summary"])
    assert not any("sentence_length" in line for line in changelog[1]["summary"])
