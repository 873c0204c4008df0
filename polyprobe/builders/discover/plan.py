"""What a manifest will hold and what init will say of it, built up family by family."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.discover.scan import Resource
from polyprobe.languages import Language, resolve_language

# The language cross-lingual sets and dictionaries pair a language with (Multi-SimLex's
# X-en sets, X->en dictionaries), as the parallel family pivots on it by default.
PIVOT = "en"

# The families searched for, in the order their members are written (the first member's
# first built config is the dataset's default); the others have no standard file names.
SEARCHED = ("ud", "unimorph", "analogies", "similarity", "dictionary", "wiki", "trec", "costra")


@dataclass
class Planned:
    """One member to write: its table name, family, options (TOML values) and the comment
    lines above it."""

    name: str
    family: str
    options: dict[str, Any]
    comments: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """What a manifest holds and what init says of it: the members, and per family what
    was ``found``, found but ``unused`` (and why) and ``missing`` (and what it would add),
    each a ``(family, text)`` pair in family order."""

    name: str
    lang: Language
    title: str
    members: list[Planned] = field(default_factory=list)
    found: list[tuple[str, str]] = field(default_factory=list)
    unused: list[tuple[str, str]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Context:
    """What every family's planning step reads: the language, its resources, how a path is
    written, and the plan it adds to."""

    lang: Language
    resources: list[Resource]
    show: Callable[[Path], str]
    plan: Plan
    treebanks: list[Resource] = field(default_factory=list)  # the ud member's

    def of(self, *kinds: str) -> list[Resource]:
        return [r for kind in kinds for r in self.resources if r.kind == kind]

    def paths(self, *resources: Resource) -> list[str]:
        return [self.show(p) for r in resources for p in r.paths]

    def where(self, r: Resource) -> str:
        return brief(self.paths(r))

    def described(self, r: Resource) -> str:
        what = "; ".join(x for x in (r.note, r.evidence) if x)
        return f"{self.where(r)}: {what}"

    def add(self, member: Planned, *found: Resource) -> None:
        self.plan.members.append(member)
        self.plan.found += [(member.name, self.where(r)) for r in found]

    def missing(self, family: str, text: str) -> None:
        self.plan.missing.append((family, text))

    def unused(self, family: str, r: Resource, why: str) -> None:
        self.plan.unused.append((family, f"{self.where(r)}: {why}"))


def brief(paths: Sequence[str]) -> str:
    """Paths for a comment or a report line: files of one folder as ``folder/{a, b, c}``."""
    if len(paths) < 2:
        return ", ".join(paths)
    parents = {p.rpartition("/")[0] for p in paths}
    if len(parents) > 1:
        return ", ".join(paths)
    names = [p.rpartition("/")[2] for p in paths]
    shown = ", ".join(names) if len(names) <= 3 else f"{names[0]}, ... ({len(names)} files)"
    return f"{parents.pop()}/{{{shown}}}"


def tasks_hint(family: str, shown: int = 6) -> str:
    """The tasks a family builds by default, from its task set: the first few and a count."""
    from polyprobe.builders.families import family_named

    names = family_named(family).tasks.resolve(None)
    head = ", ".join(names[:shown])
    return head + (f", ... ({len(names)} tasks)" if len(names) > shown else "")


def family_language(family: str) -> Language:
    """The one language a family serves (TREC: English, COSTRA: Czech): its --lang default."""
    from polyprobe.builders.families import family_named

    return resolve_language(str(family_named(family).Config.lang))


def folder_name(lang: Language) -> str:
    """How UD spells the language in folder names (``UD_Finnish-*``), near enough for a hint."""
    return lang.name.split(" (")[0].replace(" ", "_")


def file_name(lang: Language) -> str:
    """How SIGMORPHON 2018 and Wuggy spell it in file names (``finnish``), for a hint."""
    return lang.name.split(" (")[0].lower().replace(" ", "_")
