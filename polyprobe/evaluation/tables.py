"""A config's splits as Arrow tables, read through ``datasets`` without filling its cache.

Why two paths:

* A **local folder** is read in place with ``datasets``' streaming mode (its builder resolves
  the configs and data files exactly as ``load_dataset`` does, then reads the files as they
  are). ``load_dataset`` without streaming would first copy every split into Arrow files
  under ``~/.cache/huggingface/datasets`` — a copy of data that is already on disk, left
  behind after every evaluation, and keyed by ``datasets`` on the folder's *name* rather than
  its contents (a folder rebuilt in place was served stale rows). Even streaming makes its
  builder take a lock file in the cache directory, so the builder gets a temporary cache
  directory that is removed as soon as the rows are read: the user's datasets cache is never
  touched.
* A **Hub dataset** must be downloaded anyway; ``load_dataset`` keeps it in the datasets cache
  (``cache_dir``, else ``HF_DATASETS_CACHE``, else ``~/.cache/huggingface/datasets``) so the
  next evaluation does not download it again.

Both give each split's rows as one ``pyarrow.Table`` and, to name the place of a bad row, the
files a split was read from in order (local folders) or the dataset id (Hub).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError

BATCH_ROWS = 50_000


@dataclass
class SplitTables:
    """Rows per split (the split names as the dataset spells them), their features (``None``
    when ``datasets`` could not tell), and where each split's rows come from."""

    dataset: str
    config: str
    tables: dict[str, Any]  # split -> pyarrow.Table
    features: dict[str, Any | None]  # split -> datasets.Features | None
    files: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)

    def where(self, split: str, row: int) -> tuple[str, str]:
        """``(path, "row N")`` of a split's 0-based ``row``: the data file and the row in it
        (1-based) when the split's files are known, else the dataset and the row in the split."""
        offset = 0
        for path, n in self.files.get(split, []):
            if n is None:
                break
            if row < offset + n:
                return path, f"row {row - offset + 1}"
            offset += n
        return self.dataset, f"config {self.config!r}, split {split!r}, row {row + 1}"


def _parquet_rows(path: str) -> int | None:
    if not path.endswith(".parquet"):
        return None
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - only used to name a row's file; unknown is fine
        return None


def _check_parquet(path: str) -> None:
    """A parquet data file that pyarrow cannot open is named here, before ``datasets`` logs
    its own error and raises one that does not name the file."""
    if not path.endswith(".parquet"):
        return
    import pyarrow.parquet as pq

    try:
        pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError: a file we cannot read
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            path, None, f"not a readable parquet file: {first}", "bad-parquet"
        ) from None


def _read_local(dataset: str, config: str) -> SplitTables:
    import datasets as hf
    import pyarrow as pa

    with tempfile.TemporaryDirectory(prefix="polyprobe-datasets-") as tmp:
        builder = hf.load_dataset_builder(dataset, config, cache_dir=tmp)
        data_files = builder.config.data_files or {}
        for paths in data_files.values():
            for path in paths:
                _check_parquet(str(path))
        streams = builder.as_streaming_dataset()
        tables: dict[str, Any] = {}
        features: dict[str, Any | None] = {}
        files: dict[str, list[tuple[str, int | None]]] = {}
        for split, stream in streams.items():
            batches = list(stream.with_format("arrow").iter(batch_size=BATCH_ROWS))
            if batches:
                table = pa.concat_tables(batches)
            elif stream.features is not None:
                table = stream.features.arrow_schema.empty_table()
            else:
                table = pa.table({})
            tables[split] = table
            features[split] = stream.features
            paths = [str(p) for p in data_files.get(split, [])]
            files[split] = [(p, _parquet_rows(p)) for p in paths]
    return SplitTables(dataset, config, tables, features, files)


def _read_hub(
    dataset: str, config: str, revision: str | None, cache_dir: str | Path | None
) -> SplitTables:
    import datasets as hf

    dsd = hf.load_dataset(
        dataset,
        config,
        revision=revision,
        cache_dir=None if cache_dir is None else str(Path(cache_dir).expanduser()),
    )
    tables = {split: ds.with_format("arrow")[:] for split, ds in dsd.items()}
    features = {split: ds.features for split, ds in dsd.items()}
    return SplitTables(dataset, config, tables, features)


def read_splits(
    dataset: str, config: str, revision: str | None = None, cache_dir: str | Path | None = None
) -> SplitTables:
    """Every split of ``config``: a local folder read in place (nothing cached), a Hub
    dataset through ``load_dataset`` (cached in ``cache_dir`` or ``datasets``' default)."""
    local = Path(dataset).expanduser().is_dir()
    try:
        if local:
            return _read_local(str(Path(dataset).expanduser()), config)
        return _read_hub(dataset, config, revision, cache_dir)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - datasets raises many types for a bad dataset
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            dataset, None, f"cannot load config {config!r}: {first}", "bad-dataset"
        ) from None
