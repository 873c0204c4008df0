"""``polyprobe info``: what a dataset folder holds, read from its card (no parquet decoding)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from polyprobe.errors import InputError

# libyaml's safe loader when available: the same result as SafeLoader, ~10x faster on big cards.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_card_yaml(folder: str | Path) -> dict[str, Any]:
    """The YAML front matter of ``<folder>/README.md`` as a dict."""
    readme = Path(folder) / "README.md"
    if not readme.is_file():
        raise InputError(readme, None, "no README.md: not a dataset folder", "no-card")
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise InputError(readme, 1, "README.md has no YAML front matter ('---' line)", "no-yaml")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise InputError(readme, None, "YAML front matter is not closed by a '---' line", "no-yaml")
    try:
        data = yaml.load(text[4:end], Loader=_LOADER)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise InputError(
            readme, None if line is None else line + 2, f"invalid YAML: {exc}", "bad-yaml"
        ) from None
    if not isinstance(data, dict):
        raise InputError(readme, 2, "YAML front matter is not a mapping", "bad-yaml")
    return data


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
