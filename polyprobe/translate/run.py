"""Translate the texts of a dataset folder or a text file into a translation file.

Input: a polyprobe (or any parquet) dataset folder — every ``data/<config>/*.parquet`` file's
text columns (``sentence``, ``sentence1``, ``sentence2``, ``text``, or those named) — or a
plain text file, one text per line. Each distinct text is translated once; the output is a
TSV ``id<TAB>source<TAB>text`` (the id of the text's first row, or its line number), written
atomically, and ``<out>.json`` with the provenance (translator id, system, version, date,
languages, counts) that ``build trec --translation`` and the cards record.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError, UsageError
from polyprobe.translate.batching import BatchStats, translate_batch
from polyprobe.translate.cache import TranslationCache
from polyprobe.translate.translators import Translator

TEXT_COLUMNS: tuple[str, ...] = ("sentence", "sentence1", "sentence2", "text")


@dataclass
class TranslateReport:
    out: Path
    texts: int
    cached: int
    translated: int
    stats: BatchStats
    provenance: dict[str, Any] = field(default_factory=dict)


def collect_texts(
    dataset: Path, columns: Sequence[str] | None = None, configs: Sequence[str] | None = None
) -> list[tuple[str, str]]:
    """(id, text) of every distinct text, in a fixed order (configs, splits, rows)."""
    seen: dict[str, str] = {}
    if dataset.is_file():
        # A text file through the input layer: strict UTF-8 (plain or gzip), a bad byte, a
        # control character or an over-long line an error at its line, an empty file named;
        # never decoded in a guessed encoding.
        from polyprobe.loaders.inputs import no_entries, text_lines
        from polyprobe.loaders.source import InvalidPolicy

        for no, line in text_lines(dataset, InvalidPolicy("raise")):
            if line.strip():
                seen.setdefault(line.strip(), str(no))
        if not seen:
            raise no_entries(dataset, "no text on any line")
        return [(i, t) for t, i in seen.items()]
    files = sorted((dataset / "data").glob("*/*.parquet")) if (dataset / "data").is_dir() else []
    if not files:
        files = sorted(dataset.rglob("*.parquet"))
    if not files:
        raise InputError(dataset, None, "no parquet files and not a text file", "no-texts")
    import pyarrow.parquet as pq

    from polyprobe.cards.stats import split_sort_key

    def order(p: Path) -> tuple[str, tuple[int, str]]:
        return (p.parent.name, split_sort_key(p.name.split("-")[0]))

    for path in sorted(files, key=order):
        if configs and path.parent.name not in configs:
            continue
        names = pq.read_schema(path).names
        wanted = [c for c in (columns or TEXT_COLUMNS) if c in names]
        if columns and len(wanted) != len(columns):
            missing = sorted(set(columns) - set(names))
            raise InputError(path, None, f"no column(s) {', '.join(missing)}", "no-column")
        if not wanted:
            continue
        table = pq.read_table(path, columns=[*wanted, *(["id"] if "id" in names else [])])
        ids = table.column("id").to_pylist() if "id" in names else None
        for col in wanted:
            for row, value in enumerate(table.column(col).to_pylist()):
                if isinstance(value, str) and value.strip():
                    rid = ids[row] if ids else f"{path.parent.name}/{row}"
                    seen.setdefault(
                        value, f"{rid}" if col in ("sentence", "text") else f"{rid}#{col}"
                    )
    if not seen:
        raise InputError(dataset, None, "no text column among the parquet files", "no-texts")
    return [(i, t) for t, i in seen.items()]


def translate_texts(
    texts: Sequence[str],
    translator: Translator,
    cache: TranslationCache,
    *,
    batch_size: int = 16,
    split_token: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[dict[str, str], int, BatchStats]:
    """Every text's translation: cached ones read, the rest translated in batches, each
    batch stored as soon as it is done (an interrupted run resumes from there)."""
    unique = list(dict.fromkeys(texts))
    found = cache.get(unique)
    cached = len(found)
    stats = BatchStats()
    todo = [t for t in unique if t not in found]
    for start in range(0, len(todo), max(1, batch_size)):
        batch = todo[start : start + batch_size]
        out = translate_batch(translator, batch, split_token, stats)
        done = dict(zip(batch, out, strict=True))
        cache.put(done)
        found.update(done)
        if progress is not None:
            progress(len(batch))
    return found, cached, stats


def write_translation_file(out: Path, rows: Iterable[tuple[str, str, str]]) -> None:
    """``id<TAB>source<TAB>text``, atomically (a temporary file renamed into place). Tabs and
    newlines inside texts become spaces: the format has one row per line."""

    def clean(s: str) -> str:
        return " ".join(s.replace("\t", " ").splitlines())

    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write("id\tsource\ttext\n")
            for rid, source, text in rows:
                f.write(f"{clean(rid)}\t{clean(source)}\t{clean(text)}\n")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def translate_dataset(
    dataset: str | Path,
    translator: Translator,
    out: str | Path,
    *,
    columns: Sequence[str] | None = None,
    configs: Sequence[str] | None = None,
    cache_dir: str | Path | None = None,
    batch_size: int = 16,
    split_token: str | None = None,
    source_lang: str = "en",
    target_lang: str = "",
    sample_creation: str = "machine-translated",
    progress: Callable[[int], None] | None = None,
) -> TranslateReport:
    """Translate ``dataset``'s texts with ``translator`` into the TSV ``out`` (and its
    provenance ``out + '.json'``)."""
    if batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, not {batch_size}")
    dataset, out = Path(dataset), Path(out)
    pairs = collect_texts(dataset, columns, configs)
    cache = TranslationCache(cache_dir, translator.id)
    try:
        found, cached, stats = translate_texts(
            [t for _, t in pairs],
            translator,
            cache,
            batch_size=batch_size,
            split_token=split_token,
            progress=progress,
        )
    finally:
        cache.close()
    write_translation_file(out, ((rid, text, found[text]) for rid, text in pairs))
    provenance = {
        "sample_creation": sample_creation,
        "system": translator.system,
        "version": translator.version,
        "date": _dt.date.today().isoformat(),
        "source_language": source_lang,
        "target_language": target_lang,
        "translator_id": translator.id,
        **({"details": translator.details} if translator.details else {}),
        "batching": {
            "batch_size": batch_size,
            "split_token": split_token,
            "batches": stats.batches,
            "fallback_batches": stats.fallback_batches,
        },
        "texts": len(pairs),
        "cached": cached,
        "translated": len(pairs) - cached,
        "input": dataset.name,
    }
    sidecar = out.with_name(out.name + ".json")
    sidecar.write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return TranslateReport(out, len(pairs), cached, len(pairs) - cached, stats, provenance)
