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

# Commands that, interrupted, have written nothing: they write no file, or one folder by an
# atomic rename. (``evaluate`` reports its finished result files itself.)
_ALL_OR_NOTHING = frozenset({"build", "demo", "info", "validate", "profile"})


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse exits 2 on usage errors already; keep text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command's parser. The families' build options are read from their Config classes,
    which imports every family and its tasks: only a ``build`` or ``profile`` command pays
    that (the others list ``build`` with a one-line help)."""
    from polyprobe.version import __version__

    parser = _Parser(
        prog="polyprobe",
        description="Build, publish and evaluate multilingual probing datasets.",
    )
    parser.add_argument("--version", action="version", version=f"polyprobe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    from polyprobe.builders.cli import add_build_parser

    words = list(sys.argv[1:] if argv is None else argv)
    add_build_parser(sub, families=bool(words) and words[0] in ("build", "profile"))

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
    _register_optional(sub, "polyprobe.evaluation.cli_cache", "add_cache_parser")
    _register_optional(sub, "polyprobe.cli_publish", "add_publish_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_diff_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_export_parser")
    _register_optional(sub, "polyprobe.cards.cli_release", "add_catalog_parser")
    _register_optional(sub, "polyprobe.translate.cli", "add_translate_parser")
    _register_optional(sub, "polyprobe.cli_frequencies", "add_frequencies_parser")
    _register_optional(sub, "polyprobe.cli_suite", "add_suite_parser")
    return parser


def _register_optional(sub: Any, module: str, func: str) -> None:
    """Subcommands from modules that import only argparse at module level."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError:
        return
    getattr(mod, func)(sub)


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
    from polyprobe.builders.cli import print_summary
    from polyprobe.demo import build_demo

    result = build_demo(args.out, overwrite=args.overwrite)
    print_summary(result)
    configs = [c for s in result.tasks for c in s.configs]
    print()
    print(f"Load it ({len(configs)} configs; `polyprobe info {result.out}` lists them):")
    print("    import datasets")
    print(f'    ds = datasets.load_dataset("{result.out}", "{configs[0]}")')
    print()
    print("Next: score the bundled baselines on it, then build your own language's suite:")
    print(f"    polyprobe evaluate {result.out} --all --baselines --out results")
    print("    polyprobe suite init --lang LANG --search DATA_DIR")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser(argv)
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    from polyprobe.errors import PolyprobeError
    from polyprobe.progress import TerminalProgress, shown
    from polyprobe.runtime.signals import Terminated, terminate_like_interrupt

    quiet = getattr(args, "quiet", False) or getattr(args, "no_progress", False)
    try:
        # one progress display for the whole command (none with --quiet / --no-progress)
        with terminate_like_interrupt(), shown(None if quiet else TerminalProgress()):
            return int(func(args))
    except PolyprobeError as exc:
        print(f"polyprobe: {'error: ' if exc.exit_code else ''}{exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (a Terminated)
        what = f"terminated ({exc.signame})" if isinstance(exc, Terminated) else "interrupted"
        written = "; nothing was written" if args.command in _ALL_OR_NOTHING else ""
        print(f"polyprobe: {what}{written}", file=sys.stderr)
        return exc.exit_code if isinstance(exc, Terminated) else 130


def run() -> None:
    """The console entry point (``polyprobe`` and ``python -m polyprobe``)."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
