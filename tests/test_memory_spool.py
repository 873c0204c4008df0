"""The memory-lean write path must give exactly what the simple one gave.

The build keeps per-candidate and per-sentence data off the heap (spool files, memory-mapped
engine columns, group names re-read per row group) and takes statistics from the chunks as
they are written. Output bytes depend on values *and* on Arrow chunking (parquet pages follow
it), so these tests compare each lean piece with the obvious whole-table computation it replaces. Memory
itself is measured by ``bench/build_ud.py``, never asserted here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from polyprobe.builders.execution import rows as record_rows
from polyprobe.builders.execution.rows import canonical_sentences, materialise, materialise_chunks
from polyprobe.builders.variants import CandidateColumns
from polyprobe.cards import stats
from polyprobe.cards.folder import write_config_files
from polyprobe.cards.payload import ConfigPayload
from polyprobe.cards.schema import arrow_schema
from polyprobe.hashing import stable_u64
from polyprobe.runtime.spool import _COLUMNWISE_ROWS, BATCH, CandidateSpool, StringSpool


def _reference_canonical(hashes: np.ndarray) -> tuple[np.ndarray, int, int]:
    """What the build computed before: np.unique's first occurrence per distinct hash."""
    _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    return first[inverse], len(first), int(np.count_nonzero(np.bincount(inverse) > 1))


@pytest.mark.parametrize("n, distinct", [(0, 1), (1, 1), (7, 1), (1000, 10), (50_000, 30_000)])
def test_canonical_sentences_match_np_unique(n: int, distinct: int) -> None:
    rng = np.random.default_rng(n)
    vocab = rng.integers(0, 2**64 - 1, distinct, dtype=np.uint64, endpoint=True)
    hashes = vocab[rng.integers(0, distinct, n)] if n else np.empty(0, dtype=np.uint64)
    canonical, n_distinct, repeated = canonical_sentences(hashes)
    want, want_distinct, want_repeated = _reference_canonical(hashes)
    assert canonical.dtype == np.int32
    assert canonical.tolist() == want.tolist()
    assert (n_distinct, repeated) == ((want_distinct, want_repeated) if n else (0, 0))


def _rows(n: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        tokens = [f"w{j}" for j in rng.integers(0, 50, int(rng.integers(1, 12)))]
        out.append(
            {
                "id": f"TB/s{i}/task/{i % 2}",
                "inputs": {"sentence": " ".join(tokens), "tokens": tokens},
                "lexical_key": f"k{i % 13}" if i % 3 else "",
                "sentence_index": i // 2,
                "label": i % 3,
                "group": int(rng.integers(1, 2**63)),
                "split": i % 3,
                "group_name": f"TB/g{i % 5}" if i % 4 == 0 else None,
            }
        )
    return out


def _spool(tmp_path: Path, rows: list[dict]) -> CandidateSpool:
    spool = CandidateSpool(tmp_path / "task.arrow", ["sentence", "tokens"], seed=7)
    for r in rows:
        spool.add(
            r["id"],
            r["inputs"],
            r["lexical_key"],
            r["sentence_index"],
            r["label"],
            r["group"],
            r["split"],
            r["group_name"],
        )
    return spool


def _engine_columns(spool: CandidateSpool) -> CandidateColumns:
    """The spool's memory-mapped columns as the variant engine takes them (as
    ``builders.passes.write_task`` does)."""
    arrays = spool.numpy_columns()
    return CandidateColumns(
        label=arrays["label"],
        group=arrays["group"],
        key=arrays["key"],
        source_split=arrays["split"],
        order=arrays["order"],
    )


def test_spool_columns_round_trip_through_their_files(tmp_path: Path) -> None:
    rows = _rows(2 * BATCH + 5)
    spool = _spool(tmp_path, rows)
    assert len(spool) == len(rows)
    cols = _engine_columns(spool)
    reader = spool.close()
    assert reader is not None
    assert cols.label.tolist() == [r["label"] for r in rows]
    assert cols.group.tolist() == [r["group"] for r in rows]
    assert cols.source_split.tolist() == [r["split"] for r in rows]
    assert (cols.key == 0).tolist() == [not r["lexical_key"] for r in rows]
    assert (cols.label.dtype, cols.group.dtype, cols.source_split.dtype) == (
        np.int16,
        np.uint64,
        np.int8,
    )
    assert cols.order.tolist() == [stable_u64(7, r["id"]) for r in rows]
    before = cols.order.copy()
    reader.drop_engine_pages()  # resident pages go, values stay (re-read from the file)
    assert cols.order.tolist() == before.tolist()
    assert cols.label.tolist() == [r["label"] for r in rows]
    reader.close()
    spool.release()


def test_empty_spool_has_empty_columns(tmp_path: Path) -> None:
    spool = CandidateSpool(tmp_path / "empty.arrow", ["sentence", "tokens"])
    cols = spool.numpy_columns()
    assert sorted(cols) == ["group", "key", "label", "order", "split"]
    assert all(len(a) == 0 for a in cols.values()) and cols["order"].dtype == np.uint64
    assert spool.close() is None


@pytest.mark.parametrize("size", [0, 1, 37, _COLUMNWISE_ROWS - 1, _COLUMNWISE_ROWS + 3])
def test_take_equals_a_whole_table_take_in_one_chunk(tmp_path: Path, size: int) -> None:
    rows = _rows(3 * BATCH + 11, seed=size)
    spool = _spool(tmp_path, rows)
    spool.numpy_columns()
    reader = spool.close()
    assert reader is not None
    whole = pa.ipc.open_file(pa.memory_map(str(tmp_path / "task.arrow"))).read_all()
    rng = np.random.default_rng(size)
    indices = rng.integers(0, len(rows), size)  # shuffled, with repeats
    for columns in (None, ["tokens", "id"], ["group"]):
        got = reader.take(indices, columns)
        want = whole.take(pa.array(indices, type=pa.int64()))
        if columns is not None:
            want = want.select(columns)
        assert got.equals(want)
        assert all(c.num_chunks == 1 for c in got.columns)  # parquet bytes follow chunking
    reader.close()


def test_string_spool_reads_names_back_by_index(tmp_path: Path) -> None:
    names = StringSpool(tmp_path / "groups.arrow")
    values = [f"TB/sent-{i}" for i in range(BATCH + 100)]
    for v in values:
        names.add(v)
    reader = names.close()
    assert reader is not None
    pick = np.array([5, BATCH + 99, 0, 5])
    assert reader.take(pick).column(0).to_pylist() == [values[i] for i in pick]
    assert StringSpool(tmp_path / "none.arrow").close() is None


def _reference_stats(path: Path, k: int, examples: int) -> tuple:
    """What the writer computed before: whole row groups."""
    pf = pq.ParquetFile(path)
    rows = nbytes = 0
    counts = [0] * k
    first: list[dict] = []
    for i in range(pf.num_row_groups):
        group = pf.read_row_group(i, use_threads=False)
        rows += group.num_rows
        nbytes += group.nbytes
        counts = [a + b for a, b in zip(counts, stats.label_counts(group["label"], k), strict=True)]
        if len(first) < examples:
            first.extend(group.slice(0, examples - len(first)).to_pylist())
    return rows, counts, nbytes, first


@pytest.mark.parametrize("n_rows", [1, 2500])
def test_split_stats_from_written_chunks_equal_the_file_read_back(
    tmp_path: Path, n_rows: int
) -> None:
    """Rows, label counts and examples are taken from the chunks as they are written: they
    must be what the file holds; num_bytes is the Arrow size of those chunks."""
    labels = ["a", "b", "c"]
    schema = arrow_schema("sentence", labels)
    rows = _rows(n_rows)
    table = pa.Table.from_pylist(
        [
            {
                "id": r["id"],
                "sentence": r["inputs"]["sentence"],
                "tokens": r["inputs"]["tokens"],
                "label": r["label"],
                "group": r["group_name"] or "TB/x",
                "lexical_key": r["lexical_key"],
            }
            for r in rows
        ],
        schema=schema,
    )
    chunks = [table.slice(i, 1000) for i in range(0, table.num_rows, 1000)]  # row groups
    payload = ConfigPayload(
        name="cfg",
        task="t",
        level="sentence",
        description="d",
        label_names=labels,
        polyprobe={"variant": {"balance": "natural", "size": "full", "split": "ud"}},
        recipe={},
        splits={"train": lambda: iter(chunks), "test": table.slice(0, 0)},
    )
    card = write_config_files(tmp_path, payload)
    assert list(card.stats.splits) == ["train"]  # the empty split is not written
    st = card.stats.splits["train"]
    rows_back, counts_back, _, examples_back = _reference_stats(tmp_path / st.path, 3, 3)
    assert (
        (st.num_examples, st.label_counts)
        == (rows_back, counts_back)
        == (
            n_rows,
            [sum(r["label"] == k for r in rows) for k in range(3)],
        )
    )
    assert card.stats.examples == examples_back and len(examples_back) == min(3, n_rows)
    assert st.num_bytes == sum(c.nbytes for c in chunks)
    assert (tmp_path / "plots" / "cfg.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_materialised_chunks_are_single_chunk_row_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of ROW_GROUP rows, one Arrow chunk per column, groups filled from the canonical
    sentence's name where the task gave none."""
    monkeypatch.setattr(record_rows, "ROW_GROUP", 1000)
    rows = _rows(2 * BATCH)
    spool = _spool(tmp_path, rows)
    cols = _engine_columns(spool)
    reader = spool.close()
    assert reader is not None
    n_sentences = rows[-1]["sentence_index"] + 1
    names = StringSpool(tmp_path / "groups.arrow")
    for s in range(n_sentences):
        names.add(f"TB/s{s}")
    groups = names.close()
    assert groups is not None
    canonical = (np.arange(n_sentences) // 3 * 3).astype(np.int32)  # every third a duplicate

    class TV:  # the two TaskVariants fields materialise reads
        label_names = ["a", "b", "c"]
        label_remap = np.arange(3, dtype=np.int16)

    indices = np.random.default_rng(1).permutation(len(rows))[:2500]
    # what the writer gets: a callable that yields the split's row-group chunks
    split_source = materialise(
        reader,
        cols,
        "sentence",
        ("sentence", "tokens"),
        groups,
        canonical,
        False,  # scored: a class label
        indices,
        TV,  # type: ignore[arg-type]
    )
    chunks = list(split_source())
    assert [c.num_rows for c in chunks] == [1000, 1000, 500]
    assert all(col.num_chunks == 1 for c in chunks for col in c.columns)
    got = pa.concat_tables(chunks)
    assert got.column("id").to_pylist() == [rows[i]["id"] for i in indices]
    assert got.column("label").to_pylist() == [rows[i]["label"] for i in indices]
    want_groups = [
        rows[i]["group_name"] or f"TB/s{canonical[rows[i]['sentence_index']]}" for i in indices
    ]
    assert got.column("group").to_pylist() == want_groups
    # tokens are spooled joined by a line break and split again: same lists, empty included
    assert got.column("tokens").to_pylist() == [rows[i]["inputs"]["tokens"] for i in indices]


def test_tokens_round_trip_including_odd_forms(tmp_path: Path) -> None:
    odd = [["a b", "c"], [], ["", "x"], ["İ", "\u00a0", "\t"], ["only"]]
    rows = _rows(len(odd))
    for r, tokens in zip(rows, odd, strict=True):
        r["inputs"] = {"sentence": "s", "tokens": tokens}
    spool = _spool(tmp_path, rows)
    cols = _engine_columns(spool)
    reader = spool.close()
    assert reader is not None
    groups = StringSpool(tmp_path / "groups.arrow")
    for s in range(rows[-1]["sentence_index"] + 1):
        groups.add(f"TB/s{s}")
    greader = groups.close()

    class TV:
        label_names = ["a", "b", "c"]
        label_remap = np.arange(3, dtype=np.int16)

    canonical = np.arange(rows[-1]["sentence_index"] + 1, dtype=np.int32)
    (chunk,) = materialise_chunks(
        reader,
        np.arange(len(rows)),
        cols,
        TV,  # type: ignore[arg-type]
        "sentence",
        ("sentence", "tokens"),
        greader,  # type: ignore[arg-type]
        canonical,
    )
    assert chunk.column("tokens").to_pylist() == odd


def test_a_form_with_a_line_break_is_refused(tmp_path: Path) -> None:
    spool = CandidateSpool(tmp_path / "t.arrow", ["sentence", "tokens"])
    with pytest.raises(ValueError, match=r"TB/s1/task/0: a tokens item contains a line break"):
        spool.add("TB/s1/task/0", {"sentence": "a b", "tokens": ["a\nb"]}, "", 0, 0, 1, 0, None)
