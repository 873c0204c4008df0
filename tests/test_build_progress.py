"""The build's progress: one bar per pass over the records, each with a total, only in the
build's own process; ``--quiet`` (alias ``--no-progress``) prints nothing on stderr, and
``evaluate --no-progress`` silences the bars of ``datasets`` and the Hub client too.

Why: the first pass (observation and fit, half of an EWT build) was silent and the bar of the
second had no total, so a newcomer could not tell a slow build from a stuck one."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from polyprobe.cli import main

PASS_1 = "pass 1/2 (observe)"
PASS_2 = "pass 2/2 (candidates)"
TASKS = ["top_dependencies", "sentence_length"]  # top_dependencies has a first pass


class Recording:
    """A display that records each pass over the records (desc, total, process) and each
    other phase it is shown (``phases``)."""

    def __init__(self, calls: list[tuple[Any, ...]]) -> None:
        self.calls = calls
        self.phases: list[tuple[str, int | None]] = []

    def records(self, items: Any, desc: str, total: int | None) -> Any:
        self.calls.append((desc, total, os.getpid()))
        return items

    def bar(self, items: Any, desc: str, total: int | None, unit: str) -> Any:
        self.phases.append((desc, total))
        return items

    def counter(self, desc: str, total: int | None, unit: str) -> Any:
        self.phases.append((desc, total))
        return _Counter()

    def inputs(self, files: Any) -> None:
        pass


class _Counter:
    def __init__(self) -> None:
        self.n = 0

    def update(self, n: int) -> None:
        self.n += n

    def close(self) -> None:
        pass


@pytest.mark.parametrize("jobs", [1, 2])
def test_both_passes_are_shown_with_totals(ud_dir: Path, tmp_path: Path, jobs: int) -> None:
    from polyprobe import build_ud
    from polyprobe.progress import shown

    calls: list[tuple[Any, ...]] = []
    display = Recording(calls)
    with shown(display):
        result = build_ud(
            [ud_dir / "UD_English-PUD"],
            lang="en",
            out=tmp_path / "pud",
            tasks=TASKS + ["voice", "tense"],
            min_per_class=(5, 2, 2),
            jobs=jobs,
        )
    # writing the configs is shown too, with its total (the tasks)
    assert ("writing configs", 4) in display.phases
    assert result.tasks and (tmp_path / "pud" / "README.md").is_file()
    # the first pass cannot know its records; the second knows them from the first. Only
    # this process shows progress: with 2 jobs each process reads one range of the records
    # (cut at a document), and the bar counts this process's range.
    assert calls[0] == (PASS_1, None, os.getpid())
    assert calls[1][0] == PASS_2 and calls[1][2] == os.getpid() and len(calls) == 2
    if jobs == 1:
        assert calls[1][1] == 1000
    else:
        assert 400 < calls[1][1] < 600, calls


def test_a_build_without_a_first_pass_has_one_bar(ud_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_ud
    from polyprobe.progress import shown

    calls: list[tuple[Any, ...]] = []
    with shown(Recording(calls)):
        build_ud(
            [ud_dir / "UD_English-PUD"],
            lang="en",
            out=tmp_path / "pud",
            tasks=["sentence_length"],
            min_per_class=(5, 2, 2),
        )
    assert calls == [("reading (candidates)", None, os.getpid())]


def _bars(stderr: str) -> dict[str, str]:
    """The last state of each bar on stderr (tqdm rewrites its line with carriage returns)."""
    last: dict[str, str] = {}
    for line in re.split(r"[\r\n]+", stderr):
        if ":" in line and "|" in line:
            last[line.split(":", 1)[0]] = line
    return last


def _polyprobe(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polyprobe.cli", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
        check=False,
    )


def test_command_line_bars_have_totals(ud_dir: Path, tmp_path: Path) -> None:
    """The first pass counts bytes of the inputs (a .gz by its text size), the second the
    records; both end at their total."""
    folder = tmp_path / "UD_English-PUD"
    folder.mkdir()
    text = (ud_dir / "UD_English-PUD" / "en_pud-ud-test.conllu").read_bytes()
    with gzip.open(folder / "en_pud-ud-test.conllu.gz", "wb") as f:
        f.write(text)
    shutil.copy(ud_dir / "UD_English-PUD" / "README.md", folder)
    done = _polyprobe(
        "build", "ud", str(folder), "--lang", "en", "--tasks", ",".join(TASKS),
        "--min-per-class", "5,2,2", "--out", str(tmp_path / "out"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bars = _bars(done.stderr)
    assert set(bars) == {PASS_1, PASS_2, "writing configs"}, done.stderr
    m = re.search(r"100%\|[^|]*\| ([\d.]+[kMG]?)/([\d.]+)([kMG]?) ", bars[PASS_1])
    assert m and m.group(1) == m.group(2) + m.group(3), bars[PASS_1]
    shown = float(m.group(2)) * 1024 ** " kMG".index(m.group(3) or " ")
    assert abs(shown / len(text) - 1) < 0.01, (shown, len(text))  # the text, not the .gz
    assert re.search(r"100%\|[^|]*\| 1000/1000 ", bars[PASS_2]), bars[PASS_2]
    assert "Traceback" not in done.stderr


def test_a_bar_never_hides_the_readers_error(ud_dir: Path, tmp_path: Path) -> None:
    """A corrupt .gz: the bar's size estimate must not fail first (the reader says what is
    wrong, in one line, exit 2), and nothing is left behind."""
    folder = tmp_path / "UD_English-PUD"
    folder.mkdir()
    data = gzip.compress((ud_dir / "UD_English-PUD" / "en_pud-ud-test.conllu").read_bytes())
    (folder / "en_pud-ud-test.conllu.gz").write_bytes(data[: len(data) // 2])
    done = _polyprobe(
        "build", "ud", str(folder), "--lang", "en", "--tasks", ",".join(TASKS),
        "--min-per-class", "5,2,2", "--out", str(tmp_path / "out"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("polyprobe")]
    assert len(errors) == 1 and "en_pud-ud-test.conllu.gz" in errors[0], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["UD_English-PUD"]


@pytest.mark.parametrize("flag", ["--quiet", "--no-progress"])
def test_quiet_builds_print_nothing_on_stderr(data_dir: Path, tmp_path: Path, flag: str) -> None:
    builds = {
        "ud": ["ud", str(data_dir / "ud" / "UD_English-PUD"), "--lang", "en",
               "--tasks", ",".join(TASKS), "--min-per-class", "5,2,2", "--jobs", "2"],
        "trec": ["trec", str(data_dir / "trec")],
        "unimorph": ["unimorph", str(data_dir / "unimorph" / "sigmorphon2018" / "german-dev"),
                     "--lang", "de", "--tasks", "pos", "--min-forms", "100",
                     "--min-per-class", "5,2,2"],
    }  # fmt: skip
    for name, argv in builds.items():
        done = _polyprobe("build", *argv, "--out", str(tmp_path / name), flag, cwd=tmp_path)
        assert done.returncode == 0, (name, done.stderr)
        assert done.stderr == "", (name, done.stderr)
        assert "wrote" in done.stdout


# ------------------------------------------------------------------------------ evaluate


def test_evaluate_no_progress_silences_the_libraries_bars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets
    from huggingface_hub import utils as hub

    from polyprobe.evaluation import api

    seen: list[tuple[bool, bool]] = []

    def fake_evaluate(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        seen.append((datasets.is_progress_bar_enabled(), not hub.are_progress_bars_disabled()))
        return []

    monkeypatch.setattr(api, "evaluate", fake_evaluate)
    before = (datasets.is_progress_bar_enabled(), not hub.are_progress_bars_disabled())
    assert before == (True, True)
    for flag in ("--no-progress", "--quiet"):
        argv = ["evaluate", str(tmp_path), "--encoder", "random", "--out", str(tmp_path / "r")]
        assert main([*argv, flag]) == 0
        assert seen.pop() == (False, False)  # silenced while evaluating
        assert (datasets.is_progress_bar_enabled(), not hub.are_progress_bars_disabled()) == before
    assert main(argv) == 0
    assert seen.pop() == (True, True)  # bars stay on by default


def test_evaluate_no_progress_prints_nothing_on_stderr(tmp_path: Path) -> None:
    from polyprobe.demo import build_demo

    folder = build_demo(tmp_path / "demo").out
    done = _polyprobe(
        "evaluate", str(folder), "--config", "subject_number", "--encoder", "random",
        "--seeds", "1", "--out", str(tmp_path / "results"), "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
