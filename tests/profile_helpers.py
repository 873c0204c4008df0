"""What the profile tests of every family share (``test_family_profiles*.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from polyprobe.errors import PolyprobeError


def card(folder: Path) -> dict[str, Any]:
    """The card's ``polyprobe:`` block."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1])["polyprobe"]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def refuses(build: Any, tmp_path: Path, table: str, key: str, listed: str) -> None:
    """A profile with ``key`` misspelt in ``table`` is refused, naming it and the valid keys,
    and nothing is written."""
    bad = write(tmp_path / f"bad-{key}.toml", f"[{table}]\n{key} = 1\n")
    with pytest.raises(PolyprobeError, match=rf"{key}.*valid options: .*{listed}"):
        build(tmp_path / f"x-{key}", bad)
    assert not (tmp_path / f"x-{key}").exists()
