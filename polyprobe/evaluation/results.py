"""Results JSON: one file per (dataset, config, encoder, layer, probe).

Path: ``<out>/<safe dataset>/<config>/<safe encoder>[_layer<L>]/<probe>.json``. Other code
(report, correlate) reads these files, so the top-level keys are a contract:
``schema_version`` (1), ``dataset`` {id, revision, fingerprint, version, languages}, ``config``,
``task``, ``level``, ``task_type``, ``split_sizes``, ``encoder`` {spec, id, revision, pooling,
layer}, ``probe`` {name, params, grid, chosen}, ``protocol``, ``seeds``, ``metrics``
{accuracy, macro_f1: {mean, std, ci95, per_seed}, per_class_f1}, ``majority`` {label, accuracy},
``control`` ({key, accuracy, selectivity, ...} or {status: "not applicable", reason}),
``cache`` {hits, misses}, ``runtime_seconds`` {encode, probe, total}, ``versions``.

``probe.chosen`` is a list with one record per seed (per fold for pooled CV): the chosen grid
point, how it was selected and the validation scores of the whole grid.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from polyprobe.hashing import digest

SCHEMA_VERSION = 1
TOP_LEVEL_KEYS = (
    "schema_version",
    "dataset",
    "config",
    "task",
    "level",
    "task_type",
    "split_sizes",
    "encoder",
    "probe",
    "protocol",
    "seeds",
    "metrics",
    "majority",
    "control",
    "cache",
    "runtime_seconds",
    "versions",
)


def safe_name(text: str, limit: int = 80) -> str:
    """File-system-safe, readable, collision-resistant: long names keep a hash suffix."""
    safe = re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("._") or "x"
    if len(safe) > limit or safe != text:
        safe = f"{safe[: limit - 13]}-{digest(text, size=6).hex()}"
    return safe


def safe_dataset(dataset: str) -> str:
    """Local folder → its name; hub id ``org/name`` → ``org__name``."""
    path = Path(dataset).expanduser()
    if path.exists():
        return safe_name(path.resolve().name)
    return safe_name(dataset.replace("/", "__"))


def result_path(
    out: str | Path, dataset: str, config: str, encoder_id: str, layer: int | None, probe: str
) -> Path:
    enc = safe_name(encoder_id)
    if layer is not None:
        enc = f"{enc}_layer{layer}"
    return Path(out) / safe_dataset(dataset) / safe_name(config) / enc / f"{safe_name(probe)}.json"


def library_versions() -> dict[str, str]:
    import importlib.metadata as md

    from polyprobe.version import __version__

    out = {"polyprobe": __version__}
    for name, dist in (
        ("torch", "torch"),
        ("sklearn", "scikit-learn"),
        ("datasets", "datasets"),
        ("transformers", "transformers"),
        ("numpy", "numpy"),
    ):
        try:
            out[name] = md.version(dist)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    return out


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write atomically (temp file + rename): readers never see half a JSON, and an
    interrupted run leaves the file as it was (an earlier run's result, or none) and no
    temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(f".json.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except BaseException:  # Ctrl-C or SIGTERM included
        tmp.unlink(missing_ok=True)
        raise


def check_schema(result: dict[str, Any]) -> list[str]:
    """Missing contract keys (empty list when the result is well-formed)."""
    missing = [k for k in TOP_LEVEL_KEYS if k not in result]
    for block, keys in (
        ("dataset", ("id", "revision", "fingerprint", "version", "languages")),
        ("encoder", ("spec", "id", "revision", "pooling", "layer")),
        ("probe", ("name", "params", "grid", "chosen")),
        ("metrics", ("accuracy", "macro_f1", "per_class_f1")),
        ("majority", ("label", "accuracy")),
        ("cache", ("hits", "misses")),
        ("runtime_seconds", ("encode", "probe", "total")),
    ):
        for k in keys:
            if k not in result.get(block, {}):
                missing.append(f"{block}.{k}")
    for metric in ("accuracy", "macro_f1"):
        for k in ("mean", "std", "ci95", "per_seed"):
            if k not in result.get("metrics", {}).get(metric, {}):
                missing.append(f"metrics.{metric}.{k}")
    return missing
