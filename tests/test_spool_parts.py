"""A task spooled by record range in several processes reads as the spool one process would
have written (``polyprobe.runtime.spool.SpoolParts``): rows by index across the parts, each
column one chunk, ``sentence_index`` shifted to index the whole stream, and the engine's
columns concatenated in range order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from polyprobe.runtime.spool import CandidateSpool, open_spooled, open_spooled_parts

# Records per range and candidates per record: a range with no candidates in the middle.
RANGES = [(5, 3), (4, 0), (7, 2), (3, 5)]


def _spool(path: Path, rows: list[tuple[int, int, int, int]]) -> int:
    """Spool rows (record, its index in this spool's stream, copy, label)."""
    spool = CandidateSpool(path, ("sentence", "tokens"), seed=3)
    for record, index, copy, label in rows:
        spool.add(
            f"src/s{record}/task/{copy}",
            {"sentence": f"text {record}", "tokens": [f"w{record}", str(copy)]},
            f"key{record % 4}",
            index,
            label,
            record * 7919 + 1,
            record % 3,
            None if copy else f"src/g{record}",
        )
    reader = spool.close()
    if reader is not None:
        reader.close()
    return len(spool)


def test_parts_read_as_the_whole_spool(tmp_path: Path) -> None:
    whole: list[tuple[int, int, int, int]] = []
    parts, records = [], []
    first = 0
    for k, (n, per) in enumerate(RANGES):
        local = [(first + r, r, c, (r + c) % 2) for r in range(n) for c in range(per)]
        whole += [(g, g, c, label) for g, _, c, label in local]
        parts.append((tmp_path / f"part{k}.arrow", _spool(tmp_path / f"part{k}.arrow", local)))
        records.append(n)
        first += n
    rows = _spool(tmp_path / "whole.arrow", whole)
    one_cols, one = open_spooled(tmp_path / "whole.arrow", rows)
    cols, spool = open_spooled_parts(parts, records)
    assert one is not None and spool is not None
    for name, values in one_cols.items():
        assert cols[name].dtype == values.dtype and np.array_equal(cols[name], values), name
    rng = np.random.default_rng(0)
    for indices in (rng.permutation(rows), rng.choice(rows, 9, replace=False), np.arange(3)):
        for columns in (None, ["sentence_index", "id"], ["tokens"]):
            got = spool.take(indices, columns)
            want = one.take(indices, columns)
            assert got.equals(want), (indices, columns)
            assert all(got.column(c).num_chunks == 1 for c in got.column_names)
    assert spool.take(np.empty(0, dtype=np.int64)).equals(one.take(np.empty(0, dtype=np.int64)))
    assert pa.types.is_uint32(spool.take(np.arange(2)).schema.field("sentence_index").type)
    spool.close()
    one.close()
