"""Class floors under stratified allocation: how many rows a class needs in the whole pool to
meet ``--min-per-class`` in every split, and how its rows are shared out.

Why a module of its own: the word tasks decide their class set with it before anything is split,
and the variant engine allocates with it; tasks may not import the engine, so the rule lives
here, once, and both use it.
"""

from __future__ import annotations

__all__ = ["class_targets", "rows_needed"]


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
