"""The translation cache: one SQLite file per translator id, keyed by the source text.

Why SQLite and why per text: a translation run is long and may be interrupted; every batch's
results are committed as soon as they exist, so a rerun translates only what is missing, and
the same text met in another dataset (or another config) is never translated twice. The key
is (translator id, text): a different model or callable never reuses another's output.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from polyprobe.hashing import stable_u64


def default_cache_dir() -> Path:
    root = os.environ.get("POLYPROBE_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "polyprobe"
    return base / "translations"


class TranslationCache:
    def __init__(self, root: str | Path | None, translator_id: str) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        name = f"{stable_u64('translation-cache', translator_id):016x}.sqlite"
        self.path = self.root / name
        self._db = sqlite3.connect(self.path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS tr (source TEXT PRIMARY KEY, target TEXT NOT NULL)"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('translator', ?)", (translator_id,))
        self._db.commit()

    def get(self, texts: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for start in range(0, len(texts), 500):
            part = texts[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT source, target FROM tr WHERE source IN ({marks})", part
            )
            out.update(dict(rows.fetchall()))
        return out

    def put(self, pairs: dict[str, str]) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO tr VALUES (?, ?)", list(pairs.items()))

    def close(self) -> None:
        self._db.close()
