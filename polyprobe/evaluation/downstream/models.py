"""The downstream networks over frozen token vectors, with LINSPECTOR's settings.

LINSPECTOR (Şahin et al. 2020) trained AllenNLP models on frozen word vectors; its configs
(``extrinsic/config/`` of UKPLab/linspector) give the settings used here:

- ``POS`` (``pos.jsonnet``, AllenNLP's ``simple_tagger``): a 1-layer BiLSTM, 100 units per
  direction (its ``dropout: 0.5`` is torch's between-layer dropout, a no-op with one layer),
  a linear layer to the tags, Adam (lr 1e-3), batches of 32, at most 40 epochs, patience 10
  on validation accuracy.
- ``NER`` (``ner.jsonnet``, ``crf_tagger``): a 2-layer BiLSTM, 200 units, dropout 0.5 on the
  inputs, between the layers and on the output, Adam (lr 1e-3), gradient norm 5, batches of
  32, at most 20 epochs, patience 10 on validation span F1. LINSPECTOR decodes with a CRF
  over BIOUL tags; here the tags are decoded per token (softmax), the one difference.
- ``dep`` (``depparse.jsonnet``, ``biaffine_parser``, Dozat & Manning 2017): input dropout
  0.3, a 2-layer BiLSTM of 250 units with dropout 0.3, arc and relation representations of
  200 (ELU feed-forward layers), a biaffine arc scorer and a bilinear relation scorer over
  a learned root sentinel prepended to the sentence, Adam (lr 1e-3, betas 0.9/0.9), gradient
  norm 5, batches of 128 (bucketed by length, as both configs), at most 30 epochs, patience
  10 on validation LAS, MST decoding (:mod:`mst`). Two departures, measured
  (evaluation/README.md): batches of 32 and lr 2e-3 (Dozat & Manning's), since LINSPECTOR's
  128 is 7 updates an epoch on an 800-sentence treebank; and torch's LSTM initialisation. LINSPECTOR's parser also embedded gold POS tags (100 dims); a ``parse`` config
  carries no tags, and the point is what the encoder's vectors alone give, so none are used.

One addition to LINSPECTOR's settings: the inputs are standardised on the training tokens
(``standardize``, ``run._standardised`` says why). Every run is seeded (torch's generator for the weights and dropout, numpy's for the batch
order) and early-stopped on validation: the weights of the best epoch are the ones tested.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.evaluation.downstream.sentences import MASKED

TAGGER_POS: dict[str, Any] = {
    "standardize": True, "bucket": True,
    "hidden": 100, "layers": 1, "dropout": 0.0, "lr": 1e-3, "batch_size": 32,
    "max_epochs": 40, "patience": 10, "grad_norm": None,
}  # fmt: skip
TAGGER_NER: dict[str, Any] = {
    "standardize": True, "bucket": True,
    "hidden": 200, "layers": 2, "dropout": 0.5, "lr": 1e-3, "batch_size": 32,
    "max_epochs": 20, "patience": 10, "grad_norm": 5.0,
}  # fmt: skip
PARSER: dict[str, Any] = {
    "standardize": True, "bucket": True,
    "hidden": 250, "layers": 2, "dropout": 0.3, "input_dropout": 0.3, "arc_dim": 200,
    "tag_dim": 200, "lr": 2e-3, "betas": [0.9, 0.9], "batch_size": 32, "max_epochs": 30,
    "patience": 10, "grad_norm": 5.0,
}  # fmt: skip


@dataclass
class Trained:
    """A trained network's predictions on the evaluated split and how training went."""

    predictions: list[np.ndarray]  # per sentence: tag ids, or (heads, relations) stacked
    epochs: int
    best_epoch: int
    best_validation: float
    history: list[float] = field(default_factory=list)


def _torch():
    import torch

    return torch


def _batches(
    lengths: list[int], size: int, rng: np.random.Generator | None, bucket: bool = True
) -> list[np.ndarray]:
    """Batches of sentence indices. ``bucket`` (LINSPECTOR's AllenNLP ``bucket`` iterator, in
    both configs): sentences sorted by length times noise (uniform ±10%, AllenNLP's
    ``padding_noise``), cut into batches, the batches shuffled; so little padding is fed.
    Without ``rng`` (prediction): sorted by length, no noise, no shuffle."""
    n = len(lengths)
    if rng is None:
        order = np.argsort(np.asarray(lengths), kind="stable") if bucket else np.arange(n)
        return [order[i : i + size] for i in range(0, n, size)]
    if not bucket:
        order = rng.permutation(n)
        return [order[i : i + size] for i in range(0, n, size)]
    noisy = np.asarray(lengths, np.float64) * rng.uniform(0.9, 1.1, n)
    order = np.argsort(noisy, kind="stable")
    batches = [order[i : i + size] for i in range(0, n, size)]
    return [batches[k] for k in rng.permutation(len(batches))]


def _padded(vectors: list[np.ndarray], idx: np.ndarray, device: str):
    """Inputs (B, T, D), lengths (B,) for the sentences ``idx``, zero-padded."""
    torch = _torch()
    lengths = [len(vectors[i]) for i in idx]
    dim = vectors[idx[0]].shape[1]
    x = np.zeros((len(idx), max(lengths), dim), np.float32)
    for k, i in enumerate(idx):
        x[k, : lengths[k]] = vectors[i]
    return torch.from_numpy(x).to(device), torch.tensor(lengths)


def _targets(values: list[np.ndarray], idx: np.ndarray, width: int, device: str):
    torch = _torch()
    y = np.full((len(idx), width), MASKED, np.int64)
    for k, i in enumerate(idx):
        y[k, : len(values[i])] = values[i]
    return torch.from_numpy(y).to(device)


def _bilstm(d_in: int, hidden: int, layers: int, dropout: float):
    # torch's LSTM initialisation, not the parser config's (Xavier input weights, orthogonal
    # recurrent ones, forget-gate bias 1): measured on German PUD (MiniLM layer 3, batches
    # of 32, lr 2e-3, 5 epochs), that one reached LAS .494, torch's .551 (evaluation/README)
    torch = _torch()
    return torch.nn.LSTM(
        d_in, hidden, num_layers=layers, batch_first=True, bidirectional=True,
        dropout=dropout if layers > 1 else 0.0,
    )  # fmt: skip


def _run_lstm(lstm, x, lengths):
    torch = _torch()
    packed = torch.nn.utils.rnn.pack_padded_sequence(
        x, lengths, batch_first=True, enforce_sorted=False
    )
    out, _ = lstm(packed)
    return torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])[0]


def _make_tagger(d_in: int, n_tags: int, p: dict[str, Any]):
    torch = _torch()

    class Tagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.drop = torch.nn.Dropout(p["dropout"])
            self.lstm = _bilstm(d_in, p["hidden"], p["layers"], p["dropout"])
            self.out = torch.nn.Linear(2 * p["hidden"], n_tags)

        def forward(self, x, lengths):
            h = _run_lstm(self.lstm, self.drop(x), lengths)
            return self.out(self.drop(h))

    return Tagger()


def _make_parser(d_in: int, n_rels: int, p: dict[str, Any]):
    torch = _torch()
    nn = torch.nn

    class Parser(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.root = nn.Parameter(torch.randn(d_in) * 0.01)
            self.input_drop = nn.Dropout(p["input_dropout"])
            self.lstm = _bilstm(d_in, p["hidden"], p["layers"], p["dropout"])
            self.drop = nn.Dropout(p["dropout"])
            h2 = 2 * p["hidden"]
            self.arc_dep = nn.Sequential(nn.Linear(h2, p["arc_dim"]), nn.ELU())
            self.arc_head = nn.Sequential(nn.Linear(h2, p["arc_dim"]), nn.ELU())
            self.tag_dep = nn.Sequential(nn.Linear(h2, p["tag_dim"]), nn.ELU())
            self.tag_head = nn.Sequential(nn.Linear(h2, p["tag_dim"]), nn.ELU())
            self.arc_w = nn.Parameter(torch.zeros(p["arc_dim"], p["arc_dim"]))
            self.arc_b = nn.Parameter(torch.zeros(p["arc_dim"]))
            nn.init.xavier_uniform_(self.arc_w)
            # bilinear relation scorer (nn.Bilinear's, written as two matrix products: its
            # CPU backward pass took 12 s a batch on PUD)
            self.rel_w = nn.Parameter(torch.empty(n_rels, p["tag_dim"], p["tag_dim"]))
            self.rel_b = nn.Parameter(torch.zeros(n_rels))
            nn.init.xavier_uniform_(self.rel_w)

        def encode(self, x, lengths):
            root = self.root.expand(x.shape[0], 1, -1)
            h = _run_lstm(self.lstm, self.input_drop(torch.cat([root, x], 1)), lengths + 1)
            return self.drop(h)

        def arcs(self, h):
            dep, head = self.arc_dep(h), self.arc_head(h)
            # scores[b, i, j]: token i's head is j (j = 0: the root)
            return dep @ self.arc_w @ head.transpose(1, 2) + (head @ self.arc_b).unsqueeze(1)

        def relations(self, h, heads, select):
            """Relation scores (N, relations) of the N positions ``select`` (b, t) marks,
            each with its head ``heads`` (b, t) gives: padding is never scored."""
            rows, cols = select.nonzero(as_tuple=True)
            dep = self.tag_dep(h[rows, cols])
            head = self.tag_head(h[rows, heads[rows, cols].clamp(min=0)])
            n, d = dep.shape
            left = (dep @ self.rel_w.permute(1, 0, 2).reshape(d, -1)).view(n, -1, d)
            return torch.bmm(left, head.unsqueeze(-1)).squeeze(-1) + self.rel_b

    return Parser()


def _scores_mask(lengths, width: int, device: str):
    torch = _torch()
    return torch.arange(width, device=device).unsqueeze(0) < (lengths + 1).to(device).unsqueeze(1)


def train_tagger(
    vectors: dict[str, list[np.ndarray]],
    labels: dict[str, list[np.ndarray]],
    n_tags: int,
    params: dict[str, Any],
    seed: int,
    evaluate: str,
    score: Any,
    device: str = "cpu",
) -> Trained:
    """Train on ``train``, pick the epoch by ``score(gold, predicted)`` on ``validation``
    (sentence lists of tag ids), predict ``evaluate``."""
    torch = _torch()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    d_in = vectors["train"][0].shape[1]
    model = _make_tagger(d_in, n_tags, params).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=params["lr"])
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=MASKED)

    def predict(split: str) -> list[np.ndarray]:
        model.eval()
        out: list[Any] = [None] * len(vectors[split])
        with torch.inference_mode():
            for idx in _batches([len(v) for v in vectors[split]], 256, None):
                x, lengths = _padded(vectors[split], idx, device)
                pred = model(x, lengths).argmax(-1).cpu().numpy()
                for k, i in enumerate(idx):
                    out[i] = pred[k, : lengths[k]]
        return out

    return _fit(model, opt, params, rng, lambda: _tagger_epoch(
        model, opt, loss_fn, vectors["train"], labels["train"], params, rng, device
    ), lambda: score(labels["validation"], predict("validation")), lambda: predict(evaluate))  # fmt: skip


def _tagger_epoch(model, opt, loss_fn, vectors, labels, params, rng, device) -> None:  # noqa: ANN001
    torch = _torch()
    model.train()
    lengths = [len(v) for v in vectors]
    for idx in _batches(lengths, params["batch_size"], rng, params.get("bucket", True)):
        x, lengths = _padded(vectors, idx, device)
        y = _targets(labels, idx, x.shape[1], device)
        logits = model(x, lengths)
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        if params.get("grad_norm"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), params["grad_norm"])
        opt.step()


def train_parser(
    vectors: dict[str, list[np.ndarray]],
    heads: dict[str, list[np.ndarray]],
    rels: dict[str, list[np.ndarray]],
    n_rels: int,
    params: dict[str, Any],
    seed: int,
    evaluate: str,
    score: Any,
    device: str = "cpu",
) -> Trained:
    """As :func:`train_tagger` for the parser: ``heads`` per token (0 = root, 1..n, MASKED),
    ``rels`` the relation ids; predictions are (heads, relations) per sentence, MST-decoded."""
    from polyprobe.evaluation.downstream.mst import mst_heads

    torch = _torch()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    d_in = vectors["train"][0].shape[1]
    model = _make_parser(d_in, n_rels, params).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=params["lr"], betas=tuple(params["betas"]))
    ce = torch.nn.CrossEntropyLoss(ignore_index=MASKED)

    train_lengths = [len(v) for v in vectors["train"]]

    def epoch() -> None:
        model.train()
        bucket = params.get("bucket", True)
        for idx in _batches(train_lengths, params["batch_size"], rng, bucket):
            x, lengths = _padded(vectors["train"], idx, device)
            gold_h = _targets(heads["train"], idx, x.shape[1], device)
            gold_r = _targets(rels["train"], idx, x.shape[1], device)
            h = model.encode(x, lengths)
            arcs = model.arcs(h)[:, 1:, :]  # dependents are the tokens, heads include root
            mask = _scores_mask(lengths, arcs.shape[-1], device)
            arcs = arcs.masked_fill(~mask.unsqueeze(1), float("-inf"))
            arc_loss = ce(arcs.reshape(-1, arcs.shape[-1]), gold_h.reshape(-1))
            with_root = torch.cat([gold_h.new_full((len(idx), 1), MASKED), gold_h], 1)
            select = with_root != MASKED
            rel = model.relations(h, with_root, select)
            rel_loss = ce(rel, gold_r[select[:, 1:]])
            opt.zero_grad()
            (arc_loss + rel_loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), params["grad_norm"])
            opt.step()

    def predict(split: str) -> list[np.ndarray]:
        model.eval()
        out: list[Any] = [None] * len(vectors[split])
        with torch.inference_mode():
            for idx in _batches([len(v) for v in vectors[split]], 128, None):
                x, lengths = _padded(vectors[split], idx, device)
                h = model.encode(x, lengths)
                arcs = model.arcs(h).float().cpu().numpy()
                head_t = np.zeros((len(idx), x.shape[1] + 1), np.int64)
                select = np.zeros(head_t.shape, bool)
                for k in range(len(idx)):
                    n = int(lengths[k]) + 1
                    head_t[k, :n] = mst_heads(arcs[k, :n, :n])
                    select[k, 1:n] = True
                rel = model.relations(
                    h, torch.from_numpy(head_t).to(device), torch.from_numpy(select).to(device)
                ).argmax(-1).cpu().numpy()
                start = 0
                for k, i in enumerate(idx):
                    n = int(lengths[k])
                    out[i] = np.stack([head_t[k, 1 : n + 1], rel[start : start + n]])
                    start += n
        return out

    gold_val = [
        np.stack([h, r]) for h, r in zip(heads["validation"], rels["validation"], strict=True)
    ]
    return _fit(model, opt, params, rng, epoch, lambda: score(gold_val, predict("validation")),
                lambda: predict(evaluate))  # fmt: skip


def _fit(model, opt, params, rng, epoch, validate, final) -> Trained:  # noqa: ANN001
    """Epochs until ``patience`` epochs bring no better validation score; the best epoch's
    weights predict the evaluated split."""
    import copy

    best, best_epoch, best_state, history = -1.0, 0, None, []
    for e in range(1, int(params["max_epochs"]) + 1):
        epoch()
        value = float(validate())
        history.append(round(value, 6))
        if value > best:
            best, best_epoch, best_state = value, e, copy.deepcopy(model.state_dict())
        elif e - best_epoch >= int(params["patience"]):
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    return Trained(final(), len(history), best_epoch, best, history)
