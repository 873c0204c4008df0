"""Treebank discovery and provenance on the shared treebanks and on hand-made folders.

Why: the card's licence decides whether a dataset may be published (and whether NC and SA
sources may be merged), and its checksums and version are what make a build reproducible."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import all_treebanks

from polyprobe.errors import InputError, PolyprobeError, UsageError
from polyprobe.loaders.sources import (
    TreebankSource,
    detect_license_text,
    discover,
    git_head,
    normalize_license,
    read_sources,
    sha256_file,
    treebank_metadata,
)

EXPECTED_LICENSES = {
    "UD_Czech-FicTree": "CC-BY-NC-SA-4.0",
    "UD_Czech-PUD": "CC-BY-SA-4.0",
    "UD_English-EWT": "CC-BY-SA-4.0",
    "UD_English-PUD": "CC-BY-SA-3.0",
    "UD_Finnish-PUD": "CC-BY-SA-4.0",
    "UD_Finnish-TDT": "CC-BY-SA-4.0",
    "UD_Georgian-GLC": "CC-BY-SA-4.0",
    "UD_German-GSD": "CC-BY-SA-4.0",
    "UD_German-PUD": "CC-BY-SA-3.0",
    "UD_Russian-GSD": "CC-BY-SA-4.0",
    "UD_Russian-PUD": "CC-BY-SA-3.0",
    "UD_Slovenian-SSJ": "CC-BY-SA-4.0",
    "UD_Spanish-GSD": "CC-BY-SA-4.0",
    "UD_Spanish-PUD": "CC-BY-SA-3.0",
    "UD_Turkish-IMST": "CC-BY-NC-SA-4.0",
    "UD_Turkish-PUD": "CC-BY-SA-3.0",
}


def test_every_shared_treebank(ud_dir: Path) -> None:
    names = all_treebanks()
    assert set(EXPECTED_LICENSES) <= set(names)
    sources = discover([ud_dir / n for n in names])
    assert [s.name for s in sources] == names
    for s in sources:
        assert isinstance(s, TreebankSource)
        assert s.license == EXPECTED_LICENSES.get(s.name, s.license) != "unknown", s.name
        assert s.version.startswith("v"), s.name  # no git checkout: its README changelog
        assert s.splits and s.splits <= {"train", "dev", "test"}
        assert set(s.checksums) == {Path(f.path).name for f in s.files}
        assert all(len(v) == 64 for v in s.checksums.values())
        order = [f.split for f in s.files]
        assert order == sorted(order, key=["train", "dev", "test"].index)
        assert all(f.treebank == s.name for f in s.files)


def test_splits_discovered(ud_dir: Path) -> None:
    ewt, cs_pud, de_gsd = discover(
        [ud_dir / "UD_English-EWT", ud_dir / "UD_Czech-PUD", ud_dir / "UD_German-GSD"]
    )
    assert ewt.splits == {"train", "dev", "test"}
    assert [(Path(f.path).name, f.split) for f in ewt.files] == [
        ("en_ewt-ud-train.conllu.gz", "train"),
        ("en_ewt-ud-dev.conllu", "dev"),
        ("en_ewt-ud-test.conllu", "test"),
    ]
    assert cs_pud.splits == {"test"}
    assert de_gsd.splits == {"dev", "test"}


def test_checksums_are_stable_and_of_the_stored_bytes(ud_dir: Path) -> None:
    a = discover([ud_dir / "UD_English-EWT"])[0]
    b = discover([ud_dir / "UD_English-EWT"])[0]
    assert a.checksums == b.checksums
    import hashlib

    gz = ud_dir / "UD_English-EWT" / "en_ewt-ud-train.conllu.gz"
    assert a.checksums[gz.name] == hashlib.sha256(gz.read_bytes()).hexdigest()
    assert sha256_file(gz) == a.checksums[gz.name]


def test_overrides(ud_dir: Path) -> None:
    (s,) = discover(
        [ud_dir / "UD_Turkish-IMST"],
        license_overrides={"UD_Turkish-IMST": "CC BY-SA 4.0"},
        source_version="r2.16",
    )
    assert s.license == "CC-BY-SA-4.0" and s.version == "r2.16"
    with pytest.raises(UsageError, match="UD_Turkish-IMTS"):
        discover([ud_dir / "UD_Turkish-IMST"], license_overrides={"UD_Turkish-IMTS": "MIT"})
    assert treebank_metadata(ud_dir / "UD_English-PUD") == ("CC-BY-SA-3.0", "v2.6")
    assert treebank_metadata(ud_dir / "UD_English-PUD", source_version="v1") == (
        "CC-BY-SA-3.0",
        "v1",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CC BY-SA 4.0", "CC-BY-SA-4.0"),
        ("CC BY-NC-SA 4.0", "CC-BY-NC-SA-4.0"),
        ("CC BY-NC-SA 3.0", "CC-BY-NC-SA-3.0"),
        ("CC BY 4.0", "CC-BY-4.0"),
        ("CC BY-NC 4.0", "CC-BY-NC-4.0"),
        ("CC0 1.0", "CC0-1.0"),
        ("GNU GPL 3.0", "GPL-3.0"),
        ("LGPL-LR", "LGPL-LR"),
        ("  **CC BY-SA 4.0**  ", "CC-BY-SA-4.0"),
        ("", "unknown"),
    ],
)
def test_normalize_license(text: str, expected: str) -> None:
    assert normalize_license(text) == expected


def test_license_file_fallback(ud_dir: Path, tmp_path: Path) -> None:
    for name, expected in [
        ("UD_English-EWT", "CC-BY-SA-4.0"),  # full legal text
        ("UD_English-PUD", "CC-BY-SA-3.0"),  # URL first
        ("UD_Czech-FicTree", "CC-BY-NC-SA-4.0"),  # one-line statement
    ]:
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(ud_dir / name / "LICENSE.txt", folder / "LICENSE.txt")
        (folder / "xx-ud-test.conllu").write_text("1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n\n")
        assert treebank_metadata(folder)[0] == expected, name
    assert detect_license_text("no licence here") is None
    bare = tmp_path / "bare"
    bare.mkdir()
    assert treebank_metadata(bare) == ("unknown", "unknown")


def test_readme_license_line_wins_over_prose(ud_dir: Path) -> None:
    # FicTree's prose says CC BY-NC-SA 3.0; its machine-readable line says 4.0
    assert treebank_metadata(ud_dir / "UD_Czech-FicTree")[0] == "CC-BY-NC-SA-4.0"


def _fake_repo(folder: Path, sha: str, packed: bool) -> None:
    git = folder / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    if packed:
        (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{sha} refs/heads/main\n")
    else:
        (git / "refs" / "heads" / "main").write_text(sha + "\n")


@pytest.mark.parametrize("packed", [False, True])
def test_version_from_git_head(tmp_path: Path, packed: bool) -> None:
    sha = "15d613d8" + "0" * 32
    folder = tmp_path / "UD_X-Y"
    folder.mkdir()
    (folder / "xx_y-ud-test.conllu").write_text("1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n\n")
    _fake_repo(folder, sha, packed)
    assert git_head(folder) == sha
    (s,) = discover([folder], source_version="ignored")
    assert s.version == sha


def test_detached_head_and_parent_repo_ignored(tmp_path: Path) -> None:
    sha = "a" * 40
    outer = tmp_path / "outer"
    _fake_repo(outer, sha, packed=False)
    inner = outer / "UD_X-Y"
    inner.mkdir()
    assert git_head(inner) is None  # a parent repository says nothing about this folder
    (inner / ".git").mkdir()
    (inner / ".git" / "HEAD").write_text("b" * 40 + "\n")
    assert git_head(inner) == "b" * 40


def test_single_files_and_errors(ud_dir: Path, tmp_path: Path) -> None:
    f = ud_dir / "UD_German-GSD" / "de_gsd-ud-dev.conllu"
    (s,) = discover([f])
    assert s.name == "de_gsd-ud-dev" and s.splits == {"dev"} and s.license == "CC-BY-SA-4.0"
    loose = tmp_path / "mine.conllu"
    loose.write_text("1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n\n")
    (s,) = discover([loose])
    assert s.splits == set() and s.files[0].split is None and s.license == "unknown"
    assert [x.source.split for x in read_sources([s])] == [None]

    with pytest.raises(InputError, match="no such file"):
        discover([tmp_path / "missing"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no .conllu"):
        discover([empty])
    with pytest.raises(InputError, match="pass them instead"):
        discover([ud_dir])
    with pytest.raises(PolyprobeError, match="both named"):
        discover([ud_dir / "UD_Czech-PUD", ud_dir / "UD_Czech-PUD"])
    dup = tmp_path / "UD_Dup"
    dup.mkdir()
    (dup / "a-ud-test.conllu").write_text("1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n\n")
    (dup / "a-ud-test.conllu.gz").write_bytes(b"")
    with pytest.raises(InputError, match="keep one"):
        discover([dup])
