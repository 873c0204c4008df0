"""Downstream tasks: real classification benchmarks published in the same dataset-folder form
as the probing tasks, so that evaluation (and probing–downstream correlation) reads both the
same way. Builders are imported lazily: ``polyprobe --help`` must not pay for pyarrow."""

from __future__ import annotations

from typing import Any

__all__ = ["build_trec"]


def build_trec(*args: Any, **kwargs: Any) -> Any:
    from polyprobe.builders.downstream.trec import build_trec as _build_trec

    return _build_trec(*args, **kwargs)
