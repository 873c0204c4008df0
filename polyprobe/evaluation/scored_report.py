"""The report's section for scored sentence pairs (STS, SICK-R: ``build regression``).

Why a section of its own: such a result has no accuracy, no majority class and no control
task — its numbers are correlations with the gold scores (``scored_pairs.py``). The probing
table (``report.py``) is built around accuracy and selectivity; a scored result there was
refused (``missing metrics.accuracy.mean``), so ``polyprobe report`` could not read a folder
that ``polyprobe evaluate`` had just written. Here each result is one row: the test split's
Spearman and Pearson of the result's probe (the SICK-R regression head when the config has a
train split, else the cosine), the cosine STS beside it, and the head's MSE.

SentEval's STS12-16 are read one subset per config (``sts14-headlines``, ...); SentEval reports
each year as ``all``: the mean and the pair-weighted mean (``wmean``) of the subsets' Pearson
and Spearman. :func:`sts_years` computes those from the subsets' rows, so a table that quotes
SentEval's STS numbers has them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
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


_STS_SUBSET = re.compile(r"^(sts\d\d)-.+$")


def sts_years(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """SentEval's ``all`` per STS year (configs ``stsNN-<subset>``) and dataset, encoder and
    probe: the subsets' mean and pair-weighted mean Pearson and Spearman
    (``senteval/sts.py``: ``np.average(..., weights=nsamples)``). A subset without a number or
    a pair count is left out of both means, and the count of subsets says so."""
    by_year: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        match = _STS_SUBSET.match(row["config"])
        if match:
            by_year[(row["dataset"], match.group(1), row["encoder"], row["probe"])].append(row)
    out = []
    for (dataset, year, encoder, probe), members in sorted(by_year.items()):
        usable = [
            m for m in members
            if m["pearson"] is not None and m["spearman"] is not None and m["n_test"]
        ]  # fmt: skip
        entry: dict[str, Any] = {
            "dataset": dataset,
            "year": year,
            "encoder": encoder,
            "model_name": members[0]["model_name"],
            "probe": probe,
            "subsets": len(usable),
            "subsets_found": len(members),
            "pairs": sum(int(m["n_test"]) for m in usable),
        }
        for metric in ("pearson", "spearman"):
            values = [float(m[metric]) for m in usable]
            weights = [int(m["n_test"]) for m in usable]
            entry[f"{metric}_mean"] = sum(values) / len(values) if values else None
            entry[f"{metric}_wmean"] = (
                sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
                if values
                else None
            )
        out.append(entry)
    return out


def sts_years_markdown(years: list[dict[str, Any]]) -> str:
    """The SentEval ``all`` table under the scored section ("" when no STS year is there)."""
    if not years:
        return ""
    header = ["dataset", "year", "encoder", "probe", "subsets", "pairs", "Pearson mean",
              "Pearson wmean", "Spearman mean", "Spearman wmean"]  # fmt: skip
    lines = [
        "### SentEval STS years (`all`: mean and pair-weighted mean over the subsets)",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for y in years:
        subsets = str(y["subsets"])
        if y["subsets"] != y["subsets_found"]:
            subsets += f" of {y['subsets_found']}"
        cells = [y["dataset"], y["year"], y["encoder"], y["probe"], subsets, str(y["pairs"]),
                 _f(y["pearson_mean"]), _f(y["pearson_wmean"]), _f(y["spearman_mean"]),
                 _f(y["spearman_wmean"])]  # fmt: skip
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


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
    years = sts_years_markdown(sts_years(rows))
    return "\n".join(lines) + "\n" + ("\n" + years if years else "")


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
        "sts_years": sts_years(rows),
    }
    path = out / "scored-report.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
