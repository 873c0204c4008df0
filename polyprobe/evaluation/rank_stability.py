"""Rank stability: does the encoders' ranking on a task survive a change of train size,
seed or class balance?

Why: a probing paper's claim is usually a ranking ("A encodes tense better than B"). If the
ranking flips between the 1k and the full train set, between two seeds, or between the
balanced and the natural variant of the same task, the claim rests on that choice, not on
the encoders. So for every task the results are grouped into **conditions** that differ in
one thing only, and the encoders' rankings are compared between each pair of conditions with
Kendall's τ (scipy's τ-b, ties allowed), plus their mean:

* ``size``: the configs ``<task>.<balance>-<size>`` of one balance, one condition per size;
* ``balance``: the configs of one size, one condition per balance (``natural``, ``balanced``,
  ``ratio1to5`` ...);
* ``seed``: within one config, one condition per seed, from the per-seed test scores every
  result stores (``metrics.<metric>.per_seed``, in the order of ``seeds``). A result fitted
  once because nothing varies across seeds (``repetitions.varies`` empty: the majority
  baseline, a deterministic encoder under ``lr`` on a fixed split) has the same score under
  every seed.

Conditions are compared within one dataset, task and probe, over the encoders (id + layer)
present in all of them; with fewer than :data:`MIN_ENCODERS` the ranking is not compared (two
encoders give τ = ±1 whatever happens). The recommended config (named like its task) is the
same rows as one of the variants and is left out of ``size``/``balance`` comparisons; its
seeds are compared like any config's.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

MIN_ENCODERS = 3

_AXES = ("size", "balance", "seed")


def _variant(result: dict[str, Any]) -> tuple[str, str] | None:
    """(balance, size) of a ``<task>.<balance>-<size>`` config; None for the recommended
    config or a config named otherwise."""
    task, config = str(result.get("task") or ""), str(result.get("config") or "")
    if not config.startswith(f"{task}."):
        return None
    balance, dash, size = config[len(task) + 1 :].partition("-")
    if not dash or not balance or not size:
        return None
    return balance, size


def _metric(result: dict[str, Any], metric: str) -> str:
    """A LINSPECTOR downstream model's result (``--probe tagger|parser``) has no accuracy:
    it ranks by its headline (POS accuracy, span F1, LAS), as ``correlate`` scores it."""
    if metric == "accuracy" and result.get("kind") == "downstream-model":
        return str(result.get("headline") or "token_accuracy")
    return metric


def _score(result: dict[str, Any], metric: str) -> float | None:
    metric = _metric(result, metric)
    value = ((result.get("metrics") or {}).get(metric) or {}).get("mean")
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def _per_seed(result: dict[str, Any], metric: str) -> dict[str, float] | None:
    """seed -> test score, or None when the result does not store per-seed scores; a result
    fitted once because nothing varies returns ``{"*": score}`` (the same under any seed)."""
    block = (result.get("metrics") or {}).get(_metric(result, metric)) or {}
    values = block.get("per_seed")
    seeds = result.get("seeds")
    if not isinstance(values, list) or not isinstance(seeds, list) or not values:
        return None
    reps = result.get("repetitions")
    if isinstance(reps, dict) and reps.get("varies") == [] and len(values) == 1:
        return {"*": float(values[0])}
    if len(values) != len(seeds):
        return None
    return {str(s): float(v) for s, v in zip(seeds, values, strict=True)}


def _ranking(scores: dict[str, float]) -> list[str]:
    """Encoders best first (ties: by name)."""
    return sorted(scores, key=lambda e: (-scores[e], e))


def _tau(a: list[float], b: list[float]) -> float | None:
    from scipy import stats

    if len(set(a)) < 2 or len(set(b)) < 2:
        return None  # a constant ranking has no order to compare
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau = float(stats.kendalltau(a, b).statistic)
    return None if math.isnan(tau) else tau


def compare(conditions: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Rankings per condition and Kendall's τ of every pair, over the shared encoders."""
    names = sorted(conditions, key=_condition_order)
    shared = sorted(set.intersection(*(set(conditions[c]) for c in names))) if names else []
    out: dict[str, Any] = {
        "conditions": names,
        "encoders": shared,
        "rankings": {c: _ranking({e: conditions[c][e] for e in shared}) for c in names},
        "scores": {c: {e: conditions[c][e] for e in shared} for c in names},
        "pairs": [],
        "mean_tau": None,
    }
    if len(shared) < MIN_ENCODERS:
        out["reason"] = f"{len(shared)} shared encoder(s); at least {MIN_ENCODERS} needed"
        return out
    taus = []
    for a, b in itertools.combinations(names, 2):
        tau = _tau([conditions[a][e] for e in shared], [conditions[b][e] for e in shared])
        pair: dict[str, Any] = {"a": a, "b": b, "tau": tau}
        if tau is None:
            pair["reason"] = "scores constant across encoders in one condition"
        else:
            taus.append(tau)
        out["pairs"].append(pair)
    out["mean_tau"] = sum(taus) / len(taus) if taus else None
    if not taus:
        out["reason"] = "no pair of conditions with an order to compare"
    return out


def _condition_order(name: str) -> tuple[int, float, str]:
    """Sizes small to large with ``full`` last, seeds numerically, the rest by name."""
    if name == "full":
        return (1, math.inf, name)
    number = name[:-1] if name.endswith("k") else name
    try:
        value = float(number) * (1000 if name.endswith("k") else 1)
    except ValueError:
        return (2, 0.0, name)
    return (0, value, name)


Identify = Callable[[dict[str, Any]], tuple[str, str, str]]


def rank_stability(
    results: list[dict[str, Any]], identify: Identify, metric: str = "accuracy"
) -> list[dict[str, Any]]:
    """Every comparison (dataset, task, probe, axis, what is held fixed) with at least two
    conditions: see the module docstring. ``identify(result)`` gives its (dataset, encoder,
    probe) as the caller names them (``correlate``: display name, id + layer, probe name).
    Sorted for stable output."""
    # (dataset, task, probe, axis, fixed) -> condition -> encoder -> score
    table: dict[tuple[str, str, str, str, str], dict[str, dict[str, float]]] = {}
    for r in results:
        score = _score(r, metric)
        if score is None:
            continue
        dataset, enc, probe = identify(r)
        base = (dataset, str(r.get("task") or r.get("config")), probe)
        variant = _variant(r)
        if variant is not None:
            balance, size = variant
            table.setdefault((*base, "size", balance), {}).setdefault(size, {})[enc] = score
            table.setdefault((*base, "balance", size), {}).setdefault(balance, {})[enc] = score
        per_seed = _per_seed(r, metric)
        if per_seed is not None:
            cell = table.setdefault((*base, "seed", str(r.get("config"))), {})
            for seed, value in per_seed.items():
                cell.setdefault(seed, {})[enc] = value
    out = []
    for (dataset, task, probe, axis, fixed), conditions in sorted(
        table.items(),
        key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], _AXES.index(kv[0][3]), kv[0][4]),
    ):
        if axis == "seed":
            conditions = _spread_constant(conditions)
        if len(conditions) < 2:
            continue
        out.append(
            {
                "dataset": dataset,
                "task": task,
                "probe": probe,
                "axis": axis,
                "fixed": fixed,
                **compare(conditions),
            }
        )
    return out


def _spread_constant(conditions: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Seed conditions with the once-fitted results (``"*"``) under every real seed."""
    constant = conditions.get("*", {})
    seeds = {s: dict(v) for s, v in conditions.items() if s != "*"}
    for per in seeds.values():
        for enc, value in constant.items():
            per.setdefault(enc, value)
    return seeds


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def rank_stability_markdown(
    entries: list[dict[str, Any]], labels: dict[str, str] | None = None
) -> str:
    """The table ``correlate`` prints: per comparison, the conditions, the ranking in each,
    Kendall's τ of every pair and the mean."""
    names = labels or {}
    lines = [
        "## Rank stability (Kendall's τ between encoder rankings)",
        "",
    ]
    if not entries:
        return "\n".join([*lines, "No task has results under two sizes, balances or seeds.", ""])
    lines += [
        "Per task, conditions that differ in one thing (train size, balance, seed); τ-b over "
        f"the encoders present in all of them (at least {MIN_ENCODERS}).",
        "",
        "| dataset | task | probe | varies | fixed | rankings (best first) | τ per pair | mean τ |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        rankings = "; ".join(
            f"{c}: " + " > ".join(names.get(x, x) for x in e["rankings"][c])
            for c in e["conditions"]
        )
        if e["pairs"]:
            pairs = ", ".join(f"{p['a']}/{p['b']} {_fmt(p['tau'])}" for p in e["pairs"])
        else:
            pairs = f"n/a ({e.get('reason', 'not computed')})"
        row = [
            e["dataset"],
            e["task"],
            e["probe"],
            e["axis"],
            e["fixed"],
            rankings,
            pairs,
            _fmt(e["mean_tau"]),
        ]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    lines.append("")
    return "\n".join(lines)
