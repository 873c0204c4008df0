"""What publishing and loading need from a card: its ``polyprobe:`` block, release, tag."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyprobe.cards.card import README, split_readme

DEFAULT_RELEASE = "0.1.0"  # cards written before the ``release`` field existed


def polyprobe_block(card: dict[str, Any]) -> dict[str, Any]:
    block = card.get("polyprobe")
    return block if isinstance(block, dict) else {}


def card_release(card: dict[str, Any]) -> str:
    """The dataset's semantic version: ``polyprobe.release``, else ``0.1.0``."""
    return str(polyprobe_block(card).get("release") or DEFAULT_RELEASE)


def card_fingerprint(card: dict[str, Any]) -> str | None:
    value = polyprobe_block(card).get("fingerprint")
    return str(value) if value is not None else None


def release_tag(release: str) -> str:
    """The Hub tag of a release: ``v`` + the semantic version."""
    return release if release.startswith("v") else f"v{release}"


def read_card_text(text: str) -> dict[str, Any]:
    data, _ = split_readme(text)
    return data


def read_folder_card(folder: str | Path) -> dict[str, Any]:
    return read_card_text((Path(folder) / README).read_text(encoding="utf-8"))
