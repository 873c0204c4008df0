"""Every network of an ``mlp`` grid trained as one: the grid's networks side by side.

The ``mlp`` presets search a grid (``hidden`` × ``dropout``: 9 networks) on the same training
rows, minibatch order and validation set. Trained one after the other (``probes.train_mlp``,
the reference implementation), each minibatch step pays Python and library overhead for one
thin network — a 64 × 768 by 768 × 50 product is far too small for BLAS — nine times over.
Here the grid's first layers are one 768 × Σhidden matrix, so a step is one wide product for
all networks; the second layers are one block-diagonal matrix (each network's hidden units
feed only its own logits); the loss is the sum of the networks' mean cross-entropies, whose
gradient with respect to one network's weights is exactly that network's own gradient.

Each network is the same computation as ``train_mlp`` with the same seed:

- initialisation: ``torch.manual_seed(seed)`` then the network's own ``Linear`` layers, as
  ``train_mlp`` builds them (so its weights are the very same numbers);
- minibatch order: one generator seeded with ``seed``, one permutation per epoch (the order
  every network of the unbatched grid sees too);
- dropout: each network draws its masks from its own generator, started where the global
  generator stands after its initialisation — where ``train_mlp``'s ``Dropout`` draws from —
  with the same ``bernoulli_(1 − p) / (1 − p)`` noise, so a network's result does not depend
  on which other networks share the batch;
- Adam: an element-wise update (PyTorch's single-tensor Adam, written out), hence per
  network exactly its own optimiser;
- early stopping: per network (validation accuracy every ``eval_every`` epochs, ``patience``
  evaluations without improvement, the best epoch's weights restored). A network that stops
  leaves the batch: the wide matrices and the optimiser state are compacted to the networks
  still training.

What may differ from ``train_mlp`` is float rounding: a wide product may sum in another order
than a thin one, so long trainings can drift apart by rounding (``tests/test_eval_mlp_grid.py``
bounds it on a real task).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

BETAS = (0.9, 0.999)  # torch.optim.Adam's defaults, as train_mlp uses them
EPS = 1e-8


@dataclass
class _Net:
    """One network's place in the wide matrices and its training state."""

    hidden: int
    dropout: float
    gen: Any  # torch.Generator of its dropout masks
    best_acc: float = -1.0
    best_epoch: int = 0
    bad: int = 0
    epochs: int = 0
    best: tuple[Any, ...] | None = None  # (W1, b1, W2, b2) at the best epoch
    final: tuple[Any, ...] | None = None


def train_mlp_grid(
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray | None,
    y_val: np.ndarray | None,
    n_classes: int,
    points: list[tuple[int, float]],
    params: dict[str, Any],
    seed: int,
) -> list[tuple[Callable[[np.ndarray], np.ndarray], dict[str, Any]]]:
    """Train one network per ``(hidden, dropout)`` point; ``(predict, info)`` per point, in
    order, as ``probes.train_mlp`` returns them."""
    from polyprobe.evaluation.logreg import probe_threads, torch_threads

    with torch_threads(probe_threads()):
        return _train(X, y, X_val, y_val, n_classes, points, params, seed)


def _train(X, y, X_val, y_val, n_classes, points, params, seed):
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    act = {"sigmoid": torch.sigmoid, "relu": torch.relu, "tanh": torch.tanh}[params["activation"]]
    d, k = X.shape[1], n_classes
    nets: list[_Net] = []
    w1, b1, w2, b2 = [], [], [], []
    for hidden, dropout in points:  # train_mlp's initialisation, network by network
        torch.manual_seed(seed)
        first = torch.nn.Linear(d, hidden)
        torch.nn.Dropout(p=dropout)
        second = torch.nn.Linear(hidden, k)
        gen = torch.Generator()
        gen.set_state(torch.get_rng_state())
        nets.append(_Net(hidden, dropout, gen))
        w1.append(first.weight.detach().T)
        b1.append(first.bias.detach())
        w2.append(second.weight.detach().T)
        b2.append(second.bias.detach())
    lr, wd = float(params["lr"]), float(params["weight_decay"])
    bs, every = int(params["batch_size"]), int(params["eval_every"])
    patience = int(params["patience"])
    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32))
    yt = torch.from_numpy(np.asarray(y, dtype=np.int64))
    use_val = bool(params["early_stopping"]) and X_val is not None and len(X_val) > 0
    Xv = torch.from_numpy(np.ascontiguousarray(X_val, dtype=np.float32)) if use_val else None
    gen = torch.Generator().manual_seed(seed)

    active = list(range(len(nets)))  # indices of the networks still training
    state = _Wide.build(w1, b1, w2, b2, k)
    for epoch in range(1, int(params["max_epochs"]) + 1):
        perm = torch.randperm(len(Xt), generator=gen)
        for s in range(0, len(Xt), bs):
            idx = perm[s : s + bs]
            noise = [_noise(len(idx), nets[i].hidden, nets[i].dropout, nets[i].gen) for i in active]
            state.step(Xt[idx], yt[idx], noise, act, lr, wd)
        for i in active:
            nets[i].epochs = epoch
        if not (use_val and epoch % every == 0):
            continue
        with torch.no_grad():
            accs = state.accuracies(Xv, y_val, act)
        stopped = []
        for pos, i in enumerate(active):
            net = nets[i]
            if accs[pos] > net.best_acc:
                net.best_acc, net.best_epoch, net.bad = accs[pos], epoch, 0
                net.best = state.weights(pos)
            else:
                net.bad += 1
                if net.bad >= patience:
                    stopped.append(pos)
        if stopped:
            keep = [pos for pos in range(len(active)) if pos not in stopped]
            active = [active[pos] for pos in keep]
            if not active:
                break
            state = state.compact(keep)
    for pos, i in enumerate(active):
        nets[i].final = state.weights(pos)
    out = []
    for net in nets:
        weights = net.best if net.best is not None else net.final
        assert weights is not None
        info = {"epochs": net.epochs, "best_epoch": net.best_epoch if use_val else net.epochs}
        out.append((_predictor(weights, act), info))
    return out


def _noise(rows: int, hidden: int, p: float, gen: Any) -> Any:
    """``torch.nn.functional.dropout``'s training noise (None when p = 0: it draws nothing)."""
    import torch

    if p == 0:
        return None
    return torch.empty((rows, hidden)).bernoulli_(1 - p, generator=gen).div_(1 - p)


class _Wide:
    """The active networks' weights side by side, with their Adam moments: ``W1`` (d, H),
    ``b1`` (H,), ``W2`` (H, N·k) block-diagonal under ``mask``, ``b2`` (N·k,)."""

    def __init__(self, params, mask, sizes, k, moments, t):
        self.params, self.mask, self.sizes, self.k = params, mask, sizes, k
        self.moments, self.t = moments, t

    @classmethod
    def build(cls, w1, b1, w2, b2, k):
        import torch

        sizes = [w.shape[1] for w in w1]
        H, N = sum(sizes), len(sizes)
        W2 = torch.zeros((H, N * k))
        mask = torch.zeros((H, N * k))
        off = 0
        for j, (h, w) in enumerate(zip(sizes, w2, strict=True)):
            W2[off : off + h, j * k : (j + 1) * k] = w
            mask[off : off + h, j * k : (j + 1) * k] = 1.0
            off += h
        params = [torch.cat(w1, 1).contiguous(), torch.cat(b1), W2, torch.cat(b2)]
        moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
        return cls(params, mask, sizes, k, moments, 0)

    def _logits(self, x, noise, act, params):
        import torch

        W1, b1, W2, b2 = params
        h = torch.addmm(b1, x, W1)
        if noise is not None and any(n is not None for n in noise):
            full = [
                n if n is not None else torch.ones((len(x), size))
                for n, size in zip(noise, self.sizes, strict=True)
            ]
            h = h * torch.cat(full, 1)
        return torch.addmm(b2, act(h), W2 * self.mask)

    def step(self, x, y, noise, act, lr, wd):
        import torch

        params = [p.detach().requires_grad_(True) for p in self.params]
        z = self._logits(x, noise, act, params).view(len(x), -1, self.k)
        # Sum of each network's mean cross-entropy: network j's gradient is its own.
        n_nets = z.shape[1]
        loss = torch.nn.functional.cross_entropy(
            z.reshape(-1, self.k), y.repeat_interleave(n_nets), reduction="sum"
        ) / len(x)
        grads = torch.autograd.grad(loss, params)
        self.t += 1
        b1c, b2c = 1 - BETAS[0] ** self.t, 1 - BETAS[1] ** self.t
        new = []
        with torch.no_grad():
            for p, g, (m, v) in zip(params, grads, self.moments, strict=True):
                p = p.detach()
                if wd != 0:
                    g = g.add(p, alpha=wd)
                m.lerp_(g, 1 - BETAS[0])
                v.mul_(BETAS[1]).addcmul_(g, g, value=1 - BETAS[1])
                denom = (v.sqrt() / (b2c**0.5)).add_(EPS)
                new.append(p.addcdiv(m, denom, value=-lr / b1c))
        self.params = new

    def accuracies(self, X, y, act) -> list[float]:
        out = []
        preds = []
        for s in range(0, len(X), 8192):
            z = self._logits(X[s : s + 8192], None, act, self.params)
            preds.append(z.view(z.shape[0], -1, self.k).argmax(2))
        pred = np.concatenate([p.numpy() for p in preds])
        for j in range(pred.shape[1]):
            out.append(float((pred[:, j] == y).mean()))
        return out

    def _cols(self, pos):
        off = sum(self.sizes[:pos])
        return slice(off, off + self.sizes[pos]), slice(pos * self.k, (pos + 1) * self.k)

    def weights(self, pos):
        """Network ``pos``'s own (W1, b1, W2, b2), copied."""
        h, c = self._cols(pos)
        W1, b1, W2, b2 = self.params
        return (W1[:, h].clone(), b1[h].clone(), W2[h, c].clone(), b2[c].clone())

    def compact(self, keep: list[int]) -> _Wide:
        """The same state restricted to the networks ``keep`` (positions), moments included."""
        import torch

        spans = [self._cols(p) for p in keep]
        hidden = torch.cat([torch.arange(h.start, h.stop) for h, _ in spans])
        cls_ = torch.cat([torch.arange(c.start, c.stop) for _, c in spans])

        def cut(t, which):
            if which == 0:
                return t[:, hidden].contiguous()
            if which == 1:
                return t[hidden].contiguous()
            if which == 2:
                return t[hidden][:, cls_].contiguous()
            return t[cls_].contiguous()

        params = [cut(p, i) for i, p in enumerate(self.params)]
        moments = [(cut(m, i), cut(v, i)) for i, (m, v) in enumerate(self.moments)]
        sizes = [self.sizes[p] for p in keep]
        mask = cut(self.mask, 2)
        return _Wide(params, mask, sizes, self.k, moments, self.t)


def _predictor(weights: tuple[Any, ...], act: Callable[[Any], Any]):
    import torch

    W1, b1, W2, b2 = weights

    def predict(Xn: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = []
            for s in range(0, len(Xn), 8192):
                chunk = torch.from_numpy(np.ascontiguousarray(Xn[s : s + 8192], dtype=np.float32))
                out.append(torch.addmm(b2, act(torch.addmm(b1, chunk, W1)), W2).argmax(1).numpy())
            return np.concatenate(out) if out else np.zeros(0, np.int64)

    return predict
