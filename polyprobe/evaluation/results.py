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

Keys added later, after the contract keys (readers must not require them: files written
before them stay readable, and ``report``/``correlate`` read both):

- ``repetitions`` {requested, fitted, varies, note}: the seeds asked for, the seeds actually
  fitted, which sources of variance they covered (``seeds.py``: ``folds``, ``probe-init``,
  ``encoder-vectors``) and a sentence saying so. Nothing varies → one fit, ``seeds`` = the
  fitted seed, ``metrics.*.std`` = None. ``control.repetitions`` likewise (the control task's
  labels always vary: ``control-labels``).
- ``job``: what makes a result reusable: dataset fingerprint and revision, config, encoder id and layer, the probe's parameters and grid, folds, the seeds
  asked for, bootstrap size. A re-run with an equal ``job`` skips the result (``--force``
  recomputes); a file without one (or unreadable) is recomputed.
- ``warnings``: sentences about the result's own fits (``diagnostics.py``): fits stopped at
  ``max_iter`` before converging, a grid point chosen at the edge of its grid.
- ``cache.cached``: False for encoders that are recomputed, never cached.
- ``dataset.name``: how reports show the dataset (a local folder's name, a Hub id), where
  ``dataset.id`` is the argument as given (often an absolute path).
- ``family``, ``member``: the config's family (``ud``, ``unimorph``, ``similarity`` ...) and,
  in a suite, the member that built it, from the card's ``polyprobe`` block of the config;
  None for a dataset whose card does not say. Reports group by them.
- ``encoder.model_name``: a pretrained model's own name (``model_names.py``), where the id
  keeps the folder's name; None for the baselines.
- ``runtime_seconds``: ``total`` = this result's own time = ``probe`` (its probe, selection
  and control fits) + ``encode`` (its share of encoding: an encoder's pass over a config is
  shared by the layers it returns; then ``encode_pass`` is the whole pass and
  ``encode_shared_by`` the number of layers). Loading the config is in no result's total.
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


OPTIONAL_KEYS = ("repetitions", "job", "warnings", "family", "member")


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


def provenance(card: Any, config: str) -> dict[str, Any]:
    """A result's ``family`` and ``member`` (see the module docstring)."""
    block = card.config_block(config)
    return {"family": block.get("family"), "member": block.get("member")}


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


def normalised(obj: Any) -> Any:
    """JSON round trip: tuples become lists, int/float keys strings, as in a written file."""
    return json.loads(json.dumps(obj, ensure_ascii=False))


def dataset_identity(card: Any, dataset_revision: str) -> dict[str, Any]:
    """What a result's dataset is, for resuming: the card's fingerprint (polyprobe's promise
    that the same fingerprint means the same rows; None for a plain dataset) and the
    revision (a local folder: a hash of its files; a Hub dataset: the snapshot's commit), so
    neither a rebuilt folder nor a hand-edited file is served an old result."""
    fingerprint = card.polyprobe.get("fingerprint")
    return {"fingerprint": str(fingerprint) if fingerprint else None, "revision": dataset_revision}


def job_block(
    identity: dict[str, Any],
    config: str,
    encoder_id: str,
    layer: int | None,
    spec: Any,
    folds: int,
    seeds: list[int],
    n_boot: int,
) -> dict[str, Any]:
    """A result's ``job``: everything its numbers depend on besides the code. Equal jobs
    compute equal results, so a re-run reuses the file (see :func:`reusable_result`)."""
    probe = {
        "name": spec.name,
        "kind": spec.kind,
        "params": spec.params,
        "grid": spec.grid,
        "protocol": spec.protocol,
        "folds": spec.folds,
    }
    job = {
        "dataset": identity,
        "config": config,
        "encoder": encoder_id,
        "layer": layer,
        "probe": probe,
        "folds": folds,
        "seeds": list(seeds),
        "n_boot": n_boot,
        # the CI resamples whole groups (stats.Resampler): results whose CIs resampled rows
        # (made before) are computed again rather than reused
        "bootstrap": "groups",
    }
    return normalised(job)


def reusable_result(path: Path, job: dict[str, Any]) -> dict[str, Any] | None:
    """The result at ``path`` when it was made by an equal ``job`` (so re-running would
    recompute the same thing); None when absent, unreadable, incomplete or different."""
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(result, dict) or check_schema(result):
        return None
    if result.get("schema_version") != SCHEMA_VERSION:
        return None
    if result.get("job") != normalised(job):
        return None
    return result
