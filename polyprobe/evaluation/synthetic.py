"""Small synthetic dataset folders with known answers, for tests, the benchmark and examples.

A folder written here is a Hugging Face dataset repository in the published polyprobe shape
(``data/<config>/<split>-00000-of-00001.parquet`` with embedded ``ClassLabel`` features and a
README whose YAML has ``configs`` and a ``polyprobe:`` block), so evaluation code is exercised
through ``datasets.load_dataset`` exactly as on real data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.hashing import stable_u64

LEVEL_INPUTS = {
    "sentence": ["sentence", "tokens"],
    "word": ["word"],
    "word-pair": ["word1", "word2"],
    "word-in-context": ["sentence", "tokens", "target_index"],
    "sentence-pair": ["sentence1", "sentence2"],
}


def write_folder(
    root: str | Path,
    configs: dict[str, dict[str, dict[str, list[Any]]]],
    label_names: dict[str, list[str]],
    levels: dict[str, str],
    languages: list[str] | None = None,
    polyprobe_block: bool = True,
    task_types: dict[str, str] | None = None,
) -> Path:
    """``configs[name][split][column]`` → a dataset folder. The first config is the default."""
    import yaml
    from datasets import ClassLabel, Dataset, Features, List, Value

    root = Path(root)
    card_configs = []
    blocks: dict[str, Any] = {}
    for i, (name, splits) in enumerate(configs.items()):
        files = []
        for split, cols in splits.items():
            feats = {}
            for col in cols:
                if col == "label":
                    feats[col] = ClassLabel(names=label_names[name])
                elif col == "tokens":
                    feats[col] = List(Value("string"))
                elif col == "target_index":
                    feats[col] = Value("int32")
                else:
                    feats[col] = Value("string")
            ds = Dataset.from_dict(cols, features=Features(feats))
            rel = f"data/{name}/{split}-00000-of-00001.parquet"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            ds.to_parquet(str(root / rel))
            files.append({"split": split, "path": rel})
        entry: dict[str, Any] = {"config_name": name, "data_files": files}
        if i == 0:
            entry["default"] = True
        card_configs.append(entry)
        blocks[name] = {
            "task": name.split(".")[0],
            "level": levels[name],
            "inputs": LEVEL_INPUTS[levels[name]],
            "labels": label_names[name],
            "recipe_version": "1.0.0",
            "variant": {"balance": "natural", "size": "full", "split": "ratio"},
            "seed": 0,
            "lexical_control": False,
            "seed_dependent": False,
        }
        if task_types and name in task_types:
            blocks[name]["task_type"] = task_types[name]
    meta: dict[str, Any] = {"language": languages or ["en"], "configs": card_configs}
    if polyprobe_block:
        meta["polyprobe"] = {"version": "0.1.0", "fingerprint": "synthetic", "configs": blocks}
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n# synthetic\n"
    (root / "README.md").write_text(text, encoding="utf-8")
    return root


def toy_sentences(
    n: int, seed: int = 0, separable: bool = True, vocab: int = 40, prefix: str = "s"
) -> dict[str, list[Any]]:
    """Sentences whose label is whether the cue word ``zebra`` occurs (``separable``), or a
    label drawn at random (not separable). Each row is its own group."""
    rows: dict[str, list[Any]] = {
        k: [] for k in ("id", "sentence", "tokens", "label", "group", "lexical_key")
    }
    words = [f"w{i}" for i in range(vocab)]
    for i in range(n):
        h = stable_u64("toy", seed, prefix, i)
        rng = np.random.default_rng(h)
        toks = [words[j] for j in rng.integers(0, vocab, 6)]
        label = int(rng.integers(0, 2))
        if separable and label == 1:
            toks[int(rng.integers(0, 6))] = "zebra"
        rows["id"].append(f"{prefix}{i}")
        rows["sentence"].append(" ".join(toks))
        rows["tokens"].append(toks)
        rows["label"].append(label)
        rows["group"].append(f"{prefix}/{i}")
        rows["lexical_key"].append("")
    return rows


def separable_blobs(
    n: int, dim: int, n_classes: int, seed: int = 0, margin: float = 3.0
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian classes around well-separated random means (learnable, known-answer data)."""
    rng = np.random.default_rng(stable_u64("blobs", seed, n, dim, n_classes))
    means = rng.standard_normal((n_classes, dim)).astype(np.float32)
    means *= margin / np.sqrt(dim) * np.sqrt(dim) / np.linalg.norm(means, axis=1, keepdims=True)
    y = rng.integers(0, n_classes, n)
    X = means[y] + rng.standard_normal((n, dim)).astype(np.float32)
    return X.astype(np.float32), y.astype(np.int64)
