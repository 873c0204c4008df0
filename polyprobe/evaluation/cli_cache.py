"""``polyprobe cache info|prune``: what the embedding cache holds, and removing what is not
worth keeping.

Only argparse is imported here (``polyprobe --help`` builds every parser); the cache module
is imported when the command runs. Exit codes: 0 ok, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_USAGE = 0, 2

_EPILOG = """\
prune, with no option, removes what is never read again: the cache files of encoders that
are now recomputed instead of cached (random, borep, char-ngrams) and temporary files left by
a process that is gone. --encoder and --older-than select other files (both given: files that
match both); --all empties the cache. Every cache file is safe to delete: it is rebuilt on
demand.
"""


def add_cache_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "cache",
        help="show or prune the embedding cache",
        description="Show what the embedding cache holds (per encoder: size, vectors, last "
        "use) or remove files from it.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="cache_command", metavar="ACTION")
    info = sub.add_parser("info", help="list the cache's files, largest first")
    prune = sub.add_parser(
        "prune",
        help="remove cache files (default: those never read again)",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for q in (info, prune):
        q.add_argument(
            "--cache",
            type=Path,
            default=None,
            help="embedding cache folder (default $POLYPROBE_CACHE/embeddings, else "
            "~/.cache/polyprobe/embeddings)",
        )
    prune.add_argument(
        "--encoder",
        action="append",
        default=None,
        metavar="GLOB",
        help="files of encoders whose id matches (repeatable), e.g. 'hf:*'",
    )
    prune.add_argument(
        "--older-than", type=float, default=None, metavar="DAYS", help="not used for DAYS days"
    )
    prune.add_argument("--all", action="store_true", help="every file of the cache")
    prune.add_argument("--dry-run", action="store_true", help="list, remove nothing")
    p.set_defaults(func=run_cache)
    info.set_defaults(func=run_cache)
    prune.set_defaults(func=run_cache)
    return p


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def _when(t: float) -> str:
    import time

    return time.strftime("%Y-%m-%d", time.localtime(t)) if t else "?"


def _line(e: Any) -> str:
    vectors = f"{e.vectors:,}" if e.vectors is not None else "–"
    what = e.encoder_id if e.kind == "embeddings" else f"{e.kind}: {e.encoder_id}"
    if e.recomputed:
        what += "  (recomputed now: never read again)"
    elif e.kind == "leftover":
        what += "  (left by a process that is gone)"
    return f"  {_mb(e.size):>11}  {vectors:>10}  {_when(e.last_used)}  {what}"


def run_cache(args: argparse.Namespace) -> int:
    from polyprobe.evaluation.cache import (
        cache_entries,
        default_cache_dir,
        remove_entries,
        select_prunable,
    )

    action = getattr(args, "cache_command", None)
    if action is None:
        print("polyprobe cache: error: choose an action: info or prune", file=sys.stderr)
        return EXIT_USAGE
    root = args.cache.expanduser() if args.cache else default_cache_dir()
    entries = cache_entries(root)
    if action == "info":
        total = sum(e.size for e in entries)
        print(f"embedding cache: {root} ({_mb(total)} in {len(entries)} entr(ies))")
        if not entries:
            return EXIT_OK
        print(f"  {'size':>11}  {'vectors':>10}  {'last used':10}  encoder")
        for e in entries:
            print(_line(e))
        prunable = select_prunable(entries)
        if prunable:
            freed = sum(e.size for e in prunable)
            print(f"`polyprobe cache prune` would free {_mb(freed)} ({len(prunable)} entr(ies))")
        return EXIT_OK
    if args.older_than is not None and args.older_than < 0:
        print("polyprobe cache prune: error: --older-than must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    chosen = select_prunable(
        entries, everything=args.all, encoders=args.encoder, older_than_days=args.older_than
    )
    for e in chosen:
        print(_line(e))
    size = sum(e.size for e in chosen)
    if args.dry_run:
        print(f"would remove {len(chosen)} entr(ies), {_mb(size)} (dry run: nothing removed)")
        return EXIT_OK
    freed = remove_entries(chosen)
    print(f"removed {len(chosen)} entr(ies), {_mb(freed)} freed from {root}")
    return EXIT_OK
