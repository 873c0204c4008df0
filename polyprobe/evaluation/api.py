"""``evaluate(...)``: dataset × configs × encoders × layers → results (dicts and JSON files).

Order of work, chosen so that nothing is encoded twice: per config, per encoder, every unique
item (text, tokens, target) of every split is encoded once for all layers through the disk
cache; then per layer, per seed, the probe and its control task are trained on the cached
features. Pair levels use SentEval's features [u, v, |u−v|, u∗v].
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import UsageError
from polyprobe.evaluation import controls, discourse
from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
from polyprobe.evaluation.data import LoadedConfig, load_config, read_card, resolve_configs
from polyprobe.evaluation.encoders import Encoder, build_encoder, check_device
from polyprobe.evaluation.heads import pair_representation
from polyprobe.evaluation.probes import ProbeSpec, get_probe
from polyprobe.evaluation.protocols import SplitArrays, components, majority_outcome, run_protocol
from polyprobe.evaluation.results import library_versions, result_path, write_result
from polyprobe.evaluation.scored_pairs import is_scored_pairs
from polyprobe.evaluation.stats import accuracy_summary, summarise

EncoderLike = str | Encoder | Callable[[list[str]], Any]


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's pair representation."""
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1).astype(np.float32)


def _features(
    cfg: LoadedConfig, encoder: Encoder, cache: EmbeddingCache, batch_size: int, progress: Any
) -> tuple[dict[int | None, dict[str, np.ndarray]], dict[str, int]]:
    """Features per layer per split, and cache hits/misses over the unique items."""
    if cfg.level in discourse.DISCOURSE_LEVELS:  # DiscoEval's features per task
        return discourse.discourse_features(cfg, encoder, cache, batch_size, progress)
    per_split = {s: cfg.items(s) for s in cfg.splits}
    flat = [it for s in cfg.splits for row in per_split[s] for it in row]
    callback = progress.update if progress is not None else None
    if progress is not None:
        progress.reset(total=len(dict.fromkeys(flat)))
        progress.set_description(f"encode {encoder.id[:40]}")
    vectors, stats = encode_cached(encoder, flat, cache, batch_size, progress=callback)
    out: dict[int | None, dict[str, np.ndarray]] = {}
    width = len(per_split[cfg.splits[0]][0]) if per_split[cfg.splits[0]] else 1
    for layer, mat in vectors.items():
        out[layer] = {}
        start = 0
        for s in cfg.splits:
            n = len(per_split[s]) * width
            block = mat[start : start + n]
            start += n
            if width == 2:  # the card may name the pair representation (heads.py)
                kind = str(cfg.block.get("pair_features") or "senteval")
                out[layer][s] = pair_representation(block[0::2], block[1::2], kind)
            else:
                out[layer][s] = block
    return out, {"hits": stats.hits, "misses": stats.misses}


def _control(
    cfg: LoadedConfig,
    spec: ProbeSpec,
    feats: dict[str, np.ndarray],
    groups: dict[str, np.ndarray],
    lex: dict[str, np.ndarray],
    protocol: str,
    seeds: list[int],
    folds: int,
    task_acc: float,
    tag: str,
    n_boot: int,
) -> dict[str, Any]:
    name = controls.control_key_name(cfg)
    keys = {s: controls.control_keys(cfg, s, name) for s in cfg.splits}
    if "test" in cfg.splits and spec.protocol != "cv":
        cov = controls.coverage(keys["train"], keys["test"])
        where = "train and test"
    else:
        pooled_k = np.concatenate([keys[s] for s in cfg.splits])
        comp = components(
            np.concatenate([groups[s] for s in cfg.splits]),
            np.concatenate([lex[s] for s in cfg.splits]),
        )
        cov = controls.cv_coverage(pooled_k, comp)
        where = "cross-validation folds"
    if cov == 0.0:
        reason = (
            f"no control key ({name}) recurs across {where}: the splits are disjoint on it, "
            "so control accuracy would be chance by construction"
        )
        return controls.not_applicable(reason, name)
    n_classes = len(cfg.label_names)
    pairs = []
    for seed in seeds:
        ctl = controls.control_labels(keys, cfg.labels("train"), n_classes, seed)
        outcome = run_protocol(spec, SplitArrays(feats, ctl, groups, lex), n_classes, seed, folds)
        pairs.append((outcome.y_true, outcome.y_pred))  # each seed has its own control labels
    acc_block = accuracy_summary(pairs, "control|" + tag, n_boot)
    return {
        "key": name,
        "test_key_coverage": round(cov, 6),
        "accuracy": acc_block,
        "selectivity": round(task_acc - acc_block["mean"], 6),
    }


def lexical_configs(card: Any, names: list[str]) -> bool:
    from polyprobe.evaluation.lexical import is_lexical

    return is_lexical(card, names)


def run_lexical(
    dataset: str,
    names: list[str],
    encoders: Sequence[EncoderLike],
    out: str | Path | None,
    revision: str | None,
    cache_dir: str | Path | None,
    batch_size: int,
    on_result: Callable[[dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    """Lexical configs (``task_type: lexical``) go to :mod:`polyprobe.evaluation.lexical`."""
    from polyprobe.evaluation.lexical import evaluate_lexical

    results = evaluate_lexical(
        dataset,
        names,
        encoders,
        out=out,
        revision=revision,
        cache_dir=cache_dir,
        batch_size=batch_size,
    )
    for r in results:
        if on_result is not None:
            on_result(r)
    return results


def run_scored_pairs(
    dataset: str,
    names: list[str],
    encs: list[Encoder],
    card: Any,
    store: EmbeddingCache,
    cache: Any,
    out: str | Path | None,
    revision: str | None,
    cache_dir: str | Path | None,
    batch_size: int,
    seed: int,
    on_result: Callable[[dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    """Scored sentence-pair configs go to :mod:`polyprobe.evaluation.scored_pairs`."""
    from polyprobe.evaluation.scored_pairs import evaluate_scored_pairs

    try:
        results = evaluate_scored_pairs(
            dataset, names, encs, card, store, out=out, revision=revision,
            cache_dir=cache_dir, batch_size=batch_size, seed=seed,
        )  # fmt: skip
    finally:
        if not isinstance(cache, EmbeddingCache):
            store.close()
    for r in results:
        if on_result is not None:
            on_result(r)
    return results


def evaluate(
    dataset: str,
    config: str | list[str] | None = None,
    encoders: Sequence[EncoderLike] = ("random",),
    probe: str | ProbeSpec = "lr",
    seeds: int | Sequence[int] = 3,
    out: str | Path | None = None,
    revision: str | None = None,
    cache: str | Path | EmbeddingCache | None = None,
    cache_dir: str | Path | None = None,
    device: str | None = None,
    batch_size: int = 32,
    folds: int = 5,
    n_boot: int = 1000,
    progress: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Evaluate ``encoders`` on ``dataset`` (folder or hub id); one result per config × encoder
    × layer. ``config``: None (the card's default), a name, a list, or ``"all"``. ``seeds``: a
    count (seeds 0..N-1) or explicit seeds. Writes JSON files under ``out`` when given.
    ``cache``: the embedding cache (default ``$POLYPROBE_CACHE/embeddings``); ``cache_dir``:
    where ``datasets`` keeps a Hub dataset's Arrow files (default ``HF_DATASETS_CACHE``). A
    local folder is read in place and adds nothing to the datasets cache."""
    t_all = time.perf_counter()
    base_spec = discourse.discoeval_preset() if probe == discourse.DISCOEVAL else get_probe(probe)
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list:
        raise UsageError("at least one seed is needed")
    if not encoders:
        raise UsageError("at least one encoder is needed")
    store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)
    card = read_card(dataset, revision)
    names = resolve_configs(dataset, config, revision, card)
    if lexical_configs(card, names):  # scored by their own metrics: no probe, no seeds
        return run_lexical(
            dataset, names, encoders, out, revision, cache_dir, batch_size, on_result
        )
    encs: list[Encoder] = []
    for e in encoders:
        enc = build_encoder(e)
        if hasattr(enc, "device_request"):
            enc.device_request = device
            if device and device != "auto":
                check_device(device)  # one line now, not torch's traceback at the first batch
        if hasattr(enc, "cache_root"):
            enc.cache_root = store.root
        encs.append(enc)
    if is_scored_pairs(card, names):  # STS, SICK-R: cosine STS and the regression head
        return run_scored_pairs(
            dataset, names, encs, card, store, cache, out, revision, cache_dir, batch_size,
            seed_list[0], on_result,
        )  # fmt: skip
    bar = jobs = None
    if progress:
        from tqdm.auto import tqdm

        jobs = tqdm(total=len(names) * len(encs), unit="job", desc="evaluate", position=0)
        bar = tqdm(total=0, unit="text", leave=False, position=1)
    versions = library_versions()
    results: list[dict[str, Any]] = []
    try:
        for name in names:
            cfg = load_config(dataset, name, revision, card, cache_dir)
            spec = discourse.probe_for_config(base_spec, cfg.task)
            n_classes = len(cfg.label_names)
            groups = {s: cfg.groups(s) for s in cfg.splits}
            lex = {s: cfg.keys(s) for s in cfg.splits}
            labels = {s: cfg.labels(s) for s in cfg.splits}
            majority = majority_outcome(
                SplitArrays({}, labels, groups, lex), n_classes, spec, folds
            )
            maj_label = int(np.bincount(majority.majority_pred, minlength=n_classes).argmax())
            majority_block = {
                "label": cfg.label_names[maj_label],
                "accuracy": round(float((majority.y_true == majority.majority_pred).mean()), 6),
            }
            for enc in encs:
                t0 = time.perf_counter()
                if enc.is_majority:
                    feats_by_layer = {
                        None: {s: np.zeros((cfg.size(s), 1), np.float32) for s in cfg.splits}
                    }
                    cache_stats = {"hits": 0, "misses": 0}
                else:
                    feats_by_layer, cache_stats = _features(cfg, enc, store, batch_size, bar)
                t_encode = time.perf_counter() - t0
                for layer, feats in feats_by_layer.items():
                    t1 = time.perf_counter()
                    # Bootstrap seed: independent of how the dataset path was spelled.
                    tag = f"{cfg.revision}|{cfg.config}|{enc.id}|{layer}|{spec.name}"
                    if enc.is_majority:
                        preds = [majority.majority_pred for _ in seed_list]
                        y_true, protocol = majority.y_true, majority.protocol
                        chosen = [{"classifier": "train-majority"}]
                    else:
                        data = SplitArrays(feats, labels, groups, lex)
                        preds, chosen = [], []
                        for seed in seed_list:
                            if bar is not None:
                                bar.set_description(f"probe {spec.name} seed {seed} layer {layer}")
                            outcome = run_protocol(spec, data, n_classes, seed, folds)
                            preds.append(outcome.y_pred)
                            for rec in outcome.chosen:
                                chosen.append({"seed": seed, **rec})
                        y_true, protocol = outcome.y_true, outcome.protocol
                    metrics = summarise(y_true, preds, cfg.label_names, tag, n_boot)
                    if enc.is_majority:
                        control: dict[str, Any] = controls.not_applicable(
                            "the majority baseline reads no input, so it has no control task"
                        )
                    else:
                        control = _control(
                            cfg,
                            spec,
                            feats,
                            groups,
                            lex,
                            protocol,
                            seed_list,
                            folds,
                            metrics["accuracy"]["mean"],
                            tag,
                            n_boot,
                        )
                    t_probe = time.perf_counter() - t1
                    result = _assemble(
                        cfg,
                        enc,
                        layer,
                        spec,
                        protocol,
                        seed_list,
                        metrics,
                        majority_block,
                        control,
                        cache_stats,
                        chosen,
                        versions,
                        folds,
                        {
                            "encode": t_encode,
                            "probe": t_probe,
                            "total": time.perf_counter() - t_all,
                        },
                    )
                    if enc.is_majority:
                        result["probe"]["params"] = {"classifier": "train-majority"}
                        result["probe"]["grid"] = {}
                    if out is not None:
                        path = result_path(out, dataset, cfg.config, enc.id, layer, spec.name)
                        write_result(path, result)
                        result["path"] = str(path)
                    results.append(result)
                    if on_result is not None:
                        on_result(result)
                if jobs is not None:
                    jobs.update(1)
    finally:
        for b in (bar, jobs):
            if b is not None:
                b.close()
        if not isinstance(cache, EmbeddingCache):
            store.close()
    return results


def _assemble(
    cfg: LoadedConfig,
    enc: Encoder,
    layer: int | None,
    spec: ProbeSpec,
    protocol: str,
    seeds: list[int],
    metrics: dict[str, Any],
    majority: dict[str, Any],
    control: dict[str, Any],
    cache_stats: dict[str, int],
    chosen: list[dict[str, Any]],
    versions: dict[str, str],
    folds: int,
    runtime: dict[str, float],
) -> dict[str, Any]:
    pp = cfg.card.polyprobe
    pooling = getattr(enc, "pooling", None)
    if getattr(enc, "pool", None) and enc.kind == "borep":
        pooling = enc.pool
    probe = spec.describe()
    probe["chosen"] = chosen
    if spec.protocol:
        probe["params"]["protocol"] = spec.protocol
        probe["params"]["folds"] = spec.folds
    elif protocol == "kfold":  # the caller's k (outer folds, or inner folds on train): recorded
        probe["params"]["folds"] = folds
    return {
        "schema_version": 1,
        "dataset": {
            "id": cfg.dataset,
            "revision": cfg.revision,
            "fingerprint": pp.get("fingerprint"),
            "version": pp.get("version"),
            "languages": cfg.card.languages(),
        },
        "config": cfg.config,
        "task": cfg.task,
        "level": cfg.level,
        "task_type": cfg.task_type,
        "split_sizes": {s: cfg.size(s) for s in cfg.splits},
        "encoder": {
            "spec": enc.spec,
            "id": enc.id,
            "revision": enc.revision,
            "pooling": pooling,
            "layer": layer,
        },
        "probe": probe,
        "protocol": protocol,
        "seeds": seeds,
        "metrics": metrics,
        "majority": majority,
        "control": control,
        "cache": dict(cache_stats),
        "runtime_seconds": {k: round(v, 3) for k, v in runtime.items()},
        "versions": versions,
    }
