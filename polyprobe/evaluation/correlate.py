"""Probing–downstream correlation: do encoders that score higher on a probing task also score
higher on a downstream task?

Inputs are results JSON files as ``polyprobe evaluate`` writes them (one per dataset, config,
encoder, layer and probe). An *encoder* is ``encoder.id`` plus ``encoder.layer``, so the layers
of one model count as separate encoders (that is how layer-wise probing papers correlate).
Scores are paired only within one language and one probe: a probing score from an MLP and a
downstream score from logistic regression measure different things.

With few encoders a correlation is a description, not evidence: p-values are reported only
from :data:`MIN_ENCODERS_FOR_P` encoders up, and below that the output says ``descriptive``.

Layers of one model are not independent encoders: thirteen layers of one BERT are thirteen
points that share almost everything, and a p-value that counts them as thirteen samples
overstates the evidence. So every pair is also correlated **across models**: one point per
model (``encoder.id`` without the layer), its best layer on each task (``model_layer="best"``)
or a named layer (``model_layer=6``; a model without layers keeps its one result). When some
model contributes several layers, the per-layer correlation stays as a description (no
p-values) and the p-values come from the per-model one; when every point is a different
model the two coincide. Each pair says which it used (``p_value_from``).

The output also holds the **rank stability** of every task's encoder ranking across train
sizes, balances and seeds (:mod:`polyprobe.evaluation.rank_stability`, ``rank_stability``).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError, UsageError
from polyprobe.evaluation.encoders import BASELINE_KINDS
from polyprobe.evaluation.rank_stability import rank_stability, rank_stability_markdown

RESULTS_SCHEMA_VERSION = 1
CORRELATION_SCHEMA_VERSION = 1
MIN_ENCODERS_FOR_P = 5  # below this, no p-values: the output says "descriptive"
MIN_ENCODERS = 3  # with 2 points any correlation is ±1: not worth printing
SOURCE_KEY = "_source"  # added by load_results: which file a result came from
DOWNSTREAM = "downstream"
DOWNSTREAM_MODEL = "downstream-model"  # downstream.run.KIND: a --probe tagger|parser result
PROBING = "probing"

_PNG_METADATA: dict[str, str | None] = {"Software": None}


# --------------------------------------------------------------------------- loading


def is_results(obj: Any) -> bool:
    """Whether a JSON value is a results file ``polyprobe evaluate`` wrote."""
    return isinstance(obj, dict) and "schema_version" in obj and "metrics" in obj


def read_json(path: Path) -> Any:
    """A JSON file, or one ``InputError`` naming it (unreadable, not JSON)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}", "unreadable") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(path, None, f"not valid JSON: {exc}", "bad-json") from exc


def load_results(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Load results JSON files. A folder is searched recursively for ``*.json`` files that are
    results (a ``schema_version`` and ``metrics``); other JSON there (a dataset's
    ``report.json``, earlier correlation output) is ignored. A file named explicitly must be a
    results file. Each dict gets ``_source`` (its path) for error messages."""
    out: list[dict[str, Any]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*.json")):
                obj = read_json(f)
                if is_results(obj):
                    out.append(_checked(obj, f))
        elif p.is_file():
            obj = read_json(p)
            if not is_results(obj):
                raise InputError(p, None, "not a polyprobe results file", "not-results")
            out.append(_checked(obj, p))
        else:
            raise InputError(p, None, "no such file or directory", "missing-file")
    return out


def _checked(obj: dict[str, Any], path: Path) -> dict[str, Any]:
    version = obj.get("schema_version")
    if version != RESULTS_SCHEMA_VERSION:
        raise InputError(
            path,
            None,
            f"results schema_version {version!r} is not supported "
            f"(this polyprobe reads {RESULTS_SCHEMA_VERSION})",
            "schema-version",
        )
    obj = dict(obj)
    obj[SOURCE_KEY] = str(path)
    return obj


# --------------------------------------------------------------------------- keys


def source_of(result: dict[str, Any]) -> str:
    return str(result.get(SOURCE_KEY, "<results>"))


def _field(result: dict[str, Any], *keys: str) -> Any:
    cur: Any = result
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            raise InputError(source_of(result), None, f"missing {'.'.join(keys)}", "bad-results")
        cur = cur[k]
    return cur


def encoder_base(result: dict[str, Any]) -> str:
    """The encoder id without a ``#layer`` suffix (a ``#all`` spec yields one result per
    layer; all of them belong to one model)."""
    enc_id = str(_field(result, "encoder", "id"))
    if result["encoder"].get("layer") is not None:
        enc_id = re.sub(r"#[^#/@:]*$", "", enc_id)
    return enc_id


def encoder_key(result: dict[str, Any]) -> str:
    """``id`` or ``id#layer``: the unit correlations run across."""
    layer = _field(result, "encoder").get("layer")
    base = encoder_base(result)
    return base if layer is None else f"{base}#{layer}"


def task_label(result: dict[str, Any]) -> str:
    """A readable task name: the config when it starts with the task name
    (``subject_number.natural-full``), else the task plus the config's variant suffix
    (config ``coarse`` of task ``trec-coarse`` → ``trec-coarse``)."""
    task = str(result.get("task") or _field(result, "config"))
    config = str(result.get("config") or task)
    if config.split(".")[0] == task:
        return config
    _, dot, suffix = config.partition(".")
    return f"{task}.{suffix}" if dot else task


def probe_name(result: dict[str, Any]) -> str:
    probe = result.get("probe") or {}
    return str(probe.get("name", "?")) if isinstance(probe, dict) else str(probe)


def languages(result: dict[str, Any]) -> list[str]:
    langs = (result.get("dataset") or {}).get("languages") or []
    return [str(x) for x in langs] or ["und"]


def dataset_id(result: dict[str, Any]) -> str:
    return str((result.get("dataset") or {}).get("id", "?"))


def dataset_display(result: dict[str, Any]) -> str:
    """How a result's dataset is shown: its recorded ``name``; for files written before
    results had one, the last part of a path id (an absolute path says where the folder sat
    on one machine, not what it is), a Hub id as it is."""
    block = result.get("dataset") or {}
    if block.get("name"):
        return str(block["name"])
    ident = str(block.get("id", "?"))
    if ident.startswith(("/", ".", "~")) or "\\" in ident or ident.count("/") > 1:
        return Path(ident).name or ident
    return ident


def family(result: dict[str, Any]) -> str | None:
    """The config's family as the card recorded it (None in files from before)."""
    value = result.get("family")
    return str(value) if value else None


def metric_mean(result: dict[str, Any], metric: str = "accuracy") -> float:
    value = _field(result, "metrics", metric, "mean")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        raise InputError(
            source_of(result), None, f"metrics.{metric}.mean is not a number", "bad-results"
        )
    return float(value)


def score_of(result: dict[str, Any], metric: str = "accuracy") -> float:
    """The result's mean test ``metric``; a scored sentence-pair set (STS, SICK-R) has no
    accuracy and enters an accuracy correlation with its test Spearman, the score SentEval
    and LINSPECTOR report for such sets."""
    metrics = result.get("metrics")
    if metric == "accuracy" and result.get("kind") == DOWNSTREAM_MODEL:
        # LINSPECTOR's downstream models: their headline (LAS, span F1, POS accuracy)
        return metric_mean(result, str(result.get("headline") or "token_accuracy"))
    if (
        metric == "accuracy"
        and isinstance(metrics, dict)
        and "accuracy" not in metrics
        and "spearman" in metrics
    ):
        return metric_mean(result, "spearman")
    return metric_mean(result, metric)


def task_labels(results: Sequence[dict[str, Any]]) -> dict[int, str]:
    """Task label per result index, prefixed with the dataset's name only where two datasets
    would otherwise show the same name (with its id where their names are the same too)."""
    plain = [task_label(r) for r in results]
    owners: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    for r, lab in zip(results, plain, strict=True):
        owners.setdefault(lab, set()).add(dataset_id(r))
        names.setdefault(lab, set()).add(dataset_display(r))
    out = {}
    for i, (r, lab) in enumerate(zip(results, plain, strict=True)):
        if len(owners[lab]) == 1:
            out[i] = lab
        elif len(names[lab]) == len(owners[lab]):
            out[i] = f"{dataset_display(r)}:{lab}"
        else:
            out[i] = f"{dataset_id(r)}:{lab}"
    return out


# --------------------------------------------------------------------------- correlation


def _clean(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def _pair_stats(xs: list[float], ys: list[float]) -> dict[str, Any]:
    from scipy import stats

    n = len(xs)
    out: dict[str, Any] = {
        "n_encoders": n,
        "spearman": None,
        "spearman_p": None,
        "pearson": None,
        "pearson_p": None,
    }
    if n < MIN_ENCODERS:
        out["inference"] = "not computed"
        out["reason"] = f"{n} shared encoder(s); at least {MIN_ENCODERS} needed"
        return out
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        out["inference"] = "not computed"
        out["reason"] = "scores are constant across encoders"
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sp = stats.spearmanr(xs, ys)
        pe = stats.pearsonr(xs, ys)
    out["spearman"] = _clean(float(sp.statistic))
    out["pearson"] = _clean(float(pe.statistic))
    if n >= MIN_ENCODERS_FOR_P:
        out["spearman_p"] = _clean(float(sp.pvalue))
        out["pearson_p"] = _clean(float(pe.pvalue))
        out["inference"] = "p-values"
    else:
        out["inference"] = "descriptive"
        out["reason"] = f"{n} encoders < {MIN_ENCODERS_FOR_P}: no p-values"
    return out


def _model_scores(
    per_encoder: dict[str, tuple[float, str]],
    model_of: dict[str, tuple[str, Any]],
    model_layer: str | int,
) -> dict[str, tuple[float, Any]]:
    """One (score, layer) per model: its best layer (ties: the lowest layer), or the named
    layer; a model evaluated without layers keeps its one result."""
    by_model: dict[str, dict[Any, float]] = {}
    for enc, (score, _) in per_encoder.items():
        model, layer = model_of[enc]
        by_model.setdefault(model, {})[layer] = score
    out: dict[str, tuple[float, Any]] = {}
    for model, layers in by_model.items():
        if None in layers and len(layers) == 1:
            out[model] = (layers[None], None)
        elif model_layer == "best":
            layer = sorted(layers, key=lambda la: (-layers[la], str(la)))[0]
            out[model] = (layers[layer], layer)
        else:
            wanted = [la for la in layers if str(la) == str(model_layer)]
            if wanted:
                out[model] = (layers[wanted[0]], wanted[0])
    return out


def _pair(
    cell: dict[str, dict[str, dict[str, tuple[float, str]]]],
    p: str,
    d: str,
    model_of: dict[str, tuple[str, Any]],
    model_layer: str | int,
) -> dict[str, Any]:
    """One probing × downstream pair: across encoders (id + layer) and across models."""
    shared = sorted(set(cell[PROBING][p]) & set(cell[DOWNSTREAM][d]))
    xs = [cell[PROBING][p][e][0] for e in shared]
    ys = [cell[DOWNSTREAM][d][e][0] for e in shared]
    out: dict[str, Any] = {"probing": p, "downstream": d, "encoders": shared} | _pair_stats(xs, ys)
    mp = _model_scores(cell[PROBING][p], model_of, model_layer)
    md = _model_scores(cell[DOWNSTREAM][d], model_of, model_layer)
    models = sorted(set(mp) & set(md))
    stats = _pair_stats([mp[m][0] for m in models], [md[m][0] for m in models])
    stats["n_models"] = stats.pop("n_encoders")
    out["models"] = {
        "layer": model_layer,
        "points": {m: {"probing_layer": mp[m][1], "downstream_layer": md[m][1]} for m in models},
        **stats,
    }
    n_models_shared = len({model_of[e][0] for e in shared})
    if n_models_shared == len(shared):  # one point per model: the two correlations coincide
        out["p_value_from"] = "encoders" if out["spearman_p"] is not None else None
        return out
    if out["spearman"] is not None:
        out["spearman_p"] = out["pearson_p"] = None
        out["inference"] = "descriptive"
        out["reason"] = (
            f"{len(shared)} points from {n_models_shared} model(s): layers of one model are "
            "not independent, so no p-values here; see the per-model correlation"
        )
    out["p_value_from"] = "models" if out["models"]["spearman_p"] is not None else None
    return out


def correlate(
    results: list[dict[str, Any]], *, metric: str = "accuracy", model_layer: str | int = "best"
) -> dict[str, Any]:
    """Correlate every probing config with every downstream config, per language and probe,
    across the encoders both were evaluated with (mean test ``metric`` over seeds), and across
    models (``model_layer``: ``"best"`` or a layer number; see the module docstring)."""
    if model_layer != "best":
        try:
            model_layer = int(model_layer)
        except (TypeError, ValueError):
            raise UsageError(f"model layer {model_layer!r}: use 'best' or a layer number") from None
    labels = task_labels(results)
    # (language, probe) -> kind -> task -> encoder -> (score, source)
    table: dict[tuple[str, str], dict[str, dict[str, dict[str, tuple[float, str]]]]] = {}
    model_of: dict[str, tuple[str, Any]] = {}  # encoder key -> (model, layer)
    names: dict[str, str] = {}  # encoder key -> the model's own name, where recorded
    # LINSPECTOR's downstream models (``--probe tagger|parser``) are the downstream side of
    # every probe's group in their language: their score is a trained model's, whatever
    # probe scored the probing tasks; their task is labelled with the model ("pos (tagger)")
    # so that it stays apart from an ``lr`` probe's score on the same config. A language
    # with no probing results keeps them in a group of their own.
    probing_probes: dict[str, set[str]] = {}
    for r in results:
        if r.get("task_type") != DOWNSTREAM and r.get("kind") != DOWNSTREAM_MODEL:
            for lang in languages(r):
                probing_probes.setdefault(lang, set()).add(probe_name(r))
    for i, r in enumerate(results):
        kind = DOWNSTREAM if r.get("task_type") == DOWNSTREAM else PROBING
        score = score_of(r, metric)
        enc = encoder_key(r)
        model_of[enc] = (encoder_base(r), r["encoder"].get("layer"))
        if r["encoder"].get("model_name"):
            names[enc] = str(r["encoder"]["model_name"])
        trained = r.get("kind") == DOWNSTREAM_MODEL
        label = f"{labels[i]} ({probe_name(r)})" if trained else labels[i]
        for lang in languages(r):
            probes = [probe_name(r)]
            if trained:
                kind = DOWNSTREAM
                probes = sorted(probing_probes.get(lang) or probes)
            for probe in probes:
                cell = table.setdefault((lang, probe), {PROBING: {}, DOWNSTREAM: {}})
                per_enc = cell[kind].setdefault(label, {})
                if enc in per_enc and per_enc[enc][0] != score:
                    raise InputError(
                        source_of(r),
                        None,
                        f"conflicts with {per_enc[enc][1]}: both are {label} with encoder "
                        f"{enc} and probe {probe_name(r)} but report different {metric}",
                        "conflicting-results",
                    )
                per_enc[enc] = (score, source_of(r))

    groups = []
    for (lang, probe), cell in sorted(table.items()):
        probing, downstream = sorted(cell[PROBING]), sorted(cell[DOWNSTREAM])
        encoders = sorted({e for kind in cell.values() for t in kind.values() for e in t})
        pairs = [_pair(cell, p, d, model_of, model_layer) for p in probing for d in downstream]
        groups.append(
            {
                "language": lang,
                "probe": probe,
                "encoders": encoders,
                "model_names": {e: names[e] for e in encoders if e in names},
                "probing_tasks": probing,
                "downstream_tasks": downstream,
                "scores": {
                    t: {e: v[0] for e, v in sorted(cell[kind][t].items())}
                    for kind in (PROBING, DOWNSTREAM)
                    for t in sorted(cell[kind])
                },
                "pairs": pairs,
            }
        )
    return {
        "kind": "polyprobe-correlation",
        "schema_version": CORRELATION_SCHEMA_VERSION,
        "metric": metric,
        "min_encoders_for_p_values": MIN_ENCODERS_FOR_P,
        "model_layer": model_layer,
        "groups": groups,
        "rank_stability": rank_stability(results, _identify, metric),  # rank_stability.py
    }


def _identify(result: dict[str, Any]) -> tuple[str, str, str]:
    """(dataset, encoder, probe) as correlate names them, for :mod:`rank_stability`."""
    return dataset_display(result), encoder_key(result), probe_name(result)


def n_computed(corr: dict[str, Any]) -> int:
    """How many probing × downstream pairs got a correlation (0 means nothing to show)."""
    return sum(1 for g in corr["groups"] for p in g["pairs"] if p["spearman"] is not None)


def what_to_add(corr: dict[str, Any]) -> list[str]:
    """When nothing could be correlated: per language and probe, which encoders have probing
    results but no downstream ones (and the reverse), how many shared encoders a pair needs
    and a command that adds them. Sentences, for the end of ``polyprobe correlate``."""
    lines: list[str] = []
    for g in corr["groups"]:
        scores = g["scores"]
        probing = {e for t in g["probing_tasks"] for e in scores[t]}
        downstream = {e for t in g["downstream_tasks"] for e in scores[t]}
        shared = probing & downstream
        need = max(0, MIN_ENCODERS - len(shared))
        where = f"{g['language']}, probe {g['probe']}"
        if not g["downstream_tasks"]:
            lines.append(
                f"{where}: no downstream results; {len(probing)} encoder(s) have probing ones "
                f"({_listed(probing)}). Build a downstream dataset in {g['language']} (pairs "
                f"stay within one language) and evaluate it with at least {MIN_ENCODERS} of "
                f"the same encoders, e.g. for English `polyprobe build trec "
                f"../shared/data/trec --out trec` then `polyprobe evaluate trec --all "
                f"--probe {g['probe']} {_encoder_args(probing)} --out RESULTS` (another "
                "language: `build trec --translation FILE`)"
            )
            continue
        if not g["probing_tasks"]:
            lines.append(
                f"{where}: no probing results; {len(downstream)} encoder(s) have downstream "
                f"ones ({_listed(downstream)}). Evaluate a probing dataset with at least "
                f"{MIN_ENCODERS} of them: `polyprobe evaluate PROBING_DATASET --all --probe "
                f"{g['probe']} {_encoder_args(downstream)} --out RESULTS`"
            )
            continue
        if need == 0:
            continue  # enough shared encoders; nothing computed for another reason (constant)
        only_p, only_d = sorted(probing - downstream), sorted(downstream - probing)
        parts = [f"{where}: {len(shared)} encoder(s) have both probing and downstream results"]
        parts.append(f"a correlation needs at least {MIN_ENCODERS}: add {need}")
        if only_p:
            parts.append(
                f"probing only: {_listed(only_p)} (evaluate the downstream dataset(s) "
                f"{', '.join(g['downstream_tasks'][:3])} with them)"
            )
        if only_d:
            parts.append(
                f"downstream only: {_listed(only_d)} (evaluate the probing dataset(s) with them)"
            )
        if not only_p and not only_d:
            parts.append(
                "evaluate both the probing and the downstream datasets with more encoders, "
                "e.g. --baselines --encoder minilm"
            )
        lines.append("; ".join(parts))
    return lines


def _listed(encoders: Iterable[str], k: int = 6) -> str:
    names = sorted(encoders)
    more = f" and {len(names) - k} more" if len(names) > k else ""
    return ", ".join(names[:k]) + more


def _encoder_args(encoders: Iterable[str]) -> str:
    """``--encoder SPEC`` for encoders whose id is a spec (baselines, ``hf:``/``st:`` ids
    carry a resolved revision, so they are named by a placeholder)."""
    kinds = sorted({e.split("@", 1)[0].split("?", 1)[0].split(":", 1)[0] for e in encoders})
    specs = [k for k in kinds if k in BASELINE_KINDS]
    if len(specs) == len(BASELINE_KINDS):
        args = "--baselines"
    else:
        args = " ".join(f"--encoder {k}" for k in specs)
    if any(k in ("hf", "st") for k in kinds):
        args += " --encoder SAME_MODEL_SPEC"
    return args.strip() or "--baselines"


# --------------------------------------------------------------------------- output


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return ""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _cell(pair: dict[str, Any], unit: str = "") -> str:
    if pair["spearman"] is None:
        return f"n/a ({pair.get('reason', 'not computed')})"
    rho = f"ρ {_fmt(pair['spearman'])}"
    r = f"r {_fmt(pair['pearson'])}"
    if pair["inference"] == "p-values":
        rho += f" ({_fmt_p(pair['spearman_p'])})"
        r += f" ({_fmt_p(pair['pearson_p'])})"
    n = pair["n_models"] if "n_models" in pair else pair["n_encoders"]
    return f"{rho}; {r}; n={n}{unit}" + (
        " (descriptive)" if pair["inference"] == "descriptive" else ""
    )


def _layers_used(pairs: list[dict[str, Any]]) -> list[str]:
    """Which layer stood for each model, per pair (only where a model has layers)."""
    out = []
    for pair in pairs:
        points = (pair.get("models") or {}).get("points") or {}
        used = [
            f"{m} {pt['probing_layer']}/{pt['downstream_layer']}"
            for m, pt in points.items()
            if pt["probing_layer"] is not None or pt["downstream_layer"] is not None
        ]
        if used:
            out.append(
                f"Layers used for {pair['probing']} / {pair['downstream']}: {', '.join(used)}."
            )
    return [*out, ""] if out else []


def _p_source(pair: dict[str, Any]) -> str:
    return {
        "models": "per-model",
        "encoders": "per-encoder (one point per model: the same)",
        None: "none",
    }[pair.get("p_value_from")]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def group_slug(group: dict[str, Any]) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{group['language']}-{group['probe']}")


def correlation_markdown(corr: dict[str, Any]) -> str:
    """Markdown: per language and probe, the correlation table and the scores it came from."""
    metric = corr["metric"]
    lines = [
        f"# Probing–downstream correlation ({metric})",
        "",
        f"Spearman ρ and Pearson r of mean test {metric} across models (one point per "
        "model) and across encoders (encoder = id + layer). p-values only with ≥ "
        f"{corr['min_encoders_for_p_values']} independent points; fewer makes a correlation "
        "**descriptive**, and so do several layers of one model (they are not independent).",
        "",
    ]
    if not corr["groups"]:
        lines.append("No results.")
    for g in corr["groups"]:
        lines += [f"## {g['language']} — probe `{g['probe']}`", ""]
        if not g["probing_tasks"] or not g["downstream_tasks"]:
            missing = "probing" if not g["probing_tasks"] else "downstream"
            lines += [f"No {missing} results for this language and probe: nothing to pair.", ""]
        else:
            header = ["probing \\ downstream", *g["downstream_tasks"]]
            by = {(p["probing"], p["downstream"]): p for p in g["pairs"]}
            layer = corr.get("model_layer", "best")
            which = "its best layer on each task" if layer == "best" else f"layer {layer}"
            for title, cell in (
                (f"Across models (one point per model: {which})", lambda p: p.get("models")),
                ("Across encoders (id + layer)", lambda p: p),
            ):
                lines += [f"{title}:", ""]
                lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
                lines.append("|" + "---|" * len(header))
                for pt in g["probing_tasks"]:
                    cells = []
                    for d in g["downstream_tasks"]:
                        c = cell(by[(pt, d)])
                        unit = " models" if c and "n_models" in c else ""
                        cells.append(_cell(c, unit) if c else "n/a (not computed)")
                    lines.append("| " + " | ".join(_md_escape(c) for c in [pt, *cells]) + " |")
                lines.append("")
                if title.startswith("Across models"):
                    lines += _layers_used(g["pairs"])
            sources = sorted({_p_source(p) for p in g["pairs"]})
            lines.append(f"p-values from: {'; '.join(sources)}.")
            inferences = {p["inference"] for p in g["pairs"]}
            inferences |= {(p.get("models") or {}).get("inference") for p in g["pairs"]}
            if "descriptive" in inferences:
                lines += [
                    "",
                    "Descriptive: fewer encoders (models) than needed for p-values, or layers "
                    "of one model, which are not independent points.",
                ]
            lines.append("")
        lines += [f"Scores ({metric}, mean over seeds):", ""]
        tasks = [*g["probing_tasks"], *g["downstream_tasks"]]
        lines.append("| encoder | " + " | ".join(_md_escape(t) for t in tasks) + " |")
        lines.append("|" + "---|" * (len(tasks) + 1))
        for e in g["encoders"]:
            vals = [_fmt(g["scores"][t].get(e), 4) for t in tasks]
            name = (g.get("model_names") or {}).get(e)
            shown = f"{e} ({name})" if name else e
            lines.append("| " + " | ".join([_md_escape(shown), *vals]) + " |")
        lines.append("")
    if "rank_stability" in corr:
        lines += ["", rank_stability_markdown(corr["rank_stability"])]
    return "\n".join(lines).rstrip() + "\n"


def correlation_heatmap(group: dict[str, Any], path: str | Path, metric: str = "accuracy") -> None:
    """Probing task × downstream task heatmap of Spearman ρ (PNG, deterministic bytes)."""
    import matplotlib
    import matplotlib.style
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, cols = group["probing_tasks"], group["downstream_tasks"]
    by = {(p["probing"], p["downstream"]): p for p in group["pairs"]}
    values = np.full((max(len(rows), 1), max(len(cols), 1)), np.nan)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            v = by[(r, c)]["spearman"]
            if v is not None:
                values[i, j] = v
    rc = {"text.parse_math": False, "text.usetex": False, "svg.hashsalt": "polyprobe"}
    with matplotlib.style.context("default"), matplotlib.rc_context(rc):
        fig = Figure(
            figsize=(max(4.0, 1.6 * len(cols) + 3.0), max(3.0, 0.45 * len(rows) + 1.8)), dpi=100
        )
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        im = ax.imshow(values, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
        ax.set_xticks(range(len(cols)))
        ax.set_xticklabels(cols, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(rows)
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                pair = by[(r, c)]
                text = "n/a" if pair["spearman"] is None else f"{pair['spearman']:.2f}"
                if pair["inference"] == "descriptive":
                    text += "*"
                color = "white" if abs(values[i, j]) > 0.5 else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
        ax.set_title(
            f"Spearman ρ, {metric} across encoders — {group['language']}, {group['probe']}"
            "\n(* descriptive: fewer than "
            f"{MIN_ENCODERS_FOR_P} encoders)",
            fontsize=9,
        )
        fig.colorbar(im, ax=ax)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fig.tight_layout()
            fig.savefig(Path(path), format="png", dpi=100, metadata=_PNG_METADATA)


def write_correlation(corr: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """Write ``correlation.json``, ``correlation.md`` and one heatmap per language and probe
    that has both probing and downstream results. Returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    js = out / "correlation.json"
    js.write_text(json.dumps(corr, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md = out / "correlation.md"
    md.write_text(correlation_markdown(corr), encoding="utf-8")
    written += [js, md]
    for g in corr["groups"]:
        if g["probing_tasks"] and g["downstream_tasks"]:
            png = out / f"correlation-{group_slug(g)}.png"
            correlation_heatmap(g, png, corr["metric"])
            written.append(png)
    return written
