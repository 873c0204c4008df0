"""The reader's sentence fast path against its line-by-line machine.

Why: ``read_conllu`` builds most sentences with ``_fast_sentence`` and hands only the chunks
it declines to the line machine (the original reader, which ``test_conllu_reader`` compares
with ``conllu.parse_incr`` and ``test_conllu_errors`` checks for errors). The fast path is
only allowed to be faster: on real treebanks and on mutated ones it must yield equal
sentences, raise the same error (message, line, reason) after the same sentences, and count
the same skips. ``_read(..., fast=False)`` runs the line machine alone as the reference.
Small block sizes force sentences across block boundaries (carried-over chunks)."""

from __future__ import annotations

import collections
import gzip
from pathlib import Path

import pytest
from conftest import all_treebanks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_conllu_errors import _BYTE_MUTATION, _FUZZ, _MUTATION, _mutate, _mutate_bytes, _pool

import polyprobe.loaders.conllu as reader
from polyprobe.errors import InputError
from polyprobe.loaders.conllu import LazyWord
from polyprobe.loaders.records import SourceFile, Word

Outcome = tuple[list[object], tuple[str, int | None, str] | None, dict[str, int]]


def _run(path: Path, *, fast: bool, skip: bool, lazy: bool = False) -> Outcome:
    """Sentences read, the error that stopped the read (if any) and the skip counts."""
    skipped: collections.Counter[str] = collections.Counter()
    source = SourceFile("UD_Test", str(path), "dev")
    out: list[object] = []
    err = None
    try:
        for s in reader._read(path, reader.file_stem(path), source, skip, skipped, lazy, fast):
            out.append(s)
    except InputError as e:
        err = (str(e), e.line, e.reason)
    return out, err, dict(skipped)


def _same(path: Path, *, lazy: bool = False) -> int:
    """Assert both readers agree in raise and skip mode; the number of sentences kept."""
    n = 0
    for skip in (False, True):
        fast = _run(path, fast=True, skip=skip, lazy=lazy)
        slow = _run(path, fast=False, skip=skip, lazy=lazy)
        assert fast[1] == slow[1] and fast[2] == slow[2], path
        assert len(fast[0]) == len(slow[0]), path
        for a, b in zip(fast[0], slow[0], strict=True):
            assert a == b, (path, a.sent_id)  # type: ignore[attr-defined]
            kinds = {type(w) for w in a.words + b.words}  # type: ignore[attr-defined]
            assert kinds == {LazyWord if lazy else Word}
        n = len(fast[0])
    return n


@pytest.fixture
def block_size(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(reader, "_BLOCK", request.param)
    return request.param


@pytest.mark.parametrize("treebank", all_treebanks())
def test_fast_path_equals_line_machine_on_every_treebank(ud_dir: Path, treebank: str) -> None:
    files = sorted(
        p for p in (ud_dir / treebank).iterdir() if p.name.endswith((".conllu", ".conllu.gz"))
    )
    assert files and all(_same(p) for p in files)


@pytest.mark.parametrize("block_size", [1 << 12], indirect=True)
def test_fast_path_small_blocks_and_lazy(ud_dir: Path, block_size: int) -> None:
    for rel in ("UD_English-EWT/en_ewt-ud-dev.conllu", "UD_Spanish-GSD/es_gsd-ud-test.conllu"):
        assert _same(ud_dir / rel) and _same(ud_dir / rel, lazy=True)


def _write(tmp_path: Path, text: str, name: str = "t-ud-dev.conllu") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _tok(i: object, head: object = 0, **cols: str) -> str:
    c = {"id": str(i), "form": "w", "lemma": "w", "upos": "X", "xpos": "_", "feats": "_"}
    c |= {"head": str(head), "deprel": "dep", "deps": "_", "misc": "_"}
    c.update(cols)
    return "\t".join(c.values())


GOOD = "\n".join(["# sent_id = a", _tok(1, 2), _tok(2, 0), ""])

CASES = {
    "plain": GOOD,
    "range": "\n".join([_tok("1-2"), _tok(1, 2), _tok(2, 0), ""]),
    "range-past-end": "\n".join([_tok(1, 0), _tok("2-3"), _tok(2, 1), ""]),
    "range-overlap": "\n".join([_tok("1-2"), _tok(1, 0), _tok("2-3"), _tok(2, 1), _tok(3, 1), ""]),
    "range-reversed": "\n".join([_tok("2-1"), _tok(1, 0), _tok(2, 1), ""]),
    "range-only": "\n".join([_tok("1-2"), ""]),
    "range-big": "\n".join([_tok("1-5000"), _tok(1, 0), ""]),
    "empty-node": "\n".join([_tok(1, 0), _tok("1.1", "_"), _tok(2, 1), ""]),
    "comment-inside": "\n".join([_tok(1, 0), "# late", _tok(2, 1), ""]),
    "tabbed-comment": "\n".join([_tok(1, 0), "#" + "\tx" * 9, _tok(2, 1), ""]),
    "whitespace-line": "\n".join([_tok(1, 0), "  ", _tok(1, 0), ""]),
    "whitespace-tabs": "\n".join([_tok(1, 0), " \t" * 9 + " ", _tok(1, 0), ""]),
    "nine-and-eleven": "\n".join([_tok(1, 0) + "\tx", _tok(2, 1)[: -len("\t_")], ""]),
    "empty-column": "\n".join([_tok(1, 0, lemma=""), ""]),
    "empty-last-column": "\n".join([_tok(1, 0, misc=""), ""]),
    "empty-feats": "\n".join([_tok(1, 0, feats=""), ""]),
    "head-leading-zero": "\n".join([_tok(1, "00"), ""]),
    "head-big": "\n".join([_tok(1, 0), _tok(2, 4000), ""]),
    "head-out-of-range": "\n".join([_tok(1, 0), _tok(2, 3), ""]),
    "two-roots": "\n".join([_tok(1, 0), _tok(2, 0), ""]),
    "cycle": "\n".join([_tok(1, 0), _tok(2, 3), _tok(3, 2), ""]),
    "no-words": "\n".join(["# sent_id = x", "# text = y", ""]),
    "id-gap": "\n".join([_tok(1, 0), _tok(3, 1), ""]),
    "no-final-blank": "\n".join(["# newdoc", _tok(1, 0), "", "# newdoc id = d", _tok(1, 0)]),
    "blank-runs": "\n\n\n" + GOOD + "\n\n\n" + GOOD + "\n\n" + GOOD,
    "crlf": (GOOD + "\n" + GOOD).replace("\n", "\r\n"),
    "long": "\n".join([_tok(i, 0 if i == 1 else 1) for i in range(1, 2600)] + [""]),
}


#: Cases whose every chunk the fast path must take (the others it must all decline).
ACCEPTED = {"plain", "range", "no-final-blank", "blank-runs", "crlf"}


def _counting(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[bool]:
    """Count the fast path's decisions: True = built the sentence, False = declined."""
    seen: collections.Counter[bool] = collections.Counter()
    inner = reader._fast_sentence

    def counted(*args: object) -> object:
        sent = inner(*args)  # type: ignore[arg-type]
        seen[sent is not None] += 1
        return sent

    monkeypatch.setattr(reader, "_fast_sentence", counted)
    return seen


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_path_declines_what_it_must(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    path = _write(tmp_path, CASES[case])
    seen = _counting(monkeypatch)
    list(reader.read_conllu(path, on_invalid="skip"))
    assert seen[case not in ACCEPTED] == 0 and seen[case in ACCEPTED] > 0
    text = CASES[case] + "\n" + GOOD + "\n"  # and the next sentence is still read right
    _same(_write(tmp_path, text))
    _same(_write(tmp_path, text), lazy=True)


def test_fast_path_takes_almost_every_real_sentence(
    ud_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _counting(monkeypatch)
    for rel in ("UD_English-EWT/en_ewt-ud-dev.conllu", "UD_Spanish-GSD/es_gsd-ud-test.conllu"):
        list(reader.read_conllu(ud_dir / rel))
    assert seen[True] >= 0.95 * (seen[True] + seen[False])  # only empty nodes go slowly


def test_stream_end_inside_a_carried_chunk(tmp_path: Path) -> None:
    text = "\n".join([GOOD] * 50 + [_tok(1, 0, lemma=""), _tok(2, 1)]).encode()
    data = gzip.compress(text, mtime=0)
    path = tmp_path / "t-ud-train.conllu.gz"
    for cut in (len(data) // 3, len(data) - 12):
        path.write_bytes(data[:cut])
        _same(path)


@settings(
    max_examples=_FUZZ,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=6),
    mutations=st.lists(_MUTATION, max_size=6),
    byte_mutations=st.lists(_BYTE_MUTATION, max_size=2),
    block=st.sampled_from([8, 200, 1 << 20]),
    compress=st.booleans(),
)
def test_fuzz_fast_path_equals_line_machine(
    ud_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    picks: list[int],
    mutations: list[tuple],
    byte_mutations: list[tuple],
    block: int,
    compress: bool,
) -> None:
    pool = _pool(ud_dir)
    lines = "\n\n".join(pool[i % len(pool)] for i in picks).split("\n") + [""]
    for m in mutations:
        _mutate(lines, m)
    data = "\n".join(lines).encode("utf-8")
    if compress:
        data = gzip.compress(data, mtime=0)
    for m in byte_mutations:
        data = _mutate_bytes(data, m)
    name = "fz-ud-dev.conllu.gz" if compress else "fz-ud-dev.conllu"
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(data)
    saved = reader._BLOCK
    reader._BLOCK = block
    try:
        _same(path)
    finally:
        reader._BLOCK = saved


@pytest.mark.parametrize("column", ["lemma", "misc"])
def test_empty_column_found_whichever_block_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column: str
) -> None:
    # A sentence with an empty column, with a block boundary put at every byte of it (the
    # part before the boundary is carried over into the next block): the fast path must
    # decline it each time, and the result (error in raise mode, skip count in skip mode)
    # must be the line machine's.
    head = (GOOD + "\n") * 3
    bad = "\n".join([_tok(1, 2), _tok(2, 0, **{column: ""}), ""])
    path = _write(tmp_path, head + bad + "\n" + GOOD + "\n")
    start = len(head.encode())
    for block in range(start - 3, start + len(bad.encode()) + 2):
        monkeypatch.setattr(reader, "_BLOCK", block)
        seen = _counting(monkeypatch)
        out, err, skipped = _run(path, fast=True, skip=False)
        assert err is not None and err[2] == "empty-field", (block, err)
        assert err[1] == 3 * 4 + 2  # the broken word line: 3 blocks of 4 lines before it
        assert len(out) == 3
        assert seen[False] == 1, block  # declined exactly the broken sentence
        _same(path)
