"""Benchmark group means in ``polyprobe report``: hand-written results in the schema of
``evaluation/results.py``, means computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polyprobe.evaluation.groups import GROUPS, group_means
from polyprobe.evaluation.report import report


def result(
    task: str,
    accuracy: float,
    *,
    config: str | None = None,
    encoder: str = "random",
    level: str = "sentence",
    task_type: str = "probing",
    dataset: str = "ud-en",
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "dataset": {
            "id": f"/x/{dataset}",
            "name": dataset,
            "revision": None,
            "fingerprint": "f" * 32,
            "version": "0.1.0",
            "languages": ["en"],
        },
        "config": config or task,
        "task": task,
        "level": level,
        "task_type": task_type,
        "split_sizes": {"train": 100, "validation": 20, "test": 50},
        "encoder": {
            "spec": encoder,
            "id": encoder,
            "revision": None,
            "pooling": None,
            "layer": None,
        },
        "probe": {"name": "lr", "params": {}, "grid": {}, "chosen": []},
        "protocol": "split",
        "seeds": [0],
        "metrics": {
            "accuracy": {"mean": accuracy, "std": None, "ci95": None, "per_seed": [accuracy]},
            "macro_f1": {"mean": accuracy, "std": None, "ci95": None, "per_seed": [accuracy]},
            "per_class_f1": {},
        },
        "majority": {"label": "A", "accuracy": 0.5},
        "control": {"status": "not applicable", "reason": "no key"},
        "cache": {"hits": 0, "misses": 0},
        "runtime_seconds": {"encode": 0.0, "probe": 0.0, "total": 0.0},
        "versions": {},
    }


@pytest.fixture
def results() -> list[dict[str, Any]]:
    return [
        result("tense", 0.8),
        result("subject_number", 0.7),
        result("object_number", 0.6),
        result("odd_man_out", 0.5),
        result("tree_depth", 0.3),
        # a variant: its own row, never mixed into the recommended configs' mean
        result("tense", 0.9, config="tense.natural-full"),
        # LINSPECTOR's word-level tense (a UniMorph set): not SentEval's sentence tense
        result("tense", 0.4, level="word", dataset="um-en"),
        result("case", 0.6, level="word", dataset="um-en"),
        result("discourse_coherence", 0.55, level="discourse"),
        result("sentence_position", 0.35, level="discourse"),
        result("subject_number", 0.9, encoder="borep"),
    ]


def _entry(entries: list[dict[str, Any]], **keys: Any) -> dict[str, Any]:
    found = [e for e in entries if all(e[k] == v for k, v in keys.items())]
    assert len(found) == 1, (keys, found)
    return found[0]


def test_hand_computed_means(results: list[dict[str, Any]]) -> None:
    entries = group_means(results)
    sem = _entry(entries, benchmark="SentEval", group="semantic", variant="", encoder="random")
    # (0.8 + 0.7 + 0.6 + 0.5) / 4; coordination_inversion is missing
    assert sem["mean"] == pytest.approx(0.65)
    assert (sem["present"], sem["of"]) == (4, 5)
    assert sem["tasks"] == ["tense", "subject_number", "object_number", "odd_man_out"]
    syn = _entry(entries, benchmark="SentEval", group="syntactic", encoder="random", variant="")
    assert (syn["mean"], syn["present"], syn["of"]) == (pytest.approx(0.3), 1, 3)
    assert not [e for e in entries if e["group"] == "surface"]
    nat = _entry(entries, group="semantic", variant=".natural-full")
    assert (nat["mean"], nat["present"]) == (pytest.approx(0.9), 1)
    lin = _entry(entries, benchmark="LINSPECTOR", group="type-level probing", dataset="um-en")
    assert (lin["mean"], lin["present"], lin["of"]) == (pytest.approx(0.5), 2, 15)
    disco = _entry(entries, benchmark="DiscoEval")
    assert (disco["mean"], disco["present"], disco["of"]) == (pytest.approx(0.45), 2, 5)
    lp = _entry(entries, benchmark="Spanish SentEval", group="LP", encoder="random", variant="")
    assert (lp["mean"], lp["present"], lp["of"]) == (pytest.approx(2.9 / 5), 5, 10)
    borep = _entry(entries, benchmark="SentEval", group="semantic", encoder="borep")
    assert (borep["mean"], borep["present"]) == (pytest.approx(0.9), 1)


def test_report_writes_the_table(results: list[dict[str, Any]], tmp_path: Path) -> None:
    report(results, tmp_path)
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "## Benchmark group means" in md
    assert "| ud-en | recommended | random | lr | – | 0.300 (1/3) | 0.650 (4/5) |" in md
    assert "| ud-en | .natural-full | random | lr | – | – | 0.900 (1/5) |" in md
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    means = data["group_means"]
    assert _entry(means, group="semantic", variant="", encoder="random")["mean"] == 0.65


def test_groups_follow_senteval_table_2() -> None:
    senteval = {g.name: g.tasks for g in GROUPS if g.benchmark == "SentEval"}
    assert senteval == {
        "surface": ("sentence_length_senteval", "word_content"),
        "syntactic": ("tree_depth", "top_dependencies", "bigram_shift"),
        "semantic": (
            "tense",
            "subject_number",
            "object_number",
            "odd_man_out",
            "coordination_inversion",
        ),
    }
    assert all(g.source for g in GROUPS)
