"""The command line: exit codes, messages, lazy imports, the demo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from polyprobe.cli import main


def test_help_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from polyprobe.cli import _build_parser\n"
        "_build_parser().format_help()\n"
        "heavy = [m for m in ('datasets', 'torch', 'pandas', 'matplotlib', 'pyarrow', 'sklearn',"
        " 'transformers', 'numpy') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["build", "--help"],
        ["build", "ud", "--help"],
        ["build", "unimorph", "--help"],
        ["build", "trec", "--help"],
        ["profile", "ud", "--help"],
        ["validate", "--help"],
        ["info", "--help"],
        ["demo", "--help"],
    ],
)
def test_help_everywhere(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "usage: polyprobe" in capsys.readouterr().out


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["build", "ud"])
    assert exc.value.code == 2
    assert main(["validate", str(tmp_path / "missing")]) == 2
    assert "missing" in capsys.readouterr().err
    demo = (
        Path(__file__).resolve().parent.parent / "polyprobe" / "data" / "UD_English-PolyprobeDemo"
    )
    assert main(["build", "ud", str(demo), "--lang", "zz", "--out", str(tmp_path / "o")]) == 2
    assert "--lang 'zz'" in capsys.readouterr().err
    assert (
        main(
            [
                "build",
                "ud",
                str(demo),
                "--lang",
                "en",
                "--tasks",
                "nope",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "nope" in capsys.readouterr().err
    assert (
        main(
            [
                "build",
                "ud",
                str(demo),
                "--lang",
                "eng",
                "--sizes",
                "ten",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "o").exists()


def test_demo_info_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "load_dataset" in printed and str(out) in printed
    assert main(["validate", str(out)]) == 0
    assert main(["info", str(out)]) == 0
    info = capsys.readouterr().out
    assert "subject_number" in info and "(default)" in info
    import datasets

    ds = datasets.load_dataset(str(out), "subject_number")
    assert ds["train"].features["label"].names == ["Sing", "Plur"]
    # demo-train-04 has a coordinated subject ("Cats and dogs"): never a subject_number row
    assert not any("demo-train-04" in i for split in ds.values() for i in split["id"])
    # a corrupted card makes validate exit 1
    readme = out / "README.md"
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.replace("num_examples: ", "num_examples: 1", 1), encoding="utf-8")
    assert main(["validate", str(out)]) == 1
