"""SentEval's PyTorch classifier (``senteval/tools/classifier.py``, ``MLP``), reimplemented.

Why a separate trainer and not ``train_mlp``: SentEval's training loop has rules of its own
that change which epoch's weights are kept, and a table labelled SentEval should follow them:

- seeding: ``np.random.seed(seed)`` and ``torch.manual_seed(seed)`` when the classifier is
  made, so every grid point starts from the same state; minibatch order is a fresh
  ``np.random.permutation`` per pass from that numpy stream (here ``RandomState(seed)``,
  the same stream);
- the network: ``Linear(d, nhid) → Dropout(p) → Sigmoid → Linear(nhid, k)``, or one
  ``Linear(d, k)`` when ``nhid == 0`` (SentEval's logistic regression); PyTorch's default
  initialisation; cross-entropy averaged over the minibatch (SentEval sets
  ``size_average = False`` after building the loss, which PyTorch ≥ 0.4 ignores);
- Adam (PyTorch defaults, lr 1e-3) with the L2 value as ``weight_decay``;
- the loop: while not stopped and ``nepoch <= max_epoch``: ``epoch_size`` passes over the
  training rows, then one validation check; a better accuracy keeps a copy of the model,
  otherwise, if the count of checks without a new best has reached ``tenacity``, training
  stops, and the count goes up by one. The count never resets, so with tenacity 5 training
  ends at the sixth check without a new best, wherever they fall; and since ``nepoch`` is
  checked before a round of passes, up to ``max_epoch + epoch_size`` passes run;
- the best check's copy is the model used for prediction.

Runs on CPU, deterministically (``torch.use_deterministic_algorithms``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from polyprobe.evaluation.logreg import probe_threads, torch_threads


def train_senteval_mlp(
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray | None,
    y_val: np.ndarray | None,
    n_classes: int,
    hidden: int,
    dropout: float,
    l2reg: float,
    params: dict[str, Any],
    seed: int,
) -> tuple[Callable[[np.ndarray], np.ndarray], dict[str, Any]]:
    """One SentEval ``MLP.fit`` with ``validation_data=(X_val, y_val)``; returns a predictor
    and what the run did (passes trained, the pass of the kept model, validation checks).
    Torch runs on ``probe_threads()`` threads, as the other probes do."""
    with torch_threads(probe_threads()):
        return _train(X, y, X_val, y_val, n_classes, hidden, dropout, l2reg, params, seed)


def _train(X, y, X_val, y_val, n_classes, hidden, dropout, l2reg, params, seed):  # noqa: ANN001, ANN202
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    rng = np.random.RandomState(seed)
    torch.manual_seed(seed)
    d = X.shape[1]
    if hidden == 0:
        model = torch.nn.Sequential(torch.nn.Linear(d, n_classes))
    else:
        model = torch.nn.Sequential(
            torch.nn.Linear(d, hidden),
            torch.nn.Dropout(p=dropout),
            torch.nn.Sigmoid(),
            torch.nn.Linear(hidden, n_classes),
        )
    opt = torch.optim.Adam(model.parameters(), lr=float(params.get("lr", 1e-3)))
    opt.param_groups[0]["weight_decay"] = l2reg
    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32))
    yt = torch.from_numpy(np.asarray(y, dtype=np.int64))
    use_val = X_val is not None and y_val is not None and len(X_val) > 0
    Xv = torch.from_numpy(np.ascontiguousarray(X_val, dtype=np.float32)) if use_val else None
    bs = int(params.get("batch_size", 64))
    epoch_size = int(params.get("epoch_size", 4))
    max_epoch = int(params.get("max_epoch", 200))
    tenacity = int(params.get("tenacity", 5))
    early_stop = bool(params.get("early_stopping", True))
    nepoch, best_acc, best_state, best_epoch, bad, checks, better = 0, -1.0, None, 0, 0, 0, 0
    stop = False
    while not stop and nepoch <= max_epoch:
        model.train()
        for _ in range(epoch_size):
            perm = rng.permutation(len(Xt))
            for s in range(0, len(Xt), bs):
                idx = torch.from_numpy(perm[s : s + bs])
                loss = torch.nn.functional.cross_entropy(model(Xt[idx]), yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        nepoch += epoch_size
        if not use_val:
            continue
        checks += 1
        model.eval()
        with torch.no_grad():
            acc = float((model(Xv).argmax(1).numpy() == y_val).mean())
        if acc > best_acc:
            best_acc, best_epoch, better = acc, nepoch, better + 1
            best_state = copy.deepcopy(model.state_dict())
        elif early_stop:
            if bad >= tenacity:
                stop = True
            bad += 1
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()

    def predict(Xn: np.ndarray) -> np.ndarray:
        with torch.no_grad(), torch_threads(probe_threads()):
            out = []
            for s in range(0, len(Xn), 8192):
                chunk = torch.from_numpy(np.ascontiguousarray(Xn[s : s + 8192], dtype=np.float32))
                out.append(model(chunk).argmax(1).numpy())
            return np.concatenate(out) if out else np.zeros(0, np.int64)

    info = {
        "epochs": nepoch,
        "best_epoch": best_epoch if use_val else nepoch,
        "checks": checks,
        "improvements": better,
        "stopped_early": stop,
    }
    return predict, info
