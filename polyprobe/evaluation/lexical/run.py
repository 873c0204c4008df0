"""Lexical evaluation: a published lexical dataset (``task_type: lexical``) and word or
sentence encoders → one result per config and encoder, scored by the set's own metric
(no probe is trained):

=========================  ===========================================================
level / config             what is computed
=========================  ===========================================================
``word-pair``, scored      Spearman (and Pearson) of cos(word1, word2) with the scores;
                           out-of-vocabulary pairs counted (and left out of rho)
``word-analogy``           3CosAdd and 3CosMul accuracy over the vocabulary's top N,
                           per category and overall, semantic / morphological apart;
                           questions with an out-of-vocabulary word counted (wrong in
                           ``accuracy``, left out of ``accuracy_covered``)
``word-translation``       orthogonal Procrustes fitted on ``train``; P@1/5/10 on
                           ``test`` by nearest neighbour and CSLS (k=10), both
                           directions
``sentence-transformation``  COSTRA: per type mean cos(seed, sentence) and mean string
                           similarity; Pearson across the type means
``sentence-comparison``    COSTRA: ordering accuracy per label, the ``costra``
                           package's six groups and overall score
``word-pair-in-context``   CoSimLex / SemEval-2020 Task 3: cos of the two words'
                           in-context vectors per context; subtask 1 the uncentred
                           Pearson of the predicted change (context2 - context1) with
                           the gold change, subtask 2 Spearman and Pearson of the
                           per-context cosines with the scores (and their harmonic mean)
=========================  ===========================================================

Results are JSON files ``<out>/<dataset>/<config>/<encoder>/lexical.json`` with
``lexical_schema_version`` (not the probing results' ``schema_version``: the two are read by
different reports), ``dataset``, ``config``, ``task``, ``level``, ``encoder``, ``space`` (the
vocabulary and lookup used), ``scores`` and ``runtime_seconds``; later, optional:
``family``/``member`` and ``dataset.name`` (as in probing results), ``encoder.model_name``,
``job`` (what a re-run compares to reuse the file), and ``cache`` (hits and misses over the
unique texts and words, as in probing results; ``cached: false`` for an encoder that is
recomputed rather than cached). Texts and words are read through the embedding cache
(``space.py``), so a re-run with a cached encoder encodes nothing.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import UsageError
from polyprobe.evaluation.cache import EmbeddingCache
from polyprobe.evaluation.data import Card, dataset_revision, read_card, resolve_configs
from polyprobe.evaluation.encoders import Encoder, Item, build_encoder
from polyprobe.evaluation.lexical import metrics
from polyprobe.evaluation.lexical.space import Encoding, WordSpace
from polyprobe.evaluation.plan import dataset_name
from polyprobe.evaluation.results import (
    dataset_identity,
    normalised,
    provenance,
    safe_dataset,
    safe_name,
    write_result,
)
from polyprobe.evaluation.tables import read_splits

LEXICAL_SCHEMA_VERSION = 1
DEFAULT_TOP_N = 200_000
LEXICAL_LEVELS = (
    "word-pair",
    "word-analogy",
    "word-translation",
    "sentence-transformation",
    "sentence-comparison",
    "word-pair-in-context",
)
# The costra package's groups: (name, labels); "basic" and "modality" use the paraphrase
# comparisons, the others the annotated ones.
COSTRA_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("basic", ("basic:different meaning", "basic:nonsense", "basic:minimal change")),
    ("modality", ("basic:ban", "basic:possibility")),
    ("time", ("annotated:past", "annotated:future")),
    (
        "style",
        (
            "annotated:formal sentence",
            "annotated:nonstandard sentence",
            "annotated:simple sentence",
        ),
    ),
    ("generalization", ("annotated:generalization",)),
    ("opposite_meaning", ("annotated:opposite meaning",)),
)


def is_lexical(card: Card, configs: Sequence[str]) -> bool:
    """Whether ``configs`` of this card are lexical (scored by their own metric)."""
    blocks = [card.config_block(c) for c in configs]
    return bool(blocks) and all(b.get("task_type") == "lexical" for b in blocks)


def lexical_result_path(out: str | Path, dataset: str, config: str, encoder_id: str) -> Path:
    return (
        Path(out)
        / safe_dataset(dataset)
        / safe_name(config)
        / safe_name(encoder_id)
        / ("lexical.json")
    )


def evaluate_lexical(
    dataset: str,
    config: str | list[str] | None = "all",
    encoders: Sequence[str | Callable[[list[str]], Any] | Encoder] = ("random",),
    *,
    out: str | Path | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    top_n: int | None = DEFAULT_TOP_N,
    batch_size: int = 64,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    force: bool = False,
    cache: str | Path | EmbeddingCache | None = None,
) -> list[dict[str, Any]]:
    """Evaluate ``encoders`` on the lexical configs of ``dataset``; one result per config and
    encoder (see the module docstring), written under ``out`` when given. A result already
    there from an equal ``job`` (dataset fingerprint and revision, config, encoder id, word
    space size) is read back instead (marked ``resumed``) unless ``force``, so a re-run of a
    long plan skips what it finished. ``on_result`` sees each result as it is done.
    ``cache``: the embedding cache, a folder or an open :class:`EmbeddingCache` (left open);
    ``evaluate`` passes its own. None: no disk cache (everything encoded, nothing written
    outside ``out``), as this function always did when called on its own."""
    if isinstance(cache, EmbeddingCache):
        store = cache
    else:
        store = EmbeddingCache(cache, enabled=cache is not None)
    try:
        return _evaluate_lexical(
            dataset, config, encoders, store, out, revision, cache_dir, top_n, batch_size,
            on_result, force,
        )  # fmt: skip
    finally:
        if not isinstance(cache, EmbeddingCache):
            store.close()


def _evaluate_lexical(
    dataset: str,
    config: str | list[str] | None,
    encoders: Sequence[str | Callable[[list[str]], Any] | Encoder],
    store: EmbeddingCache,
    out: str | Path | None,
    revision: str | None,
    cache_dir: str | Path | None,
    top_n: int | None,
    batch_size: int,
    on_result: Callable[[dict[str, Any]], None] | None,
    force: bool,
) -> list[dict[str, Any]]:
    card = read_card(dataset, revision)
    names = resolve_configs(dataset, config, revision, card)
    encs = [build_encoder(e) for e in encoders]
    revision_id = dataset_revision(dataset, revision, card)
    identity = dataset_identity(card, revision_id)
    results = []
    for name in names:
        block = card.config_block(name)
        level = str(block.get("level", ""))
        if level not in LEXICAL_LEVELS:
            raise UsageError(f"{dataset}: config {name!r} (level {level!r}) is not lexical")
        jobs = {enc.id: lexical_job(identity, name, enc.id, top_n) for enc in encs}
        paths = {
            enc.id: lexical_result_path(out, dataset, name, enc.id) if out is not None else None
            for enc in encs
        }
        found = {
            e: r
            for e, path in paths.items()
            if path is not None and not force and (r := reusable_lexical(path, jobs[e]))
        }
        tables = (
            None if len(found) == len(encs) else read_splits(dataset, name, revision, cache_dir)
        )
        for enc in encs:
            path = paths[enc.id]
            if enc.id in found:
                result = {**found[enc.id], "resumed": True}
            else:
                assert tables is not None
                t0 = time.perf_counter()
                encoding = Encoding(enc, store, batch_size)
                scores, space = _evaluate_config(card, name, block, tables.tables, encoding, top_n)
                stats = encoding.stats
                cache_block: dict[str, Any] = {"hits": stats.hits, "misses": stats.misses}
                if encoding.from_file:
                    cache_block["read_from"] = "the vector file (nothing encoded)"
                elif not enc.cacheable:
                    cache_block["cached"] = False
                result = {
                    "lexical_schema_version": LEXICAL_SCHEMA_VERSION,
                    "dataset": {
                        "id": dataset,
                        "revision": revision_id,
                        "fingerprint": card.polyprobe.get("fingerprint"),
                        "languages": card.languages(),
                        "name": dataset_name(dataset),
                    },
                    "config": name,
                    "task": block.get("task", name),
                    "level": level,
                    "encoder": {
                        "spec": enc.spec,
                        "id": enc.id,
                        "revision": enc.revision,
                        "model_name": enc.model_name,
                    },
                    "space": space,
                    "scores": scores,
                    "runtime_seconds": round(time.perf_counter() - t0, 3),
                    "cache": cache_block,
                    **provenance(card, name),
                    "job": jobs[enc.id],
                }
                if path is not None:
                    write_result(path, result)
            if path is not None:
                result["path"] = str(path)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def lexical_job(
    identity: dict[str, Any], config: str, encoder_id: str, top_n: int | None
) -> dict[str, Any]:
    """What a lexical result's numbers depend on besides the code (no probe, no seeds)."""
    return normalised(
        {
            "dataset": identity,
            "config": config,
            "encoder": encoder_id,
            "top_n": top_n,
            "lexical_schema_version": LEXICAL_SCHEMA_VERSION,
        }
    )


def reusable_lexical(path: Path, job: dict[str, Any]) -> dict[str, Any] | None:
    """The lexical result at ``path`` when an equal ``job`` made it; None when absent,
    unreadable or different (files written before results carried a job are recomputed)."""
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(result, dict) or "scores" not in result:
        return None
    if result.get("lexical_schema_version") != LEXICAL_SCHEMA_VERSION:
        return None
    return result if result.get("job") == job else None


def _column(tables: dict[str, Any], split: str, name: str) -> list[Any]:
    table = tables.get(split)
    if table is None or name not in table.column_names:
        return []
    return table.column(name).to_pylist()


def _evaluate_config(
    card: Card,
    name: str,
    block: dict[str, Any],
    tables: dict[str, Any],
    enc: Encoding,
    top_n: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    level = block["level"]
    if level == "word-pair":
        if block.get("label_type") != "score":
            raise UsageError(f"config {name!r}: a word-pair lexical config must be scored")
        w1, w2 = _column(tables, "test", "word1"), _column(tables, "test", "word2")
        gold = _column(tables, "test", "label")
        space = enc.words([*w1, *w2], top_n)
        return similarity_scores(space, w1, w2, gold), space.describe()
    if level == "word-analogy":
        cols = [_column(tables, "test", f"word{i}") for i in range(1, 5)]
        labels = _column(tables, "test", "label")
        names = list(block.get("labels") or [])
        cats = [names[i] for i in labels]
        task = block.get("task", name)
        semantic = _semantic(card, task, names)
        space = enc.words([w for c in cols for w in c], top_n)
        questions = list(zip(*cols, strict=True))
        cross = _cross_lingual(card, task)
        if cross is None:
            return analogy_scores(space, questions, cats, semantic), space.describe()
        # the answer among the second language's words of the set (word3/word4) only
        second = sorted({i for w in (*cols[2], *cols[3]) if (i := space.find(w)) is not None})
        allowed = np.zeros(len(space.words), dtype=bool)
        allowed[second] = True
        scores = analogy_scores(space, questions, cats, semantic, allowed)
        scores["cross_lingual"] = {**cross, "answer_candidates": int(allowed.sum())}
        described = space.describe()
        described["answers"] = (
            f"the {int(allowed.sum())} {cross['languages'][1]} words of the set found in it"
        )
        return scores, described
    if level == "word-translation":
        return translation_scores(tables, enc, top_n)
    if level == "sentence-transformation":
        seeds, sents = _column(tables, "test", "sentence1"), _column(tables, "test", "sentence2")
        strsim = _column(tables, "test", "string_similarity")
        names = list(block.get("labels") or [])
        types = [names[i] for i in _column(tables, "test", "label")]
        vectors = _sentence_vectors(enc, [*seeds, *sents])
        cos = metrics.cosines(
            np.stack([vectors[s] for s in seeds]), np.stack([vectors[s] for s in sents])
        )
        scores = costra_type_scores(types, cos, strsim)
        diffs = np.stack([vectors[b] - vectors[a] for a, b in zip(seeds, sents, strict=True)])
        scores["pca"] = costra_pca(diffs, types, names)
        return scores, _sentence_space(vectors)
    if level == "sentence-comparison":
        cols = [_column(tables, "test", f"sentence{i}") for i in range(1, 5)]
        names = list(block.get("labels") or [])
        labels = [names[i] for i in _column(tables, "test", "label")]
        vectors = _sentence_vectors(enc, [s for c in cols for s in c])
        correct = metrics.ordering_accuracy(*(np.stack([vectors[s] for s in c]) for c in cols))
        return costra_ordering_scores(labels, correct), _sentence_space(vectors)
    if level == "word-pair-in-context":
        return in_context_scores(tables, enc)
    raise UsageError(f"config {name!r}: level {level!r} is not lexical")


def _semantic(card: Card, task: str, names: Sequence[str]) -> dict[str, bool]:
    """Each category's kind from the card's profile (what the build recorded)."""
    entry = ((card.polyprobe.get("profile") or {}).get("tasks") or {}).get(task) or {}
    cats = entry.get("categories") or {}
    return {n: bool((cats.get(n) or {}).get("is_semantic", True)) for n in names}


def _cross_lingual(card: Card, task: str) -> dict[str, Any] | None:
    """A cross-lingual analogy config's languages and direction (the build's profile), or
    None for a monolingual one."""
    entry = ((card.polyprobe.get("profile") or {}).get("tasks") or {}).get(task) or {}
    cross = entry.get("cross_lingual")
    if not isinstance(cross, dict) or len(cross.get("languages") or []) != 2:
        return None
    return {"languages": list(cross["languages"]), "direction": cross.get("direction", "")}


def _sentence_vectors(enc: Encoding, texts: Sequence[str]) -> dict[str, np.ndarray]:
    distinct = list(dict.fromkeys(texts))
    vectors = enc.texts(distinct)
    return dict(zip(distinct, vectors, strict=True))


def _sentence_space(vectors: dict[str, np.ndarray]) -> dict[str, Any]:
    return {
        "vocabulary": f"{len(vectors)} distinct sentences, each encoded whole",
        "size": len(vectors),
    }


def _r(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


# --------------------------------------------------------------------------- similarity


def similarity_scores(
    space: WordSpace, w1: Sequence[str], w2: Sequence[str], gold: Sequence[float]
) -> dict[str, Any]:
    """Spearman/Pearson of cosine with gold over the pairs whose two words are in the space."""
    idx = [(space.find(a), space.find(b)) for a, b in zip(w1, w2, strict=True)]
    keep = [k for k, (i, j) in enumerate(idx) if i is not None and j is not None]
    unit = metrics.normalise(space.vectors)
    cos = [float(unit[idx[k][0]] @ unit[idx[k][1]]) for k in keep]
    g = [float(gold[k]) for k in keep]
    return {
        "pairs": len(gold),
        "oov_pairs": len(gold) - len(keep),
        "spearman": _r(metrics.spearman(cos, g)),
        "pearson": _r(metrics.pearson(cos, g)),
    }


# --------------------------------------------------------------------------- analogies


def analogy_scores(
    space: WordSpace,
    questions: Sequence[tuple[str, str, str, str]],
    categories: Sequence[str],
    semantic: dict[str, bool],
    allowed: np.ndarray | None = None,
) -> dict[str, Any]:
    """3CosAdd and 3CosMul per category and overall over the space's vocabulary (question
    words excluded from the answers; only the rows ``allowed`` marks, when given); a question
    with a word outside it is out of vocabulary."""
    found = [tuple(space.find(w) for w in q) for q in questions]
    covered = [k for k, f in enumerate(found) if all(i is not None for i in f)]
    qidx = np.array([found[k][:3] for k in covered], dtype=np.int64).reshape(-1, 3)
    answers = np.array([found[k][3] for k in covered], dtype=np.int64)
    unit = metrics.normalise(space.vectors)
    correct: dict[str, np.ndarray] = {}
    for method in ("add", "mul"):
        pred = (
            metrics.analogy_predictions(unit, qidx, method, allowed=allowed)
            if len(qidx)
            else np.empty(0)
        )
        hit = np.zeros(len(questions), dtype=bool)
        hit[covered] = pred == answers
        correct[method] = hit
    is_covered = np.zeros(len(questions), dtype=bool)
    is_covered[covered] = True
    cats = np.array(categories, dtype=object)

    def block(mask: np.ndarray) -> dict[str, Any]:
        n, cov = int(mask.sum()), int((mask & is_covered).sum())
        out: dict[str, Any] = {"questions": n, "oov_questions": n - cov}
        for method, name in (("add", "3cosadd"), ("mul", "3cosmul")):
            hits = int((correct[method] & mask).sum())
            out[name] = {
                "accuracy": _r(hits / n) if n else None,
                "accuracy_covered": _r(hits / cov) if cov else None,
                "correct": hits,
            }
        return out

    per_cat = {c: block(cats == c) for c in dict.fromkeys(categories)}
    sem = np.array([semantic.get(c, True) for c in categories], dtype=bool)
    return {
        "overall": block(np.ones(len(questions), dtype=bool)),
        "semantic": block(sem),
        "morphological": block(~sem),
        "categories": per_cat,
        "semantic_categories": sorted(c for c in per_cat if semantic.get(c, True)),
    }


# --------------------------------------------------------------------------- in context


def in_context_scores(
    tables: dict[str, Any], enc: Encoding
) -> tuple[dict[str, Any], dict[str, Any]]:
    """SemEval-2020 Task 3 from a ``word-pair-in-context`` config's rows: each word encoded
    in its context (``Item(sentence, tokens, index)``), cos per row; rows of one ``group``
    are a pair's contexts, ordered by the ``/context1``, ``/context2`` ending of their ids."""
    ids = [str(x) for x in _column(tables, "test", "id")]
    groups = [str(x) for x in _column(tables, "test", "group")]
    sents = _column(tables, "test", "sentence")
    tokens = _column(tables, "test", "tokens")
    i1, i2 = _column(tables, "test", "index1"), _column(tables, "test", "index2")
    gold = [float(x) for x in _column(tables, "test", "label")]
    items = [
        Item(s, tuple(t), int(k))
        for s, t, a, b in zip(sents, tokens, i1, i2, strict=True)
        for k in (a, b)
    ]
    vectors = enc.items(items)
    cos = metrics.cosines(vectors[0::2], vectors[1::2]) if len(items) else np.zeros(0)
    by_group: dict[str, dict[str, int]] = defaultdict(dict)
    for row, (rid, g) in enumerate(zip(ids, groups, strict=True)):
        by_group[g][rid.rsplit("/", 1)[-1]] = row
    pairs = [
        (m["context1"], m["context2"])
        for m in by_group.values()
        if len(m) == 2 and {"context1", "context2"} <= set(m)
    ]
    pred_change = [float(cos[b] - cos[a]) for a, b in pairs]
    gold_change = [gold[b] - gold[a] for a, b in pairs]
    rho = metrics.spearman(list(map(float, cos)), gold)
    r = metrics.pearson(list(map(float, cos)), gold)
    scores = {
        "pairs": len(pairs),
        "contexts": len(gold),
        "unpaired_rows": len(gold) - 2 * len(pairs),
        "subtask1_change": {
            "uncentred_pearson": _r(metrics.uncentred_pearson(pred_change, gold_change)),
            "pearson": _r(metrics.pearson(pred_change, gold_change)),
        },
        "subtask2_similarity": {
            "spearman": _r(rho),
            "pearson": _r(r),
            "harmonic_mean": _r(metrics.harmonic_mean(r, rho)),
        },
    }
    space = {
        "vocabulary": f"{len(items)} words in context (each word's vector in its context)",
        "size": len(items),
    }
    return scores, space


# --------------------------------------------------------------------------- dictionaries


def translation_scores(
    tables: dict[str, Any], enc: Encoding, top_n: int | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Procrustes on train pairs, P@k on test pairs in both directions (NN and CSLS k=10).
    Both languages are looked up in the one space the encoder gives (a multilingual encoder,
    or an aligned vector file holding both vocabularies)."""
    tr_s, tr_t = _column(tables, "train", "word1"), _column(tables, "train", "word2")
    te_s, te_t = _column(tables, "test", "word1"), _column(tables, "test", "word2")
    space = enc.words([*tr_s, *tr_t, *te_s, *te_t], top_n)
    unit = metrics.normalise(space.vectors)
    train = [(space.find(a), space.find(b)) for a, b in zip(tr_s, tr_t, strict=True)]
    train = [(i, j) for i, j in train if i is not None and j is not None]
    test = [(space.find(a), space.find(b)) for a, b in zip(te_s, te_t, strict=True)]
    covered = [(i, j) for i, j in test if i is not None and j is not None]
    scores: dict[str, Any] = {
        "train_pairs": len(tr_s),
        "train_pairs_used": len(train),
        "test_pairs": len(te_s),
        "oov_test_pairs": len(te_s) - len(covered),
    }
    if not train or not covered:
        scores["note"] = "no usable train or test pair: nothing to evaluate"
        return scores, space.describe()
    w = metrics.procrustes(unit[[i for i, _ in train]], unit[[j for _, j in train]])
    for direction, pairs, mapping in (
        ("source_to_target", covered, w),
        ("target_to_source", [(j, i) for i, j in covered], w.T),
    ):
        queries = list(dict.fromkeys(i for i, _ in pairs))
        targets = list(dict.fromkeys(j for _, j in pairs))
        gold: dict[int, set[int]] = defaultdict(set)
        col = {t: k for k, t in enumerate(targets)}
        for i, j in pairs:
            gold[i].add(col[j])
        mapped = unit[queries] @ mapping
        nn = metrics.normalise(mapped) @ metrics.normalise(unit[targets]).T
        csls = metrics.csls_scores(mapped, unit[targets], k=10)
        gold_rows = [gold[q] for q in queries]
        scores[direction] = {
            "queries": len(queries),
            "candidates": len(targets),
            "nn": {f"p@{k}": _r(v) for k, v in metrics.precision_at_k(nn, gold_rows).items()},
            "csls": {f"p@{k}": _r(v) for k, v in metrics.precision_at_k(csls, gold_rows).items()},
        }
    return scores, space.describe()


# --------------------------------------------------------------------------- COSTRA


def costra_type_scores(
    types: Sequence[str], cos: np.ndarray, strsim: Sequence[float]
) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {}
    for t in dict.fromkeys(types):
        mask = np.array([x == t for x in types])
        per[t] = {
            "sentences": int(mask.sum()),
            "mean_cosine": _r(float(np.mean(cos[mask]))),
            "mean_string_similarity": _r(float(np.mean(np.asarray(strsim)[mask]))),
        }
    xs = [v["mean_cosine"] for v in per.values()]
    ys = [v["mean_string_similarity"] for v in per.values()]
    return {"types": per, "pearson_cosine_vs_string_similarity": _r(metrics.pearson(xs, ys))}


def costra_pca(
    diffs: np.ndarray, types: Sequence[str], order: Sequence[str] = ()
) -> dict[str, Any]:
    """Each transformation's difference vector (sentence − seed) on the first two principal
    components of all of them, for the report's plot. Stored with the result (2 numbers a
    sentence, 4 decimals: ~14 bytes each in JSON, where the vectors themselves would be
    hundreds of floats) rather than recomputed at report time, because the report has no
    encoder and an uncached encoder (``random``, a callable) could not give them back.
    Types are listed in ``order`` (the config's labels: one colour per type whatever the
    rows' order), those present only."""
    points, ratio = metrics.pca_2d(diffs)
    present = set(types)
    names = [t for t in order if t in present] + [t for t in dict.fromkeys(types) if t not in order]
    index = {t: k for k, t in enumerate(names)}
    return {
        "what": "transformed sentence minus its seed, projected on 2 principal components",
        "type_names": names,
        "types": [index[t] for t in types],
        "x": [round(float(v), 4) for v in points[:, 0]],
        "y": [round(float(v), 4) for v in points[:, 1]],
        "explained_variance": [round(float(v), 4) for v in ratio],
    }


def costra_ordering_scores(labels: Sequence[str], correct: np.ndarray) -> dict[str, Any]:
    """Accuracy per label, and the ``costra`` package's groups (each rounded to 3 decimals,
    its ``costra`` score their mean, as the package reports them)."""
    per: dict[str, dict[str, Any]] = {}
    for label in dict.fromkeys(labels):
        mask = np.array([x == label for x in labels])
        per[label] = {"comparisons": int(mask.sum()), "accuracy": _r(float(correct[mask].mean()))}
    groups: dict[str, float] = {}
    for group, members in COSTRA_GROUPS:
        mask = np.array([x in members for x in labels])
        total = int(mask.sum())
        groups[group] = round(int(correct[mask].sum()) / total if total else 0.0, 3)
    groups["costra"] = round(sum(groups.values()) / len(COSTRA_GROUPS), 3)
    # COSTRA 1.0 has no annotated comparisons: its time/style/... groups are empty and count
    # 0 in the package's mean, as the package counts them; named so a reader knows why
    empty = [g for g, members in COSTRA_GROUPS if not any(x in members for x in labels)]
    return {"labels": per, "package_groups": groups, "groups_without_comparisons": empty}
