"""Garbage collection during a build's shards and jobs: young collections 14× less often.

Why: CPython starts a young-generation collection after every 700 net allocations of
container objects, and every tenth middle collection may become a full one, which traverses
every tracked object alive. A build allocates a few containers per token in each pass, while
its first pass keeps growing corpus-wide tables (form inventories of tuples, bigram sets)
until the end of the shard. On the EWT whole-suite build (``--jobs 1``) the collector took
3.4–4.0 s of about 30–37 CPU-s (gc callbacks, timed, under load): 25 full collections
(2.3–2.6 s), 312 middle ones and 3,428 young ones. A young threshold of 10,000 brings that to
0.9–1.0 s (one full collection). The build's records, rows and tables hold no reference cycles
of their own, so memory stays where it was (peak RSS 353 vs 346–356 MB): objects are still
freed by reference counting the moment they are dropped, and what cycles appear are
collected, only in larger batches. See docs/ARCHITECTURE.md ("Measured": the collector).

Nothing here changes what is computed; the previous thresholds come back when the build's
processes are done (a test suite or a notebook runs many builds in one interpreter).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Net container allocations between young collections (CPython's default: 700).
YOUNG_THRESHOLD = 10_000


def tune_collector() -> None:
    """Set the young threshold in this process for good (a pool worker: it lives for one
    build). The middle and old thresholds stay as they are."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The young threshold raised to :data:`YOUNG_THRESHOLD` within the block, the previous
    thresholds restored after it."""
    previous = gc.get_threshold()
    tune_collector()
    try:
        yield
    finally:
        gc.set_threshold(*previous)
