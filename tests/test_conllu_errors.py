"""Malformed CoNLL-U: every problem is one InputError naming file, line and problem, and in
skip mode the whole sentence is dropped and counted under a stable reason key.

Why: a user with a broken treebank must be able to fix the exact line, and a card that
reports "skipped 3 sentences (cycle: 2, bad-encoding: 1)" must be telling the truth."""

from __future__ import annotations

import collections
import gzip
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from polyprobe.errors import InputError, PolyprobeError, UsageError
from polyprobe.loaders.conllu import FATAL_REASONS, REASONS, read_conllu


def tok(i: object, head: object = 0, form: str = "w", **cols: str) -> str:
    """One token line; ``cols`` overrides columns by name."""
    c = {
        "id": str(i),
        "form": form,
        "lemma": "w",
        "upos": "X",
        "xpos": "_",
        "feats": "_",
        "head": str(head),
        "deprel": "root" if str(head) == "0" else "dep",
        "deps": "_",
        "misc": "_",
    }
    c.update(cols)
    return "\t".join(c.values())


def sent(sid: str, *lines: str) -> str:
    return "\n".join([f"# sent_id = {sid}", *lines]) + "\n\n"


GOOD = sent("good", tok(1, 2), tok(2, 0), tok(3, 2))

# (reason, sentence text, line of the problem relative to the sentence's first line (1-based))
BROKEN: list[tuple[str, str, int]] = [
    ("bad-column-count", sent("b", tok(1, 0), "2\tw\tw\tX\t_\t_\t1\tdep\t_"), 3),
    ("bad-column-count", sent("b", tok(1, 0), tok(2, 1) + "\textra"), 3),
    ("bad-column-count", sent("b", "1 w w X _ _ 0 root _ _"), 2),
    ("empty-field", sent("b", tok(1, 0), tok(2, 1, form="")), 3),
    ("empty-field", sent("b", tok(1, 0, misc="")), 2),
    ("non-integer-id", sent("b", tok(1, 0), tok("x", 1)), 3),
    ("non-integer-id", sent("b", tok(1, 0), tok("02", 1)), 3),
    ("non-integer-id", sent("b", tok(1, 0), tok("1.0", 1)), 3),
    ("id-out-of-order", sent("b", tok(1, 0), tok(3, 1)), 3),
    ("id-out-of-order", sent("b", tok(2, 0)), 2),
    ("id-out-of-order", sent("b", tok(1, 0), tok(1, 1)), 3),
    ("id-out-of-order", sent("b", tok(0, 0)), 2),
    ("bad-multiword-range", sent("b", tok("2-1", "_"), tok(1, 0), tok(2, 1)), 2),
    ("bad-multiword-range", sent("b", tok(1, 0), tok("3-4", "_"), tok(2, 1)), 3),
    ("bad-multiword-range", sent("b", tok("1-3", "_"), tok(1, 0), tok("2-3", "_")), 4),
    ("bad-multiword-range", sent("b", tok(1, 0), tok("2-3", "_"), tok(2, 1)), 3),
    ("bad-empty-node", sent("b", tok(1, 0), tok("1.2", "_")), 3),
    ("bad-empty-node", sent("b", tok(1, 0), tok(2, 1), tok("1.1", "_")), 4),
    ("non-integer-head", sent("b", tok(1, 0), tok(2, "x")), 3),
    ("non-integer-head", sent("b", tok(1, 0), tok(2, "-1")), 3),
    ("non-integer-head", sent("b", tok(1, 0), tok(2, "_")), 3),
    ("non-integer-head", sent("b", tok(1, 0), tok(2, "+1")), 3),
    ("head-out-of-range", sent("b", tok(1, 0), tok(2, 5), tok(3, 1)), 3),
    ("head-out-of-range", sent("b", tok("1-2", "_"), tok(1, 0), tok(2, 3)), 4),
    ("no-root", sent("b", tok(1, 2), tok(2, 1)), 1),
    ("multiple-roots", sent("b", tok(1, 0), tok(2, 1), tok(3, 0)), 4),
    ("cycle", sent("b", tok(1, 0), tok(2, 3), tok(3, 2)), 3),
    ("cycle", sent("b", tok(1, 0), tok(2, 2)), 3),
    (
        "cycle",
        sent("b", tok(1, 0), "1.1\tw\tw\tX\t_\t_\t_\t_\t_\t_", tok(2, 4), tok(3, 2), tok(4, 3)),
        4,
    ),
    ("no-words", "# sent_id = b\n# text = nothing here\n\n", 1),
]


@pytest.mark.parametrize(
    ("reason", "text", "rel"), BROKEN, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(BROKEN)]
)
def test_each_problem_raises_with_file_and_line(
    tmp_path: Path, reason: str, text: str, rel: int
) -> None:
    assert reason in REASONS
    f = tmp_path / "broken.conllu"
    f.write_text(GOOD + text + GOOD, encoding="utf-8")
    good_lines = GOOD.count("\n")
    it = read_conllu(f)
    assert next(it).sent_id == "good"  # what precedes the problem is still delivered
    with pytest.raises(InputError) as ei:
        next(it)
    e = ei.value
    assert e.reason == reason, str(e)
    assert e.path == str(f) and e.line == good_lines + rel
    assert str(e).startswith(f"{f}:{good_lines + rel}: ")
    assert isinstance(e, PolyprobeError)


def test_skip_mode_counts_every_reason_exactly(tmp_path: Path) -> None:
    f = tmp_path / "many.conllu"
    parts = [GOOD]
    for _, text, _ in BROKEN:
        parts += [text, GOOD]
    f.write_text("".join(parts), encoding="utf-8")
    skipped: collections.Counter[str] = collections.Counter()
    got = list(read_conllu(f, on_invalid="skip", skipped=skipped))
    assert [s.sent_id for s in got] == ["good"] * (len(BROKEN) + 1)
    assert skipped == collections.Counter(r for r, _, _ in BROKEN)
    # positions are still the file's own: fallback ids count skipped sentences too
    assert len({s.line for s in got}) == len(got)


def test_two_problems_in_one_sentence_count_once(tmp_path: Path) -> None:
    f = tmp_path / "two.conllu"
    f.write_text(sent("b", tok("x", 0), tok(2, "y"), "short") + GOOD, encoding="utf-8")
    skipped: collections.Counter[str] = collections.Counter()
    assert [s.sent_id for s in read_conllu(f, on_invalid="skip", skipped=skipped)] == ["good"]
    assert skipped == {"non-integer-id": 1}


def test_fallback_ids_count_skipped_sentences(tmp_path: Path) -> None:
    f = tmp_path / "ids.conllu"
    body = tok(1, 0) + "\n\n" + tok(1, 1) + "\n\n" + tok(1, 0) + "\n"
    f.write_text(body, encoding="utf-8")
    got = list(read_conllu(f, on_invalid="skip"))
    assert [s.sent_id for s in got] == ["ids-1", "ids-3"]


def test_bad_encoding_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "enc.conllu"
    bad = sent("b", tok(1, 0), tok(2, 1, form="caf\xe9")).encode("latin-1")
    f.write_bytes(GOOD.encode() + bad + GOOD.encode())
    with pytest.raises(InputError) as ei:
        list(read_conllu(f))
    assert ei.value.reason == "bad-encoding" and ei.value.line == 8
    assert "UTF-8" in str(ei.value) and str(ei.value).startswith(f"{f}:8: ")
    skipped: collections.Counter[str] = collections.Counter()
    got = list(read_conllu(f, on_invalid="skip", skipped=skipped))
    assert [s.sent_id for s in got] == ["good", "good"] and skipped == {"bad-encoding": 1}


def _gz(tmp_path: Path, text: str, name: str = "t-ud-train.conllu.gz") -> Path:
    f = tmp_path / name
    f.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return f


def test_truncated_gzip(tmp_path: Path) -> None:
    text = "".join(sent(f"s{i}", tok(1, 0), tok(2, 1)) for i in range(200))
    full = _gz(tmp_path, text)
    data = full.read_bytes()
    f = tmp_path / "cut.conllu.gz"
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError) as ei:
        list(read_conllu(f))
    e = ei.value
    assert e.reason == "truncated-gzip" and e.path == str(f) and e.line >= 1
    assert str(e).startswith(f"{f}:{e.line}: ")
    # The rest of the file is lost: fatal under skip too (issue 15), nothing counted.
    skipped: collections.Counter[str] = collections.Counter()
    with pytest.raises(InputError) as ei:
        list(read_conllu(f, on_invalid="skip", skipped=skipped))
    assert ei.value.reason == "truncated-gzip" and ei.value.reason in FATAL_REASONS
    assert not skipped


def test_corrupt_gzip(tmp_path: Path) -> None:
    text = "".join(sent(f"s{i}", tok(1, 0)) for i in range(50))
    data = bytearray(_gz(tmp_path, text).read_bytes())
    data[len(data) // 2] ^= 0xFF
    f = tmp_path / "bad.conllu.gz"
    f.write_bytes(bytes(data))
    with pytest.raises(InputError) as ei:
        list(read_conllu(f))
    assert ei.value.reason in {"corrupt-gzip", "truncated-gzip"} and ei.value.line >= 1
    skipped: collections.Counter[str] = collections.Counter()
    with pytest.raises(InputError) as ei:
        list(read_conllu(f, on_invalid="skip", skipped=skipped))
    assert ei.value.reason in FATAL_REASONS  # fatal under skip too (issue 15)


def test_not_gzip_despite_the_name(tmp_path: Path) -> None:
    f = tmp_path / "plain.conllu.gz"
    f.write_text(GOOD, encoding="utf-8")
    with pytest.raises(InputError) as ei:
        list(read_conllu(f))
    assert ei.value.reason == "corrupt-gzip" and ei.value.line == 1
    assert str(ei.value).startswith(f"{f}:1: ")


def test_gzip_recognised_by_content(tmp_path: Path) -> None:
    f = _gz(tmp_path, GOOD, name="looks-plain.conllu")
    assert [s.sent_id for s in read_conllu(f)] == ["good"]


def test_missing_file_and_bad_option(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file") as ei:
        read_conllu(tmp_path / "nope.conllu")
    assert ei.value.reason in FATAL_REASONS
    with pytest.raises(InputError, match="not a file"):
        read_conllu(tmp_path, on_invalid="skip")
    f = tmp_path / "x.conllu"
    f.write_text(GOOD, encoding="utf-8")
    with pytest.raises(UsageError):
        read_conllu(f, on_invalid="ignore")


def test_things_real_treebanks_contain_are_accepted(tmp_path: Path) -> None:
    f = tmp_path / "ok.conllu"
    lines = [
        "# text = New York _",
        "# free comment",
        tok(1, 2, form="New York", lemma="New York"),
        tok(2, 0, form="_", feats="Foo|Bar=Baz", misc="Translit=|Cxn=a=b|Flag"),
        "# a comment between token lines",
        tok("2.1", "_", deps="2:orphan"),
        tok(3, 2),
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (s,) = read_conllu(f)
    assert s.words[0].form == "New York" and s.words[1].form == "_"
    assert s.words[1].feats == {"Foo": "", "Bar": "Baz"}
    assert s.words[1].misc == {"Translit": "", "Cxn": "a=b", "Flag": ""}
    assert len(s.empty) == 1 and len(s.words) == 3


def test_error_line_after_comment_and_range_lines(tmp_path: Path) -> None:
    f = tmp_path / "deep.conllu"
    lines = [
        "# sent_id = x",
        tok("1-2", "_"),
        tok(1, 0),
        "# inner",
        tok(2, 1),
        tok("2.1", "_"),
        tok(3, 0),
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as ei:
        list(read_conllu(f))
    assert ei.value.reason == "multiple-roots" and ei.value.line == 7


# --------------------------------------------------------------------------------------
# fuzzing: mutated real CoNLL-U never produces anything but InputError


_POOL: list[str] = []
#: Examples per fuzz test; raise it for a long local run (POLYPROBE_FUZZ_EXAMPLES=5000).
_FUZZ = int(os.environ.get("POLYPROBE_FUZZ_EXAMPLES", "300"))


def _pool(ud_dir: Path) -> list[str]:
    """Real sentence blocks with multiword tokens (Spanish), empty nodes (EWT, Finnish) and
    long sentences, read once per session."""
    if not _POOL:
        for rel, take in (
            ("UD_English-EWT/en_ewt-ud-dev.conllu", 40),
            ("UD_Spanish-GSD/es_gsd-ud-test.conllu", 25),
            ("UD_Finnish-TDT/fi_tdt-ud-dev.conllu", 25),
            ("UD_Georgian-GLC/ka_glc-ud-dev.conllu", 10),
        ):
            text = (ud_dir / rel).read_text(encoding="utf-8")
            blocks = [b for b in text.split("\n\n") if b.strip()]
            with_extras = [b for b in blocks if "\n1-" in b or "." in b.split("\t")[0]]
            _POOL.extend(blocks[:take] + with_extras[:10])
    return _POOL


_MUTATION = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 10_000)),
    st.tuples(st.just("dup"), st.integers(0, 10_000)),
    st.tuples(st.just("blank"), st.integers(0, 10_000)),
    st.tuples(st.just("swap"), st.integers(0, 10_000), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(
        st.just("set"),
        st.integers(0, 10_000),
        st.integers(0, 10),
        st.sampled_from(["", "_", "0", "1", "-1", "99", "1-2", "2-1", "1.1", "x", "a=b", " ", "#"]),
    ),
    st.tuples(  # heads: roots, cycles, out of range
        st.just("set"), st.integers(0, 10_000), st.just(6), st.sampled_from(["0", "1", "2", "3"])
    ),
    st.tuples(st.just("self-head"), st.integers(0, 10_000)),
    st.tuples(st.just("text"), st.integers(0, 10_000), st.text(max_size=20)),
    st.tuples(st.just("move"), st.integers(0, 10_000), st.integers(0, 10_000)),
)
_BYTE_MUTATION = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 1 << 20), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 1 << 20)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 20), st.binary(min_size=1, max_size=4)),
)


def _mutate(lines: list[str], m: tuple) -> None:
    if not lines:
        return
    i = m[1] % len(lines)
    kind = m[0]
    if kind == "delete":
        del lines[i]
    elif kind == "dup":
        lines.insert(i, lines[i])
    elif kind == "blank":
        lines[i] = ""
    elif kind == "swap":
        cols = lines[i].split("\t")
        if len(cols) > max(m[2], m[3]):
            cols[m[2]], cols[m[3]] = cols[m[3]], cols[m[2]]
            lines[i] = "\t".join(cols)
    elif kind == "set":
        cols = lines[i].split("\t")
        if m[2] < len(cols):
            cols[m[2]] = m[3]
        else:
            cols.append(m[3])
        lines[i] = "\t".join(cols)
    elif kind == "self-head":
        cols = lines[i].split("\t")
        if len(cols) > 6:
            cols[6] = cols[0]
            lines[i] = "\t".join(cols)
    elif kind == "text":
        lines[i] = m[2]
    elif kind == "move":
        lines.insert(m[2] % len(lines), lines.pop(i))


def _mutate_bytes(data: bytes, m: tuple) -> bytes:
    if not data:
        return data
    pos = m[1] % len(data)
    if m[0] == "flip":
        return data[:pos] + bytes([data[pos] ^ m[2]]) + data[pos + 1 :]
    if m[0] == "cut":
        return data[:pos]
    return data[:pos] + m[2] + data[pos:]


def _blocks_in(data: bytes) -> int:
    """Independent count of sentence blocks: runs of non-blank lines (blank = empty or
    whitespace only once decoded; undecodable bytes are never blank)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    count, inside = 0, False
    for raw in data.split(b"\n"):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        blank = line.decode("utf-8", errors="replace").strip() == ""
        if not blank and not inside:
            count += 1
        inside = not blank
    return count


def _check_error(
    e: InputError, path: Path, n_lines: int, reasons: dict[str, str] = REASONS
) -> None:
    assert e.path == str(path)
    assert e.reason in reasons
    if e.line is None and e.reason in FATAL_REASONS:  # about the whole file (undecodable)
        assert str(e).startswith(f"{path}: ")
        return
    assert isinstance(e.line, int) and 1 <= e.line <= max(n_lines, 1), (e.line, n_lines)
    assert str(e).startswith(f"{path}:{e.line}: ")


@settings(
    max_examples=_FUZZ,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=5),
    mutations=st.lists(_MUTATION, max_size=6),
    byte_mutations=st.lists(_BYTE_MUTATION, max_size=2),
)
def test_fuzz_plain(
    ud_dir: Path, tmp_path_factory: pytest.TempPathFactory, picks, mutations, byte_mutations
) -> None:
    pool = _pool(ud_dir)
    lines = "\n\n".join(pool[i % len(pool)] for i in picks).split("\n") + [""]
    for m in mutations:
        _mutate(lines, m)
    data = "\n".join(lines).encode("utf-8")
    for m in byte_mutations:
        data = _mutate_bytes(data, m)
    path = tmp_path_factory.mktemp("fuzz") / "fz-ud-dev.conllu"
    path.write_bytes(data)
    n_lines = data.count(b"\n") + 1

    skipped: collections.Counter[str] = collections.Counter()
    try:
        kept = list(read_conllu(path, on_invalid="skip", skipped=skipped))  # never raises...
    except InputError as e:  # ...but for a whole file (mutated to start like UTF-16, gzip)
        assert e.reason in FATAL_REASONS and e.path == str(path)
        return
    assert len(kept) + sum(skipped.values()) == _blocks_in(data)
    for reason in skipped:
        event(f"skipped: {reason}")
    assert set(skipped) <= set(REASONS)
    for s in kept:
        assert [w.id for w in s.words] == list(range(1, len(s.words) + 1))
        assert sum(w.head == 0 for w in s.words) == 1 and s.depth() >= 1

    got = []
    try:
        for s in read_conllu(path):
            got.append(s.sent_id)
    except InputError as e:
        _check_error(e, path, n_lines)
        assert skipped, "raise mode failed where skip mode skipped nothing"
        assert got == [s.sent_id for s in kept[: len(got)]]
    else:
        assert not skipped and got == [s.sent_id for s in kept]


@settings(
    max_examples=max(1, _FUZZ // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=8),
    mutations=st.lists(_MUTATION, max_size=3),
    gz_mutations=st.lists(_BYTE_MUTATION, min_size=1, max_size=2),
)
def test_fuzz_gzip(
    ud_dir: Path, tmp_path_factory: pytest.TempPathFactory, picks, mutations, gz_mutations
) -> None:
    pool = _pool(ud_dir)
    lines = "\n\n".join(pool[i % len(pool)] for i in picks).split("\n") + [""]
    for m in mutations:
        _mutate(lines, m)
    text = "\n".join(lines).encode("utf-8")
    data = gzip.compress(text, mtime=0)
    for m in gz_mutations:
        data = _mutate_bytes(data, m)
    path = tmp_path_factory.mktemp("fuzz") / "fz-ud-train.conllu.gz"
    path.write_bytes(data)
    n_lines = text.count(b"\n") + 1

    intact: collections.Counter[str] = collections.Counter()
    reference = [s.sent_id for s in read_conllu_bytes(tmp_path_factory, text, intact)]
    skipped: collections.Counter[str] = collections.Counter()
    kept: list[str] = []
    stream_error = None
    try:  # a broken stream is fatal whatever the policy (issue 15)
        for s in read_conllu(path, on_invalid="skip", skipped=skipped):
            kept.append(s.sent_id)
    except InputError as e:
        assert e.reason in FATAL_REASONS, e
        _check_error(e, path, max(n_lines, 1) + 1, FATAL_REASONS)
        stream_error = e.reason
    event(f"stream: {stream_error or 'intact'}")
    for reason in skipped:
        event(f"skipped: {reason}")
    assert set(skipped) <= set(REASONS)
    assert len(kept) + sum(skipped.values()) <= _blocks_in(text) + 1
    try:
        for _ in read_conllu(path):
            pass
    except InputError as e:
        _check_error(e, path, max(n_lines, 1) + 1, {**REASONS, **FATAL_REASONS})
    else:
        assert stream_error is None, "raise mode read a file that skip mode could not"
    if not any(m[0] == "flip" or m[0] == "insert" for m in gz_mutations):
        # pure truncation: what comes out is a prefix of the intact file's sentences
        assert kept == reference[: len(kept)]


def read_conllu_bytes(factory: pytest.TempPathFactory, data: bytes, skipped: collections.Counter):
    path = factory.mktemp("ref") / "ref.conllu"
    path.write_bytes(data)
    return list(read_conllu(path, on_invalid="skip", skipped=skipped))
