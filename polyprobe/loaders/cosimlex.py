"""Graded word similarity in context: CoSimLex (Armendariz et al. 2020), the data of
SemEval-2020 Task 3 (GWSC), as :class:`~polyprobe.loaders.records.Example`\\ s of kind
``in-context``: one example per (word pair, context), scored by the pair's mean similarity
in that context.

Layouts, told apart by the header (tab-separated, one pair a line):

* **CoSimLex** (``cosimlex_<lang>.tsv``, CLARIN.SI hdl 11356/1308, whose README lists the
  columns; some copies name it ``.csv``, still tab-separated; the Hugging Face ``cosimlex``
  card lists the same fields): ``word1 word2 context1 context2 sim1 sim2
  stdev1 stdev2 pvalue word1_context1 word2_context1 word1_context2 word2_context2``. The
  ``wordN_contextM`` columns are the inflected forms as they appear in the context; the
  English file has none (its forms are the lemmas), so they are optional;
* **GWSC** (the task's evaluation kit): the same context columns without scores, the
  scores in a gold file aligned by line (``sim_context1 sim_context2 [change]``, the
  converter's names), given as ``gold``; ``sim_context1``/``sim_context2`` are also read
  in place of ``sim1``/``sim2`` in one file.

Contexts mark the two words with ``<strong>…</strong>``. A context becomes its text without
the markup and its tokens (:func:`tokenize`: words with inner hyphens or apostrophes, and
single punctuation marks); each word's index is the marked token whose text is the word's
form, else the first token equal to it (casefolded). A context that holds neither is refused
at its line (``word-not-in-context``), as is a missing or non-numeric score (``bad-score``)
- a pair scored in one context only cannot give the change subtask 1 scores.

Why each pair's two contexts are two rows sharing a ``group``: SemEval's subtask 2 scores the
similarity in each context (one row each), subtask 1 the change between the two (a function
of the group); the row ids end ``/context1`` and ``/context2``, so the change is signed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import check_file, csv_rows, no_entries, refused_since
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

SPLIT = "test"
CONTEXT_COLUMNS = ("word1", "word2", "context1", "context2")
SCORE_NAMES = {"cosimlex": ("sim1", "sim2"), "gwsc": ("sim_context1", "sim_context2")}
TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]", re.UNICODE)
MARK = re.compile(r"<strong>(.*?)</strong>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Context:
    """One context of a pair: its text (markup removed), tokens and the two words' indices."""

    text: str
    tokens: tuple[str, ...]
    index1: int
    index2: int
    score: float


@dataclass(frozen=True)
class ContextPair:
    word1: str
    word2: str
    contexts: tuple[Context, Context]
    line: int
    path: str


def tokenize(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Tokens and their character spans (no token holds whitespace)."""
    found = list(TOKEN.finditer(text))
    return [m.group() for m in found], [m.span() for m in found]


def _unmarked(context: str) -> tuple[str, list[tuple[int, int]]]:
    """The context without ``<strong>`` markup, and the marked spans in that text."""
    out, spans, pos = [], [], 0
    length = 0
    for m in MARK.finditer(context):
        before = context[pos : m.start()]
        out.append(before)
        length += len(before)
        inner = m.group(1)
        spans.append((length, length + len(inner)))
        out.append(inner)
        length += len(inner)
        pos = m.end()
    out.append(context[pos:])
    return "".join(out), spans


def word_index(
    form: str,
    tokens: Sequence[str],
    spans: Sequence[tuple[int, int]],
    marked: list[tuple[int, int]],
) -> int | None:
    """The index of ``form`` among ``tokens``: a marked token first, else the first equal one
    (casefolded); a multiword form's first token."""
    first = form.split()[0] if form.split() else form
    key = first.casefold()
    inside = [
        i
        for i, (s, e) in enumerate(spans)
        if any(ms <= s and e <= me for ms, me in marked) and tokens[i].casefold() == key
    ]
    if inside:
        return inside[0]
    return next((i for i, t in enumerate(tokens) if t.casefold() == key), None)


def make_context(
    raw: str, form1: str, form2: str, score: float, path: Path, line: int, n: int
) -> Context:
    text, marked = _unmarked(raw)
    tokens, spans = tokenize(text)
    indices = []
    for k, form in ((1, form1), (2, form2)):
        i = word_index(form, tokens, spans, marked)
        if i is None:
            problem = f"context{n} does not contain word{k} {form!r}"
            raise InputError(path, line, problem, "word-not-in-context")
        indices.append(i)
    return Context(" ".join(text.split()), tuple(tokens), indices[0], indices[1], score)


def _score(value: str | None, name: str, path: Path, line: int) -> float:
    text = (value or "").strip()
    try:
        score = float(text)
    except ValueError:
        score = math.nan
    if not text or math.isnan(score) or math.isinf(score):
        problem = f"{name} is missing" if not text else f"{name} is not a number: {text!r}"
        raise InputError(path, line, problem, "bad-score")
    return score


def _header(path: Path, rows: list[tuple[int, list[str]]]) -> list[str]:
    header = [c.strip() for c in rows[0][1]] if rows else []
    missing = [c for c in CONTEXT_COLUMNS if c not in header]
    if missing:
        raise InputError(
            path,
            rows[0][0] if rows else None,
            "not a CoSimLex/GWSC file: the header lacks " + ", ".join(missing),
            "bad-header",
        )
    return header


def layout(header: Sequence[str]) -> str:
    """``cosimlex`` (sim1/sim2), ``gwsc`` (sim_context1/sim_context2) or ``gwsc-contexts``
    (no scores: a gold file gives them)."""
    for name, cols in SCORE_NAMES.items():
        if all(c in header for c in cols):
            return name
    return "gwsc-contexts"


def read_pairs(path: Path, policy: InvalidPolicy, gold: Path | None = None) -> list[ContextPair]:
    """Every pair of a CoSimLex or GWSC file (scores from ``gold`` when the file has none)."""
    before = sum(policy.skipped.values())
    rows = list(csv_rows(check_file(path), policy, delimiter="\t"))
    header = _header(path, rows)
    kind = layout(header)
    scores: dict[int, tuple[tuple[str, str], Path, int]] = {}
    if kind == "gwsc-contexts" and gold is None:
        raise InputError(
            path, rows[0][0], "no sim1/sim2 columns: give the gold file (--gold)", "no-scores"
        )
    names = SCORE_NAMES["gwsc"] if kind == "gwsc-contexts" else SCORE_NAMES[kind]
    if kind == "gwsc-contexts" and gold is not None:
        grows = list(csv_rows(check_file(gold), policy, delimiter="\t"))
        gheader = [c.strip() for c in grows[0][1]] if grows else []
        if not all(c in gheader for c in names):
            raise InputError(
                gold,
                grows[0][0] if grows else None,
                "expected sim_context1, sim_context2",
                "bad-header",
            )
        at = [gheader.index(c) for c in names]
        for k, (n, row) in enumerate(grows[1:]):
            vals = tuple(row[i] if i < len(row) else "" for i in at)
            scores[k] = ((vals[0], vals[1]), gold, n)
        if len(grows) - 1 != len(rows) - 1:
            problem = f"{len(grows) - 1} gold lines for {len(rows) - 1} pairs in {path}"
            raise InputError(gold, None, problem, "misaligned-gold")
    col = {c: i for i, c in enumerate(header)}
    out: list[ContextPair] = []
    for k, (n, row) in enumerate(rows[1:]):

        def get(name: str, row: list[str] = row) -> str:
            i = col.get(name)
            return row[i].strip() if i is not None and i < len(row) else ""

        try:
            if len(row) != len(header):
                problem = f"expected {len(header)} tab-separated fields, found {len(row)}"
                raise InputError(path, n, problem, "bad-line")
            if k in scores:
                (v1, v2), where, at_line = scores[k]
            else:
                (v1, v2), where, at_line = (get(names[0]), get(names[1])), path, n
            s1 = _score(v1, names[0], where, at_line)
            s2 = _score(v2, names[1], where, at_line)
            w1, w2 = get("word1"), get("word2")
            if not w1 or not w2:
                raise InputError(path, n, "word1 and word2 must not be empty", "bad-line")
            contexts = tuple(
                make_context(
                    get(f"context{c}"),
                    get(f"word1_context{c}") or w1,
                    get(f"word2_context{c}") or w2,
                    s,
                    path,
                    n,
                    c,
                )
                for c, s in ((1, s1), (2, s2))
            )
        except InputError as err:
            policy.reject(err)
            continue
        out.append(ContextPair(w1, w2, (contexts[0], contexts[1]), n, str(path)))
    if not out:
        raise no_entries(path, "no word pairs", refused_since(policy, before))
    return out


def named_language(path: Path) -> str:
    """The language a published file's name gives (``cosimlex_hr.tsv``, ``data_fi.tsv``), or
    ``""``: CoSimLex and the GWSC kit name one file per language, their content says none."""
    m = re.fullmatch(r"(?:cosimlex|data|gold)[_-]([a-z]{2,3})", path.stem.lower())
    return m.group(1) if m else ""


def set_name(path: Path) -> str:
    """``cosimlex_en.tsv`` -> ``cosimlex-en``; ``data_en.tsv`` -> ``gwsc-en``."""
    stem = re.sub(r"[^A-Za-z0-9-]+", "-", path.stem.lower()).strip("-")
    return re.sub(r"^data-", "gwsc-", stem)


@dataclass
class CoSimLexSource:
    """One CoSimLex/GWSC file (and its gold file) as one set."""

    path: Path
    lang: str = ""
    gold: Path | None = None
    name: str = ""
    source_version: str = "unknown"
    license: str = "unknown"

    def __post_init__(self) -> None:
        self.name = self.name or set_name(self.path)

    @property
    def info(self) -> SourceInfo:
        files = [(self.path.name, self.path)]
        if self.gold is not None:
            files.append((self.gold.name, self.gold))
        return SourceInfo(
            "cosimlex",
            self.name,
            self.source_version,
            self.license,
            file_entries(files),
            citation=COSIMLEX_CITATION,
        )

    def declared_codes(self) -> tuple[str, ...]:
        """The file name's language (checked against ``--lang``), else nothing."""
        code = named_language(self.path)
        return (code,) if code else ()

    def pairs(self, policy: InvalidPolicy) -> list[ContextPair]:
        return read_pairs(self.path, policy, self.gold)

    def sets(self, policy: InvalidPolicy) -> list[tuple[str, list[ContextPair]]]:
        return [(self.name, self.pairs(policy))]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        source = SourceFile(self.name, str(self.path), SPLIT)
        for p in self.pairs(policy):
            for c, ctx in enumerate(p.contexts, start=1):
                yield Example(
                    id=f"{p.line}/context{c}",
                    inputs=(ctx.text, " ".join(ctx.tokens), str(ctx.index1), str(ctx.index2)),
                    kind="in-context",
                    label=None,
                    score=ctx.score,
                    source=source,
                    line=p.line,
                )


COSIMLEX_CITATION = (
    "Armendariz, Purver, Ulčar, Pollak, Ljubešić & Granroth-Wilding (2020). CoSimLex: A "
    "Resource for Evaluating Graded Word Similarity in Context. LREC 2020; Armendariz et al. "
    "(2020). SemEval-2020 Task 3: Graded Word Similarity in Context. SemEval 2020."
)
