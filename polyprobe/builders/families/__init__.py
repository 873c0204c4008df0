"""The source families: one module each, each holding one :class:`~polyprobe.builders.
family.Family` instance at module level (a module may hold several, e.g. classification,
pairs and regression). The command line and ``polyprobe.build_<family>`` find them here: a
new family is a new module, and no table elsewhere lists it."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any


def families() -> dict[str, Any]:
    """Every family, by name: the :class:`Family` instances at module level of the modules
    in :mod:`polyprobe.builders.families` (no central table: a new family is a new module)."""
    from polyprobe.builders.family import Family

    package = importlib.import_module(__name__)
    found: dict[str, Any] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for value in vars(module).values():
            if isinstance(value, Family) and type(value).__module__ == module.__name__:
                found[value.name] = value
    return found


def family_named(name: str) -> Any:
    """The family called ``name`` (its module ``polyprobe.builders.families.<...>``)."""
    from polyprobe.errors import UsageError

    found = families()
    if name not in found:
        raise UsageError(f"unknown source family {name!r}; known: {', '.join(sorted(found))}")
    return found[name]
