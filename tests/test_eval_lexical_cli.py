"""``--top-n`` reaches the lexical evaluation (the word space's size is a documented knob of
the command, not only of the Python API)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polyprobe.evaluation.lexical as lexical
from polyprobe.evaluation import api
from polyprobe.evaluation.cli import add_evaluate_parser
from polyprobe.evaluation.data import Card
from polyprobe.evaluation.plan import LEXICAL, DatasetPlan


def _capture(monkeypatch: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    plan = DatasetPlan("folder", Card({}, None), {"simlex": LEXICAL})
    monkeypatch.setattr(api, "plan_datasets", lambda datasets, config, revision: [plan])
    monkeypatch.setattr(lexical, "evaluate_lexical", lambda *a, **k: seen.update(k) or [])
    return seen


def test_top_n_reaches_the_lexical_evaluation(monkeypatch: Any, tmp_path: Path) -> None:
    seen = _capture(monkeypatch)
    api.evaluate("folder", encoders=["random"], cache=tmp_path / "cache", top_n=123)
    assert seen["top_n"] == 123


def test_the_command_takes_top_n(tmp_path: Path) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_evaluate_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["evaluate", "folder", "--encoder", "random", "--out", str(tmp_path), "--top-n", "5000"]
    )
    assert args.top_n == 5000
    default = parser.parse_args(["evaluate", "folder", "--encoder", "random", "--out", str(tmp_path)])
    assert default.top_n == 200_000
