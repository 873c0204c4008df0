"""Reading a dataset for evaluation, exactly as a user would: through ``datasets`` (its builder
resolves configs and files; ``tables.py``: a local folder is streamed in place, a Hub dataset
loaded and cached) plus the README card's YAML. Nothing from the builders is imported (one
direction, no back-edges). A row whose input or label is null is refused with its file and row.

Read defensively: a polyprobe card has a top-level ``polyprobe:`` block (``version``,
``fingerprint``, ``configs: {name: {task, level, ...}}``); a plain Hugging Face dataset has
none, and then the level is inferred from the columns (``target_index`` → word in context,
``sentence1``/``sentence2`` → sentence pair, ``word1``/``word2`` → word pair, ``word`` → word,
``sentence``/``text`` → sentence) and the label column is ``label`` (or ``labels``/``class``),
a ``ClassLabel`` or plain values (then sorted into classes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import InputError, UsageError
from polyprobe.evaluation.encoders import Item
from polyprobe.evaluation.tables import SplitTables, read_splits
from polyprobe.hashing import digest, file_sha256

SPLIT_ALIASES = {
    "train": "train",
    "validation": "validation",
    "valid": "validation",
    "dev": "validation",
    "test": "test",
}
LABEL_COLUMNS = ("label", "labels", "class", "category")


@dataclass
class Card:
    yaml: dict[str, Any]
    path: str | None

    @property
    def polyprobe(self) -> dict[str, Any]:
        block = self.yaml.get("polyprobe")
        return block if isinstance(block, dict) else {}

    def config_block(self, config: str) -> dict[str, Any]:
        configs = self.polyprobe.get("configs")
        if isinstance(configs, dict) and isinstance(configs.get(config), dict):
            return configs[config]
        for entry in self.yaml.get("configs") or []:
            if isinstance(entry, dict) and entry.get("config_name") == config:
                block = entry.get("polyprobe")
                if isinstance(block, dict):
                    return block
        return {}

    def languages(self) -> list[str]:
        lang = self.yaml.get("language") or []
        return [lang] if isinstance(lang, str) else [str(x) for x in lang]

    def default_config(self) -> str | None:
        for entry in self.yaml.get("configs") or []:
            if isinstance(entry, dict) and entry.get("default"):
                return entry.get("config_name")
        return None


@dataclass
class LoadedConfig:
    """One config's rows, as what the evaluation needs: items, labels, groups, keys."""

    dataset: str
    revision: str
    config: str
    level: str
    task: str
    task_type: str
    label_names: list[str]
    columns: list[str]
    rows: dict[str, dict[str, list[Any]]]  # split -> column -> values
    card: Card
    block: dict[str, Any] = field(default_factory=dict)

    @property
    def splits(self) -> list[str]:
        return [s for s in ("train", "validation", "test") if s in self.rows]

    def size(self, split: str) -> int:
        return len(self.rows[split]["_label"])

    def labels(self, split: str) -> np.ndarray:
        return np.asarray(self.rows[split]["_label"], dtype=np.int64)

    def groups(self, split: str) -> np.ndarray:
        col = self.rows[split].get("group")
        if col is None:  # no group column: every row its own group
            col = [f"{split}/{i}" for i in range(self.size(split))]
        return np.asarray([str(x) for x in col], dtype=object)

    def keys(self, split: str) -> np.ndarray:
        col = self.rows[split].get("lexical_key") or [""] * self.size(split)
        return np.asarray([str(x or "") for x in col], dtype=object)

    def items(self, split: str) -> list[tuple[Item, ...]]:
        """Per row, the items to encode (two for pair levels)."""
        cols = self.rows[split]
        n = self.size(split)
        text_col = "sentence" if "sentence" in cols else "text"
        tokens = cols.get("tokens")

        def toks(i: int) -> tuple[str, ...] | None:
            return tuple(tokens[i]) if tokens is not None and tokens[i] is not None else None

        if self.level == "word-in-context":
            tgt = cols["target_index"]
            return [(Item(cols[text_col][i], toks(i), int(tgt[i])),) for i in range(n)]
        if self.level == "arc":  # dependent and head tokens, as a pair
            tgt, head = cols["target_index"], cols["head_index"]
            # ``parse``'s root row has head -1 (the virtual root): its head is the dependent
            return [
                (
                    Item(cols[text_col][i], toks(i), int(tgt[i])),
                    Item(cols[text_col][i], toks(i), int(head[i] if head[i] >= 0 else tgt[i])),
                )
                for i in range(n)
            ]
        if self.level == "word":
            return [(Item(cols["word"][i], (cols["word"][i],)),) for i in range(n)]
        if self.level == "word-pair":
            return [
                (
                    Item(cols["word1"][i], (cols["word1"][i],)),
                    Item(cols["word2"][i], (cols["word2"][i],)),
                )
                for i in range(n)
            ]
        if self.level == "discourse":  # a window of sentences, in the order shown
            return [tuple(Item(t) for t in cols["sentences"][i]) for i in range(n)]
        if self.level == "discourse-relation":  # the left unit's EDUs, then the right's
            return [tuple(Item(t) for t in [*cols["left"][i], *cols["right"][i]]) for i in range(n)]
        if self.level == "sentence-pair":
            return [(Item(cols["sentence1"][i]), Item(cols["sentence2"][i])) for i in range(n)]
        return [(Item(cols[text_col][i], toks(i)),) for i in range(n)]


def infer_level(columns: list[str]) -> str:
    cols = set(columns)
    if {"target_index", "head_index"} <= cols and ("sentence" in cols or "text" in cols):
        return "arc"
    if "target_index" in cols and ("sentence" in cols or "text" in cols):
        return "word-in-context"
    if {"sentence1", "sentence2"} <= cols:
        return "sentence-pair"
    if "sentences" in cols:
        return "discourse"
    if {"left", "right"} <= cols:
        return "discourse-relation"
    if {"word1", "word2"} <= cols:
        return "word-pair"
    if "word" in cols:
        return "word"
    if "sentence" in cols or "text" in cols:
        return "sentence"
    raise InputError("<dataset>", None, f"no input column among {sorted(cols)}", "no-inputs")


def read_card(dataset: str, revision: str | None) -> Card:
    """README YAML front matter of a local folder or a hub dataset (empty when absent)."""
    import yaml

    path = Path(dataset).expanduser()
    readme: Path | None = None
    if path.is_dir():
        from polyprobe.cards.boundary import open_folder

        # the boundary every command holds (a plain parquet folder without a card too)
        folder = open_folder(path, card_required=False)
        return Card(folder.card, str(path / "README.md") if folder.card else None)
    else:
        try:
            from huggingface_hub import hf_hub_download

            readme = Path(
                hf_hub_download(dataset, "README.md", repo_type="dataset", revision=revision)
            )
        except Exception:  # noqa: BLE001 - a hub dataset without a card is fine
            readme = None
    if readme is None or not readme.is_file():
        return Card({}, None)
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return Card({}, str(readme))
    end = text.find("\n---", 3)
    if end < 0:
        return Card({}, str(readme))
    try:
        data = yaml.safe_load(text[3:end]) or {}
    except yaml.YAMLError as exc:
        raise InputError(readme, None, f"card YAML does not parse: {exc}", "bad-card") from exc
    return Card(data if isinstance(data, dict) else {}, str(readme))


def dataset_revision(dataset: str, revision: str | None, card: Card) -> str:
    """Requested revision; for a hub dataset the snapshot commit of the card; for a local
    folder a hash of its file names and sizes (changes whenever a data file does)."""
    if revision:
        return revision
    path = Path(dataset).expanduser()
    if path.is_dir():
        parts: list[object] = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                full = Path(root) / name
                parts.extend([full.relative_to(path).as_posix(), file_sha256(str(full))])
        return "local-" + digest(*parts, size=6).hex()
    if card.path and "snapshots" in Path(card.path).parts:
        parts_ = Path(card.path).parts
        return parts_[parts_.index("snapshots") + 1]
    return "unknown"


def config_names(dataset: str, revision: str | None, card: Card) -> list[str]:
    from datasets import get_dataset_config_names

    try:
        names = list(get_dataset_config_names(dataset, revision=revision))
    except Exception as exc:  # noqa: BLE001 - datasets raises many types for a bad path
        raise InputError(dataset, None, f"cannot open dataset: {exc}", "bad-dataset") from exc
    return names


def recommended_configs(card: Card, names: list[str]) -> list[str]:
    """One config per task: the one whose name is the task's config name (the card's
    ``polyprobe.configs`` blocks give each config's ``task``; ``subject_number`` is the
    recommended config, ``subject_number.natural-full`` a variant of it). In card order. A
    task with no such config (none is built by polyprobe) has no recommended config."""
    blocks = card.polyprobe.get("configs")
    if not isinstance(blocks, dict) or not blocks:
        raise UsageError(
            "--recommended needs a polyprobe card (its README's polyprobe.configs say which "
            "config of each task is recommended); this dataset has none: use --config or --all"
        )
    available = set(names)
    chosen: dict[str, str] = {}
    for name, block in blocks.items():
        name = str(name)
        task = str(block.get("task") or name.split(".")[0]) if isinstance(block, dict) else name
        if name == name.split(".")[0] and name in available:
            chosen.setdefault(task, name)
    if not chosen:
        raise UsageError("no recommended config in this dataset's card: use --config or --all")
    return list(chosen.values())


def resolve_configs(
    dataset: str, config: str | list[str] | None, revision: str | None, card: Card
) -> list[str]:
    """``config``: None (the card's default), ``"all"``, ``"recommended"`` (one per task:
    :func:`recommended_configs`), a name or a list of names."""
    names = config_names(dataset, revision, card)
    if config == "all":
        return names
    if config == "recommended":
        return recommended_configs(card, names)
    if config is None:
        default = card.default_config()
        if default:
            return [default]
        return ["default"] if "default" in names else names[:1]
    wanted = [config] if isinstance(config, str) else list(config)
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise UsageError(f"{dataset}: no config {unknown} (available: {', '.join(names)})")
    return wanted


# The columns each level reads, besides the label ("text" stands for ``sentence`` or ``text``).
LEVEL_COLUMNS = {
    "word-in-context": ("text", "target_index"),
    "arc": ("text", "target_index", "head_index"),
    "word": ("word",),
    "word-pair": ("word1", "word2"),
    "sentence-pair": ("sentence1", "sentence2"),
    "discourse": ("sentences",),
    "discourse-relation": ("left", "right"),
}


def check_inputs(tables: SplitTables, used: list[str], level: str, label_col: str) -> None:
    """Refuse a split (of ``used``) that lacks a column its level reads, or has a null in one
    (a row with no text cannot be encoded, and a null label is no class): one
    :class:`InputError` naming the data file and row of the first null."""
    import pyarrow.compute as pc

    for split in used:
        table = tables.tables[split]
        names = table.column_names
        text_col = "sentence" if "sentence" in names else "text"
        wanted = [text_col if c == "text" else c for c in LEVEL_COLUMNS.get(level, ("text",))]
        for col in [*wanted, label_col]:
            if col not in names:
                raise InputError(
                    tables.dataset,
                    None,
                    f"config {tables.config!r}, split {split!r}: no column {col!r}, which "
                    f"level {level!r} needs (columns: {', '.join(names)})",
                    "missing-column",
                )
            column = table.column(col)
            if column.null_count == 0:
                continue
            first = int(pc.index(pc.is_null(column), True).as_py())
            path, row = tables.where(split, first)
            what = "label" if col == label_col else "input"
            raise InputError(
                path,
                None,
                f"{row}: {what} column {col!r} is null ({column.null_count} null row(s) in "
                f"config {tables.config!r}, split {split!r}); every row needs its "
                f"{'label' if what == 'label' else 'text'}",
                "null-value",
            )


def load_config(
    dataset: str,
    config: str,
    revision: str | None,
    card: Card,
    cache_dir: str | Path | None = None,
    resolved_revision: str | None = None,
) -> LoadedConfig:
    """One config's rows. A local folder is read in place (nothing is added to the datasets
    cache); a Hub dataset is cached by ``datasets`` in ``cache_dir`` (default: its own).
    ``resolved_revision``: :func:`dataset_revision`'s answer when the caller has it already
    (for a local folder it hashes every file: once per evaluation, not once per config)."""
    import datasets as hf

    local = Path(dataset).expanduser().is_dir()
    tables = read_splits(dataset, config, revision, cache_dir)
    splits: dict[str, Any] = {}
    used: list[str] = []  # the dataset's own split names, one per split evaluated
    label_names: list[str] | None = None
    label_col: str | None = None
    columns: list[str] = []
    for split_name, table in tables.tables.items():
        split = SPLIT_ALIASES.get(split_name)
        if split is None or split in splits:
            continue
        columns = list(table.column_names)
        label_col = next((c for c in LABEL_COLUMNS if c in columns), None)
        if label_col is None:
            raise InputError(dataset, None, f"{config}/{split_name}: no label column", "no-label")
        feat = (tables.features.get(split_name) or {}).get(label_col)
        if label_names is None and isinstance(feat, hf.ClassLabel):
            label_names = list(feat.names)
        splits[split] = table
        used.append(split_name)
    if "train" not in splits:
        raise InputError(dataset, None, f"config {config!r} has no train split", "no-train")
    assert label_col is not None
    block = card.config_block(config)
    level = str(block.get("level") or infer_level(columns))
    if level == "word-in-context" and "target_index" not in columns:
        level = infer_level(columns)
    check_inputs(tables, used, level, label_col)
    # plain lists: per-row access to Arrow columns is slow
    rows: dict[str, dict[str, list[Any]]] = {s: t.to_pydict() for s, t in splits.items()}
    if label_names is None:  # plain values: classes are the sorted distinct values
        values = sorted({str(v) for r in rows.values() for v in r[label_col]})
        index = {v: i for i, v in enumerate(values)}
        label_names = values
        for r in rows.values():
            r["_label"] = [index[str(v)] for v in r[label_col]]
    else:
        for r in rows.values():
            r["_label"] = list(r[label_col])
    return LoadedConfig(
        dataset=str(Path(dataset).expanduser().resolve()) if local else dataset,
        revision=resolved_revision or dataset_revision(dataset, revision, card),
        config=config,
        level=level,
        task=str(block.get("task") or config.split(".")[0]),
        task_type=str(block.get("task_type") or card.polyprobe.get("task_type") or "probing"),
        label_names=[str(x) for x in label_names],
        columns=columns,
        rows=rows,
        card=card,
        block=block,
    )
