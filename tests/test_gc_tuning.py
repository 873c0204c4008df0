"""Full garbage collections are held off while a build runs, and only then."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from polyprobe.builders.gc_tuning import full_collections_deferred
from polyprobe.builders.pipeline import build_ud


def test_thresholds_restored_even_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_collections_deferred():
        assert gc.get_threshold()[:2] == before[:2]
        assert gc.get_threshold()[2] > 10**6
        raise RuntimeError("boom")
    assert gc.get_threshold() == before


def test_young_collections_still_free_cycles() -> None:
    class Node:
        pass

    with full_collections_deferred():
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        del a, b
        assert gc.collect(0) + gc.collect(1) >= 2  # the young cycle is found


def test_a_build_runs_without_full_collections(ud_dir: Path, tmp_path: Path) -> None:
    full: list[int] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    before = gc.get_threshold()
    gc.callbacks.append(watch)
    try:
        # Lower the full-collection threshold so that, were it in force, the build's growth
        # would trigger full collections many times over.
        gc.set_threshold(before[0], 1, 1)
        build_ud([ud_dir / "UD_English-PUD"], lang="en", out=tmp_path / "pud", jobs=1)
        assert full == []
        assert gc.get_threshold() == (before[0], 1, 1)
    finally:
        gc.callbacks.remove(watch)
        gc.set_threshold(*before)
