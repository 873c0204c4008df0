"""``diff`` and ``export`` read a dataset folder through one reader (``cards.diff.read_folder``):
a truncated parquet file or a card naming a file outside the folder is one line naming it,
exit 2 — not Arrow's traceback, and never rows from elsewhere (part of issue 36)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polyprobe.cli import main
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    splits = {"train": toy_sentences(40, prefix="tr"), "test": toy_sentences(20, prefix="te")}
    return write_folder(
        tmp_path / "toy", {"cue": splits}, {"cue": ["no", "yes"]}, {"cue": "sentence"}
    )


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("command", ["diff", "export"])
def test_a_truncated_parquet_is_named(
    command: str, toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(toy, broken)
    (test_file,) = (broken / "data" / "cue").glob("test-*.parquet")
    test_file.write_bytes(test_file.read_bytes()[:200])
    args = {
        "diff": ["diff", str(toy), str(broken)],
        "export": ["export", str(broken), "--format", "senteval", "--out", str(tmp_path / "x")],
    }[command]
    assert main(args) == 2
    line = _one_error(capsys)
    assert f"{test_file}: not a readable parquet file" in line
    assert "split 'test'" in line and "config 'cue'" in line
    assert not (tmp_path / "x").exists()


def test_a_data_file_outside_the_folder_is_refused(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The card points a split at ``../elsewhere/x.parquet``: ``validate`` refuses it, and so
    does every command that reads rows through the folder reader."""
    moved = tmp_path / "moved"
    shutil.copytree(toy, moved)
    (test_file,) = (moved / "data" / "cue").glob("test-*.parquet")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(test_file, elsewhere / "x.parquet")
    readme = moved / "README.md"
    rel = test_file.relative_to(moved).as_posix()
    readme.write_text(
        readme.read_text(encoding="utf-8").replace(rel, "../elsewhere/x.parquet"), encoding="utf-8"
    )
    assert main(["diff", str(toy), str(moved)]) == 2
    assert "../elsewhere/x.parquet points outside the folder" in _one_error(capsys)
    assert main(["validate", str(moved)]) != 0
