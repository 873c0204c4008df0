"""``--probe tagger`` and ``--probe parser``: one config × encoder × layer trained over
seeds, scored on test with bootstrap CIs over sentences, written in the results schema.

Which configs: the tagger takes token-level downstream configs (level ``word-in-context``,
``task_type: downstream``: ``pos``, and NER configs, whose IOB labels add span F1), the
parser ``parse`` configs (level ``arc`` with the root's row); both only the ``natural``
variant, since a balanced variant subsamples a sentence's tokens by class. Any other config
of the plan is skipped, said once (as the majority baseline's skip is).

The metrics: token accuracy over the test split's labelled tokens; span precision, recall
and F1 with conlleval's rules (:mod:`spans`) where the labels are IOB tags (an unlabelled
position counts as ``O`` on both sides); UAS and LAS over the tokens with a gold head
(punctuation included, as the CoNLL 2018 shared task scores). The 95% CI resamples whole
test sentences (seeded), the numbers being the seed mean, as every polyprobe CI is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import InputError, UsageError
from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
from polyprobe.evaluation.data import Card, dataset_revision, load_config
from polyprobe.evaluation.downstream.models import (
    PARSER,
    TAGGER_NER,
    TAGGER_POS,
    train_parser,
    train_tagger,
)
from polyprobe.evaluation.downstream.sentences import MASKED, SplitSentences, rebuild
from polyprobe.evaluation.downstream.spans import is_iob, span_scores
from polyprobe.evaluation.encoders import Encoder, auto_device
from polyprobe.evaluation.plan import dataset_name
from polyprobe.evaluation.results import (
    dataset_identity,
    library_versions,
    normalised,
    provenance,
    result_path,
    write_result,
)
from polyprobe.evaluation.stats import Resampler
from polyprobe.hashing import stable_u64

TAGGER, PARSER_NAME = "tagger", "parser"
DOWNSTREAM_PROBES = (TAGGER, PARSER_NAME)
KIND = "downstream-model"


@dataclass
class DownstreamSpec:
    """``tagger`` or ``parser`` and its settings; ``params`` override LINSPECTOR's (tests
    shorten training with them)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


def as_spec(probe: str | DownstreamSpec) -> DownstreamSpec:
    if isinstance(probe, DownstreamSpec):
        return probe
    if probe not in DOWNSTREAM_PROBES:
        raise UsageError(f"unknown downstream model {probe!r}: use tagger or parser")
    return DownstreamSpec(probe)


def is_downstream_result(result: dict[str, Any]) -> bool:
    return isinstance(result, dict) and result.get("kind") == KIND


def applies(name: str, block: dict[str, Any]) -> str | None:
    """None when ``name`` (tagger/parser) applies to a config with this card block, else why
    not (one phrase)."""
    variant = block.get("variant") or {}
    if name == TAGGER:
        if block.get("level") != "word-in-context" or block.get("task_type") != "downstream":
            return "not a token-level downstream config (pos, ner)"
    elif block.get("task") != "parse":
        return "not a parse config"
    if variant.get("balance", "natural") != "natural":
        return "a balanced variant (a model needs every token of a sentence)"
    return None


def evaluate_downstream(
    dataset: str,
    card: Card,
    names: Sequence[str],
    encoders: Sequence[Encoder],
    probe: str | DownstreamSpec,
    seeds: Sequence[int],
    store: EmbeddingCache,
    *,
    out: str | Path | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    batch_size: int = 32,
    n_boot: int = 1000,
    device: str | None = None,
    force: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    spec = as_spec(probe)
    revision_id = dataset_revision(dataset, revision, card)
    identity = dataset_identity(card, revision_id)
    versions = library_versions()
    results = []
    for name in names:
        cfg = load_config(dataset, name, revision, card, cache_dir, revision_id)
        missing = [s for s in ("train", "validation", "test") if s not in cfg.rows]
        if missing:
            raise InputError(
                dataset, None, f"{name}: the {spec.name} needs train, validation and test "
                f"splits (early stopping on validation); missing: {', '.join(missing)}",
                "no-split",
            )  # fmt: skip
        parse = spec.name == PARSER_NAME
        sents = {s: rebuild(cfg.rows[s], dataset, s, parse) for s in cfg.splits}
        iob = not parse and is_iob(cfg.label_names)
        defaults = PARSER if parse else TAGGER_NER if iob else TAGGER_POS
        params = {**defaults, **spec.params}
        for enc in encoders:
            for layer_result in _encoder_results(
                spec, params, cfg, sents, enc, seeds, store, identity, versions, out,
                batch_size, n_boot, device, force, iob,
            ):  # fmt: skip
                results.append(layer_result)
                if on_result is not None:
                    on_result(layer_result)
    return results


def _job(identity: dict[str, Any], config: str, enc: Encoder, layer: Any, spec: DownstreamSpec,
         params: dict[str, Any], seeds: Sequence[int], n_boot: int) -> dict[str, Any]:  # fmt: skip
    return normalised({
        "dataset": identity, "config": config, "encoder": enc.id, "layer": layer,
        "probe": {"name": spec.name, "params": params}, "seeds": list(seeds),
        "n_boot": n_boot, "kind": KIND,
    })  # fmt: skip


def _encoder_results(
    spec: DownstreamSpec,
    params: dict[str, Any],
    cfg: Any,
    sents: dict[str, SplitSentences],
    enc: Encoder,
    seeds: Sequence[int],
    store: EmbeddingCache,
    identity: dict[str, Any],
    versions: dict[str, str],
    out: str | Path | None,
    batch_size: int,
    n_boot: int,
    device: str | None,
    force: bool,
    iob: bool,
) -> list[dict[str, Any]]:
    jobs = {
        la: _job(identity, cfg.config, enc, la, spec, params, seeds, n_boot) for la in enc.layers
    }
    if out is not None and not force:
        found = []
        for layer, job in jobs.items():
            path = result_path(out, cfg.dataset, cfg.config, enc.id, layer, spec.name)
            result = _reusable(path, job)
            if result is None:
                break
            found.append({**result, "resumed": True, "path": str(path)})
        else:
            return found
    t0 = time.perf_counter()
    seeded = bool(getattr(enc, "varies_with_seed", False))
    splits = ["train", "validation", "test"]
    items = [it for s in splits for sent in sents[s].sentences for it in sent.items()]
    per_layer: dict[Any, list[dict[str, Any]]] = {la: [] for la in enc.layers}
    hits = misses = 0
    t_encode = t_train = 0.0
    train_device = auto_device(device) if device else "cpu"
    for seed in seeds:
        t1 = time.perf_counter()
        if seeded or seed == seeds[0]:
            vectors, stats = encode_cached(
                enc.for_seed(seed) if seeded else enc,
                items,
                store,
                batch_size,  # type: ignore[attr-defined]
            )
            hits, misses = hits + stats.hits, misses + stats.misses
        t_encode += time.perf_counter() - t1
        t2 = time.perf_counter()
        for layer, matrix in vectors.items():
            by_split = _split_vectors(matrix, sents, splits)
            per_layer[layer].append(
                _train_one(spec, params, cfg, sents, by_split, seed, iob, train_device)
            )
        t_train += time.perf_counter() - t2
    results = []
    for layer, runs in per_layer.items():
        metrics = _metrics(spec, runs, sents["test"], cfg, n_boot, iob)
        result = {
            "schema_version": 1,
            "kind": KIND,
            "dataset": {
                "id": cfg.dataset, "revision": cfg.revision,
                "fingerprint": cfg.card.polyprobe.get("fingerprint"),
                "version": cfg.card.polyprobe.get("version"),
                "languages": cfg.card.languages(), "name": dataset_name(cfg.dataset),
            },
            "config": cfg.config,
            "task": cfg.task,
            "level": cfg.level,
            "task_type": cfg.task_type,
            "labels": list(cfg.label_names),
            "split_sizes": {s: len(sents[s].sentences) for s in splits},
            "scored_tokens": {s: int(sum(_scored(x, spec) for x in sents[s].sentences)) for s in splits},
            "duplicate_rows": {s: sents[s].duplicate_rows for s in splits},
            "encoder": {
                "spec": enc.spec, "id": enc.id, "revision": enc.revision,
                "pooling": getattr(enc, "pooling", None), "layer": layer,
                "model_name": enc.model_name,
            },
            "probe": {"name": spec.name, "params": params, "device": train_device},
            "protocol": "split",
            "seeds": list(seeds),
            "headline": metrics.pop("_headline"),
            "metrics": metrics,
            "training": [
                {"seed": s, "epochs": r["trained"].epochs, "best_epoch": r["trained"].best_epoch,
                 "best_validation": round(r["trained"].best_validation, 6),
                 "validation_history": r["trained"].history}
                for s, r in zip(seeds, runs, strict=True)
            ],
            "cache": {"hits": hits, "misses": misses},
            "runtime_seconds": {
                "encode": round(t_encode, 3), "train": round(t_train, 3),
                "total": round(time.perf_counter() - t0, 3),
            },
            "versions": versions,
            **provenance(cfg.card, cfg.config),
            "job": jobs[layer],
        }  # fmt: skip
        if out is not None:
            path = result_path(out, cfg.dataset, cfg.config, enc.id, layer, spec.name)
            write_result(path, result)
            result["path"] = str(path)
        results.append(result)
    return results


def _reusable(path: Path, job: dict[str, Any]) -> dict[str, Any] | None:
    import json

    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    ok = is_downstream_result(result) and result.get("job") == job
    return result if ok else None


def _scored(sent: Any, spec: DownstreamSpec) -> int:
    gold = sent.heads if spec.name == PARSER_NAME else sent.labels
    return int((gold != MASKED).sum())


def _split_vectors(
    matrix: np.ndarray, sents: dict[str, SplitSentences], splits: list[str]
) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {}
    start = 0
    for s in splits:
        out[s] = []
        for sent in sents[s].sentences:
            n = len(sent.tokens)
            out[s].append(np.asarray(matrix[start : start + n], np.float32))
            start += n
    return out


def _standardised(vectors: dict[str, list[np.ndarray]]) -> dict[str, list[np.ndarray]]:
    """Every feature centred and scaled by the training tokens' mean and standard deviation
    (a transformer's token states have outlier dimensions 10-100x the others, which Adam at
    lr 1e-3 needs many epochs to get past; LINSPECTOR's static vectors had no such scale)."""
    train = np.concatenate(vectors["train"])
    mean, std = train.mean(0), train.std(0)
    std[std < 1e-8] = 1.0
    return {s: [((x - mean) / std).astype(np.float32) for x in v] for s, v in vectors.items()}


def _train_one(spec, params, cfg, sents, vectors, seed, iob, device) -> dict[str, Any]:  # noqa: ANN001
    if params.get("standardize", True):
        vectors = _standardised(vectors)
    labels = {s: [x.labels for x in v.sentences] for s, v in sents.items()}
    names = list(cfg.label_names)
    if spec.name == PARSER_NAME:
        heads = {s: [x.heads for x in v.sentences] for s, v in sents.items()}
        trained = train_parser(
            vectors, heads, labels, len(names), params, seed, "test", _las_score, device
        )
        return {"trained": trained}
    score = (lambda g, p: span_scores(*_tag_strings(g, p, names))["f1"]) if iob else _token_accuracy
    trained = train_tagger(vectors, labels, len(names), params, seed, "test", score, device)
    return {"trained": trained}


def _token_accuracy(gold: list[np.ndarray], pred: list[np.ndarray]) -> float:
    correct = total = 0
    for g, p in zip(gold, pred, strict=True):
        m = g != MASKED
        correct += int((g[m] == p[m]).sum())
        total += int(m.sum())
    return correct / total if total else 0.0


def _tag_strings(gold, pred, names):  # noqa: ANN001, ANN202
    """Tag strings for span scoring; an unlabelled position is ``O`` on both sides."""
    g_out, p_out = [], []
    for g, p in zip(gold, pred, strict=True):
        m = g != MASKED
        g_out.append([names[t] if ok else "O" for t, ok in zip(g, m, strict=True)])
        p_out.append([names[t] if ok else "O" for t, ok in zip(p, m, strict=True)])
    return g_out, p_out


def attachment(gold: np.ndarray, pred: np.ndarray) -> tuple[int, int, int]:
    """(tokens with a gold head, correct heads, correct heads and relations) of a sentence;
    rows 0/1 of ``gold``/``pred`` are heads/relations."""
    m = gold[0] != MASKED
    head_ok = (gold[0] == pred[0]) & m
    return int(m.sum()), int(head_ok.sum()), int((head_ok & (gold[1] == pred[1])).sum())


def _las_score(gold: list[np.ndarray], pred: list[np.ndarray]) -> float:
    counts = np.array([attachment(g, p) for g, p in zip(gold, pred, strict=True)]).sum(0)
    return float(counts[2] / counts[0]) if counts[0] else 0.0


def _metrics(spec, runs, test: SplitSentences, cfg, n_boot, iob) -> dict[str, Any]:  # noqa: ANN001
    """Per-sentence counts of every seed's test predictions, summed to the metrics; the CI
    resamples sentences (one draw for every seed, so the seeds' mean is resampled)."""
    names = list(cfg.label_names)
    per_metric: dict[
        str, np.ndarray
    ] = {}  # metric -> (seeds, sentences, 2): numerator, denominator
    if spec.name == PARSER_NAME:
        uas, las = [], []
        for r in runs:
            c = np.array([attachment(np.stack([s.heads, s.labels]), p)
                          for s, p in zip(test.sentences, r["trained"].predictions, strict=True)])  # fmt: skip
            uas.append(c[:, [1, 0]])
            las.append(c[:, [2, 0]])
        per_metric = {"uas": np.array(uas), "las": np.array(las)}
        headline = "las"
    else:
        acc = []
        spans: list[np.ndarray] = []
        for r in runs:
            gold = [s.labels for s in test.sentences]
            pred = r["trained"].predictions
            acc.append(np.array([[int(((g == p) & (g != MASKED)).sum()), int((g != MASKED).sum())]
                                 for g, p in zip(gold, pred, strict=True)]))  # fmt: skip
            if iob:
                g_s, p_s = _tag_strings(gold, pred, names)
                spans.append(np.array([[span_scores([g], [p])[k] for k in
                                        ("correct_spans", "predicted_spans", "gold_spans")]
                                       for g, p in zip(g_s, p_s, strict=True)]))  # fmt: skip
        per_metric = {"token_accuracy": np.array(acc)}
        headline = "token_accuracy"
        if iob:
            s_arr = np.array(spans)  # seeds, sentences, (correct, predicted, gold)
            per_metric["span_precision"] = s_arr[:, :, [0, 1]]
            per_metric["span_recall"] = s_arr[:, :, [0, 2]]
            per_metric["span_f1"] = np.concatenate(
                [2 * s_arr[:, :, [0]], s_arr[:, :, [1]] + s_arr[:, :, [2]]], axis=2
            )
            headline = "span_f1"
    rng = np.random.default_rng(stable_u64("bootstrap", cfg.dataset, cfg.config, spec.name))
    resampler = Resampler(len(test.sentences))
    draws = [resampler.draw(rng) for _ in range(n_boot)]
    out: dict[str, Any] = {}
    for metric, arr in per_metric.items():
        per_seed = [_ratio(a.sum(0)) for a in arr]
        boots = [np.mean([_ratio(a[idx].sum(0)) for a in arr]) for idx in draws]
        out[metric] = {
            "mean": round(float(np.mean(per_seed)), 6),
            "std": round(float(np.std(per_seed, ddof=1)), 6) if len(per_seed) > 1 else None,
            "ci95": [
                round(float(np.percentile(boots, 2.5)), 6),
                round(float(np.percentile(boots, 97.5)), 6),
            ],  # fmt: skip
            "per_seed": [round(v, 6) for v in per_seed],
        }
    if iob:  # per entity type, seed mean, no CI
        typed = [span_scores(*_tag_strings([s.labels for s in test.sentences],
                                           r["trained"].predictions, names))["per_type"]
                 for r in runs]  # fmt: skip
        out["span_f1_per_type"] = {
            t: round(float(np.mean([ty.get(t, {"f1": 0.0})["f1"] for ty in typed])), 6)
            for t in sorted({t for ty in typed for t in ty})
        }
    out["_headline"] = headline
    return out


def _ratio(pair: np.ndarray) -> float:
    return float(pair[0] / pair[1]) if pair[1] else 0.0


def run_plans(
    plans: Sequence[Any],
    encoders: Sequence[Encoder],
    probe: str | DownstreamSpec,
    seeds: Sequence[int],
    store: EmbeddingCache,
    on_note: Callable[[str], None] | None,
    **kwargs: Any,
) -> None:
    """Every plan's configs the model applies to; the others skipped, said once per dataset.
    The majority baseline predicts no sequence: it is skipped too."""
    spec = as_spec(probe)
    usable = [e for e in encoders if not getattr(e, "is_majority", False)]
    if len(usable) < len(encoders) and on_note is not None:
        on_note(f"majority skipped: --probe {spec.name} trains a model on the encoder's vectors")
    ran = 0
    for plan in plans:
        names, skipped = [], []
        for config in plan.configs:
            why = applies(spec.name, plan.card.config_block(config))
            (skipped if why else names).append((config, why))
        if skipped and on_note is not None:
            shown = ", ".join(f"{c} ({w})" for c, w in skipped[:3])
            more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
            on_note(f"--probe {spec.name} skipped {len(skipped)} config(s) of {plan.name}: "
                    f"{shown}{more}")  # fmt: skip
        if names and usable:
            ran += len(names)
            evaluate_downstream(
                plan.source, plan.card, [c for c, _ in names], usable, spec, seeds, store,
                **kwargs,
            )  # fmt: skip
    if not ran:
        what = "pos or ner configs" if spec.name == TAGGER else "parse configs"
        raise UsageError(f"--probe {spec.name}: nothing to train on (it takes {what}, natural "
                         "variant; build them with e.g. polyprobe build ud TREEBANK --tasks "
                         "pos,parse)")  # fmt: skip
