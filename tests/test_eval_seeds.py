"""Repetitions that mean something (issue 16, point 2) and each result's own runtime (point 4).

A seed varies the fold assignment (k-fold protocols), the MLP's initialisation and batch
order, and the random encoders' vectors; when none applies the probe is fitted once and the
result says so. Hand-checked on TREC's real train questions: the k-fold assignment of the
inner cross-validation differs between seeds, and a question's duplicates stay in one fold.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from polyprobe.evaluation import api, evaluate, protocols
from polyprobe.evaluation.data import load_config, read_card
from polyprobe.evaluation.encoders import Encoder, Item, build_encoder
from polyprobe.evaluation.probes import get_probe
from polyprobe.evaluation.seeds import variance_sources
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``split``: train/validation/test; ``kfold``: train/test (inner k-fold on train)."""
    root = tmp_path_factory.mktemp("seeds")
    return write_folder(
        root / "toy",
        {
            "split": {
                "train": toy_sentences(200, prefix="tr"),
                "validation": toy_sentences(60, prefix="va"),
                "test": toy_sentences(60, prefix="te"),
            },
            "kfold": {
                "train": toy_sentences(200, separable=False, prefix="tr"),
                "test": toy_sentences(60, separable=False, prefix="te"),
            },
        },
        {"split": ["no", "yes"], "kfold": ["a", "b"]},
        {"split": "sentence", "kfold": "sentence"},
    )


class _Spy:
    """Counts fits (main probe and control alike: one per label set given to
    ``run_protocols``) by seed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.seeds: list[int] = []
        real = api.run_protocols

        def spy(spec, data, label_sets, n_classes, seed, folds=5):
            self.seeds += [seed] * len(label_sets)
            return real(spec, data, label_sets, n_classes, seed, folds)

        monkeypatch.setattr(api, "run_protocols", spy)


def test_a_deterministic_setup_fits_once_and_says_so(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lr + char-ngrams + train/validation/test: the three seeds used to be three identical
    fits printed as ``± 0.000``. Now one fit, the result says why, and the control task (its
    labels are redrawn per seed) still runs for each seed."""
    spy = _Spy(monkeypatch)
    (r,) = evaluate(
        str(toy), config="split", encoders=["char-ngrams?dim=64"], seeds=3, cache=tmp_path
    )
    assert spy.seeds == [0, 0, 1, 2]  # one main fit (seed 0), then a control fit per seed
    assert r["seeds"] == [0]
    reps = r["repetitions"]
    assert reps["requested"] == [0, 1, 2] and reps["fitted"] == [0] and reps["varies"] == []
    assert "fitted once" in reps["note"] and "deterministic" in reps["note"]
    acc = r["metrics"]["accuracy"]
    assert acc["std"] is None and len(acc["per_seed"]) == 1
    assert len(r["probe"]["chosen"]) == 1
    ctl = r["control"]["repetitions"]
    assert ctl["fitted"] == [0, 1, 2] and ctl["varies"] == ["control-labels"]
    assert len(r["control"]["accuracy"]["per_seed"]) == 3
    # The claim holds: another seed gives the identical fit.
    (other,) = evaluate(
        str(toy), config="split", encoders=["char-ngrams?dim=64"], seeds=[7], cache=tmp_path
    )
    assert other["metrics"]["accuracy"]["per_seed"] == acc["per_seed"]
    assert other["probe"]["chosen"][0]["C"] == r["probe"]["chosen"][0]["C"]


def test_kfold_protocol_varies_the_fold_assignment(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[int, int, np.ndarray]] = []
    real = protocols.group_kfold

    def spy(groups, keys, k, seed):
        out = real(groups, keys, k, seed)
        calls.append((len(groups), seed, out))
        return out

    monkeypatch.setattr(protocols, "group_kfold", spy)
    (r,) = evaluate(
        str(toy), config="kfold", encoders=["char-ngrams?dim=64"], seeds=2, cache=tmp_path
    )
    assert r["protocol"] == "kfold"
    assert r["repetitions"]["varies"] == ["folds"] and r["seeds"] == [0, 1]
    assert {c["seed"] for c in r["probe"]["chosen"]} == {0, 1}
    assert r["metrics"]["accuracy"]["std"] is not None
    inner = {seed: folds for n, seed, folds in calls if n == 200}
    assert set(inner) == {0, 1}
    assert (inner[0] != inner[1]).mean() > 0.5  # most rows change fold between seeds


def test_random_encoder_vectors_follow_the_seed(toy: Path, tmp_path: Path) -> None:
    enc = build_encoder("random?dim=8")
    assert enc.varies_with_seed and "seed" not in enc.id
    items = [Item("zebra w1", ("zebra", "w1"))]
    v0, v1 = enc.for_seed(0).encode(items)[None], enc.for_seed(1).encode(items)[None]
    assert not np.allclose(v0, v1)
    pinned = build_encoder("random?dim=8&seed=0")  # the vectors it always gave
    assert not pinned.varies_with_seed and pinned.id.endswith("seed=0")
    assert np.array_equal(pinned.encode(items)[None], v0)
    assert pinned.for_seed(5) is pinned
    borep = build_encoder("borep?dim=16&in_dim=8")
    assert not np.allclose(
        borep.for_seed(0).encode(items)[None], borep.for_seed(1).encode(items)[None]
    )

    (r,) = evaluate(str(toy), config="split", encoders=["random?dim=4"], seeds=2, cache=tmp_path)
    assert r["repetitions"]["varies"] == ["encoder-vectors"] and r["seeds"] == [0, 1]
    per_seed = r["metrics"]["accuracy"]["per_seed"]
    assert per_seed[0] != per_seed[1]  # 4 random dimensions: the draw matters
    (p,) = evaluate(
        str(toy), config="split", encoders=["random?dim=4&seed=3"], seeds=2, cache=tmp_path
    )
    assert p["repetitions"]["varies"] == [] and p["seeds"] == [0]


def test_mlp_varies_its_initialisation(toy: Path, tmp_path: Path) -> None:
    (r,) = evaluate(
        str(toy),
        config="split",
        encoders=["char-ngrams?dim=64"],
        probe="linspector",
        seeds=2,
        n_boot=50,
        cache=tmp_path,
    )
    assert r["repetitions"]["varies"] == ["probe-init"] and r["seeds"] == [0, 1]


@pytest.mark.parametrize(
    ("probe", "splits", "encoder", "expected"),
    [
        ("lr", ("train", "validation", "test"), "char-ngrams", []),
        ("lr", ("train", "test"), "char-ngrams", ["folds"]),  # C chosen by inner k-fold
        ("lr", ("train", "validation"), "char-ngrams", ["folds"]),  # pooled CV
        ("lr", ("train", "validation", "test"), "random", ["encoder-vectors"]),
        ("lr", ("train", "validation", "test"), "random?seed=1", []),
        ("lr", ("train", "validation", "test"), "borep", ["encoder-vectors"]),
        ("mlp", ("train", "validation", "test"), "char-ngrams", ["probe-init"]),
        ("linspector", ("train", "test"), "char-ngrams", ["folds", "probe-init"]),  # early stop
        ("wehner", ("train", "validation", "test"), "char-ngrams", ["folds", "probe-init"]),
        ("mlp", ("train", "test"), "majority", []),
    ],
)
def test_variance_sources_table(
    probe: str, splits: Sequence[str], encoder: str, expected: list[str]
) -> None:
    assert variance_sources(get_probe(probe), splits, build_encoder(encoder)) == expected


def test_trec_inner_folds_differ_across_seeds_and_keep_duplicates_together(
    data_dir: Path, tmp_path: Path
) -> None:
    """Real data: TREC coarse has train and test but no validation split, so ``lr`` picks C by
    k-fold inside train. Seeds 0 and 1 assign the 5,442 train questions to different folds,
    and the 72 train copies of a question stay in their first occurrence's fold (they share
    its group)."""
    from polyprobe import build_trec

    folder = build_trec(data_dir / "trec", out=tmp_path / "trec", seed=0).out
    cfg = load_config(str(folder), "coarse", None, read_card(str(folder), None))
    assert cfg.splits == ["train", "test"] and cfg.size("train") == 5442
    spec = get_probe("lr")
    assert variance_sources(spec, cfg.splits, build_encoder("char-ngrams")) == ["folds"]
    groups, keys = cfg.groups("train"), cfg.keys("train")
    f0 = protocols.group_kfold(groups, keys, 5, 0)
    f1 = protocols.group_kfold(groups, keys, 5, 1)
    assert sorted(set(f0.tolist())) == sorted(set(f1.tolist())) == [0, 1, 2, 3, 4]
    assert (f0 != f1).mean() > 0.6  # ~4/5 of the questions move when folds are redrawn
    ids = cfg.rows["train"]["id"]
    copies = [i for i, (rid, g) in enumerate(zip(ids, groups, strict=True)) if rid != g]
    assert len(copies) == 72
    first = {g: i for i, g in enumerate(groups) if ids[i] == g}
    for i in copies:
        assert f0[i] == f0[first[groups[i]]] and f1[i] == f1[first[groups[i]]]


# ------------------------------------------------------------------------------ runtime


class _Slow(Encoder):
    """Takes ``delay`` seconds per encode call; two layers when ``layers`` says so."""

    kind = "slow"

    def __init__(self, delay: float, layers: list[int | None]):
        super().__init__(f"slow-{delay}-{len(layers)}")
        self.name = self.spec
        self.delay = delay
        self.layers = layers
        self.cacheable = False

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict:
        time.sleep(self.delay)
        base = np.array([[float("zebra" in it.text), len(it.text)] for it in items], np.float32)
        return {la: base + (0 if la is None else la) for la in self.layers}


def test_runtime_is_each_results_own_time(toy: Path, tmp_path: Path) -> None:
    """The second job's total used to count from the command's start (543.7 s for a job of
    0.8 s): here a slow first encoder made the majority baseline's total exceed a second."""
    results = evaluate(
        str(toy),
        config="split",
        encoders=[_Slow(1.0, [None]), "majority", _Slow(0.6, [0, 1])],
        seeds=1,
        n_boot=50,
        cache=tmp_path,
    )
    slow, maj, *layers = results
    for r in results:
        rt = r["runtime_seconds"]
        assert rt["total"] == pytest.approx(rt["encode"] + rt["probe"], abs=0.002)
    assert slow["runtime_seconds"]["encode"] >= 1.0
    assert maj["runtime_seconds"]["total"] < 0.9  # its own time, not the slow encoder's
    assert [r["encoder"]["layer"] for r in layers] == [0, 1]
    for r in layers:  # one encoding pass for both layers: each carries half of it
        rt = r["runtime_seconds"]
        assert rt["encode_shared_by"] == 2 and rt["encode_pass"] >= 0.6
        assert rt["encode"] == pytest.approx(rt["encode_pass"] / 2, abs=0.002)
        assert rt["total"] < rt["encode_pass"] + rt["probe"]
