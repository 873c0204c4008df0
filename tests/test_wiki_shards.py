"""Scale-out by input shard: the same bytes whatever the number of shards, workers or the
executor (datatrove's local one included); a resumed build equals an uninterrupted one."""

from __future__ import annotations

import bz2
import os
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from conftest import needs

from polyprobe import build_wiki
from polyprobe.cards.folder import partial_path
from polyprobe.loaders import wikidump
from polyprobe.loaders.wikidump import DumpReader

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


@pytest.fixture(scope="module")
def small_dump(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 12 shortest articles of the English dump with 3 redirects between them, as a new
    dump written at test time (siteinfo from the original)."""
    pages = list(DumpReader(data_dir / "wikipedia" / EN).pages())
    chosen = sorted(sorted(pages, key=lambda p: len(p.text))[20:32], key=lambda p: p.index)
    body = []
    for i, page in enumerate(chosen):
        body.append(
            f"<page><title>{escape(page.title)}</title><ns>0</ns><id>{page.page_id}</id>"
            f"<revision><id>1</id><text>{escape(page.text)}</text></revision></page>"
        )
        if i % 4 == 0:
            body.append(
                f"<page><title>R{i}</title><ns>0</ns><id>9{i}</id><redirect title='x'/>"
                "<revision><id>1</id><text>#REDIRECT [[x]]</text></revision></page>"
            )
    xml = (
        '<mediawiki xml:lang="en"><siteinfo><dbname>enwiki</dbname><namespaces>'
        '<namespace key="6">File</namespace><namespace key="14">Category</namespace>'
        "</namespaces></siteinfo>" + "".join(body) + "</mediawiki>"
    )
    path = tmp_path_factory.mktemp("dump") / "small-enwiki.xml.bz2"
    path.write_bytes(bz2.compress(xml.encode("utf-8")))
    return path


def _build(dump: Path, out: Path, **kw: object) -> Path:
    build_wiki(
        [dump],
        lang="en",
        out=out,
        tasks=["sentence_length", "bigram_shift", "end_of_sentence"],
        min_per_class=(2, 1, 1),
        balances=["natural"],
        **kw,  # type: ignore[arg-type]
    )
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def one_page_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of one page, so that a 15-page dump makes many shards (workers are forked:
    they see the patched value)."""
    monkeypatch.setattr(wikidump, "BLOCK_PAGES", 1)


def test_same_bytes_for_shards_workers_and_datatrove(
    small_dump: Path, tmp_path: Path, one_page_blocks: None
) -> None:
    serial = _files(_build(small_dump, tmp_path / "serial", shards=1, jobs=1))
    assert "data/sentence_length/train-00000-of-00001.parquet" in serial
    assert _files(_build(small_dump, tmp_path / "four", shards=4, jobs=1)) == serial
    assert _files(_build(small_dump, tmp_path / "two", shards=4, jobs=2)) == serial
    needs("datatrove")
    dt = _build(small_dump, tmp_path / "dt", shards=3, jobs=2, executor="datatrove-local")
    assert _files(dt) == serial


def test_resumed_build_equals_uninterrupted(
    small_dump: Path, tmp_path: Path, one_page_blocks: None
) -> None:
    cache = tmp_path / "cache"
    first = _files(_build(small_dump, tmp_path / "a", shards=3, shard_cache=cache))
    tables = sorted(cache.glob("*.arrow"))
    assert len(tables) == 3
    # an interrupted run: one shard never finished, another left a half-written table
    tables[1].unlink()
    half = partial_path(tables[2]).with_name(
        partial_path(tables[2]).name.replace(f".tmp-{os.getpid()}-", ".tmp-999999999-")
    )
    half.write_bytes(b"partial")
    kept = tables[0].stat().st_mtime_ns
    again = _files(_build(small_dump, tmp_path / "b", shards=3, shard_cache=cache))
    assert again == first
    assert tables[0].stat().st_mtime_ns == kept  # a finished shard is reused, not redone
    assert tables[1].exists() and not half.exists()


def test_no_scratch_left_behind(
    small_dump: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a temporary folder of the test's own: builds run beside it (other tests, CI) make
    and sweep their own scratch in the shared one."""
    import tempfile

    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    _build(small_dump, tmp_path / "c", shards=2)
    assert list(private.glob("polyprobe-textshards-*")) == []
    assert os.listdir(tmp_path / "c")


def _multistream(plain: Path, folder: Path, per_stream: int = 4) -> Path:
    """``plain`` rewritten as a multistream dump (one bz2 stream for the header, one per
    ``per_stream`` pages, one for the end) with its index, Wikimedia's layout and names."""
    xml = bz2.open(plain).read().decode("utf-8")
    head, _, rest = xml.partition("<page>")
    pages = ["<page>" + p for p in rest.split("<page>")]
    pages[-1] = pages[-1].replace("</mediawiki>", "")
    dump = folder / "small-multistream.xml.bz2"
    lines = []
    with open(dump, "wb") as f:
        f.write(bz2.compress(head.encode("utf-8")))
        for start in range(0, len(pages), per_stream):
            offset = f.tell()
            block = pages[start : start + per_stream]
            for page in block:
                page_id = page.split("<id>", 1)[1].split("</id>", 1)[0]
                lines.append(f"{offset}:{page_id}:t")
            f.write(bz2.compress("".join(block).encode("utf-8")))
        f.write(bz2.compress(b"</mediawiki>\n"))
    index = folder / "small-multistream-index.txt.bz2"
    index.write_bytes(bz2.compress(("\n".join(lines) + "\n").encode("utf-8")))
    return dump


def test_multistream_index_gives_random_access_and_the_same_bytes(
    small_dump: Path, tmp_path: Path
) -> None:
    from polyprobe.loaders.wikidump import multistream_index

    dump = _multistream(small_dump, tmp_path)
    index = multistream_index(dump)
    assert index is not None and index.name == "small-multistream-index.txt.bz2"
    whole = [(p.title, p.index) for p in DumpReader(dump).pages()]
    parts = [(p.title, p.index) for k in range(3) for p in DumpReader(dump).pages((k, 3), index)]
    assert sorted(parts, key=lambda t: t[1]) == whole and len(whole) == 12
    # The same pages as one plain stream under the same name (no index beside it): the same
    # rows, byte for byte (the cards differ only in the files' checksums).
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / dump.name).write_bytes(bz2.compress(bz2.open(dump).read()))
    plain = _files(_build(alone / dump.name, tmp_path / "plain", shards=1))
    multi = _files(_build(dump, tmp_path / "multi", shards=3, jobs=2))
    data = {k: v for k, v in plain.items() if k.startswith("data/")}
    assert "data/sentence_length/train-00000-of-00001.parquet" in data
    assert {k: v for k, v in multi.items() if k.startswith("data/")} == data


def test_the_dump_checksum_is_read_once_per_build(
    small_dump: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card, the shard names and the provenance all need the dump's sha256: one read of
    a file of many GB, not three."""
    from polyprobe import hashing

    reads: list[str] = []
    real = hashing.file_sha256

    def counting(path: str) -> str:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(hashing, "file_sha256", counting)
    _build(small_dump, tmp_path / "out", shards=3, jobs=1)
    assert reads.count(str(small_dump)) == 1


def test_a_plain_dump_cut_into_shards_warns(
    small_dump: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from polyprobe.builders.records import shards

    monkeypatch.setattr(shards, "REREAD_WARN_BYTES", 0)
    _build(small_dump, tmp_path / "one", shards=1, jobs=1)
    assert "multistream" not in capsys.readouterr().err
    _build(small_dump, tmp_path / "three", shards=3, jobs=1)
    err = capsys.readouterr().err
    assert (
        f"polyprobe: warning: {small_dump} is not a multistream dump: each of its 3 shards "
        "decompresses all of it (3x the reading)"
    ) in err
