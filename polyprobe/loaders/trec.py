"""Reader for the original TREC question-classification files (Li & Roth 2002).

Each line is ``COARSE:fine question``, the question already tokenised (``What county is
Modesto , California in ?``). The files are small (a few hundred kB), so a file is read whole:
that lets the encoding be decided once from all its bytes instead of failing half-way through.

Encodings are detected per file because the distributed files disagree: ``TREC_10.label`` is
ASCII, ``train_5500.label`` is ISO-8859-1 (one ``0xF0`` byte on line 66). UTF-8 is tried
strictly first because a file that decodes as UTF-8 almost certainly is UTF-8; a single-byte
fallback is used only when it fails, and the choice is recorded so the card can say what was
done to the source text.

This detection is TREC's alone: its files are known (the distribution's ``train_<N>.label``
and ``TREC_10.label``), and what was decoded how is recorded in the card. Every other reader
of text goes through :mod:`polyprobe.loaders.inputs`, which never guesses an encoding; the
files are opened and checked there too (missing, a folder, not text at all), and a line over
:data:`~polyprobe.loaders.inputs.MAX_LINE_CHARS` characters is refused (``too-long``).

Both files are required and the benchmark's are known, so a file with no question
(``empty``), and a distributed file that is shorter than distributed or ends inside its last
line (``truncated``: a cut download), are errors whatever the ``--on-invalid`` policy: built
anyway, an empty train file gave a test-only dataset and a cut one a smaller label set.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError
from polyprobe.loaders.declared import TREC_LANGUAGE, DeclaredLanguage
from polyprobe.loaders.inputs import (
    MAX_LINE_CHARS,
    check_file,
    control_problem,
    not_text,
    read_bytes,
    too_long,
)
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.sniff import SNIFF_LINES, refuse_other_format
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SourceInfo

# The six coarse classes of Li & Roth's taxonomy; anything else is a malformed label.
COARSE_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")

# The 50 fine classes of the taxonomy, as ``COARSE:fine`` (all of them occur in the standard
# train_5500 + TREC_10 files). A build whose label set differs says so in its card.
FINE_LABELS: tuple[str, ...] = (
    *("ABBR:abb", "ABBR:exp", "DESC:def", "DESC:desc", "DESC:manner", "DESC:reason"),
    *("ENTY:animal", "ENTY:body", "ENTY:color", "ENTY:cremat", "ENTY:currency"),
    *("ENTY:dismed", "ENTY:event", "ENTY:food", "ENTY:instru", "ENTY:lang", "ENTY:letter"),
    *("ENTY:other", "ENTY:plant", "ENTY:product", "ENTY:religion", "ENTY:sport"),
    *("ENTY:substance", "ENTY:symbol", "ENTY:techmeth", "ENTY:termeq", "ENTY:veh"),
    *("ENTY:word", "HUM:desc", "HUM:gr", "HUM:ind", "HUM:title", "LOC:city", "LOC:country"),
    *("LOC:mount", "LOC:other", "LOC:state", "NUM:code", "NUM:count", "NUM:date", "NUM:dist"),
    *("NUM:money", "NUM:ord", "NUM:other", "NUM:perc", "NUM:period", "NUM:speed", "NUM:temp"),
    *("NUM:volsize", "NUM:weight"),
)

# Lines of the distributed files (cogcomp's TREC 5500/10; each ends with a line end). A file
# of one of these names that is shorter is a cut download, not another edition.
DISTRIBUTED_LINES: dict[str, int] = {"train_5500.label": 5452, "TREC_10.label": 500}

# File names of the original distribution (cogcomp.seas.upenn.edu/Data/QA/QC/).
TEST_FILE = "TREC_10.label"
_TRAIN_RE = re.compile(r"^train_(\d+)\.label$")
_LABEL_RE = re.compile(r"^([A-Z]+):([A-Za-z]+)$")
_C1_CONTROLS = re.compile(rb"[\x80-\x9f]")

#: The source's own splits, in reading (and card) order.
SPLITS: tuple[str, ...] = ("train", "test")

#: Reason keys counted under ``--on-invalid skip`` (one line skipped each).
REASONS: dict[str, str] = {
    "control-character": "a line holds a C0 control character other than tab (NUL, ESC, ...)",
    "too-long": "a line holds more than MAX_LINE_CHARS characters",
    "blank-line": "an empty line",
    "bad-label": "the first word is not of the form COARSE:fine",
    "unknown-coarse-label": "the coarse class is not one of the six of Li & Roth",
    "no-question": "a label with no question after it",
}


@dataclass(frozen=True, slots=True)
class TrecQuestion:
    """One labelled question. ``fine`` is the part after the colon (``manner``): fine names
    such as ``other`` recur under several coarse classes, so the 50-way label is
    :attr:`fine_label` (``DESC:manner``)."""

    coarse: str
    fine: str
    text: str  # the question as distributed (pre-tokenised), edge whitespace stripped
    tokens: tuple[str, ...]  # whitespace tokens of ``text``
    file: str
    line: int

    @property
    def fine_label(self) -> str:
        return f"{self.coarse}:{self.fine}"


@dataclass
class TrecFile:
    """A whole TREC file: its questions plus what the card must say about how it was read."""

    path: Path
    encoding: str  # "ascii", "utf-8", "utf-8-sig", "iso-8859-1" or "cp1252"
    encoding_note: str  # why that encoding (empty for ASCII/UTF-8)
    sha256: str
    questions: list[TrecQuestion]
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> lines skipped
    non_ascii_lines: list[int] = field(default_factory=list)


def detect_encoding(data: bytes) -> tuple[str, str]:
    """Return ``(encoding, note)`` for a file's bytes.

    Order of trust: strict UTF-8 (``ascii`` when every byte is < 0x80, ``utf-8-sig`` with a
    BOM); otherwise ISO-8859-1 when no byte falls in 0x80–0x9F (there cp1252 and ISO-8859-1
    decode identically, and ISO-8859-1 is the narrower claim); otherwise cp1252, because
    0x80–0x9F are C1 control characters in ISO-8859-1 and never intended in text; ISO-8859-1
    as the last resort when a byte is undefined in cp1252 (it decodes any byte).
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        why = f"not UTF-8 (byte 0x{data[exc.start]:02x} at line {line})"
    else:
        if data.isascii():
            return "ascii", ""
        if data.startswith(b"\xef\xbb\xbf"):
            return "utf-8-sig", ""
        return "utf-8", ""
    if not _C1_CONTROLS.search(data):
        return "iso-8859-1", f"{why}; decoded as ISO-8859-1 (identical to cp1252 for these bytes)"
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return "iso-8859-1", f"{why}; bytes undefined in cp1252, decoded as ISO-8859-1"
    return "cp1252", f"{why}; bytes 0x80-0x9f present, decoded as cp1252"


def parse_line(raw: str, path: str, lineno: int) -> TrecQuestion:
    """Parse one line or raise :class:`InputError` naming file, line and problem."""
    if len(raw) > MAX_LINE_CHARS:
        raise InputError(path, lineno, too_long(len(raw)), "too-long")
    problem = control_problem(raw)
    if problem is not None:
        raise InputError(path, lineno, problem, "control-character")
    if not raw.strip():
        raise InputError(path, lineno, "blank line", "blank-line")
    label, sep, question = raw.partition(" ")
    if not _LABEL_RE.match(label):
        raise InputError(
            path, lineno, f"label {label[:40]!r} is not of the form COARSE:fine", "bad-label"
        )
    coarse, fine = label.split(":")
    if coarse not in COARSE_LABELS:
        raise InputError(
            path,
            lineno,
            f"unknown coarse class {coarse!r} (expected one of {', '.join(COARSE_LABELS)})",
            "unknown-coarse-label",
        )
    text = question.strip()
    if not sep or not text:
        raise InputError(path, lineno, f"label {label!r} has no question after it", "no-question")
    return TrecQuestion(coarse, fine, text, tuple(text.split()), path, lineno)


def read_trec_file(
    path: str | Path, *, on_invalid: str = "raise", policy: InvalidPolicy | None = None
) -> TrecFile:
    """Read one TREC file. ``on_invalid="skip"`` skips malformed lines and counts them by
    reason in :attr:`TrecFile.skipped` (for the card) instead of raising. A ``policy``, when
    given, decides instead of ``on_invalid`` and also gets the counts added to its tally."""
    own = InvalidPolicy(policy.mode if policy is not None else on_invalid)
    p = Path(path)
    data = read_bytes(p, "TREC file")
    problem = not_text(data[:16])
    if problem is not None:
        raise InputError(p, None, problem, "undecodable")
    encoding, note = detect_encoding(data)
    text = data.decode(encoding)
    # Split on "\n" only: str.splitlines() would also break on U+0085, which is what byte
    # 0x85 becomes under ISO-8859-1.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # before the completeness check: a CoNLL-U file named train_5500.label is not "truncated"
    refuse_other_format(p, lines[:SNIFF_LINES], "trec")
    _check_complete(p, data, len(lines))
    questions: list[TrecQuestion] = []
    non_ascii: list[int] = []
    for lineno, raw in enumerate(lines, start=1):
        raw = raw.removesuffix("\r")
        try:
            q = parse_line(raw, str(p), lineno)
        except InputError as err:
            own.reject(err)
            continue
        if not q.text.isascii():
            non_ascii.append(lineno)
        questions.append(q)
    if not questions:  # every line rejected (skip mode): the split would vanish
        reasons = ", ".join(f"{k}: {v}" for k, v in sorted(own.skipped.items()))
        raise InputError(
            p, None, f"no questions: all {len(lines):,} lines rejected ({reasons})", "empty"
        )
    if policy is not None:
        policy.skipped.update(own.skipped)
    return TrecFile(
        path=p,
        encoding=encoding,
        encoding_note=note,
        sha256=hashlib.sha256(data).hexdigest(),
        questions=questions,
        skipped=own.skipped,
        non_ascii_lines=non_ascii,
    )


def _check_complete(path: Path, data: bytes, lines: int) -> None:
    """Before any line is parsed (a cut line must not be reported as a malformed one): a
    TREC file must hold something, and a distributed one all of its lines; else the split
    (both are required) would silently vanish or shrink."""
    if not data.strip():
        raise InputError(path, None, "no questions: the file is empty", "empty")
    expected = DISTRIBUTED_LINES.get(path.name)
    if expected is None:
        return
    if lines < expected:
        raise InputError(
            path,
            lines,
            f"truncated: {lines:,} lines, the distributed {path.name} has {expected:,} "
            "(download it again)",
            "truncated",
        )
    if not data.endswith(b"\n"):
        raise InputError(
            path,
            lines,
            "truncated: the file ends inside its last line (download it again)",
            "truncated",
        )


def find_trec_files(directory: str | Path) -> dict[str, Path]:
    """Locate the train and test files in a folder of the original distribution.

    The distribution ships nested train subsets (``train_1000`` … ``train_5500``); the largest
    is the standard training set, so it is the one taken.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError(
            d, None, "not a directory (expected a folder with the TREC files)", "missing-file"
        )
    # a folder named like a TREC file is refused by name (check_file), not passed over
    trains = sorted(
        (int(m.group(1)), check_file(f)) for f in d.iterdir() if (m := _TRAIN_RE.match(f.name))
    )
    if not trains:
        raise InputError(d, None, "no train_<N>.label file found", "missing-file")
    test = d / TEST_FILE
    if not test.exists():
        raise InputError(d, None, f"no {TEST_FILE} file found", "missing-file")
    return {"train": trains[-1][1], "test": check_file(test)}


@dataclass
class TrecSource:
    """The TREC folder (``train_5500.label`` and ``TREC_10.label``) as a build source whose
    records are :class:`~polyprobe.loaders.records.Example` questions.

    Why: TREC is the downstream end of probing-downstream correlation, so it goes through the
    same spine as every probing source (card entry, ``--on-invalid``, records in a fixed
    order). The label is the 50-way ``COARSE:fine`` one; the coarse class is its prefix. The
    card's files are the train file, then the test file, each with its checksum; the licence
    is not stated by the distribution, so it is ``unknown``."""

    folder: Path
    source_version: str | None = None
    paths: dict[str, Path] = field(default_factory=dict)
    checksums: dict[str, str] = field(default_factory=dict)  # split -> sha256

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        if not self.paths:
            self.paths = find_trec_files(self.folder)
        if not self.checksums:
            from polyprobe.hashing import file_sha256  # numpy, only when a source is made

            self.checksums = {s: file_sha256(str(self.paths[s])) for s in SPLITS}

    @property
    def name(self) -> str:
        return "TREC"

    @property
    def languages(self) -> tuple[DeclaredLanguage, ...]:
        return (TREC_LANGUAGE,)

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            kind="trec",
            name="TREC",
            version=self.source_version or "unknown",
            license="unknown",
            files=[{"name": self.paths[s].name, "sha256": self.checksums[s]} for s in SPLITS],
        )

    def read_files(self, policy: InvalidPolicy) -> dict[str, TrecFile]:
        """Both files as read (encodings, notes, questions), train first."""
        return {s: read_trec_file(self.paths[s], policy=policy) for s in SPLITS}

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        for split, f in self.read_files(policy).items():
            source = SourceFile("trec", str(f.path), split)
            for q in f.questions:
                yield Example(
                    id=f"{split}/{q.line}",
                    inputs=(q.text,),
                    kind="text",
                    label=q.fine_label,
                    score=None,
                    source=source,
                    line=q.line,
                )
