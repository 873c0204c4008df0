"""Resources found by the names they are published under (``UD_Finnish-TDT``,
``finnish-train-high``, ``orthographic_finnish.txt``, ...), with the languages they declare."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.declared import (
    TREC_LANGUAGE,
    declared,
    language_named,
    lexicon_languages,
    treebank_languages,
)

# FinSemEvl (Venekoski & Vankka 2017) is Finnish: its ANA_<category>.txt analogy files say
# so only by the collection they belong to (the similarity loader declares FinnSim fi).
FINSEMEVL_LANGUAGE = "fin"

_UD_FOLDER = re.compile(r"^UD_([A-Za-z_]+)-([A-Za-z0-9]+)$")
_UD_FILE = re.compile(r"^([a-z]{2,3})_([A-Za-z0-9]+)-ud-(train|dev|test)\.conllu(?:\.gz)?$")
_SIGMORPHON_2018 = re.compile(
    r"^([a-z]+(?:-[a-z]+)*?)-(train-high|train-medium|train-low|dev|test)$"
)
_SIGMORPHON_2023 = re.compile(r"^([a-z]{3})\.(trn|dev|tst)$")
_UNIMORPH = re.compile(r"^([a-z]{3})(?:\.(\d+))?$")
_WUGGY_LEXICON = re.compile(r"^orthographic_([a-z_]+)\.txt$")
_WUGGY_OUTPUT = re.compile(r"^ort_([a-z_]+)$")
_WIKI_DUMP = re.compile(r"^([a-z]{2,3})wiki-.*pages-articles.*\.xml.*$")
_FINSEMEVL = re.compile(r"^ANA_.+\.txt$")
_TREC_TRAIN = re.compile(r"^train_\d+\.label$")
_PARTS_2018 = ("train-high", "train-medium", "train-low", "dev", "test")
_PARTS_2023 = ("trn", "dev", "tst")


# The families searched for, in the order their members are written (the first member's
# first built config is the dataset's default); the others have no standard file names.
@dataclass(frozen=True)
class Resource:
    """One resource found by its standard name: ``kind`` says what it is, ``paths`` are its
    folder or files in the order a member lists them, ``languages`` what it declares (ISO
    639-3; two for a cross-lingual set, several for Multi-SimLex), ``evidence`` where that
    was read, ``note`` what the manifest's comment says of it."""

    kind: str
    paths: tuple[Path, ...]
    languages: tuple[str, ...]
    evidence: str
    note: str = ""


def scan(search: Sequence[str | Path]) -> list[Resource]:
    """Every resource under the ``search`` folders (hidden folders skipped; a treebank
    folder is not searched further), each once, in path order."""
    found: dict[tuple[str, tuple[str, ...]], Resource] = {}
    for root in search:
        top = Path(root)
        if not top.is_dir():
            raise UsageError(f"--search {top}: not a folder")
        for folder, dirs, files in os.walk(top):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            names = sorted(f for f in files if not f.startswith("."))
            if _UD_FOLDER.match(here.name):
                dirs[:] = []
                resources = _treebank_folder(here, names)
            else:
                resources = _folder_resources(here, names)
            for r in resources:
                found.setdefault((r.kind, tuple(str(p.resolve()) for p in r.paths)), r)
    return sorted(found.values(), key=lambda r: (str(r.paths[0]), r.kind))


def _treebank_folder(folder: Path, names: list[str]) -> list[Resource]:
    files = [folder / n for n in names if n.endswith((".conllu", ".conllu.gz"))]
    if not files:
        return []
    m = _UD_FOLDER.match(folder.name)
    assert m is not None
    langs = treebank_languages(folder, files)
    if not langs:  # neither file names nor README say: the folder's name does
        named = language_named(m.group(1), f"folder name {folder.name}")
        langs = (named,) if named is not None else ()
    kind = "pud" if m.group(2) == "PUD" else "treebank"
    note = ", ".join(f.name for f in files)
    return [_resource(kind, (folder,), langs, note)]


def _resource(kind: str, paths: Iterable[Path], langs: Sequence[Any], note: str = "") -> Resource:
    """A resource from the languages :mod:`~polyprobe.loaders.declared` read for it."""
    langs = [d for d in langs if d is not None]
    evidence = "; ".join(dict.fromkeys(d.evidence for d in langs))
    return Resource(kind, tuple(paths), tuple(d.code for d in langs), evidence, note)


def _folder_resources(folder: Path, names: list[str]) -> list[Resource]:
    """The resources of one folder that is no treebank folder, by its files' names."""
    out: list[Resource] = []
    groups: dict[tuple[str, str], list[tuple[int, Path]]] = defaultdict(list)
    conllu = [n for n in names if n.endswith((".conllu", ".conllu.gz"))]
    for name in names:
        path = folder / name
        if not path.is_file():
            continue
        if m := _UD_FILE.match(name):
            groups[("conllu", f"{m.group(1)}_{m.group(2)}")].append((_split_rank(m[3]), path))
        elif m := _SIGMORPHON_2018.match(name):
            groups[("sigmorphon2018", m.group(1))].append((_PARTS_2018.index(m[2]), path))
        elif m := _SIGMORPHON_2023.match(name):
            groups[("sigmorphon2023", m.group(1))].append((_PARTS_2023.index(m[2]), path))
        elif m := _UNIMORPH.match(name):
            groups[("unimorph", m.group(1))].append((int(m.group(2) or 0), path))
        elif m := _WUGGY_LEXICON.match(name):
            out += _wuggy("wuggy-lexicon", path, m.group(1))
        elif m := _WUGGY_OUTPUT.match(name):
            out += _wuggy("wuggy-output", path, m.group(1))
        elif m := _WIKI_DUMP.match(name):
            lang = declared(m.group(1), f"file name {m.group(1)}wiki-*")
            out.append(_resource("wiki", (path,), [lang], "a Wikipedia dump"))
        elif _FINSEMEVL.match(name):
            groups[("finsemevl", "")].append((0, path))
        elif name.endswith((".csv", ".tsv")):
            out += _word_set(path)
    for (kind, key), members in groups.items():
        paths = [p for _, p in sorted(members, key=lambda t: (t[0], t[1].name))]
        if kind == "conllu":
            langs = treebank_languages(None, paths)
            # the folder itself when it holds this treebank only (its splits stay one source)
            whole = len(paths) == len(conllu)
            out.append(_resource("treebank", [folder] if whole else paths, langs, key))
        elif kind == "finsemevl":
            fin = declared(FINSEMEVL_LANGUAGE, "FinSemEvl is Finnish")
            out.append(_resource("analogies", paths, [fin], "FinSemEvl, four words a line"))
        elif kind == "sigmorphon2018":
            train = [p for p in paths if "-train-" in p.name][:1]  # the largest sample
            paths = train + [p for p in paths if "-train-" not in p.name]
            out += _lexicon(kind, paths, "SIGMORPHON 2018")
        elif kind == "sigmorphon2023" or kind == "unimorph":
            if kind == "unimorph" and len(paths) > 1 and paths[0].suffix == "":
                paths = paths[:1]  # a whole file and its numbered parts: the whole one
            what = "SIGMORPHON 2023" if kind == "sigmorphon2023" else "UniMorph"
            out += _lexicon(kind, paths, what)
    if "TREC_10.label" in names and any(_TREC_TRAIN.match(n) for n in names):
        trec = declared(TREC_LANGUAGE.code, TREC_LANGUAGE.evidence)
        out.append(_resource("trec", (folder,), [trec], "train_*.label, TREC_10.label"))
    if "data.tsv" in names and _is_costra(folder):
        out.append(_costra(folder))
    return out


def _split_rank(split: str) -> int:
    return ("train", "dev", "test").index(split)


def _lexicon(kind: str, paths: list[Path], what: str) -> list[Resource]:
    """A UniMorph-format lexicon, when its files are one (the column order is detected from
    the content, as the unimorph family does: a file of that name that is none is skipped)."""
    from polyprobe.loaders.unimorph import detect_layout

    try:
        layouts = {detect_layout(p, strict=False) for p in paths}
    except InputError:
        return []
    note = f"{what}, {' / '.join(sorted(layouts))}"
    return [_resource(kind, paths, lexicon_languages(paths), note)]


def _wuggy(kind: str, path: Path, name: str) -> list[Resource]:
    """A Wuggy lexicon or output table, named by its language (``orthographic_english.txt``,
    ``ort_german``; a suffix such as ``_latin`` is a script, tried without)."""
    words = name.split("_")
    for n in range(len(words), 0, -1):
        found = language_named(" ".join(words[:n]), f"file name {path.name}")
        if found is not None:
            return [_resource(kind, (path,), [found])]
    return []


def _word_set(path: Path) -> list[Resource]:
    """A similarity or analogy file in a layout the loaders recognise by its first lines."""
    from polyprobe.loaders import analogies, similarity

    layout = similarity.detect_layout(path)
    if layout == "vecto":  # the folder names the language or the pair: monolingual/en, en-de
        codes = path.parent.name.split("-")
        langs = [declared(c, f"folder name {path.parent.name}") for c in codes]
        if len(codes) <= 2 and all(langs):
            return [_resource("similarity", (path,), langs, "vecto word-benchmarks CSV")]
    elif layout == "finnsim":
        codes = similarity.SimilaritySource(path).declared_codes()
        langs = [declared(c, "the similarity loader reads FinnSim as Finnish") for c in codes]
        return [_resource("similarity", (path,), langs, "FinnSim (FinSemEvl)")]
    elif layout == "concepticon":
        header = _header(path)
        langs = [
            declared(code, "its header's <LANGUAGE>_SCORE columns")
            for name, code in similarity.MULTISIMLEX_LANGUAGES.items()
            if f"{name}_SCORE" in header
        ]
        if langs:
            return [_resource("multisimlex", (path,), langs, "Multi-SimLex (Concepticon layout)")]
    elif analogies.detect_layout(path) == "vecto":
        lang = declared(path.parent.name, f"folder name {path.parent.name}")
        if lang is not None:
            return [_resource("analogies", (path,), [lang], "vecto word-benchmarks CSV")]
    return []


def _header(path: Path) -> list[str]:
    from polyprobe.loaders.inputs import numbered_lines

    for _, line in numbered_lines(path):
        return str(line).split("\t")
    return []


def _is_costra(folder: Path) -> bool:
    from polyprobe.loaders.inputs import read_note

    for name in ("README", "README.md", "README.txt"):
        text = read_note(folder / name)
        if text is not None:
            return "costra" in text[:200].lower()
    return False


def _costra(folder: Path) -> Resource:
    from polyprobe.builders.families.costra import CostraConfig

    lang = declared(CostraConfig.lang, "COSTRA is Czech (the costra family's --lang)")
    return _resource("costra", (folder,), [lang], "data.tsv, README")
