"""Control tasks (Hewitt & Liang 2019) and the majority baseline.

A control task gives every *key* (a word type in H&L) a random label drawn from the task's
train label distribution; a probe can only solve it by memorising key → label from the
representation. Selectivity = task accuracy − control accuracy. The key must recur across the
train/test boundary, otherwise control accuracy is chance by construction and selectivity is
meaningless; then the result says ``{"status": "not applicable", "reason": ...}``.

Which key (only published columns can be used; evaluation never sees builder internals):

1. a column named by the card (``control_key: <column>`` in the config's polyprobe block);
2. a ``lemma`` column, when there is one (H&L's choice for type-level word tasks);
3. the ``lexical_key`` when the dataset fills it: it is the word the task is about (e.g. the
   subject of ``subject_number``), the natural H&L key. Published configs keep it inside one
   split, so this usually ends as "not applicable" — correctly: lexically disjoint splits *are*
   the control, and a number computed from some other key would not answer H&L's question;
4. otherwise by level: word → the casefolded word; word in context → the casefolded target
   token (H&L's setting exactly); word pair → the casefolded pair; sentence (and the first
   sentence of a pair) → the **casefolded first two non-punctuation tokens** ("first bigram").

Why the first bigram for sentences: the root lemma and the perturbation site that the issue
suggests are not in the published schema; the text itself is. The key must be a deterministic
function of the input, recur across splits (many sentences start alike: "i have", "this is"),
and have a Zipfian inventory of thousands of types like words do. A single first word has too
few types (a handful cover most of EWT), which would make the control task nearly a majority
task and selectivity uninformatively high; whole sentences almost never recur. The bigram sits
between the two. It is recorded as ``control.key = "first-bigram"`` with the share of test rows
whose key was seen in training (``test_key_coverage``).

Control labels are redrawn for each evaluation seed (blake2b of seed and key), so the control
accuracy's spread includes the randomness of the control task itself.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.evaluation.data import LoadedConfig
from polyprobe.evaluation.protocols import components
from polyprobe.evaluation.stats import accuracy_summary
from polyprobe.hashing import stable_rng


def _is_punct(token: str) -> bool:
    return bool(token) and all(
        unicodedata.category(ch).startswith("P") or ch.isspace() for ch in token
    )


def first_bigram(tokens: tuple[str, ...]) -> str:
    words = [t.casefold() for t in tokens if not _is_punct(t)][:2]
    return " ".join(words)


def control_key_name(cfg: LoadedConfig) -> str:
    named = cfg.block.get("control_key")
    if isinstance(named, str) and named in cfg.columns:
        return named
    if "lemma" in cfg.columns:
        return "lemma"
    if any(any(v for v in cfg.keys(s)) for s in cfg.splits):
        return "lexical_key"
    return {
        "word": "word",
        "word-in-context": "target-form",
        "arc": "target-form",  # the dependent's form
        "word-pair": "word-pair",
    }.get(cfg.level, "first-bigram")


def control_keys(cfg: LoadedConfig, split: str, name: str) -> np.ndarray:
    """The control key of every row of ``split``."""
    if name == "lexical_key":
        return cfg.keys(split)
    cols = cfg.rows[split]
    if name in cols and name not in ("word", "lexical_key"):
        return np.asarray([str(v).casefold() for v in cols[name]], dtype=object)
    out: list[str] = []
    for row in cfg.items(split):
        item = row[0]
        tokens = item.token_list()
        if name == "word":
            out.append(item.text.casefold())
        elif name == "target-form":
            t = item.target if item.target is not None else -1
            out.append(tokens[t].casefold() if 0 <= t < len(tokens) else "")
        elif name == "word-pair":
            out.append("\t".join(it.text.casefold() for it in row))
        else:
            out.append(first_bigram(tokens))
    return np.asarray(out, dtype=object)


def coverage(train_keys: np.ndarray, eval_keys: np.ndarray) -> float:
    seen = set(train_keys.tolist())
    return float(np.mean([k in seen for k in eval_keys])) if len(eval_keys) else 0.0


def cv_coverage(keys: np.ndarray, components: np.ndarray) -> float:
    """Share of rows whose key also occurs in another fold component (pooled CV protocol)."""
    where: dict[str, set[int]] = {}
    for k, c in zip(keys, components, strict=True):
        where.setdefault(k, set()).add(int(c))
    return float(np.mean([len(where[k]) > 1 for k in keys])) if len(keys) else 0.0


def control_labels(
    keys: dict[str, np.ndarray], train_labels: np.ndarray, n_classes: int, seed: int
) -> dict[str, np.ndarray]:
    """One label per key, drawn from the train label distribution (stable across processes)."""
    dist = np.bincount(train_labels, minlength=n_classes).astype(float)
    cdf = np.cumsum(dist / dist.sum())
    table: dict[str, int] = {}
    for k in sorted({str(x) for arr in keys.values() for x in arr}):
        r = stable_rng("control", seed, k).random()
        table[k] = int(min(np.searchsorted(cdf, r, side="right"), n_classes - 1))
    return {s: np.asarray([table[str(k)] for k in arr], dtype=np.int64) for s, arr in keys.items()}


def not_applicable(reason: str, key: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "not applicable", "reason": reason}
    if key:
        out["key"] = key
    return out


@dataclass
class ControlPlan:
    """The control task of one config, set up once for all its encoders and layers: the key,
    its coverage, and (drawn on first use) each seed's control labels. ``skip`` is the
    result's ``control`` block when no control applies."""

    name: str
    keys: dict[str, np.ndarray]
    coverage: float
    skip: dict[str, Any] | None = None
    _labels: dict[int, dict[str, np.ndarray]] = field(default_factory=dict)

    def labels(self, cfg: LoadedConfig, seed: int) -> dict[str, np.ndarray]:
        if seed not in self._labels:
            train = cfg.labels("train")
            self._labels[seed] = control_labels(self.keys, train, len(cfg.label_names), seed)
        return self._labels[seed]

    def block(
        self,
        pairs: list[tuple[np.ndarray, np.ndarray]],
        task_accuracy: float,
        tag: str,
        n_boot: int,
        repetitions: dict[str, Any],
        groups: np.ndarray | None = None,
    ) -> dict[str, Any]:
        """The result's ``control`` block from each seed's (gold control labels, predictions);
        its CI resamples the scored rows' ``groups`` as the task's does."""
        acc = accuracy_summary(pairs, "control|" + tag, n_boot, groups)
        return {
            "key": self.name,
            "test_key_coverage": round(self.coverage, 6),
            "accuracy": acc,
            "selectivity": round(task_accuracy - acc["mean"], 6),
            "repetitions": repetitions,
        }


def plan_control(
    cfg: LoadedConfig,
    forced_cv: bool,
    groups: dict[str, np.ndarray],
    lexical_keys: dict[str, np.ndarray],
) -> ControlPlan:
    """Choose the key and measure its coverage: train → test under a test split, across fold
    components under pooled CV (``forced_cv``: the probe forces cross-validation)."""
    name = control_key_name(cfg)
    keys = {s: control_keys(cfg, s, name) for s in cfg.splits}
    if "test" in cfg.splits and not forced_cv:
        cov = coverage(keys["train"], keys["test"])
        where = "train and test"
    else:
        pooled = np.concatenate([keys[s] for s in cfg.splits])
        comp = components(
            np.concatenate([groups[s] for s in cfg.splits]),
            np.concatenate([lexical_keys[s] for s in cfg.splits]),
        )
        cov = cv_coverage(pooled, comp)
        where = "cross-validation folds"
    if cov == 0.0:
        reason = (
            f"no control key ({name}) recurs across {where}: the splits are disjoint on it, "
            "so control accuracy would be chance by construction"
        )
        return ControlPlan(name, keys, cov, not_applicable(reason, name))
    return ControlPlan(name, keys, cov)
