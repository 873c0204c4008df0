"""SentEval-style probing files and SentEval's STS layout as
:class:`~polyprobe.loaders.records.Example` records, one *set* (a future config) per task.

Why a reader of its own: published probing sets travel in SentEval's line format, which no
tabular reader takes (no header, the split is a column of two-letter codes), and re-publishing
them through the build gives them what polyprobe's own datasets have: a card, checksums, the
leakage audit (a text in two splits is counted, and kept unless ``--duplicates drop``) and
releases.
The labels, splits and texts are the files' own; nothing is derived.

The layouts (each checked against the published files):

* **SentEval probing** (Conneau et al. 2018, ``data/probing/*.txt``; polyprobe's own
  ``export --format senteval``; releases that reuse the format): one file per task, lines
  ``tr|va|te TAB label TAB sentence``. SentEval's README says "(at least) the following
  tab-separated fields", and its reader takes the first field as the split, the second as the
  label and the *last* as the sentence, so extra middle fields are allowed and ignored here
  too. The set is named by the file's stem (``subj_number.txt`` -> ``subj_number``).
* **X-Probe** (Ravishankar et al. 2019, ``<lang>/<task>/{tr,va,te}.txt``): one file per split,
  lines ``sentence TAB label``; the split is the file's name, the set its folder's name. A
  folder holding ``tr.txt``/``va.txt``/``te.txt`` is one set; a folder of such folders (an
  X-Probe language folder) is one set per sub-folder.
* **SentEval STS** (``STS12-en-test/STS.input.<subset>.txt`` with ``STS.gs.<subset>.txt``):
  two tab-separated sentences per line and, line by line in the gold file, their score. A
  pair whose gold line is empty (STS16 leaves some pairs unscored; SentEval drops them) has no
  score: its task drops it and the card counts it. Every pair is a test row, as SentEval
  evaluates STS12-16 without training. The set is ``sts<NN>-<subset>`` when the folder says
  the year (``STS14-en-test`` -> ``sts14-headlines``), else ``sts-<subset>``.

SICK and the STS Benchmark have headers and are read by ``build regression --preset sick-r``
/ ``--preset sts-b``; they are not repeated here.

Bad lines are ``file:line: problem`` (:class:`~polyprobe.errors.InputError`), skippable with
``--on-invalid skip`` and counted by reason: ``bad-split`` (a first field that is not
``tr``/``va``/``te``), ``missing-field`` (a line with too few tab-separated fields),
``empty-sentence``, ``empty-label``, ``bad-score``. Bytes, control characters and line
lengths are the input layer's (:func:`~polyprobe.loaders.inputs.text_lines`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import (
    LineStats,
    check_file,
    no_entries,
    numbered_lines,
    text_lines,
)
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

#: SentEval's split codes and the splits they stand for.
SPLIT_CODES: dict[str, str] = {"tr": "train", "va": "dev", "te": "test"}
#: X-Probe's per-split file names, in reading order.
XPROBE_FILES: tuple[str, ...] = ("tr.txt", "va.txt", "te.txt")
_STS_INPUT = re.compile(r"^STS\.input\.(.+)\.txt$")
_STS_YEAR = re.compile(r"^(sts\d\d)\b", re.IGNORECASE)
_BAD_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_SUFFIXES = re.compile(r"(\.txt)?(\.gz)?$")
# files of a folder that are no set: STS gold files (read with their input), a release's notes
_NOT_SETS = ("STS.gs.", "README", "LICENSE", "readme", "license")

#: Reason keys counted under ``--on-invalid skip`` (one line each).
REASONS: dict[str, str] = {
    "bad-split": "the first field is not tr, va or te",
    "missing-field": "a line with fewer tab-separated fields than the layout has",
    "empty-sentence": "a sentence that is empty or only whitespace",
    "empty-label": "a label that is empty or only whitespace",
    "bad-score": "an STS gold score that is not a number",
}

LAYOUTS: tuple[str, ...] = ("senteval", "xprobe", "sts")


def set_name(text: str) -> str:
    """A config name from a file or folder name (``.txt``/``.gz`` dropped): letters, digits,
    ``_`` and ``-``."""
    name = _BAD_NAME.sub("-", _SUFFIXES.sub("", text)).strip("-")
    if not name:
        raise UsageError(f"cannot name a config after {text!r}")
    return name


@dataclass(frozen=True)
class ProbingSet:
    """One set of the inputs: its config name, layout and files (``(split, path)``; the
    split is ``None`` where each line gives it)."""

    name: str
    layout: str  # one of LAYOUTS
    files: tuple[tuple[str | None, Path], ...]
    gold: Path | None = None  # STS: the gold-score file beside the input file

    @property
    def scored(self) -> bool:
        return self.layout == "sts"

    @property
    def paths(self) -> list[Path]:
        return [p for _, p in self.files] + ([self.gold] if self.gold is not None else [])


def _xprobe_set(folder: Path) -> ProbingSet | None:
    files = tuple((SPLIT_CODES[f[:2]], folder / f) for f in XPROBE_FILES if (folder / f).exists())
    return ProbingSet(set_name(folder.name), "xprobe", files) if files else None


def _sts_set(path: Path) -> ProbingSet:
    match = _STS_INPUT.match(path.name)
    assert match is not None
    gold = path.with_name(f"STS.gs.{match.group(1)}.txt")
    if not gold.exists():
        raise InputError(path, None, f"no gold scores beside it ({gold.name})", "missing-file")
    year = _STS_YEAR.match(path.parent.name)
    prefix = year.group(1).lower() if year else "sts"
    return ProbingSet(
        set_name(f"{prefix}-{match.group(1)}".lower()), "sts", (("test", path),), gold
    )


def find_sets(paths: Sequence[str | Path]) -> list[ProbingSet]:
    """The sets the given paths hold, in the order given (a folder's in name order): a
    SentEval file is one set, an X-Probe split file or task folder one set, a folder of
    X-Probe task folders or of SentEval/STS files one set per task. Two inputs giving the same
    set name are refused (their configs would collide)."""
    found: list[ProbingSet] = []
    xprobe_files: dict[Path, None] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += _folder_sets(path)
        elif path.name in XPROBE_FILES:
            check_file(path)
            xprobe_files.setdefault(path.parent, None)
        elif _STS_INPUT.match(path.name):
            found.append(_sts_set(check_file(path)))
        else:
            found.append(ProbingSet(set_name(path.name), "senteval", ((None, check_file(path)),)))
    for folder in xprobe_files:  # only the split files given, in tr/va/te order
        given_files = {Path(p) for p in paths}
        files = tuple(
            (SPLIT_CODES[f[:2]], folder / f) for f in XPROBE_FILES if folder / f in given_files
        )
        found.append(ProbingSet(set_name(folder.name), "xprobe", files))
    seen: dict[str, ProbingSet] = {}
    for s in found:
        if s.name in seen:
            raise UsageError(
                f"two inputs give the set {s.name!r} ({seen[s.name].paths[0]} and "
                f"{s.paths[0]}); build them apart"
            )
        seen[s.name] = s
    return found


def _folder_sets(folder: Path) -> list[ProbingSet]:
    own = _xprobe_set(folder)
    if own is not None:
        return [own]
    sets: list[ProbingSet] = []
    for child in sorted(folder.iterdir()):
        if child.is_dir():
            sub = _xprobe_set(child)
            if sub is not None:
                sets.append(sub)
        elif _STS_INPUT.match(child.name):
            sets.append(_sts_set(child))
        elif child.suffix in (".txt", ".gz") and not child.name.startswith(_NOT_SETS):
            sets.append(ProbingSet(set_name(child.name), "senteval", ((None, child),)))
    if not sets:
        raise InputError(
            folder,
            None,
            "no probing files in it (SentEval *.txt, X-Probe tr/va/te.txt folders, or "
            "STS.input.*.txt)",
            "no-input",
        )
    return sets


# ------------------------------------------------------------------------------ reading


def _reject(policy: InvalidPolicy, path: Path, line: int, problem: str, reason: str) -> None:
    policy.reject(InputError(path, line, problem, reason))


def _check(
    texts: Sequence[str], names: Sequence[str], path: Path, n: int, policy: InvalidPolicy
) -> bool:
    for text, name in zip(texts, names, strict=True):
        if not text.strip():
            _reject(policy, path, n, f"empty {name}", f"empty-{name}")
            return False
    return True


def _senteval_lines(s: ProbingSet, path: Path, policy: InvalidPolicy) -> Iterator[Example]:
    for n, line in text_lines(path, policy):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 3:
            problem = f"expected split TAB label TAB sentence, found {len(fields)} field" + (
                "s" if len(fields) != 1 else ""
            )
            _reject(policy, path, n, problem, "missing-field")
            continue
        code, label, sentence = fields[0].strip(), fields[1].strip(), fields[-1].strip()
        if code not in SPLIT_CODES:
            problem = f"split {code[:20]!r} is not tr, va or te"
            _reject(policy, path, n, problem, "bad-split")
            continue
        if not _check((label, sentence), ("label", "sentence"), path, n, policy):
            continue
        split = SPLIT_CODES[code]
        yield _example(s, path, n, split, (sentence,), label)


def _xprobe_lines(
    s: ProbingSet, split: str, path: Path, policy: InvalidPolicy
) -> Iterator[Example]:
    for n, line in text_lines(path, policy):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            problem = f"expected sentence TAB label, found {len(fields)} fields"
            _reject(policy, path, n, problem, "missing-field")
            continue
        sentence, label = fields[0].strip(), fields[1].strip()
        if not _check((sentence, label), ("sentence", "label"), path, n, policy):
            continue
        yield _example(s, path, n, split, (sentence,), label)


def _sts_lines(s: ProbingSet, path: Path, policy: InvalidPolicy) -> Iterator[Example]:
    assert s.gold is not None
    gold = _gold_scores(s.gold, policy)
    pairs = sum(1 for _ in numbered_lines(path))  # before any pair: the files must align
    if gold.lines != pairs:
        raise InputError(
            s.gold,
            None,
            f"{gold.lines:,} gold lines for {pairs:,} sentence pairs in {path.name}: the files "
            "must align line by line",
            "misaligned",
        )
    for n, line in text_lines(path, policy, refused_as_blank=True):
        score = gold.get(n, _NO_SCORE)
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            problem = f"expected sentence TAB sentence, found {len(fields)} field" + (
                "s" if len(fields) != 1 else ""
            )
            _reject(policy, path, n, problem, "missing-field")
            continue
        first, second = fields[0].strip(), fields[1].strip()
        if not _check((first, second), ("sentence", "sentence"), path, n, policy):
            continue
        if score is _BAD:
            continue  # its gold line was refused (counted there)
        # an unscored pair has the empty label and no score: its task drops it, counted
        value = None if score is _NO_SCORE else float(score)  # type: ignore[arg-type]
        yield Example(
            id=f"test/{n}",
            inputs=(first, second),
            kind="text",
            label="" if value is None else None,
            score=value,
            source=SourceFile(s.name, str(path), "test"),
            line=n,
        )


_NO_SCORE = object()
_BAD = object()


class _Gold(dict[int, object]):
    """Line -> score; ``lines``: how many lines the file has."""

    lines: int = 0


def _gold_scores(path: Path, policy: InvalidPolicy) -> _Gold:
    """Line -> score (a float), ``_NO_SCORE`` for an empty line, ``_BAD`` for a refused one."""
    out = _Gold()
    stats = LineStats()
    refused = 0
    for n, line in text_lines(path, policy, stats=stats, refused_as_blank=True):
        out.lines = n
        text = line.strip()
        if stats.refused != refused:  # the input layer refused the line (counted there)
            refused = stats.refused
            out[n] = _BAD
            continue
        if not text:
            out[n] = _NO_SCORE
            continue
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            _reject(policy, path, n, f"gold score {text[:20]!r} is not a number", "bad-score")
            out[n] = _BAD
            continue
        out[n] = value
    return out


def _example(
    s: ProbingSet, path: Path, n: int, split: str, inputs: tuple[str, ...], label: str
) -> Example:
    # the id holds the split code: an X-Probe set's line numbers repeat across its files
    return Example(
        id=f"{split}/{n}",
        inputs=inputs,
        kind="text",
        label=label,
        score=None,
        source=SourceFile(s.name, str(path), split),
        line=n,
    )


@dataclass
class ProbingFiles:
    """One set's files as a build source: its card entry and its records."""

    set: ProbingSet
    source_version: str = "unknown"
    license: str = "unknown"
    entries: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.entries:
            self.entries = file_entries([(p.name, p) for p in self.set.paths])
        if self.license == "unknown":  # a LICENSE file or README licence line beside them
            from polyprobe.loaders.sources import treebank_metadata

            self.license, _ = treebank_metadata(self.set.paths[0])

    @property
    def name(self) -> str:
        return self.set.name

    @property
    def info(self) -> SourceInfo:
        kind = {"senteval": "senteval-probing", "xprobe": "xprobe-probing", "sts": "senteval-sts"}
        return SourceInfo(
            kind=kind[self.set.layout],
            name=self.set.name,
            version=self.source_version,
            license=self.license,
            files=self.entries,
        )

    def declared_codes(self) -> tuple[str, ...]:
        return ()  # the files name no language: --lang is the user's word

    def sets(self, policy: InvalidPolicy) -> Sequence[ProbingSet]:
        return [self.set]

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        s = self.set
        for split, path in s.files:
            before = sum(policy.skipped.values())
            count = 0
            if s.layout == "senteval":
                rows = _senteval_lines(s, path, policy)
            elif s.layout == "xprobe":
                assert split is not None
                rows = _xprobe_lines(s, split, path, policy)
            else:
                rows = _sts_lines(s, path, policy)
            for example in rows:
                count += 1
                yield example
            if not count:  # nothing in it, or every line refused under skip
                raise no_entries(path, refused=sum(policy.skipped.values()) - before)
