"""``evaluate(...)``: datasets × configs × encoders × layers → results (dicts and JSON files).

The datasets and their configs are planned first (``plan.py``): each config goes to the path
its card block names — probing (below), scored sentence pairs (``scored_pairs.py``) or lexical
(``lexical/``) — and the encoders are resolved once for the whole plan.

Order of work, chosen so that nothing is encoded twice: per config, per encoder, every unique
item (text, tokens, target) of every split is encoded once for all layers (through the disk
cache for encoders worth caching); then per layer, per seed, the probe and its control task are
trained on those features. Pair levels use SentEval's features [u, v, |u−v|, u∗v].

Seeds repeat only what varies (``seeds.py``): a deterministic probe on a deterministic encoder
under the split protocol is fitted once; a random encoder (``random``, ``borep``) is encoded
again per seed with that seed's vectors. The control task is repeated for every seed asked for
(its labels are redrawn per seed). Before a config is loaded, results already under ``out``
from an equal job (``results.reusable_result``) are read back instead of recomputed, so a
re-run skips them and an interrupted run resumes where it stopped (``force`` recomputes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import UsageError
from polyprobe.evaluation import controls, discourse
from polyprobe.evaluation.cache import EmbeddingCache, encode_cached
from polyprobe.evaluation.data import LoadedConfig, dataset_revision, load_config
from polyprobe.evaluation.diagnostics import probe_warnings
from polyprobe.evaluation.encoders import Encoder, build_encoder, check_device
from polyprobe.evaluation.heads import pair_representation
from polyprobe.evaluation.logreg import probe_threads
from polyprobe.evaluation.plan import (
    LEXICAL,
    PROBING,
    SCORED,
    DatasetPlan,
    applies,
    count_jobs,
    dataset_name,
    plan_datasets,
    skipped,
)
from polyprobe.evaluation.probes import ProbeSpec, get_probe
from polyprobe.evaluation.protocols import SplitArrays, majority_outcome, run_protocols
from polyprobe.evaluation.results import (
    dataset_identity,
    job_block,
    library_versions,
    provenance,
    result_path,
    reusable_result,
    write_result,
)
from polyprobe.evaluation.scratch import torch_scratch
from polyprobe.evaluation.seeds import (
    CONTROL_LABELS,
    ENCODER_VECTORS,
    repetitions_block,
    variance_sources,
)
from polyprobe.evaluation.stats import summarise

EncoderLike = str | Encoder | Callable[[list[str]], Any]


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's pair representation."""
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1).astype(np.float32)


def _features(
    cfg: LoadedConfig, encoder: Encoder, cache: EmbeddingCache, batch_size: int, progress: Any
) -> tuple[dict[int | None, dict[str, np.ndarray]], dict[str, int]]:
    """Features per layer per split, and cache hits/misses over the unique items."""
    if cfg.level in discourse.DISCOURSE_LEVELS:  # DiscoEval's features per task
        return discourse.discourse_features(cfg, encoder, cache, batch_size, progress)
    per_split = {s: cfg.items(s) for s in cfg.splits}
    flat = [it for s in cfg.splits for row in per_split[s] for it in row]
    callback = progress.update if progress is not None else None
    if progress is not None:
        progress.reset(total=len(dict.fromkeys(flat)))
        progress.set_description(f"encode {encoder.id[:40]}")
    vectors, stats = encode_cached(encoder, flat, cache, batch_size, progress=callback)
    out: dict[int | None, dict[str, np.ndarray]] = {}
    width = len(per_split[cfg.splits[0]][0]) if per_split[cfg.splits[0]] else 1
    for layer, mat in vectors.items():
        out[layer] = {}
        start = 0
        for s in cfg.splits:
            n = len(per_split[s]) * width
            block = mat[start : start + n]
            start += n
            if width == 2:  # the card may name the pair representation (heads.py)
                kind = str(cfg.block.get("pair_features") or "senteval")
                out[layer][s] = pair_representation(block[0::2], block[1::2], kind)
            else:
                out[layer][s] = block
    return out, {"hits": stats.hits, "misses": stats.misses}


def run_lexical(
    plan: DatasetPlan,
    names: list[str],
    encoders: Sequence[Encoder],
    store: EmbeddingCache,
    out: str | Path | None,
    revision: str | None,
    cache_dir: str | Path | None,
    batch_size: int,
    on_result: Callable[[dict[str, Any]], None],
    top_n: int | None,
    force: bool,
) -> None:
    """Lexical configs (``task_type: lexical``) go to :mod:`polyprobe.evaluation.lexical`,
    through the same embedding cache as the probing configs."""
    from polyprobe.evaluation.lexical import evaluate_lexical

    evaluate_lexical(
        plan.source,
        names,
        encoders,
        out=out,
        revision=revision,
        cache_dir=cache_dir,
        batch_size=batch_size,
        top_n=top_n,
        on_result=on_result,
        force=force,
        cache=store,
    )


def run_scored_pairs(
    plan: DatasetPlan,
    names: list[str],
    encs: list[Encoder],
    store: EmbeddingCache,
    out: str | Path | None,
    revision: str | None,
    cache_dir: str | Path | None,
    batch_size: int,
    seed: int,
    on_result: Callable[[dict[str, Any]], None],
    force: bool,
) -> None:
    """Scored sentence-pair configs go to :mod:`polyprobe.evaluation.scored_pairs`."""
    from polyprobe.evaluation.scored_pairs import evaluate_scored_pairs

    evaluate_scored_pairs(
        plan.source, names, encs, plan.card, store, out=out, revision=revision,
        cache_dir=cache_dir, batch_size=batch_size, seed=seed, on_result=on_result,
        force=force,
    )  # fmt: skip


def evaluate(
    dataset: str | Path | Sequence[str | Path],
    config: str | list[str] | None = None,
    encoders: Sequence[EncoderLike] = ("random",),
    probe: str | ProbeSpec = "lr",
    seeds: int | Sequence[int] = 3,
    out: str | Path | None = None,
    revision: str | None = None,
    cache: str | Path | EmbeddingCache | None = None,
    cache_dir: str | Path | None = None,
    device: str | None = None,
    batch_size: int = 32,
    folds: int = 5,
    n_boot: int = 1000,
    progress: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    force: bool = False,
    top_n: int | None = 200_000,
    extend_grid: int = 0,
    on_note: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Evaluate ``encoders`` on ``dataset`` (a folder or hub id, or a list of them); one
    result per dataset × config × encoder × layer. ``config``: None (each card's default), a
    name, a list, ``"all"`` or ``"recommended"`` (one config per task), applied to every
    dataset. Each config is scored as its card says (``plan.py``): probing configs by the
    probe, lexical ones by their own metrics, scored sentence pairs by cosine STS and the
    regression head; an encoder that does not apply to a config (the majority baseline on a
    lexical set) is left out of it, and ``on_note`` is told so once. ``seeds``: a count
    (seeds 0..N-1) or explicit seeds; a seed varies what ``seeds.py`` says (fold assignment,
    MLP initialisation and batch order, random encoder vectors), and when nothing would vary
    the probe is fitted once. Writes JSON files under ``out`` when given; a result already
    there from an equal job (same dataset fingerprint, config, encoder, layer, probe
    parameters, seeds) is read back instead of recomputed (marked ``resumed``), unless
    ``force``. ``cache``: the embedding cache (default ``$POLYPROBE_CACHE/embeddings``);
    ``cache_dir``: where ``datasets`` keeps a Hub dataset's Arrow files (default
    ``HF_DATASETS_CACHE``). A local folder is read in place and adds nothing to the datasets
    cache. ``top_n``: lexical configs' word space, the encoder's ``top_n`` most frequent words
    plus the dataset's (``evaluation.lexical``). ``extend_grid``: ``lr`` probes add up to that
    many C values beyond an edge of the grid when the chosen C lies on it
    (``protocols.extend_grid``; 0 keeps the grid and warns). ``progress``: one bar for the
    whole plan's jobs (dataset × config × encoder) and one for the texts being encoded."""
    with torch_scratch():  # torch's compile cache in a folder removed afterwards (scratch.py)
        return _evaluate(
            dataset, config, encoders, probe, seeds, out, revision, cache, cache_dir, device,
            batch_size, folds, n_boot, progress, on_result, force, top_n, extend_grid, on_note,
        )  # fmt: skip


def _evaluate(
    dataset: str | Path | Sequence[str | Path],
    config: str | list[str] | None,
    encoders: Sequence[EncoderLike],
    probe: str | ProbeSpec,
    seeds: int | Sequence[int],
    out: str | Path | None,
    revision: str | None,
    cache: str | Path | EmbeddingCache | None,
    cache_dir: str | Path | None,
    device: str | None,
    batch_size: int,
    folds: int,
    n_boot: int,
    progress: bool,
    on_result: Callable[[dict[str, Any]], None] | None,
    force: bool,
    top_n: int | None,
    extend_grid: int,
    on_note: Callable[[str], None] | None,
) -> list[dict[str, Any]]:
    if _is_downstream_model(probe):  # --probe tagger / parser: models, not probes
        return _evaluate_downstream_models(
            dataset, config, encoders, probe, seeds, out, revision, cache, cache_dir, device,
            batch_size, n_boot, on_result, force, on_note,
        )  # fmt: skip
    spec = discourse.discoeval_preset() if probe == discourse.DISCOEVAL else get_probe(probe)
    if extend_grid and spec.kind != "lr":
        raise UsageError(
            f"--extend-grid extends logistic regression's C grid (--probe lr); "
            f"--probe {spec.name} is an MLP, whose grid has no C to extend"
        )
    if extend_grid:  # recorded in the probe's params (and the job)
        spec.params["extend_grid"] = int(extend_grid)
    if device and device.startswith("cuda") and spec.device is None:
        spec.device = check_device(device)  # LR fits follow an explicit CUDA request (else CPU)
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list:
        raise UsageError("at least one seed is needed")
    if not encoders:
        raise UsageError("at least one encoder is needed")
    sources = [str(dataset)] if isinstance(dataset, (str, Path)) else [str(d) for d in dataset]
    if not sources:
        raise UsageError("at least one dataset is needed")
    plans = plan_datasets(sources, config, revision)
    store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)
    encs = [_built(e, device, store) for e in encoders]
    for note in skipped(plans, encs):
        if on_note is not None:
            on_note(note)
    results: list[dict[str, Any]] = []
    bars = _Bars(count_jobs(plans, encs) if progress else None)

    def finished(result: dict[str, Any]) -> None:
        results.append(result)
        bars.job_done(result)
        if on_result is not None:
            on_result(result)

    try:
        for plan in plans:
            probing = plan.of_kind(PROBING)
            if probing:
                run = _Run(
                    plan.source, revision, plan.card, spec, seed_list, folds, n_boot, store,
                    batch_size, out, finished,
                )  # fmt: skip
                run.bar = bars.text
                _run_probing(run, probing, encs, cache_dir, out is not None and not force)
            usable = [e for e in encs if applies(e, SCORED)]
            if plan.of_kind(SCORED) and usable:  # STS, SICK-R
                run_scored_pairs(
                    plan, plan.of_kind(SCORED), usable, store, out, revision, cache_dir,
                    batch_size, seed_list[0], finished, force,
                )  # fmt: skip
            usable = [e for e in encs if applies(e, LEXICAL)]
            if plan.of_kind(LEXICAL) and usable:  # scored by their own metrics: no probe
                run_lexical(
                    plan, plan.of_kind(LEXICAL), usable, store, out, revision, cache_dir,
                    batch_size, finished, top_n, force,
                )  # fmt: skip
    finally:
        bars.close()
        if not isinstance(cache, EmbeddingCache):
            store.close()
    return results


def _is_downstream_model(probe: Any) -> bool:
    from polyprobe.evaluation.downstream.run import DOWNSTREAM_PROBES, DownstreamSpec

    return isinstance(probe, DownstreamSpec) or probe in DOWNSTREAM_PROBES


def _evaluate_downstream_models(
    dataset, config, encoders, probe, seeds, out, revision, cache, cache_dir, device,
    batch_size, n_boot, on_result, force, on_note,
) -> list[dict[str, Any]]:  # noqa: ANN001
    """``--probe tagger|parser`` (``evaluation/downstream/``): the same plan, cache and
    results folder as the probes."""
    from polyprobe.evaluation.downstream.run import run_plans

    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list or not encoders:
        raise UsageError("at least one seed and one encoder are needed")
    sources = [str(dataset)] if isinstance(dataset, (str, Path)) else [str(d) for d in dataset]
    plans = plan_datasets(sources, config, revision)
    store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)
    results: list[dict[str, Any]] = []

    def finished(result: dict[str, Any]) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    try:
        encs = [_built(e, device, store) for e in encoders]
        run_plans(
            plans, encs, probe, seed_list, store, on_note, out=out, revision=revision,
            cache_dir=cache_dir, batch_size=batch_size, n_boot=n_boot, device=device,
            force=force, on_result=finished,
        )  # fmt: skip
    finally:
        if not isinstance(cache, EmbeddingCache):
            store.close()
    return results


def _built(e: EncoderLike, device: str | None, store: EmbeddingCache) -> Encoder:
    """An encoder resolved once for the whole plan (resolving may hash a model's files)."""
    enc = build_encoder(e)
    if hasattr(enc, "device_request"):
        enc.device_request = device
        if device and device != "auto":
            check_device(device)  # one line now, not torch's traceback at the first batch
    if hasattr(enc, "cache_root"):
        enc.cache_root = store.root
    return enc


class _Bars:
    """The run's progress: one bar over the plan's jobs, one over the texts being encoded
    (reset per encoder and config); nothing when ``total`` is None."""

    def __init__(self, total: int | None):
        self.jobs: Any = None
        self.text: Any = None
        if total is not None:
            from tqdm.auto import tqdm

            self.jobs = tqdm(total=total, unit="job", desc="evaluate", position=0)
            self.text = tqdm(total=0, unit="text", leave=False, position=1)
        self._seen: set[tuple[Any, ...]] = set()

    def job_done(self, result: dict[str, Any]) -> None:
        """Called per result; a job (dataset, config, encoder) gives one per layer."""
        enc = result.get("encoder") or {}
        key = ((result.get("dataset") or {}).get("id"), result.get("config"), enc.get("spec"))
        if self.jobs is not None and key not in self._seen:
            self._seen.add(key)
            self.jobs.update(1)

    def close(self) -> None:
        for b in (self.text, self.jobs):
            if b is not None:
                b.close()


def _run_probing(
    run: _Run, names: list[str], encs: list[Encoder], cache_dir: str | Path | None, reuse: bool
) -> None:
    """The probing configs of one dataset, config by config; a config whose every result can
    be read back is not even loaded."""
    for name in names:
        found = run.reusable(name, encs) if reuse else {}
        if all((i, la) in found for i, enc in enumerate(encs) for la in enc.layers):
            for i, enc in enumerate(encs):
                run.encoder(None, i, enc, found)  # every result read back: nothing loaded
            continue
        loaded = load_config(
            run.dataset, name, run.revision, run.card, cache_dir, run.dataset_revision()
        )
        cfg = _Config(loaded, run.spec_for(name), run.folds)
        for i, enc in enumerate(encs):
            run.encoder(cfg, i, enc, found)


class _Config:
    """One loaded config and what every encoder's evaluation of it shares: labels, groups,
    keys, the majority baseline and (set up on first use) the control task."""

    def __init__(self, cfg: LoadedConfig, spec: ProbeSpec, folds: int):
        self.cfg = cfg
        self.n_classes = len(cfg.label_names)
        self.groups = {s: cfg.groups(s) for s in cfg.splits}
        self.lex = {s: cfg.keys(s) for s in cfg.splits}
        self.labels = {s: cfg.labels(s) for s in cfg.splits}
        arrays = SplitArrays({}, self.labels, self.groups, self.lex)
        self.majority = majority_outcome(arrays, self.n_classes, spec, folds)
        pred = self.majority.majority_pred
        maj_label = int(np.bincount(pred, minlength=self.n_classes).argmax())
        self.majority_block = {
            "label": cfg.label_names[maj_label],
            "accuracy": round(float((self.majority.y_true == pred).mean()), 6),
        }
        self.spec = spec  # this config's probe (discourse.probe_for_config)
        self._plan: controls.ControlPlan | None = None

    def control_plan(self) -> controls.ControlPlan:
        if self._plan is None:
            self._plan = controls.plan_control(
                self.cfg, self.spec.protocol == "cv", self.groups, self.lex
            )
        return self._plan


class _Run:
    """The state of one ``evaluate`` call: settings, results so far, progress bars."""

    def __init__(
        self,
        dataset: str,
        revision: str | None,
        card: Any,
        spec: ProbeSpec,
        seeds: list[int],
        folds: int,
        n_boot: int,
        store: EmbeddingCache,
        batch_size: int,
        out: str | Path | None,
        on_result: Callable[[dict[str, Any]], None] | None,
    ):
        self.dataset, self.revision, self.card = dataset, revision, card
        self.spec, self.seeds, self.folds, self.n_boot = spec, seeds, folds, n_boot
        self.store, self.batch_size, self.out, self.on_result = store, batch_size, out, on_result
        self.versions = library_versions()
        self.bar: Any = None
        self._identity: dict[str, Any] | None = None
        self._revision: str | None = None

    # ---------------------------------------------------------------- resuming

    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            self._identity = dataset_identity(self.card, self.dataset_revision())
        return self._identity

    def dataset_revision(self) -> str:
        """Computed once per call (a local folder's is a hash of all its files)."""
        if self._revision is None:
            self._revision = dataset_revision(self.dataset, self.revision, self.card)
        return self._revision

    def spec_for(self, config: str) -> ProbeSpec:
        """The probe of one config: the preset, or DiscoEval's classifier for its task."""
        return discourse.probe_for_config(self.spec, config)

    def job(self, config: str, enc: Encoder, layer: int | None) -> dict[str, Any]:
        spec = self.spec_for(config)
        return job_block(
            self.identity(), config, enc.id, layer, spec, self.folds, self.seeds, self.n_boot
        )

    def path(self, config: str, enc: Encoder, layer: int | None) -> Path | None:
        if self.out is None:
            return None
        return result_path(self.out, self.dataset, config, enc.id, layer, self.spec_for(config).name)

    def reusable(self, config: str, encs: list[Encoder]) -> dict[tuple[int, Any], Any]:
        """Results under ``out`` from equal jobs, by (encoder index, layer)."""
        reuse = {}
        for i, enc in enumerate(encs):
            for layer in enc.layers:
                path = self.path(config, enc, layer)
                assert path is not None
                found = reusable_result(path, self.job(config, enc, layer))
                if found is not None:
                    reuse[(i, layer)] = (found, path)
        return reuse

    def emit(self, result: dict[str, Any], path: Path | None, reused: bool = False) -> None:
        if reused:
            result["resumed"] = True
        elif path is not None:
            write_result(path, result)
        if path is not None:
            result["path"] = str(path)
        if self.on_result is not None:
            self.on_result(result)

    # ---------------------------------------------------------------- one encoder

    def encoder(self, c: _Config | None, i: int, enc: Encoder, reuse: dict) -> None:
        """Every layer of ``enc`` on one config: read back where reusable, else computed.
        ``c`` is None only when every result is reused."""
        todo = [la for la in enc.layers if (i, la) not in reuse]
        if todo:
            assert c is not None
            work = _EncoderWork(self, c, enc, len(todo))
        for layer in enc.layers:
            if (i, layer) in reuse:
                self.emit(*reuse[(i, layer)], reused=True)
            else:
                result = work.layer(layer)
                self.emit(result, self.path(c.cfg.config, enc, layer))  # type: ignore[union-attr]


class _EncoderWork:
    """One encoder on one config: its features (encoded once for all layers, or per seed for
    a random encoder), then a result per layer."""

    def __init__(self, run: _Run, c: _Config, enc: Encoder, n_layers: int):
        self.run, self.c, self.enc, self.n_layers = run, c, enc, n_layers
        spec = c.spec
        self.sources = variance_sources(spec, c.cfg.splits, enc)
        self.fit_seeds = run.seeds if self.sources else run.seeds[:1]
        self.varying = ENCODER_VECTORS in self.sources
        self.cache_stats: dict[str, Any] = {"hits": 0, "misses": 0}
        self.shared: dict[int | None, dict[str, np.ndarray]] = {}
        t0 = time.perf_counter()
        if enc.is_majority:
            cfg = c.cfg
            self.shared = {None: {s: np.zeros((cfg.size(s), 1), np.float32) for s in cfg.splits}}
        elif not self.varying:
            self.shared, self.cache_stats = _features(
                c.cfg, enc, run.store, run.batch_size, run.bar
            )
        self.t_encode = time.perf_counter() - t0
        if not enc.cacheable or enc.is_majority:
            self.cache_stats["cached"] = False

    def _seed_features(self, seed: int, layer: int | None) -> tuple[dict[str, np.ndarray], float]:
        if not self.varying:
            return self.shared[layer], 0.0
        t0 = time.perf_counter()
        run = self.run
        by_layer, stats = _features(
            self.c.cfg, self.enc.for_seed(seed), run.store, run.batch_size, run.bar
        )
        self.cache_stats = {**stats, "cached": False}
        return by_layer[layer], time.perf_counter() - t0

    def layer(self, layer: int | None) -> dict[str, Any]:
        run, c, enc, spec = self.run, self.c, self.enc, self.c.spec
        cfg = c.cfg
        t1 = time.perf_counter()
        t_seed_encode = 0.0
        tag = f"{cfg.revision}|{cfg.config}|{enc.id}|{layer}|{spec.name}"
        preds: list[np.ndarray] = []
        chosen: list[dict[str, Any]] = []
        control_pairs: list[tuple[np.ndarray, np.ndarray]] = []
        y_true, protocol = c.majority.y_true, c.majority.protocol
        groups = c.majority.groups  # the scored rows' groups: the bootstrap resamples them
        plan = None if enc.is_majority else c.control_plan()
        if enc.is_majority:
            preds = [c.majority.majority_pred]
            chosen = [{"classifier": "train-majority"}]
        else:
            assert plan is not None
            for seed in run.seeds:  # the control task is repeated for every seed asked for
                feats, dt = self._seed_features(seed, layer)
                t_seed_encode += dt
                if run.bar is not None:
                    run.bar.set_description(f"probe {spec.name} seed {seed} layer {layer}")
                # The task and its control share features and folds: one call, which for
                # ``lr`` is one batched solve (protocols.run_protocols).
                fit_task, fit_control = seed in self.fit_seeds, plan.skip is None
                label_sets = [c.labels] if fit_task else []
                if fit_control:
                    label_sets.append(plan.labels(cfg, seed))
                if not label_sets:  # fitted once already, and no control task for this config
                    continue
                data = SplitArrays(feats, c.labels, c.groups, c.lex)
                outcomes = run_protocols(spec, data, label_sets, c.n_classes, seed, run.folds)
                if fit_task:
                    outcome = outcomes[0]
                    preds.append(outcome.y_pred)
                    chosen += [{"seed": seed, **rec} for rec in outcome.chosen]
                    y_true, protocol = outcome.y_true, outcome.protocol
                    groups = outcome.groups
                if fit_control:
                    c_out = outcomes[-1]
                    control_pairs.append((c_out.y_true, c_out.y_pred))
        metrics = summarise(y_true, preds, cfg.label_names, tag, run.n_boot, groups)
        if plan is None:
            control: dict[str, Any] = controls.not_applicable(
                "the majority baseline reads no input, so it has no control task"
            )
        elif plan.skip is not None:
            control = dict(plan.skip)
        else:
            reps = repetitions_block(
                run.seeds, run.seeds, [*self.sources, CONTROL_LABELS], spec, enc
            )
            control = plan.block(
                control_pairs, metrics["accuracy"]["mean"], tag, run.n_boot, reps, groups
            )
        runtime = self._runtime(time.perf_counter() - t1 - t_seed_encode, t_seed_encode)
        result = _assemble(
            cfg,
            enc,
            layer,
            spec,
            protocol,
            self.fit_seeds,
            metrics,
            c.majority_block,
            control,
            self.cache_stats,
            chosen,
            run.versions,
            run.folds,
            runtime,
        )
        if enc.is_majority:
            result["probe"]["params"] = {"classifier": "train-majority"}
            result["probe"]["grid"] = {}
        elif spec.device in (None, "cpu"):  # fits stopped at max_iter depend on it (logreg.py)
            result["probe"]["cpu_threads"] = probe_threads()
        result["repetitions"] = repetitions_block(
            run.seeds, self.fit_seeds, self.sources, spec, enc
        )
        result["job"] = run.job(cfg.config, enc, layer)
        result["warnings"] = [] if enc.is_majority else probe_warnings(spec, chosen)
        return result

    def _runtime(self, t_probe: float, t_seed_encode: float) -> dict[str, Any]:
        """This result's own time: its probe and control fits plus its share of encoding
        (an encoder's pass over the config is shared by the layers it returns)."""
        if self.varying:
            runtime: dict[str, Any] = {"encode": t_seed_encode, "probe": t_probe}
        else:
            runtime = {"encode": self.t_encode / self.n_layers, "probe": t_probe}
            if self.n_layers > 1:
                runtime["encode_pass"] = self.t_encode
                runtime["encode_shared_by"] = self.n_layers
        runtime["total"] = runtime["encode"] + runtime["probe"]
        return runtime


def _assemble(
    cfg: LoadedConfig,
    enc: Encoder,
    layer: int | None,
    spec: ProbeSpec,
    protocol: str,
    seeds: list[int],
    metrics: dict[str, Any],
    majority: dict[str, Any],
    control: dict[str, Any],
    cache_stats: dict[str, int],
    chosen: list[dict[str, Any]],
    versions: dict[str, str],
    folds: int,
    runtime: dict[str, Any],
) -> dict[str, Any]:
    pp = cfg.card.polyprobe
    pooling = getattr(enc, "pooling", None)
    if getattr(enc, "pool", None) and enc.kind == "borep":
        pooling = enc.pool
    probe = spec.describe()
    probe["chosen"] = chosen
    if spec.protocol:
        probe["params"]["protocol"] = spec.protocol
        probe["params"]["folds"] = spec.folds
    elif protocol == "kfold":  # the caller's k (outer folds, or inner folds on train): recorded
        probe["params"]["folds"] = folds
    return {
        "schema_version": 1,
        "dataset": {
            "id": cfg.dataset,
            "revision": cfg.revision,
            "fingerprint": pp.get("fingerprint"),
            "version": pp.get("version"),
            "languages": cfg.card.languages(),
            "name": dataset_name(cfg.dataset),
        },
        "config": cfg.config,
        "task": cfg.task,
        "level": cfg.level,
        "task_type": cfg.task_type,
        "split_sizes": {s: cfg.size(s) for s in cfg.splits},
        "encoder": {
            "spec": enc.spec,
            "id": enc.id,
            "revision": enc.revision,
            "pooling": pooling,
            "layer": layer,
            "model_name": enc.model_name,
        },
        "probe": probe,
        "protocol": protocol,
        "seeds": seeds,
        "metrics": metrics,
        "majority": majority,
        "control": control,
        "cache": dict(cache_stats),
        "runtime_seconds": {
            k: round(v, 3) if isinstance(v, float) else v for k, v in runtime.items()
        },
        "versions": versions,
        **provenance(cfg.card, cfg.config),
    }
