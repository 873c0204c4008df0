"""``polyprobe translate``: argparse only at import (the command's modules load when it runs)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_translate_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "translate",
        help="translate a dataset's text columns into a translation file",
        description="Translate every distinct text of a dataset folder (its parquet files' "
        "sentence/sentence1/sentence2/text columns, or --columns) or of a text file (one per "
        "line) with a translator, in batches, cached by (translator, text) so an interrupted "
        "run resumes. Writes OUT as id<TAB>source<TAB>text and OUT.json with the provenance; "
        "build trec --translation OUT reads it. Nothing is downloaded.",
    )
    p.add_argument("dataset", type=Path, metavar="DATASET", help="dataset folder or text file")
    p.add_argument(
        "--translator",
        required=True,
        help="a Python callable list[str] -> list[str] as module:function, or the folder of a "
        "local transformers translation model (MarianMT, NLLB)",
    )
    p.add_argument("--out", type=Path, required=True, help="the translation file (TSV) to write")
    p.add_argument("--source-lang", default="en", help="source language (NLLB: eng_Latn style)")
    p.add_argument("--target-lang", default="", help="target language (NLLB: deu_Latn style)")
    p.add_argument("--columns", default=None, help="text columns to translate (comma-separated)")
    p.add_argument("--config", action="append", default=None, help="only these configs")
    p.add_argument("--batch-size", type=int, default=16, help="texts per call (default 16)")
    p.add_argument(
        "--split-token",
        nargs="?",
        const="9876543210",
        default=None,
        help="send each batch as ONE text joined by this numeric token (Wehner 2019; default "
        "token 9876543210); a batch whose token is mangled is retried text by text",
    )
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="cache folder (default $POLYPROBE_CACHE/translations)",
    )
    p.add_argument("--device", default=None, help="torch device for a local model (default cpu)")
    p.add_argument(
        "--sample-creation",
        choices=("machine-translated", "human-translated"),
        default="machine-translated",
    )
    p.set_defaults(func=_run_translate)


def _run_translate(args: argparse.Namespace) -> int:
    from polyprobe.translate.run import translate_dataset
    from polyprobe.translate.translators import load_translator

    translator = load_translator(
        args.translator,
        source_lang=args.source_lang if Path(args.translator).is_dir() else None,
        target_lang=args.target_lang or None if Path(args.translator).is_dir() else None,
        device=args.device,
    )
    report = translate_dataset(
        args.dataset,
        translator,
        args.out,
        columns=[c.strip() for c in args.columns.split(",")] if args.columns else None,
        configs=args.config,
        cache_dir=args.cache,
        batch_size=args.batch_size,
        split_token=args.split_token,
        source_lang=args.source_lang,
        target_lang=args.target_lang,
        sample_creation=args.sample_creation,
    )
    print(
        f"translated {report.translated} of {report.texts} distinct texts "
        f"({report.cached} from the cache; {report.stats.fallback_batches} batch(es) retried "
        f"text by text) with {translator.id}\nwrote {report.out} and {report.out.name}.json"
    )
    return 0
