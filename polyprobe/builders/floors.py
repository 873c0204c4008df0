"""Class floors under stratified allocation: how many rows a class needs in the whole pool to
meet ``--min-per-class`` in every split, and how its rows are shared out.

Why a module of its own: the word tasks decide their class set with it before anything is split,
and the variant engine allocates with it; tasks may not import the engine, so the rule lives
here, once, and both use it. The remedies an infeasible task names live here too: a
message that says only *why* leaves the user guessing, so the cheapest change that the
arithmetic shows would work on this input is named (never a generic "use more data").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ClassPlan",
    "class_targets",
    "floor_remedy",
    "format_floors",
    "plan_classes",
    "rows_needed",
    "split_with_floors",
    "test_rows_remedy",
]


def class_targets(
    n: int, counts: tuple[int, int, int], floors: tuple[int, int, int]
) -> tuple[int, int, int] | None:
    """Rows of a class of ``n`` rows per split under stratified allocation: validation and
    test get their proportional share of ``n`` (in the proportions ``counts``), raised to their
    floor; train gets the rest. None when the rest is below train's floor: the class cannot
    meet its floors in every split, whatever the split (a split asked for 0 rows has no floor
    and gets nothing). The task decides its class set with this before any split is made."""
    total = sum(counts)
    if total <= 0:
        return None
    out = [0, 0, 0]
    for s in (1, 2):
        if counts[s] > 0:
            share = n * counts[s] // total
            out[s] = max(floors[s], share)
    out[0] = n - out[1] - out[2]
    if out[0] < (floors[0] if counts[0] > 0 else 0) or out[0] < 0:
        return None
    return (out[0], out[1], out[2])


def rows_needed(counts: tuple[int, int, int], floors: tuple[int, int, int]) -> int:
    """The fewest rows a class needs to meet its floor in every split under stratified
    allocation in the proportions ``counts`` (:func:`class_targets`)."""
    n = sum(f for f, c in zip(floors, counts, strict=True) if c > 0)
    while class_targets(n, counts, floors) is None:
        n += 1
    return n


_SPLITS = ("train", "validation", "test")


def format_floors(floors: Sequence[int]) -> str:
    """``--min-per-class`` as the command line takes it (one number when all three agree)."""
    values = [int(f) for f in floors]
    if len(set(values)) == 1:
        return str(values[0])
    return ",".join(map(str, values))


def floor_remedy(
    counts: Sequence[Sequence[int]],
    names: Sequence[str],
    floors: Sequence[int],
    checked: Sequence[bool],
    min_classes: int = 2,
) -> str:
    """The remedy of a task left with fewer than ``min_classes`` classes by its floors.

    ``counts[s][c]``: rows of class ``c`` in split ``s`` as the split made them. The highest
    floors (never above the given ones) that keep the ``min_classes`` best-covered classes:
    per class, the share of its floor it reaches in its worst checked split, best first; the
    floors are then the elementwise minimum of what those classes hold. A class without a row
    in a checked split cannot be kept by any floor (a floor of 0 would publish an empty
    split): then the remedy is more input, naming the split and how many classes reach it."""
    k = len(names)
    checked_splits = [s for s in range(3) if checked[s]]
    usable = [c for c in range(k) if all(counts[s][c] > 0 for s in checked_splits)]
    if len(usable) < min_classes:
        short = [
            f"{_SPLITS[s]} ({sum(1 for c in range(k) if counts[s][c] > 0)} classes with rows)"
            for s in checked_splits
            if sum(1 for c in range(k) if counts[s][c] > 0) < min_classes
        ]
        where = ", ".join(short) or "every split"
        return (
            f"remedy: more input - no floor keeps {min_classes} classes with a row in "
            f"{where}; add sentences/forms (a larger source or --top-up where the family has it)"
        )

    def reach(c: int) -> float:
        return min(
            (counts[s][c] / floors[s]) if floors[s] > 0 else float("inf") for s in checked_splits
        ) if checked_splits else float("inf")

    best = sorted(usable, key=lambda c: (-reach(c), c))[:min_classes]
    new = [
        min(int(floors[s]), *(int(counts[s][c]) for c in best)) if checked[s] else int(floors[s])
        for s in range(3)
    ]
    kept = ", ".join(names[c] for c in best)
    return (
        f"remedy: --min-per-class {format_floors(new)} keeps at least {kept} "
        f"(fewer rows per class in each split: less power per class)"
    )


# ------------------------------------------------------------------------- class plans

# The documented limits of a class plan (docs/tasks.md, "Class plans"): validation and test
# together may take at most this share of a task's rows when raised to hold every class's
# floor (train keeps the rest, so it stays the larger part), and a task never takes more rows
# than its pools hold.
MAX_HELDOUT_SHARE = 0.5


@dataclass(frozen=True)
class ClassPlan:
    """How a task with a class set of its own is sampled and split so that every kept class
    meets its floors in every split: ``kept`` classes (most forms first), ``labelled`` rows of
    them and ``none`` catch-all rows, ``counts`` rows per split, ``reserve`` rows each class
    gets before the rest is drawn. ``raised`` says what the plan changed from the task's
    defaults (card text), empty when nothing."""

    kept: tuple[str, ...]
    labelled: int
    none: int
    counts: tuple[int, int, int]
    reserve: int
    raised: tuple[str, ...] = ()


def split_with_floors(
    total: int, proportions: tuple[int, int, int], classes: int, floors: tuple[int, int, int]
) -> tuple[int, int, int] | None:
    """``total`` rows in ``proportions`` with validation and test raised to hold ``classes``
    floors each (train the rest), within :data:`MAX_HELDOUT_SHARE`; None when it cannot."""
    got = _split_of(total, proportions, classes, floors)
    return got[0] if got is not None else None


def _split_of(
    total: int, proportions: tuple[int, int, int], classes: int, floors: tuple[int, int, int]
) -> tuple[tuple[int, int, int], bool] | None:
    """``total`` rows in ``proportions`` (largest remainder), validation and test raised to
    hold ``classes`` floors each, train the rest; None beyond :data:`MAX_HELDOUT_SHARE` or
    when train cannot hold its floors. Also whether a split was raised."""
    weight = sum(proportions)
    base = [total * c // weight for c in proportions]
    remainder = [total * c % weight for c in proportions]
    for i in sorted(range(3), key=lambda i: (-remainder[i], i))[: total - sum(base)]:
        base[i] += 1
    raised = False
    for s in (1, 2):
        if proportions[s] > 0 and base[s] < classes * floors[s]:
            base[s] = classes * floors[s]
            raised = True
    if raised:
        if base[1] + base[2] > MAX_HELDOUT_SHARE * total:
            return None
        base[0] = total - base[1] - base[2]
    if base[0] < classes * floors[0]:
        return None
    return (base[0], base[1], base[2]), raised


def plan_classes(
    available: dict[str, int],
    none_available: int,
    *,
    target: int,
    none_share: float,
    proportions: tuple[int, int, int],
    floors: tuple[int, int, int],
    reserve: int,
    grow: bool,
    fixed_counts: tuple[int, int, int] | None = None,
) -> ClassPlan | None:
    """The plan keeping the most classes (most forms first) that can meet ``floors`` in every
    split, or None when no plan keeps two.

    ``available``: forms per class the task may draw; ``target``: the task's size (labelled +
    ``none_share`` catch-all); ``reserve``: rows a class needs at the default proportions.
    With ``grow`` (``--scale``: the size is derived from the data anyway) the plan may take
    more rows than ``target``, up to what the pools hold, and raise validation and test up to
    :data:`MAX_HELDOUT_SHARE` so that each holds every class's floor; without it (fixed
    ``--split-sizes``, ``fixed_counts``) the size and splits are the user's and only the class
    set is decided. A plan that needs nothing raised is the default one exactly (same size,
    same splits, same reserve), so builds that always fit are unchanged."""
    ranked = sorted(available, key=lambda v: (-available[v], v))
    for k in range(len(ranked), 1, -1):
        kept = tuple(ranked[:k])
        pool = sum(available[v] for v in kept)
        if grow:
            most = pool + none_available
            plan = _plan_at(kept, available, none_available, most, none_share, proportions,
                            floors, reserve, None)
            if plan is None:
                continue
            step = max(1, target // 200)
            size = min(target, most)
            while size < most:
                plan_here = _plan_at(kept, available, none_available, size, none_share,
                                     proportions, floors, reserve, None)
                if plan_here is not None:
                    return _with_growth(plan_here, size, target)
                size += step
            return _with_growth(plan, most, target)
        plan = _plan_at(kept, available, none_available, target, none_share, proportions,
                        floors, reserve, fixed_counts)
        if plan is not None:
            return plan
    return None


def _with_growth(plan: ClassPlan, size: int, target: int) -> ClassPlan:
    if size <= target:
        return plan
    return ClassPlan(
        plan.kept, plan.labelled, plan.none, plan.counts, plan.reserve,
        (f"size {target} -> {size} rows so that every class's reserve fits", *plan.raised),
    )


def _plan_at(
    kept: tuple[str, ...],
    available: dict[str, int],
    none_available: int,
    size: int,
    none_share: float,
    proportions: tuple[int, int, int],
    floors: tuple[int, int, int],
    reserve: int,
    fixed_counts: tuple[int, int, int] | None,
) -> ClassPlan | None:
    """The plan of ``kept`` at a task size of ``size`` rows, or None when it does not fit."""
    none_wanted = round(size * none_share)
    labelled = size - none_wanted
    pool = sum(available[v] for v in kept)
    if labelled > pool:
        labelled = pool
    none = min(none_wanted, none_available)
    classes = len(kept)
    for with_none in (True, False):
        n_none = none if with_none else 0
        if with_none and none == 0:
            continue
        n_all = classes + (1 if n_none else 0)
        total = labelled + n_none
        if fixed_counts is not None:
            counts: tuple[int, int, int] = fixed_counts
            raised = False
            if any(counts[s] > 0 and counts[s] < n_all * floors[s] for s in range(3)):
                continue
        else:
            got = _split_of(total, proportions, n_all, floors)
            if got is None:
                continue
            counts, raised = got
        need = rows_needed(counts, floors) if raised else reserve
        if labelled < classes * need or any(available[v] < need for v in kept):
            continue
        if n_none and n_none < need:
            continue
        notes: tuple[str, ...] = ()
        if raised:
            default = _split_of(total, proportions, 0, (0, 0, 0))
            before = default[0] if default else counts
            notes = (
                "validation/test raised from "
                + "/".join(map(str, before[1:]))
                + " to "
                + "/".join(map(str, counts[1:]))
                + f" rows so that each holds the floors of {n_all} classes",
            )
        return ClassPlan(kept, labelled, n_none, counts, need, notes)
    return None


# The largest test share a remedy names (``--split ratio:T/V/X``): beyond it train would
# hold fewer rows than test, and the probe too little to learn from.
MAX_REMEDY_TEST_SHARE = 40


def test_rows_remedy(
    own: int, split_rows: Sequence[int], wanted: int, unit: str, resplit: bool = True
) -> str:
    """The cheapest change that gives the recommended config ``wanted`` test rows: a larger
    test share (``--split ratio:T/10/X``, the smallest X that reaches it, up to
    :data:`MAX_REMEDY_TEST_SHARE` %), else more input. ``split_rows``: the natural split's
    rows per split; ``own``: the recommended config's test rows (a balanced config holds a
    share of the natural test split, which scales with it). ``resplit`` false: the build
    already tried the ratio splits (each lost a class), so only more input is named."""
    total = sum(split_rows)
    natural_test = split_rows[2] if len(split_rows) > 2 else 0
    if total <= 0 or own <= 0:
        return f"remedy: more input ({unit} of every class)"
    kept = own / natural_test if natural_test else 1.0
    for share in range(11, MAX_REMEDY_TEST_SHARE + 1 if resplit else 11):
        if total * share / 100 * kept >= wanted:
            return (
                f"remedy: --split ratio:{90 - share}/10/{share} (about "
                f"{int(total * share / 100 * kept)} test rows; train keeps {90 - share} %)"
            )
    more = int(wanted / (MAX_REMEDY_TEST_SHARE / 100 * kept)) - total + 1
    if not resplit:
        more = int(wanted / (natural_test / total * kept)) - total + 1 if natural_test else more
        return f"remedy: more input - about {more} more {unit} at this split's test share"
    return (
        f"remedy: more input - about {more} more {unit} (with --split ratio:50/10/40 the "
        f"{total} rows give {int(total * 0.4 * kept)} test rows)"
    )
