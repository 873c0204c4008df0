"""Content-addressed embedding cache on disk.

Why: encoding dominates evaluation time, and the same sentence recurs across probes, seeds,
tasks and configs. A vector is stored under blake2b(encoder id, pooling, layer, text, tokens,
target index); the encoder id already carries the resolved revision, so a changed model can
never be served old vectors. Keys are stable across processes and machines (no ``hash()``).

Storage: one SQLite file per encoder id (WAL mode, so concurrent runs can share it), vectors
as raw float32 bytes, and a ``meta`` table with the full encoder id and when the file was last
opened (``polyprobe cache info`` shows both; files written before the table existed show the
id as their file name has it). Location: ``--cache DIR``, else ``$POLYPROBE_CACHE/embeddings``,
else ``~/.cache/polyprobe/embeddings``. ``POLYPROBE_CACHE`` is the root of everything polyprobe
caches (embeddings, word2vec models under ``embeddings/w2v``, Wuggy tables under ``wuggy``:
``polyprobe.loaders.wuggy.default_cache_dir``), so one variable moves all of it.

What is cached: vectors that are expensive to make (``st:``, ``hf:``, ``w2v:``, ``vec:``, and
callables that carry a ``polyprobe_id``). The cheap deterministic baselines (``random``,
``borep``, ``char-ngrams``) are recomputed (``Encoder.cacheable = False``): BOREP's 4096
dimensions alone filled 330 MB of a 656 MB cache, to save less time than reading them back
costs. Their files from earlier versions are what ``polyprobe cache prune`` removes by default.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("encoder_id", encoder_id), ("last_used", str(int(time.time())))],
            )
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


# --------------------------------------------------------------------------- info and prune

#: Encoders recomputed rather than cached: their cache files are never read again.
RECOMPUTED_KINDS = frozenset({"random", "borep", "char-ngrams"})
_SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


@dataclass
class CacheEntry:
    """One thing in the cache folder: an encoder's SQLite file (with its WAL files), a
    word2vec model, or a leftover temporary file."""

    kind: str  # "embeddings" | "w2v" | "leftover"
    paths: list[Path]
    encoder_id: str  # the full id (meta table), else the file name's readable part
    encoder_kind: str
    vectors: int | None = None
    last_used: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(p.stat().st_size for p in self.paths if p.exists())

    @property
    def recomputed(self) -> bool:
        """An encoder that is recomputed now: its cache file is never read again."""
        return self.kind == "embeddings" and self.encoder_kind in RECOMPUTED_KINDS


def _kind_of(encoder_id: str) -> str:
    head = re.split(r"[:@?_]", encoder_id, maxsplit=1)[0]
    return head.lower()


def _read_meta(path: Path) -> tuple[str | None, int | None, float | None]:
    """(encoder id, vector count, last-used time) of a cache file, read-only; Nones for what
    cannot be read (a file from before the meta table, a locked or damaged file)."""
    enc_id = last = count = None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None, None, None
    try:
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta"))
            enc_id = rows.get("encoder_id")
            last = float(rows["last_used"]) if "last_used" in rows else None
        except (sqlite3.Error, ValueError):
            pass
        with contextlib.suppress(sqlite3.Error):
            count = int(conn.execute("SELECT COUNT(*) FROM vec").fetchone()[0])
    finally:
        conn.close()
    return enc_id, count, last


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cache_entries(root: str | Path | None = None) -> list[CacheEntry]:
    """Everything in the embedding cache folder, largest first."""
    base = Path(root).expanduser() if root else default_cache_dir()
    if not base.is_dir():
        return []
    entries: list[CacheEntry] = []
    for path in sorted(base.glob("*.sqlite")):
        enc_id, count, last = _read_meta(path)
        readable = enc_id or re.sub(r"-[0-9a-f]{12}$", "", path.stem)
        side = [path.with_name(path.name + s) for s in _SQLITE_SIDECARS]
        mtimes = [p.stat().st_mtime for p in [path, *side] if p.exists()]
        entry = CacheEntry(
            "embeddings",
            [path, *[p for p in side if p.exists()]],
            readable,
            _kind_of(readable),
            count,
            last if last is not None else max(mtimes),
        )
        if enc_id is None:
            entry.notes.append("written before polyprobe recorded ids: id from the file name")
        entries.append(entry)
    w2v = base / "w2v"
    if w2v.is_dir():
        for path in sorted(w2v.iterdir()):
            if not path.is_file():
                continue
            tmp = re.search(r"\.tmp(\d+)", path.name)
            if tmp and not _pid_alive(int(tmp.group(1))):
                entries.append(
                    CacheEntry("leftover", [path], path.name, "w2v", None, path.stat().st_mtime)
                )
            elif not tmp:
                entries.append(
                    CacheEntry("w2v", [path], path.stem, "w2v", None, path.stat().st_mtime)
                )
    entries.sort(key=lambda e: (-e.size, e.encoder_id))
    return entries


def select_prunable(
    entries: list[CacheEntry],
    *,
    everything: bool = False,
    encoders: list[str] | None = None,
    older_than_days: float | None = None,
    now: float | None = None,
) -> list[CacheEntry]:
    """What ``polyprobe cache prune`` removes. ``everything``: all of it. Else, with no
    filter: the files of encoders that are recomputed now (never read again) and temporary
    files left by a process that is gone. Filters (``encoders``: globs on the encoder id,
    e.g. ``'hf:*'``; ``older_than_days``: not used for that long) are combined with AND."""
    import fnmatch

    if everything:
        return list(entries)
    if not encoders and older_than_days is None:
        return [e for e in entries if e.recomputed or e.kind == "leftover"]
    now = time.time() if now is None else now
    out = []
    for e in entries:
        if encoders and not any(fnmatch.fnmatchcase(e.encoder_id, g) for g in encoders):
            continue
        if older_than_days is not None and now - e.last_used < older_than_days * 86400:
            continue
        out.append(e)
    return out


def remove_entries(entries: list[CacheEntry]) -> int:
    """Delete the entries' files; returns the bytes freed. A process that has a file open
    keeps reading it until it closes it (POSIX), then the space is freed."""
    freed = 0
    for e in entries:
        for p in e.paths:
            try:
                size = p.stat().st_size
                p.unlink()
                freed += size
            except FileNotFoundError:
                continue
    return freed
