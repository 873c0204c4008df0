"""Releases: every dataset folder carries a semantic version and a changelog, and a build made
with ``--previous DIR`` checks its ``--release X.Y.Z`` against what changed since ``DIR``.

Bump rules (``polyprobe.cards.diff.required_bump``): patch = the same rows (card or
documentation changes only, or nothing); minor = rows changed by a recipe, profile or source
update, or a config added; major = a config removed or renamed, a schema or a label-set change.

The check runs inside :meth:`polyprobe.cards.folder.DatasetFolderWriter.finish`, after the
parquet files are in the writer's temporary folder and before the card is written (the card
records the outcome): the new rows are diffed from that folder, so ``--out`` may be the
previous release's folder itself (it is replaced only after the check). A wrong version raises
:class:`ReleaseError` and nothing is written; ``allow_bump_mismatch`` accepts it and records
the mismatch in the card (``polyprobe.bump_check``, the changelog entry and the body).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.errors import PolyprobeError, UsageError
from polyprobe.metadata import DatasetMeta

DEFAULT_RELEASE = "0.1.0"
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
MAX_REASONS_IN_ERROR = 12


class ReleaseError(PolyprobeError):
    """The requested release version does not fit the changes since the previous release."""


def parse_version(text: str) -> tuple[int, int, int]:
    """``X.Y.Z`` (no prefix, no pre-release part) as a tuple; UsageError otherwise."""
    m = _SEMVER.match(str(text).strip())
    if not m:
        raise UsageError(f"release version {text!r} is not a semantic version X.Y.Z (e.g. 1.2.0)")
    return int(m[1]), int(m[2]), int(m[3])


def bump_version(version: str, bump: str) -> str:
    major, minor, patch = parse_version(version)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    if bump == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"unknown bump {bump!r}")


def bump_kind(old: str, new: str) -> str:
    """Which part ``new`` bumps relative to ``old`` (``new`` must be greater)."""
    a, b = parse_version(old), parse_version(new)
    if b[0] != a[0]:
        return "major"
    if b[1] != a[1]:
        return "minor"
    return "patch"


def previous_release(folder: str | Path) -> dict[str, Any]:
    """The previous release's version, fingerprint and changelog, from its card. A card
    written before releases were recorded counts as the default first release."""
    from polyprobe.cards.info import read_card_yaml

    card = read_card_yaml(folder)
    block = card.get("polyprobe")
    if not isinstance(block, dict):
        raise UsageError(f"--previous {folder}: the card has no 'polyprobe' block")
    version = str(block.get("release") or DEFAULT_RELEASE)
    parse_version(version)
    changelog = block.get("changelog")
    return {
        "version": version,
        "fingerprint": str(block.get("fingerprint", "")),
        "changelog": list(changelog) if isinstance(changelog, list) else [],
        "recorded": "release" in block,
    }


@dataclass
class ReleaseRequest:
    """What the user asked for: ``--release``, ``--previous``, ``--allow-bump-mismatch``.
    Build it with :meth:`make` before the (long) build so that bad arguments fail fast."""

    release: str | None = None
    previous: Path | None = None
    allow_bump_mismatch: bool = False

    @classmethod
    def make(
        cls,
        release: str | None,
        previous: str | Path | None,
        allow_bump_mismatch: bool = False,
    ) -> ReleaseRequest:
        if release is not None:
            parse_version(release)
        prev = Path(previous) if previous is not None else None
        if prev is not None:
            if not prev.is_dir():
                raise UsageError(f"--previous {prev}: not a directory")
            info = previous_release(prev)
            if release is not None and parse_version(release) <= parse_version(info["version"]):
                raise ReleaseError(
                    f"--release {release} is not greater than the previous release "
                    f"{info['version']} ({prev})"
                )
        elif allow_bump_mismatch:
            raise UsageError("--allow-bump-mismatch only makes sense with --previous DIR")
        return cls(release, prev, allow_bump_mismatch)

    def before_card(self, meta: DatasetMeta) -> Callable[[Path, dict[str, Any]], DatasetMeta]:
        """The writer hook: ``(tmp folder, card data) -> meta`` with release fields set."""

        def hook(tmp: Path, card: dict[str, Any]) -> DatasetMeta:
            return release_meta(meta, tmp, card, self)

        return hook


def release_meta(
    meta: DatasetMeta, new_folder: Path, new_card: dict[str, Any], request: ReleaseRequest
) -> DatasetMeta:
    """``meta`` with ``release``, ``changelog`` and ``bump_check`` filled in; raises
    :class:`ReleaseError` for a version that does not fit the changes."""
    if request.previous is None:
        version = request.release or DEFAULT_RELEASE
        entry = {
            "version": version,
            "bump": "initial",
            "fingerprint": meta.fingerprint,
            "summary": ["first release"],
        }
        return dataclasses.replace(meta, release=version, changelog=[entry], bump_check={})

    from polyprobe.cards.diff import change_summary, diff_folders

    prev = previous_release(request.previous)
    report = diff_folders(request.previous, new_folder, new_card=new_card, max_ids=0)
    required = report["bump"]["bump"]
    reasons = list(report["bump"]["reasons"])
    expected = bump_version(prev["version"], required)
    given = request.release or expected
    if parse_version(given) <= parse_version(prev["version"]):
        raise ReleaseError(
            f"release {given} is not greater than the previous release {prev['version']}"
        )
    mismatch = given != expected
    if mismatch and not request.allow_bump_mismatch:
        shown = reasons[:MAX_REASONS_IN_ERROR]
        more = len(reasons) - len(shown)
        raise ReleaseError(
            f"--release {given} does not fit the changes since {prev['version']} "
            f"({request.previous}): they require a {required} bump, i.e. --release {expected}, "
            "because: "
            + "; ".join(shown)
            + (f"; and {more} more" if more > 0 else "")
            + ". Pass --release "
            + expected
            + " or, to publish anyway, --allow-bump-mismatch (recorded in the card)."
        )
    bump_check = {
        "previous": prev["version"],
        "previous_fingerprint": prev["fingerprint"],
        "required": required,
        "expected": expected,
        "given": given,
        "mismatch_allowed": bool(mismatch),
        "reasons": reasons,
    }
    entry: dict[str, Any] = {
        "version": given,
        "bump": bump_kind(prev["version"], given),
        "previous": prev["version"],
        "fingerprint": meta.fingerprint,
        "summary": change_summary(report),
    }
    if mismatch:
        entry["required_bump"] = required
        entry["bump_mismatch_allowed"] = True
    return dataclasses.replace(
        meta, release=given, changelog=[*prev["changelog"], entry], bump_check=bump_check
    )
