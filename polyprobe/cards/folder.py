"""Dataset folder writer: a Hugging Face dataset repository on disk, written aside and renamed
into place.

Why it is shaped this way:

* Everything goes into a hidden sibling of ``out`` (same parent, so the final ``rename`` is
  atomic on one filesystem) and is renamed into place by :meth:`DatasetFolderWriter.finish`.
  An exception, a ``KeyboardInterrupt`` or a forgotten ``finish`` leaves no folder behind:
  the context manager aborts, and a ``weakref.finalize`` removes the temporary folder at
  garbage collection or interpreter exit if nobody else did. A SIGKILL leaves it: so its name
  carries the pid and host of the process that made it, and the next writer of the same
  ``out`` sweeps those whose process is gone (:func:`sweep_orphans`).
* Each config's split tables are written to parquet as soon as :meth:`add_config` receives
  them, so a build never holds more than one config's tables; only statistics are kept.
* Every number the card prints is computed from the tables as they are written (and
  ``validate`` recomputes it from the files).
* Output bytes depend only on the payloads: fixed parquet options, canonical split order,
  YAML from plain data, PNGs without a ``Software`` chunk, no timestamps, no absolute paths.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import secrets
import shutil
import socket
import warnings
import weakref
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from polyprobe.cards import schema
from polyprobe.cards.card import (
    README,
    REPORT,
    card_body,
    card_data,
    has_block,
    plain,
    plot_path,
    polyprobe_config_block,
    render_readme,
)
from polyprobe.cards.payload import ConfigCard, ConfigPayload, SplitCopy
from polyprobe.cards.stats import (
    EXAMPLE_ROWS,
    ConfigStats,
    ScoreMoments,
    SplitStats,
    label_counts,
    ordered_splits,
    score_histogram,
)
from polyprobe.errors import PolyprobeError
from polyprobe.hashing import digest
from polyprobe.metadata import DatasetMeta


class FolderError(PolyprobeError):
    """The folder cannot be written as asked (bad payload, unusable output path)."""


class OutputExistsError(FolderError):
    """``out`` exists and ``overwrite`` was not given."""


# Parquet options, spelled out so a change of pyarrow defaults cannot change our bytes
# silently. zstd: small files and fast reads; row groups of 100k rows keep streaming reads
# and the Hub's viewer cheap without fragmenting small configs.
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
    "store_schema": True,
    "row_group_size": 100_000,
}

# Rows per parquet row group; splits may also arrive as chunks of exactly this many rows
# (the last one shorter), which writes the same bytes as one table would.
ROW_GROUP: int = PARQUET_OPTIONS["row_group_size"]

CONFIG_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
SPLIT_NAME = re.compile(r"^[A-Za-z0-9_]+$")


def split_file(config: str, split: str) -> str:
    """Relative POSIX path of a split's single parquet shard (the Hub's naming)."""
    return f"data/{config}/{split}-00000-of-00001.parquet"


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


# Folders written aside are named ``<prefix><pid>-<host>-<random>``: the pid and host (a hash
# of its name, as a shared filesystem may be written from several machines) of the process
# that made them, so a later build can tell a killed build's leftovers from a running build's.
STAGING, ASIDE = "polyprobe-tmp-", "polyprobe-old-"
_OWNED = re.compile(r"(\d+)-([0-9a-f]{8})-[0-9a-f]{8}")


def _host() -> str:
    return digest("polyprobe-host", socket.gethostname(), size=4).hex()


def owned_name(prefix: str) -> str:
    """``<prefix><pid>-<host>-<random>`` for this process (see :func:`orphans`)."""
    return f"{prefix}{os.getpid()}-{_host()}-{secrets.token_hex(4)}"


def make_owned_dir(parent: Path, prefix: str, mode: int = 0o777) -> Path:
    """A new folder ``parent/<prefix><pid>-<host>-<random>`` (see :func:`orphans`); ``mode``
    as for ``os.mkdir`` (``0o700`` for scratch in a shared temp dir, as ``mkdtemp`` does)."""
    while True:
        path = parent / owned_name(prefix)
        try:
            os.mkdir(path, mode)
            return path
        except FileExistsError:
            continue


def _running(pid: int) -> bool:
    """Whether process ``pid`` of this host still exists (a zombie or a reused pid counts: the
    sweep then keeps a leftover rather than remove a live build's folder)."""
    if os.name != "posix":
        return True  # no harmless probe: os.kill(pid, 0) would end the process on Windows
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # e.g. another user's process
    return True


def orphans(parent: Path, prefix: str) -> list[Path]:
    """Entries of ``parent`` named by :func:`owned_name` with ``prefix`` on this host, for a
    process that is gone (killed: a process that ends any other way removes them)."""
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return []
    host = _host()
    found = []
    for name in names:
        owner = _OWNED.fullmatch(name[len(prefix) :]) if name.startswith(prefix) else None
        if owner and owner.group(2) == host and not _running(int(owner.group(1))):
            found.append(parent / name)
    return found


def sweep_orphans(parent: Path, prefix: str) -> list[Path]:
    """Remove :func:`orphans` (the next build's cleanup after a SIGKILL); returns them."""
    found = orphans(parent, prefix)
    for path in found:
        _remove(str(path))
    return found


def partial_path(out: Path) -> Path:
    """Where a file is written before it is renamed to ``out``: ``<out>.tmp-<pid>-<host>``,
    so that a sweep of half-written files on one host (:func:`orphan_partial`) never takes
    a file that a process of another host (a cluster job) is still writing."""
    return out.with_name(f"{out.name}.tmp-{os.getpid()}-{_host()}")


def orphan_partial(path: Path) -> bool:
    """Whether ``path`` was named by :func:`partial_path` for a process of *this* host that
    is gone (another host's files, and names of any other shape, are never judged here)."""
    _, sep, owner = path.name.rpartition(".tmp-")
    found = re.fullmatch(r"(\d+)-([0-9a-f]{8})", owner) if sep else None
    return bool(found and found.group(2) == _host() and not _running(int(found.group(1))))


def sweep_leftovers(out: Path) -> None:
    """What killed writers of ``out`` left beside it: their staging folders are removed; a
    folder set aside by an overwrite goes back to ``out`` if the kill came between the two
    renames of the swap (``out`` is missing: it is the only copy), else it is removed."""
    sweep_orphans(out.parent, f".{out.name}.{STAGING}")
    for old in orphans(out.parent, f".{out.name}.{ASIDE}"):
        if os.path.lexists(out):
            _remove(str(old))
            continue
        with contextlib.suppress(OSError):
            os.rename(old, out)


def _is_dataset_folder(path: Path) -> bool:
    """Only polyprobe dataset folders (or empty folders) may be replaced by ``overwrite``:
    ``--out ~ --overwrite`` must not delete a home directory."""
    if not any(path.iterdir()):
        return True
    try:
        text = (path / README).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    # A text test (checked at the start and again at the end of every overwriting build):
    # parsing a full suite's card twice cost 0.1 s.
    return has_block(text, "polyprobe")


class DatasetFolderWriter:
    """Writes one dataset folder. Use it as a context manager (``with DatasetFolderWriter(out)
    as writer:``), call :meth:`add_config` per config and :meth:`finish` once; leaving the block
    by an exception, or without ``finish``, aborts and leaves nothing behind."""

    def __init__(self, out: str | Path, overwrite: bool = False):
        self.out = Path(os.path.abspath(out))
        self.overwrite = overwrite
        self._configs: list[ConfigCard] = []
        self._finished = False
        self._aborted = False
        sweep_leftovers(self.out)  # before the check: a swap cut short puts ``out`` back
        self._check_target()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp = make_owned_dir(self.out.parent, f".{self.out.name}.{STAGING}")
        self._cleanup = weakref.finalize(self, _remove, str(tmp))

    # -- state ----------------------------------------------------------------------------

    @property
    def stats(self) -> dict[str, ConfigStats]:
        """Statistics of every config written so far (for the pipeline's closing summary)."""
        return {c.name: c.stats for c in self._configs}

    def _check_open(self) -> None:
        if self._finished:
            raise FolderError(f"{self.out}: the writer has already finished")
        if self._aborted:
            raise FolderError(f"{self.out}: the writer was aborted")

    def _check_target(self) -> None:
        out = self.out
        if not os.path.lexists(out):
            return
        if not self.overwrite:
            raise OutputExistsError(
                f"{out} already exists; choose another output folder or pass --overwrite "
                "to replace it"
            )
        if out.is_symlink() or not out.is_dir():
            raise FolderError(f"{out} exists and is not a directory; refusing to replace it")
        if not _is_dataset_folder(out):
            raise FolderError(
                f"{out} exists and is not a polyprobe dataset folder (no README.md with a "
                "'polyprobe' block); refusing to replace it even with --overwrite"
            )

    # -- configs --------------------------------------------------------------------------

    def add_config(self, payload: ConfigPayload) -> None:
        """Write the config's non-empty splits now and keep only their statistics."""
        self._check_open()
        self._check_new(payload)
        self._configs.append(write_config_files(self.tmp, payload))

    def adopt(self, card: ConfigCard) -> None:
        """Take over a config whose files another process already wrote into :attr:`tmp`
        (with :func:`write_config_files`; see ``polyprobe.runtime.shards``)."""
        self._check_open()
        self._check_new(card.payload)
        for rel in [*(st.path for st in card.stats.splits.values()), plot_path(card.name)]:
            if not (self.tmp / rel).is_file():
                raise FolderError(f"config {card.name!r}: {rel} was not written")
        self._configs.append(card)

    def _check_new(self, payload: ConfigPayload) -> None:
        name = payload.name
        if any(c.name == name for c in self._configs):
            raise FolderError(f"config {name!r} was added twice")
        if payload.default and any(c.payload.default for c in self._configs):
            first = next(c.name for c in self._configs if c.payload.default)
            raise FolderError(f"configs {first!r} and {name!r} are both marked default")

    # -- finishing ------------------------------------------------------------------------

    def finish(
        self,
        meta: DatasetMeta,
        before_card: Callable[[Path, dict[str, Any]], DatasetMeta] | None = None,
    ) -> Path:
        """Write README.md and report.json, then move the folder into place (the configs'
        files and charts are already in the temporary folder).

        ``before_card(tmp, card)`` is called once the parquet files are in the temporary folder
        ``tmp`` and before the card is written, with the card's YAML data as it would be; it
        returns the meta to write the card from (a release check diffs the new rows against the
        previous release there: before the rename, so ``out`` may be the previous folder)."""
        self._check_open()
        try:
            if not self._configs:
                raise FolderError(f"{self.out}: no config to write")
            defaults = [c.name for c in self._configs if c.payload.default]
            if len(defaults) != 1:
                raise FolderError(
                    f"{self.out}: exactly one config must be marked default, got {defaults or 'none'}"
                )
            if before_card is not None:
                meta = before_card(self.tmp, card_data(self._configs, meta))
            text = render_readme(card_data(self._configs, meta), card_body(self._configs, meta))
            with open(self.tmp / README, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            report = json.dumps(
                plain(meta.feasibility), sort_keys=True, indent=2, ensure_ascii=False
            )
            with open(self.tmp / REPORT, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(report + "\n")
            self._check_target()  # someone may have created it meanwhile
            self._install()
        except BaseException:
            self.abort()
            raise
        self._finished = True
        self._cleanup.detach()
        return self.out

    def _install(self) -> None:
        """Rename the finished folder into place; with overwrite, swap: old aside, new in,
        old deleted. If the second rename fails the old folder is put back."""
        if not os.path.lexists(self.out):
            os.rename(self.tmp, self.out)
            return
        old = self.out.parent / owned_name(f".{self.out.name}.{ASIDE}")
        os.rename(self.out, old)
        try:
            os.rename(self.tmp, self.out)
        except BaseException:
            os.rename(old, self.out)
            raise
        _remove(str(old))

    def abort(self) -> None:
        """Remove everything written so far; the output path is left as it was."""
        if self._finished:
            return
        self._aborted = True
        self._cleanup()

    # -- context manager ------------------------------------------------------------------

    def __enter__(self) -> DatasetFolderWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.abort()
        elif not self._finished and not self._aborted:
            warnings.warn(
                f"DatasetFolderWriter for {self.out} left without finish(); nothing was written",
                RuntimeWarning,
                stacklevel=2,
            )
            self.abort()


def write_config_files(
    tmp: Path,
    payload: ConfigPayload,
    *,
    observe: Callable[[str, pa.Table], None] | None = None,
) -> ConfigCard:
    """Write one config's non-empty splits under the staging folder ``tmp`` and return what
    the card needs (the payload without its tables, and statistics of the written files).
    No writer state: worker processes call it for their own configs.

    ``observe(split, chunk)``, if given, sees every chunk of a split this call encodes, once
    written, so a caller can take its own statistics of the rows (the builder's confound
    audit) without reading the files back (which cost a quarter of the write jobs). A
    :class:`SplitCopy` is copied, not read: its chunks are not observed (the caller made the
    copy's rows, it knows them)."""
    name = payload.name
    if not CONFIG_NAME.match(name):
        raise FolderError(
            f"config name {name!r} must start with a letter, digit or '_' and contain only "
            "letters, digits, '_', '.' and '-'"
        )
    labels = [str(n) for n in payload.label_names]
    scored = payload.scored
    if scored and labels:
        raise FolderError(f"config {name!r}: a scored config has no label names: {labels}")
    if not scored and (not labels or len(set(labels)) != len(labels)):
        raise FolderError(f"config {name!r}: label names must be non-empty and unique: {labels}")
    try:
        block = polyprobe_config_block(payload)
    except (ValueError, TypeError) as exc:
        raise FolderError(str(exc)) from exc

    expected = schema.arrow_schema(payload.level, labels, payload.extra_features, scored=scored)
    features = schema.features_dict(payload.level, labels, payload.extra_features, scored=scored)
    scores: dict[str, np.ndarray] = {}
    stats = ConfigStats(name=name, label_names=labels)
    config_dir = tmp / "data" / name
    plot = tmp / plot_path(name)
    try:
        for split in ordered_splits(payload.splits):
            source = payload.splits[split]
            if source is None:
                continue
            if not SPLIT_NAME.match(split):
                raise FolderError(f"config {name!r}: bad split name {split!r}")
            where = f"config {name!r} split {split!r}"
            rel = split_file(name, split)
            if isinstance(source, SplitCopy):
                written = _copy_split(tmp, where, rel, source, split, labels)
            else:
                seen = None if observe is None else partial(observe, split)
                written = _write_split(
                    tmp, where, rel, source, expected, features, len(labels), seen
                )
            if written is None:
                continue  # empty splits are omitted, never written
            rows, counts, nbytes, examples = written
            stats.splits[split] = SplitStats(split, rel, rows, counts, nbytes)
            if scored:
                moments, scores[split] = _written_scores(tmp / rel, where)
                stats.splits[split].scores = moments
            if not stats.examples:
                stats.examples_split = split
                stats.examples = examples
        if not stats.splits:
            raise FolderError(f"config {name!r} has no rows in any split")
        # Drawn here, not when the card is written: shards draw their own configs' charts
        # in parallel, and the parent's serial tail stays short.
        from polyprobe.cards.plots import label_bar_chart

        plot.parent.mkdir(parents=True, exist_ok=True)
        if scored:
            bins, counts_by_split = score_histogram(list(scores.values()))
            label_bar_chart(plot, name, bins, dict(zip(scores, counts_by_split, strict=True)))
        else:
            label_bar_chart(
                plot,
                name,
                stats.label_names,
                {s: st.label_counts for s, st in stats.splits.items()},
            )
    except BaseException:
        _remove(str(config_dir))
        _remove(str(plot))
        raise
    kept = dataclasses.replace(
        payload,
        label_names=labels,
        polyprobe=block,
        recipe=plain(dict(payload.recipe)),
        splits={},
        dropped=plain(dict(payload.dropped)),
        dropped_classes=plain(dict(payload.dropped_classes)),
        notes=[str(n) for n in payload.notes],
    )
    return ConfigCard(kept, stats)


def _written_scores(path: Path, where: str) -> tuple[ScoreMoments, np.ndarray]:
    """A scored split's score statistics, read back from its written file (one float column:
    cheap), so that a copied split and a fresh one are described by the same code."""
    labels = pq.read_table(path, columns=["label"]).column("label")
    try:
        moments = ScoreMoments.of(labels)
    except ValueError as exc:
        raise FolderError(f"{where}: {exc}") from exc
    return moments, labels.to_numpy()


def _copy_split(
    tmp: Path, where: str, rel: str, source: SplitCopy, split: str, labels: list[str]
) -> tuple[int, list[int], int, list[dict[str, Any]]] | None:
    """:func:`_write_split`'s result for a :class:`SplitCopy`: the earlier file copied to
    ``rel``, its statistics, and its first rows (kept by the earlier config when this split
    gave its examples, else read from the head of the file)."""
    written = source.written.stats
    if list(written.label_names) != labels:
        raise FolderError(
            f"{where}: cannot copy the rows of config {written.name!r}, whose labels "
            f"{written.label_names} differ from {labels}"
        )
    st = written.splits.get(split)
    if st is None:
        return None  # empty there, hence here
    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tmp / st.path, tmp / rel)
    if written.examples_split == split:
        examples = [dict(row) for row in written.examples]
    else:
        with pq.ParquetFile(tmp / rel) as pf:
            head = next(pf.iter_batches(batch_size=EXAMPLE_ROWS))
        examples = pa.Table.from_batches([head]).to_pylist()
    return st.num_examples, list(st.label_counts), st.num_bytes, examples


def _write_split(
    tmp: Path,
    where: str,
    rel: str,
    source: pa.Table | Callable[[], Iterable[pa.Table]],
    expected: pa.Schema,
    features: dict[str, Any],
    n_labels: int,
    observe: Callable[[pa.Table], None] | None = None,
) -> tuple[int, list[int], int, list[dict[str, Any]]] | None:
    """Write one split, chunk by chunk (a table is cut into row groups). Returns its
    statistics — rows, label counts, Arrow size and the first :data:`EXAMPLE_ROWS` rows — taken
    from the chunks as they are written (reading the file back cost a tenth of a whole UD
    build), or None if the split is empty. ``observe`` sees each chunk once written."""
    if isinstance(source, pa.Table):
        chunks: Iterable[pa.Table] = (
            source.slice(i, ROW_GROUP) for i in range(0, source.num_rows, ROW_GROUP)
        )
    else:
        chunks = source()
    writer: pq.ParquetWriter | None = None
    path = tmp / rel
    options = {k: v for k, v in PARQUET_OPTIONS.items() if k != "row_group_size"}
    rows = nbytes = 0
    counts = [0] * n_labels
    examples: list[dict[str, Any]] = []
    try:
        for chunk in chunks:
            if chunk.num_rows == 0:
                continue
            if not chunk.schema.equals(expected, check_metadata=False):
                raise FolderError(
                    f"{where}: table schema "
                    f"{chunk.schema.to_string(show_schema_metadata=False)!r} is not the "
                    f"published schema {expected.to_string(show_schema_metadata=False)!r}"
                )
            embedded = schema.features_from_schema(chunk.schema)
            if embedded is not None and embedded != features:
                raise FolderError(f"{where}: embedded features {embedded} != {features}")
            try:  # refuse early; n_labels == 0: a scored config (scores checked once written)
                chunk_counts = label_counts(chunk.column("label"), n_labels) if n_labels else []
            except ValueError as exc:
                raise FolderError(f"{where}: {exc}") from exc
            if writer is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                writer = pq.ParquetWriter(path, expected, **options)
            writer.write_table(
                chunk.replace_schema_metadata(expected.metadata), row_group_size=ROW_GROUP
            )
            if observe is not None:
                observe(chunk)
            rows += chunk.num_rows
            nbytes += chunk.nbytes
            counts = [a + b for a, b in zip(counts, chunk_counts, strict=True)]
            if len(examples) < EXAMPLE_ROWS:
                examples.extend(chunk.slice(0, EXAMPLE_ROWS - len(examples)).to_pylist())
            del chunk
            # Hand the chunk's memory back: Arrow's allocator would otherwise keep every
            # chunk's pages, and resident memory would grow with the number of row groups.
            pa.default_memory_pool().release_unused()
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        return None
    return rows, counts, nbytes, examples
