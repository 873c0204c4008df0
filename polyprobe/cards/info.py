"""``polyprobe info``: what a dataset folder holds, read from its card (no row is decoded;
the folder is opened through ``cards.boundary`` like every command's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyprobe.cards.boundary import open_folder


def read_card_yaml(folder: str | Path) -> dict[str, Any]:
    """The YAML front matter of ``<folder>/README.md`` as a dict, once the folder passed the
    boundary every command holds (``cards.boundary``): a card over the limits, a data file
    outside the folder or a link in it is refused with the line ``validate`` lists."""
    return open_folder(folder).card


def describe(folder: str | Path) -> str:
    card = read_card_yaml(folder)
    pp = card.get("polyprobe") or {}
    lines = [
        f"{card.get('pretty_name', Path(folder).name)}",
        f"  language: {', '.join(card.get('language') or []) or 'unknown'}"
        f"   license: {card.get('license', 'unknown')}",
        f"  polyprobe {pp.get('polyprobe_version', pp.get('version', '?'))}"
        f"   fingerprint {pp.get('fingerprint', '?')}",
        "",
    ]
    defaults = {c.get("config_name") for c in card.get("configs") or [] if c.get("default")}
    infos = {i.get("config_name"): i for i in card.get("dataset_info") or []}
    rows = [("config", "train", "validation", "test", "labels")]
    for cfg in card.get("configs") or []:
        name = cfg.get("config_name", "?")
        info = infos.get(name, {})
        counts = {s.get("name"): s.get("num_examples", 0) for s in info.get("splits") or []}
        labels = next(
            (
                len(f["dtype"]["class_label"]["names"])
                for f in info.get("features") or []
                if f.get("name") == "label" and isinstance(f.get("dtype"), dict)
            ),
            0,
        )
        rows.append(
            (
                name + (" (default)" if name in defaults else ""),
                str(counts.get("train", 0)),
                str(counts.get("validation", 0)),
                str(counts.get("test", 0)),
                str(labels),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)
