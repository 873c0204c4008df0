"""Treebank discovery and provenance: which files, which UD split, licence, version, checksums;
and reading a set of treebanks in the build's fixed order.

Why this is separate from the reader: a dataset card must say exactly what it was built
from (licence for the Hub's ``license`` field and for refusing NC/SA mixes, version so a
build can be reproduced, a checksum of every input file so a silently changed file is
noticed), and that is decided once per source before any sentence is read. The reader
(:mod:`polyprobe.loaders.conllu`) reads one file and knows nothing of sources.
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.conllu import file_stem, read_conllu, split_of
from polyprobe.loaders.records import Sentence, SourceFile
from polyprobe.loaders.source import ON_INVALID, InvalidPolicy
from polyprobe.metadata import SourceInfo

__all__ = [
    "ON_INVALID",
    "TreebankSource",
    "detect_license_text",
    "discover",
    "git_head",
    "input_bytes",
    "normalize_license",
    "read_sources",
    "sha256_file",
    "treebank_metadata",
]

_SPLITS = ("train", "dev", "test")
_SPLIT_ORDER = {"train": 0, "dev": 1, "test": 2}
_CONLLU_SUFFIXES = (".conllu", ".conllu.gz")


@dataclass
class TreebankSource:
    """One input treebank (a UD folder) or one loose CoNLL-U file.

    ``name`` namespaces groups and ids downstream (``<name>/<sent_id>``), so two sources
    must never share it. ``files`` are in reading order (train, dev, test, then split-less).
    ``checksums`` maps each file's *name* to the sha256 of its bytes as stored (a ``.gz`` is
    hashed compressed), so the card can be checked against the files on disk.
    """

    name: str
    path: str
    files: list[SourceFile]
    license: str = "unknown"
    version: str = "unknown"
    checksums: dict[str, str] = field(default_factory=dict)

    @property
    def splits(self) -> set[str]:
        """UD splits present (``train``/``dev``/``test``); empty for a split-less file."""
        return {f.split for f in self.files if f.split is not None}

    @property
    def info(self) -> SourceInfo:
        """The card's entry. Files are sorted by name (not in reading order): the card has
        always printed them so, and a changed order would read as a changed source."""
        return SourceInfo(
            kind="ud-treebank",
            name=self.name,
            version=self.version,
            license=self.license,
            files=[{"name": n, "sha256": c} for n, c in sorted(self.checksums.items())],
        )

    def records(
        self, policy: InvalidPolicy, *, lazy: bool = False, shared_dicts: bool = False
    ) -> Iterator[Sentence]:
        """This treebank's sentences in :func:`read_sources` order (``lazy``,
        ``shared_dicts``: as for :func:`~polyprobe.loaders.conllu.read_conllu`)."""
        return read_sources([self], policy=policy, lazy=lazy, shared_dicts=shared_dicts)


# --------------------------------------------------------------------------------------
# licences

_CC_NAME = re.compile(
    r"\b(?:CC|Creative\s*Commons)[\s-]*(?:License\s+)?"
    r"(BY(?:[\s-]*NC)?(?:[\s-]*(?:SA|ND))?)[\s-]*(\d\.\d)",
    re.IGNORECASE,
)
_CC0 = re.compile(r"\bCC[\s-]*0\b|\bCC[\s-]*Zero\b|publicdomain/zero", re.IGNORECASE)
_GPL = re.compile(r"\b(L?GPL)[\s-]*v?(\d(?:\.\d)?)", re.IGNORECASE)
_CC_URL = re.compile(r"creativecommons\.org/licenses/([a-z-]+)/(\d\.\d)", re.IGNORECASE)
_CC_LONG = re.compile(
    r"Attribution((?:[\s-]+Non-?Commercial)?(?:[\s-]+(?:ShareAlike|Share-Alike|NoDerivatives|"
    r"NoDerivs|No-Derivatives))?)[\s-]+(\d\.\d)",
    re.IGNORECASE,
)


def _cc_id(parts: str, version: str) -> str:
    tokens = [t for t in re.split(r"[\s-]+", parts.upper()) if t]
    return "CC-" + "-".join(tokens) + "-" + version


def normalize_license(text: str) -> str:
    """``"CC BY-SA 4.0"`` -> ``"CC-BY-SA-4.0"`` (SPDX-like ids, what the Hub expects after
    lower-casing). Unrecognised strings keep their words joined by ``-`` so nothing is lost.
    """
    t = text.strip().strip("*_`.").strip()
    if not t:
        return "unknown"
    m = _CC_NAME.search(t)
    if m:
        return _cc_id(m.group(1), m.group(2))
    if _CC0.search(t):
        return "CC0-1.0"
    m = _GPL.search(t)
    if m:
        version = m.group(2) if "." in m.group(2) else m.group(2) + ".0"
        return f"{m.group(1).upper()}-{version}"
    return re.sub(r"\s+", "-", t)


def detect_license_text(text: str) -> str | None:
    """Licence id from free licence text (a LICENSE file): the first Creative Commons URL or
    long name (``Attribution-NonCommercial-ShareAlike 4.0``) wins; ``None`` if neither."""
    candidates: list[tuple[int, str]] = []
    m = _CC_URL.search(text)
    if m:
        candidates.append((m.start(), _cc_id(m.group(1), m.group(2))))
    m = _CC_LONG.search(text)
    if m:
        extra = m.group(1).upper().replace("NON-COMMERCIAL", "NC").replace("NONCOMMERCIAL", "NC")
        extra = extra.replace("SHARE-ALIKE", "SA").replace("SHAREALIKE", "SA")
        extra = re.sub(r"NO-?DERIV(?:ATIVE)?S", "ND", extra)
        candidates.append((m.start(), _cc_id("BY " + extra, m.group(2))))
    if candidates:
        return min(candidates)[1]
    m = _CC_NAME.search(text)
    if m:
        return _cc_id(m.group(1), m.group(2))
    return None


def _readme_license(folder: Path) -> str | None:
    """The UD README's machine-readable ``License:`` line (the metadata block at its end),
    which is authoritative even where the prose above it mentions an older licence."""
    for name in ("README.md", "README.txt", "README"):
        f = folder / name
        if not f.is_file():
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        found = None
        for line in text.splitlines():
            m = re.match(r"^\s*\**\s*License\s*\**\s*:\s*\**\s*(.+?)\s*$", line, re.IGNORECASE)
            if m and m.group(1).strip("*_ "):
                found = m.group(1)  # the last one: UD's metadata block comes last
        if found:
            return normalize_license(found)
    return None


def _license_file(folder: Path) -> str | None:
    for name in ("LICENSE.txt", "LICENSE", "LICENSE.md", "COPYING"):
        f = folder / name
        if f.is_file():
            found = detect_license_text(f.read_text(encoding="utf-8", errors="replace"))
            if found:
                return found
    return None


# --------------------------------------------------------------------------------------
# versions


def _git_dir(folder: Path) -> Path | None:
    """The folder's own ``.git`` (a directory, or a ``gitdir:`` file for worktrees and
    submodules). A parent repository does not count: its HEAD says nothing about this data."""
    dot = folder / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            target = target if target.is_absolute() else (folder / target)
            return target if target.is_dir() else None
    return None


def _read_ref(git_dir: Path, ref: str) -> str | None:
    loose = git_dir / ref
    if loose.is_file():
        value = loose.read_text(encoding="utf-8", errors="replace").strip()
        return value or None
    packed = git_dir / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and not line.startswith(("#", "^")):
                return parts[0]
    return None


def git_head(folder: str | Path) -> str | None:
    """Commit id of ``folder``'s own git HEAD, or ``None`` if it is not a repository.

    Reads ``.git`` directly (works without git installed); falls back to ``git rev-parse``
    for layouts it does not understand (e.g. refs in a common dir). Never raises."""
    folder = Path(folder)
    try:
        gd = _git_dir(folder)
        if gd is None:
            return None
        head = (gd / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        if re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", head):
            return head
        if head.startswith("ref:"):
            ref = head[4:].strip()
            value = _read_ref(gd, ref)
            if value is None and (gd / "commondir").is_file():
                common = (gd / (gd / "commondir").read_text().strip()).resolve()
                value = _read_ref(common, ref)
            if value and re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", value):
                return value
    except OSError:
        pass
    git = shutil.which("git")
    if git is None:
        return None
    try:
        out = subprocess.run(
            [git, "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", value) else None


def treebank_metadata(
    path: str | Path,
    *,
    license_override: str | None = None,
    source_version: str | None = None,
) -> tuple[str, str]:
    """``(licence id, version)`` of a treebank folder (or of the folder holding a file).

    Licence: override, else the README's ``License:`` line, else the LICENSE file's text,
    else ``"unknown"`` (the card then says so instead of guessing). Version: the folder's
    git HEAD, else ``source_version``, else ``"unknown"``."""
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    if license_override:
        lic = normalize_license(license_override)
    else:
        lic = _readme_license(folder) or _license_file(folder) or "unknown"
    version = git_head(folder) or source_version or "unknown"
    return lic, version


# --------------------------------------------------------------------------------------
# discovery


def sha256_file(path: str | Path) -> str:
    """sha256 of the file's bytes, streamed (inputs may be large). Imported when called:
    polyprobe.hashing imports numpy, which ``polyprobe --help`` must not pay for."""
    from polyprobe.hashing import file_sha256

    return file_sha256(str(path))


def _is_conllu(p: Path) -> bool:
    return p.is_file() and p.name.endswith(_CONLLU_SUFFIXES)


def _folder_files(folder: Path) -> list[tuple[Path, str | None]]:
    found = sorted(p for p in folder.iterdir() if _is_conllu(p))
    if not found:
        sub = sorted(
            d.name for d in folder.iterdir() if d.is_dir() and any(map(_is_conllu, d.iterdir()))
        )
        hint = (
            f"; it holds treebank folders ({', '.join(sub[:5])}{', ...' if len(sub) > 5 else ''}),"
            " pass them instead"
            if sub
            else ""
        )
        raise InputError(
            folder, None, f"no .conllu or .conllu.gz files in this folder{hint}", "no-input"
        )
    stems: dict[str, Path] = {}
    for p in found:
        s = file_stem(p.name)
        if s in stems:
            raise InputError(
                folder,
                None,
                f"both {stems[s].name} and {p.name} are present; keep one of them",
                "duplicate-input",
            )
        stems[s] = p
    with_split = [(p, split_of(p)) for p in found if split_of(p) is not None]
    if with_split:
        # A UD release folder: only the *-ud-<split> files are the treebank.
        return sorted(with_split, key=lambda t: (_SPLIT_ORDER[t[1] or "test"], t[0].name))
    return [(p, None) for p in found]


def _path_files(p: Path) -> tuple[str, list[tuple[Path, str | None]]]:
    """A source's name and its CoNLL-U files with their splits, for one input path."""
    if not p.exists():
        raise InputError(p, None, "no such file or folder", "missing-file")
    if p.is_dir():
        return p.resolve().name, _folder_files(p)
    if _is_conllu(p):
        return file_stem(p.name), [(p, split_of(p))]
    raise InputError(p, None, "not a .conllu/.conllu.gz file or a folder", "no-input")


def input_bytes(paths: Iterable[str | Path]) -> int:
    """Total size of the CoNLL-U files :func:`discover` would find under ``paths``, without
    reading them: what sizes a build's process count (``build_ud`` and, before it imports the
    build, the command line)."""
    return sum(f.stat().st_size for raw in paths for f, _ in _path_files(Path(raw))[1])


def discover(
    paths: Iterable[str | Path],
    *,
    license_overrides: dict[str, str] | None = None,
    source_version: str | None = None,
) -> list[TreebankSource]:
    """One :class:`TreebankSource` per path, in the order given.

    A folder contributes its ``*-ud-{train,dev,test}.conllu[.gz]`` files with the split
    from the file name (a folder without such names contributes all its CoNLL-U files,
    split-less); a file is a source of its own, named by its stem. ``license_overrides``
    maps source names to licence ids (an unknown name is an error: a typo must not leave
    a wrong licence in the card)."""
    overrides = dict(license_overrides or {})
    sources: list[TreebankSource] = []
    seen: dict[str, str] = {}
    for raw in paths:
        p = Path(raw)
        name, pairs = _path_files(p)
        if name in seen:
            raise UsageError(
                f"two inputs are both named {name!r} ({seen[name]} and {p}); sentence ids are "
                "namespaced by source name, so give each source a distinct name"
            )
        seen[name] = str(p)
        lic, version = treebank_metadata(
            p, license_override=overrides.pop(name, None), source_version=source_version
        )
        files = [SourceFile(name, str(f), split) for f, split in pairs]
        checksums = {f.name: sha256_file(f) for f, _ in pairs}
        sources.append(TreebankSource(name, str(p), files, lic, version, checksums))
    if overrides:
        raise UsageError(
            f"--license given for unknown source(s) {', '.join(sorted(overrides))}; "
            f"sources are: {', '.join(s.name for s in sources)}"
        )
    return sources


_READ_ORDER = {"train": 0, "dev": 1, "test": 2, None: 3}


def read_sources(
    sources: Iterable[TreebankSource],
    *,
    on_invalid: str = "raise",
    skipped: collections.Counter[str] | None = None,
    lazy: bool = False,
    shared_dicts: bool = False,
    policy: InvalidPolicy | None = None,
) -> Iterator[Sentence]:
    """Every sentence of every source, in a fixed order: sources as given; within a source
    train, dev, test (then split-less files), files of one split by name. The order is part
    of determinism: downstream ids and groups depend on which copy of a sentence comes first.
    ``lazy`` and ``shared_dicts``: as for :func:`read_conllu`.

    Malformed input: ``policy``, or else ``on_invalid`` with counts in ``skipped`` (the older
    spelling of the same thing; giving both is an error, as one of them would be ignored).
    """
    if policy is None:
        policy = InvalidPolicy(on_invalid, skipped)
    elif on_invalid != "raise" or skipped is not None:
        raise UsageError("give read_sources either policy= or on_invalid=/skipped=, not both")
    mode, counts = policy.mode, policy.skipped
    for src in sources:
        for f in sorted(src.files, key=lambda f: (_READ_ORDER.get(f.split, 3), f.path)):
            yield from read_conllu(
                f.path,
                treebank=src.name,
                split=f.split,
                on_invalid=mode,
                skipped=counts,
                lazy=lazy,
                shared_dicts=shared_dicts,
            )
