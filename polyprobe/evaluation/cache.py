"""Content-addressed embedding cache on disk.

Why: encoding dominates evaluation time, and the same sentence recurs across probes, seeds,
tasks and configs. A vector is stored under blake2b(encoder id, pooling, layer, text, tokens,
target index); the encoder id already carries the resolved revision, so a changed model can
never be served old vectors. Keys are stable across processes and machines (no ``hash()``).

Storage: one SQLite file per encoder id (WAL mode, so concurrent runs can share it), vectors
as raw float32 bytes. Location: ``--cache DIR``, else ``$POLYPROBE_CACHE/embeddings``, else
``~/.cache/polyprobe/embeddings``. ``POLYPROBE_CACHE`` is the root of everything polyprobe
caches (embeddings, word2vec models under ``embeddings/w2v``, Wuggy tables under ``wuggy``:
``polyprobe.loaders.wuggy.default_cache_dir``), so one variable moves all of it.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polyprobe.evaluation.encoders import Encoder, Item
from polyprobe.hashing import digest


def default_cache_dir() -> Path:
    """``$POLYPROBE_CACHE/embeddings``, else ``~/.cache/polyprobe/embeddings``."""
    env = os.environ.get("POLYPROBE_CACHE")
    root = Path(env).expanduser() if env else Path.home() / ".cache" / "polyprobe"
    return root / "embeddings"


def cache_key(encoder_id: str, pooling: str | None, layer: int | None, item: Item) -> str:
    """The content address of one vector. Tokens enter the key because token-based baselines
    read them; the target index only for words in context, so type-level and sentence items
    with equal text share entries across tasks."""
    parts: list[object] = [
        "v1",
        encoder_id,
        pooling or "",
        "" if layer is None else layer,
        item.text,
    ]
    parts.append("\x1f".join(item.tokens) if item.tokens is not None else "\x00none")
    if item.target is not None:
        parts.append(f"target={item.target}")
    return digest(*parts, size=16).hex()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


class EmbeddingCache:
    def __init__(self, root: str | Path | None = None, enabled: bool = True):
        self.root = Path(root).expanduser() if root else default_cache_dir()
        self.enabled = enabled
        self._conns: dict[str, sqlite3.Connection] = {}

    def _db(self, encoder_id: str) -> sqlite3.Connection:
        conn = self._conns.get(encoder_id)
        if conn is None:
            self.root.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder_id)[:60]
            path = self.root / f"{stem}-{digest(encoder_id, size=6).hex()}.sqlite"
            conn = sqlite3.connect(str(path), timeout=60)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, data BLOB)")
            conn.commit()
            self._conns[encoder_id] = conn
        return conn

    def get(self, encoder_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        if not self.enabled or not keys:
            return {}
        conn = self._db(encoder_id)
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(f"SELECT key, data FROM vec WHERE key IN ({marks})", chunk)
            for key, data in rows:
                found[key] = np.frombuffer(data, dtype=np.float32)
        return found

    def put(self, encoder_id: str, vectors: dict[str, np.ndarray]) -> None:
        if not self.enabled or not vectors:
            return
        conn = self._db(encoder_id)
        rows = [
            (k, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()
        ]
        with conn:
            conn.executemany("INSERT OR REPLACE INTO vec (key, data) VALUES (?, ?)", rows)

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


def encode_cached(
    encoder: Encoder,
    items: Sequence[Item],
    cache: EmbeddingCache,
    batch_size: int = 32,
    chunk: int = 2048,
    progress: Callable[[int], None] | None = None,
) -> tuple[dict[int | None, np.ndarray], CacheStats]:
    """Vectors for ``items`` at every layer of ``encoder``; hits and misses count unique items.

    An item is a hit only when every requested layer is stored. Misses are encoded in chunks
    and written back immediately, so an interrupted run keeps what it computed."""
    stats = CacheStats()
    unique = list(dict.fromkeys(items))
    index = {it: i for i, it in enumerate(unique)}
    layers = encoder.layers
    use_cache = cache.enabled and encoder.cacheable
    vectors: dict[int | None, list[np.ndarray | None]] = {la: [None] * len(unique) for la in layers}
    missing: list[int] = []
    if use_cache:
        keys = {
            la: [cache_key(encoder.id, encoder.pooling, la, it) for it in unique] for la in layers
        }
        found = cache.get(encoder.id, [k for la in layers for k in keys[la]])
        for i in range(len(unique)):
            if all(keys[la][i] in found for la in layers):
                for la in layers:
                    vectors[la][i] = found[keys[la][i]]
                stats.hits += 1
            else:
                missing.append(i)
        if progress:
            progress(stats.hits)
    else:
        missing = list(range(len(unique)))
    for start in range(0, len(missing), chunk):
        part = missing[start : start + chunk]
        encoded = encoder.encode([unique[i] for i in part], batch_size=batch_size)
        to_store: dict[str, np.ndarray] = {}
        for la in layers:
            arr = np.asarray(encoded[la], dtype=np.float32)
            for row, i in enumerate(part):
                vectors[la][i] = arr[row]
                if use_cache:
                    to_store[cache_key(encoder.id, encoder.pooling, la, unique[i])] = arr[row]
        if use_cache:
            cache.put(encoder.id, to_store)
        stats.misses += len(part)
        if progress:
            progress(len(part))
    out: dict[int | None, np.ndarray] = {}
    rows = [index[it] for it in items]
    for la in layers:
        dim = max((len(v) for v in vectors[la] if v is not None), default=1)
        mat = np.zeros((len(unique), dim), np.float32)
        for i, v in enumerate(vectors[la]):
            if v is not None:
                mat[i] = v
        out[la] = mat[rows]
    return out, stats
