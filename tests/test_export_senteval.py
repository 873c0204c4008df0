"""``export --format senteval`` is what SentEval's engine opens, and ``--probe senteval`` is its
classifier (issue 35, items 1 and 2).

SentEval's ``PROBINGEval`` opens fixed names under ``<task_path>/probing/``; the export puts
them under ``OUT/data/probing/`` with SentEval's names for its tasks (our
``sentence_length_senteval`` is its ``sentence_length.txt``; our ``sentence_length``, Wehner's
bins, is never that file). SentEval itself is not on PyPI, so its loader and its
``SplitClassifier`` (scikit-learn mode) are re-run here from its documented behaviour: lines
``tr|va|te TAB label TAB text``, ``text.split()``, label ids from the sorted train labels, each
split sorted by (length, label), ``LogisticRegression(C, random_state=1111)`` over 2^-2 … 2^3
picked by ``round(100·dev accuracy, 2)``. On the same features the ``senteval`` preset,
reading the dataset folder, must agree with that re-run on the exported files within 0.5
points on every SentEval task the build has.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from polyprobe import build_ud
from polyprobe.cards import schema
from polyprobe.cards.export import export, read_senteval
from polyprobe.cards.exports.senteval_names import SENTEVAL_TASKS
from polyprobe.cards.folder import split_file
from polyprobe.evaluation.probes import get_probe
from polyprobe.evaluation.protocols import SplitArrays, run_protocol

TASKS = [
    "sentence_length",
    "sentence_length_senteval",
    "tree_depth",
    "bigram_shift",
    "tense",
    "subject_number",
]
DIM = 256


@pytest.fixture(scope="module")
def pud(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("se") / "pud"
    return build_ud([data_dir / "ud" / "UD_English-PUD"], lang="en", out=out, tasks=TASKS).out


@pytest.fixture(scope="module")
def exported(pud: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("se-out") / "se"
    return out, export(pud, "senteval", out)


def _rows(folder: Path, config: str) -> list[tuple[str, str, str]]:
    rows = []
    for split in ("train", "validation", "test"):
        t = pq.read_table(folder / split_file(config, split))
        names = schema.features_from_schema(t.schema)["label"]["names"]
        rows += [
            (split, names[lab], " ".join(toks))
            for lab, toks in zip(
                t.column("label").to_pylist(), t.column("tokens").to_pylist(), strict=True
            )
        ]
    return rows


def test_senteval_names_and_the_two_length_binnings(pud: Path, exported: tuple) -> None:
    out, result = exported
    probing = out / "data" / "probing"
    # SentEval's Length file holds SentEval's binning, not Wehner's
    assert read_senteval(probing / "sentence_length.txt") == _rows(pud, "sentence_length_senteval")
    assert result["written"]["sentence_length_senteval"]["senteval_task"] == "Length"
    wehner = result["written"]["sentence_length"]["path"]
    assert wehner == "data/probing/sentence_length-polyprobe.txt"
    assert read_senteval(out / wehner) == _rows(pud, "sentence_length")
    assert read_senteval(out / wehner) != read_senteval(probing / "sentence_length.txt")
    for task, name in {
        "tree_depth": "tree_depth.txt",
        "bigram_shift": "bigram_shift.txt",
        "tense": "past_present.txt",
        "subject_number": "subj_number.txt",
    }.items():
        assert result["written"][task]["path"] == f"data/probing/{name}"
        assert read_senteval(probing / name) == _rows(pud, task)
    # variants keep their own names, none of them one of SentEval's files
    own = {Path(w["path"]).name for c, w in result["written"].items() if "." in c}
    assert own and not own & {name for name, _ in SENTEVAL_TASKS.values()}


def _senteval_load(path: Path) -> dict[str, tuple[list[list[str]], list[int]]]:
    """SentEval's ``PROBINGEval.loadFile`` and the sort of its ``run``, as documented."""
    data: dict[str, tuple[list[list[str]], list[str]]] = {s: ([], []) for s in ("tr", "va", "te")}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip().split("\t")
            data[parts[0]][0].append(parts[-1].split())
            data[parts[0]][1].append(parts[1])
    labels = sorted(set(data["tr"][1]))
    ids = {lab: i for i, lab in enumerate(labels)}
    out = {}
    for split, (xs, ys) in data.items():
        pairs = sorted(zip(xs, [ids[y] for y in ys], strict=True), key=lambda z: (len(z[0]), z[1]))
        out[split] = ([p[0] for p in pairs], [p[1] for p in pairs])
    return out


def _features(sentences: list[list[str]]) -> np.ndarray:
    """Hashed bag of words: the same vectors for the same tokens on both sides."""
    X = np.zeros((len(sentences), DIM), np.float32)
    for i, toks in enumerate(sentences):
        for tok in toks:
            h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=4).digest(), "little")
            X[i, h % DIM] += 1.0
    return X


def _senteval_split_classifier(data: dict) -> float:
    from sklearn.linear_model import LogisticRegression

    X = {s: _features(xs) for s, (xs, _) in data.items()}
    y = {s: np.array(ys) for s, (_, ys) in data.items()}
    regs = [2.0**t for t in range(-2, 4)]
    scores = [
        round(100 * LogisticRegression(C=c, random_state=1111).fit(X["tr"], y["tr"])
              .score(X["va"], y["va"]), 2)
        for c in regs
    ]  # fmt: skip
    best = regs[int(np.argmax(scores))]
    clf = LogisticRegression(C=best, random_state=1111).fit(X["tr"], y["tr"])
    return round(100 * clf.score(X["te"], y["te"]), 2)


def _polyprobe_senteval(folder: Path, config: str, probe: str) -> float:
    X, y, groups, keys = {}, {}, {}, {}
    for split in ("train", "validation", "test"):
        t = pq.read_table(folder / split_file(config, split))
        X[split] = _features(t.column("tokens").to_pylist())
        y[split] = np.array(t.column("label").to_pylist())
        groups[split] = np.array(t.column("group").to_pylist())
        keys[split] = np.array([k or "" for k in t.column("lexical_key").to_pylist()])
    n_classes = int(max(v.max() for v in y.values())) + 1
    out = run_protocol(get_probe(probe), SplitArrays(X, y, groups, keys), n_classes, seed=0)
    return 100 * float((out.y_pred == out.y_true).mean())


def test_senteval_preset_agrees_with_senteval_on_the_export(pud: Path, exported: tuple) -> None:
    out, result = exported
    compared = {}
    for config, entry in result["written"].items():
        if "senteval_task" not in entry:
            continue
        theirs = _senteval_split_classifier(_senteval_load(out / entry["path"]))
        ours = _polyprobe_senteval(pud, config, "senteval")
        compared[entry["senteval_task"]] = (ours, theirs)
        assert abs(ours - theirs) <= 0.5, (config, ours, theirs)
    assert set(compared) == {"Length", "Depth", "BigramShift", "Tense", "SubjNumber"}
