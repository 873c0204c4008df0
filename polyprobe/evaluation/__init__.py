"""Evaluation: encoders, probes, protocols, controls, statistics, results.

Imports are lazy so that ``import polyprobe.evaluation`` (and the CLI's ``--help``) stays free
of torch, transformers and datasets; ``evaluate`` loads them when called."""

from __future__ import annotations

from typing import Any

__all__ = ["evaluate"]


def evaluate(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """See :func:`polyprobe.evaluation.api.evaluate`."""
    from polyprobe.evaluation.api import evaluate as _evaluate

    return _evaluate(*args, **kwargs)
