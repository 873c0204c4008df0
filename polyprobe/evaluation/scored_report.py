"""The report's section for scored sentence pairs (STS, SICK-R: ``build regression``).

Why a section of its own: such a result has no accuracy, no majority class and no control
task — its numbers are correlations with the gold scores (``scored_pairs.py``). The probing
table (``report.py``) is built around accuracy and selectivity; a scored result there was
refused (``missing metrics.accuracy.mean``), so ``polyprobe report`` could not read a folder
that ``polyprobe evaluate`` had just written. Here each result is one row: the test split's
Spearman and Pearson of the result's probe (the SICK-R regression head when the config has a
train split, else the cosine), the cosine STS beside it, and the head's MSE.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from polyprobe.evaluation.correlate import dataset_display, encoder_key, family, source_of

SCORED_REPORT_SCHEMA_VERSION = 1


def is_scored_result(result: dict[str, Any]) -> bool:
    """A scored sentence-pair result: correlations, no accuracy."""
    metrics = result.get("metrics")
    return (
        isinstance(metrics, dict)
        and "accuracy" not in metrics
        and "spearman" in metrics
        and "pearson" in metrics
    )


def _num(block: Any, key: str = "mean") -> float | None:
    value = block.get(key) if isinstance(block, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def scored_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The numbers of each result, sorted by dataset, config and encoder."""
    rows = []
    for r in results:
        m = r["metrics"]
        cosine = m.get("sts_cosine") if isinstance(m.get("sts_cosine"), dict) else {}
        head = m.get("regression") if isinstance(m.get("regression"), dict) else {}
        enc = r.get("encoder") or {}
        rows.append(
            {
                "dataset": dataset_display(r),
                "family": family(r),
                "config": str(r.get("config", "")),
                "encoder": encoder_key(r),
                "model_name": enc.get("model_name"),
                "probe": str((r.get("probe") or {}).get("name", "")),
                "spearman": _num(m.get("spearman")),
                "pearson": _num(m.get("pearson")),
                "cosine_spearman": _num(cosine, "spearman"),
                "cosine_pearson": _num(cosine, "pearson"),
                "mse": _num(head, "mse"),
                "n_test": (r.get("split_sizes") or {}).get("test"),
                "source": source_of(r),
            }
        )
    rows.sort(key=lambda e: (e["dataset"], e["config"], e["encoder"]))
    return rows


def scored_markdown(rows: list[dict[str, Any]]) -> str:
    """The ``## Scored sentence pairs`` section of ``report.md``."""

    def encoder(row: dict[str, Any]) -> str:
        name = row["model_name"]
        return f"{row['encoder'].split(':', 1)[0]}:{name}" if name else row["encoder"]

    header = ["dataset", "family", "config", "encoder", "probe", "Spearman", "Pearson",
              "cosine Spearman", "cosine Pearson", "MSE", "test pairs"]  # fmt: skip
    body = [
        [
            row["dataset"],
            row["family"] or "–",
            row["config"],
            encoder(row),
            row["probe"],
            _f(row["spearman"]),
            _f(row["pearson"]),
            _f(row["cosine_spearman"]),
            _f(row["cosine_pearson"]),
            _f(row["mse"]),
            "–" if row["n_test"] is None else str(row["n_test"]),
        ]
        for row in rows
    ]
    lines = [
        "## Scored sentence pairs (STS, SICK-R)",
        "",
        "Test-split Spearman and Pearson correlation with the gold scores. `probe`: `sick-r` "
        "is SentEval's SICK-R regression head on the pair features (fitted on train, its "
        "penalty chosen on validation), `cosine` the unsupervised cosine of the two sentence "
        "vectors (a config without a train split); the cosine's correlations are shown for "
        "every result. `MSE`: the regression head's, on the gold scale.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def write_scored_report(
    results: list[dict[str, Any]], out_dir: str | Path, *, append: bool = False
) -> Path:
    """``report.md`` with the scored section (appended to a report already written by this
    command when ``append``) and ``scored-report.json`` with the numbers behind it."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = scored_rows(results)
    md = out / "report.md"
    body = scored_markdown(rows)
    if append and md.is_file():
        md.write_text(md.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + body, "utf-8")
    else:
        md.write_text("# polyprobe evaluation report\n\n" + body, encoding="utf-8")
    data = {
        "kind": "polyprobe-scored-report",
        "schema_version": SCORED_REPORT_SCHEMA_VERSION,
        "rows": rows,
    }
    path = out / "scored-report.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
