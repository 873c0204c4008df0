"""The ``polyprobe`` command. Exit codes: 0 ok, 1 a check failed, 2 usage or input error.

Only argparse is imported at start-up; every subcommand imports its heavy modules when it runs,
so ``polyprobe --help`` stays quick."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse exits 2 on usage errors already; keep text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _add_common_build_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", required=True, help="ISO 639-1 or 639-3 code (e.g. en, eng)")
    p.add_argument("--out", required=True, type=Path, help="dataset folder to write")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out atomically")
    p.add_argument(
        "--sizes",
        default="",
        help="extra train sizes besides full: absolute (10k, 5000) or fractions (0.25,0.5)",
    )
    p.add_argument(
        "--min-per-class",
        default="50,20,20",
        help="class floor per split: one number for all, or TRAIN,VALIDATION,TEST "
        "(default 50,20,20)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for sampling and perturbations")
    p.add_argument(
        "--balances", default="natural,balanced", help="variants to build (default both)"
    )


def _build_parser() -> argparse.ArgumentParser:
    from polyprobe import __version__

    parser = _Parser(
        prog="polyprobe",
        description="Build, publish and evaluate multilingual probing datasets.",
    )
    parser.add_argument("--version", action="version", version=f"polyprobe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    build = sub.add_parser("build", help="build a dataset folder from a source")
    build_sub = build.add_subparsers(dest="source", metavar="SOURCE", parser_class=_Parser)
    ud = build_sub.add_parser(
        "ud",
        help="probing tasks from Universal Dependencies treebanks",
        description="Build sentence-level probing tasks from UD treebank folders or "
        "CoNLL-U files (.conllu or .conllu.gz). Several treebanks of one language merge.",
    )
    ud.add_argument("paths", nargs="+", type=Path, help="treebank folders or CoNLL-U files")
    _add_common_build_options(ud)
    ud.add_argument(
        "--tasks", default="", help="comma-separated task names (default: all registered)"
    )
    ud.add_argument(
        "--split",
        default=None,
        help="'ud' (the treebanks' own splits; default when every treebank has train/dev/test) "
        "or 'ratio:80/10/10'",
    )
    ud.add_argument(
        "--on-invalid",
        choices=["raise", "skip"],
        default="raise",
        help="malformed sentences: stop with an error (default) or skip and count them",
    )
    ud.add_argument(
        "--license",
        action="append",
        default=[],
        metavar="SRC=ID",
        help="override a source's licence (e.g. UD_English-EWT=CC-BY-SA-4.0)",
    )
    ud.add_argument(
        "--source-version", default=None, help="version of sources that are not git repos"
    )
    ud.add_argument(
        "--allow-license-mix",
        action="store_true",
        help="allow merging NonCommercial and ShareAlike sources (recorded in the card)",
    )
    ud.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="TOML/JSON file overriding derived language choices ([language], [tasks.<name>])",
    )
    ud.add_argument(
        "--unimorph",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="UniMorph lexicon(s) adding replacement forms for subject_verb_agreement",
    )
    ud.add_argument(
        "--assume-file-order-documents",
        action="store_true",
        help="end_of_sentence: treat each file as one document when there is no # newdoc markup",
    )
    ud.add_argument(
        "--release",
        default=None,
        metavar="X.Y.Z",
        help="the dataset's semantic version (default 0.1.0; with --previous, the version the "
        "changes require)",
    )
    ud.add_argument(
        "--previous",
        type=Path,
        default=None,
        metavar="DIR",
        help="the previous release's folder: diff against it, check the --release bump "
        "(patch: same rows; minor: rows changed or config added; major: config removed or "
        "renamed, schema or label-set change) and extend its changelog",
    )
    ud.add_argument(
        "--allow-bump-mismatch",
        action="store_true",
        help="accept a --release that does not fit the changes (recorded in the card)",
    )
    ud.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes sharing the tasks (default: one per core, at most 4, for "
        "inputs of 2 MB or more and enough tasks to pay for a process); the output is "
        "identical for any N",
    )
    ud.add_argument("--quiet", action="store_true", help="no progress bar")
    ud.set_defaults(func=_run_build_ud)
    _register_optional(build_sub, "polyprobe.builders.word.cli", "add_build_unimorph_parser")
    _register_optional(build_sub, "polyprobe.evaluation.cli_reports", "add_build_trec_parser")

    prof = sub.add_parser("profile", help="show the language choices a build would derive")
    prof_sub = prof.add_subparsers(dest="source", metavar="SOURCE", parser_class=_Parser)
    prof_ud = prof_sub.add_parser(
        "ud",
        help="profile UD treebanks",
        description="Print every language-specific choice `build ud` would derive from these "
        "treebanks (capitalisation, targets, windows, bins, signals, label sets) and the "
        "annotation they offer. Edit the output and pass it back with --profile.",
    )
    prof_ud.add_argument("paths", nargs="+", type=Path)
    prof_ud.add_argument("--lang", required=True)
    prof_ud.add_argument("--tasks", default="")
    prof_ud.add_argument("--split", default=None)
    prof_ud.add_argument("--min-per-class", default="50,20,20")
    prof_ud.add_argument("--profile", type=Path, default=None)
    prof_ud.add_argument("--format", choices=["toml", "json"], default="toml")
    prof_ud.set_defaults(func=_run_profile_ud)

    info = sub.add_parser("info", help="summarise a dataset folder")
    info.add_argument("path", type=Path)
    info.set_defaults(func=_run_info)

    validate = sub.add_parser(
        "validate",
        help="re-check a dataset folder's invariants and card",
        description="Exit 0 when the folder is valid, 1 on any violation, 2 on unusable input.",
    )
    validate.add_argument("path", type=Path)
    validate.set_defaults(func=_run_validate)

    demo = sub.add_parser("demo", help="build a dataset folder from the bundled English UD sample")
    demo.add_argument("--out", type=Path, default=Path("polyprobe-demo"))
    demo.add_argument("--overwrite", action="store_true")
    demo.set_defaults(func=_run_demo)

    _register_optional(sub, "polyprobe.evaluation.cli", "add_evaluate_parser")
    _register_optional(sub, "polyprobe.evaluation.cli_reports", "add_correlate_parser")
    _register_optional(sub, "polyprobe.evaluation.cli_reports", "add_report_parser")
    _register_optional(sub, "polyprobe.cli_publish", "add_publish_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_diff_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_export_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_catalog_parser")
    return parser


def _register_optional(sub: Any, module: str, func: str) -> None:
    """Subcommands from modules that import only argparse at module level."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError:
        return
    getattr(mod, func)(sub)


def _parse_min_per_class(text: str) -> tuple[int, int, int]:
    from polyprobe.errors import UsageError

    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise UsageError(f"--min-per-class {text!r}: expected N or TRAIN,VALIDATION,TEST") from None
    if len(values) == 1:
        values = values * 3
    if len(values) != 3 or any(v < 1 for v in values):
        raise UsageError(f"--min-per-class {text!r}: expected one or three positive integers")
    return values[0], values[1], values[2]


def _parse_licenses(items: Sequence[str]) -> dict[str, str]:
    from polyprobe.errors import UsageError

    out: dict[str, str] = {}
    for item in items:
        name, sep, lic = item.partition("=")
        if not sep or not name or not lic:
            raise UsageError(
                f"--license {item!r}: expected SRC=ID, e.g. UD_English-EWT=CC-BY-SA-4.0"
            )
        out[name] = lic
    return out


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


# True when this process is the command itself (``run``), not a caller of ``main`` (tests,
# scripts): only then may a subcommand change process-wide settings such as hiding pandas.
_COMMAND_PROCESS = False


# What a build worker imports before its shard arrives (see _run_build_ud).
_BUILD_WORKER_MODULES = (
    "polyprobe.builders.pipeline",
    "polyprobe.builders.registry",
    "polyprobe.builders.profile",
    "polyprobe.cards.folder",
    "polyprobe.loaders.conllu",
)


def _standby_guess(args: argparse.Namespace) -> int:
    """Workers the build may hand shards to, before the task registry (and with it numpy) is
    imported: :func:`~polyprobe.builders.shards.resolve_jobs` without the tasks' number and
    costs, so never fewer than :func:`_standby_count` finds."""
    from polyprobe.builders.shards import resolve_jobs
    from polyprobe.errors import PolyprobeError
    from polyprobe.loaders.sources import input_bytes

    try:  # --tasks may name groups (contextual), so the task count is not known yet either
        return resolve_jobs(args.jobs, 1 << 10, input_bytes(args.paths)) - 1
    except PolyprobeError:
        return 0


def _standby_count(args: argparse.Namespace) -> int:
    """Workers this build will hand shards to (``build_ud`` decides with the same rule);
    0 when the request is wrong, which ``build_ud`` then reports."""
    from polyprobe.builders.registry import resolve_task_names
    from polyprobe.builders.shards import jobs_for
    from polyprobe.errors import PolyprobeError
    from polyprobe.loaders.sources import input_bytes

    try:
        names = resolve_task_names(_split_list(args.tasks) or None)
        return jobs_for(args.jobs, names, input_bytes(args.paths)) - 1
    except PolyprobeError:
        return 0


def _run_build_ud(args: argparse.Namespace) -> int:
    from polyprobe.builders.pandas_hidden import hide_pandas
    from polyprobe.builders.shards import standby_workers

    if _COMMAND_PROCESS:  # this process only builds (see polyprobe.builders.pandas_hidden)
        hide_pandas()
    # Worker processes start before this one imports the build, so their imports overlap
    # (see polyprobe.builders.shards.standby_workers); the guess is corrected once the
    # registry, which knows what the tasks cost, is imported.
    with standby_workers(_standby_guess(args), warm=_BUILD_WORKER_MODULES) as standby:
        standby.keep(_standby_count(args))
        return _build_ud(args)


def _build_ud(args: argparse.Namespace) -> int:
    from polyprobe.builders.pipeline import build_ud

    progress = None
    if not args.quiet:
        from tqdm import tqdm

        def progress(it: Any) -> Any:
            return tqdm(it, unit=" sent", desc="reading", file=sys.stderr, mininterval=0.5)

    result = build_ud(
        args.paths,
        lang=args.lang,
        out=args.out,
        tasks=_split_list(args.tasks) or None,
        sizes=args.sizes,
        split=args.split,
        min_per_class=_parse_min_per_class(args.min_per_class),
        seed=args.seed,
        overwrite=args.overwrite,
        on_invalid=args.on_invalid,
        license_overrides=_parse_licenses(args.license),
        source_version=args.source_version,
        allow_license_mix=args.allow_license_mix,
        balances=_split_list(args.balances),
        progress=progress,
        profile_path=args.profile,
        task_options=_task_options(args),
        release=args.release,
        previous=args.previous,
        allow_bump_mismatch=args.allow_bump_mismatch,
        jobs=args.jobs,
    )
    _print_summary(result)
    check = result.bump_check
    line = f"release {result.release}"
    if check:
        line += f" ({check.get('required')} bump from {check.get('previous')}"
        line += ", mismatch allowed)" if check.get("mismatch_allowed") else ")"
    print(line)
    return EXIT_OK


def _task_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Command-line flags that are task options (the same keys a profile's [tasks.*] sets)."""
    options: dict[str, dict[str, Any]] = {}
    if args.unimorph:
        options["subject_verb_agreement"] = {"unimorph": [str(p) for p in args.unimorph]}
    if args.assume_file_order_documents:
        options["end_of_sentence"] = {"assume_file_order_documents": True}
    return options


def _run_profile_ud(args: argparse.Namespace) -> int:
    import json

    from polyprobe.builders.pipeline import profile_ud

    profile = profile_ud(
        args.paths,
        lang=args.lang,
        tasks=_split_list(args.tasks) or None,
        profile_path=args.profile,
        split=args.split,
        min_per_class=_parse_min_per_class(args.min_per_class),
    )
    if args.format == "json":
        print(json.dumps(profile, indent=2, ensure_ascii=False))
    else:
        import tomli_w

        print(tomli_w.dumps(_toml_safe(profile)), end="")
    return EXIT_OK


def _toml_safe(value: Any) -> Any:
    """TOML has no null and only string keys: drop Nones, stringify keys."""
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_toml_safe(v) for v in value if v is not None]
    return value


def task_table(tasks: Any) -> list[str]:
    """The closing table of a build: one line per task, built (with sizes) or why not."""
    rows = [("task", "candidates", "configs", "train", "validation", "test", "status")]
    for s in tasks:
        status = "built" if s.configs else f"infeasible: {s.infeasible}"
        if s.configs and s.infeasible:  # built, but some variant family was not
            status += f" (not built: {s.infeasible})"
        if s.configs and s.not_built:
            status += f" ({'; '.join(s.not_built)})"
        rows.append(
            (
                s.task,
                str(s.candidates),
                str(len(s.configs)),
                str(s.rows.get("train", 0)),
                str(s.rows.get("validation", 0)),
                str(s.rows.get("test", 0)),
                status,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1]
        for r in rows
    ]


def _print_summary(result: Any) -> None:
    print("\n".join(task_table(result.tasks)))
    if result.skipped_invalid:
        skipped = ", ".join(f"{k}: {v}" for k, v in result.skipped_invalid.items())
        print(f"skipped invalid sentences: {skipped}")
    print(f"split: {result.split.mode} ({result.split.reason})")
    print(f"wrote {result.out} (fingerprint {result.fingerprint})")


def _run_info(args: argparse.Namespace) -> int:
    from polyprobe.cards.info import describe

    print(describe(args.path))
    return EXIT_OK


def _run_validate(args: argparse.Namespace) -> int:
    from polyprobe.cards.validate import validate

    report = validate(args.path)
    if report.ok:
        print(f"{args.path}: valid")
        return EXIT_OK
    for problem in report.problems:
        print(f"{args.path}: {problem}", file=sys.stderr)
    print(f"{args.path}: {len(report.problems)} problem(s)", file=sys.stderr)
    return EXIT_FAILED


def _run_demo(args: argparse.Namespace) -> int:
    from polyprobe.demo import build_demo

    result = build_demo(args.out, overwrite=args.overwrite)
    _print_summary(result)
    configs = [c for s in result.tasks for c in s.configs]
    print()
    print("Load it with:")
    print("    import datasets")
    print(f'    ds = datasets.load_dataset("{result.out}", "{configs[0]}")')
    print(f"Configs: {', '.join(configs)}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    from polyprobe.errors import PolyprobeError

    try:
        return int(func(args))
    except PolyprobeError as exc:
        print(f"polyprobe: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("polyprobe: interrupted; nothing was written", file=sys.stderr)
        return 130


def run() -> None:
    """The console entry point (``polyprobe`` and ``python -m polyprobe``): :func:`main`, then
    the process ends without the interpreter's teardown (see :mod:`polyprobe.process_exit`)."""
    from polyprobe.process_exit import exit_process

    global _COMMAND_PROCESS
    _COMMAND_PROCESS = True
    exit_process(main())


if __name__ == "__main__":  # pragma: no cover
    run()
