"""Reading a treebank in parts: ``read_sources(part=, parts=)``, ``read_conllu(start=, stop=)``
and ``TreebankRecords.part_records``.

The promise under test: the parts, read apart (each from scratch, as a process would) and put
end to end, are exactly the whole read: the same sentences with the same ids, doc ids and line
numbers, the same skip counts, the whole read's error from the earliest part that raises one;
cuts fall only where a document opens (or anywhere in a file without ``# newdoc``), so the
documents grouped part by part are the whole read's.
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import all_treebanks

from polyprobe.errors import InputError
from polyprobe.loaders import conllu
from polyprobe.loaders.conllu import read_conllu
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.sources import (
    _read_order,
    discover,
    read_sources,
    record_parts,
    text_size,
)
from polyprobe.loaders.ud_documents import ud_documents

# --------------------------------------------------------------------------------------------
# helpers


def _words_hash(sentence: Sentence) -> str:
    """Everything of a sentence's tokens, in a few bytes (comparing 300k words as objects
    would make the all-treebank test slow)."""
    h = hashlib.blake2b(digest_size=12)
    for w in sentence.words:
        h.update(
            repr(
                (w.id, w.form, w.lemma, w.upos, w.xpos, w.feats, w.head, w.deprel, w.deps, w.misc)
            ).encode()
        )
    h.update(repr([(m.first, m.last, m.form, m.misc) for m in sentence.multiword]).encode())
    h.update(repr([(e.id, e.form, e.deps) for e in sentence.empty]).encode())
    return h.hexdigest()


def _key(sentence: Sentence) -> tuple[Any, ...]:
    return (
        sentence.sent_id,
        sentence.doc_id,
        sentence.text,
        sentence.line,
        sentence.source,
        tuple(sentence.comments.items()),
        _words_hash(sentence),
    )


def _read_parts(
    read: Callable[[collections.Counter[str], int, int], Iterator[Sentence]], parts: int
) -> tuple[list[list[Sentence]], collections.Counter[str]]:
    skipped: collections.Counter[str] = collections.Counter()
    out = []
    for k in range(parts):
        own: collections.Counter[str] = collections.Counter()
        out.append(list(read(own, k, parts)))
        skipped.update(own)
    return out, skipped


def _error(read: Callable[[], Iterator[Any]]) -> tuple[str, str, int | None] | None:
    try:
        for _ in read():
            pass
    except InputError as e:
        return str(e), str(e.path), e.line
    return None


def _first_error(read: Callable[[int], Iterator[Any]], parts: int) -> Any:
    for k in range(parts):
        found = _error(lambda k=k: read(k))
        if found is not None:
            return found
    return None


# --------------------------------------------------------------------------------------------
# real treebanks


@pytest.fixture(scope="module")
def whole_reads(ud_dir: Path) -> dict[str, tuple[Any, list[tuple[Any, ...]]]]:
    """treebank -> (its source, the keys of its whole read), read once for the module."""
    out = {}
    for name in all_treebanks():
        sources = discover([ud_dir / name])
        keys = [_key(s) for s in read_sources(sources, on_invalid="skip", lazy=True)]
        out[name] = (sources, keys)
    return out


@pytest.mark.parametrize("parts", [2, 3])
def test_parts_are_the_whole_read_on_every_treebank(
    whole_reads: dict[str, tuple[Any, list[tuple[Any, ...]]]], parts: int
) -> None:
    assert len(whole_reads) == 16
    for name, (sources, whole) in whole_reads.items():
        got, skipped = _read_parts(
            lambda sk, k, n, sources=sources: read_sources(
                sources, on_invalid="skip", skipped=sk, lazy=True, part=k, parts=n
            ),
            parts,
        )
        keys = [_key(s) for chunk in got for s in chunk]
        assert keys == whole, name
        assert not skipped, name
        # balanced by bytes: no part holds more than ~2/parts of the sentences (EWT's and
        # FicTree's documents are small against a treebank)
        if len(whole) > 1000:
            assert max(len(c) for c in got) < 2 * len(whole) / parts, name


def test_every_part_count_on_ewt_dev(ud_dir: Path) -> None:
    sources = discover([ud_dir / "UD_English-EWT" / "en_ewt-ud-dev.conllu"])
    whole = list(read_sources(sources))
    assert len(whole) == 2001
    for parts in range(1, 9):
        got, skipped = _read_parts(
            lambda sk, k, n: read_sources(sources, on_invalid="skip", skipped=sk, part=k, parts=n),
            parts,
        )
        assert [s for chunk in got for s in chunk] == whole, parts  # Sentence equality
        assert not skipped
        assert sum(1 for chunk in got if chunk) == parts  # 2001 sentences, many documents


def test_ewt_parts_start_where_a_document_opens(ud_dir: Path) -> None:
    sources = discover([ud_dir / "UD_English-EWT"])
    whole = [(s.sent_id, s.doc_id) for s in read_sources(sources, lazy=True)]
    position = {sid: i for i, (sid, _) in enumerate(whole)}
    halves: list[list[Sentence]] = []
    for parts in (2, 8):
        got, _ = _read_parts(
            lambda sk, k, n: read_sources(sources, skipped=sk, lazy=True, part=k, parts=n), parts
        )
        halves = halves or got
        for chunk in got[1:]:
            first = chunk[0]
            assert "newdoc id" in first.comments, (parts, first.sent_id)
            i = position[first.sent_id]
            assert whole[i - 1][1] != first.doc_id  # the sentence before is another document
    # the 2-way cut falls in EWT's train file (the middle of all of EWT's bytes)
    assert halves[1][0].source.split == "train"
    assert halves[1][0].comments["newdoc id"] == halves[1][0].doc_id


def test_german_gsd_without_marks_is_cut_at_any_sentence(ud_dir: Path) -> None:
    sources = discover([ud_dir / "UD_German-GSD"])
    whole = [s.sent_id for s in read_sources(sources, lazy=True)]
    total = sum(text_size(f.path) for f in sources[0].files)
    for parts in (2, 3, 8):
        got, _ = _read_parts(
            lambda sk, k, n: read_sources(sources, skipped=sk, lazy=True, part=k, parts=n), parts
        )
        assert [s.sent_id for c in got for s in c] == whole
        for chunk in got:
            assert all(s.doc_id is None for s in chunk)
        # each part starts at the first sentence block at or after its byte target: the block
        # before it ends before the target (so a part starts less than a sentence late)
        plan = record_parts(sources, parts)
        for k in range(1, parts):
            ((_, index), (start, _)) = next(iter(plan[k].items()))
            f = sorted(sources[0].files, key=lambda f: {"train": 0, "dev": 1}.get(f.split, 2))[
                index
            ]
            first = got[k][0]
            assert first.source.path == f.path
            lines = Path(f.path).read_bytes()[: start or 0].count(b"\n")
            assert 0 <= first.line - 1 - lines <= 200  # a GSD sentence block is < 200 lines
    assert total > 0


def _range_starts(sources: list[Any], plan: list[dict[Any, Any]]) -> list[int]:
    """Each range's byte target, in the files' text laid end to end in reading order."""
    files = [(n, i, f) for n, src in enumerate(sources) for i, f in enumerate(_read_order(src))]
    before = dict(
        zip(
            [(n, i) for n, i, _ in files],
            itertools.accumulate([0] + [text_size(f.path) for _, _, f in files]),
            strict=False,
        )
    )
    return [
        before[first] + (start or 0) for first, (start, _) in (next(iter(p.items())) for p in plan)
    ]


@pytest.mark.parametrize("parts", [2, 3, 4])
def test_ranges_are_balanced_with_the_scan_before_them(ud_dir: Path, parts: int) -> None:
    # A range starts by scanning every byte before it, so the later ranges are given fewer
    # bytes: each range's bytes plus scan_weight times the bytes before it are the same.
    sources = discover([ud_dir / "UD_English-EWT"])
    total = sum(text_size(f.path) for f in sources[0].files)
    for weight in (0.0, 0.08, 0.3):
        starts = _range_starts(sources, record_parts(sources, parts, scan_weight=weight))
        assert starts[0] == 0
        bounds = [*starts, total]
        costs = [b - a + weight * a for a, b in itertools.pairwise(bounds)]
        assert max(costs) - min(costs) <= 2, (weight, costs)
        if weight == 0:
            assert starts == [k * total // parts for k in range(parts)]
        else:  # fewer bytes for each later range
            sizes = [b - a for a, b in itertools.pairwise(bounds)]
            assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


def test_scan_weight_out_of_range_is_refused(ud_dir: Path) -> None:
    from polyprobe.errors import UsageError

    sources = discover([ud_dir / "UD_English-EWT"])
    with pytest.raises(UsageError, match=r"scan_weight must be in \[0, 1\), not 1.5"):
        record_parts(sources, 2, scan_weight=1.5)


def test_part_records_of_the_ud_family(ud_dir: Path) -> None:
    from polyprobe.builders.records.treebank import TreebankRecords

    sources = discover([ud_dir / "UD_English-EWT"])
    family = TreebankRecords(tuple(sources))
    whole_skipped: collections.Counter[str] = collections.Counter()
    whole = [_key(s) for s in family.records("skip", whole_skipped)]
    got, skipped = _read_parts(lambda sk, k, n: family.part_records("skip", sk, k, n), 2)
    assert [_key(s) for c in got for s in c] == whole
    assert skipped == whole_skipped


@pytest.mark.parametrize("parts", [2, 3])
def test_documents_of_the_parts_are_the_whole_reads(ud_dir: Path, parts: int) -> None:
    sources = discover([ud_dir / "UD_English-EWT"])
    whole = list(ud_documents(read_sources(sources, lazy=True)))
    got, _ = _read_parts(
        lambda sk, k, n: read_sources(sources, skipped=sk, lazy=True, part=k, parts=n), parts
    )
    documents = [d for chunk in got for d in ud_documents(chunk)]
    assert documents == whole
    assert len(whole) > 1000


# --------------------------------------------------------------------------------------------
# hand-written files: invalid sentences at the cuts, generated ids, the line machine's cases


def _sentence(sid: str | None, words: list[str], *, doc: str | None = None, bad: str = "") -> str:
    """A sentence block; ``bad`` breaks it (``head``: HEAD out of range, ``cols``: a line of
    9 columns)."""
    lines = []
    if doc is not None:
        lines.append("# newdoc" if doc == "" else f"# newdoc id = {doc}")
    if sid is not None:
        lines.append(f"# sent_id = {sid}")
    lines.append(f"# text = {' '.join(words)}")
    for i, w in enumerate(words, 1):
        head = "0" if i == 1 else "1"
        if bad == "head" and i == len(words):
            head = "99"
        cols = [str(i), w, w.lower(), "X", "_", "_", head, "root" if i == 1 else "dep", "_", "_"]
        if bad == "cols" and i == 2:
            cols = cols[:9]
        lines.append("\t".join(cols))
    return "\n".join(lines) + "\n\n"


def _documents_file(docs: int = 8, with_ids: bool = True) -> str:
    """Documents of three sentences; every document boundary has an invalid sentence right
    before it (odd documents end with one) or right after it (even ones start with one)."""
    out = []
    n = 0
    for d in range(docs):
        for j in range(3):
            n += 1
            bad = ""
            if d % 2 == 0 and j == 0 and d:
                bad = "head"
            if d % 2 == 1 and j == 2:
                bad = "cols"
            sid = f"s{n}" if with_ids else None
            doc = (f"d{d}" if with_ids else "") if j == 0 else None
            out.append(_sentence(sid, ["Dogs", "bark", f"w{n}"], doc=doc, bad=bad))
    return "".join(out)


# The line machine's special cases, each near a document opening: a whitespace-only line
# ending a sentence and one opening a block (``sent_no -= 1``), a comment (and a ``# newdoc``)
# after the token lines, a ``# newdoc`` hidden by an invalid line before it (skip mode never
# reads it), a comment line that is not UTF-8, a block without words, runs of empty lines, a
# control character, a CRLF line end, no final newline.
_ODD = (
    _sentence("a1", ["One", "two"], doc="A")
    + _sentence("a2", ["Three", "four"])
    + " \n"
    + _sentence("a3", ["Five", "six"])[:-1]
    + "   \n"
    + _sentence("a4", ["Seven", "eight"])
    + _sentence("b1", ["Nine", "ten"], doc="B")[:-1]
    + "# newdoc id = B2\n# note = after the words\n\n"
    + _sentence("c1", ["Eleven", "twelve"], doc="C")
    + "# sent_id = c2\n1\tX\tx\tX\t_\t_\t0\troot\t_\t_\n2\tY\n# newdoc id = hidden\n"
    + "3\tZ\tz\tX\t_\t_\t1\tdep\t_\t_\n\n"
    + _sentence("c3", ["Thirteen", "fourteen"])
    + "\n\n\n"
    + _sentence("d1", ["Fifteen", "sixteen"], doc="D")
    + "# sent_id = d2\n# text = only comments\n\n"
    + _sentence(None, ["No", "id"])
    + _sentence("e1", ["Seventeen", "x"], doc="")
    + "# sent_id = e2\n# comment = caf\udcff\n1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n\n"
    + _sentence("e3", ["Ctrl\x07char", "x"])
    + _sentence("f1", ["Last", "one"], doc="F").replace("\n1\t", "\r\n1\t", 1)[:-2]
)


def _write(folder: Path, name: str, text: str) -> Path:
    data = text.encode("utf-8", "surrogateescape")
    path = folder / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(data, mtime=0))
    else:
        path.write_bytes(data)
    return path


def _whole_and_every_cut(path: Path, skip: bool) -> None:
    """read_conllu cut at every byte (two parts) and at a few byte pairs (three parts) is the
    whole read: sentences, skip counts; under raise the earliest error is the whole read's."""
    mode = "skip" if skip else "raise"
    whole_skipped: collections.Counter[str] = collections.Counter()
    whole_error = _error(lambda: read_conllu(path, on_invalid=mode, skipped=whole_skipped))
    whole = [] if whole_error else list(read_conllu(path, on_invalid=mode))
    size = text_size(path)
    cuts = list(range(0, size + 2))
    for a, b in [(None, c) for c in cuts] + [(c, c + size // 3) for c in cuts[::11]]:
        bounds = [None, a, b, None] if a is not None else [None, b, None]
        reads = [
            lambda sk, lo=lo, hi=hi: read_conllu(
                path, on_invalid=mode, skipped=sk, start=lo, stop=hi
            )
            for lo, hi in itertools.pairwise(bounds)
        ]
        if whole_error is not None:
            got = _first_error(lambda k, reads=reads: reads[k](collections.Counter()), len(reads))
            assert got == whole_error, (a, b)
            continue
        skipped: collections.Counter[str] = collections.Counter()
        sentences = [s for read in reads for s in read(skipped)]
        assert sentences == whole, (a, b)
        assert skipped == whole_skipped, (a, b)


@pytest.mark.parametrize("block", [1 << 20, 61])
@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize(
    "name,text",
    [
        ("docs.conllu", _documents_file()),
        ("noids.conllu", _documents_file(with_ids=False)),
        ("noids.conllu.gz", _documents_file(with_ids=False)),
        ("odd.conllu", _ODD),
        ("odd.conllu.gz", _ODD),
        (
            "last-bad.conllu",
            _documents_file().replace("\t99\t", "\t1\t") + _sentence("z", ["A", "b"], bad="head"),
        ),
    ],
)
def test_cut_anywhere_in_a_hand_written_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, skip: bool, name: str, text: str
) -> None:
    # small blocks: the byte scan (_scan_bytes) and its hand-over to the line scan are run
    monkeypatch.setattr(conllu, "_BLOCK", block)
    path = _write(tmp_path, name, text)
    _whole_and_every_cut(path, skip)


def test_the_hand_written_files_are_what_they_claim(tmp_path: Path) -> None:
    skipped: collections.Counter[str] = collections.Counter()
    docs = list(
        read_conllu(
            _write(tmp_path, "d.conllu", _documents_file()), on_invalid="skip", skipped=skipped
        )
    )
    assert skipped == {"head-out-of-range": 3, "bad-column-count": 4}
    assert [s.sent_id for s in docs[:4]] == ["s1", "s2", "s3", "s4"]  # s6 and s7 dropped
    noids = list(
        read_conllu(
            _write(tmp_path, "n.conllu.gz", _documents_file(with_ids=False)), on_invalid="skip"
        )
    )
    assert (noids[0].sent_id, noids[0].doc_id) == ("n-1", "n-doc1")
    assert (noids[-1].sent_id, noids[-1].doc_id) == ("n-23", "n-doc8")  # n-24 invalid
    skipped = collections.Counter()
    odd = {
        s.sent_id: s
        for s in read_conllu(_write(tmp_path, "o.conllu", _ODD), on_invalid="skip", skipped=skipped)
    }
    assert skipped == {
        "bad-column-count": 1,  # c2 (its "# newdoc id = hidden" is never read)
        "no-words": 1,  # d2
        "bad-encoding": 1,  # e2
        "control-character": 1,  # e3
    }
    assert odd["f1"].doc_id == "F"  # a CRLF line end is a line end
    assert odd["c3"].doc_id == "C"
    assert odd["b1"].doc_id == "B2"  # the newdoc after b1's words
    assert odd["o-11"].doc_id == "D"  # no sent_id: the 11th block (d2 counts, "  " does not)
    assert odd["e1"].doc_id == "o-doc6"  # newdoc without id: A, B, B2, C, D, then this one


def _duplicates(folder: Path, invalid: bool) -> list[Any]:
    """A treebank whose later sentences repeat ids: in its train file across a cut, in its
    dev and test files; ``invalid``: one sentence is invalid, and a later one has its id."""
    folder.mkdir()
    train = "".join(_sentence(f"t{i}", ["A", "b"], doc=f"d{i}") for i in range(40))
    train += _sentence("inv", ["A", "b"], doc="x", bad="head" if invalid else "")
    train += "".join(_sentence(f"t{i}", ["A", "b"], doc=f"e{i}") for i in (3, 38))
    train += _sentence("inv" if invalid else "ok", ["A", "b"], doc="y")
    dev = "".join(_sentence(f"t{i}", ["A", "b"], doc=f"v{i}") for i in (1, 41, 39))
    # ids written otherwise than "# sent_id = " (in sentences that open no document, whose
    # ids the byte scan cuts out of the bytes): the same ids to the reader, repeated in dev
    odd = _sentence("m1", ["A", "b"], doc="m") + _sentence("m2", ["A", "b"])
    odd += _sentence("m3", ["A", "b"]) + _sentence("m4", ["A", "b"])
    odd = odd.replace("# sent_id = m2\n", "# newpar\n#  sent_id\u00a0=  m2 \n")
    odd = odd.replace("# sent_id = m3\n", "#sent_id=m3\n")
    odd = odd.replace("# sent_id = m4\n", "# text0 = sent_id\n# sent_id = m4\n")
    train = train.replace("# newdoc id = d20\n", odd + "# newdoc id = d20\n")
    # first in dev: a part confirms its first repeat by re-reading, and checks exactly after it
    dev = "".join(_sentence(f"m{i}", ["A", "b"], doc=f"w{i}") for i in (2, 3, 4)) + dev
    _write(folder, "xx_dup-ud-train.conllu", train)
    _write(folder, "xx_dup-ud-dev.conllu.gz", dev)
    _write(folder, "xx_dup-ud-test.conllu", _sentence("t2", ["A", "b"], doc="z"))
    return discover([folder])


@pytest.mark.parametrize("block", [1 << 20, 97])
def test_duplicate_sent_ids_across_cuts_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """A part checks its ids against the treebank's sentences before it, in its own file
    and in earlier ones; a hit on an invalid earlier sentence (whose id counts for nothing) is
    not a duplicate."""
    monkeypatch.setattr(conllu, "_BLOCK", block)
    sources = _duplicates(tmp_path / "UD_Test-Dup", invalid=True)
    whole_skipped: collections.Counter[str] = collections.Counter()
    whole = list(read_sources(sources, on_invalid="skip", skipped=whole_skipped))
    assert whole_skipped == {"head-out-of-range": 1, "duplicate-sent-id": 8}
    assert [s.sent_id for s in whole[-3:]] == ["t39", "inv", "t41"]  # dev's t39 is dropped
    clean = _duplicates(tmp_path / "UD_Test-Clean", invalid=False)
    whole_error = _error(lambda: read_sources(clean))
    assert whole_error is not None and "sent_id 't3' is used twice" in whole_error[0]
    for parts in range(1, 9):
        got, skipped = _read_parts(
            lambda sk, k, n: read_sources(sources, on_invalid="skip", skipped=sk, part=k, parts=n),
            parts,
        )
        assert [s for c in got for s in c] == whole, parts
        assert skipped == whole_skipped, parts
        error = _first_error(lambda k, n=parts: read_sources(clean, part=k, parts=n), parts)
        assert error == whole_error, parts


def test_documents_of_hand_written_parts(tmp_path: Path) -> None:
    path = _write(tmp_path, "d.conllu", _documents_file(docs=12))
    sources = discover([path])
    whole = list(ud_documents(read_sources(sources, on_invalid="skip")))
    for parts in range(1, 9):
        got, _ = _read_parts(
            lambda sk, k, n: read_sources(sources, on_invalid="skip", skipped=sk, part=k, parts=n),
            parts,
        )
        assert [d for c in got for d in ud_documents(c)] == whole, parts
        # no document spans a cut (a part may start after its first block, skipped invalid)
        sentences = [s for c in got for s in c]
        for k in range(1, parts):
            if got[k] and got[k - 1]:
                assert got[k][0].doc_id != got[k - 1][-1].doc_id
        assert len({s.doc_id for s in sentences}) == 12


def test_part_records_of_a_ud_document_family(ud_dir: Path) -> None:
    from polyprobe.builders.records.documents import DocumentRecords
    from polyprobe.loaders.ud_documents import UdDocumentSource

    sources = discover([ud_dir / "UD_English-EWT", ud_dir / "UD_Czech-FicTree"])
    family = DocumentRecords(tuple(UdDocumentSource(s) for s in sources))
    assert family.can_be_cut()
    whole_skipped: collections.Counter[str] = collections.Counter()
    whole = list(family.records("skip", whole_skipped))
    assert len(whole) > 1000
    for parts in (2, 3):
        got, skipped = _read_parts(lambda sk, k, n: family.part_records("skip", sk, k, n), parts)
        assert [d for c in got for d in c] == whole
        assert skipped == whole_skipped
        assert all(got)
