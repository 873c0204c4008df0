"""Where evaluation and Wuggy generation cache things (issue 15, point 15).

A local dataset folder is read in place: evaluating it leaves nothing in ``datasets``' cache
(it used to leave an Arrow copy of every split there). A Hub dataset is cached where
``--cache-dir`` says. ``POLYPROBE_CACHE`` is the root of polyprobe's own caches: embeddings
under ``embeddings/``, Wuggy tables under ``wuggy/``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from test_publish import hub  # noqa: F401 - the Hub stand-in fixture

from polyprobe.cli import main
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture
def caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Path]:
    import datasets.config

    paths = {
        "hf": tmp_path / "hf-datasets",
        "pp": tmp_path / "pp-cache",
        "tmp": tmp_path / "tmp",
    }
    paths["tmp"].mkdir()
    monkeypatch.setenv("HF_DATASETS_CACHE", str(paths["hf"]))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", paths["hf"])
    monkeypatch.setenv("POLYPROBE_CACHE", str(paths["pp"]))
    monkeypatch.setattr(tempfile, "tempdir", str(paths["tmp"]))
    return paths


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    configs = {
        "cue": {"train": toy_sentences(60, prefix="tr"), "test": toy_sentences(30, prefix="te")},
        "noise": {
            "train": toy_sentences(60, separable=False, prefix="tr"),
            "test": toy_sentences(30, separable=False, prefix="te"),
        },
    }
    return write_folder(
        root / "toy",
        configs,
        {"cue": ["no", "yes"], "noise": ["a", "b"]},
        {"cue": "sentence", "noise": "sentence"},
    )


def test_a_local_folder_leaves_the_datasets_cache_empty(
    toy: Path, caches: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    out = tmp_path / "results"
    vectors = tmp_path / "words.vec"  # a cached encoder (random baselines are recomputed)
    vectors.write_text("2 3\nno 1 0 0\nyes 0 1 0\n", encoding="utf-8")
    args = ["evaluate", str(toy), "--all", "--encoder", f"vec:{vectors}", "--seeds", "1"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    assert len(_files(out)) == 2
    assert not caches["hf"].exists() or _files(caches["hf"]) == []
    assert list(caches["tmp"].iterdir()) == []  # the builder's temporary cache dir is gone
    # the embedding cache is where POLYPROBE_CACHE says, under embeddings/
    stored = _files(caches["pp"])
    assert stored and all(p.startswith("embeddings/") for p in stored)
    # and --cache-dir (a Hub dataset's cache) changes nothing for a local folder
    assert main([*args, "--out", str(out), "--cache-dir", str(tmp_path / "dc")]) == 0
    assert not (tmp_path / "dc").exists()


def test_cache_roots_follow_polyprobe_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    from polyprobe.evaluation.cache import default_cache_dir as embeddings_dir
    from polyprobe.loaders.wuggy import default_cache_dir as wuggy_dir

    monkeypatch.setenv("POLYPROBE_CACHE", "~/pp")
    assert embeddings_dir() == Path.home() / "pp" / "embeddings"
    assert wuggy_dir() == Path.home() / "pp" / "wuggy"
    monkeypatch.delenv("POLYPROBE_CACHE")
    assert embeddings_dir() == Path.home() / ".cache" / "polyprobe" / "embeddings"
    assert wuggy_dir() == Path.home() / ".cache" / "polyprobe" / "wuggy"


def test_a_hub_dataset_is_cached_in_cache_dir(
    hub,  # noqa: F811 - the fixture imported above
    caches: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import datasets.config

    from polyprobe import build_ud
    from polyprobe.demo import DEMO_MIN_PER_CLASS, DEMO_TREEBANK

    # the stand-in's fixture points the datasets cache into its own folder: use ours
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", caches["hf"])
    folder = build_ud(
        [DEMO_TREEBANK],
        lang="en",
        out=tmp_path / "demo",
        tasks=["subject_number"],
        min_per_class=DEMO_MIN_PER_CLASS,
        release="1.0.0",
    ).out
    assert main(["publish", str(folder), "--repo-id", "org/demo"]) == 0
    out, mine = tmp_path / "results", tmp_path / "my-datasets-cache"
    code = main(
        ["evaluate", "org/demo", "--encoder", "random?dim=16", "--seeds", "1", "--out", str(out)]
        + ["--cache-dir", str(mine), "--no-progress"]
    )
    assert code == 0
    assert any(p.endswith(".arrow") for p in _files(mine))
    assert not caches["hf"].exists() or not any(p.endswith(".arrow") for p in _files(caches["hf"]))
