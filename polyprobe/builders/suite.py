"""``polyprobe suite build``: one language's probing suite — every family that has a
resource for it (a treebank, a lexicon, similarity and analogy sets, ...) — built into
**one** dataset folder: one card, one ``report.json``, one fingerprint, one release.

Each member of a suite is one family's build (:class:`Member`: a family and its config, as a
manifest names it, :mod:`polyprobe.builders.manifest`), run by the spine as any build is
(:func:`polyprobe.builders.build.prepare` and ``produce``), into the suite's one staging
folder. Why one folder: a researcher asking what an encoder knows of a language wants one
dataset to load, evaluate and cite, not one per resource.

Config names: a config keeps the name its family gives it; a task whose name an earlier
member (in manifest order) already publishes (``tense`` from a treebank and from a lexicon,
``sentence_length`` from two treebanks) is published as ``<member>-<task>``
(``unimorph-tense``), its variants after it (``unimorph-tense.natural-full``). The member
names are the manifest's, so the names do not move between rebuilds, and a member added at
the end renames nothing. The card's ``polyprobe.members`` maps each renamed task to its
family's name; its rows are the family's own build's (:attr:`Task.identity`).
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
    """Per member, the function naming its tasks in the folder: a task name an earlier
    member already publishes is prefixed with the later member's name. Why not both: a
    member added at the end of a manifest then never renames a config of an earlier
    release (a rename is a major version)."""
    taken: set[str] = set()
    clashes: dict[str, set[str]] = {}
    for member, names in planned:
        clashes[member.name] = {n for n in names if n in taken}
        published = {f"{member.name}-{n}" if n in clashes[member.name] else n for n in names}
        if published & taken:
            raise UsageError(
                f"suite: member {member.name!r} would publish {sorted(published & taken)}, "
                "which an earlier member publishes; rename the member"
            )
        taken |= published

    def renamer(member: str) -> Any:
        return lambda name: f"{member}-{name}" if name in clashes[member] else name

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
    planned = [(m, planned_names(p)) for m, p in zip(suite.members, prepared, strict=True)]
    rename = published_names(planned)
    renamed = {
        m.name: {rename[m.name](n): n for n in names if rename[m.name](n) != n}
        for m, names in planned
    }
    with DatasetFolderWriter(Path(out), overwrite=overwrite) as writer:
        built: list[tuple[Member, Any, Outcome]] = []
        for member, p in zip(suite.members, prepared, strict=True):
            built.append((member, p, produce(p, writer.tmp, rename[member.name])))
        summaries = adopt(writer, [(m.family.name, m.name, o) for m, _, o in built])
        meta = suite_meta(suite, built, infos, license_id, allow_license_mix and mixed, renamed)
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
