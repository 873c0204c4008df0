"""Scored sentence-pair configs (STS, SICK-R: ``label_type: score`` at level
``sentence-pair``) evaluated as SentEval does: unsupervised cosine STS on the test split
(Pearson, Spearman) and, when the config has a train split, the SICK-R regression head on the
pair features (Pearson, Spearman, MSE). One result per config × encoder × layer, in the
results schema (``metrics.<name>.mean``), so ``polyprobe report``/``correlate`` can read them
with ``--metric spearman``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
from polyprobe.evaluation.data import Card, dataset_revision
from polyprobe.evaluation.encoders import Encoder, Item
from polyprobe.evaluation.heads import cosine_sts, pair_representation, regression_head
from polyprobe.evaluation.plan import dataset_name
from polyprobe.evaluation.results import (
    dataset_identity,
    library_versions,
    normalised,
    provenance,
    result_path,
    write_result,
)
from polyprobe.evaluation.tables import read_splits


def is_scored_pairs(card: Card, configs: Sequence[str]) -> bool:
    blocks = [card.config_block(c) for c in configs]
    return bool(blocks) and all(
        b.get("label_type") == "score"
        and b.get("level") == "sentence-pair"
        and b.get("task_type") != "lexical"
        for b in blocks
    )


def _metric(value: float) -> dict[str, Any]:
    return {"mean": None if math.isnan(value) else round(float(value), 6)}


def evaluate_scored_pairs(
    dataset: str,
    names: Sequence[str],
    encoders: Sequence[Encoder],
    card: Card,
    store: EmbeddingCache,
    *,
    out: str | Path | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    batch_size: int = 32,
    seed: int = 0,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    force: bool = False,
) -> list[dict[str, Any]]:
    """Every config × encoder × layer: the test split's cosine STS, and where the config has
    a train split the regression head's scores (``heads.py``). ``on_result`` sees each
    result as it is written. An encoder whose every layer's result under ``out`` came from
    an equal ``job`` is read back (marked ``resumed``) instead of encoded again, unless
    ``force``."""
    versions = library_versions()
    revision_id = dataset_revision(dataset, revision, card)
    identity = dataset_identity(card, revision_id)
    results = []
    for name in names:
        block = card.config_block(name)
        tables = read_splits(dataset, name, revision, cache_dir).tables
        splits = [s for s in ("train", "validation", "test") if s in tables]
        cols = {s: tables[s].to_pydict() for s in splits}
        eval_split = "test" if "test" in splits else splits[-1]
        kind = str(block.get("pair_features") or "senteval")
        head = "sick-r" if "train" in splits and eval_split != "train" else "cosine"
        for enc in encoders:
            jobs = {la: _job(identity, name, enc.id, la, seed, kind) for la in enc.layers}
            found = [] if out is None or force else _reusable(out, dataset, name, enc, head, jobs)
            if found:
                for result in found:
                    results.append(result)
                    if on_result is not None:
                        on_result(result)
                continue
            t0 = time.perf_counter()
            items = [
                Item(text)
                for s in splits
                for pair in zip(cols[s]["sentence1"], cols[s]["sentence2"], strict=True)
                for text in pair
            ]
            vectors, stats = encode_cached(enc, items, store, batch_size)
            for layer, mat in vectors.items():
                per: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
                start = 0
                for s in splits:
                    n = len(cols[s]["label"])
                    block2 = mat[start : start + 2 * n]
                    start += 2 * n
                    gold = np.asarray(cols[s]["label"], dtype=np.float64)
                    per[s] = (block2[0::2], block2[1::2], gold)
                u, v, gold = per[eval_split]
                sts = cosine_sts(u, v, gold)
                metrics: dict[str, Any] = {
                    "spearman": _metric(sts["spearman"]),
                    "pearson": _metric(sts["pearson"]),
                    "sts_cosine": sts,
                }
                probe = {"name": "cosine", "params": {"split": eval_split}}
                if "train" in per and eval_split != "train":
                    low = int(math.floor(per["train"][2].min()))
                    high = max(int(math.ceil(per["train"][2].max())), low + 1)
                    feats = {
                        s: (pair_representation(a, b, kind), y) for s, (a, b, y) in per.items()
                    }
                    reg = regression_head(
                        feats["train"],
                        feats.get("validation"),
                        feats[eval_split],
                        low=low,
                        high=high,
                        seed=seed,
                    )
                    metrics["regression"] = reg
                    metrics["spearman"] = _metric(reg["spearman"])
                    metrics["pearson"] = _metric(reg["pearson"])
                    probe = {
                        "name": "sick-r",
                        "params": {"pair_features": kind, "grades": [low, high], "l2": reg["l2"]},
                    }
                result = {
                    "schema_version": 1,
                    "dataset": {
                        "id": dataset,
                        "revision": revision_id,
                        "fingerprint": card.polyprobe.get("fingerprint"),
                        "version": card.polyprobe.get("version"),
                        "languages": card.languages(),
                        "name": dataset_name(dataset),
                    },
                    "config": name,
                    "task": block.get("task", name),
                    "level": "sentence-pair",
                    "task_type": block.get("task_type", "downstream"),
                    "split_sizes": {s: len(cols[s]["label"]) for s in splits},
                    "encoder": {
                        "spec": enc.spec,
                        "id": enc.id,
                        "revision": enc.revision,
                        "pooling": getattr(enc, "pooling", None),
                        "layer": layer,
                        "model_name": enc.model_name,
                    },
                    "probe": probe,
                    "protocol": "split" if "train" in per else "unsupervised",
                    "seeds": [seed],
                    "metrics": metrics,
                    "cache": {"hits": stats.hits, "misses": stats.misses},
                    "runtime_seconds": {"total": round(time.perf_counter() - t0, 3)},
                    "versions": versions,
                    **provenance(card, name),
                    "job": jobs[layer],
                }
                if out is not None:
                    path = result_path(out, dataset, name, enc.id, layer, probe["name"])
                    write_result(path, result)
                    result["path"] = str(path)
                results.append(result)
                if on_result is not None:
                    on_result(result)
    return results


def _job(
    identity: dict[str, Any], config: str, encoder_id: str, layer: Any, seed: int, kind: str
) -> dict[str, Any]:
    """What a scored-pairs result depends on besides the code: the regression head's seed
    and pair features; the cosine needs neither, but one job shape keeps reuse simple."""
    return normalised(
        {
            "dataset": identity,
            "config": config,
            "encoder": encoder_id,
            "layer": layer,
            "seed": seed,
            "pair_features": kind,
            "kind": "scored-pairs",
        }
    )


def _reusable(
    out: str | Path,
    dataset: str,
    config: str,
    enc: Encoder,
    head: str,
    jobs: dict[Any, dict[str, Any]],
) -> list[dict[str, Any]]:
    """Every layer's result of ``enc`` from an equal job, or [] when any is missing."""
    found = []
    for layer, job in jobs.items():
        path = result_path(out, dataset, config, enc.id, layer, head)
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return []
        if not isinstance(result, dict) or result.get("job") != job:
            return []
        found.append({**result, "resumed": True, "path": str(path)})
    return found
