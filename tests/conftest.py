"""Shared fixtures. Real data comes from ``POLYPROBE_DATA`` (default ``../shared/data``); under
``CI=true`` its absence is a failure, never a skip."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker gets a temp dir of its own: tests that check a build
    left nothing behind in the temp dir (spools, shard tables) must not see another worker's
    build at work. Removed when the worker ends."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix=f"polyprobe-tests-{worker}-"))
    os.environ["TMPDIR"] = str(base)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    config.add_cleanup(lambda: shutil.rmtree(base, ignore_errors=True))


def _data_root() -> Path:
    return Path(os.environ.get("POLYPROBE_DATA", REPO.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    root = _data_root()
    if not (root / "MANIFEST.md").is_file():
        message = f"shared data not found at {root} (set POLYPROBE_DATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return root


@pytest.fixture(scope="session")
def ud_dir(data_dir: Path) -> Path:
    return data_dir / "ud"


def all_treebanks() -> list[str]:
    root = _data_root() / "ud"
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@pytest.fixture
def hf_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``datasets`` offline, with its cache in the test's folder (nothing downloaded, nothing
    left in the user's cache)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def config_rows(folder: Path, config: str) -> dict[str, list[dict[str, Any]]]:
    """split -> rows of one config of a built folder, read from its parquet files as written
    (no ``datasets`` in between: label ids stay ids); a split the config lacks is absent."""
    import pyarrow.parquet as pq

    from polyprobe.cards.folder import split_file

    out = {}
    for split in ("train", "validation", "test"):
        path = folder / split_file(config, split)
        if path.is_file():
            out[split] = pq.read_table(path).to_pylist()
    return out


def needs(module: str) -> Any:
    """Import an optional dependency the ``test`` extra installs. Missing, it skips a local
    run (a developer without the extra) but fails under ``CI=true``, like the shared data."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)
