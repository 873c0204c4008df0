"""Human-readable reports from results JSON: the tables and figures a paper needs.

``report(results, out_dir)`` writes

- ``report.md``: a tasks × encoders table (mean ± std over seeds and the bootstrap 95% CI of
  the chosen metric, plus the majority baseline) and a per-result table with macro-F1, the
  control accuracy and **selectivity** — or ``n/a`` with the reason the evaluation recorded,
  because a selectivity computed where no recurring control key exists is meaningless. Each
  distinct reason is written once, under the table, and the rows point to it (``n/a [1]``);
- ``heatmap.png``: the same tasks × encoders matrix as a heatmap;
- ``layers-<task>.png``: accuracy against layer for every encoder evaluated at several layers
  (the layer-wise probing curve), with the task's majority baseline and its ``random``
  encoder results drawn as horizontal reference lines: a layer is only interesting where it
  rises above what no or random features reach;
- ``report.json``: the numbers behind all of the above.

Encoders are shown by short labels (``hf:all-MiniLM-L6-v2:mean#3`` rather than the model's
path, resolved revision and options), made unique by adding back options, then the full id,
only where two encoders would share one; a legend maps every label to its full id. A result
fitted once because nothing varies across seeds (``repetitions.varies`` empty) has no ``±``:
its std is not zero, it does not exist. Result files written before the ``repetitions`` block
existed are read as they are (their seeds are shown as "not recorded").

Rows are (task, probe): an MLP and a logistic-regression score for the same task are different
measurements and must not share a cell. Figures are written with matplotlib's object API (no
pyplot global state) and without the ``Software`` PNG chunk, so the bytes depend on the numbers.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

from polyprobe.cards.stats import detectable_difference
from polyprobe.errors import InputError
from polyprobe.evaluation.correlate import (
    dataset_display,
    encoder_base,
    encoder_key,
    family,
    metric_mean,
    probe_name,
    source_of,
    task_labels,
)
from polyprobe.evaluation.encoders import BASELINE_KINDS
from polyprobe.evaluation.groups import group_means, groups_markdown

REPORT_SCHEMA_VERSION = 1
_PNG_METADATA: dict[str, str | None] = {"Software": None}
_RC = {"text.parse_math": False, "text.usetex": False, "svg.hashsalt": "polyprobe"}


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        return None
    return float(x)


def _metric(result: dict[str, Any], name: str) -> dict[str, Any]:
    m = (result.get("metrics") or {}).get(name)
    if not isinstance(m, dict):
        return {"mean": None, "std": None, "ci95": None}
    ci = m.get("ci95")
    ci_ok = isinstance(ci, (list, tuple)) and len(ci) == 2 and all(_num(v) is not None for v in ci)
    return {
        "mean": _num(m.get("mean")),
        "std": _num(m.get("std")),
        "ci95": [float(ci[0]), float(ci[1])] if ci_ok else None,
    }


def _selectivity(result: dict[str, Any]) -> tuple[float | None, float | None, str]:
    """(control accuracy, selectivity, reason when n/a)."""
    control = result.get("control")
    if not isinstance(control, dict):
        return None, None, "no control recorded"
    if control.get("status") == "not applicable" or "selectivity" not in control:
        return None, None, str(control.get("reason") or control.get("status") or "no control")
    acc = control.get("accuracy")
    acc_mean = _num(acc.get("mean")) if isinstance(acc, dict) else _num(acc)
    sel = control.get("selectivity")
    sel_v = _num(sel.get("mean")) if isinstance(sel, dict) else _num(sel)
    if sel_v is None:
        return acc_mean, None, "selectivity not a number"
    return acc_mean, sel_v, ""


def _layer_value(layer: Any) -> float | None:
    if isinstance(layer, bool):
        return None
    if isinstance(layer, int):
        return float(layer)
    if isinstance(layer, str) and re.fullmatch(r"-?\d+", layer):
        return float(int(layer))
    return None


_POOLINGS = ("mean", "cls", "first", "last")


def _label_levels(base: str, model_name: str | None = None) -> list[str]:
    """Candidate labels for an encoder id, shortest first: kind and model name (the name the
    model's own files give, recorded as ``encoder.model_name``; else a path's last part, no
    revision); then with the options; then the id itself."""
    head, _, query = base.partition("?")
    kind_rev, sep, rest = head.partition(":")
    kind = kind_rev.split("@", 1)[0]
    parts = [kind]
    if sep and rest:
        pool = ""
        name, colon, tail = rest.rpartition(":")
        if colon and tail in _POOLINGS:
            rest, pool = name, tail
        name, at, rev = rest.rpartition("@")
        if at and name and "/" not in rev:
            rest = name
        model = model_name or rest.rstrip("/").rsplit("/", 1)[-1] or rest
        parts.append(model)
        if pool:
            parts.append(pool)
    short = ":".join(parts)
    with_options = short + ("?" + query.replace("?", "&") if query else "")
    return [short, with_options, base]


def short_labels(bases: list[str], model_names: dict[str, str] | None = None) -> dict[str, str]:
    """A short, unique label per encoder id (without layer)."""
    names = model_names or {}
    levels = {b: _label_levels(b, names.get(b)) for b in bases}
    labels: dict[str, str] = {}
    pending = sorted(set(bases))
    for level in range(3):
        counts: dict[str, int] = {}
        for b in bases:  # a label is taken if any encoder would show it at this level
            lab = levels[b][level] if b in pending else labels[b]
            counts[lab] = counts.get(lab, 0) + 1
        still = []
        for b in pending:
            lab = levels[b][level]
            if counts[lab] == 1 and lab not in (labels[o] for o in labels):
                labels[b] = lab
            else:
                still.append(b)
        pending = still
    for b in pending:  # identical ids cannot happen; keep the id whatever
        labels[b] = b
    return labels


def _kind(base: str) -> str:
    return base.split("?", 1)[0].split(":", 1)[0].split("@", 1)[0]


def _fits(r: dict[str, Any]) -> dict[str, Any]:
    """How many fits the metric averages and what varied between them."""
    reps = r.get("repetitions")
    seeds = r.get("seeds") if isinstance(r.get("seeds"), list) else []
    if not isinstance(reps, dict):
        return {"n": len(seeds), "varies": None}
    fitted = reps.get("fitted") if isinstance(reps.get("fitted"), list) else seeds
    varies = reps.get("varies") if isinstance(reps.get("varies"), list) else None
    return {"n": len(fitted), "varies": varies}


def _fmt_fits(fits: dict[str, Any]) -> str:
    if fits["varies"] is None:
        return f"{fits['n']} (not recorded)"
    if not fits["varies"]:
        return f"{fits['n']} (nothing varies)"
    return f"{fits['n']} ({', '.join(fits['varies'])})"


def collect(results: list[dict[str, Any]], metric: str = "accuracy") -> dict[str, Any]:
    """Arrange results into rows (task, probe) × encoders. Two results for the same cell must
    agree; otherwise the report would silently show one of them."""
    labels = task_labels(results)
    multi_probe = len({probe_name(r) for r in results}) > 1
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    details: list[dict[str, Any]] = []
    curves: dict[str, dict[str, dict[float, dict[str, Any]]]] = {}
    for i, r in enumerate(results):
        metric_mean(r, metric)  # validates presence, raises with the file name
        row = f"{labels[i]} [{probe_name(r)}]" if multi_probe else labels[i]
        enc = encoder_key(r)
        m = _metric(r, metric)
        majority = _num((r.get("majority") or {}).get("accuracy"))
        control_acc, sel, reason = _selectivity(r)
        entry = {
            "dataset": dataset_display(r),
            "family": family(r),
            "task": labels[i],
            "task_type": r.get("task_type", "probing"),
            "probe": probe_name(r),
            "encoder": enc,
            "layer": r["encoder"].get("layer"),
            metric: m,
            "macro_f1": _metric(r, "macro_f1"),
            "majority": majority,
            "control_accuracy": control_acc,
            "selectivity": sel,
            "selectivity_reason": reason,
            "seeds": r.get("seeds"),
            "fits": _fits(r),
            "accuracy_mean": _metric(r, "accuracy")["mean"],
            "n_test": _n_test(r),
            "model_name": (r.get("encoder") or {}).get("model_name"),
            "source": source_of(r),
        }
        row_cells = cells.setdefault(row, {})
        if enc in row_cells:
            if row_cells[enc][metric] != m:
                raise InputError(
                    source_of(r),
                    None,
                    f"conflicts with {row_cells[enc]['source']}: same task {row}, encoder "
                    f"{enc}, different {metric}",
                    "conflicting-results",
                )
            continue
        row_cells[enc] = entry
        details.append(entry)
        layer = _layer_value(r["encoder"].get("layer"))
        if layer is not None:
            curves.setdefault(row, {}).setdefault(encoder_base(r), {})[layer] = m
    encoders = sorted({e for row in cells.values() for e in row})
    bases = sorted({_base_of(e, cells) for e in encoders})
    model_names = {
        _base_of(e, cells): c["model_name"]
        for row in cells.values()
        for e, c in row.items()
        if c["model_name"]
    }
    base_labels = short_labels(bases, model_names)
    labels = {}
    for row in cells.values():
        for e, entry in row.items():
            layer = entry["layer"]
            labels[e] = base_labels[_base_of(e, cells)] + ("" if layer is None else f"#{layer}")
    references = {
        row: {
            "majority": next(
                (c["majority"] for c in cells[row].values() if c["majority"] is not None), None
            ),
            "random": {
                labels[e]: c[metric]["mean"]
                for e, c in sorted(cells[row].items())
                if _kind(e) == "random" and c["layer"] is None and c[metric]["mean"] is not None
            },
        }
        for row in cells
    }
    curves = {
        row: {base: dict(sorted(pts.items())) for base, pts in sorted(per.items()) if len(pts) > 1}
        for row, per in sorted(curves.items())
    }
    curves = {row: per for row, per in curves.items() if per}
    for row in cells.values():
        _compare_with_baselines(row, labels)
    details.sort(key=lambda e: (e["dataset"], e["task"], e["probe"], e["encoder"]))
    row_info = {
        row: {
            "dataset": next(iter(cells[row].values()))["dataset"],
            "family": next(iter(cells[row].values()))["family"],
        }
        for row in cells
    }
    order = sorted(cells, key=lambda row: (row_info[row]["dataset"], row))
    return {
        "kind": "polyprobe-report",
        "schema_version": REPORT_SCHEMA_VERSION,
        "metric": metric,
        "rows": order,
        "row_info": row_info,
        "encoders": encoders,
        "cells": {row: {e: cells[row][e][metric] for e in sorted(cells[row])} for row in cells},
        "majority": {
            row: next(
                (c["majority"] for c in cells[row].values() if c["majority"] is not None), None
            )
            for row in sorted(cells)
        },
        "details": details,
        "labels": labels,
        "legend": {base_labels[b]: b for b in bases},
        "layer_curves": {
            row: {base: {_fmt_layer(k): v for k, v in pts.items()} for base, pts in per.items()}
            for row, per in curves.items()
        },
        "layer_curve_references": {row: references[row] for row in curves},
        "curve_labels": {
            base: base_labels[base]
            for per in curves.values()
            for base in per
            if base in base_labels
        },
    }


def _n_test(r: dict[str, Any]) -> int | None:
    """The rows the accuracy was scored on: the test split."""
    sizes = r.get("split_sizes")
    n = sizes.get("test") if isinstance(sizes, dict) else None
    return int(n) if isinstance(n, int) and not isinstance(n, bool) else None


def _compare_with_baselines(row: dict[str, dict[str, Any]], labels: dict[str, str]) -> None:
    """Each encoder of one row (dataset, task, probe) against the best baseline there: the
    majority class and the baseline encoders (``BASELINE_KINDS``). The difference in test
    accuracy is set against the smallest one the test split can detect
    (``cards.stats.detectable_difference``, the number the dataset card gives per config):
    a smaller difference is within what chance alone moves between two encoders."""
    candidates = [
        (labels[e], c["accuracy_mean"])
        for e, c in row.items()
        if _kind(e) in BASELINE_KINDS and c["accuracy_mean"] is not None
    ]
    majority = next((c["majority"] for c in row.values() if c["majority"] is not None), None)
    if majority is not None:
        candidates.append(("majority", majority))
    best = max(candidates, key=lambda t: (t[1], t[0]), default=None)
    for e, c in row.items():
        if _kind(e) in BASELINE_KINDS:
            c["vs_baseline"] = {"status": "baseline"}
            continue
        if best is None or c["accuracy_mean"] is None:
            c["vs_baseline"] = {"status": "no baseline in this row"}
            continue
        diff = c["accuracy_mean"] - best[1]
        detectable = detectable_difference(c["n_test"]) if c["n_test"] else None
        c["vs_baseline"] = {
            "status": "compared",
            "baseline": best[0],
            "baseline_accuracy": best[1],
            "difference": round(diff, 6),
            "n_test": c["n_test"],
            "detectable": None if detectable is None else round(detectable, 6),
            "exceeds_detectable": None if detectable is None else abs(diff) > detectable,
        }


def format_vs_baseline(vs: dict[str, Any] | None) -> str:
    """``+0.120 vs borep (> 0.050 detectable)``; within it: ``(≤ 0.050: not detectable)``."""
    if not vs:
        return "–"
    if vs["status"] == "baseline":
        return "baseline"
    if vs["status"] != "compared":
        return "–"
    head = f"{vs['difference']:+.3f} vs {vs['baseline']}"
    if vs["detectable"] is None:
        return f"{head} (test size not recorded)"
    if vs["exceeds_detectable"]:
        return f"{head} (> {vs['detectable']:.3f} detectable)"
    return f"{head} (≤ {vs['detectable']:.3f}: not detectable)"


def _base_of(encoder_key: str, cells: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The encoder id without its layer, from a cell's recorded layer."""
    for row in cells.values():
        entry = row.get(encoder_key)
        if entry is not None:
            layer = entry["layer"]
            suffix = f"#{layer}"
            if layer is not None and encoder_key.endswith(suffix):
                return encoder_key[: -len(suffix)]
            return encoder_key
    return encoder_key


def _fmt_layer(layer: float) -> str:
    return str(int(layer))


def _fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def format_score(m: dict[str, Any] | None) -> str:
    """``mean ± std [lo, hi]``; parts that were not recorded are left out."""
    if not m or m.get("mean") is None:
        return "–"
    text = _fmt(m["mean"])
    if m.get("std") is not None:
        text += f" ± {_fmt(m['std'])}"
    if m.get("ci95"):
        text += f" [{_fmt(m['ci95'][0])}, {_fmt(m['ci95'][1])}]"
    return text


def _esc(text: str) -> str:
    return text.replace("|", "\\|")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
    return lines


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "task"


def _reason_notes(details: list[dict[str, Any]]) -> dict[str, int]:
    """Each distinct n/a reason, numbered in order of first appearance."""
    notes: dict[str, int] = {}
    for d in details:
        if d["selectivity"] is None:
            notes.setdefault(d["selectivity_reason"], len(notes) + 1)
    return notes


def report_markdown(data: dict[str, Any], figures: dict[str, Any]) -> str:
    metric = data["metric"]
    labels = data.get("labels") or {e: e for e in data["encoders"]}
    lines = [
        "# polyprobe evaluation report",
        "",
        f"## {metric}: tasks × encoders",
        "",
        f"Cells: mean ± std over seeds [bootstrap 95% CI] of test {metric}; no ± where the "
        "probe was fitted once because nothing varies across seeds. `majority`: the "
        "train-majority class scored on test. Encoder labels: see the legend below.",
        "",
    ]
    info = data.get("row_info") or {}
    rows = [
        [
            (info.get(row) or {}).get("dataset") or "–",
            (info.get(row) or {}).get("family") or "–",
            row,
            _fmt(data["majority"][row]),
            *[format_score(data["cells"][row].get(e)) for e in data["encoders"]],
        ]
        for row in data["rows"]
    ]
    header = ["dataset", "family", "task", "majority", *[labels[e] for e in data["encoders"]]]
    lines += _table(header, rows)
    lines += ["", "Encoders:", ""]
    lines += _table(
        ["label", "encoder id"],
        [[f"`{lab}`", f"`{full}`"] for lab, full in sorted(data.get("legend", {}).items())],
    )
    lines += [
        "",
        "## Per result, with controls",
        "",
        "Selectivity = accuracy − control-task accuracy (Hewitt & Liang 2019); `n/a [k]` where "
        "the evaluation recorded no applicable control, its reason `[k]` listed under the "
        "table. `fits`: how many fits the score averages and what varied between them. "
        "`vs best baseline`: test accuracy minus the best baseline's on the same dataset, "
        "task and probe (majority class, random, borep, char-ngrams), set against the "
        "smallest difference the test split can detect (two-proportion test, α = 0.05, "
        "power 0.8, the dataset card's number): a smaller difference is not evidence that "
        "the encoder beats the baseline.",
        "",
    ]
    notes = _reason_notes(data["details"])
    detail_rows = []
    for d in data["details"]:
        sel = (
            _fmt(d["selectivity"])
            if d["selectivity"] is not None
            else f"n/a [{notes[d['selectivity_reason']]}]"
        )
        fits = d.get("fits") or {"n": len(d.get("seeds") or []), "varies": None}
        detail_rows.append(
            [
                d.get("dataset") or "–",
                d.get("family") or "–",
                d["task"],
                d["probe"],
                labels.get(d["encoder"], d["encoder"]),
                format_score(d[metric]),
                format_score(d["macro_f1"]),
                _fmt(d["majority"]),
                _fmt(d["control_accuracy"]),
                sel,
                _fmt_fits(fits),
                format_vs_baseline(d.get("vs_baseline")),
            ]
        )
    lines += _table(
        [
            "dataset",
            "family",
            "task",
            "probe",
            "encoder",
            metric,
            "macro-F1",
            "majority",
            "control",
            "selectivity",
            "fits",
            "vs best baseline",
        ],
        detail_rows,
    )
    if notes:
        lines += ["", "Why selectivity is n/a:", ""]
        for reason, k in notes.items():
            n = sum(1 for d in data["details"] if d["selectivity_reason"] == reason)
            lines.append(f"- [{k}] {reason} ({n} result{'s' if n > 1 else ''})")
    lines += ["", "## Figures", "", f"- Heatmap: `{figures['heatmap']}`"]
    if figures["layer_curves"]:
        refs = data.get("layer_curve_references", {})
        for row, name in figures["layer_curves"].items():
            ref = refs.get(row, {})
            drawn = []
            if ref.get("majority") is not None:
                drawn.append(f"majority {_fmt(ref['majority'])}")
            drawn += [f"{lab} {_fmt(v)}" for lab, v in ref.get("random", {}).items()]
            extra = f" (reference lines: {', '.join(drawn)})" if drawn else ""
            lines.append(f"- Per-layer curve, {row}: `{name}`{extra}")
    else:
        lines.append("- Per-layer curves: none (no encoder was evaluated at several layers).")
    return "\n".join(lines) + "\n"


def heatmap(data: dict[str, Any], path: str | Path) -> None:
    """Tasks × encoders heatmap of the mean metric."""
    import matplotlib
    import matplotlib.style
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, encs = data["rows"], data["encoders"]
    values = np.full((max(len(rows), 1), max(len(encs), 1)), np.nan)
    for i, row in enumerate(rows):
        for j, e in enumerate(encs):
            m = data["cells"][row].get(e)
            if m and m.get("mean") is not None:
                values[i, j] = m["mean"]
    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = Figure(
            figsize=(max(4.5, 0.9 * len(encs) + 3.5), max(3.0, 0.45 * len(rows) + 2.2)), dpi=100
        )
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        im = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
        labels = data.get("labels") or {}
        ax.set_xticks(range(len(encs)))
        ax.set_xticklabels([labels.get(e, e) for e in encs], rotation=35, ha="right", fontsize=7)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(rows, fontsize=8)
        for i in range(len(rows)):
            for j in range(len(encs)):
                if not np.isnan(values[i, j]):
                    color = "black" if values[i, j] > 0.6 else "white"
                    ax.text(
                        j,
                        i,
                        f"{values[i, j]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color=color,
                    )
        ax.set_title(f"test {data['metric']} (mean over seeds)", fontsize=9)
        fig.colorbar(im, ax=ax)
        _save(fig, path)


def layer_curve(
    row: str,
    per_encoder: dict[str, dict[float, dict[str, Any]]],
    metric: str,
    path: str | Path,
    references: dict[str, Any] | None = None,
    labels: dict[str, str] | None = None,
) -> None:
    """Metric against layer for each encoder of one task; the CI as a shaded band; the
    majority baseline and the random encoders as horizontal reference lines."""
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.4, 4.0), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        for base, pts in per_encoder.items():
            xs = [x for x, m in pts.items() if m.get("mean") is not None]
            ys = [pts[x]["mean"] for x in xs]
            ax.plot(xs, ys, marker="o", label=(labels or {}).get(base, base))
            ci = [(x, pts[x]["ci95"]) for x in xs if pts[x].get("ci95")]
            if len(ci) == len(xs) and xs:
                ax.fill_between(xs, [c[0] for _, c in ci], [c[1] for _, c in ci], alpha=0.2)
        refs = references or {}
        if refs.get("majority") is not None:
            ax.axhline(refs["majority"], color="0.4", linestyle=":", label="majority")
        for k, (lab, value) in enumerate(sorted(refs.get("random", {}).items())):
            ax.axhline(value, color=f"C{7 + k % 3}", linestyle="--", label=lab)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("layer")
        ax.set_ylabel(f"test {metric}")
        ax.set_title(row, fontsize=9)
        ax.legend(fontsize=7)
        _save(fig, path)


def _save(fig: Any, path: str | Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
        fig.savefig(Path(path), format="png", dpi=100, metadata=_PNG_METADATA)


def report(
    results: list[dict[str, Any]], out_dir: str | Path, *, metric: str = "accuracy"
) -> dict[str, Any]:
    """Write the report files into ``out_dir``; return their paths by kind."""
    if not results:
        raise InputError(str(out_dir), None, "no results to report", "no-results")
    data = collect(results, metric)
    data["group_means"] = group_means(results, metric)  # evaluation/groups.py
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"heatmap": "heatmap.png", "layer_curves": {}}
    heatmap(data, out / "heatmap.png")
    used: set[str] = set()
    for row, per in data_curves(data).items():
        name = f"layers-{slug(row)}.png"
        k = 2
        while name in used:  # two rows may slug to the same name
            name = f"layers-{slug(row)}-{k}.png"
            k += 1
        used.add(name)
        layer_curve(
            row,
            per,
            metric,
            out / name,
            data["layer_curve_references"].get(row),
            data["curve_labels"],
        )
        figures["layer_curves"][row] = name
    markdown = report_markdown(data, figures)
    groups = groups_markdown(data["group_means"], data.get("labels"))
    (out / "report.md").write_text(markdown + ("\n" + groups if groups else ""), encoding="utf-8")
    data["figures"] = figures
    (out / "report.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return {
        "markdown": out / "report.md",
        "json": out / "report.json",
        "heatmap": out / "heatmap.png",
        "layer_curves": [out / n for n in figures["layer_curves"].values()],
    }


def data_curves(data: dict[str, Any]) -> dict[str, dict[str, dict[float, dict[str, Any]]]]:
    """Layer curves with numeric layers again (JSON keeps them as strings)."""
    return {
        row: {base: {float(k): v for k, v in pts.items()} for base, pts in per.items()}
        for row, per in data["layer_curves"].items()
    }
