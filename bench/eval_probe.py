"""Probe benchmarks; ratios within one run are the figures of merit, nothing asserts timings.

``--trec FOLDER`` (a ``polyprobe build trec`` output): the whole command
``polyprobe evaluate FOLDER --config coarse --encoder random --probe lr`` (a fresh process,
results folder and cache) next to scikit-learn's ``LogisticRegression`` over the same grid and
the same folds on the same features (seed 0's group k-fold on train, standardised per fold,
the chosen C refitted on all of train, scored on test). ``--repeat N`` interleaves N rounds and
prints medians (the machine is shared).

Synthetic (default): LR and MLP with their full grids on an n × 768 float32 train set with 10
classes (learnable), on CPU, next to plain scikit-learn ``LogisticRegression`` fitted once per
grid point on the same (standardised) data.

    python bench/eval_probe.py --trec /tmp/trec --skip-synthetic
    python bench/eval_probe.py            # full size (several minutes on 2 cores)
    python bench/eval_probe.py --n 20000  # quicker
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_data(n: int, dim: int, n_classes: int, seed: int = 0):
    """Class means on a random low-rank subspace plus isotropic noise: learnable, not trivial."""
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((32, dim)).astype(np.float32) / np.sqrt(32)
    means = rng.standard_normal((n_classes, 32)).astype(np.float32) @ basis * 0.12
    total = n + 2 * max(1000, n // 10)
    y = rng.integers(0, n_classes, total)
    X = (means[y] + rng.standard_normal((total, dim)).astype(np.float32)).astype(np.float32)
    m = max(1000, n // 10)
    return (X[:n], y[:n]), (X[n : n + m], y[n : n + m]), (X[n + m :], y[n + m :])


def trec_features(folder: str) -> dict:
    """Random-encoder features, labels and groups of TREC coarse, read as ``evaluate`` does."""
    from polyprobe.evaluation.data import load_config, read_card
    from polyprobe.evaluation.encoders import build_encoder

    card = read_card(folder, None)
    cfg = load_config(folder, "coarse", None, card, None)
    enc = build_encoder("random")
    out = {}
    for s in ("train", "test"):
        items = [row[0] for row in cfg.items(s)]
        out[s] = (enc.encode(items)[None], cfg.labels(s), cfg.groups(s), cfg.keys(s))
    return out


def sklearn_trec(feats: dict, folds: int = 5) -> tuple[float, float, float, float]:
    """(wall seconds, CPU seconds, chosen C, test accuracy) of scikit-learn over the lr
    preset's grid and folds. BLAS gets the threads polyprobe's own policy would give it
    (``logreg.probe_threads``: the idle cores), so both sides see the machine alike."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from polyprobe.evaluation.logreg import probe_threads
    from polyprobe.evaluation.probes import LR_GRID, Standardizer
    from polyprobe.evaluation.protocols import group_kfold

    X, y, g, k = feats["train"]
    Xte, yte = feats["test"][:2]
    t, c = time.perf_counter(), time.process_time()
    with threadpool_limits(probe_threads()):
        fold_ids = group_kfold(g, k, folds, 0)
        scores = np.zeros(len(LR_GRID))
        for f in range(int(fold_ids.max()) + 1):
            tr, va = fold_ids != f, fold_ids == f
            sc = Standardizer(X[tr])
            for j, C in enumerate(LR_GRID):
                m = LogisticRegression(C=C).fit(sc(X[tr]), y[tr])
                scores[j] += (m.predict(sc(X[va])) == y[va]).mean()
        best = int(np.argmax(scores))
        sc = Standardizer(X)
        m = LogisticRegression(C=LR_GRID[best]).fit(sc(X), y)
        acc = float((m.predict(sc(Xte)) == yte).mean())
    return time.perf_counter() - t, time.process_time() - c, LR_GRID[best], acc


def polyprobe_trec(folder: str, extra: list[str], path: str | None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, test accuracy) of the whole ``polyprobe evaluate`` command
    in a fresh process; ``path``: the checkout to import polyprobe from (default: this one)."""
    import json
    import resource

    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = str(Path(path).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "polyprobe", "evaluate", folder, "--config", "coarse"]
        cmd += ["--encoder", "random", "--probe", "lr", "--out", f"{tmp}/out"]
        cmd += ["--cache", f"{tmp}/cache", "--no-progress", *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(
            cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        seconds = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        (path_,) = Path(tmp, "out").rglob("lr.json")
        result = json.loads(path_.read_text())
    return seconds, cpu, result["metrics"]["accuracy"]["mean"]


def run_trec(folder: str, repeat: int, extra: list[str], compare: list[str]) -> None:
    """Interleaved rounds: this checkout's command, each ``--compare`` checkout's (e.g. main
    before a change), scikit-learn's grid; ratios per round and their medians."""
    feats = trec_features(folder)
    print(
        f"TREC coarse, random encoder: train {feats['train'][0].shape}, "
        f"test {len(feats['test'][1])}, evaluate args {' '.join(extra) or '(none)'}"
    )
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    sides = [("this", None), *[(c, c) for c in compare]]
    walls: dict[str, list[float]] = {name: [] for name, _ in sides}
    cpus: dict[str, list[float]] = {name: [] for name, _ in sides}
    sk_wall, sk_cpu = [], []
    for r in range(repeat):  # interleaved: every side sees the same machine load
        line = [f"round {r}:"]
        for name, path in sides:
            w, c, a = polyprobe_trec(folder, extra, path)
            walls[name].append(w)
            cpus[name].append(c)
            line.append(f"polyprobe[{name}] {w:6.1f} s wall {c:6.1f} s CPU (acc {a:.4f})")
        w, c, C_sk, acc_sk = sklearn_trec(feats)
        sk_wall.append(w)
        sk_cpu.append(c)
        line.append(f"sklearn grid {w:6.1f} s wall {c:6.1f} s CPU (C={C_sk}, acc {acc_sk:.4f})")
        print("\n  ".join(line), flush=True)
    mw, mc = statistics.median(sk_wall), statistics.median(sk_cpu)
    for name, _ in sides:
        ow, oc = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"median polyprobe[{name}]: {ow:.1f} s wall, {oc:.1f} s CPU; sklearn {mw:.1f} s "
            f"wall, {mc:.1f} s CPU; sklearn/polyprobe {mw / ow:.2f}x wall, {mc / oc:.2f}x CPU"
        )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def main() -> None:
    import warnings

    warnings.filterwarnings("ignore", message=".*failed to converge.*")  # sklearn's, expected
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--skip-mlp", action="store_true")
    ap.add_argument("--trec", default=None, help="a `polyprobe build trec` folder")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved TREC rounds")
    ap.add_argument(
        "--compare",
        action="append",
        default=[],
        help="another checkout whose command also runs (e.g. /work/main: before a change)",
    )
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument(
        "--evaluate-args", default="", help="extra `polyprobe evaluate` arguments (TREC)"
    )
    args = ap.parse_args()
    if args.trec:
        run_trec(args.trec, args.repeat, args.evaluate_args.split(), args.compare)
    if args.skip_synthetic:
        return

    import torch
    from sklearn.linear_model import LogisticRegression

    from polyprobe.evaluation.probes import Standardizer, fit_grid, get_probe

    print(
        f"torch threads: {torch.get_num_threads()}  data: {args.n} x {args.dim}, {args.classes} classes"
    )
    (Xtr, ytr), (Xva, yva), (Xte, yte) = make_data(args.n, args.dim, args.classes)

    def acc(y, p):
        return float((y == p).mean())

    lr = get_probe("lr")
    t = time.perf_counter()
    fitted = fit_grid(lr, Xtr, ytr, Xva, yva, args.classes, seed=0)
    val = [acc(yva, f.predict(Xva)) for f in fitted]
    best = int(np.argmax(val))
    t_ours = time.perf_counter() - t
    test_ours = acc(yte, fitted[best].predict(Xte))
    iters = [(f.info["iterations"], f.info["converged"]) for f in fitted]
    print(
        f"polyprobe lr   grid C={lr.grid['C']}: {t_ours:7.1f} s  "
        f"chosen C={fitted[best].params['C']}  test acc {test_ours:.4f}  L-BFGS iterations {iters}"
    )

    if not args.skip_sklearn:
        scaler = Standardizer(Xtr)
        Ss, Sv, St = scaler(Xtr), scaler(Xva), scaler(Xte)
        t = time.perf_counter()
        models = [LogisticRegression(C=C).fit(Ss, ytr) for C in lr.grid["C"]]
        val_sk = [acc(yva, m.predict(Sv)) for m in models]
        b = int(np.argmax(val_sk))
        t_sk = time.perf_counter() - t
        test_sk = acc(yte, models[b].predict(St))
        print(
            f"sklearn lr     one fit per C:    {t_sk:7.1f} s  chosen C={lr.grid['C'][b]}  "
            f"test acc {test_sk:.4f}  iterations {[int(m.n_iter_[0]) for m in models]}"
        )
        print(f"ratio sklearn / polyprobe LR grid: {t_sk / t_ours:.2f}x")

    if not args.skip_mlp:
        mlp = get_probe("mlp")
        t = time.perf_counter()
        fitted = fit_grid(mlp, Xtr, ytr, Xva, yva, args.classes, seed=0)
        val = [acc(yva, f.predict(Xva)) for f in fitted]
        best = int(np.argmax(val))
        t_mlp = time.perf_counter() - t
        epochs = [f.info["epochs"] for f in fitted]
        print(
            f"polyprobe mlp  grid of {len(fitted)} (hidden x dropout): {t_mlp:7.1f} s  "
            f"chosen {fitted[best].params}  test acc {acc(yte, fitted[best].predict(Xte)):.4f}  "
            f"epochs run {epochs}"
        )


if __name__ == "__main__":
    main()
