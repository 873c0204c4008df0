"""``polyprobe.load`` raises polyprobe's own classes in every bad case, each a subclass of the
standard one a caller would catch, with the line ``validate`` lists (issue 36); and the
commands around builds that ended in a traceback or a misleading line now end in one line,
exit 2: ``translate`` with a translator that raises, ``build trec --translation`` with a path
that names no file, ``report`` on JSON of another schema."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hub_standin import HubStandIn, point_clients_at
from test_folder_writer import write_folder

import polyprobe
from polyprobe.cards.card import README
from polyprobe.cards.folder import split_file
from polyprobe.cli import main
from polyprobe.errors import (
    CardNotFoundError,
    DataFileError,
    FolderNotFoundError,
    NotAFolderError,
    OutsideFolderError,
    PolyprobeError,
)
from polyprobe.hub import ReleaseNotFoundError, UnknownConfigError

SN = "subject_number"


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("load") / "ds")


@pytest.fixture
def copy(valid: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(valid, tmp_path / "ds"))


def _raised(source: str | Path, *args: str) -> Exception:
    with pytest.raises(PolyprobeError) as info:
        polyprobe.load(source, *args)
    assert "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize("spelling", ["path", "absolute", "relative", "dotted", "deep"])
def test_a_missing_local_path(spelling: str, tmp_path: Path, monkeypatch) -> None:
    """Not huggingface_hub's "Repo id must be in the form ...": no such folder."""
    monkeypatch.chdir(tmp_path)
    source: str | Path = {
        "path": tmp_path / "nope",
        "absolute": str(tmp_path / "nope"),
        "relative": "nope/ds/x",
        "dotted": "./nope",
        "deep": "a/b/c",
    }[spelling]
    error = _raised(source)
    assert isinstance(error, FolderNotFoundError) and isinstance(error, FileNotFoundError)
    assert str(error) == f"{Path(source)}: no such folder"


def test_a_file_given_as_the_folder(copy: Path) -> None:
    error = _raised(copy / README)
    assert isinstance(error, NotAFolderError) and isinstance(error, NotADirectoryError)
    assert str(error) == f"{copy / README}: not a folder"


def test_a_folder_without_a_card(copy: Path) -> None:
    (copy / README).unlink()
    error = _raised(copy)
    assert isinstance(error, CardNotFoundError) and isinstance(error, FileNotFoundError)
    assert str(error) == f"{copy / README}: missing (a dataset folder needs a README.md card)"


def test_data_files_outside_the_folder(copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(copy / split_file(SN, "test"), elsewhere / "x.parquet")
    readme = copy / README
    text = readme.read_text(encoding="utf-8")
    readme.write_text(text.replace(split_file(SN, "test"), "../elsewhere/x.parquet"), "utf-8")
    error = _raised(copy, SN)
    assert isinstance(error, OutsideFolderError) and isinstance(error, ValueError)
    assert str(error) == (
        f"{readme}: config {SN!r} split 'test': data file {copy}/../elsewhere/x.parquet points "
        "outside the folder"
    )


def test_a_symlinked_data_file(copy: Path, tmp_path: Path) -> None:
    path = copy / split_file(SN, "test")
    shutil.move(path, tmp_path / "outside.parquet")
    path.symlink_to(tmp_path / "outside.parquet")
    error = _raised(copy, SN)
    assert isinstance(error, OutsideFolderError) and isinstance(error, ValueError)
    assert str(error).startswith(f"{path}: is a symbolic link;")


def test_a_truncated_parquet(copy: Path) -> None:
    path = copy / split_file(SN, "test")
    path.write_bytes(path.read_bytes()[:300])
    error = _raised(copy, SN)
    assert isinstance(error, DataFileError) and isinstance(error, ValueError)
    assert str(error).startswith(
        f"{copy / README}: config {SN!r} split 'test': data file {path}: not a readable "
        "parquet file ("
    )


def test_an_unknown_config(valid: Path) -> None:
    error = _raised(valid, "no_such_task")
    assert isinstance(error, UnknownConfigError) and isinstance(error, ValueError)
    assert str(error).startswith(f"{valid}: no config 'no_such_task'; the card lists {SN}")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubStandIn]:
    server = HubStandIn(max_requests=300, deadline_s=60).start()
    point_clients_at(server, monkeypatch, tmp_path, "hf_polyprobeFAKEtoken0123456789")
    try:
        yield server
    finally:
        server.stop()


def test_hub_ids_that_lead_nowhere(hub: HubStandIn, valid: Path) -> None:
    """A Hub id stays a Hub id (``org/name`` is not taken for a missing folder), and what
    the Hub answers is polyprobe's FileNotFoundError, in one line."""
    error = _raised("polyprobe-test/absent")
    assert isinstance(error, ReleaseNotFoundError) and isinstance(error, FileNotFoundError)
    assert str(error).startswith("polyprobe-test/absent@main: no such dataset on the Hub")
    assert main(["publish", str(valid), "--repo-id", "polyprobe-test/there"]) == 0
    with pytest.raises(ReleaseNotFoundError) as info:
        polyprobe.load("polyprobe-test/there", SN, version="9.9.9")
    assert (
        str(info.value) == "polyprobe-test/there@v9.9.9: the dataset has no tag or branch 'v9.9.9'"
    )


# ---------------------------------------------------------------------------------------------
# one line, exit 2, for the commands around builds


def raising_translator(texts: list[str]) -> list[str]:
    raise ConnectionError("the translation API is down\n(and a second line of detail)")


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def test_translate_with_a_translator_that_raises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # this module is importable by its name: pytest put tests/ on sys.path to import it
    # (monkeypatch.syspath_prepend would call into pkg_resources, broken in some venvs)
    src = tmp_path / "in.txt"
    src.write_text("a b\nc d\ne f\n", encoding="utf-8")
    out = tmp_path / "out.tsv"
    args = ["translate", str(src), "--translator", f"{__name__}:raising_translator"]
    assert main([*args, "--out", str(out), "--cache", str(tmp_path / "c")]) == 2
    assert _one_error(capsys) == (
        f"polyprobe: error: translator callable:{__name__}:raising_translator raised "
        "ConnectionError: the translation API is down on a batch of 3 text(s); the batches "
        "translated before it are cached, so running the command again resumes there"
    )
    assert not out.exists() and not Path(f"{out}.json").exists()


@pytest.mark.parametrize("given", ["", ".", "missing.tsv", "folder"])
def test_build_trec_translation_that_names_no_file(
    given: str,
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    out = tmp_path / "trec-de"
    args = ["build", "trec", str(data_dir / "trec"), "--lang", "de", "--out", str(out)]
    assert main([*args, f"--translation={given}"]) == 2
    want = {
        "": ".: is a folder, not a file",
        ".": ".: is a folder, not a file",
        "missing.tsv": "missing.tsv: no such file",
        "folder": "folder: is a folder, not a file",
    }[given]
    assert _one_error(capsys) == f"polyprobe: error: {want}"
    assert not out.exists()
