"""Input shards of a dump build: each shard (a dump file, or every n-th block of its pages)
is read, cleaned, split and tokenised once, into a table; the build's passes then read the
tables, in dump order, whatever the number of shards or the executor.

Why: cleaning and tokenising are the build's whole cost (bz2 and XML take a tenth), the record
stream reads its records two or three times (capitals, first pass, candidates), and a dump
outgrows one machine. With the tables the expensive step runs once per page, in parallel,
and resumably (``shard_cache``: a finished shard's table is reused by the next build of the
same file and settings); the tasks then see exactly the records a serial read gives, so the
output is byte-identical for any number of shards, workers or executors.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.cards.folder import partial_path
from polyprobe.hashing import stable_u64
from polyprobe.loaders.rawtext import RawDocument, RawSentence
from polyprobe.loaders.records import SourceFile
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.metadata import SourceInfo

__all__ = [
    "ShardTask",
    "TokenizedSource",
    "plan_shards",
    "read_back",
    "shard_tasks",
    "tokenize_shard",
]

TABLE_VERSION = 1  # bump when the table layout or the cleaning changes (cache keys)
_BATCH = 4096


@dataclass(frozen=True)
class ShardTask:
    """One input shard: pages of blocks ``part`` (of ``parts``) of the dump at ``path``,
    tokenised as the segmenter settings say, written to ``out``; a malformed page is raised or
    (``on_invalid`` ``skip``) left out and counted, the counts kept beside the table."""

    path: str
    part: int
    parts: int
    lang: str
    sentences: str
    tokenizer: str
    out: str
    on_invalid: str = "raise"


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("page", pa.int64()),
            ("doc_id", pa.string()),
            ("title", pa.string()),
            ("line", pa.int64()),
            ("sent", pa.int32()),
            ("text", pa.string()),
            ("section", pa.string()),
            ("paragraph", pa.int32()),
            ("dropped", pa.string()),
            ("forms", pa.list_(pa.string())),
            ("spaces", pa.list_(pa.bool_())),
        ]
    )


def tokenize_shard(task: ShardTask) -> None:
    """Read, clean, split and tokenise one shard into its table (written aside, then renamed:
    a table that exists is complete). Its page and cleaning counts, and the malformed input
    it skipped, go to ``<out>.json``."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    from polyprobe.loaders.source import InvalidPolicy
    from polyprobe.loaders.wikisource import WikiDumpSource

    out = Path(task.out)
    if out.exists():
        return  # finished by an earlier build (resumed)
    segmenter = Segmenter(task.lang, sentences=task.sentences, tokenizer=task.tokenizer)
    source = WikiDumpSource(Path(task.path), segmenter)
    policy = InvalidPolicy(task.on_invalid)
    tmp = partial_path(out)
    schema = _schema()
    columns: dict[str, list[Any]] = {name: [] for name in schema.names}
    try:
        with ipc.new_file(str(tmp), schema) as writer:

            def flush() -> None:
                writer.write_batch(pa.record_batch(columns, schema=schema))
                for values in columns.values():
                    values.clear()

            for doc in source.documents(policy, select=(task.part, task.parts)):
                for index, s in enumerate(doc.sentences):
                    forms, spaces = (
                        segmenter.token_columns(s.text) if s.dropped is None else (None, None)
                    )
                    columns["page"].append(doc.order)
                    columns["doc_id"].append(doc.doc_id)
                    columns["title"].append(doc.title)
                    columns["line"].append(doc.line)
                    columns["sent"].append(index)
                    columns["text"].append(s.text)
                    columns["section"].append(s.section)
                    columns["paragraph"].append(s.paragraph)
                    columns["dropped"].append(s.dropped)
                    columns["forms"].append(forms)
                    columns["spaces"].append(spaces)
                if len(columns["page"]) >= _BATCH:
                    flush()
            flush()
        stats = {
            "pages": dict(source.stats),
            "cleaning": dict(source.cleaning),
            "skipped": dict(policy.skipped),
        }
        side = out.with_name(out.name + ".json")
        side_tmp = partial_path(side)
        side_tmp.write_text(json.dumps(stats, sort_keys=True), encoding="utf-8")
        os.replace(side_tmp, side)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def plan_shards(
    sources: Sequence[Any],
    segmenter: Segmenter,
    shards_per_file: int,
    folder: Path,
    on_invalid: str = "raise",
) -> list[list[ShardTask]]:
    """The shards of every dump (``shards_per_file`` each), named by what decides their
    content: the file's checksum, the part, the segmentation, the invalid-input policy and
    the table version."""
    describe = json.dumps(segmenter.describe(), sort_keys=True)
    plan: list[list[ShardTask]] = []
    for source in sources:
        sha = source.info.files[0]["sha256"]
        tasks = []
        for part in range(shards_per_file):
            key = stable_u64(
                "text-shard", TABLE_VERSION, sha, part, shards_per_file, describe, on_invalid
            )
            tasks.append(
                ShardTask(
                    str(Path(source.path).absolute()),  # a cluster job runs elsewhere
                    part,
                    shards_per_file,
                    segmenter.lang,
                    segmenter.sentences,
                    segmenter.tokenizer,
                    str(folder / f"{source.name}.{part}-of-{shards_per_file}.{key:016x}.arrow"),
                    on_invalid,
                )
            )
        plan.append(tasks)
    return plan


def shard_tasks(
    sources: Sequence[Any],
    shards: int | None,
    on_invalid: str,
    folder: Path,
    workers: int,
) -> list[ShardTask]:
    """Every dump's shards in dump order: ``shards`` per file (``--shards``), else enough
    for the ``workers`` processes."""
    parts = shards or max(1, math.ceil(workers / len(sources)))
    for source in sources:
        _warn_if_rereading(source, parts)
    plan = plan_shards(sources, sources[0].segmenter, parts, folder, on_invalid)
    return [t for tasks in plan for t in tasks]


# A plain (not multistream) dump this large, cut into several shards, costs each shard a
# whole decompression: say so (the bytes are the same; the CPU is not).
REREAD_WARN_BYTES = 64 << 20


def _warn_if_rereading(source: Any, parts: int) -> None:
    if parts < 2 or getattr(source, "index", None) is not None:
        return
    size = Path(source.path).stat().st_size
    if size < REREAD_WARN_BYTES:
        return
    print(
        f"polyprobe: warning: {source.path} is not a multistream dump: each of its {parts} "
        f"shards decompresses all of it ({parts}x the reading); use the "
        "*-multistream.xml.bz2 dump with its *-multistream-index.txt.bz2 beside it, or "
        "fewer --shards",
        file=sys.stderr,
    )


def read_back(sources: Sequence[Any], tasks: Sequence[ShardTask]) -> list[TokenizedSource]:
    """Each dump read back from its shards' tables (``tasks``: :func:`shard_tasks`'s)."""
    per_file = len(tasks) // len(sources)
    return [
        TokenizedSource.of(source, tasks[k * per_file : (k + 1) * per_file])
        for k, source in enumerate(sources)
    ]


@dataclass
class TokenizedSource:
    """A dump read back from its shards' tables, in dump order: what the record family reads
    instead of the dump (``documents``), with the dump's name, card entry and counts."""

    name: str
    path: Path
    info: SourceInfo
    languages: tuple[Any, ...]
    segmenter: Segmenter
    tables: tuple[str, ...]
    stats: Counter[str] = field(default_factory=Counter)
    cleaning: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)  # malformed pages the shards left out

    @classmethod
    def of(cls, source: Any, tasks: Sequence[ShardTask]) -> TokenizedSource:
        stats: Counter[str] = Counter()
        cleaning: Counter[str] = Counter()
        skipped: Counter[str] = Counter()
        for task in tasks:
            side = json.loads(Path(task.out + ".json").read_text(encoding="utf-8"))
            stats.update(side["pages"])
            cleaning.update(side["cleaning"])
            skipped.update(side.get("skipped", {}))
        return cls(
            source.name,
            Path(source.path),
            source.info,
            tuple(source.languages),
            source.segmenter,
            tuple(t.out for t in tasks),
            stats,
            cleaning,
            skipped,
        )

    def _rows(self, table: str, pages: tuple[int, int] | None = None) -> Iterator[tuple[Any, ...]]:
        """A table's rows as tuples in :data:`_READ` order, a batch's columns converted at
        once (a dict per row cost as much as the rest of reading a table back); with
        ``pages`` = ``(first, end)`` only the rows of pages ``first <= page < end`` (a batch
        wholly outside is not converted)."""
        import pyarrow.compute as pc
        import pyarrow.ipc as ipc

        reader = ipc.open_file(table)
        for i in range(reader.num_record_batches):
            batch = reader.get_batch(i)
            if pages is not None:
                page = batch.column("page")
                low, high = pc.min_max(page).values()
                if low.as_py() is None or high.as_py() < pages[0] or low.as_py() >= pages[1]:
                    continue
                if low.as_py() < pages[0] or high.as_py() >= pages[1]:
                    inside = pc.and_(pc.greater_equal(page, pages[0]), pc.less(page, pages[1]))
                    batch = batch.filter(inside)
            columns = batch.to_pydict()
            yield from zip(*(columns[name] for name in _READ), strict=True)

    def page_sizes(self) -> tuple[Any, Any]:
        """Every page in the tables (ascending) and its number of sentences: what the cuts
        of a read in parts (:func:`page_cuts`) are computed from, the page column alone."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.ipc as ipc

        columns = []
        for table in self.tables:
            with pa.memory_map(table) as source:
                columns.append(ipc.open_file(source).read_all().column("page").to_numpy())
        if not columns:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate(columns), return_counts=True)

    def documents(
        self, policy: Any = None, pages: tuple[int, int] | None = None
    ) -> Iterator[RawDocument]:
        """The dump's documents from its tables (``pages``: only those ``first <= page <
        end``); what the shards skipped is counted into ``policy``'s tally, once per
        reading, as a reading of the dump would count it."""
        if policy is not None:
            policy.skipped.update(self.skipped)
        source = SourceFile(self.name, str(self.path), None)
        merged = heapq.merge(*(self._rows(t, pages) for t in self.tables), key=lambda r: r[:2])
        current: list[tuple[Any, ...]] = []
        for row in merged:
            if current and row[0] != current[0][0]:
                yield _document(current, source)
                current = []
            current.append(row)
        if current:
            yield _document(current, source)


def page_cuts(sizes: Sequence[tuple[Any, Any]], parts: int) -> list[list[int]]:
    """Where ``parts`` contiguous ranges of several dumps' pages begin: ``parts + 1`` cuts,
    each one page bound per dump (a range is ``cut[j][k] <= page < cut[j + 1][k]`` in dump
    ``k``), placed so that each range holds about as many sentences. ``sizes``: each dump's
    :meth:`TokenizedSource.page_sizes`. Integer arithmetic only: every process computes the
    same cuts."""
    import numpy as np

    counts = np.concatenate([np.asarray(c, dtype=np.int64) for _, c in sizes] or [[]])
    before = np.concatenate([[0], np.cumsum(counts)[:-1]]) if len(counts) else counts
    total = int(counts.sum())
    offsets = np.cumsum([0, *(len(p) for p, _ in sizes)])
    cuts = []
    for j in range(parts + 1):
        at = (
            int(np.searchsorted(before, total * j // parts, side="left"))
            if j < parts
            else len(counts)
        )
        bound = []
        for k, (pages, _) in enumerate(sizes):
            start, end = int(offsets[k]), int(offsets[k + 1])
            if start == end:
                bound.append(0)
            elif at < start:
                bound.append(int(pages[0]))
            elif at >= end:
                bound.append(int(pages[-1]) + 1)
            else:
                bound.append(int(pages[at - start]))
        cuts.append(bound)
    return cuts


# The columns a table is read back with, in this order (the merge key first).
_READ = (
    "page",
    "sent",
    "doc_id",
    "title",
    "line",
    "text",
    "section",
    "paragraph",
    "dropped",
    "forms",
    "spaces",
)


def _document(rows: list[tuple[Any, ...]], source: SourceFile) -> RawDocument:
    page, _, doc_id, title, doc_line = rows[0][:5]
    sentences = tuple(
        RawSentence(
            text,
            section,
            paragraph,
            line,
            dropped,
            forms,
            spaces,
        )
        for _, _, _, _, line, text, section, paragraph, dropped, forms, spaces in rows
    )
    return RawDocument(doc_id, title, source, doc_line, sentences, page)
