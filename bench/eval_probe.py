"""Probe benchmarks; ratios within one run are the figures of merit, nothing asserts timings.

``--trec FOLDER`` (a ``polyprobe build trec`` output): the whole command
``polyprobe evaluate FOLDER --config coarse --encoder random --probe lr`` (a fresh process,
results folder and cache) next to scikit-learn's ``LogisticRegression`` over the same grid and
the same folds on the same features (seed 0's group k-fold on train, standardised per fold,
the chosen C refitted on all of train, scored on test). ``--repeat N`` interleaves N rounds and
prints medians (the machine is shared).

Synthetic (default): LR and MLP with their full grids on an n × 768 float32 train set with 10
classes (learnable), on CPU: the LR grid next to scikit-learn's ``LogisticRegression`` fitted
once per grid point on the same (standardised) data, the batched MLP grid next to the plain
torch loop (``probes.train_mlp`` one network after the other, same seed: the bench also checks
that both give the same predictions). Every side gets the same threads.

    python bench/eval_probe.py --trec /tmp/trec --skip-synthetic --compare /work/main
    python bench/eval_probe.py                # 20k x 768 (minutes on 2 cores)
    python bench/eval_probe.py --full         # the issue's 100k x 768 (much longer)
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
    ap.add_argument("--n", type=int, default=20_000, help="synthetic train rows (default 20000)")
    ap.add_argument(
        "--full", action="store_true", help="the issue's size: 100,000 train rows (slow)"
    )
    ap.add_argument("--mlp-epochs", type=int, default=3, help="MLP epochs per network (default 3)")
    ap.add_argument("--skip-plain", action="store_true", help="no plain torch loop for the MLP")
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
    if args.full:
        args.n = 100_000
    if args.trec:
        run_trec(args.trec, args.repeat, args.evaluate_args.split(), args.compare)
    if args.skip_synthetic:
        return

    run_synthetic(args)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    return time.perf_counter() - start[0], time.process_time() - start[1]


def run_synthetic(args: argparse.Namespace) -> None:
    """LR grid: polyprobe's batched, warm-started solve vs scikit-learn one fit per C. MLP
    grid: the batched grid (``mlp_grid``) vs the plain torch loop (``probes.train_mlp``, one
    network after the other). Both sides get the same threads (``logreg.probe_threads``)."""
    import torch
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from polyprobe.evaluation.logreg import probe_threads, torch_threads
    from polyprobe.evaluation.probes import Standardizer, fit_grid, get_probe, train_mlp

    threads = probe_threads()
    print(
        f"data: {args.n} x {args.dim}, {args.classes} classes; threads for both sides: "
        f"{threads} (load {os.getloadavg()[0]:.1f}); torch {torch.__version__}"
    )
    (Xtr, ytr), (Xva, yva), (Xte, yte) = make_data(args.n, args.dim, args.classes)

    def acc(y, p):
        return float((y == p).mean())

    lr = get_probe("lr")
    t = _clock()
    fitted = fit_grid(lr, Xtr, ytr, Xva, yva, args.classes, seed=0)
    val = [acc(yva, f.predict(Xva)) for f in fitted]
    best = int(np.argmax(val))
    w_ours, c_ours = _since(t)
    test_ours = acc(yte, fitted[best].predict(Xte))
    iters = [f.info["iterations"] for f in fitted]
    print(
        f"LR  polyprobe grid C={lr.grid['C']}: {w_ours:7.1f} s wall {c_ours:7.1f} s CPU  "
        f"chosen C={fitted[best].params['C']}  test acc {test_ours:.4f}  iterations {iters}",
        flush=True,
    )
    if not args.skip_sklearn:
        scaler = Standardizer(Xtr)
        Ss, Sv, St = scaler(Xtr), scaler(Xva), scaler(Xte)
        t = _clock()
        with threadpool_limits(threads):
            models = [LogisticRegression(C=C).fit(Ss, ytr) for C in lr.grid["C"]]
            val_sk = [acc(yva, m.predict(Sv)) for m in models]
        b = int(np.argmax(val_sk))
        w_sk, c_sk = _since(t)
        test_sk = acc(yte, models[b].predict(St))
        print(
            f"LR  sklearn one fit per C:       {w_sk:7.1f} s wall {c_sk:7.1f} s CPU  "
            f"chosen C={lr.grid['C'][b]}  test acc {test_sk:.4f}  "
            f"iterations {[int(m.n_iter_[0]) for m in models]}"
        )
        print(f"LR  sklearn / polyprobe: {w_sk / w_ours:.2f}x wall, {c_sk / c_ours:.2f}x CPU")

    if args.skip_mlp:
        return
    mlp = get_probe("mlp")
    mlp.params["max_epochs"] = args.mlp_epochs
    t = _clock()
    fitted = fit_grid(mlp, Xtr, ytr, Xva, yva, args.classes, seed=0)
    w_b, c_b = _since(t)
    val = [acc(yva, f.predict(Xva)) for f in fitted]
    best = int(np.argmax(val))
    print(
        f"MLP batched grid of {len(fitted)} (hidden x dropout, <= {args.mlp_epochs} epochs): "
        f"{w_b:7.1f} s wall {c_b:7.1f} s CPU  chosen {fitted[best].params}  "
        f"test acc {acc(yte, fitted[best].predict(Xte)):.4f}",
        flush=True,
    )
    if args.skip_plain:
        return
    scaler = Standardizer(Xtr)
    Ss, Sv, St = scaler(Xtr), scaler(Xva), scaler(Xte)
    t = _clock()
    plain = []
    with torch_threads(threads):
        for point in mlp.grid_points():
            merged = {**mlp.params, **point}
            predict, _ = train_mlp(
                Ss, ytr, Sv, yva, args.classes, point["hidden"], point["dropout"], merged, 0
            )
            plain.append(predict)
    w_p, c_p = _since(t)
    same = sum(bool((p(St) == f.predict(Xte)).all()) for p, f in zip(plain, fitted, strict=True))
    print(
        f"MLP plain torch loop, one network at a time: {w_p:7.1f} s wall {c_p:7.1f} s CPU; "
        f"{same}/{len(plain)} networks predict the test set identically to the batched grid"
    )
    print(f"MLP plain loop / batched: {w_p / w_b:.2f}x wall, {c_p / c_b:.2f}x CPU")


if __name__ == "__main__":
    main()
