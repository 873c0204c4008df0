"""TREC question classification (Li & Roth 2002) as a polyprobe dataset folder.

TREC is the downstream end of probing–downstream correlation: it must be published in exactly
the form probing datasets take (same columns, ``ClassLabel`` labels, a ``polyprobe:`` block),
so that evaluation needs no special case. Two configs share the same rows: ``coarse`` (6
classes, the default) and ``fine`` (50 classes, ``COARSE:fine`` names as found). Splits are the
source's own train/test; TREC has no validation split, so evaluation does group-aware k-fold
inside train (SentEval's protocol for TREC).

Duplicates and leakage. The source train file repeats questions (72 extra copies of 64
questions) and 10 of the 500 test questions occur verbatim in it. Within-train copies are kept
(they are the distribution as published) and share a ``group`` so that k-fold never puts copies
on both sides of a fold. The train copies of test questions are *dropped from train*: the test
set stays the standard 500 questions, so test accuracy remains comparable with published TREC
numbers, while no test question is seen in training and no group spans two splits (an
invariant ``polyprobe validate`` checks). Dropping from test instead would change the benchmark
everyone reports on; keeping both would make a downstream score partly memorisation.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from polyprobe import __version__
from polyprobe.cards.folder import ConfigPayload, DatasetFolderWriter, DatasetMeta, SourceInfo
from polyprobe.cards.schema import arrow_schema
from polyprobe.hashing import digest, normalise_text, stable_u64
from polyprobe.loaders.trec import TrecFile, TrecQuestion, find_trec_files, read_trec_file

RECIPE_VERSION = "1.0.0"
SPLITS = ("train", "test")
CONFIGS = ("coarse", "fine")
DROP_REASON = "train copy of a test question"

CITATION = """@inproceedings{li-roth-2002-learning,
  title = {Learning Question Classifiers},
  author = {Li, Xin and Roth, Dan},
  booktitle = {{COLING} 2002: The 19th International Conference on Computational Linguistics},
  year = {2002},
  url = {https://aclanthology.org/C02-1150}
}"""

_DESCRIPTIONS = {
    "coarse": "TREC question type, 6 coarse classes (Li & Roth 2002): ABBR, DESC, ENTY, HUM, "
    "LOC, NUM.",
    "fine": "TREC question type, 50 fine classes (Li & Roth 2002), named COARSE:fine.",
}


@dataclass(frozen=True, slots=True)
class TrecRow:
    """A question placed in a split, with its stable id and duplicate group."""

    id: str  # trec/<split>/<line>
    split: str
    question: TrecQuestion
    group: str


@dataclass
class TrecBuild:
    """Everything a folder needs, before any file is written (so tests can check it directly)."""

    rows: dict[str, list[TrecRow]]  # split -> rows in seeded output order
    label_names: dict[str, list[str]]  # config -> sorted label names
    duplicates: dict[str, int]
    dropped: Counter[str]
    conflicts: dict[str, list[str]]  # config -> questions carrying two labels
    notes: list[str] = field(default_factory=list)

    def label_of(self, config: str, q: TrecQuestion) -> str:
        return q.coarse if config == "coarse" else q.fine_label


def prepare_trec(files: dict[str, TrecFile], seed: int = 0) -> TrecBuild:
    """Assign ids and groups, drop train copies of test questions, order rows by seed."""
    norm = {s: [normalise_text(q.text) for q in files[s].questions] for s in SPLITS}
    train_counts = Counter(norm["train"])
    test_counts = Counter(norm["test"])
    test_texts = set(test_counts)

    duplicates = {
        "train_duplicate_copies": sum(c - 1 for c in train_counts.values()),
        "train_duplicated_questions": sum(1 for c in train_counts.values() if c > 1),
        "test_duplicate_copies": sum(c - 1 for c in test_counts.values()),
        "test_questions_also_in_train": sum(1 for t in norm["test"] if t in train_counts),
        "train_rows_dropped_as_test_copies": sum(1 for t in norm["train"] if t in test_texts),
    }

    labels_by_text: dict[str, dict[str, set[str]]] = {c: defaultdict(set) for c in CONFIGS}
    for s in SPLITS:
        for q, t in zip(files[s].questions, norm[s], strict=True):
            labels_by_text["coarse"][t].add(q.coarse)
            labels_by_text["fine"][t].add(q.fine_label)
    conflicts = {
        c: sorted(t for t, labs in labels_by_text[c].items() if len(labs) > 1) for c in CONFIGS
    }

    dropped: Counter[str] = Counter()
    first_id: dict[str, str] = {}
    rows: dict[str, list[TrecRow]] = {}
    for s in SPLITS:  # train first: a group is named after its first occurrence
        out: list[TrecRow] = []
        for q, t in zip(files[s].questions, norm[s], strict=True):
            if s == "train" and t in test_texts:
                dropped[DROP_REASON] += 1
                continue
            rid = f"trec/{s}/{q.line}"
            out.append(TrecRow(rid, s, q, first_id.setdefault(t, rid)))
        out.sort(key=lambda r: (stable_u64(seed, r.id), r.id))
        rows[s] = out
    train_groups = {r.group for r in rows["train"]}
    assert not any(r.group in train_groups for r in rows["test"]), "group spans splits"

    kept = [r for s in SPLITS for r in rows[s]]
    group_sizes = Counter(r.group for r in kept)
    duplicates["sentences"] = sum(1 for r in kept if r.group != r.id)
    duplicates["groups"] = sum(1 for n in group_sizes.values() if n > 1)

    label_names = {
        "coarse": sorted({r.question.coarse for r in kept}),
        "fine": sorted({r.question.fine_label for r in kept}),
    }
    build = TrecBuild(rows, label_names, duplicates, dropped, conflicts)
    build.notes = _notes(files, build)
    return build


def _notes(files: dict[str, TrecFile], build: TrecBuild) -> list[str]:
    d = build.duplicates
    n_train = len(files["train"].questions)
    n_test = len(files["test"].questions)
    notes = [
        "TREC has no validation split: evaluate with group-aware k-fold inside train "
        "(SentEval's protocol for TREC).",
        f"Leakage in the source: {d['test_questions_also_in_train']} of the {n_test:,} test "
        f"questions occur verbatim (NFC, whitespace-normalised) in the {n_train:,}-question "
        f"training file. Their {d['train_rows_dropped_as_test_copies']} training copies are "
        "dropped, so no test question is seen in training; the test split is the standard "
        "one unchanged, so test accuracy stays comparable with published TREC results.",
        f"Duplicates within train: {d['train_duplicate_copies']} extra copies of "
        f"{d['train_duplicated_questions']} questions are kept as published; copies share one "
        "group, so group-aware folds never separate them.",
        "Questions are as distributed: pre-tokenised (e.g. 'Modesto , California'); the tokens "
        "column holds their whitespace tokens.",
    ]
    for split in SPLITS:
        f = files[split]
        if f.encoding_note:
            where = ", ".join(str(n) for n in f.non_ascii_lines[:10])
            notes.append(
                f"{f.path.name} is {f.encoding_note}; non-ASCII text kept as decoded "
                f"(line{'s' if len(f.non_ascii_lines) != 1 else ''} {where})."
            )
    return notes


def make_table(build: TrecBuild, config: str, split: str) -> pa.Table:
    """One split of one config in the published schema, rows in seeded order."""
    names = build.label_names[config]
    index = {n: i for i, n in enumerate(names)}
    rows = build.rows[split]
    return pa.Table.from_pydict(
        {
            "id": [r.id for r in rows],
            "sentence": [r.question.text for r in rows],
            "tokens": [list(r.question.tokens) for r in rows],
            "label": [index[build.label_of(config, r.question)] for r in rows],
            "group": [r.group for r in rows],
            "lexical_key": [""] * len(rows),
        },
        schema=arrow_schema("sentence", names),
    )


def make_payloads(build: TrecBuild, seed: int) -> list[ConfigPayload]:
    """The two configs; ``coarse`` is the default (it is the commonly reported TREC task)."""
    payloads = []
    for config in CONFIGS:
        names = build.label_names[config]
        notes = list(build.notes)
        for text in build.conflicts[config]:
            notes.append(f"Duplicate question with conflicting {config} labels: {text!r}.")
        payloads.append(
            ConfigPayload(
                name=config,
                task=f"trec-{config}",
                level="sentence",
                description=_DESCRIPTIONS[config],
                label_names=names,
                polyprobe={
                    "task": f"trec-{config}",
                    "task_type": "downstream",
                    "level": "sentence",
                    "inputs": ["sentence", "tokens"],
                    "labels": names,
                    "recipe_version": RECIPE_VERSION,
                    "variant": {"balance": "natural", "size": "full", "split": "source"},
                    "seed": seed,
                    "lexical_control": False,
                    "seed_dependent": False,
                },
                recipe={
                    "source": "original TREC files (train_5500.label, TREC_10.label)",
                    "label": f"{config} question class ({len(names)} classes)",
                    "splits": "source train/test; no validation split",
                    "train copies of test questions": "dropped",
                    "train duplicates": "kept, one group per question",
                },
                splits={s: make_table(build, config, s) for s in SPLITS},
                dropped=dict(build.dropped),
                notes=notes,
                citation=CITATION,
                default=config == "coarse",
            )
        )
    return payloads


def build_trec(
    path: str | Path,
    out: str | Path,
    *,
    seed: int = 0,
    overwrite: bool = False,
    source_version: str | None = None,
    on_invalid: str = "raise",
) -> Path:
    """Build the TREC dataset folder at ``out`` from the folder ``path`` of original files."""
    paths = find_trec_files(path)
    files = {s: read_trec_file(paths[s], on_invalid=on_invalid) for s in SPLITS}
    build = prepare_trec(files, seed)
    skipped: Counter[str] = Counter()
    for f in files.values():
        skipped.update(f.skipped)
    parameters: dict[str, Any] = {
        "builder": "trec",
        "seed": seed,
        "on_invalid": on_invalid,
        "train_copies_of_test": "dropped",
        "encodings": {f.path.name: f.encoding for f in files.values()},
    }
    source = SourceInfo(
        kind="trec",
        name="TREC",
        version=source_version or "unknown",
        license="unknown",
        files=[{"name": f.path.name, "sha256": f.sha256} for f in files.values()],
    )
    fingerprint = digest(
        "trec",
        RECIPE_VERSION,
        __version__,
        sorted(parameters.items()),
        [(f.path.name, f.sha256) for f in files.values()],
        size=16,
    ).hex()
    meta = DatasetMeta(
        pretty_name="TREC question classification",
        languages=["en"],
        license="unknown",
        sources=[source],
        polyprobe_version=__version__,
        fingerprint=fingerprint,
        parameters=parameters,
        skipped_invalid=dict(sorted(skipped.items())),
        duplicates=build.duplicates,
        feasibility={
            f"trec-{c}": {"status": "built", "classes": len(build.label_names[c])} for c in CONFIGS
        },
        task_categories=["text-classification"],
        source_datasets=["original"],
        tags=["downstream", "question-classification", "polyprobe"],
        summary="TREC question classification (Li & Roth 2002) as a polyprobe downstream "
        "dataset: the original train/test files, coarse (6) and fine (50) labels. The licence "
        "of the TREC data is not stated by its distributors (research data).",
    )
    writer = DatasetFolderWriter(out, overwrite=overwrite)
    try:
        for payload in make_payloads(build, seed):
            writer.add_config(payload)
        return writer.finish(meta)
    except BaseException:
        writer.abort()
        raise
