"""A file given where a command writes a folder (``--out``) is one line naming it, exit 2,
before any work: ``evaluate``, ``report``, ``correlate``, ``export`` and ``catalog`` used to
end in ``NotADirectoryError`` / ``FileExistsError`` tracebacks once their work was done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyprobe.cli import main
from polyprobe.evaluation.synthetic import toy_sentences, write_folder
from polyprobe.outputs import output_folder


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    splits = {"train": toy_sentences(40, prefix="tr"), "test": toy_sentences(20, prefix="te")}
    return write_folder(
        tmp_path / "toy", {"cue": splits}, {"cue": ["no", "yes"]}, {"cue": "sentence"}
    )


def _results(tmp_path: Path) -> Path:
    """A results folder with one result file (what report and correlate read)."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "r.json").write_text(json.dumps({"schema_version": 1}), encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", ["evaluate", "report", "correlate", "export", "catalog"])
@pytest.mark.parametrize("inside", [False, True])
def test_a_file_for_out_is_one_line_and_exit_2(
    command: str, inside: bool, toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "taken.txt"
    blocker.write_text("keep me", encoding="utf-8")
    out = blocker / "sub" if inside else blocker
    results = _results(tmp_path)
    args = {
        "evaluate": ["evaluate", str(toy), "--all", "--encoder", "random"],
        "report": ["report", str(results)],
        "correlate": ["correlate", str(results)],
        "export": ["export", str(toy), "--format", "senteval"],
        "catalog": ["catalog", str(toy)],
    }[command]
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    want = f"is inside {blocker}, a file" if inside else "is a file"
    assert f"--out {out}: {want}, not a folder" in err[0]
    assert blocker.read_text(encoding="utf-8") == "keep me"


def test_a_folder_or_a_path_to_make_is_accepted(tmp_path: Path) -> None:
    assert output_folder(tmp_path) == tmp_path
    assert output_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    link = tmp_path / "link"
    link.symlink_to(tmp_path, target_is_directory=True)
    assert output_folder(link / "x") == link / "x"
