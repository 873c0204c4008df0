"""Probing–downstream correlation on synthetic results with a known answer."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from polyprobe.errors import InputError
from polyprobe.evaluation.cli_reports import add_correlate_parser
from polyprobe.evaluation.correlate import (
    correlate,
    correlation_markdown,
    encoder_key,
    load_results,
    task_label,
    write_correlation,
)


def make_result(
    *,
    task: str,
    config: str,
    encoder: str,
    accuracy: float,
    layer: int | None = None,
    task_type: str = "probing",
    dataset: str = "ud-en",
    languages: tuple[str, ...] = ("en",),
    probe: str = "lr",
    control: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A results dict in the evaluation core's schema (version 1)."""
    return {
        "schema_version": 1,
        "dataset": {
            "id": dataset,
            "revision": None,
            "fingerprint": "f" * 32,
            "version": "0.1.0",
            "languages": list(languages),
        },
        "config": config,
        "task": task,
        "level": "sentence",
        "task_type": task_type,
        "split_sizes": {"train": 100, "test": 50},
        "encoder": {
            "spec": encoder,
            "id": encoder,
            "revision": None,
            "pooling": "mean",
            "layer": layer,
        },
        "probe": {"name": probe, "params": {}, "grid": {"C": [0.25, 8]}, "chosen": {"C": 1}},
        "protocol": "split",
        "seeds": [0, 1, 2],
        "metrics": {
            "accuracy": {
                "mean": accuracy,
                "std": 0.01,
                "ci95": [accuracy - 0.02, accuracy + 0.02],
                "per_seed": [accuracy] * 3,
            },
            "macro_f1": {"mean": accuracy - 0.05, "std": 0.01, "ci95": [0, 1], "per_seed": []},
            "per_class_f1": {},
        },
        "majority": {"label": "A", "accuracy": 0.5},
        "control": control or {"status": "not applicable", "reason": "lexically disjoint splits"},
        "cache": {"hits": 0, "misses": 10},
        "runtime_seconds": {"total": 1.0},
        "versions": {"polyprobe": "0.1.0"},
    }


def synthetic(n_encoders: int) -> list[dict[str, Any]]:
    """Probing ``bigram_shift`` and TREC coarse rise together (perfect rank correlation);
    ``sentence_length`` falls while TREC rises (ρ = −1)."""
    out = []
    for i in range(n_encoders):
        enc = f"enc{i}"
        out.append(
            make_result(
                task="bigram_shift", config="bigram_shift", encoder=enc, accuracy=0.5 + 0.05 * i
            )
        )
        out.append(
            make_result(
                task="sentence_length",
                config="sentence_length",
                encoder=enc,
                accuracy=0.9 - 0.01 * i**2,
            )
        )
        out.append(
            make_result(
                task="trec-coarse",
                config="coarse",
                encoder=enc,
                accuracy=0.6 + 0.01 * i**2,  # monotone but not linear: ρ = 1, r < 1
                task_type="downstream",
                dataset="trec",
            )
        )
    return out


def pair(corr: dict, probing: str, downstream: str = "trec-coarse") -> dict:
    (group,) = corr["groups"]
    return next(
        p for p in group["pairs"] if p["probing"] == probing and p["downstream"] == downstream
    )


def test_four_encoders_are_descriptive() -> None:
    corr = correlate(synthetic(4))
    p = pair(corr, "bigram_shift")
    assert p["n_encoders"] == 4
    assert p["spearman"] == pytest.approx(1.0)
    assert 0.9 < p["pearson"] < 1.0
    assert p["inference"] == "descriptive"
    assert p["spearman_p"] is None and p["pearson_p"] is None
    assert pair(corr, "sentence_length")["spearman"] == pytest.approx(-1.0)
    md = correlation_markdown(corr)
    assert "descriptive" in md and "p=" not in md


def test_five_encoders_give_p_values() -> None:
    corr = correlate(synthetic(5))
    p = pair(corr, "bigram_shift")
    assert p["n_encoders"] == 5
    assert p["spearman"] == pytest.approx(1.0)
    assert p["inference"] == "p-values"
    assert p["spearman_p"] is not None and p["spearman_p"] < 0.05
    assert 0 <= p["pearson_p"] < 0.05
    assert "p<0.001" in correlation_markdown(corr) or "p=" in correlation_markdown(corr)


def test_layers_are_encoders_and_languages_probes_separate() -> None:
    results = []
    for layer in range(5):
        results.append(
            make_result(
                task="bigram_shift",
                config="bigram_shift",
                encoder="hf:m#all",
                layer=layer,
                accuracy=0.5 + 0.1 * layer,
            )
        )
        results.append(
            make_result(
                task="trec-coarse",
                config="coarse",
                encoder="hf:m#all",
                layer=layer,
                accuracy=0.9 - 0.1 * layer,
                task_type="downstream",
                dataset="trec",
            )
        )
    # another language and another probe must not mix into the English lr group
    results.append(
        make_result(
            task="bigram_shift", config="bigram_shift", encoder="x", accuracy=0.3, languages=("de",)
        )
    )
    results.append(
        make_result(
            task="bigram_shift",
            config="bigram_shift",
            encoder="hf:m#all",
            layer=0,
            accuracy=0.1,
            probe="mlp",
        )
    )
    assert encoder_key(results[0]) == "hf:m#0"
    corr = correlate(results)
    keys = [(g["language"], g["probe"]) for g in corr["groups"]]
    assert keys == [("de", "lr"), ("en", "lr"), ("en", "mlp")]
    en = corr["groups"][1]
    assert en["encoders"] == [f"hf:m#{i}" for i in range(5)]
    assert en["pairs"][0]["spearman"] == pytest.approx(-1.0)
    assert en["pairs"][0]["pearson"] == pytest.approx(-1.0)
    assert corr["groups"][0]["pairs"] == []  # nothing downstream in German


def test_too_few_and_constant() -> None:
    two = correlate(synthetic(2))
    assert pair(two, "bigram_shift")["inference"] == "not computed"
    flat = synthetic(4)
    for r in flat:
        if r["task"] == "bigram_shift":
            r["metrics"]["accuracy"]["mean"] = 0.7
    p = pair(correlate(flat), "bigram_shift")
    assert p["spearman"] is None and "constant" in p["reason"]


def test_conflicting_duplicates_rejected() -> None:
    results = synthetic(3)
    dup = json.loads(json.dumps(results[0]))
    dup["metrics"]["accuracy"]["mean"] = 0.123
    with pytest.raises(InputError, match="conflicts"):
        correlate([*results, dup])
    correlate([*results, json.loads(json.dumps(results[0]))])  # identical copies are fine


def test_task_label() -> None:
    assert task_label({"task": "trec-coarse", "config": "coarse"}) == "trec-coarse"
    assert task_label({"task": "subject_number", "config": "subject_number.natural-full"}) == (
        "subject_number.natural-full"
    )
    assert task_label({"task": "trec-coarse", "config": "coarse.balanced-full"}) == (
        "trec-coarse.balanced-full"
    )


def _write_results(folder: Path, results: list[dict[str, Any]]) -> None:
    for i, r in enumerate(results):
        sub = folder / r["task"]
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"r{i}.json").write_text(json.dumps(r), encoding="utf-8")


def test_load_results_and_outputs(tmp_path: Path) -> None:
    results = synthetic(5)
    _write_results(tmp_path / "res", results)
    (tmp_path / "res" / "report.json").write_text('{"not": "results"}', encoding="utf-8")
    loaded = load_results([tmp_path / "res"])
    assert len(loaded) == len(results)
    with pytest.raises(InputError, match="not a polyprobe results file"):
        load_results([tmp_path / "res" / "report.json"])
    bad = tmp_path / "v2" / "v2.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({**results[0], "schema_version": 2}), encoding="utf-8")
    with pytest.raises(InputError, match="schema_version"):
        load_results([bad])

    corr = correlate(loaded)
    out = tmp_path / "out"
    written = write_correlation(corr, out)
    names = sorted(p.name for p in written)
    assert names == ["correlation-en-lr.png", "correlation.json", "correlation.md"]
    assert (out / "correlation-en-lr.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Software" not in (out / "correlation-en-lr.png").read_bytes()
    first = {p.name: p.read_bytes() for p in written}
    write_correlation(correlate(load_results([tmp_path / "res"])), out)
    assert {p.name: p.read_bytes() for p in written} == first  # deterministic bytes
    # the output folder is not mistaken for results
    assert len(load_results([tmp_path / "res", out])) == len(results)


def test_cli_correlate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_correlate_parser(parser.add_subparsers())
    _write_results(tmp_path / "res", synthetic(5))
    args = parser.parse_args(["correlate", str(tmp_path / "res"), "--out", str(tmp_path / "o")])
    assert args.func(args) == 0
    assert "| bigram_shift |" in capsys.readouterr().out
    assert (tmp_path / "o" / "correlation.json").is_file()
    # probing only: nothing to pair → a failed check
    _write_results(tmp_path / "probing", [r for r in synthetic(5) if r["task_type"] == "probing"])
    args = parser.parse_args(["correlate", str(tmp_path / "probing")])
    assert args.func(args) == 1
    args = parser.parse_args(["correlate", str(tmp_path / "missing.json")])
    assert args.func(args) == 2


def test_a_scored_downstream_set_enters_with_its_spearman() -> None:
    """STS-B as the downstream side: no accuracy, its test Spearman instead (it stopped the
    command with "missing metrics.accuracy.mean")."""
    results = [r for r in synthetic(5) if r["task_type"] == "probing"]
    for i in range(5):
        sts = make_result(task="sts-b", config="sts-b", encoder=f"enc{i}", accuracy=0.0,
                          task_type="downstream", dataset="sts")  # fmt: skip
        sts["metrics"] = {"spearman": {"mean": 0.3 + 0.1 * i}, "pearson": {"mean": 0.2 + 0.1 * i}}
        results.append(sts)
    corr = correlate(results)
    assert pair(corr, "bigram_shift", "sts-b")["spearman"] == pytest.approx(1.0)
    assert pair(corr, "sentence_length", "sts-b")["spearman"] == pytest.approx(-1.0)
