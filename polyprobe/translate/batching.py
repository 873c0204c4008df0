"""Batching, with Wehner's (2019) fallback.

Two ways to send a batch: as a list (the translator maps each text), or joined into one
string by a split token (for document translators and APIs billed per request, as Wehner did
when machine-translating ArgMin and TREC). A translation system may mangle the split token
(translate it, drop it, merge two sentences); the joined result then does not split back into
as many parts as were sent, and the batch is retried sentence by sentence. A numeric token is
used because numbers survive translation best.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_SPLIT_TOKEN = "9876543210"


@dataclass
class BatchStats:
    batches: int = 0
    fallback_batches: int = 0  # joined batches whose split token was mangled
    calls: int = 0


def translate_batch(
    translate: Callable[[list[str]], list[str]],
    texts: list[str],
    split_token: str | None,
    stats: BatchStats,
) -> list[str]:
    """``texts`` translated, in order. With ``split_token``, one call on the joined batch;
    when it does not split back into ``len(texts)`` non-empty parts, one call per text."""
    stats.batches += 1
    if split_token is None:
        stats.calls += 1
        return translate(texts)
    joined = f" {split_token} ".join(texts)
    stats.calls += 1
    (result,) = translate([joined])
    parts = [p.strip() for p in result.split(split_token)]
    if len(parts) == len(texts) and all(parts):
        return parts
    stats.fallback_batches += 1
    out = []
    for text in texts:
        stats.calls += 1
        (one,) = translate([text])
        out.append(one.strip())
    return out
