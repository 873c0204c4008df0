"""The embedding cache: distinct and process-stable keys, hits and misses."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from polyprobe.evaluation.cache import EmbeddingCache, cache_key, encode_cached
from polyprobe.evaluation.encoders import Item, build_encoder


def test_keys_distinguish_pooling_layer_target_and_encoder() -> None:
    base = Item("a b c", ("a", "b", "c"), 1)
    keys = {
        cache_key("hf:m@r:mean", "mean", 3, base),
        cache_key("hf:m@r:mean", "first", 3, base),
        cache_key("hf:m@r:mean", "mean", 4, base),
        cache_key("hf:m@r:mean", "mean", 3, Item("a b c", ("a", "b", "c"), 2)),
        cache_key("hf:m@r:mean", "mean", 3, Item("a b c", ("a", "b", "c"))),
        cache_key("hf:m@r2:mean", "mean", 3, base),
        cache_key("hf:m@r:mean", "mean", 3, Item("a b d", ("a", "b", "d"), 1)),
    }
    assert len(keys) == 7


def test_keys_are_stable_across_processes() -> None:
    code = (
        "from polyprobe.evaluation.cache import cache_key; from polyprobe.evaluation.encoders import Item;"
        "print(cache_key('random', None, None, Item('héllo wörld', ('héllo', 'wörld'), 0)))"
    )
    outs = set()
    for seed in ("0", "123"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env
            ).stdout
        )
    assert len(outs) == 1
    assert outs.pop().strip() == cache_key(
        "random", None, None, Item("héllo wörld", ("héllo", "wörld"), 0)
    )


def lengths(texts: list[str]) -> np.ndarray:
    """A user encoder with an id: cacheable."""
    return np.array([[len(t), t.count(" "), 1.0] for t in texts], np.float32)


lengths.polyprobe_id = "lengths-v1"  # type: ignore[attr-defined]


def test_hits_and_misses(tmp_path) -> None:
    cache = EmbeddingCache(tmp_path)
    enc = build_encoder(lengths)
    items = [Item("a b"), Item("c"), Item("a b")]
    first, stats = encode_cached(enc, items, cache)
    assert (stats.hits, stats.misses) == (0, 2)  # unique items
    again, stats = encode_cached(enc, items + [Item("d")], cache)
    assert (stats.hits, stats.misses) == (2, 1)
    assert np.array_equal(first[None], again[None][:3])
    cache.close()
    reopened = EmbeddingCache(tmp_path)
    _, stats = encode_cached(enc, items, reopened)
    assert (stats.hits, stats.misses) == (2, 0)


def test_uncacheable_callable_always_misses(tmp_path) -> None:
    cache = EmbeddingCache(tmp_path)
    enc = build_encoder(lambda texts: np.ones((len(texts), 2)))
    for _ in range(2):
        _, stats = encode_cached(enc, [Item("x")], cache)
        assert (stats.hits, stats.misses) == (0, 1)
