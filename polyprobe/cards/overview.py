"""A suite card's overview: one row per task of every member — its family, its recommended
config, rows per split and the smallest accuracy difference its test split can detect — so
a reader sees what the language's suite holds, and how fine a comparison each task allows,
before the members' sections say how each config was made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polyprobe.cards.payload import ConfigCard
from polyprobe.cards.stats import detectable_difference, ordered_splits


def recommended(configs: Sequence[ConfigCard], member: str, task: str) -> ConfigCard | None:
    """The task's recommended config: the one named like the task's config (no variant
    suffix), else its first config."""
    mine = [
        c for c in configs if c.payload.task == task and c.payload.polyprobe.get("member") == member
    ]
    plain = [c for c in mine if "." not in c.name]
    return (plain or mine or [None])[0]


def detectable(cfg: ConfigCard) -> str:
    """The test split's detectable accuracy difference, in points ("—" for a scored config,
    whose metric is a correlation, or a config without a test split)."""
    test = cfg.stats.splits.get("test")
    d = None if cfg.payload.scored or test is None else detectable_difference(test.num_examples)
    return "—" if d is None else f"{100 * d:.1f}"


def overview_rows(
    configs: Sequence[ConfigCard], members: Sequence[dict[str, Any]]
) -> tuple[list[str], list[list[str]]]:
    """The overview's header and rows: built tasks only (the card's "not built" section
    lists the others)."""
    splits = ordered_splits({s for c in configs for s in c.stats.splits})
    rows = []
    for m in members:
        for task in m["tasks"]:
            cfg = recommended(configs, m["name"], task)
            if cfg is None:
                continue
            counts = [
                str(cfg.stats.splits[s].num_examples) if s in cfg.stats.splits else "—"
                for s in splits
            ]
            rows.append([m["name"], m["family"], task, cfg.name, *counts, detectable(cfg)])
    header = ["member", "family", "task", "recommended config", *splits, "detectable Δ (points)"]
    return header, rows
