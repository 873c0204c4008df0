"""polyprobe: build, publish and evaluate multilingual probing datasets.

Heavy libraries are imported lazily so that ``polyprobe --help`` stays quick."""

from __future__ import annotations

from typing import Any

from polyprobe.version import __version__

__all__ = ["__version__", "build", "load", "validate"]


def build(config: Any, **kwargs: Any) -> Any:
    """Build the dataset folder ``config`` describes (a family's Config, e.g.
    ``UdConfig(paths=[...], lang="en", out="en-probing")``): the same as ``polyprobe build``."""
    from polyprobe.builders.build import build as _build
    from polyprobe.builders.families import families

    family = next(f for f in families().values() if isinstance(config, f.Config))
    return _build(family, config, **kwargs)


def __getattr__(name: str) -> Any:
    """``polyprobe.build_<family>(*inputs, **options)``: the options are the family's Config
    fields (``polyprobe build <family> --help``); positional arguments are its inputs. A
    family named with hyphens is reached with underscores (``build_in_context_similarity``)."""
    if not name.startswith("build_"):
        raise AttributeError(f"module 'polyprobe' has no attribute {name!r}")
    from polyprobe.builders.build import family_function
    from polyprobe.builders.families import families

    family = name.removeprefix("build_")
    hyphenated = family.replace("_", "-")
    if family not in families() and hyphenated in families():
        family = hyphenated
    return family_function(family)


def load(*args: Any, **kwargs: Any) -> Any:
    """``polyprobe.load(repo_or_path, config=None, version=None, **kwargs)``: a release pinned
    to its tag, card checked and attached (see :mod:`polyprobe.hub.loading`)."""
    from polyprobe.hub.loading import load as _load

    return _load(*args, **kwargs)


def validate(*args: Any, **kwargs: Any) -> Any:
    from polyprobe.cards.validate import validate as _validate

    return _validate(*args, **kwargs)
