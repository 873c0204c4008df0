"""``polyprobe build unimorph``: the CLI hook of the word-level suite.

Only argparse is imported at module level (``polyprobe --help`` must stay quick); the build
imports its heavy modules when it runs. The lead wires :func:`add_build_unimorph_parser` into
``polyprobe/cli.py`` next to ``build ud``, whose common options it reuses.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0


def add_build_unimorph_parser(build_subparsers: Any) -> argparse.ArgumentParser:
    """Add ``unimorph`` to the ``build`` subcommands; returns the new parser."""
    from polyprobe.cli import _add_common_build_options

    p = build_subparsers.add_parser(
        "unimorph",
        help="word-level probing tasks (LINSPECTOR's suite) from a UniMorph lexicon",
        description="Build LINSPECTOR's type-level word tasks (case, gender, mood, number, "
        "person, polarity, possession, tense, voice, pos, tag_count, character_bin, pseudo, "
        "same_feature, odd_feature) for one language from UniMorph files. Several files form "
        "one lexicon (SIGMORPHON's train/dev/test are merged and re-split). Word forms never "
        "occur in two splits; '-lemma-disjoint' configs keep every lemma in one split.",
    )
    p.add_argument(
        "paths", nargs="+", type=Path, help="UniMorph files or folders (one lexicon, merged)"
    )
    _add_common_build_options(p)
    p.add_argument(
        "--layout",
        default=None,
        help="column order of every file: lemma-form-feats (UniMorph 2-4, SIGMORPHON 2018) or "
        "lemma-feats-form (SIGMORPHON 2023); default: detected per file",
    )
    p.add_argument(
        "--frequencies",
        nargs="+",
        default=None,
        type=Path,
        metavar="FILE|UD_PATH",
        help="word lists (word per line, or word TAB count) and/or UD treebanks: sample 80%% "
        "frequent / 20%% rare forms",
    )
    wuggy = p.add_mutually_exclusive_group()
    wuggy.add_argument(
        "--wuggy-lexicon",
        type=Path,
        default=None,
        help="syllabified lexicon (word TAB syl-la-bles TAB freq): generate pseudowords offline",
    )
    wuggy.add_argument(
        "--wuggy-output", type=Path, default=None, help="an existing Wuggy output table"
    )
    p.add_argument(
        "--wuggy-max-seeds",
        type=int,
        default=10_000,
        help="seed words for generation (~0.34 s each; default 10000)",
    )
    p.add_argument(
        "--min-forms",
        type=int,
        default=None,
        help="forms a task needs and takes (default 10000, LINSPECTOR); with --scale, the "
        "floor of the derived size (default 1000)",
    )
    p.add_argument(
        "--split-sizes",
        default="7000,2000,1000",
        help="train,validation,test rows (default 7000,2000,1000); with --scale, proportions",
    )
    p.add_argument(
        "--scale",
        action="store_true",
        help="derive sizes from the data: 50%% of the forms carrying a feature (floor "
        "--min-forms or 1000), split in the --split-sizes proportions",
    )
    p.add_argument(
        "--tasks", default="", help="comma-separated task names (default: LINSPECTOR's 15)"
    )
    p.add_argument(
        "--license",
        action="append",
        default=[],
        metavar="SRC=ID",
        help="override a source's licence (source = folder or file name, e.g. "
        "sigmorphon2018=CC-BY-SA-3.0)",
    )
    p.add_argument(
        "--allow-license-mix",
        action="store_true",
        help="allow merging NonCommercial and ShareAlike sources (recorded in the card)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress messages")
    p.set_defaults(func=run_build_unimorph)
    return p


def parse_split_sizes(text: str) -> tuple[int, int, int]:
    """``7000,2000,1000`` -> (7000, 2000, 1000); ``10k`` style suffixes allowed."""
    from polyprobe.errors import UsageError

    parts = [t.strip().lower() for t in text.split(",")]
    values = []
    for part in parts:
        scale = 1000 if part.endswith("k") else 1
        digits = part[:-1] if part.endswith("k") else part
        if not digits.isdigit():
            raise UsageError(
                f"--split-sizes {text!r}: expected three whole numbers TRAIN,VALIDATION,TEST, "
                "e.g. 7000,2000,1000"
            )
        values.append(int(digits) * scale)
    if len(values) != 3 or values[0] == 0:
        raise UsageError(
            f"--split-sizes {text!r}: expected three whole numbers TRAIN,VALIDATION,TEST "
            "with train > 0, e.g. 7000,2000,1000"
        )
    return values[0], values[1], values[2]


def run_build_unimorph(args: argparse.Namespace) -> int:
    from polyprobe.builders.word.pipeline import build_unimorph
    from polyprobe.cli import _parse_licenses, _parse_min_per_class, _split_list

    def log(message: str) -> None:
        print(f"polyprobe: {message}", file=sys.stderr)

    result = build_unimorph(
        args.paths,
        lang=args.lang,
        out=args.out,
        layout=args.layout,
        frequencies=args.frequencies,
        wuggy_lexicon=args.wuggy_lexicon,
        wuggy_output=args.wuggy_output,
        wuggy_max_seeds=args.wuggy_max_seeds,
        min_forms=args.min_forms,
        split_sizes=parse_split_sizes(args.split_sizes),
        scale=args.scale,
        sizes=args.sizes,
        min_per_class=_parse_min_per_class(args.min_per_class),
        seed=args.seed,
        overwrite=args.overwrite,
        tasks=_split_list(args.tasks) or None,
        balances=_split_list(args.balances),
        license_overrides=_parse_licenses(args.license),
        allow_license_mix=args.allow_license_mix,
        log=None if args.quiet else log,
    )
    print_summary(result)
    return EXIT_OK


def print_summary(result: Any) -> None:
    """The closing table: one line per task, built or why not."""
    from polyprobe.cli import task_table

    print("\n".join(task_table(result.tasks)))
    lex = result.lexicon
    print(
        f"lexicon: {lex['entries']} entries, {lex['forms']} forms, {lex['lemmas']} lemmas; "
        f"{lex['unknown_tags_total']} entries with unknown tags"
    )
    print(f"split: {result.split}")
    print(f"wrote {result.out} (fingerprint {result.fingerprint})")
