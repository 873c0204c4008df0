"""``polyprobe diff``, ``polyprobe export`` and ``polyprobe catalog``. Only argparse (and
pathlib) at import: ``polyprobe --help`` stays quick; each command imports its module when it
runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


def add_diff_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "diff",
        help="compare two dataset folders (builds or releases)",
        description="Configs added/removed; per config and split, rows added, removed, "
        "relabelled (by label name) and with changed inputs under the same id; label "
        "distribution shifts; card field changes; the release bump they require. "
        "Exit 0 identical, 1 different, 2 error.",
    )
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--format", choices=["markdown", "json"], default="markdown")
    p.add_argument(
        "--max-ids",
        type=int,
        default=20,
        help="row ids listed per kind of change and split (counts are always complete; "
        "-1 lists all)",
    )
    p.add_argument("--out", type=Path, default=None, help="write the report here, not stdout")
    p.set_defaults(func=_run_diff)


def _run_diff(args: argparse.Namespace) -> int:
    from polyprobe.cards.diff import diff_folders, render_json, render_markdown

    report = diff_folders(args.old, args.new, max_ids=None if args.max_ids < 0 else args.max_ids)
    text = render_json(report) if args.format == "json" else render_markdown(report)
    _emit(text, args.out)
    return EXIT_OK if report["identical"] else EXIT_DIFFERENT


def add_export_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export",
        help="export a dataset folder for SentEval, LINSPECTOR or MTEB",
        description="senteval: OUT/data/probing/*.txt, SentEval's own file names for its ten "
        "tasks (sentence_length.txt is sentence_length_senteval), other sentence configs "
        "under their names; lines 'tr|va|te TAB label TAB tokens'. linspector: "
        "OUT/<Task>/<language>/{train,dev,test}.txt with LINSPECTOR's task names (Case, "
        "SameFeat, CharacterBin as bin indices, ...). mteb: mteb 2.x TaskMetadata JSON per "
        "config, tasks.json, provenance.json and polyprobe_mteb.py (the task module mteb "
        "runs offline). docs/exports.md says what each writes.",
    )
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--format", required=True, choices=["senteval", "linspector", "mteb"])
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument(
        "--dataset-path",
        default=None,
        help="mteb: the Hub id ORG/NAME of the published copy; default: PATH made absolute "
        "(the revision is the release tag v<release> either way)",
    )
    p.add_argument(
        "--domains",
        default=None,
        metavar="D1,D2",
        help="mteb: the texts' MTEB domains, e.g. News,Web (default null: the card does not "
        "record genres)",
    )
    p.set_defaults(func=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    from polyprobe.cards.export import export
    from polyprobe.outputs import output_folder

    output_folder(args.out)
    domains = None
    if args.domains is not None:
        domains = [d for d in args.domains.split(",") if d.strip()]
    result = export(
        args.path, args.format, args.out, dataset_path=args.dataset_path, domains=domains
    )
    for config, info in result["written"].items():
        print(f"{config}: {info['path']}")
    for config, why in result["skipped"].items():
        print(f"skipped {config}: {why}", file=sys.stderr)
    print(f"wrote {len(result['written'])} config(s) as {args.format} to {args.out}")
    return EXIT_OK


def add_catalog_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "catalog",
        help="table of built datasets × languages × tasks",
        description="Read each dataset folder's card and report.json (a directory that is "
        "not a dataset folder is searched one level down) and write catalog.md and "
        "catalog.json: which tasks exist for which language, with sizes, versions and "
        "feasibility.",
    )
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.set_defaults(func=_run_catalog)


def _run_catalog(args: argparse.Namespace) -> int:
    from polyprobe.cards.catalog import write_catalog
    from polyprobe.outputs import output_folder

    output_folder(args.out)
    catalog = write_catalog(args.paths, args.out)
    print(
        f"catalogued {len(catalog['datasets'])} dataset(s), {len(catalog['languages'])} "
        f"language(s), {len(catalog['tasks'])} task(s) in {args.out}"
    )
    return EXIT_OK


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
