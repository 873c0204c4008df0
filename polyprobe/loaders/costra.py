"""COSTRA 1.0/1.1 (Barančíková & Bojar 2020): Czech seed sentences and their transformations,
from ``data.tsv`` (``id, seed id, transformation, sentence, tokenised sentence`` and, in 1.1,
four columns of annotated comparisons), as :class:`~polyprobe.loaders.records.Example`s.

The release is told by the columns (:func:`release`): 9 a line is 1.1 (its README's
layout), 5 a line is 1.0. COSTRA 1.0's own release (LINDAT, 2019) could not be consulted
here; its 5 columns are 1.1's first five, which the 1.1 README describes 1.1 as extending
("an extension of Costra 1.0 ... extended in two rounds of manual annotation", the rounds
that added columns 6-9), and the 1.0 paper (Barančíková & Bojar, LREC 2020, §3) names the
same fields: a sentence, its seed and its transformation type. A file mixing the two widths is
refused at the first line of the other width (``mixed-release``). A 1.0 file has no annotated
comparisons, so its ``comparisons`` are the basic ones only.


* one ``text`` example per transformed sentence: (seed, transformed sentence), label = the
  transformation type, score = the string similarity of the two (Levenshtein ratio: the
  normalised InDel similarity, ``rapidfuzz.distance.Indel.normalized_similarity``, which is
  python-Levenshtein's ``ratio``);
* one ``comparison`` example per ordering the dataset asserts: (s1, s2, s3, s4) meaning
  "s1 is closer to s2 than s3 is to s4". They are exactly the comparisons of the ``costra``
  package's evaluator (:func:`comparisons`): *basic* ones (a paraphrase is closer to its seed
  than any sentence of another type: ``basic:<type>``) and *annotated* ones from columns 6-9
  (``annotated:<type>``), so that an embedding scored on them gets the package's numbers.

``data.tsv`` is read through the input layer (:mod:`polyprobe.loaders.inputs`): strict UTF-8,
a bad byte, control character or over-long line refused at its line (skippable: that
sentence is dropped), an empty file named. A sentence id given twice is refused
(``duplicate-id``: both rows would publish one id, which ``polyprobe validate`` rejects).

Why the comparisons are data rather than evaluation code: they are what the annotators said,
and a published dataset must carry them for any user (and polyprobe's evaluation reads
datasets as users do, never the source files).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import (
    BadLine,
    check_file,
    no_entries,
    numbered_lines,
    read_note,
    refused_since,
    text_lines,
)
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

SPLIT = "test"
SEED = "seed"
PARAPHRASE = "paraphrase"
TRANSFORMATIONS_SET = "transformations"
COMPARISONS_SET = "comparisons"


@dataclass(frozen=True)
class CostraSentence:
    idx: int
    number: int  # the seed's id: every sentence derived from one seed shares it
    transformation: str
    sentence: str
    tokenized: str
    relations: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    line: int
    columns: int = 9  # 5 in a COSTRA 1.0 file (no annotated comparisons)


RELEASES = {5: "1.0", 9: "1.1"}


def release(sentences: list[CostraSentence]) -> str:
    """``1.0`` or ``1.1``, from the width of the file's lines (the reader refuses a mix)."""
    widths = {s.columns for s in sentences}
    return RELEASES[widths.pop()] if len(widths) == 1 else "unknown"


def _ids(text: str, path: Path, line: int) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(path, line, f"sentence ids {text!r} are not numbers", "bad-ids") from None


def read_costra(path: Path, policy: InvalidPolicy) -> list[CostraSentence]:
    """Every line of ``data.tsv`` (5 columns in COSTRA 1.0, 9 in 1.1)."""
    out = []
    first: dict[int, int] = {}  # sentence id -> its line
    width: tuple[int, int] | None = None  # (fields, line) of the first sentence
    before = sum(policy.skipped.values())
    for n, line in text_lines(path, policy):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in (5, 9):
            problem = f"expected 5 or 9 tab-separated fields, found {len(fields)}"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        if not fields[0].isdigit() or not fields[1].isdigit() or not fields[3].strip():
            problem = "expected a numeric id, a numeric seed id and a sentence"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        if width is None:
            width = (len(fields), n)
        elif len(fields) != width[0]:
            problem = (
                f"{len(fields)} fields, but line {width[1]} has {width[0]}: a COSTRA file is "
                "either 1.0 (5 columns) or 1.1 (9 columns), not both"
            )
            policy.reject(InputError(path, n, problem, "mixed-release"))
            continue
        try:
            rel = [_ids(f, path, n) for f in fields[5:9]] if len(fields) == 9 else [()] * 4
        except InputError as err:
            policy.reject(err)
            continue
        idx = int(fields[0])
        seen = first.setdefault(idx, n)
        if seen != n:
            policy.reject(
                InputError(path, n, f"duplicate id {idx} (first on line {seen})", "duplicate-id")
            )
            continue
        out.append(
            CostraSentence(
                idx,
                int(fields[1]),
                fields[2].strip(),
                fields[3],
                fields[4],
                (rel[0], rel[1], rel[2], rel[3]),
                n,
                len(fields),
            )
        )
    if not out:
        raise no_entries(path, "no sentences", refused_since(policy, before))
    return out


def string_similarity(a: str, b: str) -> float:
    """Levenshtein ratio of two strings (1 - InDel distance / total length)."""
    from rapidfuzz.distance import Indel

    return float(Indel.normalized_similarity(a, b))


Comparison = tuple[tuple[int, int], tuple[int, int]]


def comparisons(sentences: list[CostraSentence]) -> dict[str, list[Comparison]]:
    """The orderings COSTRA asserts, keyed ``basic:<type>`` or ``annotated:<type>``, each
    ``((a, b), (c, d))``: cos(a, b) should exceed cos(c, d). The same lists, in the same
    order, as ``costra.CostraEvaluator._collect_comparisons`` (package 1.1): per seed, every
    (paraphrase, other type's sentence) pair; per sentence, columns 6/7 give ``((idx, i), (i,
    j))`` and ``((idx, j), (i, j))`` for i more and j less (attributed to the sentence's type,
    or for a seed to i's type), columns 8/9 give ``((idx, i), (idx, j))``."""
    by_idx = {s.idx: s for s in sentences}
    groups: dict[int, list[CostraSentence]] = {}
    for s in sentences:
        groups.setdefault(s.number, []).append(s)
    out: dict[str, list[Comparison]] = {}
    for group in groups.values():
        seeds = [s for s in group if s.transformation == SEED]
        if not seeds:
            continue
        seed = seeds[0].idx
        paraphrases = [s.idx for s in group if s.transformation == PARAPHRASE]
        for t in dict.fromkeys(s.transformation for s in group):
            if t in (SEED, PARAPHRASE):
                continue
            others = [s.idx for s in group if s.transformation == t]
            out.setdefault(f"basic:{t}", []).extend(
                ((seed, p), (seed, o)) for p in paraphrases for o in others
            )
        for s in group:
            more, less, similar, dissimilar = s.relations
            type1 = [
                c for i in more for j in less for c in (((s.idx, i), (i, j)), ((s.idx, j), (i, j)))
            ]
            for c in type1:
                target = s.transformation
                if s.transformation == SEED:
                    other = by_idx.get(c[0][1])
                    target = other.transformation if other is not None else s.transformation
                out.setdefault(f"annotated:{target}", []).append(c)
            out.setdefault(f"annotated:{s.transformation}", []).extend(
                ((s.idx, i), (s.idx, j)) for i in similar for j in dissimilar
            )
    return {k: v for k, v in out.items() if v}


_LICENSE = re.compile(
    r"Creative Commons Attribution\s*\(CC-BY\)\s*license,\s*version\s*(\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


def readme_license(folder: Path) -> str:
    """The licence the README states (COSTRA's: CC BY 4.0), or ``unknown``."""
    note = read_note(folder / "README")
    if note is None:
        return "unknown"
    text = " ".join(note.split())
    m = _LICENSE.search(text)
    return f"CC-BY-{m.group(1)}" if m else "unknown"


@dataclass
class CostraSource:
    """``data.tsv`` (or its folder): transformation pairs, then comparisons. The card's
    version is the release the file's columns show unless ``source_version`` is given."""

    path: Path
    source_version: str | None = None

    def release(self) -> str:
        """The release the first line's width shows (``1.0``, ``1.1``; ``unknown`` for another
        width, which the reader then refuses at its line): what the card records."""
        for _, line in numbered_lines(check_file(self.data)):
            if not isinstance(line, BadLine) and line.strip():  # a refused one decides nothing
                return RELEASES.get(len(line.rstrip("\r\n").split("\t")), "unknown")
        return "unknown"

    @property
    def data(self) -> Path:
        return self.path / "data.tsv" if self.path.is_dir() else self.path

    @property
    def name(self) -> str:
        return "costra"

    @property
    def info(self) -> SourceInfo:
        files = [("data.tsv", self.data)]
        readme = self.data.parent / "README"
        if readme.is_file():
            files.append(("README", readme))
        return SourceInfo(
            "costra",
            "costra",
            self.source_version or self.release(),
            readme_license(self.data.parent),
            file_entries(files),
            citation="Barančíková & Bojar (2020). COSTRA 1.0: A Dataset of Complex Sentence "
            "Transformations. LREC 2020; Costra 1.1: An Inquiry into Geometric Properties of "
            "Sentence Spaces. TSD 2020.",
        )

    def declared_codes(self) -> tuple[str, ...]:
        return ("cs",)

    def sentences(self, policy: InvalidPolicy) -> list[CostraSentence]:
        return read_costra(check_file(self.data), policy)

    def sets(self, policy: InvalidPolicy) -> list[tuple[str, list[CostraSentence]]]:
        sentences = self.sentences(policy)
        return [(TRANSFORMATIONS_SET, sentences), (COMPARISONS_SET, sentences)]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        sentences = self.sentences(policy)
        by_idx = {s.idx: s for s in sentences}
        seeds = {s.number: s for s in sentences if s.transformation == SEED}
        path = str(self.data)
        pairs = SourceFile(TRANSFORMATIONS_SET, path, SPLIT)
        for s in sentences:
            seed = seeds.get(s.number)
            if s.transformation == SEED or seed is None:
                continue
            yield Example(
                id=f"{s.number}/{s.idx}",  # seed id / sentence id
                inputs=(seed.sentence, s.sentence),
                kind="text",
                label=s.transformation,
                score=string_similarity(seed.sentence, s.sentence),
                source=pairs,
                line=s.line,
            )
        cmp = SourceFile(COMPARISONS_SET, path, SPLIT)
        for label, items in comparisons(sentences).items():
            for k, ((a, b), (c, d)) in enumerate(items):
                if not all(i in by_idx for i in (a, b, c, d)):
                    problem = f"{label}: comparison names a sentence id not in the file"
                    policy.reject(InputError(self.data, None, problem, "unknown-id"))
                    continue
                yield Example(
                    id=f"{label.replace(' ', '_')}/{k}",
                    inputs=tuple(by_idx[i].sentence for i in (a, b, c, d)),
                    kind="comparison",
                    label=label,
                    score=None,
                    source=cmp,
                    line=by_idx[a].line,
                )
