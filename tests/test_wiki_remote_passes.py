"""``build wiki`` on a datatrove executor runs its observe and candidate passes there too
(``polyprobe/builders/execution/remote.py``): the records cut into contiguous page ranges
over the shard tables (``TextRecords.part_records``), the same records and counts as one
reading; the same bytes as a local build; finished ranges reused on a rerun; a folder key
that does not depend on the process (string hashing is salted per process)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import needs

from polyprobe import build_wiki
from polyprobe.builders.execution import remote
from polyprobe.builders.records.rawtext import TextRecords
from polyprobe.builders.records.shards import read_back, shard_tasks, tokenize_shard
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikisource import WikiDumpSource

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def _records(dump: Path, lang: str, shards: int, folder: Path) -> TextRecords:
    source = WikiDumpSource(dump, Segmenter(lang))
    tasks = shard_tasks([source], shards, "skip", folder, 1)
    for task in tasks:
        tokenize_shard(task)
    return TextRecords(tuple(read_back([source], tasks)))


def _key(sentence: object) -> tuple:
    return (sentence.sent_id, sentence.doc_id, tuple(w.form for w in sentence.words))


@pytest.mark.parametrize(("name", "lang"), [(EN, "en"), (BG, "bg")])
def test_ranges_in_order_are_one_reading(
    data_dir: Path, tmp_path: Path, name: str, lang: str
) -> None:
    records = _records(data_dir / "wikipedia" / name, lang, 3, tmp_path)
    assert records.can_be_cut()
    whole_skipped: Counter[str] = Counter()
    whole = [_key(s) for s in records.records("skip", whole_skipped)]
    assert len(whole) > (1000 if lang == "en" else 30)
    for parts in (1, 2, 5):
        skipped: Counter[str] = Counter()
        ranged = [
            [_key(s) for s in records.part_records("skip", skipped, k, parts)] for k in range(parts)
        ]
        assert [k for r in ranged for k in r] == whole
        assert skipped == whole_skipped
        if parts > 1 and lang == "en":  # about as many sentences in each (cut between pages)
            sizes = [len(r) for r in ranged]
            assert min(sizes) > 0.5 * len(whole) / parts, sizes
        if parts > 1:  # a document (page) never spans two ranges
            pages = [{k[1].split("#")[0] for k in r} for r in ranged]
            assert all(not (a & b) for i, a in enumerate(pages) for b in pages[i + 1 :])


def _build(dump: Path, out: Path, **kw: object) -> dict[str, bytes]:
    build_wiki(
        [dump],
        lang="en",
        out=out,
        tasks=["sentence_length", "word_content", "bigram_shift", "discourse_coherence"],
        balances=["natural"],
        **kw,  # type: ignore[arg-type]
    )
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def test_passes_on_the_executor_give_the_local_bytes_and_resume(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs("datatrove")
    dump = data_dir / "wikipedia" / EN
    local = _build(dump, tmp_path / "local", jobs=1)
    cache = tmp_path / "cache"
    ran: list[str] = []
    run_saved = remote.run_saved

    def counted(call: remote.SavedCall) -> None:
        ran.append(Path(call.out).name)
        run_saved(call)

    monkeypatch.setattr(remote, "run_saved", counted)
    spread = _build(
        dump, tmp_path / "spread", executor="datatrove-local", shards=3, shard_cache=cache, jobs=1
    )
    assert spread == local
    assert sorted(ran) == sorted(
        ["fits.pickle"]
        + [f"{phase}-{k}-of-3.pickle" for phase in ("candidates", "observe") for k in range(3)]
        + [f"write-{k}-of-4.pickle" for k in range(4)]  # one per task
    )
    assert not list(cache.glob("passes-*"))  # removed once the dataset is written

    # a rerun after an interruption reuses the finished ranges and the saved fits
    folder_of: list[Path] = []
    map_remote = remote.map_remote

    def interrupted(r, phase, folder, function, items):  # type: ignore[no-untyped-def]
        folder_of.append(folder)
        if phase == "candidates" and len(folder_of) == 2:
            remote.run_saved(
                remote.SavedCall(
                    function, items[0], str(folder / f"candidates-0-of-{len(items)}.pickle")
                )
            )
            raise KeyboardInterrupt
        return map_remote(r, phase, folder, function, items)

    monkeypatch.setattr(remote, "map_remote", interrupted)
    ran.clear()

    def rerun() -> dict[str, bytes]:
        return _build(dump, tmp_path / "again", executor="datatrove-local", shards=3,
                      shard_cache=cache, jobs=1, overwrite=True)  # fmt: skip

    with pytest.raises(KeyboardInterrupt):
        rerun()
    folder = folder_of[0]
    assert (folder / "fits.pickle").exists() and not list(folder.glob("observe-*"))
    ran.clear()
    again = rerun()
    assert again == local
    assert sorted(ran) == ["candidates-1-of-3.pickle", "candidates-2-of-3.pickle"] + [
        f"write-{k}-of-4.pickle" for k in range(4)
    ]


def test_the_passes_key_does_not_depend_on_the_process(data_dir: Path, tmp_path: Path) -> None:
    """The key names the folder a Slurm rerun must find again: sets of strings (a context's
    names that keep their capital, the records' nouns) are hashed in a salted order."""
    dump = data_dir / "wikipedia" / EN
    code = f"""
import sys
from pathlib import Path
from types import SimpleNamespace
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_wiki_remote_passes import _records
from polyprobe.builders.execution.remote import passes_key
from polyprobe.builders.sentence.bigram_shift import BigramShift
from polyprobe.builders.sentence.word_content import WordContent
from polyprobe.builders.task import TaskContext
from dataclasses import replace
records = replace(_records(Path({str(dump)!r}), "en", 2, Path({str(tmp_path)!r})),
                  nouns=frozenset({{"house", "river", "city", "war", "king"}}))
context = TaskContext(lang="en", keep_case_forms=frozenset({{"Paris", "London", "Rome", "Oslo"}}))
stream = SimpleNamespace(records=records, profile={{"language": {{"x": [1, 2]}}}},
                         tasks=(WordContent(None, context), BigramShift(None, context)))
print(passes_key([stream], 0, "raise", 2))
"""
    keys = set()
    for seed in ("1", "2", "3"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert out.returncode == 0, out.stderr[-2000:]
        keys.add(out.stdout.split()[-1])
    assert len(keys) == 1


def _fails_on_odd(k: int) -> int:
    if k % 2:
        raise RuntimeError(f"item {k} fails")
    return k * 10


def test_a_rerun_runs_only_the_items_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item that raised (datatrove's local executor raises it here; a cluster's logs it)
    leaves no result; a rerun runs it and the items after it, not the finished ones; an
    executor that ends with results missing is one error naming how many and the logs."""
    import polyprobe.runtime.inputs as inputs
    from polyprobe.errors import PolyprobeError

    needs("datatrove")
    where = remote.Remote("datatrove-local", {}, tmp_path, ranges=3)
    with pytest.raises(RuntimeError, match="item 1 fails"):
        remote.map_remote(where, "observe", tmp_path, _fails_on_odd, [4, 1, 2])
    done = sorted(p.name for p in tmp_path.glob("observe-*.pickle"))
    assert done == ["observe-0-of-3.pickle"]
    # item 0 comes back from its saved result (40), not run again (abs(4) = 4)
    assert remote.map_remote(where, "observe", tmp_path, abs, [4, -1, 2]) == [40, 1, 2]

    monkeypatch.setattr(inputs, "run_inputs", lambda *a, **k: None)  # runs nothing
    with pytest.raises(PolyprobeError) as info:
        remote.map_remote(where, "candidates", tmp_path, abs, [1, 2])
    message = str(info.value)
    assert message.startswith("2 of 2 items of the candidates pass failed on datatrove-local")
    assert "rerun this command to retry them" in message
