"""Garbage-collector settings for a build.

Why: a UD build keeps growing long-lived state (the substitution tasks' form inventories and
bigram tables, bounded memo caches: hundreds of thousands of tuples and strings), and every
time it grows by a quarter CPython runs a full collection that traverses all of it. On EWT's
whole suite that is 8 full collections, about 0.25 s or 3% of the build, and none of them
finds anything: what the passes throw away per sentence (records, tokens, candidates) is
freed by reference counting, and the little cyclic garbage a pass can make (an exception's
traceback, a generator) is young and still found by the young-generation collections, which
keep running. Full collections are only held off while a shard builds.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# gc's third threshold counts young collections between full ones; this many never comes.
_NEVER = 1 << 30


@contextmanager
def full_collections_deferred() -> Iterator[None]:
    """Run the block without automatic full (generation 2) collections; the thresholds
    are restored on leaving it, whatever happens inside."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
