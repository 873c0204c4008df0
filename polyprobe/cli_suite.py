"""``polyprobe suite``: one language's probing suite — find its resources (``init``), build
them into one dataset folder (``build``), and add the bundled baselines' scores to its card
(``baselines``). Only argparse is imported here; each command imports what it runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

EXIT_OK = 0


def add_suite_parser(sub: Any) -> None:
    suite = sub.add_parser(
        "suite",
        help="a language's probing suite: find its resources, build them into one dataset",
        description=(
            "A suite is every family that has a resource for one language, built into one "
            "dataset folder (one card, one report.json, one fingerprint). "
            "`suite init` writes its manifest, `suite build` builds it."
        ),
    )
    commands = suite.add_subparsers(dest="suite_command", metavar="SUITE_COMMAND")
    commands.required = True

    init = commands.add_parser(
        "init",
        help="write a suite manifest from the resources found under folders",
        description=(
            "Look for LANG's resources under the --search folders by their standard names "
            "(UD_*-* treebank folders, xx_name-ud-*.conllu files, UniMorph/SIGMORPHON files, "
            "Wuggy lexicons and outputs, *wiki-*pages-articles*.xml* dumps, similarity, "
            "analogy and dictionary files, TREC, COSTRA), write the manifest and say what was "
            "found per family, what was found but not used (and why) and what is missing "
            "(and which tasks it would add); the manifest's comments say the same. With "
            "--data, paths are written relative to it (build with `suite build M --data "
            "DIR`), else absolute. A PUD treebank goes to the parallel suite (--parallel), "
            "not to its language's. Nothing found: exit 2."
        ),
    )
    init.add_argument(
        "--lang",
        required=True,
        help="ISO 639-1 or 639-3 code (e.g. fi, fin); with --parallel, the pivot language",
    )
    init.add_argument(
        "--search", nargs="+", type=Path, required=True, metavar="DIR", help="folders to search"
    )
    init.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the manifest to write (default: LANG.toml in the current folder)",
    )
    init.add_argument(
        "--data",
        type=Path,
        default=None,
        help="write paths relative to this folder (then pass it to `suite build --data`)",
    )
    init.add_argument("--overwrite", action="store_true", help="replace an existing manifest")
    init.add_argument(
        "--parallel",
        action="store_true",
        help="write the parallel suite instead: every PUD treebank (UD_*-PUD) found, pivoting "
        "on --lang (default file: pud.toml)",
    )
    init.set_defaults(func=_run_init)

    build = commands.add_parser(
        "build",
        help="build a suite manifest into one dataset folder",
        description=(
            "Build every member of MANIFEST into one dataset folder. Config names are the "
            "families' own; a task name an earlier member already publishes is published as "
            "<member>-<task> by the later one (UD's tense, UniMorph's unimorph-tense)."
        ),
    )
    build.add_argument(
        "manifest",
        type=Path,
        help="the suite's TOML manifest, or the name of a suite polyprobe ships ("
        + ", ".join(_shipped())
        + "; give --data, the folder holding the data they were written for)",
    )
    build.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    build.add_argument(
        "--data",
        type=Path,
        default=None,
        help="the folder the manifest's relative paths start from (default: the manifest's)",
    )
    build.add_argument("--overwrite", action="store_true", help="replace an existing folder")
    build.add_argument("--release", default=None, help="this release's version X.Y.Z")
    build.add_argument("--previous", type=Path, default=None, help="the previous release's folder")
    build.add_argument("--allow-bump-mismatch", action="store_true")
    build.add_argument("--allow-license-mix", action="store_true")
    build.add_argument(
        "--with-baselines",
        action="store_true",
        help="then run the bundled baselines on every config and add their scores to the card",
    )
    build.add_argument("--quiet", action="store_true", help="no progress display")
    build.set_defaults(func=_run_build)

    baselines = commands.add_parser(
        "baselines",
        help="score the bundled baselines on a dataset folder and add them to its card",
        description=(
            "Run majority, random, BOREP and character n-grams on every config of DIR "
            "(seeded) and write their scores into its card: a table per config, so a "
            "published dataset says what a number means."
        ),
    )
    baselines.add_argument("path", type=Path, help="the dataset folder")
    baselines.add_argument("--quiet", action="store_true", help="no progress display")
    baselines.set_defaults(func=_run_baselines)


def _shipped() -> list[str]:
    """The shipped suites' names, for the help (the folder
    :data:`polyprobe.builders.manifest.SHIPPED` names; read here without importing the build)."""
    return sorted(p.stem for p in (Path(__file__).parent / "suites").glob("*.toml"))


def _run_init(args: argparse.Namespace) -> int:
    from polyprobe.builders.discover import init_manifest

    init_manifest(
        args.lang,
        args.search,
        out=args.out,
        data=args.data,
        overwrite=args.overwrite,
        parallel=args.parallel,
    )
    return EXIT_OK


def _run_build(args: argparse.Namespace) -> int:
    from polyprobe.builders.cli import print_summary
    from polyprobe.builders.manifest import read_manifest, shipped_manifest
    from polyprobe.builders.suite import build_suite

    given = args.manifest
    suite = read_manifest(
        given if given.exists() else shipped_manifest(str(given)) or given, args.data
    )
    result = build_suite(
        suite,
        args.out,
        overwrite=args.overwrite,
        release=args.release,
        previous=args.previous,
        allow_bump_mismatch=args.allow_bump_mismatch,
        allow_license_mix=args.allow_license_mix,
    )
    if args.with_baselines:
        from polyprobe.evaluation.bundled import add_baselines

        print_summary(result)
        print()
        add_baselines(result.out, progress=not args.quiet)
    else:
        print_summary(result)
    print()
    print("Next:")
    print(f"    polyprobe evaluate {result.out} --all --baselines --out results")
    return EXIT_OK


def _run_baselines(args: argparse.Namespace) -> int:
    from polyprobe.evaluation.bundled import add_baselines

    add_baselines(args.path, progress=not args.quiet)
    return EXIT_OK
