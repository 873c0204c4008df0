"""``polyprobe frequencies DUMP --out words.tsv``: a dump's token counts as a word list
(``word<TAB>count``, most frequent first), for every ``--frequencies`` option. Only argparse
at module level."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_frequencies_parser(sub: Any) -> None:
    """``polyprobe frequencies DUMP --out words.tsv``: a dump's token counts as a word list
    (``word<TAB>count``, most frequent first), for every ``--frequencies`` option."""
    p = sub.add_parser(
        "frequencies",
        help="count the words of a Wikipedia dump into a word list for --frequencies",
        description="Write word<TAB>count lines (most frequent first, ties by word) counted "
        "on the running text of MediaWiki dumps, cleaned and tokenised as build wiki does. "
        "Any --frequencies option reads the file; a dump given to --frequencies directly is "
        "counted the same way at every build.",
    )
    p.add_argument("dumps", nargs="+", type=Path, metavar="DUMP")
    p.add_argument("--out", required=True, type=Path, help="the word list to write")
    p.add_argument("--lang", default=None, help="tokenizer language (default: the dump's)")
    p.set_defaults(func=run_frequencies)


def run_frequencies(args: argparse.Namespace) -> int:
    import os
    from collections import Counter

    from polyprobe.loaders.frequency import from_dump

    counts: Counter[str] = Counter()
    for dump in args.dumps:
        counts.update(from_dump(dump, lang=args.lang).counts)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    tmp = args.out.with_name(f".{args.out.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(f"{word}\t{n}\n" for word, n in ranked)
        os.replace(tmp, args.out)
    finally:
        tmp.unlink(missing_ok=True)
    print(f"wrote {args.out}: {len(ranked)} words, {sum(counts.values())} tokens")
    return 0
