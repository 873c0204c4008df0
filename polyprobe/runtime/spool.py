"""Candidate storage for ``build_ud``: rows spooled to Arrow IPC files while the treebanks
stream by, read back a row group at a time when configs are written.

Only the variant engine's compact columns (label, group, key, split, order: ~27 bytes a
candidate) are ever loaded whole, and only for the task being written; rows, group names and
those columns otherwise live on disk, so memory does not grow with the corpus (see
docs/ARCHITECTURE.md, "Pipeline → variant engine", and ``bench/build_ud.py``).
"""

from __future__ import annotations

import contextlib
import mmap
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from polyprobe.hashing import stable_u64, stable_u64_each

BATCH = 4096
# List columns (a sentence's surface forms) are spooled as one string joined by a newline, a
# character no CoNLL-U form can contain (the format is line-based): converting a batch of
# Python lists to Arrow lists cost more than the rest of the spooling, joined strings almost
# nothing; the lists are rebuilt with one vectorised split when a config is written.
LIST_COLUMNS = frozenset({"tokens"})
_JOIN = "\n"
_KEY_CACHE_MAX = 1 << 16
_SPOOL_TYPES = {"sentence_index": pa.uint32(), "group": pa.string(), "lexical_key": pa.string()}
# Spooled batches are compressed (Arrow's IPC buffer compression, one batch at a time, so a
# take still decodes only the batches it touches): a spool holds every candidate's text,
# ~480 bytes a candidate uncompressed, 6x the XML of a dump build (bench/README.md).
# Measured at ×5 of the English excerpt (stop 45): the passes' folder 190 MB uncompressed,
# 91 MB with lz4, 65 MB with zstd, for +0.5 s of a 20 s build.
_COMPRESSION = "zstd"


def _writer(path: Path, schema: pa.Schema) -> pa.ipc.RecordBatchFileWriter:
    options = pa.ipc.IpcWriteOptions(compression=_COMPRESSION)
    return pa.ipc.new_file(str(path), schema, options=options)


class CandidateSpool:
    """Candidate rows of one task, written to an Arrow IPC file in batches as they arrive.

    The engine's numpy columns (label, group, key, split, order: ~27 bytes a candidate) go to
    disk too, one raw file per column, at every flush: while the treebanks stream by, memory
    holds one batch of rows and columns per task whatever the corpus size. They come back
    memory-mapped (:meth:`numpy_columns`) for the task being written only, and once its
    variants are made their pages are dropped from resident memory
    (:meth:`SpoolReader.drop_engine_pages`): writing reads only the labels again."""

    def __init__(self, path: Path, input_columns: Sequence[str], seed: int = 0):
        self.path = path
        self.seed = seed  # rows' engine order: stable_u64(seed, row id)
        self.input_columns = list(input_columns)
        self.columns = ["id", *self.input_columns, "lexical_key", "sentence_index", "group"]
        self._joined = [c for c in self.input_columns if c in LIST_COLUMNS]
        self._plain = [c for c in self.input_columns if c not in LIST_COLUMNS]
        self._buf: dict[str, list[Any]] = {c: [] for c in self.columns}
        self._writer: pa.ipc.RecordBatchFileWriter | None = None
        self._flushed = 0  # candidates whose rows and columns are on disk
        self._maps: list[mmap.mmap] = []  # the mapped column files (numpy_columns)
        self.label = array("h")
        self.group = array("Q")
        self.key = array("Q")
        self.split = array("b")
        self.order = array("Q")
        # Lexical keys repeat (a lemma, a replacement class): hashed once each, in a cache
        # that is emptied when full, so memory does not follow the corpus.
        self._key_hashes: dict[str, int] = {}

    def add(
        self,
        row_id: str,
        inputs: dict[str, Any],
        lexical_key: str,
        sentence_index: int,
        label: int,
        group: int,
        split: int,
        group_name: str | None,
    ) -> None:
        buf = self._buf
        buf["group"].append(group_name)
        buf["id"].append(row_id)
        for c in self._plain:
            buf[c].append(inputs[c])
        for c in self._joined:
            forms = inputs[c]
            joined = _JOIN.join(forms)
            if joined.count(_JOIN) != len(forms) - 1 and forms:
                raise ValueError(f"{row_id}: a {c} item contains a line break: {forms!r}")
            buf[c].append(joined if forms else None)
        buf["lexical_key"].append(lexical_key)
        buf["sentence_index"].append(sentence_index)
        self.label.append(label)
        self.group.append(group)
        key = self._key_hashes.get(lexical_key)
        if key is None:
            if len(self._key_hashes) >= _KEY_CACHE_MAX:
                self._key_hashes.clear()
            key = self._key_hashes[lexical_key] = (
                stable_u64("key", lexical_key) if lexical_key else 0
            )
        self.key.append(key)
        self.split.append(split)
        if len(buf["id"]) >= BATCH:
            self.flush()

    def _column_path(self, name: str) -> Path:
        return _column_path(self.path, name)

    def flush(self) -> None:
        if not self._buf["id"]:
            return
        batch = pa.record_batch(
            [pa.array(self._buf[c], type=_SPOOL_TYPES.get(c)) for c in self.columns],
            names=self.columns,
        )
        if self._writer is None:
            self._writer = _writer(self.path, batch.schema)
        self._writer.write_batch(batch)
        # Order hashes for the whole batch at once (one prefix encoding, no call per row).
        self.order.extend(stable_u64_each((self.seed,), self._buf["id"]))
        self._buf = {c: [] for c in self.columns}
        for name, _ in _NUMPY_COLUMNS:
            values = getattr(self, name)
            with open(self._column_path(name), "ab") as fh:
                values.tofile(fh)
            del values[:]
        self._flushed += batch.num_rows

    def close(self) -> SpoolReader | None:
        self.flush()
        if self._writer is None:
            return None
        self._writer.close()
        return SpoolReader(self.path, self._maps)

    def numpy_columns(self) -> dict[str, np.ndarray]:
        """The engine's columns: read-only views of their memory-mapped files."""
        self.flush()
        return _map_columns(self.path, self._flushed, self._maps)

    def release(self) -> None:
        """Forget the maps and delete the column files once the task's configs are written
        (a map closes when the last array viewing it goes)."""
        self._maps = []
        for name, _ in _NUMPY_COLUMNS:
            with contextlib.suppress(OSError):  # still mapped somewhere (Windows): rmtree later
                self._column_path(name).unlink(missing_ok=True)

    def __len__(self) -> int:
        return self._flushed + len(self.label)


def _column_path(path: Path, name: str) -> Path:
    return path.with_name(f"{path.stem}.{name}.bin")


def _map_columns(path: Path, rows: int, maps: list[mmap.mmap]) -> dict[str, np.ndarray]:
    """The engine's columns of the spool at ``path`` (``rows`` candidates flushed) as
    read-only views of their memory-mapped files; the maps are appended to ``maps``."""
    arrays: dict[str, np.ndarray] = {}
    for name, dtype in _NUMPY_COLUMNS:
        if not rows:  # an empty file cannot be mapped
            arrays[name] = np.empty(0, dtype=dtype)
            continue
        with open(_column_path(path, name), "rb") as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        maps.append(mapped)
        arrays[name] = np.frombuffer(mapped, dtype=dtype)
    return arrays


def open_spooled(path: Path, rows: int) -> tuple[dict[str, np.ndarray], SpoolReader | None]:
    """What ``numpy_columns()`` and ``close()`` gave the :class:`CandidateSpool` that wrote
    ``rows`` candidates to ``path``, for whichever process writes the task's configs (see
    ``polyprobe.runtime.parallel``)."""
    maps: list[mmap.mmap] = []
    cols = _map_columns(path, rows, maps)
    return cols, (SpoolReader(path, maps) if rows else None)


def open_spooled_parts(
    parts: Sequence[tuple[Path, int]], records: Sequence[int]
) -> tuple[dict[str, np.ndarray], SpoolReader | SpoolParts | None]:
    """:func:`open_spooled` for a task spooled by record range in several processes:
    ``parts`` are each range's spool and its row count, ``records`` each range's number of
    records. One part is :func:`open_spooled` itself; several are read as one
    (:class:`SpoolParts`), their engine columns concatenated in memory (read, not mapped:
    the copy is the only one resident)."""
    if len(parts) == 1:
        return open_spooled(*parts[0])
    arrays = {
        name: np.concatenate(
            [
                np.fromfile(_column_path(path, name), dtype=dtype) if rows else np.empty(0, dtype)
                for path, rows in parts
            ]
        )
        for name, dtype in _NUMPY_COLUMNS
    }
    before = np.cumsum([0, *records[:-1]]).tolist()
    readers = [
        (SpoolReader(path) if rows else None, rows, offset)
        for (path, rows), offset in zip(parts, before, strict=True)
    ]
    total = sum(rows for _, rows in parts)
    return arrays, (SpoolParts(readers) if total else None)


class SpoolParts:
    """Spools written by record range in several processes, read as one spool: row indices
    run on from one part to the next, and each row's ``sentence_index`` (its record within
    its range) is shifted by the records of the ranges before, so that it indexes the whole
    stream. ``parts``: (reader or None when empty, rows, records before its range)."""

    def __init__(self, parts: Sequence[tuple[SpoolReader | None, int, int]]):
        self.parts = list(parts)
        self.starts = np.cumsum([0, *(rows for _, rows, _ in self.parts)])

    def take(self, indices: np.ndarray, columns: Sequence[str] | None = None) -> pa.Table:
        """Rows ``indices`` (any order, as given) of ``columns``, as
        :meth:`SpoolReader.take` gives them (each column one chunk)."""
        indices = np.asarray(indices, dtype=np.int64)
        part_of = np.searchsorted(self.starts, indices, side="right") - 1
        tables: list[pa.Table] = []
        positions: list[np.ndarray] = []
        for p in np.unique(part_of).tolist():
            reader, _, offset = self.parts[p]
            assert reader is not None
            at = np.flatnonzero(part_of == p)
            table = reader.take(indices[at] - self.starts[p], columns)
            names = table.column_names
            if offset and "sentence_index" in names:
                i = names.index("sentence_index")
                shifted = pc.add_checked(table.column(i), pa.scalar(offset, pa.uint32()))
                table = table.set_column(i, "sentence_index", shifted)
            tables.append(table)
            positions.append(at)
        if len(tables) == 1:
            return tables[0]
        if not tables:
            return self._empty(columns)
        order = np.argsort(np.concatenate(positions), kind="stable")
        return pa.concat_tables(tables).take(pa.array(order)).combine_chunks()

    def _empty(self, columns: Sequence[str] | None) -> pa.Table:
        reader = next(r for r, _, _ in self.parts if r is not None)
        return reader.take(np.empty(0, dtype=np.int64), columns)

    def drop_engine_pages(self) -> None:
        for reader, _, _ in self.parts:
            if reader is not None:
                reader.drop_engine_pages()

    def close(self) -> None:
        for reader, _, _ in self.parts:
            if reader is not None:
                reader.close()


# The engine's columns as _Spool keeps them: attribute (and file) name, numpy dtype; the
# attributes are ``array.array`` objects of the matching typecode.
_NUMPY_COLUMNS: tuple[tuple[str, type[np.generic]], ...] = (
    ("label", np.int16),
    ("group", np.uint64),
    ("key", np.uint64),
    ("split", np.int8),
    ("order", np.uint64),
)


class StringSpool:
    """One string per sentence (its group name) on disk, read back by :class:`SpoolReader`
    a batch at a time: a whole table of names (or a memory map of one, whose touched pages
    count as resident) would grow with the corpus."""

    def __init__(self, path: Path):
        self.path = path
        self._buf: list[str] = []
        self._writer: pa.ipc.RecordBatchFileWriter | None = None

    def add(self, value: str) -> None:
        self._buf.append(value)
        if len(self._buf) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._buf:
            return
        batch = pa.record_batch([pa.array(self._buf, type=pa.string())], names=["group"])
        if self._writer is None:
            self._writer = _writer(self.path, batch.schema)
        self._writer.write_batch(batch)
        self._buf = []

    def close(self) -> SpoolReader | None:
        """A reader of the strings (None when nothing was added)."""
        self._flush()
        if self._writer is None:
            return None
        self._writer.close()
        return SpoolReader(self.path)


# Takes of at least this many rows read the spool one column at a time (largest first), so the
# scratch beyond the result is about one column rather than all of them; smaller takes read
# each batch once (their scratch is small anyway, and per-column passes cost time).
_COLUMNWISE_ROWS = 4 * BATCH


class _TakePlan:
    """Where rows ``indices`` (any order) live in a spool of ``BATCH``-row batches: per batch
    touched, the local row numbers in batch order; and the permutation back to the order
    asked for. Made once per take and shared by the passes over its columns."""

    def __init__(self, indices: np.ndarray):
        indices = np.asarray(indices, dtype=np.int64)
        self.size = int(indices.size)
        perm = np.argsort(indices, kind="stable")
        ordered = indices[perm]
        batch_of = ordered // BATCH
        cuts = np.flatnonzero(np.diff(batch_of)) + 1
        bounds = zip(
            np.concatenate([[0], cuts]).tolist(),
            np.concatenate([cuts, [ordered.size]]).tolist(),
            strict=True,
        )
        self.runs = [
            (int(batch_of[a]), pa.array(ordered[a:b] - int(batch_of[a]) * BATCH))
            for a, b in bounds
            if a < b
        ]
        back = np.empty_like(perm)
        back[perm] = np.arange(perm.size)
        self.back = pa.array(back)


class SpoolReader:
    """Random access to spooled rows by index, reading only the record batches they fall in.

    Plain file reads rather than a memory map: a map's pages count as the process's resident
    memory, and taking a shuffled split touches every page of the spool."""

    def __init__(self, path: Path, engine_maps: list[mmap.mmap] | None = None):
        self.path = path
        # The spool's own list (not a copy): columns mapped after close() are seen too.
        self._engine_maps = engine_maps if engine_maps is not None else []
        self._file = pa.OSFile(str(path))
        self._readers: dict[tuple[int, ...] | None, pa.ipc.RecordBatchFileReader] = {}
        self.schema = self._reader(None).schema

    def _reader(self, fields: tuple[int, ...] | None) -> pa.ipc.RecordBatchFileReader:
        """A reader of the file that decodes only ``fields`` (None: all), kept for reuse."""
        reader = self._readers.get(fields)
        if reader is None:
            options = (
                None if fields is None else pa.ipc.IpcReadOptions(included_fields=list(fields))
            )
            reader = self._readers[fields] = pa.ipc.open_file(self._file, options=options)
        return reader

    def take(self, indices: np.ndarray, columns: Sequence[str] | None = None) -> pa.Table:
        """Rows ``indices`` (any order, as given) of ``columns`` (default: all).

        Each column comes out as one chunk, as one ``Table.take`` would give (parquet pages,
        hence output bytes, depend on chunking). A column's rows are gathered in batch order,
        concatenated, then put in the requested order, and its batch-order copy is dropped at
        once; large takes do this one column at a time, the largest first (see
        ``_COLUMNWISE_ROWS``), so no second copy of every column ever exists."""
        plan = _TakePlan(indices)
        schema = self.schema
        names = list(schema.names if columns is None else columns)
        passes = [names]
        if plan.size >= _COLUMNWISE_ROWS and len(names) > 1:
            first = self._reader(None).get_batch(plan.runs[0][0])
            passes = [[n] for n in sorted(names, key=lambda n: -first.column(n).nbytes)]
            del first
        out: dict[str, pa.Array] = {}
        for wanted in passes:
            reader = self._reader(tuple(sorted(schema.get_field_index(n) for n in wanted)))
            pieces: dict[str, list[pa.Array]] = {n: [] for n in wanted}
            for b, local in plan.runs:
                batch = reader.get_batch(b).take(local)
                for n in wanted:
                    pieces[n].append(batch.column(n))
                del batch
            for n in wanted:
                parts = pieces.pop(n)
                in_batch_order = (
                    pa.concat_arrays(parts) if parts else pa.array([], schema.field(n).type)
                )
                del parts
                out[n] = in_batch_order.take(plan.back)
                del in_batch_order
            # Freed scratch back to the OS now: Arrow's allocator would otherwise keep it, and
            # resident memory would hold every pass's scratch at once.
            pa.default_memory_pool().release_unused()
        return pa.Table.from_arrays(
            [out.pop(n) for n in names], schema=pa.schema([schema.field(n) for n in names])
        )

    def drop_engine_pages(self) -> None:
        """Drop the resident pages of the task's memory-mapped engine columns. Once the
        variants are made only labels are read again (a fault brings back just the pages
        touched, from the page cache), so the other ~25 bytes a candidate need not stay
        resident while the task's configs are written."""
        if not hasattr(mmap, "MADV_DONTNEED"):
            return
        for mapped in self._engine_maps:
            mapped.madvise(mmap.MADV_DONTNEED)

    def close(self) -> None:
        self._engine_maps = []
        self._readers.clear()
        self._file.close()


def joined_lists(column: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """A :data:`LIST_COLUMNS` column as spooled (one joined string per row) back as lists."""
    return pc.fill_null(pc.split_pattern(column, _JOIN), pa.scalar([], type=pa.list_(pa.string())))
