"""Test-only bridge from ``conllu.parse_incr`` to polyprobe's records.

The fast reader (``polyprobe.loaders.conllu``) is written elsewhere; until it is in place the
task and rendering tests build ``Sentence`` records with the reference parser so they do not
depend on it. The conversion follows the loader contract in docs/ARCHITECTURE.md: integer ids
go into ``words``, ranges into ``multiword``, decimal ids into ``empty``; feats/misc are dicts
(``{}`` for ``_``). The lead may later swap this for the fast reader.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import conllu

from polyprobe.loaders.records import EmptyNode, MultiwordToken, Sentence, SourceFile, Word

_SPLIT = re.compile(r"-ud-(train|dev|test)\.conllu(?:\.gz)?$")


def _open(path: Path):
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _dict(value: object) -> dict[str, str]:
    if not value:
        return {}
    return {str(k): "" if v is None else str(v) for k, v in dict(value).items()}


def _deps(value: object) -> str:
    if value is None:
        return "_"
    if isinstance(value, list):
        return "|".join(f"{h}:{r}" for r, h in value) or "_"
    return str(value)


def _s(value: object) -> str:
    return "_" if value is None else str(value)


def to_sentence(
    tl: conllu.TokenList, source: SourceFile, doc_id: str | None = None, fallback_id: str = ""
) -> Sentence:
    """Convert one ``conllu`` token list into a ``Sentence`` record."""
    meta = dict(tl.metadata)
    words: list[Word] = []
    mwts: list[MultiwordToken] = []
    empty: list[EmptyNode] = []
    for tok in tl:
        tid = tok["id"]
        if isinstance(tid, int):
            words.append(
                Word(
                    id=tid,
                    form=tok["form"],
                    lemma=_s(tok["lemma"]),
                    upos=_s(tok["upos"]),
                    xpos=_s(tok["xpos"]),
                    feats=_dict(tok["feats"]),
                    head=int(tok["head"]) if tok["head"] is not None else 0,
                    deprel=_s(tok["deprel"]),
                    deps=_deps(tok["deps"]),
                    misc=_dict(tok["misc"]),
                )
            )
        elif tid[1] == "-":
            mwts.append(MultiwordToken(tid[0], tid[2], tok["form"], _dict(tok["misc"])))
        else:
            empty.append(
                EmptyNode(
                    id=f"{tid[0]}.{tid[2]}",
                    form=tok["form"],
                    lemma=_s(tok["lemma"]),
                    upos=_s(tok["upos"]),
                    xpos=_s(tok["xpos"]),
                    feats=_dict(tok["feats"]),
                    deps=_deps(tok["deps"]),
                    misc=_dict(tok["misc"]),
                )
            )
    return Sentence(
        sent_id=meta.get("sent_id", fallback_id),
        text=meta.get("text"),
        doc_id=doc_id,
        source=source,
        line=0,  # conllu does not report line numbers; tests do not need them
        words=words,
        multiword=mwts,
        empty=empty,
        comments=meta,
    )


def _source(path: Path, treebank: str | None) -> SourceFile:
    m = _SPLIT.search(path.name)
    return SourceFile(treebank or path.parent.name, str(path), m.group(1) if m else None)


def read_file(path: str | Path, treebank: str | None = None) -> Iterator[Sentence]:
    """Yield ``Sentence`` records of one CoNLL-U file (plain or ``.gz``) via ``conllu``."""
    path = Path(path)
    source = _source(path, treebank)
    doc_id: str | None = None
    with _open(path) as fh:
        for n, tl in enumerate(conllu.parse_incr(fh)):
            for key in ("newdoc id", "newdoc"):
                if key in tl.metadata:
                    doc_id = tl.metadata[key] or None
            yield to_sentence(tl, source, doc_id, f"{path.name}#{n + 1}")


def treebank_files(folder: str | Path) -> list[Path]:
    """The treebank's ``*-ud-{train,dev,test}.conllu[.gz]`` files, in a fixed order."""
    folder = Path(folder)
    return sorted(p for p in folder.iterdir() if _SPLIT.search(p.name))


def read_treebank(folder: str | Path) -> Iterator[Sentence]:
    folder = Path(folder)
    for path in treebank_files(folder):
        yield from read_file(path, folder.name)


@lru_cache(maxsize=8)
def _file_text(path: str) -> str:
    with _open(Path(path)) as fh:
        return fh.read()


def sentence(folder: str | Path, sent_id: str) -> Sentence:
    """One sentence by id, found by a text search so a hand-checked test does not parse a whole
    treebank (EWT train alone takes seconds with ``conllu``)."""
    folder = Path(folder)
    needle = f"# sent_id = {sent_id}\n"
    for path in treebank_files(folder):
        text = _file_text(str(path))
        at = text.find(needle)
        if at < 0:
            continue
        start = text.rfind("\n\n", 0, at)
        start = 0 if start < 0 else start + 2
        end = text.find("\n\n", at)
        block = text[start : len(text) if end < 0 else end + 1]
        return to_sentence(conllu.parse(block)[0], _source(path, folder.name))
    raise KeyError(f"{sent_id} not in {folder}")
