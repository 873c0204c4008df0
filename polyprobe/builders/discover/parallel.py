"""The parallel suite: every PUD treebank found, in one ``parallel`` member."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from polyprobe.builders.discover.plan import Plan, Planned
from polyprobe.builders.discover.scan import Resource
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language


def plan_parallel(
    pivot: Language, resources: Sequence[Resource], show: Callable[[Path], str]
) -> Plan:
    """The parallel suite: every PUD treebank declaring one language, pivoting on ``pivot``."""
    puds = [r for r in resources if r.kind == "pud" and len(r.languages) == 1]
    title = f"the PUD treebanks, pivot {pivot.name} ({pivot.code})"
    plan = Plan("pud-probing", pivot, title)
    if not puds:
        return plan
    langs = sorted({r.languages[0] for r in puds})
    if pivot.iso639_3 not in langs:
        have = ", ".join(resolve_language(c).code for c in langs)
        raise UsageError(
            f"--lang {pivot.code}: no PUD treebank of {pivot.name} to pivot on (PUD treebanks "
            f"found: {have})"
        )
    if len(puds) < 2:
        raise UsageError(
            f"a parallel suite needs two PUD treebanks or more; found only {show(puds[0].paths[0])}"
        )
    comment = (
        f"{len(puds)} PUD treebanks aligned by sent_id; lang {pivot.code} is the pivot (its "
        "sentence fills the wide config, agreement is measured against its labels)"
    )
    paths = [show(r.paths[0]) for r in puds]
    plan.members.append(Planned("parallel", "parallel", {"paths": paths}, [comment]))
    plan.found += [("parallel", show(r.paths[0])) for r in puds]
    return plan
