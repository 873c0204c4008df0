"""``--jobs``: tasks built in several processes give the very same folder as one process, and
failures in a worker reach the caller as themselves with nothing left behind."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polyprobe import build_ud
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.source import FATAL_REASONS


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_any_number_of_jobs_gives_identical_bytes(ud_dir: Path, tmp_path: Path) -> None:
    tb = ud_dir / "UD_English-PUD"  # test-only: ratio split, every default task tried
    one = build_ud([tb], lang="en", out=tmp_path / "one", sizes="0.5", jobs=1)
    three = build_ud([tb], lang="en", out=tmp_path / "three", sizes="0.5", jobs=3)
    a, b = _tree_bytes(one.out), _tree_bytes(three.out)
    assert sorted(a) == sorted(b)
    assert [k for k in a if a[k] != b[k]] == []
    assert one.fingerprint == three.fingerprint
    assert [s.task for s in one.tasks] == [s.task for s in three.tasks]
    assert [s.configs for s in one.tasks] == [s.configs for s in three.tasks]
    assert len([p for p in a if p.endswith(".parquet")]) > 10
    assert validate(three.out).ok


def test_configs_with_the_same_rows_share_bytes(ud_dir: Path, tmp_path: Path) -> None:
    """A balanced variant of data that is balanced already holds the natural variant's rows:
    its files are copies (no second encoding), and both configs load the same rows."""
    import datasets

    tb = ud_dir / "UD_English-PUD"
    out = build_ud(
        [tb], lang="en", out=tmp_path / "pud", tasks=["bigram_shift", "sentence_length"]
    ).out
    files = _tree_bytes(out)

    def split_files(config: str) -> dict[str, bytes]:
        prefix = f"data/{config}/"
        return {k[len(prefix) :]: v for k, v in files.items() if k.startswith(prefix)}

    # bigram_shift pairs every sentence with its shifted copy: balanced == natural.
    shifted, natural = split_files("bigram_shift"), split_files("bigram_shift.natural-full")
    assert sorted(shifted) == [
        f"{s}-00000-of-00001.parquet" for s in ("test", "train", "validation")
    ]
    assert shifted == natural
    a = datasets.load_dataset(str(out), "bigram_shift", split="train")
    b = datasets.load_dataset(str(out), "bigram_shift.natural-full", split="train")
    assert a.to_list() == b.to_list()
    # sentence_length's natural distribution is skewed: balancing drops rows, no sharing.
    lengths, natural = split_files("sentence_length"), split_files("sentence_length.natural-full")
    assert lengths.keys() == natural.keys()
    assert all(lengths[k] != natural[k] for k in lengths)
    assert validate(out).ok


def test_error_in_a_worker_is_raised_and_leaves_nothing(ud_dir: Path, tmp_path: Path) -> None:
    src = ud_dir / "UD_English-PUD"
    tb = tmp_path / "UD_English-Broken"
    tb.mkdir()
    (tb / "README.md").write_text((src / "README.md").read_text(encoding="utf-8"))
    text = next(src.glob("*-ud-test.conllu")).read_text(encoding="utf-8")
    lines = text.split("\n")
    # Break the HEAD of the first word line of the 500th sentence.
    starts = [i for i, line in enumerate(lines) if line.startswith("# sent_id")]
    i = starts[499]
    while not lines[i] or lines[i].startswith("#"):
        i += 1
    cols = lines[i].split("\t")
    cols[6] = "999"
    lines[i] = "\t".join(cols)
    (tb / "en_broken-ud-test.conllu").write_text("\n".join(lines), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(InputError, match=rf"en_broken-ud-test.conllu:{i + 1}: HEAD 999"):
        build_ud([tb], lang="en", out=out, jobs=2)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    shutil.rmtree(tb)


def test_error_only_in_a_worker_is_raised_as_itself_and_leaves_nothing(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error raised in a pool worker alone (the first shard, run here, succeeds) reaches
    the caller as itself, and neither the dataset folder nor any scratch is left behind."""
    import multiprocessing
    import os
    import tempfile

    from polyprobe.builders.sentence.sentence_length import SentenceLength
    from polyprobe.builders.sentence.tense import Tense
    from polyprobe.runtime import parallel

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork: the failing task is patched in this process")
    # Forked workers see the patched tasks. (Earlier tests may have left a thread, e.g.
    # tqdm's monitor after datasets.load_dataset, which would make the pool spawn.)
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    here = os.getpid()

    def failing_in_a_worker(real):  # type: ignore[no-untyped-def]
        def candidates(self, record, fit, shared):  # type: ignore[no-untyped-def]
            if os.getpid() != here:
                raise InputError("/x/worker.conllu", 7, "HEAD 999 out of range", "bad-head")
            return real(self, record, fit, shared)

        return candidates

    for cls in (SentenceLength, Tense):  # whichever shard the worker gets
        monkeypatch.setattr(cls, "candidates", failing_in_a_worker(cls.candidates))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # the build's spool folders
    out = tmp_path / "out"
    with pytest.raises(InputError, match=r"^/x/worker.conllu:7: HEAD 999 out of range$") as info:
        build_ud(
            [ud_dir / "UD_English-PUD"],
            lang="en",
            out=out,
            tasks=["sentence_length", "tense"],
            jobs=2,
        )
    assert type(info.value) is InputError and info.value.reason == "bad-head"
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert list(scratch.iterdir()) == []


def test_jobs_from_a_script_without_main_guard(ud_dir: Path, tmp_path: Path) -> None:
    """multiprocessing's spawn would re-run such a script in each worker (recursive builds or
    a hang); where fork is available (Linux) the pool forks its workers, which never import
    the caller's ``__main__``: the script builds exactly once."""
    code = (
        "import sys\n"
        "from polyprobe import build_ud\n"
        "r = build_ud([sys.argv[1]], lang='en', out=sys.argv[2], tasks=['sentence_length',"
        " 'bigram_shift', 'subject_number'], jobs=2)\n"
        "print('built', len(r.tasks))\n"
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-", str(ud_dir / "UD_English-PUD"), str(out)],
        input=code,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("built 3") == 1  # the script ran once, not once per worker
    assert validate(out).ok


def test_input_changed_between_passes_is_an_error_naming_the_input(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The candidate pass reuses the first pass's text hashes by position, so a file that
    # changes between the two passes (here: loses its last sentence) must stop the build
    # rather than pair sentences with the wrong hashes.
    import polyprobe.loaders.sources as sources

    real = sources.read_sources
    passes: list[int] = []

    def shrinking(*args, **kwargs):  # type: ignore[no-untyped-def]
        sentences = list(real(*args, **kwargs))
        if kwargs.get("shared_dicts"):
            passes.append(len(sentences))
            if len(passes) == 2:
                sentences = sentences[:-1]
        return iter(sentences)

    monkeypatch.setattr(sources, "read_sources", shrinking)
    tb = ud_dir / "UD_English-PUD"
    out = tmp_path / "out"
    with pytest.raises(
        InputError,
        match=r"UD_English-PUD: the input changed during the build: "
        r"the first pass read 1000 records, the second 999",
    ) as excinfo:
        build_ud([tb], lang="en", out=out, tasks=["tense"], jobs=1)
    assert passes == [1000, 1000]
    assert excinfo.value.reason in FATAL_REASONS
    assert not out.exists()
