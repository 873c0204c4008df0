"""Graded word-similarity sets as scored word pairs (:class:`~polyprobe.loaders.records.Example`
with ``kind="word"`` and a ``score``), whatever layout they were published in:

* the vecto ``word-benchmarks`` CSV (``,word1,word2,similarity`` with a pandas index column;
  the language, or the language pair of a cross-lingual set, is the file's folder name:
  ``monolingual/en/simlex999.csv``, ``cross-lingual/en-de/semeval17.csv``);
* FinnSim (FinSemEvl): semicolon CSV with a UTF-8 BOM and CRLF lines, either the Finnish
  judgments (``word1;word2;sim_score;sim_score_sd``) or the SimLex-999 translations with the
  original English scores in decimal-comma notation and a POS column;
* Multi-SimLex in its Concepticon layout (``Vulic-2020-2244.tsv``): one row per *concept*,
  with the numbers of the concepts it was paired with (``LINKS``), and per language the word
  used in each pair (``<LANG>_IN_SOURCE``, space-separated, one per link) and the pair's
  score (``<LANG>_SCORE``). It is turned back into the 1,888 scored pairs per language and,
  for two languages, into cross-lingual pairs (see :func:`multisimlex_pairs`);
* a plain ``word1 TAB word2 TAB score`` file (a user's own set).

Files are read through the input layer (:mod:`polyprobe.loaders.inputs`): strict UTF-8, a
bad byte, control character or over-long line refused at its line (skippable), an empty file
or one with only a header named. A concept number given twice in a Concepticon file is
refused (``duplicate-id``): both rows would publish the same pair ids, which ``polyprobe
validate`` rejects. The same word pair twice in a plain or vecto set is kept: its rows have
their own line ids, and published sets hold such pairs (SimLex-999's Russian translation
repeats 14 pairs).

Why every set is named by a *config name* carried in ``SourceFile.treebank``: one file can
hold several sets (Multi-SimLex holds 12 languages, their cross-lingual pairs and per-POS
subsets), and a build's task picks its set's examples by that name. Every pair goes to the
``test`` split: these are evaluation sets, never training data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import csv_rows, no_entries, numbered_lines, refused_since
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

SPLIT = "test"

# Multi-SimLex's language columns -> ISO 639-1/3 codes (Cantonese has no 639-1 code).
MULTISIMLEX_LANGUAGES: dict[str, str] = {
    "ENGLISH": "en",
    "ARABIC": "ar",
    "CHINESE": "zh",
    "WELSH": "cy",
    "ESTONIAN": "et",
    "FINNISH": "fi",
    "FRENCH": "fr",
    "HEBREW": "he",
    "POLISH": "pl",
    "RUSSIAN": "ru",
    "SPANISH": "es",
    "CANTONESE": "yue",
}
MULTISIMLEX_CODES = {code: name for name, code in MULTISIMLEX_LANGUAGES.items()}

# What each known set is, for the card: name, scale and citation key.
KNOWN_SETS: dict[str, tuple[str, str]] = {
    "simlex999": ("SimLex-999 (Hill et al. 2015)", "0-10"),
    "simlex965": ("SimLex-965, the Russian SimLex (Panchenko et al. 2016)", "0-1"),
    "semeval17": ("SemEval-2017 Task 2 (Camacho-Collados et al. 2017)", "0-4"),
    "finnsim": ("FinnSim (Venekoski & Vankka 2017): 55 Finnish raters", "0-10"),
    "simlex999-translations": (
        "SimLex-999 pairs translated into Finnish, original English scores (FinSemEvl)",
        "0-10",
    ),
    "multisimlex": ("Multi-SimLex (Vulić et al. 2020), from Concepticon's layout", "0-6"),
}


@dataclass(frozen=True)
class ScoredPair:
    """One pair as read: its words, score, part of speech ("" when not given) and line."""

    word1: str
    word2: str
    score: float
    pos: str
    line: int
    key: str  # stable within its set (the line, or Multi-SimLex's concept number and link)


@dataclass(frozen=True)
class PairSet:
    """One scored pair set of a file: its config name, languages (one, or two for a
    cross-lingual set) and pairs."""

    name: str
    languages: tuple[str, ...]
    description: str
    scale: str
    pairs: tuple[ScoredPair, ...]
    notes: tuple[str, ...] = ()


def _score(text: str, path: Path, line: int, policy: InvalidPolicy) -> float | None:
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        policy.reject(InputError(path, line, f"score {text!r} is not a number", "bad-score"))
        return None
    return value


def _rows(path: Path, delimiter: str, policy: InvalidPolicy) -> list[tuple[int, list[str]]]:
    """``(line, fields)`` of the file's non-blank records (through the input layer: a bad
    byte, control character or over-long line goes to ``policy`` at its line); a file with
    none, or with only a header (``header`` layouts: one record), is a fatal ``empty``."""
    before = sum(policy.skipped.values())
    rows = list(csv_rows(path, policy, delimiter=delimiter))
    if not rows:
        raise no_entries(path, refused=refused_since(policy, before))
    return rows


def _entries(path: Path, rows: list[tuple[int, list[str]]]) -> None:
    """A file whose header is followed by no entry is a fatal ``empty``."""
    if len(rows) < 2:
        raise no_entries(path, "only a header, no entries")


def _known(stem: str) -> tuple[str, str]:
    return KNOWN_SETS.get(stem, (stem, "as given"))


def _check_words(w1: str, w2: str, path: Path, line: int, policy: InvalidPolicy) -> bool:
    if not w1.strip() or not w2.strip():
        policy.reject(InputError(path, line, "empty word", "empty-word"))
        return False
    return True


def read_vecto_csv(path: Path, policy: InvalidPolicy) -> PairSet:
    """``,word1,word2,similarity`` (vecto word-benchmarks); languages from the folder name."""
    rows = _rows(path, ",", policy)
    if [c.strip() for c in rows[0][1][1:4]] != ["word1", "word2", "similarity"]:
        raise InputError(
            path, rows[0][0], "expected the header ',word1,word2,similarity'", "bad-header"
        )
    _entries(path, rows)
    langs = tuple(path.parent.name.split("-"))
    pairs = []
    for n, row in rows[1:]:
        if len(row) != 4:
            policy.reject(InputError(path, n, f"expected 4 fields, found {len(row)}", "bad-line"))
            continue
        score = _score(row[3], path, n, policy)
        if score is None or not _check_words(row[1], row[2], path, n, policy):
            continue
        pairs.append(ScoredPair(row[1].strip(), row[2].strip(), score, "", n, str(n)))
    title, scale = _known(path.stem)
    name = f"{path.stem}-{'-'.join(langs)}"
    kind = "cross-lingual" if len(langs) == 2 else "monolingual"
    return PairSet(name, langs, f"{title}, {kind} ({'-'.join(langs)})", scale, tuple(pairs))


# A spreadsheet read "1.8" as a Finnish date and wrote it back as "1.elo" (1 August): eight
# FinnSim scores are stored so. The day is the integer part, the month number the decimal.
_FINNISH_MONTHS = (
    "tammi",
    "helmi",
    "maalis",
    "huhti",
    "touko",
    "kesä",
    "heinä",
    "elo",
    "syys",
    "loka",
    "marras",
    "joulu",
)
_FINNISH_DATE = re.compile(r"^(\d+)\.(" + "|".join(_FINNISH_MONTHS) + r")$")


def repair_finnish_date(text: str) -> str | None:
    """``1.elo`` -> ``1.8``; None when ``text`` is not such a date."""
    m = _FINNISH_DATE.match(text.strip())
    if m is None:
        return None
    return f"{m.group(1)}.{_FINNISH_MONTHS.index(m.group(2)) + 1}"


def read_finnsim(path: Path, policy: InvalidPolicy) -> PairSet:
    """FinnSim's two semicolon files (BOM, CRLF): the Finnish judgments, or the SimLex-999
    translations with the original English scores (decimal commas) and POS."""
    rows = _rows(path, ";", policy)
    header = [c.strip() for c in rows[0][1]]
    pairs = []
    repairs: list[str] = []
    if header[:3] == ["word1", "word2", "sim_score"]:
        w1, w2, sc, pos_col, stem = 0, 1, 2, None, "finnsim"
    elif header[:3] == ["word1_fi", "word2_fi", "SimLex999"] and "POS" in header:
        # The third column repeats the set's name; the score is the second "SimLex999".
        w1, w2, sc, pos_col = 0, 1, header.index("SimLex999", 3), header.index("POS")
        stem = "simlex999-translations"
    else:
        raise InputError(
            path, rows[0][0], f"not a FinnSim header: {';'.join(header)!r}", "bad-header"
        )
    _entries(path, rows)
    for n, row in rows[1:]:
        if len(row) < len(header):
            problem = f"expected {len(header)} fields, found {len(row)}"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        repaired = repair_finnish_date(row[sc])
        if repaired is not None:
            repairs.append(f"line {n}: {row[sc]!r} read as {repaired}")
        score = _score(repaired or row[sc], path, n, policy)
        if score is None or not _check_words(row[w1], row[w2], path, n, policy):
            continue
        pos = row[pos_col].strip() if pos_col is not None else ""
        pairs.append(ScoredPair(row[w1].strip(), row[w2].strip(), score, pos, n, str(n)))
    title, scale = _known(stem)
    notes = ()
    if repairs:
        notes = (
            f"{len(repairs)} scores were stored as Finnish spreadsheet dates (D.<month>: a "
            "value D.M read as a date) and are read back as D.M: " + "; ".join(repairs),
        )
    return PairSet(f"{stem}-fi", ("fi",), title, scale, tuple(pairs), notes)


def read_word_pairs(path: Path, policy: InvalidPolicy) -> PairSet:
    """A plain ``word1 TAB word2 TAB score`` file; the language is not declared."""
    rows = _rows(path, "\t", policy)
    pairs = []
    for n, row in rows:
        if row[0].startswith("#"):
            continue
        if len(row) != 3:
            problem = f"expected word1 TAB word2 TAB score, found {len(row)} fields"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        score = _score(row[2], path, n, policy)
        if score is None or not _check_words(row[0], row[1], path, n, policy):
            continue
        pairs.append(ScoredPair(row[0].strip(), row[1].strip(), score, "", n, str(n)))
    return PairSet(path.stem, (), f"{path.stem} (word pairs)", "as given", tuple(pairs))


# --------------------------------------------------------------------------- Multi-SimLex


@dataclass(frozen=True)
class Concept:
    """One row of the Concepticon layout."""

    number: str
    pos: str
    links: tuple[str, ...]
    words: dict[str, tuple[str, ...]]  # language code -> word per link
    scores: dict[str, tuple[float, ...]]  # language code -> score per link
    line: int


def _split_per_link(value: str, headword: str, links: int) -> tuple[str, ...]:
    """``<LANG>_IN_SOURCE`` holds one word per link, space-separated; a multiword entry
    (Finnish ``antaa lupa``) makes that ambiguous, so when the count does not match the
    links, the concept's headword (the ``<LANG>`` column) stands for every link."""
    if links == 1:
        return (value.strip() or headword,)
    parts = value.split()
    if len(parts) == links:
        return tuple(parts)
    return (headword,) * links


def concept_rows(
    path: Path, policy: InvalidPolicy, need: tuple[str, ...] = ("NUMBER", "POS", "LINKS")
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the rows of a Concepticon TSV, each row with its line: a row without
    the header's fields is ``bad-line``, a concept ``NUMBER`` given twice ``duplicate-id``
    (its rows would publish the same ids), both skippable (the first row is kept)."""
    rows = _rows(path, "\t", policy)
    header = rows[0][1]
    missing = [c for c in need if c not in header]
    if missing:
        raise InputError(
            path, rows[0][0], f"not Concepticon's layout: no {', '.join(missing)}", "bad-header"
        )
    _entries(path, rows)
    number = header.index("NUMBER")
    first: dict[str, int] = {}
    out = []
    for n, row in rows[1:]:
        if len(row) != len(header):
            problem = f"expected {len(header)} fields, found {len(row)}"
            policy.reject(InputError(path, n, problem, "bad-line"))
            continue
        seen = first.setdefault(row[number].strip(), n)
        if seen != n:
            problem = f"duplicate concept NUMBER {row[number].strip()!r} (first on line {seen})"
            policy.reject(InputError(path, n, problem, "duplicate-id"))
            continue
        out.append((n, row))
    return header, out


def read_concepticon(path: Path, policy: InvalidPolicy) -> list[Concept]:
    header, rows = concept_rows(path, policy)
    col = {c: i for i, c in enumerate(header)}
    langs = [name for name in MULTISIMLEX_LANGUAGES if f"{name}_SCORE" in col]
    concepts = []
    for n, row in rows:
        links = tuple(row[col["LINKS"]].split())
        words: dict[str, tuple[str, ...]] = {}
        scores: dict[str, tuple[float, ...]] = {}
        bad = False
        for name in langs:
            code = MULTISIMLEX_LANGUAGES[name]
            raw = row[col[f"{name}_SCORE"]].split()
            if len(raw) != len(links):
                problem = f"{name}_SCORE has {len(raw)} scores for {len(links)} links"
                policy.reject(InputError(path, n, problem, "bad-scores"))
                bad = True
                break
            values = [_score(v, path, n, policy) for v in raw]
            if any(v is None for v in values):
                bad = True
                break
            scores[code] = tuple(v for v in values if v is not None)
            words[code] = _split_per_link(
                row[col.get(f"{name}_IN_SOURCE", col[name])], row[col[name]].strip(), len(links)
            )
        if not bad:
            concepts.append(
                Concept(row[col["NUMBER"]], row[col["POS"]].strip(), links, words, scores, n)
            )
    return concepts


def multisimlex_pairs(concepts: Sequence[Concept], lang: str) -> list[ScoredPair]:
    """The monolingual pairs of one language. Each pair is listed at both its concepts; it is
    taken once, from the concept with the lower number (its k-th link), with the word the
    partner used for the matching link (the m-th time the partner links back). Two SimLex
    pairs can map onto one concept pair (407-1546): both are kept."""
    by_number = {c.number: c for c in concepts}
    out = []
    for c in concepts:
        seen: dict[str, int] = {}
        for k, other_no in enumerate(c.links):
            m = seen.get(other_no, 0)
            seen[other_no] = m + 1
            other = by_number.get(other_no)
            if other is None or int(other_no) <= int(c.number):
                continue
            back = [i for i, x in enumerate(other.links) if x == c.number]
            if m >= len(back):
                continue
            w1, w2 = c.words[lang][k], other.words[lang][back[m]]
            key = f"{c.number}-{other_no}" + (f"-{m}" if m else "")
            out.append(ScoredPair(w1, w2, c.scores[lang][k], c.pos, c.line, key))
    return out


def cross_lingual_pairs(concepts: Sequence[Concept], lang1: str, lang2: str) -> list[ScoredPair]:
    """Cross-lingual pairs of two languages, after Camacho-Collados et al. (2015), as
    Multi-SimLex built its 66 cross-lingual sets: for a pair (a, b) with scores s1 in
    ``lang1`` and s2 in ``lang2``, both (a in lang1, b in lang2) and (b in lang1, a in lang2)
    are scored (s1 + s2) / 2. (The published sets also drop pairs whose two scores differ by
    more than a threshold; that filter is not applied here and the card says so.)"""
    one = {p.key: p for p in multisimlex_pairs(concepts, lang1)}
    two = {p.key: p for p in multisimlex_pairs(concepts, lang2)}
    out = []
    for key, p in one.items():
        q = two.get(key)
        if q is None:
            continue
        score = (p.score + q.score) / 2
        out.append(ScoredPair(p.word1, q.word2, score, p.pos, p.line, f"{key}/ab"))
        out.append(ScoredPair(p.word2, q.word1, score, p.pos, p.line, f"{key}/ba"))
    return out


def read_multisimlex(
    path: Path, policy: InvalidPolicy, lang: str, others: Sequence[str] = ()
) -> list[PairSet]:
    """Multi-SimLex sets for ``lang``: its monolingual pairs, one subset per POS, and a
    cross-lingual set with each of ``others``."""
    if lang not in MULTISIMLEX_CODES:
        raise InputError(path, None, f"Multi-SimLex has no language {lang!r}", "bad-language")
    concepts = read_concepticon(path, policy)
    title, scale = _known("multisimlex")
    mono = multisimlex_pairs(concepts, lang)
    sets = [PairSet(f"multisimlex-{lang}", (lang,), f"{title}, {lang}", scale, tuple(mono))]
    for pos in sorted({p.pos for p in mono}):
        subset = tuple(p for p in mono if p.pos == pos)
        sets.append(
            PairSet(f"multisimlex-{lang}-{pos}", (lang,), f"{title}, {lang}, {pos}", scale, subset)
        )
    note = (
        "cross-lingual score = mean of the two monolingual scores (Camacho-Collados et al. "
        "2015), both word orders; the published sets' filter on score agreement is not applied",
    )
    for other in others:
        if other == lang:
            continue
        if other not in MULTISIMLEX_CODES:
            raise InputError(path, None, f"Multi-SimLex has no language {other!r}", "bad-language")
        pairs = tuple(cross_lingual_pairs(concepts, lang, other))
        desc = f"{title}, cross-lingual {lang}-{other}"
        sets.append(PairSet(f"multisimlex-{lang}-{other}", (lang, other), desc, scale, pairs, note))
    return sets


# --------------------------------------------------------------------------- the source


def detect_layout(path: Path) -> str:
    """``vecto``, ``finnsim``, ``concepticon`` or ``pairs``, from the file's first line (a
    line that is not text decides nothing: the reader then refuses it at its line)."""
    first = next((line for _, line in numbered_lines(path)), "")
    if first.startswith(",word1,word2,similarity") or first.startswith("word1,word2,similarity"):
        return "vecto"
    if first.startswith("word1;") or first.startswith("word1_fi;"):
        return "finnsim"
    if first.startswith("ID\tNUMBER\t"):
        return "concepticon"
    return "pairs"


LICENSES = {"finnsim": "GPL-2.0", "concepticon": "CC-BY-4.0"}


@dataclass
class SimilaritySource:
    """One similarity file, read into its pair sets (config names). ``lang``/``others`` only
    matter for Multi-SimLex (which language to build, and its cross-lingual partners)."""

    path: Path
    lang: str = ""
    others: tuple[str, ...] = ()
    license: str = ""
    source_version: str = "unknown"

    @property
    def layout(self) -> str:
        return detect_layout(self.path)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def info(self) -> SourceInfo:
        layout = self.layout
        licence = self.license or LICENSES.get(layout, "unknown")
        files = file_entries([(self.path.name, self.path)])
        return SourceInfo(f"similarity-{layout}", self.name, self.source_version, licence, files)

    def declared_codes(self) -> tuple[str, ...]:
        """The languages the file says it is in (folder name, FinnSim, Multi-SimLex's
        chosen language); a cross-lingual vecto set declares none."""
        layout = self.layout
        if layout == "vecto" and "-" not in self.path.parent.name:
            return (self.path.parent.name,)
        if layout == "finnsim":
            return ("fi",)
        return ()

    def sets(self, policy: InvalidPolicy) -> list[PairSet]:
        layout = self.layout
        if layout == "vecto":
            return [read_vecto_csv(self.path, policy)]
        if layout == "finnsim":
            return [read_finnsim(self.path, policy)]
        if layout == "concepticon":
            return read_multisimlex(self.path, policy, self.lang, self.others)
        return [read_word_pairs(self.path, policy)]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        for pair_set in self.sets(policy):
            yield from set_examples(pair_set, str(self.path))


def set_examples(pair_set: PairSet, path: str) -> Iterator[Example]:
    source = SourceFile(pair_set.name, path, SPLIT)
    for p in pair_set.pairs:
        yield Example(
            id=p.key,
            inputs=(p.word1, p.word2),
            kind="word",
            label=None,
            score=p.score,
            source=source,
            line=p.line,
        )


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def config_name(name: str) -> str:
    """A set's name as a config name (letters, digits, ``_``, ``.``, ``-``)."""
    return _SAFE.sub("_", name)
