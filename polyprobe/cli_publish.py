"""``polyprobe publish``: argparse only at import; the Hub client is imported when it runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_publish_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "publish",
        help="publish a dataset folder to the Hugging Face Hub as one commit + a version tag",
        description="Validate DIR, refuse an existing version tag, then upload the dataset's "
        "files (README.md, the files its configs name, report.json, plots/; nothing else, no "
        "link) in one commit on main (parent = the head read; remote files missing from DIR "
        "are deleted) and tag that commit v<release>. A publish that loses a race with another "
        "stops in one line before it moves main. The token comes from HF_TOKEN or `hf auth login`; it "
        "is never printed. --dry-run works offline: it then prints the plan and says that the "
        "tag check needs the Hub. Exit 0 published (or planned), 1 refused, 2 unusable input "
        "or the Hub unreachable.",
    )
    p.add_argument("path", type=Path, metavar="DIR", help="dataset folder")
    p.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="Hub dataset repo")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the exact operations (one commit with its files, one tag); write nothing",
    )
    p.add_argument(
        "--revision-tag",
        default=None,
        metavar="vX.Y.Z",
        help="version tag (default v<release> from the card; must agree with it)",
    )
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.set_defaults(func=_run_publish)


def _run_publish(args: argparse.Namespace) -> int:
    from polyprobe.hub.publishing import PublishPlan, publish

    def echo(msg: str) -> None:
        print(msg, file=sys.stderr)

    out = publish(
        args.path,
        args.repo_id,
        revision_tag=args.revision_tag,
        private=args.private,
        dry_run=args.dry_run,
        echo=echo,
    )
    if isinstance(out, PublishPlan):
        print(f"dry run: nothing written. {out.folder} would be published as:")
        print(out.describe())
        if out.unchecked:
            print(
                f"polyprobe publish: warning: the Hub was not reached ({out.unchecked}); "
                f"whether tag {out.tag!r} is free was NOT checked",
                file=sys.stderr,
            )
        return 0
    print(f"published {out.plan.folder} to datasets/{out.plan.repo_id}")
    print(f"commit {out.commit_oid} ({out.commit_url})")
    print(f"tag {out.tag}")
    version = out.plan.release
    print(f'load it with: polyprobe.load("{out.plan.repo_id}", CONFIG, version="{version}")')
    return 0
