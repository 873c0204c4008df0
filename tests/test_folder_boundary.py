"""A dataset folder is a boundary (issue 36): ``validate``, ``info``, ``diff``, ``export``,
``evaluate``, ``publish`` and ``polyprobe.load`` refuse the same folders with the same line
(``cards.boundary``), and none of them reads anything outside the folder.

"Nothing is read outside" is held by making every outside target a FIFO: opening one for
reading blocks until a writer comes, so a command that followed a link or a ``../`` path would
hang — the alarm turns that into a failure naming the command."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_folder_writer import write_folder

import polyprobe
from polyprobe.cards.boundary import MAX_CONFIGS, MAX_FRONT_MATTER_BYTES, open_folder
from polyprobe.cards.card import README
from polyprobe.cards.folder import PARQUET_OPTIONS, split_file
from polyprobe.cli import main
from polyprobe.errors import CardError, DatasetFolderError, OutsideFolderError

SN = "subject_number"
LINK = (
    "is a symbolic link; a dataset folder holds only regular files (nothing is read or "
    "published through a link)"
)


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("valid") / "ds")


@pytest.fixture
def copy(valid: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(valid, tmp_path / "ds"))


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A command that opened an outside FIFO would block: fail it after 60 s instead."""

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("a command opened a file outside the folder (a FIFO) and blocked")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _symlink_file(folder: Path) -> str:
    """``notes.txt -> ../secret.txt`` beside the data."""
    _fifo(folder.parent / "secret.txt")
    (folder / "notes.txt").symlink_to("../secret.txt")
    return f"{folder / 'notes.txt'}: {LINK}"


def _symlinked_parquet(folder: Path) -> str:
    """The test split's parquet file is a link to a file outside."""
    target = _fifo(folder.parent / "elsewhere" / "x.parquet")
    path = folder / split_file(SN, "test")
    path.unlink()
    path.symlink_to(os.path.relpath(target, path.parent))
    return f"{path}: {LINK}"


def _symlinked_data(folder: Path) -> str:
    """``data/`` itself is a link to a copy outside."""
    outside = folder.parent / "outside-data"
    shutil.move(folder / "data", outside)
    _fifo(outside / "trap.parquet")
    (folder / "data").symlink_to(outside)
    return f"{folder / 'data'}: {LINK}"


def _data_files_outside(folder: Path) -> str:
    """The card points the test split at ``../elsewhere/x.parquet``."""
    _fifo(folder.parent / "elsewhere" / "x.parquet")
    readme = folder / README
    text = readme.read_text(encoding="utf-8")
    rel = split_file(SN, "test")
    assert text.count(f"path: {rel}") == 1
    readme.write_text(text.replace(f"path: {rel}", "path: ../elsewhere/x.parquet"), "utf-8")
    return (
        f"{readme}: config {SN!r} split 'test': data file {folder}/../elsewhere/x.parquet "
        "points outside the folder"
    )


REPRODUCERS: dict[str, Callable[[Path], str]] = {
    "symlink file": _symlink_file,
    "symlinked parquet": _symlinked_parquet,
    "symlinked data folder": _symlinked_data,
    "data_files outside": _data_files_outside,
}

COMMANDS = ["info", "diff", "export", "evaluate", "publish"]


def _args(command: str, folder: Path, valid: Path, tmp: Path) -> list[str]:
    return {
        "info": ["info", str(folder)],
        "diff": ["diff", str(valid), str(folder)],
        "export": ["export", str(folder), "--format", "senteval", "--out", str(tmp / "exp")],
        "evaluate": [
            "evaluate", str(folder), "--config", SN, "--encoder", "random", "--no-progress",
            "--seeds", "1", "--out", str(tmp / "res"),
        ],
        "publish": ["publish", str(folder), "--repo-id", "org/name", "--dry-run"],
    }[command]  # fmt: skip


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("case", list(REPRODUCERS))
def test_validate_lists_the_boundary_line(
    case: str, copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = REPRODUCERS[case](copy)
    assert main(["validate", str(copy)]) == 1
    err = capsys.readouterr().err
    assert f"{copy}: {reason}" in err.splitlines(), err


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", list(REPRODUCERS))
def test_every_command_refuses_with_validates_line(
    case: str,
    command: str,
    copy: Path,
    valid: Path,
    tmp_path: Path,
    hf_offline: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reason = REPRODUCERS[case](copy)
    assert main(_args(command, copy, valid, tmp_path)) == 2
    line = _one_error(capsys)
    assert line.endswith(f": error: {reason}"), line
    assert not (tmp_path / "exp").exists() and not (tmp_path / "res").exists()


@pytest.mark.parametrize("case", list(REPRODUCERS))
def test_load_raises_the_same_line_as_its_own_class(case: str, copy: Path) -> None:
    reason = REPRODUCERS[case](copy)
    with pytest.raises(OutsideFolderError) as info:
        polyprobe.load(copy)
    assert str(info.value) == reason
    assert isinstance(info.value, ValueError) and isinstance(info.value, DatasetFolderError)


def test_the_dataset_files_are_exactly_the_card_s(copy: Path) -> None:
    """What publish uploads: README, every file the configs name, report.json, the plots;
    a stray regular file is no part of it (and publish lists it as skipped)."""
    (copy / "notes.txt").write_text("not data", encoding="utf-8")
    folder = open_folder(copy)
    files = folder.files()
    assert "notes.txt" not in files and "notes.txt" in folder.tree
    data = sorted(p.relative_to(copy).as_posix() for p in (copy / "data").rglob("*.parquet"))
    plots = sorted(p.relative_to(copy).as_posix() for p in (copy / "plots").iterdir())
    assert files == sorted([README, "report.json", *data, *plots])
    assert split_file(SN, "test") in files and plots


def test_publish_plan_skips_a_file_that_is_no_part_of_the_dataset(
    copy: Path, hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    (copy / "notes.txt").write_text("not data", encoding="utf-8")
    assert main(["publish", str(copy), "--repo-id", "org/name", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "  skip    notes.txt  (in the folder, not part of the dataset)" in out
    assert not any(line.startswith("  add     notes.txt") for line in out.splitlines())


# ---------------------------------------------------------------------------------------------
# hostile cards: refused fast, before any value is built


def _edit_front_matter(folder: Path, extra: str) -> None:
    readme = folder / README
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    readme.write_text("---\n" + extra + text[4:], encoding="utf-8")


def _huge(folder: Path) -> str:
    """A front matter of 55 MB: refused without reading past the limit."""
    _edit_front_matter(folder, f"padding: {'x' * 55_000_000}\n")
    return (
        f"{folder / README}: the YAML front matter is over the card limit of "
        f"{MAX_FRONT_MATTER_BYTES:,} bytes"
    )


def _just_over(folder: Path) -> str:
    """Closed within the searched head, but over the limit in bytes (two-byte characters)."""
    _edit_front_matter(folder, f"padding: {'é' * (MAX_FRONT_MATTER_BYTES // 2 + 10)}\n")
    return (
        f"{folder / README}: the YAML front matter is over the card limit of "
        f"{MAX_FRONT_MATTER_BYTES:,} bytes"
    )


def _billion_laughs(folder: Path) -> str:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 9):  # 10**9 leaves
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]")
    _edit_front_matter(folder, "\n".join(lines) + "\n")
    return (
        f"{folder / README}: the YAML front matter expands to more than 2,000,000 values "
        "(aliases counted as the copies they stand for), over the card limit"
    )


def _too_many_configs(folder: Path) -> str:
    entries = "".join(
        f"- config_name: c{i}\n  data_files:\n  - split: test\n    path: x{i}.parquet\n"
        for i in range(MAX_CONFIGS + 1)
    )
    readme = folder / README
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.replace("configs:\n", "configs:\n" + entries, 1), encoding="utf-8")
    return (
        f"{readme}: the card lists {MAX_CONFIGS + len(open_configs(text)) + 1:,} configs, "
        f"over the card limit of {MAX_CONFIGS:,}"
    )


def open_configs(text: str) -> list[str]:
    """The config names of the card text before the edit (read the slow, plain way)."""
    import yaml

    return [c["config_name"] for c in yaml.safe_load(text.split("\n---\n")[0][4:])["configs"]]


def _deep(folder: Path) -> str:
    _edit_front_matter(folder, "deep: " + "[" * 200 + "]" * 200 + "\n")
    return (
        f"{folder / README}: the YAML front matter nests deeper than 64 levels, over the card limit"
    )


CARDS: dict[str, Callable[[Path], str]] = {
    "55 MB front matter": _huge,
    "front matter just over in bytes": _just_over,
    "billion laughs": _billion_laughs,
    "too many configs": _too_many_configs,
    "deep nesting": _deep,
}


@pytest.mark.parametrize("case", list(CARDS))
def test_hostile_cards_are_refused_fast_by_every_command(
    case: str,
    copy: Path,
    valid: Path,
    tmp_path: Path,
    hf_offline: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused before any YAML value is built (what made a billion-laughs card take
    minutes): the loader's constructor is never called on a card refused by its size, its
    aliases or its depth (4,097 configs are a small document, counted once built). No
    wall-clock limit: these machines are shared, and a limit measures the load."""
    from polyprobe.cards import boundary

    reason = CARDS[case](copy)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a value of the hostile card was built")

    with monkeypatch.context() as patched:
        if case != "too many configs":
            patched.setattr(boundary._LOADER, "construct_document", never)
        with pytest.raises(CardError) as info:
            open_folder(copy)
    assert str(info.value) == reason
    for command in ["validate", *COMMANDS]:
        args = ["validate", str(copy)] if command == "validate" else None
        assert main(args or _args(command, copy, valid, tmp_path)) == 2, command
        line = _one_error(capsys)
        assert line.endswith(f": error: {reason}"), (command, line)
    with pytest.raises(CardError):
        polyprobe.load(copy)


# ---------------------------------------------------------------------------------------------
# validate and evaluate agree on a null text


def _null_sentence(folder: Path) -> tuple[Path, str]:
    path = folder / split_file(SN, "test")
    table = pq.read_table(path)
    i = table.schema.get_field_index("sentence")
    values = table.column("sentence").to_pylist()
    values[0] = None
    table = table.set_column(i, table.schema.field(i), pa.array(values, pa.string()))
    pq.write_table(table, path, **PARQUET_OPTIONS)
    return path, str(table.column("id")[0].as_py())


def test_a_null_text_is_refused_by_validate_and_by_evaluate(
    copy: Path, tmp_path: Path, hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path, row_id = _null_sentence(copy)
    assert main(["validate", str(copy)]) == 1
    rel = split_file(SN, "test")
    assert capsys.readouterr().err.splitlines() == [
        f"{copy}: config {SN!r} split 'test' ({rel}): column 'sentence' is null in 1 row(s) "
        f"(first: row id {row_id!r}); every row needs its inputs and label (evaluate refuses "
        "such a split)",
        f"{copy}: 1 problem(s)",
    ]
    assert main(_args("evaluate", copy, copy, tmp_path)) == 2
    line = _one_error(capsys)
    assert f"{path}: row 1: input column 'sentence' is null" in line, line


def test_the_valid_folder_passes_every_command(
    valid: Path, tmp_path: Path, hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checks refuse what they should and only that: the untouched folder passes."""
    assert main(["validate", str(valid)]) == 0
    assert main(["info", str(valid)]) == 0
    assert main(["diff", str(valid), str(valid)]) == 0
    assert main(_args("export", valid, valid, tmp_path)) == 0
    assert main(_args("publish", valid, valid, tmp_path)) == 0
    assert polyprobe.load(valid, SN)["test"].num_rows > 0


def test_evaluate_holds_the_boundary_on_a_folder_without_a_card(
    valid: Path, tmp_path: Path, hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """``evaluate`` also reads plain parquet folders (no card, as ``datasets`` does): a link
    in one is refused all the same, before any row is read."""
    plain = tmp_path / "plain"
    (plain / "data").mkdir(parents=True)
    shutil.copy(valid / split_file(SN, "train"), plain / "data" / "train-00000-of-00001.parquet")
    target = _fifo(tmp_path / "elsewhere" / "test.parquet")
    (plain / "data" / "test-00000-of-00001.parquet").symlink_to(target)
    args = ["evaluate", str(plain), "--encoder", "random", "--no-progress", "--seeds", "1"]
    assert main([*args, "--out", str(tmp_path / "res")]) == 2
    link = plain / "data" / "test-00000-of-00001.parquet"
    assert _one_error(capsys) == f"polyprobe evaluate: error: {link}: {LINK}"
    assert not (tmp_path / "res").exists()


def test_evaluate_reads_a_card_without_configs_as_datasets_does(
    valid: Path, tmp_path: Path, hf_offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plain folder whose README has front matter but no ``configs`` (a licence only):
    ``datasets`` infers the config from the files, and so ``evaluate`` still reads it, while
    ``validate`` refuses it as no polyprobe folder."""
    plain = tmp_path / "plain"
    (plain / "data").mkdir(parents=True)
    for split in ("train", "test"):
        shutil.copy(
            valid / split_file(SN, split), plain / "data" / f"{split}-00000-of-00001.parquet"
        )
    (plain / README).write_text("---\nlicense: cc-by-4.0\n---\n# plain\n", encoding="utf-8")
    args = ["evaluate", str(plain), "--encoder", "random", "--no-progress", "--seeds", "1"]
    assert main([*args, "--out", str(tmp_path / "res")]) == 0, capsys.readouterr().err
    assert list((tmp_path / "res").rglob("*.json"))
    assert main(["validate", str(plain)]) == 1
    assert f"{plain}: {plain / README}: no 'configs' list in the YAML front matter" in (
        capsys.readouterr().err.splitlines()
    )
