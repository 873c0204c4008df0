"""``polyprobe suite build``: one language's probing suite — every family that has a
resource for it (a treebank, a lexicon, similarity and analogy sets, ...) — built into
**one** dataset folder: one card, one ``report.json``, one fingerprint, one release.

Each member of a suite is one family's build (:class:`Member`: a family and its config, as a
manifest names it, :mod:`polyprobe.builders.manifest`), run by the spine as any build is
(:func:`polyprobe.builders.build.prepare` and ``produce``), into the suite's one staging
folder. Why one folder: a researcher asking what an encoder knows of a language wants one
dataset to load, evaluate and cite, not one per resource.

Config names: a config keeps the name its family gives it; where two members publish a task
of the same name (``tense`` from a treebank and from a lexicon, ``sentence_length`` from two
treebanks), each of them is published as ``<member>-<task>`` (``ud-tense``,
``unimorph-tense``), its variants after it (``ud-tense.natural-full``). The member names are
the manifest's, so the names do not move between rebuilds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.family import Family, Outcome
from polyprobe.builders.options import BuildConfig
from polyprobe.errors import UsageError
from polyprobe.languages import resolve_language


@dataclass(frozen=True)
class Member:
    """One build of a suite: a family with its config (``out`` unused: the suite writes)."""

    name: str
    family: Family[Any, Any]
    config: BuildConfig


@dataclass(frozen=True)
class Suite:
    """A language's suite: its members in manifest order (the first built config of the
    first member is the dataset's ``default``)."""

    name: str
    lang: str
    members: tuple[Member, ...]
    manifest: str = ""  # the manifest file's name, for the card

    def __post_init__(self) -> None:
        resolve_language(self.lang)
        if not self.members:
            raise UsageError(f"suite {self.name!r}: the manifest names no member")
        names = [m.name for m in self.members]
        twice = sorted(n for n, k in Counter(names).items() if k > 1)
        if twice:
            raise UsageError(f"suite {self.name!r}: member(s) named twice: {', '.join(twice)}")


def published_names(planned: Sequence[tuple[Member, Sequence[str]]]) -> dict[str, Any]:
    """Per member, the function naming its tasks in the folder: a task name two members
    share is prefixed with the member's name in both."""
    counts = Counter(n for _, names in planned for n in set(names))
    shared = {n for n, k in counts.items() if k > 1}

    def renamer(member: str) -> Any:
        return lambda name: f"{member}-{name}" if name in shared else name

    return {m.name: renamer(m.name) for m, _ in planned}


def planned_names(prepared: Any) -> list[str]:
    """The task names a prepared member's plan publishes (before renaming)."""
    plan = prepared.plan
    if plan.lexicon is not None:
        return list(plan.lexicon.tasks)
    if plan.prepare is not None:  # its streams are known once the shards are made
        return list(prepared.names)
    return list(plan.order or [n for s in plan.streams for n in s.tasks])


def build_suite(
    suite: Suite,
    out: str | Path,
    *,
    overwrite: bool = False,
    release: str | None = None,
    previous: str | Path | None = None,
    allow_bump_mismatch: bool = False,
    allow_license_mix: bool = False,
) -> Any:
    """Build every member of ``suite`` into one dataset folder at ``out`` (atomically)."""
    from polyprobe.builders.build import BuildResult, finish, prepare, produce
    from polyprobe.builders.cardmeta import adopt, suite_meta
    from polyprobe.builders.provenance import card_license
    from polyprobe.cards.folder import DatasetFolderWriter
    from polyprobe.cards.release import ReleaseRequest

    request = ReleaseRequest.make(
        release, None if previous is None else Path(previous), allow_bump_mismatch
    )
    prepared = [prepare(m.family, m.config) for m in suite.members]
    infos = unique_sources([i for p in prepared for i in p.infos])
    license_id, mixed = card_license(infos, allow_license_mix)
    rename = published_names(
        [(m, planned_names(p)) for m, p in zip(suite.members, prepared, strict=True)]
    )
    with DatasetFolderWriter(Path(out), overwrite=overwrite) as writer:
        built: list[tuple[Member, Any, Outcome]] = []
        for member, p in zip(suite.members, prepared, strict=True):
            built.append((member, p, produce(p, writer.tmp, rename[member.name])))
        summaries = adopt(writer, [(m.family.name, m.name, o) for m, _, o in built])
        meta = suite_meta(suite, built, infos, license_id, allow_license_mix and mixed)
        final, released = finish(writer, meta, request)
    return BuildResult(
        out=final,
        fingerprint=meta.fingerprint,
        tasks=summaries,
        skipped_invalid=meta.skipped_invalid,
        split="per member (see the card's build parameters)",
        release=released.release,
        bump_check=dict(released.bump_check),
        facts={"members": [m.name for m in suite.members]},
    )


def unique_sources(infos: Sequence[Any]) -> list[Any]:
    """Each source once (a treebank a word build ranks its forms by, and the treebank build
    itself, are one source), in the order first read; a source read in two roles keeps the
    one that gives rows."""
    found: dict[tuple[str, str, str], Any] = {}
    for info in infos:
        key = (info.kind, info.name, repr(info.files))
        if key not in found or (info.role == "rows" and found[key].role != "rows"):
            found[key] = info
    return list(found.values())
