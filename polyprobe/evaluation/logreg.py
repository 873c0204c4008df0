"""Many L2 logistic regressions solved as one: every (label set, training mask, C) of a grid.

A probe grid is dozens of small, independent fits on the *same* feature matrix: 6 values of C
× 5 folds (× seeds × the control task). Fitting them one by one (scikit-learn, or SciPy per C)
pays Python and library overhead on every L-BFGS step of every fit, and multiplies a
5,000 × 300 matrix by a 300 × 6 one — too thin for BLAS to run near its speed. Here every
problem of a grid advances one L-BFGS step together: one ``X @ W_all`` and one ``Xᵀ @ G_all``
per step for all of them (a 300 × (problems·classes) right-hand side, which BLAS runs at full
speed on every core), with the per-problem parts of L-BFGS (two-loop recursion, Armijo
backtracking, the stopping tests, the preconditioner below) vectorised across problems.
Problems that have converged drop out of the products.

The objective is scikit-learn's ``lbfgs`` one, per problem: mean log-loss over the problem's
training rows + ‖W‖² / (2·C·n_train), intercept unpenalised, multinomial for k > 2 classes, one
weight vector for binary tasks. Each problem standardises the features with its own training
rows' mean and std (the ``Standardizer`` rule); the standardisation is folded into the weights
(``x·(W/σ) + b − (μ/σ)·W``), so the raw matrix is multiplied once for every fold. Stopping
tests are SciPy L-BFGS-B's as scikit-learn calls it: max |gradient| ≤ ``tol`` or a relative
objective decrease ≤ 64·eps, else ``max_iter`` iterations. The products run in float32
(features and the weights' copy), the loss, gradients and optimiser state in float64.

**Preconditioning** (why ~5× fewer steps than plain L-BFGS, same objective, same stopping
tests). L-BFGS starts each step's inverse-Hessian estimate from a scaled identity; on these
problems that is poor: standardised sentence features are strongly correlated and the smaller
penalties leave the loss ill-conditioned, so plain L-BFGS needs 100–230 iterations per fit on
TREC coarse (5,442 × 300, 6 classes) and most fits stopped at ``max_iter=100`` (scikit-learn:
0/62). Here the initial inverse Hessian H0 is the inverse of a Kronecker-factored model of the
Hessian, Q ⊗ A + λ·I: A = X̃₁ᵀX̃₁ / n the mask's standardised rows' second moment with an
intercept column (fixed per mask: eigendecomposed once for a whole C path by
:func:`mask_stats`, 301 × 301 on TREC), Q the training rows' mean of diag(p) − ppᵀ at the
current iterate (k × k, p(1 − p) for binary tasks; eigendecomposed per step, trivially
small), λ = 1/(C·n). In the product of the two eigenbases the model is diagonal, so applying
H0 costs two (d+1)² × k products per problem — about a tenth of a step's products — and any
C is free. H0 is then scaled by sᵀy / yᵀH0y of the newest pair, as L-BFGS scales the identity.
Measured (seed 0, fold 0, warm C path, same tolerance): 479 objective evaluations with the
scaled identity, 184 with Böhning's fixed bound ½(I − 11ᵀ/k) ⊗ A (a valid upper bound, but
p(1 − p) is far below ½ in most directions: the preconditioned Hessian's condition number was
2,700–67,000 against 360–1,100 with Q), 87 with Q. On the whole TREC command's 62 fits: 62
converge (was 44), the solver's CPU time 14.4 s → 3.7 s. Only the path to the optimum
changes: a converged fit is scikit-learn's converged optimum (``tests/test_eval_lr_grid.py``,
``tests/test_eval_probes.py``). Fits that still stop at ``max_iter`` differ from what the
unpreconditioned solver returned, so the ``lr`` preset names its solver
(``"lbfgs-preconditioned-warm-start"``) and results made before are recomputed, not reused.

Runs on any torch device (CPU default; ``cuda`` when asked). On CPU it uses
:func:`probe_threads` threads: one unless ``POLYPROBE_THREADS`` says otherwise. Two reasons,
both measured on TREC coarse (5,442 × 300, task + control, one seed, 2 cores): results of fits
stopped at ``max_iter`` depend on the thread count (1 vs 2 threads: the control task's chosen C
0.25 vs 0.5, its test accuracy 0.728 vs 0.726), so a default that followed the load average
made results depend on what else ran on the machine; and under load torch's threads wait on
each other at every operation (2 threads at load 9: 79 s CPU, 193 s wall against 1 thread's
15 s CPU, 34 s wall). One thread gives the same numbers on every machine whatever its cores
or load; the count is recorded in each result (``probe.cpu_threads``). With the preconditioner
every TREC fit converges, and 1 and 2 threads then give the same chosen C and test accuracy for
task and control on seeds 0–2 (grid scores differ by one validation item in 2 of 6 cases); the
default stays one thread, as fits that stop at ``max_iter`` elsewhere still depend on it
(and the bench gives scikit-learn the same threads). The probe step's numpy
products (standardising, predicting) keep to the same count (:func:`blas_threads`, applied by
``protocols.run_protocols``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from polyprobe.errors import UsageError

HISTORY = 10  # L-BFGS memory (SciPy's maxcor default)
ARMIJO = 1e-4
FTOL = 64 * np.finfo(float).eps


@dataclass
class Problem:
    """One fit: which label row, which training mask, which C."""

    labels: int
    mask: int
    C: float


@dataclass
class Solutions:
    """Per problem, in the standardised space of its mask: ``coef`` (P, k, d) with k = 1 for
    binary tasks (scikit-learn's shape), ``intercept`` (P, k), ``iterations`` (P,),
    ``converged`` (P,), ``grad_max`` (P,) the final max |gradient|; and per mask the
    standardisation ``mean``/``std`` (M, d)."""

    coef: np.ndarray
    intercept: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    grad_max: np.ndarray
    mean: np.ndarray
    std: np.ndarray

    def select(self, rows: slice) -> Solutions:
        """The solutions of problems ``rows`` (the per-mask statistics unchanged)."""
        return Solutions(
            self.coef[rows],
            self.intercept[rows],
            self.iterations[rows],
            self.converged[rows],
            self.grad_max[rows],
            self.mean,
            self.std,
        )


def probe_threads() -> int:
    """CPU threads for the fits: ``POLYPROBE_THREADS`` when set (a count, or ``auto``: the
    cores this process may use minus the load already on them, at least 1), else 1 — a
    default that depends neither on the load nor on the machine's cores (module docstring)."""
    env = os.environ.get("POLYPROBE_THREADS", "").strip()
    if not env:
        return 1
    if env.lower() != "auto":
        try:
            return max(1, int(env))
        except ValueError:
            raise UsageError(
                f"POLYPROBE_THREADS={env!r}: expected a thread count or 'auto'"
            ) from None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, min(cores, int(cores - busy + 1)))


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """numpy's and SciPy's BLAS limited to ``n`` threads (``threadpoolctl``, which
    scikit-learn already requires). Measured: 62 predictions of 1,088 × 300 by 300 × 6 took
    0.22 CPU-s with OpenBLAS's default 2 threads on a busy 2-core machine, 0.024 s with one
    — in the TREC command, 0.6 of its CPU seconds."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(n, user_api="blas"):
        yield


def mask_scalers(X: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and std of each mask's rows, exactly as ``probes.Standardizer`` computes them
    (float64 accumulation, std < 1e-8 → 1, stored as float32)."""
    means, stds = [], []
    for m in masks:
        rows = X[m]
        mean = rows.mean(axis=0, dtype=np.float64)
        std = rows.std(axis=0, dtype=np.float64)
        std[std < 1e-8] = 1.0
        means.append(mean.astype(np.float32))
        stds.append(std.astype(np.float32))
    return np.stack(means), np.stack(stds)


@dataclass
class MaskStats:
    """What the solver needs of each training mask's rows, computed once for a whole C path:
    the standardisation ``mean``/``std`` (M, d) (``mask_scalers``), and the eigendecomposition
    ``basis`` (M, d+1, d+1) / ``spectrum`` (M, d+1) of the standardised rows' second moment with
    an intercept column, A = X̃₁ᵀX̃₁ / n (the feature half of the preconditioner, module
    docstring)."""

    mean: np.ndarray
    std: np.ndarray
    basis: np.ndarray
    spectrum: np.ndarray


def mask_stats(
    X: np.ndarray, masks: np.ndarray, standardize: bool = True, device: str | None = None
) -> MaskStats:
    """:class:`MaskStats` of every mask of ``X``'s rows (``probe_threads`` threads on CPU)."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    if standardize:
        mean, std = mask_scalers(X, masks)
    else:
        mean = np.zeros((len(masks), X.shape[1]), np.float32)
        std = np.ones((len(masks), X.shape[1]), np.float32)
    if device in (None, "cpu"):
        with torch_threads(probe_threads()):
            basis, spectrum = _second_moments(X, masks, mean, std, None)
    else:
        basis, spectrum = _second_moments(X, masks, mean, std, device)
    return MaskStats(mean, std, basis, spectrum)


def _second_moments(
    X: np.ndarray, masks: np.ndarray, mean: np.ndarray, std: np.ndarray, device: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvectors and (clipped ≥ 0) eigenvalues of A = X̃₁ᵀX̃₁ / n per mask, X̃ = the mask's
    rows standardised (centred first, so a feature with a large mean and a small spread loses
    nothing to float32), X̃₁ = X̃ with a column of ones."""
    import torch

    dev = torch.device(device or "cpu")
    Xt = torch.from_numpy(X).to(dev)
    d = X.shape[1]
    bases, spectra = [], []
    for m, mu, sd in zip(masks, mean, std, strict=True):
        rows = Xt[torch.from_numpy(np.flatnonzero(m)).to(dev)]
        rows = (rows - torch.from_numpy(mu).to(dev)) / torch.from_numpy(sd).to(dev)
        n = max(len(rows), 1)
        A = torch.empty((d + 1, d + 1), dtype=torch.float64, device=dev)
        A[:d, :d] = (rows.T.contiguous() @ rows).double() / n
        A[:d, d] = A[d, :d] = rows.sum(0, dtype=torch.float64) / n
        A[d, d] = 1.0
        try:
            values, vectors = torch.linalg.eigh(A)
        except torch.linalg.LinAlgError:
            # LAPACK's divide and conquer can fail on a low-rank A with many repeated zero
            # eigenvalues (40 rows of 2,048 features); a diagonal shift of 1e-12 of its scale
            # separates them and changes the preconditioner by nothing measurable
            shift = 1e-12 * float(A.diagonal().abs().max())
            values, vectors = torch.linalg.eigh(
                A + shift * torch.eye(d + 1, dtype=A.dtype, device=dev)
            )
            values = values - shift
        bases.append(vectors.cpu().numpy())
        spectra.append(values.clamp_min(0.0).cpu().numpy())
    return np.stack(bases), np.stack(spectra)


def solve(
    X: np.ndarray,
    labels: np.ndarray,
    masks: np.ndarray,
    problems: list[Problem],
    n_classes: int,
    max_iter: int = 100,
    tol: float = 1e-4,
    standardize: bool = True,
    device: str | None = None,
    init: Solutions | None = None,
    stats: MaskStats | None = None,
) -> Solutions:
    """Fit every problem; ``labels`` (L, n) int, ``masks`` (M, n) bool over the rows of ``X``.
    ``init``: start each problem from the same-index solution of an earlier call (a warm start
    along the C path) instead of zero weights and the log class priors. ``stats``: the
    masks' ``mask_stats(X, masks, standardize)`` when the caller has them (computed once for
    a whole C path instead of once per C)."""
    if stats is None:
        stats = mask_stats(X, masks, standardize, device)
    args = (X, labels, masks, problems, n_classes, max_iter, tol, stats)
    if device in (None, "cpu"):
        with torch_threads(probe_threads()):
            return _solve(*args, None, init)
    return _solve(*args, device, init)


def _solve(
    X: np.ndarray,
    labels: np.ndarray,
    masks: np.ndarray,
    problems: list[Problem],
    n_classes: int,
    max_iter: int,
    tol: float,
    stats: MaskStats,
    device: str | None,
    init: Solutions | None = None,
) -> Solutions:
    import torch

    dev = torch.device(device or "cpu")
    X = np.ascontiguousarray(X, dtype=np.float32)
    n, d = X.shape
    labels = np.atleast_2d(np.asarray(labels, dtype=np.int64))
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    mean, std = stats.mean, stats.std
    binary = n_classes == 2
    k = 1 if binary else n_classes
    P = len(problems)
    lab_of = torch.tensor([p.labels for p in problems], device=dev)
    mask_of = torch.tensor([p.mask for p in problems], device=dev)
    n_train = torch.tensor(masks.sum(axis=1), dtype=torch.float64, device=dev)[mask_of]
    lam = 1.0 / (torch.tensor([p.C for p in problems], dtype=torch.float64, device=dev) * n_train)

    Xt = torch.from_numpy(X).to(dev)
    Lt = torch.from_numpy(labels).to(dev)
    Mt = torch.from_numpy(masks).to(dev)
    mu = torch.from_numpy(mean).to(dev, torch.float64)
    sd = torch.from_numpy(std).to(dev, torch.float64)
    basis = torch.from_numpy(stats.basis).to(dev, torch.float64)
    spectrum = torch.from_numpy(stats.spectrum).to(dev, torch.float64)
    D1 = d + 1

    # Per problem, over all rows: its label and its loss weight (1/n_train on its training
    # rows, 0 elsewhere), as (n, P) columns gathered for the active problems.
    Yall = Lt[lab_of].T.contiguous()
    Wall = (Mt[mask_of].T.float() / n_train.float()[None]).contiguous()
    everything = torch.arange(P, device=dev)

    def evaluate(
        idx: torch.Tensor, w: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Objective (q,), gradient (q, D) and class curvature (q, k, k) of problems ``idx`` at
        parameters ``w`` (q, D): the curvature is the training rows' mean of diag(p) − ppᵀ
        (p(1 − p) for binary tasks), the class half of the preconditioner."""
        q = len(idx)
        W = w[:, : d * k].reshape(q, d, k)
        b = w[:, d * k :]
        m_i = mask_of[idx]
        inv = 1.0 / sd[m_i]  # (q, d)
        Wt = W * inv[:, :, None]
        bt = b - torch.einsum("qd,qdk->qk", mu[m_i] * inv, W)
        whole = q == P and bool((idx == everything).all())
        weight = Wall if whole else Wall[:, idx]
        y = Yall if whole else Yall[:, idx]
        # Columns ordered (class, problem): the softmax then reduces over a middle axis with
        # the problems contiguous, which vectorises (5x faster than a last axis of k ≈ 6).
        Z = torch.addmm(
            bt.T.reshape(1, k * q).float(), Xt, Wt.permute(1, 2, 0).reshape(d, k * q).float()
        ).view(n, k, q)
        if binary:
            z = Z[:, 0]
            yf = y.float()
            loss = torch.nn.functional.softplus(z) - yf * z
            p = torch.sigmoid(z)
            curv = (p * (1 - p) * weight).sum(0, dtype=torch.float64)[:, None, None]
            G = ((p - yf) * weight)[:, None]
        else:
            logp = torch.log_softmax(Z, dim=1)
            loss = -logp.gather(1, y[:, None])[:, 0]
            G = logp.exp_()
            Pw = G * weight[:, None]
            curv = (
                torch.diag_embed(Pw.sum(0).T.double())
                - torch.bmm(Pw.permute(2, 1, 0), G.permute(2, 0, 1)).double()
            )
            G.scatter_add_(1, y[:, None], torch.full_like(G[:, :1], -1.0))
            G.mul_(weight[:, None])
        f = (loss * weight).sum(0, dtype=torch.float64) + 0.5 * lam[idx] * (W * W).sum((1, 2))
        # Gᵀ·X rather than Xᵀ·G: torch runs the transposed-X product up to 8× slower (measured
        # 136 vs 16 ms at 20,000 × 768 × 10 on one thread); the two are the same numbers.
        gWt = (G.view(n, k * q).T @ Xt).view(k, q, d).permute(1, 2, 0).double()
        gb = G.sum(0, dtype=torch.float64).T  # (q, k)
        gW = gWt * inv[:, :, None] - (mu[m_i] * inv)[:, :, None] * gb[:, None, :]
        gW = gW + lam[idx][:, None, None] * W
        return f, torch.cat([gW.reshape(q, d * k), gb], dim=1), curv

    def precondition(idx: torch.Tensor, v: torch.Tensor, classes: Eigen) -> torch.Tensor:
        """H0·v for problems ``idx``: the inverse of (class curvature ⊗ A + λ·I), A the mask's
        feature second moment, in the product of the two eigenbases (module docstring).
        ``v`` (q, D) is laid out (d + 1, k): weight rows, then the intercepts' row."""
        q = len(idx)
        values, vectors = classes
        T = torch.bmm(v.view(q, D1, k), vectors)  # classes into the curvature's eigenbasis
        out = torch.empty_like(T)
        m_i = mask_of[idx]
        for m in torch.unique(m_i).tolist():
            sel = torch.nonzero(m_i == m)[:, 0]
            Vm = basis[m]
            part = (Vm.T @ T[sel].permute(1, 0, 2).reshape(D1, -1)).view(D1, len(sel), k)
            part = part / (
                spectrum[m][:, None, None] * values[sel][None] + lam[idx[sel]][None, :, None]
            )
            out[sel] = (Vm @ part.reshape(D1, -1)).view(D1, len(sel), k).permute(1, 0, 2)
        return torch.bmm(out, vectors.transpose(1, 2)).reshape(q, D)

    D = d * k + k
    w = torch.zeros((P, D), dtype=torch.float64, device=dev)
    # Intercepts start at the log class priors of each problem's training rows.
    for j, p in enumerate(problems):
        y_tr = labels[p.labels][masks[p.mask]]
        counts = np.bincount(y_tr, minlength=n_classes).astype(np.float64) + 1e-6
        if binary:
            prior = float(np.clip(counts[1] / counts.sum(), 1e-6, 1 - 1e-6))
            w[j, d * k :] = float(np.log(prior / (1 - prior)))
        else:
            w[j, d * k :] = torch.from_numpy(np.log(counts / counts.sum()))
    if init is not None:
        start = np.concatenate(
            [init.coef.transpose(0, 2, 1).reshape(P, d * k), init.intercept], axis=1
        )
        w = torch.from_numpy(np.ascontiguousarray(start, dtype=np.float64)).to(dev)
    all_idx = torch.arange(P, device=dev)
    f, g, curv = evaluate(all_idx, w)
    classes = _eigen(curv)
    S = torch.zeros((HISTORY, P, D), dtype=torch.float64, device=dev)
    Y = torch.zeros_like(S)
    rho = torch.zeros((HISTORY, P), dtype=torch.float64, device=dev)
    n_hist = torch.zeros(P, dtype=torch.long, device=dev)  # pairs stored so far (capped)
    slot = torch.zeros(P, dtype=torch.long, device=dev)  # next write position, per problem
    iters = torch.zeros(P, dtype=torch.long, device=dev)
    converged = g.abs().amax(1) <= tol
    active = ~converged

    for _ in range(max_iter):
        idx = torch.nonzero(active)[:, 0]
        if len(idx) == 0:
            break
        gq = g[idx]
        here = (classes[0][idx], classes[1][idx])

        def h0(vs: list[torch.Tensor], idx=idx, here=here) -> tuple[torch.Tensor, ...]:
            """H0 applied to each (q, D) batch of ``vs``, all in one pass over the masks."""
            r = len(vs)
            both = (here[0].repeat(r, 1), here[1].repeat(r, 1, 1))
            return precondition(idx.repeat(r), torch.cat(vs), both).split(len(idx))

        direction = _two_loop(gq, S[:, idx], Y[:, idx], rho[:, idx], n_hist[idx], slot[idx], h0)
        slope = (direction * gq).sum(1)
        bad = slope >= 0  # not a descent direction (history gone stale): restart on −H0·g
        if bad.any():
            n_hist[idx[bad]] = 0
            direction[bad] = -precondition(idx[bad], gq[bad], (here[0][bad], here[1][bad]))
            slope[bad] = (direction[bad] * gq[bad]).sum(1)
        # Step 1 first: H0 is a Newton-like scaling, also without history (no 1/|d| start).
        step = torch.ones(len(idx), dtype=torch.float64, device=dev)
        f0, w0 = f[idx], w[idx]
        f_new = torch.empty_like(f0)
        g_new = torch.empty_like(gq)
        c_new = torch.empty_like(curv[idx])
        pending = torch.arange(len(idx), device=dev)
        for _ls in range(30):  # Armijo backtracking, only the problems still pending
            trial = w0[pending] + step[pending, None] * direction[pending]
            ft, gt, ct = evaluate(idx[pending], trial)
            ok = ft <= f0[pending] + ARMIJO * step[pending] * slope[pending]
            ok |= _ls == 29
            done = pending[ok]
            f_new[done], g_new[done], c_new[done] = ft[ok], gt[ok], ct[ok]
            pending = pending[~ok]
            if len(pending) == 0:
                break
            step[pending] *= 0.5
        s = step[:, None] * direction
        yv = g_new - gq
        sy = (s * yv).sum(1)
        keep = sy > 1e-10 * (yv * yv).sum(1).clamp_min(1e-300)
        ki = idx[keep]
        pos = slot[ki]
        S[pos, ki] = s[keep]
        Y[pos, ki] = yv[keep]
        rho[pos, ki] = 1.0 / sy[keep]
        slot[ki] = (pos + 1) % HISTORY
        n_hist[ki] = (n_hist[ki] + 1).clamp_max(HISTORY)
        w[idx] = w0 + s
        rel = (f0 - f_new) / torch.maximum(
            torch.maximum(f0.abs(), f_new.abs()), torch.ones_like(f0)
        )
        f[idx], g[idx] = f_new, g_new
        values, vectors = _eigen(c_new)
        classes[0][idx], classes[1][idx] = values, vectors
        iters[idx] += 1
        gmax = g_new.abs().amax(1)
        conv = (gmax <= tol) | (rel <= FTOL)
        converged[idx] = conv
        active[idx] = ~conv

    coef = w[:, : d * k].reshape(P, d, k).permute(0, 2, 1).cpu().numpy()
    intercept = w[:, d * k :].cpu().numpy().copy()
    if not binary:  # softmax intercepts are defined up to a constant: centre them
        intercept -= intercept.mean(axis=1, keepdims=True)
    return Solutions(
        coef=np.ascontiguousarray(coef),
        intercept=intercept,
        iterations=iters.cpu().numpy(),
        converged=converged.cpu().numpy(),
        grad_max=g.abs().amax(1).cpu().numpy(),
        mean=mean,
        std=std,
    )


Eigen = tuple  # (values (q, k), vectors (q, k, k)) of each problem's class curvature


def _eigen(curv):
    """Eigenvalues (clipped ≥ 0) and eigenvectors of each problem's class curvature."""
    import torch

    values, vectors = torch.linalg.eigh(curv)
    return values.clamp_min(0.0), vectors


def _two_loop(g, S, Y, rho, n_hist, slot, h0):
    """L-BFGS direction −H·g for a batch, each problem with its own history ring buffer, the
    initial inverse Hessian ``h0`` (applied to a list of (problems, D) batches) scaled by
    sᵀy / yᵀ·h0(y) of the newest pair. Each problem's history is gathered once, newest first
    (three gathers instead of three per history slot and loop)."""
    import torch

    q = g.clone()
    m = S.shape[0]
    cols = torch.arange(len(g), device=g.device)
    ages = torch.arange(1, m + 1, device=g.device)[:, None]  # 1 = newest
    pos = (slot[None, :] - ages) % m  # (m, problems)
    S_o, Y_o, r_o = S[pos, cols[None]], Y[pos, cols[None]], rho[pos, cols[None]]
    valid = (n_hist[None, :] >= ages).to(g.dtype)  # (m, problems)
    alpha = torch.zeros((m, len(g)), dtype=g.dtype, device=g.device)
    for j in range(m):  # newest first
        a = r_o[j] * (S_o[j] * q).sum(1) * valid[j]
        alpha[j] = a
        q -= a[:, None] * Y_o[j]
    y_new, s_new = Y_o[0], S_o[0]
    hy, hq = h0([y_new, q])
    yhy = (y_new * hy).sum(1)
    gamma = torch.where(
        (n_hist > 0) & (yhy > 0), (s_new * y_new).sum(1) / yhy.clamp_min(1e-300), 1.0
    )
    r_vec = gamma[:, None] * hq
    for j in range(m - 1, -1, -1):  # oldest first
        beta = r_o[j] * (Y_o[j] * r_vec).sum(1)
        r_vec += S_o[j] * ((alpha[j] - beta) * valid[j])[:, None]
    return -r_vec
