"""The command-line arguments of the raw-text families, ``build wiki`` and ``build text``
(wired into :data:`polyprobe.builders.cli.FAMILIES`). Only argparse at module level."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _add_segmentation(p: argparse.ArgumentParser, final_punct: bool) -> None:
    p.add_argument(
        "--sentences",
        choices=["segtok", "spacy"],
        default="segtok",
        help="sentence splitter: segtok split_single (default; best measured boundary F1) "
        "or spaCy's rule-based sentencizer",
    )
    p.add_argument(
        "--tokenizer",
        default="auto",
        metavar="auto|spacy|segtok|PIPELINE",
        help="spacy: spacy.blank(LANG)'s tokenizer (xx plus per-script rules where spaCy "
        "has no LANG); segtok: segtok's word tokenizer; auto (default): spacy when "
        "installed; or the name or folder of an installed spaCy pipeline (never downloaded)",
    )
    p.add_argument(
        "--min-tokens", type=int, default=3, help="drop sentences shorter than this (default 3)"
    )
    p.add_argument("--max-tokens", type=int, default=None, help="drop longer sentences")
    if final_punct:
        p.add_argument(
            "--no-final-punct",
            dest="final_punct",
            action="store_false",
            help="keep sentences without sentence-final punctuation (default: dropped)",
        )
    else:
        p.add_argument(
            "--final-punct",
            dest="final_punct",
            action="store_true",
            help="drop sentences without sentence-final punctuation",
        )
    p.add_argument(
        "--split",
        default=None,
        help="ratio:TRAIN/VALIDATION/TEST percentages (default ratio:80/10/10)",
    )
    p.add_argument(
        "--unimorph",
        nargs="+",
        type=Path,
        default=None,
        metavar="FILE",
        help="a UniMorph lexicon: forms it lists only as nouns are tagged NOUN (word_order "
        "needs nouns; word_content then takes noun targets); its present-tense verb forms make "
        "subject_verb_agreement (--tasks subject_verb_agreement)",
    )
    p.add_argument(
        "--annotate",
        default=None,
        metavar="spacy:MODEL|stanza:LANG",
        help="parse the sentences with an installed spaCy pipeline or stanza models (never "
        "downloaded) into UD-style records: every build ud task is then offered, recorded "
        "in the card as machine-annotated",
    )
    p.add_argument(
        "--noun-forms",
        nargs="+",
        type=Path,
        default=None,
        metavar="UD_PATH|FILE",
        help="forms that can be nouns, excluded as subject_verb_agreement verbs: UD treebanks "
        "(their NOUN/PROPN forms) or word lists (one form per line)",
    )


def add_wiki(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "dumps",
        nargs="+",
        type=Path,
        metavar="DUMP",
        help="MediaWiki XML dumps (pages-articles), bz2/gzip/xz/plain, any encoding",
    )
    _add_segmentation(p, final_punct=True)
    p.add_argument(
        "--executor",
        choices=["local", "datatrove-local", "datatrove-slurm", "datatrove-ray"],
        default="local",
        help="what runs the input shards (clean + tokenise): local processes (default, "
        "--jobs of them) or datatrove's executors (pip install 'polyprobe[cluster]'); the "
        "output is the same bytes for every executor",
    )
    p.add_argument(
        "--shards",
        type=int,
        default=None,
        metavar="N",
        help="input shards per dump file: every N-th block of 100 pages (default: enough "
        "for the workers)",
    )
    p.add_argument(
        "--shard-cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep the shards' tokenised tables here: a rerun (after an interruption, or a "
        "Slurm job array) reuses finished shards; on a cluster, a folder every node sees",
    )
    p.add_argument(
        "--executor-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="passed to datatrove's executor, e.g. partition=cpu time=04:00:00 "
        "cpus_per_task=1 for datatrove-slurm",
    )


def add_text(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="FILE|FOLDER",
        help="UTF-8 text files (plain or gzip) or folders of *.txt files",
    )
    p.add_argument(
        "--layout",
        choices=["lines", "documents"],
        default="lines",
        help="lines: one sentence per line (default); documents: documents separated by "
        "blank lines, each line a paragraph split into sentences",
    )
    p.add_argument("--name", default=None, help="the source's name (default: the first path's)")
    _add_segmentation(p, final_punct=False)


def _common(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "split": args.split,
        "sentences": args.sentences,
        "tokenizer": args.tokenizer,
        "min_tokens": args.min_tokens,
        "max_tokens": args.max_tokens,
        "final_punct": args.final_punct,
        "unimorph": args.unimorph,
        "noun_forms": args.noun_forms,
        "annotate": args.annotate,
    }


def run_wiki(args: argparse.Namespace, options: dict[str, Any], progress: Any = None) -> Any:
    from polyprobe.builders.recipes.wiki import build_wiki

    executor_options: dict[str, Any] = {}
    for item in args.executor_option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            from polyprobe.errors import UsageError

            raise UsageError(f"--executor-option {item!r}: expected KEY=VALUE")
        executor_options[key] = int(value) if value.isdigit() else value
    return build_wiki(
        args.dumps,
        progress=progress,
        executor=args.executor,
        shards=args.shards,
        shard_cache=args.shard_cache,
        executor_options=executor_options,
        **_common(args),
        **options,
    )


def run_text(args: argparse.Namespace, options: dict[str, Any], progress: Any = None) -> Any:
    from polyprobe.builders.recipes.text import build_text

    return build_text(
        args.paths,
        name=args.name,
        layout=args.layout,
        progress=progress,
        **_common(args),
        **options,
    )


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
