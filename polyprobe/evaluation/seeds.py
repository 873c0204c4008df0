"""What an evaluation seed varies, so that ``--seeds N`` repeats only what can differ.

A repetition is worth its cost only when something in it is random. Given a seed, the
evaluation can vary exactly three things (and the control task a fourth):

- ``folds``: the group-aware fold assignment (``protocols.group_kfold`` orders components by
  blake2b of the seed). It is drawn by the pooled-CV protocol (no test split, or a probe that
  forces ``cv``), and by the inner k-fold on train (a test split but no validation split) when
  that inner split selects among several grid points or holds out an early-stopping fold. The
  ``split`` protocol (train / validation / test) draws no folds.
- ``probe-init``: the probe's initialisation and minibatch order (the MLP presets). Logistic
  regression is a convex problem solved by full-batch L-BFGS from a fixed start: given its
  inputs, its answer does not depend on the seed.
- ``encoder-vectors``: the vectors of the random baselines (``random``, ``borep``), whose
  seed follows the evaluation seed unless the spec pins it (``random?seed=7``).
- ``control-labels``: the control task's labels are redrawn for every seed (``controls.py``),
  so the control is repeated whatever the probe does.

When none of the first three applies, every seed would produce the identical fit (and a
``± 0.000`` that says nothing): the evaluation fits once and records why. Whether a probe is
deterministic given its inputs is the probe's own property: :func:`probe_is_seeded` asks
``probes.py`` for it (a ``deterministic`` attribute of the preset, or an ``is_deterministic``
function) and falls back to the table below, keyed by preset name, then by kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polyprobe.evaluation import probes
from polyprobe.evaluation.probes import ProbeSpec

FOLDS, PROBE_INIT, ENCODER_VECTORS, CONTROL_LABELS = (
    "folds",
    "probe-init",
    "encoder-vectors",
    "control-labels",
)
DESCRIPTIONS = {
    FOLDS: "fold assignment",
    PROBE_INIT: "probe initialisation and batch order",
    ENCODER_VECTORS: "random encoder vectors",
    CONTROL_LABELS: "control-task labels",
}

# Whether a preset's fit depends on the seed, given its inputs (probes.py exposes nothing).
SEEDED_PRESETS = {
    "lr": False,
    "mlp": True,
    "senteval-mlp": True,
    "linspector": True,
    "wehner": True,
    "discoeval": True,
}
SEEDED_KINDS = {"lr": False, "mlp": True}


def probe_is_seeded(spec: ProbeSpec) -> bool:
    """True when the probe's fit depends on the seed given the same inputs."""
    flag = getattr(spec, "deterministic", None)
    if isinstance(flag, bool):
        return not flag
    ask = getattr(probes, "is_deterministic", None)
    if callable(ask):
        return not bool(ask(spec))
    if spec.name in SEEDED_PRESETS:
        return SEEDED_PRESETS[spec.name]
    return SEEDED_KINDS.get(spec.kind, True)  # unknown kinds: assume randomness, repeat


def protocol_kind(spec: ProbeSpec, splits: Sequence[str]) -> str:
    """``cv`` (pooled outer folds), ``inner-kfold`` (test split, selection inside train) or
    ``split`` (train / validation / test), as ``protocols.run_protocol`` decides."""
    if spec.protocol == "cv" or "test" not in splits:
        return "cv"
    return "split" if "validation" in splits else "inner-kfold"


def draws_folds(spec: ProbeSpec, splits: Sequence[str]) -> bool:
    kind = protocol_kind(spec, splits)
    if kind == "cv":
        return True
    if kind == "inner-kfold":
        early_stop = spec.kind == "mlp" and bool(spec.params.get("early_stopping", True))
        return len(spec.grid_points()) > 1 or early_stop
    return False


def variance_sources(spec: ProbeSpec, splits: Sequence[str], encoder: Any) -> list[str]:
    """The sources of variance a repetition of the probe covers (empty: fit once)."""
    if getattr(encoder, "is_majority", False):
        return []  # the train majority reads no input and fits nothing
    out = []
    if draws_folds(spec, splits):
        out.append(FOLDS)
    if probe_is_seeded(spec):
        out.append(PROBE_INIT)
    if getattr(encoder, "varies_with_seed", False):
        out.append(ENCODER_VECTORS)
    return out


def describe(sources: Sequence[str]) -> str:
    return ", ".join(DESCRIPTIONS.get(s, s) for s in sources)


def repetitions_block(
    requested: list[int], fitted: list[int], sources: list[str], spec: ProbeSpec, encoder: Any
) -> dict[str, Any]:
    """The result's ``repetitions`` block: which seeds were asked for, which were fitted, what
    they varied, in words."""
    if getattr(encoder, "is_majority", False):
        note = "the train-majority baseline reads no input: nothing varies, fitted once"
    elif sources:
        note = f"each seed varies: {describe(sources)}"
    else:
        note = (
            f"nothing varies across seeds ({spec.name} is deterministic given its inputs, the "
            "encoder is deterministic and the protocol draws no folds): fitted once"
        )
    return {
        "requested": list(requested),
        "fitted": list(fitted),
        "varies": list(sources),
        "note": note,
    }
