"""CLI hooks for ``polyprobe correlate`` and ``polyprobe report``.

Only argparse is imported here: ``polyprobe --help`` builds every parser, so anything heavier
(pyarrow, scipy, matplotlib) is imported inside the run functions. Each run function returns
the exit code: 0 ok, 1 a check failed (nothing could be correlated), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
METRICS = ("accuracy", "macro_f1")


def _fail(exc: Exception) -> int:
    print(f"polyprobe: error: {exc}", file=sys.stderr)
    return int(getattr(exc, "exit_code", EXIT_USAGE))


# --------------------------------------------------------------------------- correlate


def add_correlate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """``polyprobe correlate RESULTS... [--out DIR] [--metric M]``."""
    p = subparsers.add_parser(
        "correlate",
        help="probing–downstream correlation across encoders",
        description="Spearman and Pearson correlation between probing and downstream scores, "
        "per language and probe, across models (one point per model: its best layer, or "
        "--model-layer N) and across encoders (id + layer). Layers of one model are not "
        "independent: where a model contributes several layers, p-values come from the "
        "per-model correlation, and the output says which was used. p-values only with at "
        "least 5 independent points; fewer is reported as descriptive. Prints markdown; with "
        "--out also writes correlation.json, correlation.md and heatmap PNGs. Exit 1 when no "
        "probing × downstream pair shares enough encoders to correlate.",
    )
    p.add_argument("results", nargs="+", type=Path, help="results JSON files or folders")
    p.add_argument("--out", type=Path, default=None, help="folder for JSON, markdown and PNGs")
    p.add_argument("--metric", choices=METRICS, default="accuracy")
    p.add_argument(
        "--model-layer",
        default="best",
        metavar="best|N",
        help="which layer stands for a model in the per-model correlation: its best layer on "
        "each task (default) or layer N",
    )
    p.set_defaults(func=run_correlate)
    return p


def run_correlate(args: argparse.Namespace) -> int:
    from polyprobe.errors import PolyprobeError
    from polyprobe.evaluation.correlate import (
        correlate,
        correlation_markdown,
        n_computed,
        what_to_add,
        write_correlation,
    )
    from polyprobe.evaluation.report_inputs import read_inputs
    from polyprobe.outputs import output_folder

    try:
        if args.out is not None:
            output_folder(args.out)
        results, lexical = read_inputs(args.results)
        if not results:
            print(
                f"polyprobe: error: only lexical results ({len(lexical)}): correlate pairs "
                "probing with downstream results; `polyprobe report` tabulates lexical ones",
                file=sys.stderr,
            )
            return EXIT_USAGE
        corr = correlate(results, metric=args.metric, model_layer=args.model_layer)
        written = write_correlation(corr, args.out) if args.out is not None else []
    except PolyprobeError as exc:
        return _fail(exc)
    print(correlation_markdown(corr), end="")
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    if n_computed(corr) == 0:
        print(
            "polyprobe: no probing × downstream pair shares enough encoders to correlate",
            file=sys.stderr,
        )
        for line in what_to_add(corr):
            print(f"polyprobe: to add: {line}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# --------------------------------------------------------------------------- report


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """``polyprobe report RESULTS... --out DIR [--metric M]``."""
    p = subparsers.add_parser(
        "report",
        help="tables and plots from results JSON",
        description="Write report.md (tasks × encoders: mean ± std [95% CI], majority "
        "baseline, selectivity or why not), report.json, a task × encoder heatmap and "
        "per-layer curves (PNG) into --out. Scored sentence pairs (STS, SICK-R) get a table "
        "of test Spearman and Pearson (scored-report.json), lexical sets their own tables "
        "(lexical-report.json).",
    )
    p.add_argument("results", nargs="+", type=Path, help="results JSON files or folders")
    p.add_argument("--out", required=True, type=Path, help="folder to write the report into")
    p.add_argument(
        "--metric",
        choices=METRICS,
        default="accuracy",
        help="the probing table's metric (default accuracy); scored pairs always show "
        "Spearman and Pearson",
    )
    p.set_defaults(func=run_report)
    return p


def run_report(args: argparse.Namespace) -> int:
    from polyprobe.errors import PolyprobeError
    from polyprobe.evaluation.downstream.report import write_downstream_report
    from polyprobe.evaluation.downstream.run import is_downstream_result
    from polyprobe.evaluation.lexical.report import write_lexical_report
    from polyprobe.evaluation.report import report
    from polyprobe.evaluation.report_inputs import read_inputs
    from polyprobe.evaluation.scored_report import is_scored_result, write_scored_report
    from polyprobe.outputs import output_folder

    try:
        output_folder(args.out)
        results, lexical = read_inputs(args.results)  # at least one, or a one-line error
        downstream = [r for r in results if is_downstream_result(r)]
        results = [r for r in results if not is_downstream_result(r)]
        probing = [r for r in results if not is_scored_result(r)]
        scored = [r for r in results if is_scored_result(r)]
        written: list[str] = []
        if probing:  # the tasks × encoders table, heatmap, curves
            paths = report(probing, args.out, metric=args.metric)
            written += [str(paths["markdown"]), str(paths["json"]), str(paths["heatmap"])]
            n_curves = len(paths["layer_curves"])
            if n_curves:
                written.append(f"{n_curves} per-layer curve(s)")
        if scored:  # STS, SICK-R: correlations, their own table
            path = write_scored_report(scored, args.out, append=bool(probing))
            written += [] if probing else [str(args.out / "report.md")]
            written.append(str(path))
        if lexical:
            write_lexical_report(lexical, args.out, append=bool(probing or scored))
            written += [] if probing or scored else [str(args.out / "report.md")]
            written.append(str(args.out / "lexical-report.json"))
        if downstream:  # --probe tagger|parser: their own table
            before = bool(probing or scored or lexical)
            path = write_downstream_report(downstream, args.out, append=before)
            written += [] if before else [str(args.out / "report.md")]
            written.append(str(path))
    except PolyprobeError as exc:
        return _fail(exc)
    head, last = written[:-1], written[-1]
    print(f"wrote {', '.join(head)} and {last}" if head else f"wrote {last}")
    return EXIT_OK
