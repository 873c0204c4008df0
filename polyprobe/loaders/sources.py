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
import contextlib
import itertools
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.conllu import block_sent_ids, file_stem, read_conllu, split_of
from polyprobe.loaders.declared import DeclaredLanguage, treebank_languages
from polyprobe.loaders.inputs import read_note
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
    "input_files",
    "normalize_license",
    "read_sources",
    "record_parts",
    "readme_citation",
    "readme_release",
    "sha256_file",
    "text_size",
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
    citation: str = ""  # what the treebank's README asks to cite ("" if it says nothing)
    # the languages its file names and README declare (polyprobe.loaders.declared)
    languages: tuple[DeclaredLanguage, ...] = ()

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
            citation=self.citation,
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


_README_NAMES = ("README.md", "README.txt", "README")


def _readme_text(folder: Path) -> str | None:
    """The folder's README (UD ships ``README.md`` or ``README.txt``), or ``None``."""
    for name in _README_NAMES:
        text = read_note(folder / name)
        if text is not None:
            return text
    return None


def _readme_license(folder: Path) -> str | None:
    """The UD README's machine-readable ``License:`` line (the metadata block at its end),
    which is authoritative even where the prose above it mentions an older licence."""
    for name in _README_NAMES:
        text = read_note(folder / name)
        if text is None:
            continue
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
        text = read_note(folder / name)
        if text is not None:
            found = detect_license_text(text)
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


# Markdown headings (``# Changelog``, ``## References``); UD READMEs that are plain text use
# the same ``#`` lines.
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_CHANGELOG_TITLE = re.compile(r"^change\s*logs?\b", re.IGNORECASE)
# How UD changelogs name a release: "v2.16", "v 2.17", "v.2.3+", "UD 2.13", "1.4 -> 2.0".
_RELEASE = re.compile(r"(?:\bv\s*\.?\s*|\bUD\s+v?|->\s*)(\d+)\.(\d+)(?!\.?\d)", re.IGNORECASE)
_CITATION_TITLE = re.compile(
    r"^(?:citations?|cite|how\s+to\s+cite|references?|key\s+references?|bibliography)\b",
    re.IGNORECASE,
)
# A prose lead-in to a list of works ("please cite the following papers:", "Any use of the
# data should reference the above plus:"), for READMEs without a citation heading.
_CITE_LEAD = re.compile(
    r"\b(?:cite\s+the\s+following|should\s+(?:cite|reference))\b[^\n]*:\s*$", re.IGNORECASE
)
_BIBTEX_START = re.compile(r"^\s*@[A-Za-z]+\s*\{")
_TEMPLATE_TAG = re.compile(r"^\s*\{%.*%\}\s*$")  # Jekyll's {% raw %} around BibTeX


def _sections(text: str) -> list[tuple[int, str, list[str]]]:
    """``(level, title, lines)`` per heading of a README, headings inside fenced blocks
    ignored; a section ends at the next heading of the same or a higher level."""
    lines = text.splitlines()
    heads: list[tuple[int, int, str]] = []
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2).strip("*_ ")))
    out = []
    for k, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[k + 1 :] if lv <= level), len(lines))
        out.append((level, title, lines[i + 1 : end]))
    return out


def readme_release(folder: str | Path) -> str | None:
    """The newest release the README's changelog names (``"v2.16"``), or ``None``.

    Why the changelog and not the README's title line: UD treebanks list a dated entry per
    release that changed them, while a title line may lag behind (EWT's says v2.15 above a
    v2.16 entry). The newest entry is the release that last changed the files by the
    treebank's own account. ``stats.xml`` holds sizes only, no version."""
    text = _readme_text(Path(folder))
    if text is None:
        return None
    found: list[tuple[int, int]] = []
    for _, title, lines in _sections(text):
        if not _CHANGELOG_TITLE.match(title):
            continue
        for line in lines:
            if line.strip().lower().startswith("data available since"):
                continue  # the metadata block's first release, not a changelog entry
            found.extend((int(a), int(b)) for a, b in _RELEASE.findall(line))
    if not found:
        return None
    major, minor = max(found)
    return f"v{major}.{minor}"


def _tidy_block(lines: list[str]) -> str:
    """Lines of a README block as a citation: fences and template tags dropped, tabs
    expanded, common indentation and surrounding blank lines removed."""
    import textwrap

    kept = [
        line.expandtabs(8).rstrip()
        for line in lines
        if not line.lstrip().startswith("```") and not _TEMPLATE_TAG.match(line)
    ]
    text = textwrap.dedent("\n".join(kept)).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def _bibtex_entries(lines: list[str]) -> list[str]:
    """Every BibTeX entry in ``lines`` (from ``@type{`` to its closing brace)."""
    entries: list[str] = []
    i = 0
    while i < len(lines):
        if not _BIBTEX_START.match(lines[i]):
            i += 1
            continue
        depth, j = 0, i
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            j += 1
            if depth <= 0:
                break
        entries.append(_tidy_block(lines[i:j]))
        i = j
    return entries


def _lead_in_works(lines: list[str]) -> str:
    """The works listed after a "please cite the following:" line: the paragraphs right
    after it that are list items or indented (prose that follows is not part of it)."""
    for i, line in enumerate(lines):
        if not _CITE_LEAD.search(line):
            continue
        block: list[str] = []
        for nxt in lines[i + 1 :]:
            if not nxt.strip():
                block.append(nxt)
                continue
            if block and not block[-1].strip() and not re.match(r"^(\s+|[-*•]|\d+[.)])", nxt):
                break  # a new paragraph that is neither a list item nor indented
            if not block and not re.match(r"^(\s+|[-*•]|\d+[.)])", nxt):
                break
            block.append(nxt)
        works = _tidy_block(block)
        if works:
            return works
    return ""


def readme_citation(folder: str | Path) -> str:
    """What the folder's README asks users to cite, or ``""``: the BibTeX entries of its
    citation section ("Citations", "Cite", "References", "Key reference", ...), else that
    section's text, else the works listed after a "please cite the following:" line.
    Verbatim apart from layout (fences, template tags and indentation removed), so the card
    cites what the treebank's authors wrote, not a guess."""
    text = _readme_text(Path(folder))
    if text is None:
        return ""
    for _, title, lines in _sections(text):
        if _CITATION_TITLE.match(title):
            entries = _bibtex_entries(lines)
            block = "\n\n".join(entries) if entries else _tidy_block(lines)
            if block:
                return block
    return _lead_in_works(text.splitlines())


def treebank_metadata(
    path: str | Path,
    *,
    license_override: str | None = None,
    source_version: str | None = None,
) -> tuple[str, str]:
    """``(licence id, version)`` of a treebank folder (or of the folder holding a file).

    Licence: override, else the README's ``License:`` line, else the LICENSE file's text,
    else ``"unknown"`` (the card then says so instead of guessing). Version: the folder's
    git HEAD, else ``source_version``, else the newest release the README's changelog names
    (:func:`readme_release`), else ``"unknown"``."""
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    if license_override:
        lic = normalize_license(license_override)
    else:
        lic = _readme_license(folder) or _license_file(folder) or "unknown"
    version = git_head(folder) or source_version or readme_release(folder) or "unknown"
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


def input_files(paths: Iterable[str | Path]) -> list[Path]:
    """The CoNLL-U files :func:`discover` would find under ``paths``, in reading order,
    without reading them (what a progress bar of a build's first pass measures)."""
    return [f for raw in paths for f, _ in _path_files(Path(raw))[1]]


def input_bytes(paths: Iterable[str | Path]) -> int:
    """Total size of the CoNLL-U files :func:`discover` would find under ``paths``, without
    reading them: what sizes a build's process count (``build_ud`` and, before it imports the
    build, the command line)."""
    return sum(f.stat().st_size for f in input_files(paths))


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
        citation = readme_citation(p.parent if p.is_file() else p)
        sources.append(TreebankSource(name, str(p), files, lic, version, checksums, citation))
        sources[-1].languages = treebank_languages(p if p.is_dir() else None, [f for f, _ in pairs])
    if overrides:
        raise UsageError(
            f"--license given for unknown source(s) {', '.join(sorted(overrides))}; "
            f"sources are: {', '.join(s.name for s in sources)}"
        )
    return sources


_READ_ORDER = {"train": 0, "dev": 1, "test": 2, None: 3}

#: Reason keys :func:`read_sources` counts under ``--on-invalid skip`` besides the reader's
#: (:data:`polyprobe.loaders.conllu.REASONS`).
REASONS: dict[str, str] = {
    "duplicate-sent-id": "a sentence's sent_id was used by an earlier sentence of its treebank",
}


def read_sources(
    sources: Iterable[TreebankSource],
    *,
    on_invalid: str = "raise",
    skipped: collections.Counter[str] | None = None,
    lazy: bool = False,
    shared_dicts: bool = False,
    policy: InvalidPolicy | None = None,
    key_hash: Callable[[str], int] = hash,
    part: int = 0,
    parts: int = 1,
) -> Iterator[Sentence]:
    """Every sentence of every source, in a fixed order: sources as given; within a source
    train, dev, test (then split-less files), files of one split by name. The order is part
    of determinism: downstream ids and groups depend on which copy of a sentence comes first.
    ``lazy`` and ``shared_dicts``: as for :func:`read_conllu`.

    ``part``/``parts``: only the ``part``-th (0-based) of ``parts`` contiguous ranges of
    those sentences (:func:`record_parts` says where they are cut), so that ``parts``
    processes can share one reading; the parts in order yield exactly the sentences, and
    count exactly the skips, of the whole read. A part checks its sent_ids against the ids
    of its treebank's sentence blocks before it too (:func:`block_sent_ids`, a scan; a hit
    is confirmed by a real read, as any repeat is).

    Malformed input: ``policy``, or else ``on_invalid`` with counts in ``skipped`` (the older
    spelling of the same thing; giving both is an error, as one of them would be ignored).

    A ``sent_id`` used twice within a source (in one file or across its files) is refused
    naming both places (``duplicate-sent-id``), or under ``skip`` the later sentence is
    dropped and counted: ids and groups downstream are ``<source>/<sent_id>``, so two
    sentences with one id would publish duplicate ids and one group in two splits.
    ``key_hash``: the sent_id hash of that check (:class:`~polyprobe.loaders.seen_keys.SeenKeys`;
    tests inject a colliding one: a collision costs a re-read, never a sentence).
    """
    if policy is None:
        policy = InvalidPolicy(on_invalid, skipped)
    elif on_invalid != "raise" or skipped is not None:
        raise UsageError("give read_sources either policy= or on_invalid=/skipped=, not both")
    from polyprobe.loaders.seen_keys import SeenKeys  # numpy: not for `polyprobe --help`

    mode, counts = policy.mode, policy.skipped
    sources = list(sources)
    plan = record_parts(sources, parts)[part] if parts != 1 else None
    for number, src in enumerate(sources):
        files = _read_order(src)
        ranges = [(i, None, None) for i in range(len(files))]
        if plan is not None:
            ranges = [(i, a, b) for (n, i), (a, b) in plan.items() if n == number]
            if not ranges:
                continue
        # Until a sent_id's hash repeats, only the hashes are kept (8 bytes a sentence, where
        # the ids themselves cost ~175); the first repeat (a duplicate, or a collision) re-reads
        # the source so far into ``exact``, the ids with their first places, checked from then
        # on. A clean treebank is read once; one with duplicates once and a part.
        hashes = SeenKeys(key_hash)
        # sent_id -> line * len(files) + file index of its first sentence: a plain int, as a
        # tuple per sentence costs 3% of a pass (allocated, and tracked by the collector)
        exact: dict[str, int] | None = None
        width = len(files)
        first, start, _ = ranges[0]
        before = None
        if first or start is not None:  # a part: the ids of the treebank before it
            for f in files[:first]:
                block_sent_ids(f.path, hashes.add)
            before = hashes.add
        for index, start, stop in ranges:
            f = files[index]
            for sentence in read_conllu(
                f.path,
                treebank=src.name,
                split=f.split,
                on_invalid=mode,
                skipped=counts,
                lazy=lazy,
                shared_dicts=shared_dicts,
                start=start,
                stop=stop,
                before=before if index == first else None,
            ):
                sid = sentence.sent_id
                if exact is None:
                    if not hashes.add(sid):
                        yield sentence
                        continue
                    exact = _first_places(src.name, files, index, sentence.line)
                if sid not in exact:
                    exact[sid] = sentence.line * width + index
                    yield sentence
                else:
                    line, first = divmod(exact[sid], width)
                    policy.reject(_duplicate(src.name, sentence, files[first].path, line))


def _read_order(src: TreebankSource) -> list[SourceFile]:
    """A source's files in :func:`read_sources` order."""
    return sorted(src.files, key=lambda f: (_READ_ORDER.get(f.split, 3), f.path))


def text_size(path: str | Path) -> int:
    """A CoNLL-U file's size as text, without reading it: its size, or for a gzip file the
    size its trailer records (ISIZE: the size modulo 4 GiB of the last member, so an
    estimate); 0 for a file that cannot be opened (its error is the reader's to report).
    Only ever an estimate for :func:`record_parts`: every process computes the same."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
            size = fh.seek(0, 2)
            if magic == b"\x1f\x8b" and size >= 18:
                fh.seek(-4, 2)
                return int.from_bytes(fh.read(4), "little")
            return size
    except OSError:
        return 0


#: One process's part of a reading: (source number, file number in reading order) ->
#: (start, stop) byte offsets into that file's text (``None``: its start, its end).
PartPlan = dict[tuple[int, int], tuple[int | None, int | None]]


#: What scanning a byte costs a part that starts after it (:func:`read_sources` scans the
#: bytes before a part's start without building sentences; for a gzip file it decompresses
#: them again), as a fraction of what a build's pass over that byte costs. Measured on the
#: EWT whole-suite build with two processes (``bench/build_ranges.py``, 8 builds each): with
#: ranges of equal bytes the later range spent on average 0.33 CPU-s more than the earlier
#: in the observe pass and 0.41 in the candidate pass (about 0.18 and 0.10 of those passes'
#: cost per byte); with this weight +0.05 and -0.13 (one range's work varies by up to
#: +-0.5 CPU-s from build to build on that VM). Only the cuts depend on it, never the output.
SCAN_WEIGHT = 0.08


def record_parts(
    sources: Iterable[TreebankSource], parts: int, *, scan_weight: float = SCAN_WEIGHT
) -> list[PartPlan]:
    """Where :func:`read_sources` cuts the sentences of ``sources`` into ``parts`` contiguous
    ranges: the files' text sizes (:func:`text_size`) laid end to end in reading order, and
    each range's bytes plus ``scan_weight`` times the bytes before it (the scan a range
    starts with, see :data:`SCAN_WEIGHT`) the same for every range; so range k starts at
    byte ``total * (1 - q**k) / (1 - q**parts)`` with ``q = 1 - scan_weight`` (``k * total
    // parts`` for a weight of 0). A target inside a file becomes that file's
    ``start``/``stop`` offset, and the reader begins the range at the first sentence block at
    or after it that may start a part (one opening a ``# newdoc`` document, or any block
    while no document is open: ``polyprobe.loaders.conllu._opens_part``), else at the next
    file; a target at a file's start is that file's start. A function of the files' sizes
    and ``parts`` only, so that every process computes every cut by itself; balanced by
    bytes and scans, and a range may be empty (a file with too few marks, more parts than
    blocks)."""
    if parts < 1:
        raise UsageError(f"parts must be at least 1, not {parts}")
    if not 0 <= scan_weight < 1:
        raise UsageError(f"scan_weight must be in [0, 1), not {scan_weight}")
    files = [(n, i, f) for n, src in enumerate(sources) for i, f in enumerate(_read_order(src))]
    sizes = [text_size(f.path) for _, _, f in files]
    total = sum(sizes)
    q = 1 - scan_weight

    def target(k: int) -> int:
        """Where range k starts, in bytes of all the files laid end to end."""
        if scan_weight == 0:
            return k * total // parts
        return int(total * (1 - q**k) / (1 - q**parts))

    def locate(target: int) -> tuple[int, int | None]:
        """(file position, offset in it or None for its start) of a byte target."""
        at = 0
        for g, size in enumerate(sizes):
            if at <= target < at + size:
                return g, (target - at) or None
            at += size
        return len(files), None

    bounds = [(0, None)] + [locate(target(k)) for k in range(1, parts)]
    bounds.append((len(files), None))
    plans: list[PartPlan] = []
    for (g0, start), (g1, stop) in itertools.pairwise(bounds):
        plan: PartPlan = {}
        for g in range(g0, g1 + 1 if stop is not None else g1):
            n, i, _ = files[g]
            plan[n, i] = (start if g == g0 else None, stop if g == g1 else None)
        plans.append(plan)
    return plans


def _first_places(
    source: str, files: list[SourceFile], stop_file: int, stop_line: int
) -> dict[str, int]:
    """``sent_id -> line * len(files) + file index`` of the first sentence with each id in
    ``files`` before line ``stop_line`` of ``files[stop_file]``: the sentences
    :func:`read_sources` has yielded so far (the same reader, so the same ids; sentences it
    skipped as malformed are skipped here too, and not counted again)."""
    places: dict[str, int] = {}
    width = len(files)
    for index, f in enumerate(files[: stop_file + 1]):
        sentences = read_conllu(
            f.path,
            treebank=source,
            split=f.split,
            on_invalid="skip",
            skipped=collections.Counter(),
            lazy=True,
        )
        with contextlib.closing(sentences):
            for sentence in sentences:
                if index == stop_file and sentence.line >= stop_line:
                    break
                places.setdefault(sentence.sent_id, sentence.line * width + index)
    return places


def _duplicate(source: str, sentence: Sentence, path: str, line: int) -> InputError:
    return InputError(
        sentence.source.path,
        sentence.line,
        f"sent_id {sentence.sent_id!r} is used twice in {source}: this sentence and the one "
        f"at {path}:{line} (ids must be unique within a treebank; with --on-invalid skip "
        "the later one is dropped)",
        "duplicate-sent-id",
    )
