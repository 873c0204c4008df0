"""Human-readable reports from results JSON: the tables and figures a paper needs.

``report(results, out_dir)`` writes

- ``report.md``: a tasks × encoders table (mean ± std over seeds and the bootstrap 95% CI of
  the chosen metric, plus the majority baseline) and a per-result table with macro-F1, the
  control accuracy and **selectivity** — or ``n/a`` with the reason the evaluation recorded,
  because a selectivity computed where no recurring control key exists is meaningless;
- ``heatmap.png``: the same tasks × encoders matrix as a heatmap;
- ``layers-<task>.png``: accuracy against layer for every encoder evaluated at several layers
  (the layer-wise probing curve);
- ``report.json``: the numbers behind all of the above.

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

from polyprobe.errors import InputError
from polyprobe.evaluation.correlate import (
    encoder_base,
    encoder_key,
    metric_mean,
    probe_name,
    source_of,
    task_labels,
)

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
    curves = {
        row: {base: dict(sorted(pts.items())) for base, pts in sorted(per.items()) if len(pts) > 1}
        for row, per in sorted(curves.items())
    }
    curves = {row: per for row, per in curves.items() if per}
    details.sort(key=lambda e: (e["task"], e["probe"], e["encoder"]))
    return {
        "kind": "polyprobe-report",
        "schema_version": REPORT_SCHEMA_VERSION,
        "metric": metric,
        "rows": sorted(cells),
        "encoders": encoders,
        "cells": {row: {e: cells[row][e][metric] for e in sorted(cells[row])} for row in cells},
        "majority": {
            row: next(
                (c["majority"] for c in cells[row].values() if c["majority"] is not None), None
            )
            for row in sorted(cells)
        },
        "details": details,
        "layer_curves": {
            row: {base: {_fmt_layer(k): v for k, v in pts.items()} for base, pts in per.items()}
            for row, per in curves.items()
        },
    }


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


def report_markdown(data: dict[str, Any], figures: dict[str, Any]) -> str:
    metric = data["metric"]
    lines = [
        "# polyprobe evaluation report",
        "",
        f"## {metric}: tasks × encoders",
        "",
        f"Cells: mean ± std over seeds [bootstrap 95% CI] of test {metric}. `majority`: the "
        "train-majority class scored on test.",
        "",
    ]
    rows = [
        [
            row,
            _fmt(data["majority"][row]),
            *[format_score(data["cells"][row].get(e)) for e in data["encoders"]],
        ]
        for row in data["rows"]
    ]
    lines += _table(["task", "majority", *data["encoders"]], rows)
    lines += [
        "",
        "## Per result, with controls",
        "",
        "Selectivity = accuracy − control-task accuracy (Hewitt & Liang 2019); `n/a` where the "
        "evaluation recorded no applicable control, with its reason.",
        "",
    ]
    detail_rows = []
    for d in data["details"]:
        sel = (
            _fmt(d["selectivity"])
            if d["selectivity"] is not None
            else f"n/a ({d['selectivity_reason']})"
        )
        detail_rows.append(
            [
                d["task"],
                d["probe"],
                d["encoder"],
                format_score(d[metric]),
                format_score(d["macro_f1"]),
                _fmt(d["majority"]),
                _fmt(d["control_accuracy"]),
                sel,
            ]
        )
    lines += _table(
        ["task", "probe", "encoder", metric, "macro-F1", "majority", "control", "selectivity"],
        detail_rows,
    )
    lines += ["", "## Figures", "", f"- Heatmap: `{figures['heatmap']}`"]
    if figures["layer_curves"]:
        for row, name in figures["layer_curves"].items():
            lines.append(f"- Per-layer curve, {row}: `{name}`")
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
        ax.set_xticks(range(len(encs)))
        ax.set_xticklabels(encs, rotation=35, ha="right", fontsize=7)
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
    row: str, per_encoder: dict[str, dict[float, dict[str, Any]]], metric: str, path: str | Path
) -> None:
    """Metric against layer for each encoder of one task; the CI as a shaded band."""
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
            ax.plot(xs, ys, marker="o", label=base)
            ci = [(x, pts[x]["ci95"]) for x in xs if pts[x].get("ci95")]
            if len(ci) == len(xs) and xs:
                ax.fill_between(xs, [c[0] for _, c in ci], [c[1] for _, c in ci], alpha=0.2)
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
        layer_curve(row, per, metric, out / name)
        figures["layer_curves"][row] = name
    (out / "report.md").write_text(report_markdown(data, figures), encoding="utf-8")
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
