"""The report's table for downstream models (``--probe tagger|parser``): one row per result,
the test metrics with their CIs. Why a table of its own: these results have no majority
class, control task or selectivity, the probing table's columns, and their headline metric
is LAS or span F1 rather than accuracy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from polyprobe.evaluation.correlate import dataset_display, encoder_key, family

DOWNSTREAM_REPORT_SCHEMA_VERSION = 1
METRICS = ("token_accuracy", "span_f1", "uas", "las")


def downstream_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        m = r.get("metrics") or {}
        enc = r.get("encoder") or {}
        rows.append({
            "dataset": dataset_display(r), "family": family(r), "config": str(r.get("config", "")),
            "encoder": encoder_key(r), "model_name": enc.get("model_name"),
            "model": str((r.get("probe") or {}).get("name", "")), "headline": r.get("headline"),
            **{k: m[k] for k in METRICS if isinstance(m.get(k), dict)},
            "test_sentences": (r.get("split_sizes") or {}).get("test"),
            "epochs": [t.get("epochs") for t in r.get("training") or []],
        })  # fmt: skip
    rows.sort(key=lambda e: (e["dataset"], e["config"], e["model"], e["encoder"]))
    return rows


def _cell(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("mean") is None:
        return "–"
    lo, hi = metric.get("ci95") or (None, None)
    ci = f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""
    return f"{metric['mean']:.3f}{ci}"


def downstream_markdown(rows: list[dict[str, Any]]) -> str:
    header = ["dataset", "config", "model", "encoder", "POS/token accuracy", "span F1", "UAS",
              "LAS", "test sentences", "epochs"]  # fmt: skip
    lines = [
        "## Downstream models (LINSPECTOR's tagger and parser)",
        "",
        "Test metrics, seed mean [95% CI resampling test sentences]: token accuracy (POS), "
        "conlleval span F1 (NER), UAS/LAS (parse, punctuation included).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in rows:
        enc = (
            f"{row['encoder'].split(':', 1)[0]}:{row['model_name']}"
            if row["model_name"]
            else row["encoder"]
        )
        cells = [row["dataset"], row["config"], row["model"], enc,
                 *(_cell(row.get(k)) for k in METRICS),
                 str(row["test_sentences"]), ",".join(str(e) for e in row["epochs"])]  # fmt: skip
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_downstream_report(
    results: list[dict[str, Any]], out_dir: str | Path, *, append: bool = False
) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = downstream_rows(results)
    md = out / "report.md"
    body = downstream_markdown(rows)
    if append and md.is_file():
        md.write_text(md.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + body, "utf-8")
    else:
        md.write_text("# polyprobe evaluation report\n\n" + body, encoding="utf-8")
    path = out / "downstream-report.json"
    data = {"kind": "polyprobe-downstream-report", "schema_version": DOWNSTREAM_REPORT_SCHEMA_VERSION,
            "rows": rows}  # fmt: skip
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
