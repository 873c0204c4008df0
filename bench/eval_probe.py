"""Probe benchmarks; ratios within one run are the figures of merit, nothing asserts timings.

``--trec FOLDER`` (a ``polyprobe build trec`` output): the whole command
``polyprobe evaluate FOLDER --config coarse --encoder random --probe lr --seeds N`` (a fresh
process, results folder and cache) against scikit-learn's ``LogisticRegression`` doing the
same work on the same features: the command fits, per seed, the task *and* its control task,
each over 5 group folds (the seed's assignment) × 6 C, standardised per fold, the chosen C
refitted on all of train and scored on test, on that seed's random-encoder vectors; so
scikit-learn fits exactly that, with the same ``max_iter`` (100) and tolerance (1e-4, SciPy's
L-BFGS-B stopping tests on both sides) and the same threads (``--threads``, default 1, which
is polyprobe's default: ``POLYPROBE_THREADS``). Printed per side: wall and CPU seconds, test
accuracy per seed for task and control, how many fits converged. Also printed: the command's
import floor (a process importing only what it imports) and polyprobe's solver alone on the
prepared work, so the command's fixed costs and the solver are told apart.
``--sklearn-warm`` adds scikit-learn warm-started along each fold's C path (``warm_start``:
polyprobe's C path, without its preconditioner, so more of scikit-learn's fits converge
within ``max_iter``); ``--sklearn-max-iter 10000`` runs scikit-learn to convergence (the
accuracy polyprobe's converged fits should equal);
``--task-only-sklearn`` adds scikit-learn on the task alone with seed 0 (31 fits): the
baseline the issue quoted. ``--repeat N`` interleaves N rounds and prints medians (the
machine is shared: also print the load).

Synthetic (default): LR and MLP with their full grids on an n × 768 float32 train set with 10
classes (learnable), on CPU: the LR grid next to scikit-learn's ``LogisticRegression`` fitted
once per grid point on the same (standardised) data, the batched MLP grid next to the plain
torch loop (``probes.train_mlp`` one network after the other, same seed: the bench also checks
that both give the same predictions). Every side gets the same threads.

    python bench/eval_probe.py --trec /tmp/trec --skip-synthetic --seeds 1 --compare /work/main
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


def trec_work(folder: str, seeds: int) -> dict:
    """Everything ``polyprobe evaluate FOLDER --config coarse --encoder random --probe lr
    --seeds N`` fits, read as it reads it: per seed, the random encoder's vectors for that seed
    (a seed varies them), the seed's group 5-fold assignment on train, and two label sets, the
    task and the seed's control task (``controls.py``), both fitted by the command."""
    from polyprobe.evaluation import controls
    from polyprobe.evaluation.data import load_config, read_card
    from polyprobe.evaluation.encoders import build_encoder
    from polyprobe.evaluation.protocols import group_kfold

    card = read_card(folder, None)
    cfg = load_config(folder, "coarse", None, card, None)
    groups = {s: cfg.groups(s) for s in cfg.splits}
    keys = {s: cfg.keys(s) for s in cfg.splits}
    labels = {s: cfg.labels(s) for s in cfg.splits}
    plan = controls.plan_control(cfg, False, groups, keys)
    enc = build_encoder("random")
    work = {"n_classes": len(cfg.label_names), "groups": groups, "keys": keys, "seeds": {}}
    for seed in range(seeds):
        e = enc.for_seed(seed)
        X = {s: e.encode([row[0] for row in cfg.items(s)])[None] for s in cfg.splits}
        work["seeds"][seed] = {
            "X": X,
            "folds": group_kfold(groups["train"], keys["train"], 5, seed),
            "label_sets": {"task": labels, "control": plan.labels(cfg, seed)},
        }
    return work


def sklearn_trec(
    work: dict, threads: int, max_iter: int, label_sets: tuple[str, ...], warm: bool = False
) -> dict:
    """scikit-learn's ``LogisticRegression`` (lbfgs, tol 1e-4: the ``lr`` preset's settings)
    doing the command's work: per seed and label set, every C of the grid on every fold
    (standardised with the fold's training rows), C chosen by mean fold accuracy, refitted on
    all of train, scored on test. BLAS runs ``threads`` threads, as polyprobe's fits do.
    ``warm``: each fold's fits follow the C path in increasing C, each from the previous C's
    solution (``warm_start=True``), as polyprobe's solver does; otherwise every fit starts
    cold, as ``LogisticRegression`` does by default (the refit is cold on both sides)."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from polyprobe.evaluation.probes import LR_GRID, Standardizer

    fits = converged = 0
    acc: dict[str, list[float]] = {name: [] for name in label_sets}
    chosen: dict[str, list[float]] = {name: [] for name in label_sets}
    t, c = time.perf_counter(), time.process_time()
    with threadpool_limits(threads):
        for sd in work["seeds"].values():
            X, Xte, fold_ids = sd["X"]["train"], sd["X"]["test"], sd["folds"]
            for name in label_sets:
                y, yte = sd["label_sets"][name]["train"], sd["label_sets"][name]["test"]
                scores = np.zeros(len(LR_GRID))
                for f in range(int(fold_ids.max()) + 1):
                    tr, va = fold_ids != f, fold_ids == f
                    sc = Standardizer(X[tr])
                    Xs, Xv = sc(X[tr]), sc(X[va])
                    path = LogisticRegression(max_iter=max_iter, warm_start=True)
                    for j, C in enumerate(LR_GRID):  # increasing C
                        if warm:
                            m = path.set_params(C=C).fit(Xs, y[tr])
                        else:
                            m = LogisticRegression(C=C, max_iter=max_iter).fit(Xs, y[tr])
                        fits, converged = fits + 1, converged + int(m.n_iter_[0] < max_iter)
                        scores[j] += (m.predict(Xv) == y[va]).mean()
                best = int(np.argmax(scores))
                sc = Standardizer(X)
                m = LogisticRegression(C=LR_GRID[best], max_iter=max_iter).fit(sc(X), y)
                fits, converged = fits + 1, converged + int(m.n_iter_[0] < max_iter)
                acc[name].append(float((m.predict(sc(Xte)) == yte).mean()))
                chosen[name].append(LR_GRID[best])
    return {
        "wall": time.perf_counter() - t,
        "cpu": time.process_time() - c,
        "fits": fits,
        "converged": converged,
        "accuracy": acc,
        "chosen": chosen,
    }


def solver_trec(work: dict, threads: int) -> dict:
    """polyprobe's probe step alone, in this process, on the same prepared work
    (``protocols.run_protocols``: task and control in one batched solve per C): the solver
    against the solver, without the command's imports, reading and encoding."""
    from polyprobe.evaluation.probes import get_probe
    from polyprobe.evaluation.protocols import SplitArrays, run_protocols

    spec = get_probe("lr")
    acc: dict[str, list[float]] = {"task": [], "control": []}
    conv = [0, 0]
    old = os.environ.get("POLYPROBE_THREADS")
    os.environ["POLYPROBE_THREADS"] = str(threads)
    try:
        t, c = time.perf_counter(), time.process_time()
        for seed, sd in work["seeds"].items():
            sets = sd["label_sets"]
            data = SplitArrays(sd["X"], sets["task"], work["groups"], work["keys"])
            outs = run_protocols(
                spec, data, [sets["task"], sets["control"]], work["n_classes"], seed, 5
            )
            for name, o in zip(("task", "control"), outs, strict=True):
                acc[name].append(float((o.y_true == o.y_pred).mean()))
                rec = o.chosen[0]
                done, total = (int(v) for v in rec["grid_fits_converged"].split("/"))
                conv[0] += done + int(rec["converged"])
                conv[1] += total + 1
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        if old is None:
            os.environ.pop("POLYPROBE_THREADS")
        else:
            os.environ["POLYPROBE_THREADS"] = old
    return {"wall": wall, "cpu": cpu, "accuracy": acc, "converged": conv[0], "fits": conv[1]}


def polyprobe_trec(
    folder: str, seeds: int, threads: int, extra: list[str], path: str | None
) -> dict:
    """Wall and CPU seconds, per-seed test accuracy of the task and of its control task, and
    the task's fit convergence, of the whole ``polyprobe evaluate`` command in a fresh process
    (``POLYPROBE_THREADS=threads``); ``path``: the checkout to import polyprobe from."""
    import json
    import resource

    env = dict(os.environ, POLYPROBE_THREADS=str(threads))
    env["PYTHONPATH"] = _checkout(path)
    with tempfile.TemporaryDirectory() as tmp:
        folder = str(Path(folder).resolve())
        cmd = [sys.executable, "-m", "polyprobe", "evaluate", folder, "--config", "coarse"]
        cmd += ["--encoder", "random", "--probe", "lr", "--out", f"{tmp}/out"]
        cmd += ["--cache", f"{tmp}/cache", "--no-progress", "--seeds", str(seeds), *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(  # cwd: ``-m`` puts it first on sys.path, before PYTHONPATH
            cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp
        )
        seconds = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        (path_,) = Path(tmp, "out").rglob("lr.json")
        result = json.loads(path_.read_text())
    done = total = 0
    for rec in result["probe"]["chosen"]:
        d, n = (int(v) for v in rec.get("grid_fits_converged", "0/0").split("/"))
        done, total = done + d + int(rec["converged"]), total + n + 1
    return {
        "wall": seconds,
        "cpu": cpu,
        "accuracy": {
            "task": result["metrics"]["accuracy"]["per_seed"],
            "control": result["control"]["accuracy"]["per_seed"],
        },
        "chosen": [rec["C"] for rec in result["probe"]["chosen"]],
        "task_converged": f"{done}/{total}",
        "threads": result["probe"].get("cpu_threads"),
    }


def _checkout(path: str | None) -> str:
    """The checkout a subprocess imports polyprobe from: ``path``, else the one this bench
    belongs to. It runs in a scratch directory, because ``python -m``/``-c`` put the working
    directory first on ``sys.path``: run from a checkout, every side would import that one
    (``--compare`` measured this checkout twice before)."""
    return str(Path(path or Path(__file__).resolve().parent.parent).resolve())


def import_floor(path: str | None) -> tuple[float, float]:
    """Wall and CPU seconds of a process that only imports what the command imports before
    it fits (polyprobe's evaluation API, torch, datasets): no solver can go below it."""
    import resource

    env = dict(os.environ, PYTHONPATH=_checkout(path))
    code = "import polyprobe.evaluation.api, polyprobe.evaluation.cli, torch, datasets"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:  # cwd first on sys.path: not a checkout
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _accs(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.3f}" for v in values) + "]"


def run_trec(args: argparse.Namespace) -> None:
    """Interleaved rounds of: the whole command of this checkout and of each ``--compare``
    checkout, polyprobe's solver alone, scikit-learn doing the same work (and, with
    ``--task-only-sklearn``, scikit-learn on the task alone, seed 0: the issue's baseline).
    Every side runs ``--threads`` threads. Ratios per round; medians at the end."""
    threads, seeds = args.threads, args.seeds
    work = trec_work(args.trec, seeds)
    tr = work["seeds"][0]["X"]["train"]
    print(
        f"TREC coarse, random encoder: train {tr.shape}, test {len(work['keys']['test'])}; "
        f"work per side: {seeds} seed(s) x (task + control task) x (5 folds x 6 C + refit) "
        f"= {seeds * 2 * 31} fits; threads per side: {threads}; sklearn max_iter "
        f"{args.sklearn_max_iter}; evaluate args {' '.join(args.evaluate_args.split()) or '-'}"
    )
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    sides = [("this", None), *[(c, c) for c in args.compare]]
    rows: dict[str, list[tuple[float, float]]] = {}

    def note(name: str, wall: float, cpu: float) -> None:
        rows.setdefault(name, []).append((wall, cpu))

    for r in range(args.repeat):  # interleaved: every side sees the same machine load
        print(f"round {r} (load {os.getloadavg()[0]:.1f}):")
        for name, path in sides:
            w, c = import_floor(path)
            note(f"imports[{name}]", w, c)
            out = polyprobe_trec(args.trec, seeds, threads, args.evaluate_args.split(), path)
            note(f"command[{name}]", out["wall"], out["cpu"])
            print(
                f"  polyprobe[{name}] whole command {out['wall']:6.1f} s wall "
                f"{out['cpu']:6.1f} s CPU (imports alone {w:.1f} s wall {c:.1f} s CPU; "
                f"threads {out['threads']}): task acc {_accs(out['accuracy']['task'])} "
                f"C {out['chosen']}, control acc {_accs(out['accuracy']['control'])}, "
                f"task fits converged {out['task_converged']}",
                flush=True,
            )
        sol = solver_trec(work, threads)
        note("solver", sol["wall"], sol["cpu"])
        print(
            f"  polyprobe solver alone       {sol['wall']:6.1f} s wall {sol['cpu']:6.1f} s CPU: "
            f"task acc {_accs(sol['accuracy']['task'])}, control acc "
            f"{_accs(sol['accuracy']['control'])}, fits converged "
            f"{sol['converged']}/{sol['fits']}",
            flush=True,
        )
        sk = sklearn_trec(work, threads, args.sklearn_max_iter, ("task", "control"))
        note("sklearn", sk["wall"], sk["cpu"])
        print(
            f"  sklearn same work            {sk['wall']:6.1f} s wall {sk['cpu']:6.1f} s CPU: "
            f"task acc {_accs(sk['accuracy']['task'])} C {sk['chosen']['task']}, control acc "
            f"{_accs(sk['accuracy']['control'])} C {sk['chosen']['control']}, fits converged "
            f"{sk['converged']}/{sk['fits']} (max_iter {args.sklearn_max_iter})",
            flush=True,
        )
        if args.sklearn_warm:
            skw_ = sklearn_trec(work, threads, args.sklearn_max_iter, ("task", "control"), True)
            note("sklearn warm C path", skw_["wall"], skw_["cpu"])
            print(
                f"  sklearn same work, warm path {skw_['wall']:6.1f} s wall {skw_['cpu']:6.1f} s "
                f"CPU: task acc {_accs(skw_['accuracy']['task'])}, control acc "
                f"{_accs(skw_['accuracy']['control'])}, fits converged "
                f"{skw_['converged']}/{skw_['fits']}",
                flush=True,
            )
        if args.task_only_sklearn:
            one = {"seeds": {0: work["seeds"][0]}}
            sk1 = sklearn_trec(one, threads, args.sklearn_max_iter, ("task",))
            note("sklearn task seed 0", sk1["wall"], sk1["cpu"])
            print(
                f"  sklearn task only, seed 0    {sk1['wall']:6.1f} s wall {sk1['cpu']:6.1f} s "
                f"CPU: acc {_accs(sk1['accuracy']['task'])}, fits converged "
                f"{sk1['converged']}/{sk1['fits']}",
                flush=True,
            )
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in rows.items()}  # fmt: skip
    skw, skc = med["sklearn"]
    print("medians (sklearn same work / side; > 1: polyprobe faster):")
    for name, (w, c) in med.items():
        ratio = f"{skw / w:5.2f}x wall {skc / c:5.2f}x CPU"
        print(f"  {name:22s} {w:7.1f} s wall {c:7.1f} s CPU   {ratio}")
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
    ap.add_argument("--seeds", type=int, default=3, help="TREC: evaluate's --seeds (default 3)")
    ap.add_argument(
        "--threads", type=int, default=1, help="TREC: CPU threads of every side (default 1)"
    )
    ap.add_argument(
        "--sklearn-max-iter", type=int, default=100, help="TREC: scikit-learn's max_iter"
    )
    ap.add_argument(
        "--sklearn-warm",
        action="store_true",
        help="TREC: also scikit-learn warm-started along the C path (polyprobe's C path)",
    )
    ap.add_argument(
        "--task-only-sklearn",
        action="store_true",
        help="TREC: also scikit-learn on the task alone with seed 0 (the issue's baseline)",
    )
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
        run_trec(args)
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
