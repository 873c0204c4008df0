"""What a dataset folder is, once, for every command that reads or publishes one.

A dataset folder is a boundary: ``validate``, ``polyprobe.load``, ``info``, ``evaluate``,
``diff``, ``export`` and ``publish`` read (and publish) only

* ``README.md``, the card, whose front matter is within the card limits below;
* the files its ``configs`` name in ``data_files``, inside the folder;
* ``report.json`` and the files under ``plots/``, when present;

all of them regular files reached through no symbolic link. A link anywhere in the folder (a
``notes.txt -> ../secret.txt`` beside the data, a parquet file that points elsewhere, a linked
``data/``) is refused, as is a card path with ``..`` or an absolute one: either would let a
command read, score or upload bytes from outside what was built. Hidden entries (``.cache``,
``.git``) are never part of a dataset and are neither read nor published.

Why the card limits: the front matter is parsed by every command before anything else, and a
card is text anyone can edit. A 55 MB front matter or a YAML alias structure that expands to
10⁹ leaves is no card polyprobe writes (a config costs about 2.5 kB of front matter; a suite
of a few hundred configs stays well under a megabyte), and it would make every command parse
or walk it for minutes. So the YAML is composed first and its node graph measured (aliases
counted as the copies they stand for) before any Python object is built.

:func:`inspect_folder` lists every problem (``validate`` reports them all);
:func:`open_folder` raises the first as one :class:`~polyprobe.errors.DatasetFolderError`
line naming the file — the same line ``validate`` lists.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from polyprobe.cards.card import _FRONT_MATTER, README, REPORT
from polyprobe.errors import (
    CardError,
    CardNotFoundError,
    DataFileError,
    DatasetFolderError,
    FolderNotFoundError,
    NotAFolderError,
    OutsideFolderError,
)

PLOTS = "plots"

# Card limits. A polyprobe config costs ~2.5 kB of front matter and ~600 YAML nodes, so these
# leave room for suites of thousands of configs while refusing a hostile card in milliseconds.
MAX_README_BYTES = 64 * 1024 * 1024  # the whole file, body tables included, before reading it
MAX_FRONT_MATTER_BYTES = 4 * 1024 * 1024
MAX_CONFIGS = 4096
MAX_YAML_NODES = 2_000_000  # scalars, sequences and mappings, every alias counted as its copy
MAX_YAML_DEPTH = 64

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_GLOB = frozenset("*?[")


@dataclass(frozen=True)
class Problem:
    """One reason a folder is refused; ``fatal`` when nothing else can be checked."""

    error: type[DatasetFolderError]
    reason: str
    fatal: bool = False


@dataclass
class DatasetFolder:
    """A folder that passed the boundary checks (or, from :func:`inspect_folder`, the part
    of it that did: files with a problem are left out of ``data_files``)."""

    root: Path
    card: dict[str, Any]
    body: str
    # config -> split -> data files (relative POSIX paths), in the card's order
    data_files: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    extras: list[str] = field(default_factory=list)  # report.json, plots/... that exist
    named: set[str] = field(default_factory=set)  # every path in the folder the card names
    tree: set[str] = field(default_factory=set)  # every regular file, hidden ones left out

    def path(self, rel: str) -> Path:
        return self.root / rel

    def files(self) -> list[str]:
        """Every file of the dataset (what ``publish`` uploads): README.md, the data files,
        report.json and the plots; nothing else in the folder."""
        named = {README, *self.extras}
        for splits in self.data_files.values():
            for paths in splits.values():
                named.update(paths)
        return sorted(named)


def parse_card(text: str, where: str | Path) -> tuple[dict[str, Any], str]:
    """(front matter, body) of a card's text, within the card limits; :class:`CardError`
    naming ``where`` otherwise."""
    over = CardError(
        f"{where}: the YAML front matter is over the card limit of {MAX_FRONT_MATTER_BYTES:,} bytes"
    )
    # Only the head is searched for the closing fence: a 55 MB front matter is refused in
    # the time its first 4 MB take, not the whole text's.
    head = text[: MAX_FRONT_MATTER_BYTES + 64]
    match = _FRONT_MATTER.search(head)
    if not match:
        if len(head) < len(text) and _FRONT_MATTER.match(head + "\n---\n"):
            raise over
        raise CardError(f"{where}: no YAML front matter (a '---' block at the top)")
    front = match.group(2)
    if len(front.encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        raise over
    loader = _LOADER(front)
    try:
        node = loader.get_single_node()
        if node is not None:
            _measure(node, where)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        first = " ".join(str(exc).split())
        raise CardError(f"{where}: YAML front matter does not parse: {first}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise CardError(f"{where}: YAML front matter is not a mapping")
    configs = data.get("configs")
    if isinstance(configs, list) and len(configs) > MAX_CONFIGS:
        raise CardError(
            f"{where}: the card lists {len(configs):,} configs, over the card limit of "
            f"{MAX_CONFIGS:,}"
        )
    return data, text[match.end() :]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _measure(root: yaml.Node, where: str | Path) -> None:
    """Refuse a node graph whose expansion (an alias counts as a copy of what it names) has
    more than :data:`MAX_YAML_NODES` nodes, is deeper than :data:`MAX_YAML_DEPTH`, or refers
    to itself. Each distinct node is visited once, so a billion-laughs card costs as much as
    its text."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_: set[int] = set()  # the ancestors of the node being visited
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            open_.discard(key)
            if size[key] > MAX_YAML_NODES:
                raise CardError(
                    f"{where}: the YAML front matter expands to more than {MAX_YAML_NODES:,} "
                    "values (aliases counted as the copies they stand for), over the card limit"
                )
            continue
        if key in size:
            continue
        open_.add(key)
        if len(open_) > MAX_YAML_DEPTH:
            raise CardError(
                f"{where}: the YAML front matter nests deeper than {MAX_YAML_DEPTH} levels, "
                "over the card limit"
            )
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in open_:
                raise CardError(f"{where}: the YAML front matter holds an alias to itself")
            if id(kid) not in size:
                stack.append((kid, False))


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


class _Inspection:
    def __init__(self, root: Path, card_required: bool = True) -> None:
        self.root = root
        self.card_required = card_required
        self.problems: list[Problem] = []
        self.named: set[str] = set()

    def add(self, error: type[DatasetFolderError], reason: str, fatal: bool = False) -> None:
        self.problems.append(Problem(error, reason, fatal))

    def run(self) -> DatasetFolder | None:
        root = self.root
        if not os.path.lexists(root):
            self.add(FolderNotFoundError, f"{root}: no such folder", True)
            return None
        if not root.is_dir():
            self.add(NotAFolderError, f"{root}: not a folder", True)
            return None
        readme = root / README
        if _is_link(readme):
            self.add(OutsideFolderError, f"{readme}: {_LINK}", True)
            return None
        if not readme.is_file():
            if not self.card_required:
                return self._cardless()
            self.add(
                CardNotFoundError,
                f"{readme}: missing (a dataset folder needs a README.md card)",
                True,
            )
            return None
        try:
            if readme.stat().st_size > MAX_README_BYTES:
                raise CardError(
                    f"{readme}: {readme.stat().st_size:,} bytes, over the card limit of "
                    f"{MAX_README_BYTES:,}"
                )
            text = readme.read_text(encoding="utf-8")
            if not self.card_required and not _FRONT_MATTER.search(text):
                return self._cardless()
            card, body = parse_card(text, readme)
        except (OSError, UnicodeDecodeError) as exc:
            self.add(CardError, f"{readme}: cannot be read as UTF-8 text ({exc})", True)
            return None
        except CardError as exc:
            self.add(CardError, str(exc), True)
            return None
        folder = DatasetFolder(root, card, body)
        tree = self._walk()
        self._configs(folder, readme, tree)
        folder.named, folder.tree = self.named, tree
        folder.extras = sorted(rel for rel in tree if rel == REPORT or rel.startswith(f"{PLOTS}/"))
        return folder

    def _cardless(self) -> DatasetFolder:
        """A folder without a card (``evaluate`` reads plain parquet folders as ``datasets``
        does): no link in it, and every parquet file in it readable."""
        folder = DatasetFolder(self.root, {}, "")
        folder.tree = tree = self._walk()
        for rel in sorted(tree):
            self._readable(f"{self.root}: (no card)", rel)
        return folder

    def _walk(self) -> set[str]:
        """Every regular file of the folder (relative POSIX paths), hidden entries left out;
        each symbolic link met is a problem (and is not followed)."""
        found: set[str] = set()
        for top, dirs, files in os.walk(self.root, followlinks=False):
            base = Path(top)
            for name in sorted(dirs):
                if name.startswith("."):
                    dirs.remove(name)
                elif _is_link(base / name):
                    dirs.remove(name)
                    self.add(OutsideFolderError, f"{base / name}: {_LINK}")
            for name in sorted(files):
                if name.startswith("."):
                    continue
                path = base / name
                if _is_link(path):
                    self.add(OutsideFolderError, f"{path}: {_LINK}")
                elif path.is_file():
                    found.add(path.relative_to(self.root).as_posix())
        return found

    def _configs(self, folder: DatasetFolder, readme: Path, tree: set[str]) -> None:
        entries = folder.card.get("configs")
        if entries is None and not self.card_required:
            for rel in sorted(tree):  # datasets infers the configs from the files
                self._readable(f"{readme}: (no configs)", rel)
            return
        if not isinstance(entries, list) or not entries:
            self.add(CardError, f"{readme}: no 'configs' list in the YAML front matter")
            return
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("config_name"), str):
                self.add(CardError, f"{readme}: a 'configs' entry has no config_name: {entry!r}")
                continue
            name = entry["config_name"]
            data_files = entry.get("data_files")
            if not isinstance(data_files, list) or not data_files:
                self.add(CardError, f"{readme}: config {name!r} has no data_files list")
                continue
            splits = folder.data_files.setdefault(name, {})
            for df in data_files:
                split = df.get("split") if isinstance(df, dict) else None
                paths = df.get("path") if isinstance(df, dict) else None
                if not isinstance(split, str) or not isinstance(paths, (str, list)) or not paths:
                    self.add(
                        CardError, f"{readme}: config {name!r}: malformed data_files entry {df!r}"
                    )
                    continue
                for rel in [paths] if isinstance(paths, str) else paths:
                    where = f"{readme}: config {name!r} split {split!r}"
                    splits.setdefault(split, []).extend(self._data_file(where, str(rel), tree))

    def _data_file(self, where: str, rel: str, tree: set[str]) -> list[str]:
        pure = PurePosixPath(rel)
        shown = self.root / rel
        if pure.is_absolute() or ".." in pure.parts or "\\" in rel:
            self.add(OutsideFolderError, f"{where}: data file {shown} points outside the folder")
            return []
        if any(part.startswith(".") for part in pure.parts):
            self.add(
                DataFileError,
                f"{where}: data file {shown} is hidden; hidden entries are never part of a dataset",
            )
            return []
        if any(ch in rel for ch in _GLOB):
            matched = sorted(p for p in tree if fnmatch.fnmatchcase(p, pure.as_posix()))
            if not matched:
                self.add(DataFileError, f"{where}: data file pattern {rel} matches no file")
            self.named.update(matched)
            return [p for p in matched if self._readable(where, p)]
        rel = pure.as_posix()
        self.named.add(rel)
        for depth in range(1, len(pure.parts) + 1):
            if _is_link(self.root.joinpath(*pure.parts[:depth])):
                return []  # the walk reported the link
        if rel not in tree:
            what = "is not a regular file" if os.path.lexists(shown) else "does not exist"
            self.add(DataFileError, f"{where}: data file {shown} listed in README {what}")
            return []
        return [rel] if self._readable(where, rel) else []

    def _readable(self, where: str, rel: str) -> bool:
        """A parquet data file's footer reads: a truncated or foreign file is named here, not
        by Arrow's error from whichever read comes first."""
        if not rel.endswith(".parquet"):
            return True
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.root / rel
        try:
            pq.read_metadata(path)
        except (pa.ArrowException, OSError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self.add(
                DataFileError, f"{where}: data file {path}: not a readable parquet file ({first})"
            )
            return False
        return True


_LINK = (
    "is a symbolic link; a dataset folder holds only regular files (nothing is read or "
    "published through a link)"
)


def inspect_folder(
    path: str | Path, *, card_required: bool = True
) -> tuple[DatasetFolder | None, list[Problem]]:
    """The folder as far as it can be read, and every boundary problem found (a fatal one
    first and alone: then the folder is ``None``). ``card_required=False`` (``evaluate``
    only, which also reads plain parquet folders) takes a folder without a card, or whose
    README has no front matter, as one with an empty card: its links and unreadable parquet
    files are refused all the same."""
    check = _Inspection(Path(path), card_required)
    folder = check.run()
    return folder, check.problems


def open_folder(path: str | Path, *, card_required: bool = True) -> DatasetFolder:
    """The dataset folder at ``path``, or the first problem :func:`inspect_folder` finds,
    raised as its one line (the line ``validate`` lists)."""
    folder, problems = inspect_folder(path, card_required=card_required)
    if problems:
        raise problems[0].error(problems[0].reason)
    assert folder is not None
    return folder
