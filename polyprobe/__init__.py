"""polyprobe: build, publish and evaluate multilingual probing datasets.

Heavy libraries are imported lazily so that ``polyprobe --help`` stays quick."""

from __future__ import annotations

from typing import Any

from polyprobe.version import __version__

__all__ = ["__version__", "build_ud", "load", "validate"]


def build_ud(*args: Any, **kwargs: Any) -> Any:
    from polyprobe.builders.recipes.ud import build_ud as _build_ud

    return _build_ud(*args, **kwargs)


def load(*args: Any, **kwargs: Any) -> Any:
    """``polyprobe.load(repo_or_path, config=None, version=None, **kwargs)``: a release pinned
    to its tag, card checked and attached (see :mod:`polyprobe.hub.loading`)."""
    from polyprobe.hub.loading import load as _load

    return _load(*args, **kwargs)


def validate(*args: Any, **kwargs: Any) -> Any:
    from polyprobe.cards.validate import validate as _validate

    return _validate(*args, **kwargs)
