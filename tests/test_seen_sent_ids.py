"""The reader's duplicate-sent_id check keeps hashes, not ids (issue 13, memory): a repeated id
is still refused naming both places, or skipped and counted, exactly as before; a hash
collision between two different ids never drops a sentence; and what the check holds while a
treebank streams is a few bytes a sentence (the ids themselves were ~175)."""

from __future__ import annotations

import collections
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_bad_input_readers import _treebank, sent

from polyprobe.errors import InputError
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.seen_keys import SeenKeys
from polyprobe.loaders.sources import discover, read_sources


def colliding(*ids: str) -> Callable[[str], int]:
    """Python's hash, except that every id in ``ids`` hashes to one value."""
    return lambda sid: 12345 if sid in ids else hash(sid)


def test_seen_keys_answers_across_its_merges() -> None:
    seen = SeenKeys(batch=4)  # a merge every few keys: the sorted array is searched too
    keys = [f"s{i}" for i in range(1000)]
    assert not any(seen.add(k) for k in keys)
    assert len(seen) == 1000
    assert all(seen.add(k) for k in reversed(keys))
    assert len(seen) == 1000
    assert not seen.add("s1000")


def test_a_collision_is_only_a_maybe() -> None:
    seen = SeenKeys(colliding("a", "b"))
    assert not seen.add("a")
    assert seen.add("b")  # a different key, same hash: "maybe seen", for the caller to confirm


def test_duplicate_across_two_files_names_both_places_and_skip_drops_the_later(
    tmp_path: Path,
) -> None:
    tb = _treebank(
        tmp_path,
        {
            "xx_toy-ud-train.conllu": sent("a") + sent("b") + sent("c"),
            "xx_toy-ud-dev.conllu": sent("d"),
            "xx_toy-ud-test.conllu": sent("e") + sent("f") + sent("c") + sent("g"),
        },
    )
    sources = discover([tb])
    with pytest.raises(InputError) as err:
        list(read_sources(sources))
    e = err.value
    assert (e.path, e.line, e.reason) == (str(tb / "xx_toy-ud-test.conllu"), 9, "duplicate-sent-id")
    assert e.problem == (
        f"sent_id 'c' is used twice in UD_Toy-A: this sentence and the one at "
        f"{tb / 'xx_toy-ud-train.conllu'}:9 (ids must be unique within a treebank; with "
        "--on-invalid skip the later one is dropped)"
    )
    skipped: collections.Counter[str] = collections.Counter()
    got = list(read_sources(sources, on_invalid="skip", skipped=skipped))
    assert [(s.sent_id, s.source.split, s.line) for s in got] == [
        ("a", "train", 1),
        ("b", "train", 5),
        ("c", "train", 9),
        ("d", "dev", 1),
        ("e", "test", 1),
        ("f", "test", 5),
        ("g", "test", 13),
    ]
    assert skipped == {"duplicate-sent-id": 1}


def test_a_hash_collision_drops_no_sentence_and_later_duplicates_are_still_found(
    tmp_path: Path,
) -> None:
    tb = _treebank(
        tmp_path,
        {
            "xx_toy-ud-train.conllu": sent("a") + sent("b") + sent("c"),
            "xx_toy-ud-test.conllu": sent("d") + sent("e") + sent("b") + sent("f") + sent("b"),
        },
    )
    sources = discover([tb])
    # "a" and "d" collide: the check switches to exact ids at "d" (its re-read must find "b" in
    # train, line 5, and count nothing twice)
    key_hash = colliding("a", "d")
    skipped: collections.Counter[str] = collections.Counter()
    got = list(read_sources(sources, on_invalid="skip", skipped=skipped, key_hash=key_hash))
    assert [(s.sent_id, s.source.split, s.line) for s in got] == [
        ("a", "train", 1),
        ("b", "train", 5),
        ("c", "train", 9),
        ("d", "test", 1),
        ("e", "test", 5),
        ("f", "test", 13),
    ]
    assert skipped == {"duplicate-sent-id": 2}
    with pytest.raises(InputError) as err:
        list(read_sources(sources, key_hash=key_hash))
    assert (err.value.path, err.value.line) == (str(tb / "xx_toy-ud-test.conllu"), 9)
    assert f"{tb / 'xx_toy-ud-train.conllu'}:5 " in err.value.problem


def test_every_id_colliding_reads_a_real_treebank_unchanged(ud_dir: Path) -> None:
    """The worst hash (one value for every id) costs a re-read, never a sentence: EWT's dev and
    test files give the same sentences, in order, as with Python's hash."""
    (ewt,) = discover([ud_dir / "UD_English-EWT"])
    ewt.files = [f for f in ewt.files if f.split != "train"]  # the small files: a quick test
    expected = [(s.sent_id, s.line) for s in read_sources([ewt], lazy=True)]
    assert len(expected) == 4078 and expected[0] == (
        "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713-0001",
        1,
    )
    got = [(s.sent_id, s.line) for s in read_sources([ewt], lazy=True, key_hash=lambda sid: 0)]
    assert got == expected


def _held_by_the_check(sentences: Iterator[Sentence], last: int) -> int:
    """Traced bytes allocated by ``read_sources`` itself (its check: its own lines, the
    check's module and numpy) and still held at sentence number ``last``, measured from the
    first sentence. One frame a trace: deeper tracebacks make reading ~20x slower."""
    check = [
        tracemalloc.Filter(True, "*/polyprobe/loaders/sources.py"),
        tracemalloc.Filter(True, "*/polyprobe/loaders/seen_keys.py"),
        tracemalloc.Filter(True, "*/numpy/*"),
    ]

    def held() -> int:
        snapshot = tracemalloc.take_snapshot().filter_traces(check)
        return sum(stat.size for stat in snapshot.statistics("filename"))

    next(sentences)
    tracemalloc.start(1)
    try:
        before = held()
        for n, _ in enumerate(sentences, start=2):
            if n == last:
                return held() - before
    finally:
        tracemalloc.stop()
    raise AssertionError(f"fewer than {last} sentences")


def test_the_check_holds_a_few_bytes_a_sentence(tmp_path: Path) -> None:
    """What ``read_sources`` holds at a treebank's last sentence: the duplicate check's
    memory. A dict of the ids held ~70 bytes a sentence besides the ids themselves (~57 bytes
    each here); the hashes hold 8, plus the set of the newest (at most 4096 of them here, ~70
    bytes each). Short sentences, several batches of them."""
    n = 20_000
    text = "".join(sent(f"doc-{i // 50:05d}-sentence-{i % 50:02d}") for i in range(n))
    tb = _treebank(tmp_path, {"xx_toy-ud-train.conllu": text})
    held = _held_by_the_check(read_sources(discover([tb]), lazy=True), n)
    assert held < 8 * n + 4096 * 80, held / n
