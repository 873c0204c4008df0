"""DiscoEval's features for discourse configs, and its probe preset.

A discourse row is several texts (a window of sentences, or two lists of elementary discourse
units); a sentence encoder sees each text alone, and the row's feature vector is built from
those vectors as DiscoEval (Chen et al. 2019) builds it, per task:

| task | features |
|---|---|
| ``sentence_position`` (SP) | [x1, x1−x2, x1−x3, x1−x4, x1−x5]: the first sentence against each other |
| ``binary_sentence_ordering`` (BSO) | [x1, x2, x1−x2] |
| ``discourse_coherence`` (DC) | the six vectors concatenated |
| ``sentence_section`` (SSP) | the sentence's vector |
| ``discourse_relations`` (DR) | [l, r, l⊙r, abs(l−r)]; a subtree's vector is the mean of its EDUs' |

A discourse config of another task gets the concatenation when all its rows have the same
number of texts, else their mean. The ``discoeval`` preset is DiscoEval's classifier choice:
logistic regression (the ``lr`` preset's solver and C grid), and for DC an MLP with 2,000
hidden units (the ``mlp`` preset's training, hidden size fixed); protocols, seeds and
confidence intervals are the evaluation's usual ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
from polyprobe.evaluation.encoders import Encoder, Item
from polyprobe.evaluation.probes import SENTEVAL_L2, ProbeSpec, get_probe

DISCOURSE_LEVELS: tuple[str, ...] = ("discourse", "discourse-relation")
DISCOEVAL = "discoeval"
DC_HIDDEN = 2000
NO_L2 = 1e-9  # DiscoEval's "noreg": SplitClassifier's one L2 value under PyTorch

# Per row, its parts (one for a window, two for left/right units), each a (k, d) array.
Scheme = Callable[[Sequence[np.ndarray]], np.ndarray]


def _position(parts: Sequence[np.ndarray]) -> np.ndarray:
    x = parts[0]
    return np.concatenate([x[0], *(x[0] - x[j] for j in range(1, len(x)))])


def _ordering(parts: Sequence[np.ndarray]) -> np.ndarray:
    x = parts[0]
    return np.concatenate([x[0], x[1], x[0] - x[1]])


def _concatenated(parts: Sequence[np.ndarray]) -> np.ndarray:
    return np.concatenate(list(parts[0]))


def _first(parts: Sequence[np.ndarray]) -> np.ndarray:
    return parts[0][0]


def _mean(parts: Sequence[np.ndarray]) -> np.ndarray:
    return parts[0].mean(axis=0)


def _relation(parts: Sequence[np.ndarray]) -> np.ndarray:
    left, right = parts[0].mean(axis=0), parts[1].mean(axis=0)
    return np.concatenate([left, right, left * right, np.abs(left - right)])


SCHEMES: dict[str, Scheme] = {
    "sentence_position": _position,
    "binary_sentence_ordering": _ordering,
    "discourse_coherence": _concatenated,
    "sentence_section": _first,
    "discourse_relations": _relation,
}


def row_parts(cols: dict[str, list[Any]], level: str, i: int) -> tuple[tuple[Item, ...], ...]:
    """Row ``i``'s texts as items, grouped in its parts (``sentences``; ``left``, ``right``)."""
    names = ("left", "right") if level == "discourse-relation" else ("sentences",)
    return tuple(tuple(Item(str(t)) for t in cols[n][i]) for n in names)


def scheme_for(task: str, level: str, widths: set[tuple[int, ...]]) -> Scheme:
    """The feature scheme of a config: its task's, else by level and row shape."""
    base = task.split(".")[0]
    if base in SCHEMES:
        return SCHEMES[base]
    if level == "discourse-relation":
        return _relation
    return _concatenated if len(widths) == 1 else _mean


def discourse_features(
    cfg: Any, encoder: Encoder, cache: EmbeddingCache, batch_size: int, progress: Any
) -> tuple[dict[int | None, dict[str, np.ndarray]], dict[str, int]]:
    """Features per layer per split (DiscoEval's, see the module table), and cache hits and
    misses over the unique texts; the same contract as the evaluation's other levels."""
    rows = {
        s: [row_parts(cfg.rows[s], cfg.level, i) for i in range(cfg.size(s))] for s in cfg.splits
    }
    for s, split_rows in rows.items():
        for i, row in enumerate(split_rows):
            if any(not part for part in row):
                raise ValueError(f"{cfg.config}/{s}: row {i} has an empty list of texts")
    widths = {tuple(len(p) for p in row) for s in cfg.splits for row in rows[s]}
    scheme = scheme_for(cfg.task, cfg.level, widths)
    flat = [it for s in cfg.splits for row in rows[s] for part in row for it in part]
    callback = progress.update if progress is not None else None
    if progress is not None:
        progress.reset(total=len(dict.fromkeys(flat)))
        progress.set_description(f"encode {encoder.id[:40]}")
    vectors, stats = encode_cached(encoder, flat, cache, batch_size, progress=callback)
    out: dict[int | None, dict[str, np.ndarray]] = {}
    for layer, mat in vectors.items():
        out[layer] = {}
        start = 0
        for s in cfg.splits:
            feats = []
            for row in rows[s]:
                parts = []
                for part in row:
                    parts.append(np.asarray(mat[start : start + len(part)], dtype=np.float32))
                    start += len(part)
                feats.append(scheme(parts))
            out[layer][s] = (
                np.stack(feats).astype(np.float32) if feats else np.zeros((0, 1), np.float32)
            )
    return out, {"hits": stats.hits, "misses": stats.misses}


def discoeval_preset() -> ProbeSpec:
    """DiscoEval's classifier as its code runs it (Chen et al. 2019; ``discoeval_example.py``
    and ``tools/validation.py``): SentEval's PyTorch MLP with ``nhid=0`` (a logistic
    regression trained by Adam, batch 64, tenacity 5, epoch_size 4, raw features, seed 1111),
    its L2 chosen on validation from 10^-5 … 10^-2 by the rounded accuracy. The
    ``senteval-mlp`` trainer, so the two presets share one implementation of that loop."""
    base = get_probe("senteval-mlp")
    params = {**base.params, "hidden": 0, "dropout": 0.0}
    return ProbeSpec(DISCOEVAL, "mlp", params, {"l2reg": list(SENTEVAL_L2)})


def probe_for_config(spec: ProbeSpec, task: str) -> ProbeSpec:
    """``spec`` itself, unless it is the ``discoeval`` preset: then what DiscoEval's task class
    changes for ``task``. Discourse coherence (``DCEval``): 2,000 hidden units, tenacity 8,
    epoch_size 15 and no L2 (``noreg``: the one value 1e-9); sentence section prediction
    (``SSPEval``): no L2."""
    if spec.name != DISCOEVAL:
        return spec
    name = task.split(".")[0]
    if name == "discourse_coherence":
        params = {**spec.params, "hidden": DC_HIDDEN, "tenacity": 8, "epoch_size": 15}
        return replace(spec, params=params, grid={"l2reg": [NO_L2]})
    if name == "sentence_section":
        return replace(spec, params=dict(spec.params), grid={"l2reg": [NO_L2]})
    return spec
