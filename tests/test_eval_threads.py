"""The CPU thread count of the probe fits (issue 16: determinism).

Fits stopped at ``max_iter`` give slightly different solutions with different thread counts
(measured on TREC coarse: the control task's chosen C moved between 1 and 2 threads), so the
default must not follow the load average, which other processes set. It is one thread unless
``POLYPROBE_THREADS`` says otherwise, and each result records the count it was fitted with.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.errors import UsageError
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.logreg import probe_threads
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.mark.parametrize("load", [0.0, 1.5, 40.0])
def test_default_does_not_follow_the_load(monkeypatch: pytest.MonkeyPatch, load: float) -> None:
    monkeypatch.delenv("POLYPROBE_THREADS", raising=False)
    monkeypatch.setattr("os.getloadavg", lambda: (load, load, load))
    assert probe_threads() == 1


def test_environment_count_and_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYPROBE_THREADS", "3")
    assert probe_threads() == 3
    monkeypatch.setenv("POLYPROBE_THREADS", "0")
    assert probe_threads() == 1
    # ``auto``: the idle cores (load 40 on any machine: one thread; load 0: every core)
    monkeypatch.setenv("POLYPROBE_THREADS", "auto")
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    monkeypatch.setattr("os.getloadavg", lambda: (40.0, 40.0, 40.0))
    assert probe_threads() == 1
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    assert probe_threads() == 4


def test_bad_environment_value_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYPROBE_THREADS", "two")
    with pytest.raises(UsageError, match=r"POLYPROBE_THREADS='two': expected a thread count"):
        probe_threads()


def test_result_records_the_thread_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.delenv("POLYPROBE_THREADS", raising=False)
    toy = write_folder(
        tmp_path / "toy",
        {
            "split": {
                "train": toy_sentences(120, prefix="tr"),
                "validation": toy_sentences(40, prefix="va"),
                "test": toy_sentences(40, prefix="te"),
            }
        },
        {"split": ["no", "yes"]},
        {"split": "sentence"},
    )
    (result,) = evaluate(str(toy), encoders=["random"], seeds=1, n_boot=20)
    assert result["probe"]["cpu_threads"] == 1
    (majority,) = evaluate(str(toy), encoders=["majority"], seeds=1, n_boot=20)
    assert "cpu_threads" not in majority["probe"]
