"""RST discourse trees: ``.rs3`` (RSTTool / rstWeb XML) and ``.dis`` (RST Discourse Treebank
bracketing) files, read into one tree model as annotated (not yet binarised).

Why one model: both formats say the same thing - elementary discourse units (EDUs) in text
order, and nodes whose children are nuclei or satellites with a relation - and the
discourse-relation task should not care which tool wrote the file. A node's ``children`` are
ordered by their first EDU; each child carries its ``role`` (``N`` nucleus, ``S`` satellite)
and ``relation``: a satellite's relation to its nucleus, the multinuclear relation for the
nuclei of a multinuclear node, ``span`` for the single nucleus of a mononuclear node.

Each file is read whole through the input layer (:func:`polyprobe.loaders.inputs.read_text`):
missing, a folder, empty, a byte that is not UTF-8, a control character or an over-long line
is an :class:`InputError` naming the file and line. ``.rs3`` is XML, so a UTF-16/32 file with
a byte-order mark is read too (XML allows it); ``.dis`` is UTF-8 text. A file is one
document: under ``--on-invalid skip`` a document with a per-line problem is the unit
dropped and counted; a whole-file problem (missing, a folder, empty) is fatal.

The split of a file is the treebank's own when its path says it (a folder named ``train``,
``training``, ``dev``, ``development``, ``test``; RST-DT ships ``TRAINING``/``TEST``);
``None`` otherwise.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import check_file, lines_of, read_text
from polyprobe.loaders.records import SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

RST_SUFFIXES: tuple[str, ...] = (".rs3", ".dis")
_SPLIT_FOLDERS = {
    "train": "train",
    "training": "train",
    "dev": "dev",
    "development": "dev",
    "validation": "dev",
    "test": "test",
}


@dataclass
class RstNode:
    """A node of an RST tree: an EDU (``edu`` set, no children) or a span of its children."""

    role: str  # "N" | "S" | "root"
    relation: str  # relation to the parent ("span" for a mononuclear node's nucleus)
    children: list[RstNode] = field(default_factory=list)
    edu: int | None = None  # 0-based EDU index for a leaf
    line: int = 0  # where the node is written (for errors)

    def first(self) -> int:
        return self.edu if self.edu is not None else self.children[0].first()

    def last(self) -> int:
        return self.edu if self.edu is not None else self.children[-1].last()


@dataclass(frozen=True)
class RstDocument:
    """One RST-annotated document: its EDUs in text order and its tree (as annotated).
    ``units`` are the EDU texts (what a document's duplicate identity is made of)."""

    doc_id: str
    edus: tuple[str, ...]
    tree: RstNode
    source: SourceFile
    line: int

    @property
    def units(self) -> tuple[str, ...]:
        return self.edus


def split_of_path(path: Path) -> str | None:
    """The treebank split a file's folders name, or None."""
    for part in reversed(path.parts[:-1]):
        split = _SPLIT_FOLDERS.get(part.lower())
        if split is not None:
            return split
    return None


# --------------------------------------------------------------------------- .rs3


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def read_rs3(path: Path) -> tuple[tuple[str, ...], RstNode]:
    """EDUs and tree of an ``.rs3`` file; ``InputError`` naming file, line and problem."""
    raw = read_text(path, "RST file", utf16=True)
    try:
        root = ET.fromstring(raw)  # a str: an encoding declaration is not applied again
    except ET.ParseError as exc:
        raise InputError(path, exc.position[0], f"not well-formed XML: {exc}", "bad-rs3") from None
    # element -> line, from the raw text (ElementTree keeps no line numbers)
    lines: dict[str, int] = {}
    again: dict[str, int] = {}  # the line of an id's second element, if any
    for m in re.finditer(r"<(segment|group)\b[^>]*\bid=\"([^\"]+)\"", raw):
        if m.group(2) in lines:
            again.setdefault(m.group(2), _line_of(raw, m.start()))
        lines.setdefault(m.group(2), _line_of(raw, m.start()))
    kinds: dict[str, str] = {}
    for rel in root.iter("rel"):
        name, kind = rel.get("name"), rel.get("type")
        if name:
            kinds[name] = kind or "rst"
    body = root.find("body")
    if body is None:
        raise InputError(path, None, "no <body> element", "bad-rs3")
    nodes: dict[str, tuple[str, str | None, str, str | None]] = {}  # id -> kind, parent, rel, type
    edus: list[tuple[str, str]] = []  # (id, text) in document order
    for el in body:
        nid = el.get("id")
        if el.tag not in ("segment", "group") or nid is None:
            continue
        if nid in nodes:
            problem = f"node id {nid} used twice (first on line {lines.get(nid)})"
            raise InputError(path, again.get(nid, lines.get(nid)), problem, "bad-rs3")
        nodes[nid] = (el.tag, el.get("parent"), el.get("relname") or "", el.get("type"))
        if el.tag == "segment":
            text = " ".join("".join(el.itertext()).split())
            if not text:
                raise InputError(path, lines.get(nid), f"segment {nid} is empty", "bad-rs3")
            edus.append((nid, text))
    if not edus:
        raise InputError(path, None, "no <segment> (no EDUs)", "bad-rs3")
    edu_index = {nid: i for i, (nid, _) in enumerate(edus)}
    children: dict[str, list[str]] = {nid: [] for nid in nodes}
    roots: list[str] = []
    for nid, (_, parent, _, _) in nodes.items():
        if parent is None:
            roots.append(nid)
        elif parent not in nodes:
            raise InputError(
                path, lines.get(nid), f"node {nid}: parent {parent} does not exist", "bad-rs3"
            )
        else:
            children[parent].append(nid)
    if len(roots) != 1:
        raise InputError(
            path,
            lines.get(roots[1]) if len(roots) > 1 else None,
            f"the tree must have exactly one root, found {len(roots)} ({', '.join(roots[:5])})",
            "bad-rs3",
        )

    def build(nid: str, role: str, relation: str, seen: frozenset[str]) -> RstNode:
        """Node ``nid`` with its satellites: the node's own content (a leaf, a span group's
        nucleus, a multinuclear group's nuclei) and the satellites attached to it."""
        if nid in seen:
            raise InputError(path, lines.get(nid), f"node {nid} is its own ancestor", "bad-rs3")
        seen = seen | {nid}
        tag, _, _, gtype = nodes[nid]
        kids = children[nid]
        satellites = [
            k for k in kids if kinds.get(nodes[k][2], "rst") == "rst" and nodes[k][2] != "span"
        ]
        inner = [k for k in kids if k not in satellites]
        if tag == "segment":
            if inner:
                raise InputError(
                    path, lines.get(inner[0]), f"node {inner[0]}: a segment has no span", "bad-rs3"
                )
            core = RstNode("N", "span", edu=edu_index[nid], line=lines.get(nid, 0))
        elif gtype == "multinuc" or any(kinds.get(nodes[k][2]) == "multinuc" for k in inner):
            nuclei = [build(k, "N", nodes[k][2], seen) for k in inner]
            if len(nuclei) < 2:
                raise InputError(
                    path,
                    lines.get(nid),
                    f"multinuclear group {nid} has fewer than 2 nuclei",
                    "bad-rs3",
                )
            core = RstNode("N", "span", sorted(nuclei, key=RstNode.first), line=lines.get(nid, 0))
        else:
            if len(inner) != 1:
                raise InputError(
                    path,
                    lines.get(nid),
                    f"span group {nid} needs exactly one 'span' child, has {len(inner)}",
                    "bad-rs3",
                )
            core = build(inner[0], "N", "span", seen)
        if not satellites:
            core.role, core.relation = role, relation
            return core
        sats = [build(k, "S", nodes[k][2], seen) for k in satellites]
        return RstNode(
            role, relation, sorted([core, *sats], key=RstNode.first), line=lines.get(nid, 0)
        )

    tree = build(roots[0], "root", "", frozenset())
    _check_covers(path, tree, len(edus))
    return tuple(text for _, text in edus), tree


def _check_covers(path: Path, tree: RstNode, n: int) -> None:
    """Every EDU exactly once, children contiguous and in order."""
    covered: list[int] = []

    def walk(node: RstNode) -> None:
        if node.edu is not None:
            covered.append(node.edu)
            return
        for child in node.children:
            walk(child)

    walk(tree)
    if covered != list(range(n)):
        raise InputError(
            path,
            None,
            "the tree does not cover the EDUs once each in text order "
            f"(covers {len(covered)} of {n})",
            "bad-rst-tree",
        )


# --------------------------------------------------------------------------- .dis

_TOKEN = re.compile(r"\(|\)|_!.*?_!|[^\s()]+", re.S)


def read_dis(path: Path) -> tuple[tuple[str, ...], RstNode]:
    """EDUs and tree of an RST-DT ``.dis`` file; ``InputError`` naming file, line and
    problem."""
    raw = read_text(path, "RST file")
    tokens = [(m.group(), _line_of(raw, m.start())) for m in _TOKEN.finditer(raw)]
    pos = 0
    edus: dict[int, str] = {}

    def expect(value: str) -> int:
        nonlocal pos
        if pos >= len(tokens):
            last = tokens[-1][1] if tokens else None
            raise InputError(path, last, f"unexpected end of file, expected {value!r}", "bad-dis")
        tok, line = tokens[pos]
        if tok != value:
            raise InputError(path, line, f"expected {value!r}, found {tok!r}", "bad-dis")
        pos += 1
        return line

    def node() -> RstNode:
        nonlocal pos
        line = expect("(")
        kind = tokens[pos][0] if pos < len(tokens) else ""
        if kind not in ("Root", "Nucleus", "Satellite"):
            raise InputError(
                path, line, f"expected Root, Nucleus or Satellite, found {kind!r}", "bad-dis"
            )
        pos += 1
        role = {"Root": "root", "Nucleus": "N", "Satellite": "S"}[kind]
        relation = ""
        edu: int | None = None
        kids: list[RstNode] = []
        text: str | None = None
        while pos < len(tokens) and tokens[pos][0] != ")":
            if tokens[pos][0] != "(":
                raise InputError(path, tokens[pos][1], f"unexpected {tokens[pos][0]!r}", "bad-dis")
            head = tokens[pos + 1][0] if pos + 1 < len(tokens) else ""
            if head in ("Nucleus", "Satellite"):
                kids.append(node())
                continue
            pos += 2
            args = []
            while pos < len(tokens) and tokens[pos][0] != ")":
                args.append(tokens[pos][0])
                pos += 1
            expect(")")
            if head == "leaf" and len(args) == 1 and args[0].isdigit():
                edu = int(args[0]) - 1
            elif head == "span":
                pass
            elif head == "rel2par" and len(args) == 1:
                relation = args[0]
            elif head == "text":
                text = " ".join(" ".join(args).removeprefix("_!").removesuffix("_!").split())
            else:
                raise InputError(path, line, f"unknown or malformed ({head} ...)", "bad-dis")
        expect(")")
        if edu is not None:
            if kids:
                raise InputError(path, line, "a leaf with children", "bad-dis")
            if not text:
                raise InputError(path, line, f"EDU {edu + 1} has no text", "bad-dis")
            if edu in edus:
                raise InputError(path, line, f"EDU {edu + 1} appears twice", "bad-dis")
            edus[edu] = text
            return RstNode(role, relation, edu=edu, line=line)
        if len(kids) < 2:
            raise InputError(path, line, "a span node needs at least two children", "bad-dis")
        if not any(k.role == "N" for k in kids):
            raise InputError(path, line, "a span node without a nucleus", "bad-dis")
        return RstNode(role, relation, sorted(kids, key=RstNode.first), line=line)

    tree = node()
    if pos != len(tokens):
        raise InputError(path, tokens[pos][1], "text after the end of the tree", "bad-dis")
    if tree.role != "root":
        raise InputError(path, 1, "the tree must start with (Root ...)", "bad-dis")
    if sorted(edus) != list(range(len(edus))):
        raise InputError(path, None, "EDU numbers are not 1..n", "bad-dis")
    _check_covers(path, tree, len(edus))
    return tuple(edus[i] for i in range(len(edus))), tree


# --------------------------------------------------------------------------- source


@dataclass(frozen=True)
class RstSource:
    """RST files (``.rs3``/``.dis``, any mix) as one source of :class:`RstDocument`s, in the
    order of their sorted paths. ``name`` namespaces row ids and groups."""

    name: str
    paths: tuple[Path, ...]
    root: Path
    license: str = "unknown"
    version: str = "unknown"

    @classmethod
    def from_paths(cls, paths: list[Path], name: str | None = None, **kw: str) -> RstSource:
        files: list[Path] = []
        for p in paths:
            if p.is_dir():
                # a folder named like a file (x.rs3/) is refused by name, not opened
                found = [f for f in sorted(p.rglob("*")) if f.suffix.lower() in RST_SUFFIXES]
                if not found:  # a folder given in vain must not pass unnoticed
                    raise InputError(p, None, "no .rs3 or .dis file in this folder", "no-input")
                files += [check_file(f) for f in found]
                continue
            check_file(p)
            if p.suffix.lower() not in RST_SUFFIXES:
                raise InputError(
                    p, None, "not an .rs3 or .dis file, nor a folder holding some", "no-rst"
                )
            files.append(p)
        if not files:
            raise InputError(
                paths[0] if paths else ".", None, "no .rs3 or .dis file found", "no-rst"
            )
        files = sorted(set(files))
        root = Path(_common(files))
        return cls(name or (root.name or "rst"), tuple(files), root, **kw)

    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name

    @property
    def info(self) -> SourceInfo:
        files = file_entries([(self.relative(p), p) for p in self.paths])
        return SourceInfo("rst-treebank", self.name, self.version, self.license, files)

    def splits(self) -> set[str | None]:
        return {split_of_path(p) for p in self.paths}

    def records(self, policy: InvalidPolicy) -> Iterator[RstDocument]:
        for path in self.paths:
            try:
                if path.suffix.lower() == ".rs3":
                    edus, tree = read_rs3(path)
                else:
                    edus, tree = read_dis(path)
            except InputError as exc:
                policy.reject(exc)  # a whole-file problem (missing, empty) is fatal there
                continue
            doc_id = self.relative(path)
            yield RstDocument(
                doc_id=doc_id,
                edus=edus,
                tree=tree,
                source=SourceFile(self.name, str(path), split_of_path(path)),
                line=1,
            )


def _common(files: list[Path]) -> str:
    import os

    if len(files) == 1:
        return str(files[0].parent)
    return os.path.commonpath([str(f.parent) for f in files])


# --------------------------------------------------------------------------- relation map


def read_relation_map(path: str | os.PathLike[str]) -> dict[str, str]:
    """A relation → class mapping (``--relation-map``) from a JSON object (``.json``) or TSV
    lines ``relation<TAB>class`` (``#`` comments and blank lines ignored), read through the
    input layer (missing, a folder, empty, not UTF-8, a control character: one error naming
    the file and line); every other problem names the file and line too
    (``bad-relation-map``). It configures the whole build, so nothing in it is skipped."""
    p = Path(path)
    text = read_text(p, "relation map")
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InputError(
                p, getattr(exc, "lineno", None), f"not JSON: {exc}", "bad-relation-map"
            ) from None
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in data.items()
        ):
            raise InputError(
                p, None, "expected an object of relation: class strings", "bad-relation-map"
            )
        return dict(data)
    mapping: dict[str, str] = {}
    for number, line in lines_of(text):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise InputError(p, number, "expected relation<TAB>class", "bad-relation-map")
        relation = fields[0].strip()
        if relation in mapping:
            raise InputError(p, number, f"relation {relation!r} mapped twice", "bad-relation-map")
        mapping[relation] = fields[1].strip()
    if not mapping:
        raise InputError(p, None, "the relation map is empty", "bad-relation-map")
    return mapping
