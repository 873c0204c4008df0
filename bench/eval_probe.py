"""Probe benchmark: LR and MLP with their full grids on a 100k × 768 float32 train set with 10
classes (synthetic, learnable), on CPU, next to plain scikit-learn ``LogisticRegression`` fitted
once per grid point on the same (standardised) data. The ratio is the figure of merit; nothing
here asserts timings.

    python bench/eval_probe.py            # full size (several minutes on 2 cores)
    python bench/eval_probe.py --n 20000  # quicker
"""

from __future__ import annotations

import argparse
import time

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--skip-mlp", action="store_true")
    args = ap.parse_args()

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
    iters = [f.info["iterations"] for f in fitted]
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
