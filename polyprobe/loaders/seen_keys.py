"""Which keys a stream has used so far, in about 8 bytes a key.

Why: a reader that must refuse a repeated ``sent_id`` has to remember every id of a
treebank while it streams it. A dict of the ids themselves costs ~175 bytes a sentence (the
string, its position, the table's slot), the largest thing that grew with the corpus in a
build's pass. :class:`SeenKeys` keeps only a 64-bit hash of each key, sorted in one numpy
array (plus a small set of the newest), so it can answer "maybe seen" (the hash was seen: a
real repeat, or a collision) or "certainly new". The caller confirms a "maybe" exactly
(:func:`polyprobe.loaders.sources.read_sources` re-reads the source), so a collision can
never reject a key, only cost a re-read; with 64 bits a stream of ``n`` keys holds one
with a chance of about ``n**2 / 2**65`` (one in ~40 million for a million ids).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable

import numpy as np

__all__ = ["SeenKeys"]


class SeenKeys:
    """64-bit hashes of the keys added so far: :meth:`add` tells whether a key's hash was
    added before.

    The newest hashes sit in a set (one lookup, no copying) until a batch of them is
    there, then are merged into one sorted ``array("q")``, searched by :func:`bisect.bisect_left`
    (a numpy ``searchsorted`` per key cost ~3x more in the call than in the search): 8 bytes
    a key, plus the set (~70 bytes a hash) of at most ``batch`` hashes or 1/32 of those
    already sorted, whichever is more (~300 kB, or ~2 bytes a key; a batch growing with the
    array keeps the merges' copying linear in the keys: ~32 copies of each). ``key_hash``
    maps a key to a signed 64-bit int; Python's ``hash`` (fast, cached on strings) unless a
    test injects one that collides. Within one process ``hash`` of a string is fixed, which
    is all a check within one pass needs; across processes it may differ, which changes
    nothing but which keys collide (and collisions are confirmed exactly by the caller).
    """

    def __init__(self, key_hash: Callable[[str], int] = hash, *, batch: int = 1 << 12) -> None:
        self._hash = key_hash
        self._batch = batch
        self._recent: set[int] = set()
        self._sorted = array("q")

    def __len__(self) -> int:
        """Distinct hashes added (keys added, unless two of them collided)."""
        return len(self._recent) + len(self._sorted)

    def add(self, key: str) -> bool:
        """Record ``key``; ``True`` if its hash had been recorded before (``key`` itself
        was then added before, or collides with a key that was), ``False`` if ``key`` is
        certainly new."""
        h = self._hash(key)
        if h in self._recent:
            return True
        older = self._sorted
        i = bisect_left(older, h)
        if i < len(older) and older[i] == h:
            return True
        self._recent.add(h)
        if len(self._recent) >= max(self._batch, len(older) >> 5):
            self._merge()
        return False

    def _merge(self) -> None:
        """Move the recent hashes into the sorted array (a new array: the old one and the
        new one exist together for a moment, 16 bytes a key)."""
        new = np.fromiter(self._recent, dtype=np.int64, count=len(self._recent))
        new.sort()
        older = np.frombuffer(self._sorted, dtype=np.int64)
        merged = np.insert(older, older.searchsorted(new), new)
        del older  # a view of the array being replaced: now it can go
        self._sorted = array("q")
        self._sorted.frombytes(merged.data.cast("B"))
        self._recent = set()
