"""What a treebank's *content* says about its language, beside what its names declare.

Why: the language check (:mod:`polyprobe.loaders.declared`) reads file names and READMEs only,
so a UD file named ``en_...conllu`` with German sentences appended built an ``en`` dataset.
Here each input file is read once more, cheaply (the token lines' FORM column, through the
input layer), and cut into blocks of :data:`BLOCK_SENTENCES` sentences. Each block is counted:

* **script**: its words written in the declared language's script (a word's first letter's
  script; :data:`SCRIPTS`, a language not listed is not checked for script), and its
  sentences written mostly in it;
* **frequent words**: the share of its words that are frequent in the *rest* of the input,
  and its sentences holding at least one: a word is frequent when it is among the
  :data:`TOP_WORDS` most frequent words of at least half of the other blocks (a vote, so
  that a long appended part, a third of the input, does not make its own words frequent). A
  block in another language shares few of them: German sentences appended to an English
  treebank have 3-4 % of their words among them, EWT's English blocks 44-48 %. The vote is taken
  again without the blocks found odd (up to three rounds).

A block disagrees when its script share is under half, or when it has at least
:data:`MIN_WORDS` words and its frequent-word share is under :data:`RATIO` of the median
block's. A file with such a block is refused like a declared mismatch (``build.prepare``
calls :func:`check_content` beside the declared check), or, with
``--allow-language-mismatch``, recorded in the card's ``language_mismatch``. The thresholds
were checked against every shared UD treebank with its own language (no block of them comes
near: ``tests/test_language_evidence.py``).
"""

from __future__ import annotations

import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError, UsageError
from polyprobe.languages import Language
from polyprobe.loaders.inputs import BadLine, line_blocks

__all__ = [
    "BLOCK_SENTENCES",
    "MIN_WORDS",
    "RATIO",
    "SCRIPTS",
    "TOP_WORDS",
    "Block",
    "FileEvidence",
    "check_content",
    "conllu_sentences",
    "evidence",
    "lexicon_evidence",
]

BLOCK_SENTENCES = 500
TOP_WORDS = 100
MIN_WORDS = 300
RATIO = 0.5
_ROUNDS = 3

#: The script(s) a language is written in (ISO 639-3 -> Unicode script names as
#: ``unicodedata`` spells a letter's name's first word). A language not listed is only
#: compared with the rest of its input.
SCRIPTS: dict[str, frozenset[str]] = {
    **{
        code: frozenset({"LATIN"})
        for code in [
            "eng",
            "deu",
            "fra",
            "spa",
            "ita",
            "por",
            "nld",
            "cat",
            "eus",
            "glg",
            "fin",
            "est",
            "hun",
            "tur",
            "ces",
            "slk",
            "slv",
            "hrv",
            "bos",
            "pol",
            "lit",
            "lav",
            "ron",
            "dan",
            "swe",
            "nor",
            "nob",
            "nno",
            "isl",
            "gle",
            "cym",
            "sqi",
            "mlt",
            "afr",
            "ind",
            "msa",
            "vie",
            "tgl",
            "swa",
            "aze",
            "uzb",
            "kaz_latn",
            "lat",
            "fao",
            "frr",
            "gsw",
        ]
    },
    **{
        code: frozenset({"CYRILLIC"})
        for code in ["rus", "ukr", "bel", "bul", "mkd", "kaz", "kir", "tat", "bak", "chv"]
    },
    "srp": frozenset({"CYRILLIC", "LATIN"}),
    "ell": frozenset({"GREEK"}),
    "grc": frozenset({"GREEK"}),
    "kat": frozenset({"GEORGIAN"}),
    "hye": frozenset({"ARMENIAN"}),
    "heb": frozenset({"HEBREW"}),
    **{code: frozenset({"ARABIC"}) for code in ["ara", "fas", "urd", "pus", "uig"]},
    **{code: frozenset({"DEVANAGARI"}) for code in ["hin", "mar", "nep", "san"]},
    "ben": frozenset({"BENGALI"}),
    "tam": frozenset({"TAMIL"}),
    "tel": frozenset({"TELUGU"}),
    "tha": frozenset({"THAI"}),
    "kor": frozenset({"HANGUL"}),
    "jpn": frozenset({"CJK", "HIRAGANA", "KATAKANA"}),
    "zho": frozenset({"CJK"}),
}


@lru_cache(maxsize=1 << 14)
def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else ""


def _letters(form: str, scripts: frozenset[str]) -> tuple[int, int]:
    """(1, 1) for a form written in ``scripts`` (its first letter's script), (1, 0) for one
    in another script, (0, 0) for one without a letter (numbers, punctuation). Why a form's
    first letter and not every letter: a pass over every character of a 115,000-line lexicon
    took 1.7 s; a word is written in one script (the rare mixed one counts once)."""
    if form.isascii():
        if not any(ch.isalpha() for ch in form):
            return 0, 0
        return 1, int("LATIN" in scripts)
    for ch in form:
        if ch.isalpha():
            return 1, int(_script(ch) in scripts)
    return 0, 0


@dataclass
class Block:
    """One block of a file: where it is, what it holds, how it compares."""

    first_line: int
    last_line: int
    sentences: int = 0
    words: Counter[str] = field(default_factory=Counter)
    letters: int = 0  # words (forms) with a letter
    in_script: int = 0  # of them, written in the declared script
    sentences_in_script: int = 0
    sentences_matching: int = 0  # sentences holding a frequent word of the rest
    coverage: float = 0.0  # share of its words among the rest's frequent words
    script_odd: str = ""  # why its script disagrees ("" when it does not)
    words_odd: str = ""  # why its words disagree
    _sentence_words: list[frozenset[str]] = field(default_factory=list, repr=False)

    @property
    def word_count(self) -> int:
        return sum(self.words.values())

    @property
    def odd(self) -> str:
        """Why the block disagrees with ``--lang``, or ``""``."""
        return self.script_odd or self.words_odd


@dataclass
class FileEvidence:
    """A file's blocks and their totals (what a message and the card say)."""

    path: Path
    blocks: list[Block]
    unit: str = "sentences"  # what a block counts: sentences, or a lexicon's forms

    @property
    def sentences(self) -> int:
        return sum(b.sentences for b in self.blocks)

    @property
    def sentences_in_script(self) -> int:
        return sum(b.sentences_in_script for b in self.blocks)

    @property
    def sentences_matching(self) -> int:
        return sum(b.sentences_matching for b in self.blocks)

    @property
    def odd(self) -> list[Block]:
        return [b for b in self.blocks if b.odd]


def conllu_sentences(path: str | Path) -> Iterator[tuple[int, int, list[str]]]:
    """``(first line, last line, FORMs)`` of each sentence of a CoNLL-U file (its syntactic
    words; multiword tokens and empty nodes left out), lines the input layer refuses left to
    the reader, which names them."""
    forms: list[str] = []
    first = last = 0
    number = 0
    for lines in line_blocks(path):
        for line in lines:
            number += 1
            if not line or type(line) is BadLine:
                if forms:
                    yield first, last, forms
                    forms = []
                continue
            c = line[0]
            if c < "0" or c > "9":
                continue
            cut = line.find("\t")
            if cut < 0:
                continue
            ident = line[:cut]
            if "-" in ident or "." in ident:
                continue
            end = line.find("\t", cut + 1)
            if not forms:
                first = number
            last = number
            forms.append(line[cut + 1 : end] if end > 0 else line[cut + 1 :])
    if forms:
        yield first, last, forms


def _blocks(
    sentences: Iterable[tuple[int, int, list[str]]], scripts: frozenset[str] | None
) -> list[Block]:
    blocks: list[Block] = []
    block: Block | None = None
    latin = scripts is not None and "LATIN" in scripts
    for first, last, forms in sentences:
        if block is None or block.sentences >= BLOCK_SENTENCES:
            block = Block(first, last)
            blocks.append(block)
        block.last_line = last
        block.sentences += 1
        words = [f.lower() for f in forms if f.isalpha()]
        block.words.update(words)
        block._sentence_words.append(frozenset(words))
        if scripts is not None:
            if all(f.isascii() for f in forms):  # most sentences of most treebanks: no call
                letters = len(words)
                inside = letters if latin else 0
            else:
                letters = inside = 0
                for f in forms:
                    n, i = _letters(f, scripts)
                    letters += n
                    inside += i
            block.letters += letters
            block.in_script += inside
            block.sentences_in_script += 2 * inside >= letters
    # a short last block is counted with the one before it (its share means little alone)
    if len(blocks) > 1 and blocks[-1].sentences < BLOCK_SENTENCES // 5:
        last = blocks.pop()
        prev = blocks[-1]
        prev.last_line = last.last_line
        prev.sentences += last.sentences
        prev.words.update(last.words)
        prev._sentence_words.extend(last._sentence_words)
        prev.letters += last.letters
        prev.in_script += last.in_script
        prev.sentences_in_script += last.sentences_in_script
    return blocks


def _compare(blocks: list[Block], language: Language, scripts: frozenset[str] | None) -> None:
    """Fill each block's coverage and why it disagrees (see the module docstring)."""
    for b in blocks:
        if scripts is not None and b.letters and 2 * b.in_script < b.letters:
            names = "/".join(sorted(s.title() for s in scripts))
            b.script_odd = (
                f"{b.in_script / b.letters:.0%} of their words are in the {language.name} "
                f"script ({names})"
            )
    voters = [b for b in blocks if b.word_count >= MIN_WORDS]
    if len(voters) < 2:
        return
    tops = {id(b): {w for w, _ in b.words.most_common(TOP_WORDS)} for b in blocks}
    for _ in range(_ROUNDS):
        voting = [b for b in voters if not b.odd]
        votes: Counter[str] = Counter()
        for b in voting:
            votes.update(tops[id(b)])
        voting_ids = {id(v) for v in voting}
        for b in blocks:
            mine = id(b) in voting_ids
            others = len(voting) - mine
            if others == 0:
                continue
            need = (others + 1) // 2
            own = tops[id(b)] if mine else set()
            frequent = {w for w, n in votes.items() if n - (w in own) >= need}
            n = b.word_count
            b.coverage = sum(c for w, c in b.words.items() if w in frequent) / n if n else 0.0
            b.sentences_matching = sum(1 for words in b._sentence_words if words & frequent)
        counted = [b.coverage for b in voting]
        if not counted:
            return
        median = statistics.median(counted)
        changed = False
        for b in voters:
            why = (
                f"{b.coverage:.0%} of their words are among the words most frequent in most "
                f"other blocks of the input ({median:.0%} in those blocks)"
                if b.coverage < RATIO * median
                else ""
            )
            if why != b.words_odd:
                b.words_odd = why
                changed = True
        if not changed:
            return


def evidence(paths: Sequence[str | Path], language: Language) -> list[FileEvidence]:
    """Each CoNLL-U file's blocks, compared with every other block of the input."""
    scripts = SCRIPTS.get(language.iso639_3)
    files = [FileEvidence(Path(p), _blocks(conllu_sentences(p), scripts)) for p in paths]
    _compare([b for f in files for b in f.blocks], language, scripts)
    return files


def _ranges(f: FileEvidence) -> list[tuple[int, int]]:
    """The line ranges of a file's odd blocks, neighbouring blocks joined."""
    out: list[tuple[int, int]] = []
    previous = False
    for b in f.blocks:
        if b.odd and previous and out:
            out[-1] = (out[-1][0], b.last_line)
        elif b.odd:
            out.append((b.first_line, b.last_line))
        previous = bool(b.odd)
    return out


#: Lexicon entries per block of a lexicon's script check.
LEXICON_BLOCK = 5000


def lexicon_evidence(path: str | Path, language: Language, layout: str | None) -> FileEvidence:
    """A UniMorph file's forms in blocks of :data:`LEXICON_BLOCK` lines, each counted for
    the declared script only (a lexicon's most frequent "words" are its lemmas' paradigms,
    not a language's frequent words): a block whose letters are mostly in another script
    disagrees. A form counts as a sentence does for a treebank (``sentences``). A language
    without a known script (:data:`SCRIPTS`) gives no blocks."""
    from polyprobe.loaders.sniff import sniff_file
    from polyprobe.loaders.unimorph import LEMMA_FEATS_FORM, detect_layout, normalise_layout

    scripts = SCRIPTS.get(language.iso639_3)
    p = Path(path)
    if scripts is None:
        return FileEvidence(p, [])
    sniff_file(p, "unimorph")  # a file in another format is named as such, before its layout
    try:
        order = normalise_layout(layout) if layout else detect_layout(p, strict=False)
    except InputError:
        return FileEvidence(p, [], "forms")  # the reader names what is wrong with it
    col = 2 if order == LEMMA_FEATS_FORM else 1
    blocks: list[Block] = []
    block: Block | None = None
    number = 0
    for lines in line_blocks(p):
        for line in lines:
            number += 1
            cols = line.split("\t")
            if len(cols) < 3 or type(line) is BadLine:
                continue
            if block is None or block.sentences >= LEXICON_BLOCK:
                block = Block(number, number)
                blocks.append(block)
            block.last_line = number
            block.sentences += 1
            letters, inside = _letters(cols[col].strip(), scripts)
            block.letters += letters
            block.in_script += inside
            block.sentences_in_script += 2 * inside >= letters
    for b in blocks:
        if b.letters and 2 * b.in_script < b.letters:
            names = "/".join(sorted(s.title() for s in scripts))
            b.script_odd = (
                f"{b.in_script / b.letters:.0%} of their words are in the {language.name} "
                f"script ({names})"
            )
    return FileEvidence(p, blocks, "forms")


def _describe(f: FileEvidence, language: Language) -> str:
    odd = f.odd
    sentences = sum(b.sentences for b in odd)
    ranges = _ranges(f)
    where = ", ".join(f"lines {a}-{b}" for a, b in ranges[:3])
    if len(ranges) > 3:
        where += f" and {len(ranges) - 3} more parts"
    return (
        f"{f.path}: {sentences:,} of its {f.sentences:,} {f.unit} ({where}) do not read as "
        f"{language.name}: {odd[0].odd}"
    )


def check_content(
    lang: str, language: Language, sources: Sequence[Any], allow: bool
) -> dict[str, list[str]]:
    """The content check of every source that can be read for it (a treebank: its CoNLL-U
    ``files``); refused with a :class:`UsageError` naming the first file that disagrees,
    or, with ``allow``, returned as ``{source: ["content: <file> lines a-b", ...]}`` for the
    card's ``language_mismatch``."""
    paths: list[tuple[str, Path]] = []
    found: list[FileEvidence] = []
    lexicon_files: list[tuple[str, FileEvidence]] = []
    # a generated analogy set is its lexicons (and their cross-lingual partner's: not --lang's)
    expanded = [lex for s in sources for lex in getattr(s, "lexicons", (s,))]
    for source in expanded:
        kind = getattr(getattr(source, "info", None), "kind", "")
        if kind == "ud-treebank":
            paths.extend((source.name, Path(f.path)) for f in source.files)
        elif kind == "unimorph" and hasattr(source, "paths"):
            for path in source.paths:
                evidence_of = lexicon_evidence(path, language, source.layout)
                lexicon_files.append((source.name, evidence_of))
    if paths:
        found = evidence([p for _, p in paths], language)
    named = [(name, f) for (name, _), f in zip(paths, found, strict=True)] + lexicon_files
    out: dict[str, list[str]] = {}
    for name, f in named:
        if not f.odd:
            continue
        if not allow:
            raise UsageError(
                f"{_describe(f, language)}; --lang {lang} is {language.name}: build one "
                "language per dataset, or pass --allow-language-mismatch to build anyway "
                "(recorded in the card)"
            )
        lines = ", ".join(f"{a}-{b}" for a, b in _ranges(f))
        out.setdefault(name, []).append(f"content: {f.path.name} lines {lines}")
    return out
