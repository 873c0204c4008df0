"""Small helpers for :meth:`Observation.merge <polyprobe.builders.task.Observation.merge>`:
renumbering ids given in order of first occurrence, and appending typed arrays of per-record
values (ids remapped, sentence indices offset) with numpy instead of a Python loop.

Why renumbering is exact: an observation that numbers keys ``ids.setdefault(key, len(ids))``
gives ids in order of first occurrence. A later observation numbered its own keys the same
way within its records; one observation fed both ranges in order meets every key of the
earlier range first, then later's new keys in later's order of first occurrence, and so gives
them the next ids in exactly that order — which is what :func:`merge_ids` does.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)


def merge_ids(ids: dict[K, int], later: dict[K, int]) -> np.ndarray:
    """Take ``later``'s keys into ``ids`` (new keys get the next ids, in ``later``'s id order)
    and return ``remap``: ``remap[j]`` is the id in ``ids`` of ``later``'s key with id ``j``.
    Both dicts number their keys 0, 1, ... in insertion order. O(len(later))."""
    remap = np.empty(len(later), dtype=np.int64)
    for key, j in later.items():
        remap[j] = ids.setdefault(key, len(ids))
    return remap


def extend_remapped(target: array, values: array, remap: np.ndarray) -> None:
    """Append ``values`` (ids of a later observation) to ``target``, each id ``j`` written as
    ``remap[j]``; ``-1`` (no id) stays ``-1``. One vectorised gather."""
    if not values:
        return
    if target.typecode != values.typecode:
        raise TypeError(f"cannot append array {values.typecode!r} to {target.typecode!r}")
    dtype = np.dtype(values.typecode)
    source = np.frombuffer(values, dtype=dtype)
    table = np.append(remap, -1).astype(dtype)  # index -1 reads the appended -1
    target.frombytes(table[source].tobytes())


def extend_offset(target: array, values: array, offset: int) -> None:
    """Append ``values`` (indices into a later observation's records) to ``target``, each
    shifted by ``offset`` (the number of records the earlier observation saw)."""
    if not values:
        return
    if target.typecode != values.typecode:
        raise TypeError(f"cannot append array {values.typecode!r} to {target.typecode!r}")
    dtype = np.dtype(values.typecode)
    shifted = np.frombuffer(values, dtype=dtype).astype(np.int64) + offset
    if shifted.size and int(shifted.max()) > np.iinfo(dtype).max:
        raise OverflowError(f"record index {int(shifted.max())} does not fit {dtype}")
    target.frombytes(shifted.astype(dtype).tobytes())
