"""What publishing and loading need from a card: its ``polyprobe:`` block, release, tag."""

from __future__ import annotations

from typing import Any

from polyprobe.cards.boundary import parse_card

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


def read_card_text(text: str, where: str = "README.md") -> dict[str, Any]:
    """A card's front matter, within the card limits every command holds (a Hub card too)."""
    data, _ = parse_card(text, where)
    return data
