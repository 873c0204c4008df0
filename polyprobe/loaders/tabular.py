"""Labelled sentences and sentence pairs from user files: CSV, TSV or JSONL (UTF-8, plain or
gzip), columns mapped by name, splits from a column, from one file per split, or none (the
build then splits by ratio).

Why one loader with presets rather than one per benchmark: the published downstream sets
(UKP sentential argument mining, sentiment TSVs, NLI, PAWS, SICK) differ only in file format,
column names, split names and which labels mean "no label"; a preset is that mapping, and a
user's own file is the same loader with ``--columns``.

Files are read through the input layer (:mod:`polyprobe.loaders.inputs`): strict UTF-8 (a
bad byte is its line's problem, never a reason to decode the file as Latin-1: one bad byte
used to turn every ``für`` of a file into ``fÃ¼r``), control characters, over-long lines and
records, line breaks inside quoted fields refused at their line; an empty file or one with
only a header is named. A user-given ``id`` column must not repeat within a split
(``duplicate-id``: two rows would publish one row id, which ``polyprobe validate`` rejects);
under ``--on-invalid skip`` the first row keeps the id.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.inputs import (
    LINE_FORMATS,
    check_file,
    csv_rows,
    no_entries,
    open_binary,
    refused_since,
    text_lines,
)
from polyprobe.loaders.inputs import text_problem as _text_problem
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.sniff import sniff_file
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import SourceInfo

# Roles a column may play. ``text`` for classification; ``sentence1``/``sentence2`` for pairs
# (ArgMin: the topic is sentence2); ``label`` or ``score``; ``split`` and ``id`` optional.
ROLES: tuple[str, ...] = ("text", "sentence1", "sentence2", "label", "score", "split", "id")
SPLIT_NAMES: dict[str, str] = {
    "train": "train",
    "training": "train",
    "dev": "dev",
    "val": "dev",
    "valid": "dev",
    "validation": "dev",
    "trial": "dev",
    "test": "test",
}
FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "trec-lines")
# The card's count of rows a preset drops by design (its ``no_label`` values): not invalid
# input, so dropped under ``--on-invalid raise`` too, as the preset's help says.
NO_GOLD_LABEL = "no-gold-label"
# The card's count of rows of another language than the one kept (XNLI's ``language``
# column holds 15): not invalid input either, so dropped and counted under any --on-invalid.
OTHER_LANGUAGE = "other-language"
# The column XNLI's TSVs name each row's language in: used with --preset nli when present.
LANGUAGE_COLUMN = "language"
_TREC_LINE = re.compile(r"^([A-Z]+):(\S+)\s+(.+)$")


@dataclass(frozen=True)
class Preset:
    """A published format: its file format, column mapping, labels that mean "no label",
    and, for pair presets, how evaluation should combine the two inputs."""

    name: str
    kind: str  # "classification" or "pairs"
    format: str | None  # None: from the file name
    columns: Mapping[str, str]
    no_label: tuple[str, ...] = ()
    header: bool = True
    pair_features: str = ""  # evaluation's pair representation ("" = SentEval's default)
    describe: str = ""
    # Other column mappings of the same data, tried in order after ``columns`` when a file's
    # header lacks one of its columns (SICK: the full SICK.txt and the SemEval-2014 files).
    layouts: tuple[Mapping[str, str], ...] = ()
    # A file with no split column and no ``SPLIT=`` takes its split from a split word of its
    # name (``SICK_trial.txt`` -> dev), as SentEval reads SICK.
    split_from_name: bool = False

    # A split column used whenever a file's header has it, whatever the layout.
    split_column: str = ""

    def columns_for(self, header: Sequence[str]) -> Mapping[str, str]:
        """The first mapping whose columns are all in ``header``, else the one missing fewest
        (its reading then names the absent columns); ``split_column`` added when present."""
        have = set(header)
        options = (self.columns, *self.layouts)
        chosen = min(options, key=lambda cols: len(set(cols.values()) - have))
        if self.split_column in have and "split" not in chosen:
            return {**chosen, "split": self.split_column}
        return chosen


# SICK's two published layouts. The full SICK.txt: pair_ID, sentence_A, sentence_B,
# entailment_label, relatedness_score, entailment_AB, entailment_BA, sentence_A_original,
# sentence_B_original, sentence_A_dataset, sentence_B_dataset, SemEval_set. The SemEval-2014
# Task 1 files (SICK_train.txt, SICK_trial.txt, SICK_test_annotated.txt; SentEval reads these):
# pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment, no split column.
_SICK_TASK: dict[str, str] = {"id": "pair_ID", "sentence1": "sentence_A", "sentence2": "sentence_B"}
_SICK_FULL: dict[str, str] = {**_SICK_TASK, "split": "SemEval_set"}

PRESETS: dict[str, Preset] = {
    "ukp-argmin": Preset(
        "ukp-argmin",
        "pairs",
        "tsv",
        {
            "id": "hash",
            "sentence1": "sentence",
            "sentence2": "topic",
            "label": "annotation",
            "split": "set",
        },
        pair_features="topic",
        describe="UKP Sentential Argument Mining (Stab et al. 2018): TSV topic, hash, "
        "sentence, annotation (NoArgument/Argument_for/Argument_against), set "
        "(train/val/test); the topic is the pair's second input",
    ),
    "sentiment-tsv": Preset(
        "sentiment-tsv",
        "classification",
        "tsv",
        {"text": "sentence", "label": "label"},
        describe="sentiment TSVs with a header sentence<TAB>label (SST-2 as in GLUE, and the "
        "Spanish SentEval's sentiment sets)",
    ),
    "sqc": Preset(
        "sqc",
        "classification",
        "trec-lines",
        {},
        header=False,
        describe="question classification in TREC's line format COARSE:fine question "
        "(the Spanish SentEval's SQC); the label is the coarse class",
    ),
    "nli": Preset(
        "nli",
        "pairs",
        "jsonl",
        {"sentence1": "sentence1", "sentence2": "sentence2", "label": "gold_label"},
        no_label=("-", ""),
        describe="SNLI/MultiNLI JSONL: sentence1, sentence2, gold_label ('-' = no gold label, "
        "dropped)",
    ),
    "paws": Preset(
        "paws",
        "pairs",
        "tsv",
        {"id": "id", "sentence1": "sentence1", "sentence2": "sentence2", "label": "label"},
        describe="PAWS / PAWS-X TSV: id, sentence1, sentence2, label (0/1)",
    ),
    "sick-e": Preset(
        "sick-e",
        "pairs",
        "tsv",
        _SICK_FULL | {"label": "entailment_label"},
        layouts=(_SICK_TASK | {"label": "entailment_judgment"},),
        split_from_name=True,
        split_column="SemEval_set",
        describe="SICK (Marelli et al. 2014) TSV, either layout: the full SICK.txt (pair_ID, "
        "sentence_A, sentence_B, entailment_label, relatedness_score, ..., SemEval_set "
        "TRAIN/TRIAL/TEST: the split) or the SemEval-2014 Task 1 files SICK_train.txt, "
        "SICK_trial.txt, SICK_test_annotated.txt (pair_ID, sentence_A, sentence_B, "
        "relatedness_score, entailment_judgment: the split from SPLIT=FILE or the file name, "
        "trial = dev); the label is the entailment label",
    ),
    "sts-b": Preset(
        "sts-b",
        "regression",
        "tsv",
        {"sentence1": "sentence1", "sentence2": "sentence2", "score": "score"},
        describe="STS Benchmark as in GLUE (STS-B): TSV index, genre, filename, year, "
        "old_index, source1, source2, sentence1, sentence2, score (0-5)",
    ),
    "sick-r": Preset(
        "sick-r",
        "regression",
        "tsv",
        _SICK_FULL | {"score": "relatedness_score"},
        layouts=(_SICK_TASK | {"score": "relatedness_score"},),
        split_from_name=True,
        split_column="SemEval_set",
        describe="SICK (Marelli et al. 2014) TSV, either layout (the full SICK.txt, split from "
        "SemEval_set, or the SemEval-2014 files SICK_train/trial/test_annotated.txt, split "
        "from SPLIT=FILE or the file name); the score is the relatedness score (1-5)",
    ),
}


def parse_columns(text: str | None) -> dict[str, str]:
    """``text=sentence,label=annotation`` -> {role: file column}; unknown roles refused."""
    out: dict[str, str] = {}
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        role, sep, column = part.partition("=")
        if not sep or role.strip() not in ROLES or not column.strip():
            raise UsageError(
                f"--columns: {part!r} is not ROLE=COLUMN with ROLE one of {', '.join(ROLES)}"
            )
        out[role.strip()] = column.strip()
    return out


def parse_file_arg(text: str) -> tuple[str | None, Path]:
    """``train=path`` -> ("train", path); a plain path has no split."""
    head, sep, tail = text.partition("=")
    if sep and head.lower() in SPLIT_NAMES:
        return SPLIT_NAMES[head.lower()], Path(tail)
    return None, Path(text)


@dataclass(frozen=True)
class TabularSource:
    """One file of labelled texts or pairs (see the module docstring)."""

    path: Path
    kind: str  # "classification" or "pairs"
    columns: Mapping[str, str] = field(default_factory=dict)
    format: str | None = None
    split: str | None = None  # the file's split, when one file per split
    no_label: tuple[str, ...] = ()
    header: bool = True
    license: str = "unknown"
    version: str = "unknown"
    # Rows whose ``language_column`` value is not ``keep_language`` (an ISO 639-3 code) are
    # dropped and counted (OTHER_LANGUAGE); ``language_optional``: the column may be absent
    # (then no filter: the nli preset's default), else an absent column is an error.
    language_column: str | None = None
    keep_language: str | None = None
    language_optional: bool = False

    def __post_init__(self) -> None:
        fmt = self.resolved_format
        if fmt not in FORMATS:
            raise UsageError(f"{self.path}: unknown format {fmt!r} (use {', '.join(FORMATS)})")
        if fmt == "trec-lines":
            return
        need = ("text",) if self.kind == "classification" else ("sentence1", "sentence2")
        target = "score" if self.kind == "regression" else "label"
        missing = [r for r in (*need, target) if r not in self.columns]
        if missing:
            raise UsageError(
                f"{self.path}: map the column(s) for {', '.join(missing)} with --columns "
                f"(e.g. --columns {','.join(f'{r}=NAME' for r in missing)}) or use a --preset"
            )

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def resolved_format(self) -> str:
        if self.format:
            return self.format
        suffix = self.path.suffix.lower()
        return {".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl"}.get(suffix, "tsv")

    @property
    def info(self) -> SourceInfo:
        files = file_entries([(self.path.name, self.path)])
        return SourceInfo(f"{self.kind}-file", self.name, self.version, self.license, files)

    def _rows(self, policy: InvalidPolicy) -> Iterator[tuple[int, dict[str, str]]]:
        """(line, {column: value}) of every record, in file order; a file that gives none
        (empty, blank, only a header) is a fatal ``empty``."""
        before = sum(policy.skipped.values())
        rows = 0
        header_seen = False
        fmt = self.resolved_format
        # a treebank or an XML dump is named as such, not read as rows whose header lacks
        # the columns; lines that merely look like a lexicon or TREC are a user's table's
        # right (a sentiment file's POS/NEG column is UniMorph's polarity, by its tags)
        sniff_file(self.path, "tabular", accepts=("table", "unimorph", "trec"))
        if fmt in ("jsonl", "trec-lines"):
            parse = self._json_line if fmt == "jsonl" else self._trec_line
            for no, raw in text_lines(self.path, policy):
                if not raw.strip():
                    continue
                row = parse(no, raw, policy)
                if row is not None:
                    rows += 1
                    yield no, row
        else:
            delimiter = "," if fmt == "csv" else "\t"
            quoting = csv.QUOTE_MINIMAL if fmt == "csv" else csv.QUOTE_NONE
            header: list[str] | None = None
            for no, fields in csv_rows(self.path, policy, delimiter=delimiter, quoting=quoting):
                if header is None:
                    header_seen = True
                    header = [h.strip() for h in fields]
                    wanted = set(self.columns.values())
                    if self.language_column and not self.language_optional:
                        wanted.add(self.language_column)
                    absent = sorted({c for c in wanted if c not in header})
                    if absent:
                        raise InputError(
                            self.path,
                            no,
                            f"no column(s) {', '.join(absent)} in the header ({', '.join(header)})",
                            "no-column",
                        )
                    continue
                if len(fields) != len(header):
                    problem = f"{len(fields)} fields, the header has {len(header)}"
                    policy.reject(InputError(self.path, no, problem, "bad-line"))
                    continue
                rows += 1
                yield no, dict(zip(header, fields, strict=True))
        if not rows:
            detail = "only a header, no entries" if header_seen else "no entries"
            raise no_entries(self.path, detail, refused_since(policy, before))

    def _kept_language(self, row: Mapping[str, str]) -> bool:
        """Whether a row is in the language kept (always, without a language filter, or
        when the optional column is absent). Codes compare as ISO 639-3 (``de`` = ``deu``);
        a value that is no ISO code compares as written, lower-cased."""
        if not self.language_column or self.language_column not in row:
            return True
        return language_key(row[self.language_column]) == self.keep_language

    def _json_line(self, no: int, raw: str, policy: InvalidPolicy) -> dict[str, str] | None:
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise TypeError("not an object")
        except (ValueError, TypeError) as exc:
            policy.reject(InputError(self.path, no, f"not a JSON object ({exc})", "bad-line"))
            return None
        row = {k: "" if v is None else str(v) for k, v in obj.items()}
        for key, value in row.items():
            problem = _text_problem(value, f"field {key!r}")
            if problem is not None:  # a JSON string may spell one as \u0000 or \n
                policy.reject(InputError(self.path, no, problem, "control-character"))
                return None
        return row

    def _trec_line(self, no: int, raw: str, policy: InvalidPolicy) -> dict[str, str] | None:
        m = _TREC_LINE.match(raw.strip())
        if m is None:
            problem = "expected COARSE:fine question"
            policy.reject(InputError(self.path, no, problem, "bad-line"))
            return None
        return {"label": m.group(1), "text": m.group(3)}

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        cols = (
            self.columns
            if self.resolved_format != "trec-lines"
            else {"text": "text", "label": "label"}
        )
        inputs = ("text",) if self.kind == "classification" else ("sentence1", "sentence2")
        first: dict[tuple[str | None, str], int] = {}  # (split, user id) -> its first line
        for no, row in self._rows(policy):
            if not self._kept_language(row):
                policy.skipped[OTHER_LANGUAGE] += 1
                continue
            values = [row.get(cols[r], "").strip() for r in inputs]
            if not all(values):
                problem = f"empty {' or '.join(cols[r] for r in inputs)}"
                policy.reject(InputError(self.path, no, problem, "empty-text"))
                continue
            label: str | None = None
            score: float | None = None
            if self.kind == "regression":
                raw_score = row.get(cols["score"], "").strip()
                try:
                    score = float(raw_score.replace(",", "."))
                    if score != score:  # NaN
                        raise ValueError("NaN")
                except ValueError:
                    problem = f"score {raw_score!r} is not a number"
                    policy.reject(InputError(self.path, no, problem, "bad-score"))
                    continue
            else:
                label = row.get(cols["label"], "").strip()
                if label in self.no_label:  # the format's own "no label" (SNLI's '-'):
                    policy.skipped[NO_GOLD_LABEL] += 1  # dropped whatever --on-invalid, counted
                    continue
                if not label:
                    policy.reject(InputError(self.path, no, f"no label ({label!r})", "no-label"))
                    continue
            split = self.split
            if "split" in cols:
                raw = row.get(cols["split"], "").strip()
                split = SPLIT_NAMES.get(raw.lower())
                if split is None:
                    problem = f"unknown split {raw!r} (use train/dev/validation/test)"
                    policy.reject(InputError(self.path, no, problem, "bad-split"))
                    continue
            rid = row.get(cols["id"], "").strip() if "id" in cols else ""
            if rid:
                seen = first.setdefault((split, rid), no)
                if seen != no:
                    problem = f"duplicate id {rid!r} (first on line {seen})"
                    policy.reject(InputError(self.path, no, problem, "duplicate-id"))
                    continue
            yield Example(
                id=f"{split or 'all'}/{rid or no}",
                inputs=tuple(values),
                kind="text",
                label=label,
                score=score,
                source=SourceFile(self.name, str(self.path), split),
                line=no,
            )


def language_key(value: str) -> str:
    """A language value as the filter compares it: its ISO 639-3 code, else lower-cased."""
    from polyprobe.languages import resolve_language

    try:
        return resolve_language(value).iso639_3
    except UsageError:
        return value.strip().lower()


def header_of(path: Path, fmt: str, limit: int = 1 << 20) -> list[str]:
    """The column names of a CSV/TSV file's first non-blank line (for choosing a preset's
    layout; the file is read and checked in full later, so bad bytes are only replaced)."""
    with open_binary(path, accept=LINE_FORMATS) as stream:
        data = stream.read(limit)
    for line in data.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines():
        if line.strip():
            delimiter = "," if fmt == "csv" else "\t"
            return [h.strip().strip('"') for h in line.split(delimiter)]
    return []


def split_of_name(name: str) -> str | None:
    """The split one word of a file name gives (``SICK_trial.txt`` -> dev,
    ``SICK_test_annotated.txt`` -> test), or ``None`` when none or several do."""
    found = {SPLIT_NAMES[w] for w in re.split(r"[^a-z]+", name.lower()) if w in SPLIT_NAMES}
    return found.pop() if len(found) == 1 else None


def sources_for(
    files: Sequence[str],
    kind: str,
    *,
    columns: Mapping[str, str] | None = None,
    preset: str | None = None,
    format: str | None = None,
    license: str = "unknown",
    version: str = "unknown",
    language_column: str | None = None,
    keep_language: str | None = None,
) -> tuple[list[TabularSource], Preset | None]:
    """The sources of ``FILES`` (``[SPLIT=]PATH``) with a preset's mapping, overridden by
    ``columns``. ``keep_language`` (a code) keeps only the rows whose ``language_column`` says
    so; with the ``nli`` preset and no ``language_column`` (``""``: none), XNLI's
    ``language`` column is used when a file has one."""
    chosen = None
    if preset is not None:
        chosen = PRESETS.get(preset)
        if chosen is None:
            raise UsageError(f"unknown preset {preset!r}: {', '.join(PRESETS)}")
        if chosen.kind != kind:
            raise UsageError(f"preset {preset!r} is for 'build {chosen.kind}', not 'build {kind}'")
    fmt_given = format or (chosen.format if chosen else None)
    optional = language_column is None and chosen is not None and chosen.name == "nli"
    column = LANGUAGE_COLUMN if optional else language_column or None
    keep = language_key(keep_language) if column and keep_language else None
    if column and keep is None:
        raise UsageError("--language-column needs the language to keep (--keep-language)")
    out = []
    for raw in files:
        split, path = parse_file_arg(str(raw))
        check_file(path)
        preset_columns: Mapping[str, str] = chosen.columns if chosen else {}
        fmt = fmt_given or {".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl"}.get(
            path.suffix.lower(), "tsv"
        )
        if chosen is not None and chosen.layouts and fmt in ("csv", "tsv"):
            preset_columns = chosen.columns_for(header_of(path, fmt))
        mapping = {**preset_columns, **(columns or {})}
        if split is None and "split" not in mapping and chosen and chosen.split_from_name:
            split = split_of_name(path.name)
        out.append(
            TabularSource(
                path,
                kind,
                mapping,
                fmt_given,
                split,
                chosen.no_label if chosen else (),
                chosen.header if chosen else True,
                license,
                version,
                column,
                keep,
                optional,
            )
        )
    return out, chosen
