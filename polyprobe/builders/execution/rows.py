"""Rows of record tasks: from candidates spooled while the records streamed by to tables in
the published schema, and the duplicate-text groups they carry.

A row's ``group`` is its task's own group when the task set one, else the group of the first
record with the same normalised text (:func:`canonical_sentences`), so identical sentences
never straddle splits; rows are taken from the spool one parquet row group at a time, so a
split is never whole in memory (see docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from polyprobe.builders.task import SCORE_COLUMN
from polyprobe.builders.variants import CandidateColumns, TaskVariants, _argsort_by_index_ties
from polyprobe.cards.folder import ROW_GROUP
from polyprobe.cards.schema import arrow_schema
from polyprobe.runtime.spool import LIST_COLUMNS, SpoolReader, joined_lists


def canonical_sentences(hashes: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Per sentence, the index of the first sentence with the same text hash (int32 while the
    corpus has fewer than 2**31 sentences); also the number of distinct texts and of texts read
    more than once. What ``np.unique(return_index=True, return_inverse=True)`` gives, with ~30
    bytes of scratch per sentence instead of ~50 and a 4-byte result instead of 8."""
    n = hashes.size
    index_type = np.int32 if n < 2**31 else np.int64
    if n == 0:
        return np.empty(0, dtype=index_type), 0, 0
    perm = _argsort_by_index_ties(hashes)  # equal hashes in sentence order: first = earliest
    ordered = hashes[perm]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    starts = np.flatnonzero(new)
    run = np.cumsum(new, dtype=index_type)
    del new
    run -= 1
    canonical = np.empty(n, dtype=index_type)
    canonical[perm] = perm[starts].astype(index_type)[run]
    repeated = int(np.count_nonzero(np.diff(starts, append=n) > 1))
    return canonical, int(starts.size), repeated


def materialise(
    rows: SpoolReader,
    cols: CandidateColumns,
    level: str,
    input_columns: Sequence[str],
    groups: SpoolReader,
    canonical_sentence: np.ndarray,
    scored: bool,
    indices: np.ndarray,
    tv: TaskVariants,
) -> Callable[[], Iterator[pa.Table]]:
    """:func:`materialise_chunks` of one split, as the writer takes it: a callable it runs
    when it writes the split. ``scored``: the label is the spooled score (a float)."""
    return partial(
        materialise_chunks,
        rows,
        indices,
        cols,
        tv,
        level,
        input_columns,
        groups,
        canonical_sentence,
        scored,
    )


def materialise_chunks(
    rows: SpoolReader,
    indices: np.ndarray,
    cols: CandidateColumns,
    tv: TaskVariants,
    level: str,
    input_columns: Sequence[str],
    groups: SpoolReader,
    canonical_sentence: np.ndarray,
    scored: bool = False,
) -> Iterator[pa.Table]:
    """One split of one config in the published schema, rows in the engine's order, in chunks
    of one parquet row group, so a split never has to sit in memory whole.

    Each chunk is yielded straight from the call that builds it: the generator keeps no
    reference to it, so while the writer encodes a chunk and while the next one is taken,
    only the writer's reference keeps a chunk alive (holding the previous chunk across the
    next take once doubled the working set)."""
    schema = arrow_schema(level, [] if scored else tv.label_names, scored=scored)
    rows.drop_engine_pages()  # the variants are made: see SpoolReader.drop_engine_pages
    for start in range(0, len(indices), ROW_GROUP):
        yield _materialise_chunk(
            rows,
            indices[start : start + ROW_GROUP],
            cols,
            tv,
            input_columns,
            groups,
            canonical_sentence,
            schema,
            scored,
        )


def _materialise_chunk(
    rows: SpoolReader,
    indices: np.ndarray,
    cols: CandidateColumns,
    tv: TaskVariants,
    input_columns: Sequence[str],
    groups: SpoolReader,
    canonical_sentence: np.ndarray,
    schema: pa.Schema,
    scored: bool = False,
) -> pa.Table:
    """Rows ``indices`` in the published schema (see :func:`materialise_chunks`)."""
    idx = np.asarray(indices, dtype=np.int64)
    labels = tv.label_remap[cols.label[idx]].astype(np.int64)
    if labels.size and labels.min() < 0:
        raise AssertionError("variant engine returned a candidate of a dropped class")
    taken = rows.take(idx)
    label_column = taken.column(SCORE_COLUMN) if scored else pa.array(labels, type=pa.int64())
    del idx
    sentences = canonical_sentence[taken.column("sentence_index").to_numpy()]
    names = groups.take(sentences).column(0)
    del sentences
    arrays: dict[str, Any] = {
        "id": taken.column("id"),
        "label": label_column,
        # A task's own group wins; otherwise the group of the first sentence with that text.
        "group": pc.coalesce(taken.column("group"), names),
        "lexical_key": taken.column("lexical_key"),
    }
    for c in input_columns:
        arrays[c] = taken.column(c)
        if c in LIST_COLUMNS:  # joined when spooled
            arrays[c] = joined_lists(arrays[c])
    del taken, labels, names
    table = pa.Table.from_arrays([pc.cast(arrays[f.name], f.type) for f in schema], schema=schema)
    del arrays
    pa.default_memory_pool().release_unused()  # the scratch of the takes, before encoding
    return table
