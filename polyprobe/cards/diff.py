"""``polyprobe diff OLD NEW``: what changed between two dataset folders (two builds or two
releases), from their parquet files and cards alone.

Rows are matched by ``id`` (stable across builds). Labels are compared by *name*, read from
each file's embedded features, never by index: a label set that gained a class shifts every
index without changing a row. Per config and split the diff counts rows added, removed,
relabelled, with changed inputs (the level's input columns) and with a changed ``group`` or
``lexical_key``; whether the row order changed; and the label distribution on both sides.
Card changes are the YAML fields outside ``configs``/``dataset_info`` and outside the
per-config statistics (both are derived from the rows, which are compared directly).

The folder side may also be a writer's temporary folder (``data/`` only, no README yet):
configs are then found on disk and the card data is passed in (``new_card``); this is how a
release build diffs itself against the previous release before it is renamed into place.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from polyprobe.cards import schema
from polyprobe.cards.boundary import open_folder
from polyprobe.cards.card import README, md_escape, md_table
from polyprobe.cards.stats import ordered_splits
from polyprobe.errors import PolyprobeError
from polyprobe.hashing import digest

# Fields that are release bookkeeping, not content: shown by ``diff`` but never a reason for a
# bump (a new release always changes them).
RELEASE_KEYS = ("polyprobe.release", "polyprobe.changelog", "polyprobe.bump_check")
BUMP_ORDER = ("patch", "minor", "major")
ROW_CHANGES = ("added", "removed", "relabelled", "inputs_changed", "other_changed")


class DiffError(PolyprobeError):
    """A side of the diff is not a readable dataset folder."""


# ---------------------------------------------------------------------------------------------
# reading a folder


@dataclass
class FolderView:
    path: Path
    card: dict[str, Any] | None  # YAML front matter, None when there is none
    files: dict[str, dict[str, list[Path]]]  # config -> split -> parquet files

    def features(self, config: str) -> dict[str, Any]:
        """The config's features as its first parquet file embeds them (what ``datasets``
        reads), falling back to the card's ``dataset_info``."""
        for paths in self.files[config].values():
            for p in paths:
                feats = schema.features_from_schema(pq.read_schema(p))
                if feats is not None:
                    return feats
        for info in (self.card or {}).get("dataset_info") or []:
            if isinstance(info, dict) and info.get("config_name") == config:
                return schema.features_from_yaml(info.get("features") or [])
        raise DiffError(f"{self.path}: config {config!r} has no features in its files or card")


def read_folder(path: str | Path, card: dict[str, Any] | None = None) -> FolderView:
    """Configs and split files of a dataset folder. A folder with a README is opened through
    the one boundary every command holds (``cards.boundary``: the files its card names, inside
    it, regular, readable); a writer's temporary folder (``data/`` only, its ``card`` given)
    from ``data/<config>/<split>-*.parquet`` on disk."""
    root = Path(path)
    if card is None or (root / README).exists() or os.path.islink(root / README):
        folder = open_folder(root)  # its DatasetFolderError is the one line to show
        files = {
            config: {split: [root / rel for rel in rels] for split, rels in splits.items()}
            for config, splits in folder.data_files.items()
        }
        return FolderView(root, folder.card if card is None else card, files)
    data = root / "data"
    if not data.is_dir():
        raise DiffError(f"{root}: no README.md and no data/ folder: not a dataset folder")
    files: dict[str, dict[str, list[Path]]] = {}
    for cdir in sorted(p for p in data.iterdir() if p.is_dir()):
        splits: dict[str, list[Path]] = {}
        for f in sorted(cdir.glob("*.parquet")):
            splits.setdefault(f.name.split("-", 1)[0], []).append(f)
        if splits:
            files[cdir.name] = splits
    return FolderView(root, card, files)


def _read_split(paths: Sequence[Path]) -> pa.Table:
    tables = [pq.read_table(p) for p in paths]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


# ---------------------------------------------------------------------------------------------
# comparing


def _label_names(features: dict[str, Any]) -> list[str]:
    label = features.get("label") or {}
    return [str(n) for n in label.get("names", [])]


def _schema_of(features: dict[str, Any]) -> dict[str, Any]:
    """Features with the label names taken out (a label-set change is reported apart)."""
    return {k: ({"_type": v.get("_type")} if k == "label" else v) for k, v in features.items()}


def _rows(table: pa.Table, labels: list[str]) -> tuple[list[str], dict[str, tuple]]:
    """(ids in file order, id -> (label name, inputs, group/lexical_key))."""
    cols = table.column_names
    ids = [str(i) for i in table.column("id").to_pylist()]
    label_col = table.column("label").to_pylist() if "label" in cols else [None] * len(ids)
    named = [labels[v] if v is not None and 0 <= v < len(labels) else str(v) for v in label_col]
    meta_cols = [c for c in ("group", "lexical_key") if c in cols]
    input_cols = [c for c in cols if c not in ("id", "label", *meta_cols)]
    inputs = list(zip(*(table.column(c).to_pylist() for c in input_cols), strict=True)) or [
        ()
    ] * len(ids)
    metas = list(zip(*(table.column(c).to_pylist() for c in meta_cols), strict=True)) or [()] * len(
        ids
    )
    out = {}
    for i, row_id in enumerate(ids):
        out[row_id] = (named[i], _hashable(inputs[i]), _hashable(metas[i]))
    return ids, out


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _counts(rows: dict[str, tuple], labels: list[str]) -> dict[str, int]:
    out = dict.fromkeys(labels, 0)
    for label, _, _ in rows.values():
        out[label] = out.get(label, 0) + 1
    return out


def _distribution_shift(old: dict[str, int], new: dict[str, int]) -> dict[str, Any]:
    names = list(dict.fromkeys([*old, *new]))
    n_old, n_new = sum(old.values()), sum(new.values())
    tvd = 0.5 * sum(
        abs((old.get(k, 0) / n_old if n_old else 0.0) - (new.get(k, 0) / n_new if n_new else 0.0))
        for k in names
    )
    return {
        "old": {k: old.get(k, 0) for k in names},
        "new": {k: new.get(k, 0) for k in names},
        "total_variation": round(tvd, 6),
    }


def _cap(ids: list[str], max_ids: int | None) -> list[str]:
    ids = sorted(ids)
    return ids if max_ids is None else ids[:max_ids]


def _diff_split(
    old_paths: Sequence[Path] | None,
    new_paths: Sequence[Path] | None,
    old_labels: list[str],
    new_labels: list[str],
    max_ids: int | None,
) -> dict[str, Any] | None:
    """The change of one split, or None when it holds the same rows in the same order."""
    old_t = _read_split(old_paths) if old_paths else None
    new_t = _read_split(new_paths) if new_paths else None
    if (
        old_t is not None
        and new_t is not None
        and old_labels == new_labels
        and old_t.schema.remove_metadata().equals(new_t.schema.remove_metadata())
        and old_t.equals(new_t)
    ):
        return None
    # Label names per file (what datasets reads for that file), the config's as a fallback.
    if old_t is not None:
        old_labels = _label_names(schema.features_from_schema(old_t.schema) or {}) or old_labels
    if new_t is not None:
        new_labels = _label_names(schema.features_from_schema(new_t.schema) or {}) or new_labels
    old_ids, old_rows = _rows(old_t, old_labels) if old_t is not None else ([], {})
    new_ids, new_rows = _rows(new_t, new_labels) if new_t is not None else ([], {})
    ids: dict[str, list[str]] = {k: [] for k in ROW_CHANGES}
    ids["added"] = [i for i in new_rows if i not in old_rows]
    ids["removed"] = [i for i in old_rows if i not in new_rows]
    for i, (label, inputs, meta) in new_rows.items():
        before = old_rows.get(i)
        if before is None:
            continue
        if before[0] != label:
            ids["relabelled"].append(i)
        if before[1] != inputs:
            ids["inputs_changed"].append(i)
        if before[2] != meta:
            ids["other_changed"].append(i)
    common_old = [i for i in old_ids if i in new_rows]
    common_new = [i for i in new_ids if i in old_rows]
    reordered = common_old != common_new
    if old_t is not None and new_t is not None and not reordered and not any(ids.values()):
        return None  # the same rows, only encoded differently (e.g. label order)
    out: dict[str, Any] = {
        "old_rows": len(old_ids),
        "new_rows": len(new_ids),
        **{k: len(v) for k, v in ids.items()},
        "reordered": reordered,
        "ids": {k: _cap(v, max_ids) for k, v in ids.items() if v},
        "labels": _distribution_shift(_counts(old_rows, old_labels), _counts(new_rows, new_labels)),
    }
    if old_t is None:
        out["split_added"] = True
    if new_t is None:
        out["split_removed"] = True
    return out


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = value


def card_fields(card: dict[str, Any] | None) -> dict[str, Any]:
    """The card's comparable fields as dotted paths (``polyprobe.parameters.seed``), without
    what is derived from the rows (``dataset_info``, ``size_categories``, per-config
    statistics) and without ``configs`` (compared config by config)."""
    if not card:
        return {}
    data = {
        k: v for k, v in card.items() if k not in ("configs", "dataset_info", "size_categories")
    }
    block = data.get("polyprobe")
    if isinstance(block, dict):
        block = dict(block)
        pconfigs = block.pop("configs", None)
        if isinstance(pconfigs, dict):
            block["configs"] = {
                name: {k: v for k, v in (c or {}).items() if k != "statistics"}
                for name, c in pconfigs.items()
            }
        if isinstance(block.get("baselines"), dict):  # one field: scores move together
            block["baselines"] = _baselines_summary(block["baselines"])
        data["polyprobe"] = block
    out: dict[str, Any] = {}
    _flatten(data, "", out)
    return out


def _baselines_summary(block: dict[str, Any]) -> str:
    """The bundled baselines as one comparable value: which configs, by which polyprobe and
    revision, and a digest of every score (a release that moves them says so once, not per
    score)."""
    method = block.get("method") or {}
    configs = block.get("configs") or {}
    scores = digest(json.dumps(block, sort_keys=True, ensure_ascii=False), size=6).hex()
    return (
        f"{len(configs)} configs, polyprobe {method.get('polyprobe')}, revision "
        f"{method.get('revision')}, scores {scores}"
    )


def _card_changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    a, b = card_fields(old), card_fields(new)
    changes: dict[str, Any] = {}
    for key in sorted(set(a) | set(b)):
        if a.get(key, _MISSING) != b.get(key, _MISSING):
            changes[key] = {"old": a.get(key), "new": b.get(key)}
    return changes


_MISSING = object()


def diff_views(old: FolderView, new: FolderView, *, max_ids: int | None = 20) -> dict[str, Any]:
    old_names, new_names = list(old.files), list(new.files)
    added = [c for c in new_names if c not in old.files]
    removed = [c for c in old_names if c not in new.files]
    changed: dict[str, Any] = {}
    unchanged: list[str] = []
    for name in [c for c in new_names if c in old.files]:
        of, nf = old.features(name), new.features(name)
        ol, nl = _label_names(of), _label_names(nf)
        entry: dict[str, Any] = {}
        if _schema_of(of) != _schema_of(nf):
            entry["schema"] = {"old": _schema_of(of), "new": _schema_of(nf)}
        if ol != nl:
            entry["label_names"] = {
                "old": ol,
                "new": nl,
                "added": [x for x in nl if x not in ol],
                "removed": [x for x in ol if x not in nl],
            }
        splits = {}
        for split in ordered_splits(set(old.files[name]) | set(new.files[name])):
            d = _diff_split(old.files[name].get(split), new.files[name].get(split), ol, nl, max_ids)
            if d is not None:
                splits[split] = d
        if splits:
            entry["splits"] = splits
        if entry:
            changed[name] = entry
        else:
            unchanged.append(name)
    card = _card_changes(old.card, new.card)
    report: dict[str, Any] = {
        "old": str(old.path),
        "new": str(new.path),
        "identical": not (added or removed or changed or card),
        "configs": {"added": added, "removed": removed, "changed": list(changed)},
        "unchanged": unchanged,
        "changes": changed,
        "card": card,
    }
    report["bump"] = required_bump(report)
    return report


def diff_folders(
    old: str | Path,
    new: str | Path,
    *,
    new_card: dict[str, Any] | None = None,
    max_ids: int | None = 20,
) -> dict[str, Any]:
    """Compare two dataset folders; ``max_ids`` caps the row ids listed per kind of change
    (None lists all; counts are always complete). See the module docstring."""
    return diff_views(read_folder(old), read_folder(new, new_card), max_ids=max_ids)


# ---------------------------------------------------------------------------------------------
# bump rules


def required_bump(report: dict[str, Any]) -> dict[str, Any]:
    """The semantic-version bump the changes require, with the reasons.

    major: a config removed (a rename is a removal plus an addition), a schema change or a
    label-set change; minor: rows changed (added, removed, relabelled, inputs or group/key
    changed, reordered) or a config added; patch: anything else (card or documentation),
    including nothing at all. Release bookkeeping fields are ignored."""
    major: list[str] = []
    minor: list[str] = []
    for name in report["configs"]["removed"]:
        major.append(f"config {name} removed")
    for name, entry in report["changes"].items():
        if "schema" in entry:
            major.append(f"config {name}: schema changed")
        if "label_names" in entry:
            ln = entry["label_names"]
            parts = [f"+{x}" for x in ln["added"]] + [f"-{x}" for x in ln["removed"]]
            major.append(f"config {name}: label set changed ({', '.join(parts) or 'label order'})")
    for name in report["configs"]["added"]:
        minor.append(f"config {name} added")
    for name, entry in report["changes"].items():
        for split, d in entry.get("splits", {}).items():
            minor.append(f"config {name} {split}: {_split_summary(d)}")
    card = [k for k in report["card"] if not k.startswith(RELEASE_KEYS)]
    patch = [f"card field {k} changed" for k in card]
    if major:
        return {"bump": "major", "reasons": major + minor}
    if minor:
        return {"bump": "minor", "reasons": minor}
    return {"bump": "patch", "reasons": patch or ["no change to rows or card"]}


def _split_summary(d: dict[str, Any]) -> str:
    parts = []
    if d.get("split_added"):
        parts.append("split added")
    if d.get("split_removed"):
        parts.append("split removed")
    labels = {
        "added": "+{} rows",
        "removed": "-{} rows",
        "relabelled": "{} relabelled",
        "inputs_changed": "{} with changed inputs",
        "other_changed": "{} with changed group/lexical_key",
    }
    for key, fmt in labels.items():
        if d.get(key):
            parts.append(fmt.format(d[key]))
    if d.get("reordered"):
        parts.append("row order changed")
    parts.append(f"{d['old_rows']} → {d['new_rows']} rows")
    return ", ".join(parts)


def change_summary(report: dict[str, Any]) -> list[str]:
    """One line per change, for a changelog entry (release bookkeeping left out)."""
    lines = [f"config {c} added" for c in report["configs"]["added"]]
    lines += [f"config {c} removed" for c in report["configs"]["removed"]]
    for name, entry in report["changes"].items():
        if "schema" in entry:
            lines.append(f"config {name}: schema changed")
        if "label_names" in entry:
            ln = entry["label_names"]
            lines.append(f"config {name}: labels {ln['old']} → {ln['new']}")
        for split, d in entry.get("splits", {}).items():
            lines.append(f"config {name} {split}: {_split_summary(d)}")
    card = [k for k in report["card"] if not k.startswith(RELEASE_KEYS)]
    if card:
        shown = ", ".join(card[:8]) + (f" and {len(card) - 8} more" if len(card) > 8 else "")
        lines.append(f"card fields changed: {shown}")
    return lines or ["no change to rows or card"]


# ---------------------------------------------------------------------------------------------
# rendering


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_markdown(report: dict[str, Any]) -> str:
    out = [f"# Diff: `{report['old']}` → `{report['new']}`", ""]
    if report["identical"]:
        return "\n".join([*out, "The folders hold the same configs, rows and card fields.", ""])
    bump = report["bump"]
    out += [f"Required release bump: **{bump['bump']}**.", ""]
    cfg = report["configs"]
    out += ["## Configs", ""]
    rows = [(c, "added") for c in cfg["added"]]
    rows += [(c, "removed") for c in cfg["removed"]]
    rows += [(c, "changed") for c in cfg["changed"]]
    rows += [(c, "unchanged") for c in report["unchanged"]]
    out += [md_table(["config", "status"], rows, [False, False]), ""]
    for name, entry in report["changes"].items():
        out += [f"### `{name}`", ""]
        if "schema" in entry:
            out += ["Schema changed.", ""]
        if "label_names" in entry:
            ln = entry["label_names"]
            out += [
                f"Label names: {md_escape(ln['old'])} → {md_escape(ln['new'])}.",
                "",
            ]
        splits = entry.get("splits", {})
        if splits:
            header = ["split", "old rows", "new rows", "added", "removed", "relabelled"]
            header += ["inputs changed", "group/key changed", "reordered"]
            rows = [
                (
                    s,
                    str(d["old_rows"]),
                    str(d["new_rows"]),
                    *(str(d[k]) for k in ROW_CHANGES),
                    "yes" if d["reordered"] else "no",
                )
                for s, d in splits.items()
            ]
            out += [md_table(header, rows, [False, *([True] * 7), False]), ""]
            for s, d in splits.items():
                shift = d["labels"]
                rows = [
                    (lab, str(shift["old"][lab]), str(shift["new"][lab]))
                    for lab in shift["old"]
                    if shift["old"][lab] != shift["new"][lab]
                ]
                if rows:
                    out += [
                        f"Label distribution of `{s}` (changed labels; total variation "
                        f"{shift['total_variation']:.3f}):",
                        "",
                        md_table(["label", "old", "new"], rows, [False, True, True]),
                        "",
                    ]
                for kind, ids in d.get("ids", {}).items():
                    more = d[kind] - len(ids)
                    listed = ", ".join(f"`{i}`" for i in ids)
                    out.append(
                        f"- `{s}` {kind.replace('_', ' ')}: {listed}"
                        + (f" … and {more} more" if more > 0 else "")
                    )
                if d.get("ids"):
                    out.append("")
    if report["card"]:
        out += ["## Card fields", ""]
        rows = [(k, _short(v["old"]), _short(v["new"])) for k, v in report["card"].items()]
        out += [md_table(["field", "old", "new"], rows, [False, False, False]), ""]
    out += ["## Why this bump", "", *(f"- {md_escape(r)}" for r in bump["reasons"]), ""]
    return "\n".join(out)
