"""``polyprobe validate DIR``: re-check a dataset folder from its files alone.

Why each check exists:

* ``datasets`` 5.2 lets the README's ``dataset_info`` features override the features embedded
  in the parquet files, silently: swapped ClassLabel names there flip every label. It also takes
  the first split file's ClassLabel names for all splits. So the embedded features of every file
  must equal the README's, and a config's splits must agree with each other.
* ``group`` and ``lexical_key`` leaking across splits is what makes probing results meaningless
  (a probe memorises the sentence or the word); no split may share either with another.
* Every number the card prints is recomputed from the parquet files; a card that was edited by
  hand, or a file that was replaced, shows up as a mismatch.
* No string of any column may hold a C0 control character other than tab: a NUL or an ESC in a
  sentence is no text a model should see, and the readers refuse them, so one here means a file
  made or changed by something else.

Problems are collected, never raised, so one run lists all of them; each names the config,
split and file concerned. Input that cannot be checked at all (no folder, no README, no YAML)
raises :class:`UnusableFolderError` (CLI exit 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from polyprobe.cards import baselines, schema
from polyprobe.cards.boundary import DatasetFolder, inspect_folder
from polyprobe.cards.card import (
    README,
    REPORT,
    SCORE_COLUMNS,
    anchored_tables,
    plot_path,
)
from polyprobe.cards.stats import ScoreMoments, label_counts, ordered_splits, size_category
from polyprobe.controlchars import CONTROL_PATTERN, control_name, first_control
from polyprobe.errors import PolyprobeError
from polyprobe.metadata import SAMPLE_CREATION, SAMPLE_CREATION_COLUMN

MAX_EXAMPLES = 3  # leaked values quoted per problem


class UnusableFolderError(PolyprobeError):
    """The path is not something ``validate`` can check (CLI exit 2)."""


@dataclass
class ValidationReport:
    path: Path
    problems: list[str] = field(default_factory=list)
    configs: list[str] = field(default_factory=list)
    files_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def exit_code(self) -> int:
        """0 when every check passed, 1 otherwise (the CLI's contract)."""
        return 0 if self.ok else 1

    def summary(self) -> str:
        head = (
            f"{self.path}: {len(self.configs)} config(s), {self.files_checked} file(s) checked, "
            + ("no problems" if self.ok else f"{len(self.problems)} problem(s)")
        )
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])

    def __str__(self) -> str:
        return self.summary()


def _where(config: str, split: str | None = None, file: str | None = None) -> str:
    out = f"config {config!r}"
    if split is not None:
        out += f" split {split!r}"
    if file is not None:
        out += f" ({file})"
    return out


def _examples(values: set[str]) -> str:
    shown = sorted(values)[:MAX_EXAMPLES]
    more = f" and {len(values) - len(shown)} more" if len(values) > len(shown) else ""
    return ", ".join(repr(v) for v in shown) + more


def _int(value: Any) -> int | None:
    """Card numbers as ints; anything else (text, floats, bools) is not a count."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _feature_diff(embedded: dict[str, Any], readme: dict[str, Any]) -> str:
    parts = []
    if list(embedded) != list(readme):
        parts.append(f"columns {list(embedded)} vs README {list(readme)}")
    for name in embedded:
        if name in readme and embedded[name] != readme[name]:
            a, b = embedded[name], readme[name]
            if a.get("_type") == b.get("_type") == "ClassLabel":
                parts.append(
                    f"ClassLabel names {a.get('names')} in the file vs {b.get('names')} in README "
                    "(datasets would use README's names and relabel every row)"
                )
            else:
                parts.append(f"column {name!r}: {a} in the file vs {b} in README")
    return "; ".join(parts) or "features differ"


@dataclass
class _SplitData:
    rows: int
    counts: list[int] | None
    ids: list[str]
    groups: set[str]
    keys: set[str]
    keyless: int = 0  # rows with an empty lexical_key
    scores: ScoreMoments | None = None  # scored configs


class _Validator:
    def __init__(self, root: Path):
        self.root = root
        self.report = ValidationReport(path=root)
        self.listed: set[str] = set()
        self.folder = DatasetFolder(root, {}, "")

    def problem(self, message: str) -> None:
        self.report.problems.append(message)

    # -- top level --------------------------------------------------------------------------

    def run(self) -> ValidationReport:
        root = self.root
        folder, found = inspect_folder(root)
        fatal = next((p for p in found if p.fatal), None)
        if fatal is not None or folder is None:
            raise UnusableFolderError(fatal.reason if fatal else f"{root}: not a dataset folder")
        for p in found:  # the boundary every command holds: the same lines they refuse with
            self.problem(p.reason)
        self.folder = folder
        self.listed = set(folder.named)
        data, body = folder.card, folder.body

        configs = data.get("configs")
        if not isinstance(configs, list):
            configs = []  # reported by the boundary
        configs = [c for c in configs if self._config_entry_ok(c)]
        names = [c["config_name"] for c in configs]
        for name in sorted({n for n in names if names.count(n) > 1}):
            self.problem(
                f"{README}: config {name!r} appears {names.count(name)} times in 'configs'"
            )
        defaults = [c["config_name"] for c in configs if c.get("default") is True]
        if len(defaults) != 1:
            self.problem(
                f"{README}: exactly one config must have 'default: true', found "
                f"{len(defaults)} ({', '.join(defaults) or 'none'})"
            )
        self.report.configs = list(dict.fromkeys(names))

        infos = self._dataset_infos(data.get("dataset_info"))
        block = data.get("polyprobe")
        pconfigs: dict[str, Any] = {}
        if not isinstance(block, dict):
            self.problem(f"{README}: no 'polyprobe' block in the YAML front matter")
        elif not isinstance(block.get("configs"), dict):
            self.problem(f"{README}: the 'polyprobe' block has no 'configs' mapping")
        else:
            pconfigs = block["configs"]
        for extra in sorted(set(infos) - set(names)):
            self.problem(
                f"{README}: dataset_info describes config {extra!r}, which 'configs' lacks"
            )
        for extra in sorted(set(pconfigs) - set(names)):
            self.problem(f"{README}: polyprobe.configs describes {extra!r}, which 'configs' lacks")

        tables = anchored_tables(body)
        totals: dict[str, dict[str, int]] = {}
        seen: set[str] = set()
        for entry in configs:
            name = entry["config_name"]
            if name in seen:
                continue
            seen.add(name)
            totals[name] = self._check_config(entry, infos.get(name), pconfigs.get(name), tables)

        self._check_overview(tables, totals)
        if isinstance(block, dict) and baselines.KEY in block:
            for message in baselines.check_block(block[baselines.KEY], names, body):
                self.problem(f"{README}: {message}")
        self._check_size_categories(data.get("size_categories"), totals)
        self._check_stray_files()
        self._check_report()
        return self.report

    def _config_entry_ok(self, entry: Any) -> bool:
        """Entries the boundary reported (no name, no data_files) are not checked further."""
        return (
            isinstance(entry, dict)
            and isinstance(entry.get("config_name"), str)
            and isinstance(entry.get("data_files"), list)
            and bool(entry["data_files"])
        )

    def _dataset_infos(self, raw: Any) -> dict[str, dict[str, Any]]:
        if isinstance(raw, dict):
            raw = [raw]
        if not isinstance(raw, list):
            self.problem(f"{README}: no 'dataset_info' in the YAML front matter")
            return {}
        out: dict[str, dict[str, Any]] = {}
        for info in raw:
            if not isinstance(info, dict):
                self.problem(f"{README}: malformed dataset_info entry {info!r}")
                continue
            name = info.get("config_name", "default")
            if name in out:
                self.problem(f"{README}: dataset_info lists config {name!r} twice")
            out.setdefault(name, info)
        return out

    # -- one config -------------------------------------------------------------------------

    def _check_config(
        self,
        entry: dict[str, Any],
        info: dict[str, Any] | None,
        pblock: Any,
        tables: dict[tuple[str, str | None], list[list[str]]],
    ) -> dict[str, int]:
        """Check one config; returns rows per split as recomputed from its files."""
        name = entry["config_name"]
        features: dict[str, Any] | None = None
        info_splits: dict[str, dict[str, Any]] = {}
        if info is None:
            self.problem(f"{README}: {_where(name)} has no dataset_info entry")
        else:
            try:
                features = schema.features_from_yaml(info["features"])
            except (KeyError, TypeError, ValueError, AttributeError):
                self.problem(f"{README}: {_where(name)}: dataset_info features are malformed")
            for s in info.get("splits") or []:
                if isinstance(s, dict) and isinstance(s.get("name"), str):
                    info_splits[s["name"]] = s
        label_names: list[str] | None = None
        scored = _declares_scores(features, pblock)
        if features is not None and not scored:
            label = features.get("label")
            if not label or label.get("_type") != "ClassLabel":
                self.problem(f"{README}: {_where(name)}: the 'label' feature is not a ClassLabel")
            else:
                label_names = list(label["names"])

        if not isinstance(pblock, dict):
            self.problem(f"{README}: {_where(name)} has no polyprobe.configs entry")
            pblock = {}
        elif label_names is not None and pblock.get("labels") != label_names:
            self.problem(
                f"{README}: {_where(name)}: polyprobe labels {pblock.get('labels')} differ from "
                f"the ClassLabel names {label_names}"
            )

        # Split -> file(s) listed in the card, as the boundary resolved them (a file it
        # refused is reported there, once).
        files = self.folder.data_files.get(name, {})

        splits: dict[str, _SplitData] = {}
        first_features: tuple[str, dict[str, Any]] | None = None
        for split in ordered_splits(files):
            parts: list[_SplitData] = []
            for rel in files[split]:
                sd, embedded = self._read_file(name, split, rel, features, label_names, scored)
                if embedded is not None:
                    if first_features is None:
                        first_features = (f"{split} ({rel})", embedded)
                    elif embedded != first_features[1]:
                        self.problem(
                            f"{_where(name, split, rel)}: features differ from split "
                            f"{first_features[0]}: {_feature_diff(embedded, first_features[1])} "
                            "(datasets would apply the first split's to all)"
                        )
                if sd is not None:
                    parts.append(sd)
            if parts:
                splits[split] = _merge(parts)

        self._check_ids_and_leaks(name, splits)
        if pblock.get("lexical_control") is True:
            # A lexical control is only as good as its keys: a keyless row escapes it.
            for split, sd in splits.items():
                if sd.keyless:
                    self.problem(
                        f"{_where(name, split)}: lexical_control is declared but {sd.keyless} "
                        "row(s) have an empty lexical_key"
                    )
        self._check_numbers(name, splits, info_splits, pblock, label_names, tables)
        if scored:
            self._check_scores(name, splits, pblock, tables)
        if not (self.root / plot_path(name)).is_file():
            self.problem(f"{_where(name)}: plot {plot_path(name)} is missing")
        return {s: d.rows for s, d in splits.items()}

    def _read_file(
        self,
        config: str,
        split: str,
        rel: str,
        features: dict[str, Any] | None,
        label_names: list[str] | None,
        scored: bool = False,
    ) -> tuple[_SplitData | None, dict[str, Any] | None]:
        where = _where(config, split, rel)
        self.report.files_checked += 1
        try:
            pf = pq.ParquetFile(self.root / rel)
            file_schema = pf.schema_arrow
            needed = ("id", "label", "group", "lexical_key", SAMPLE_CREATION_COLUMN)
            wanted = [c for c in needed if c in file_schema.names]
            # Only the columns the checks need: inputs can be most of a file's bytes.
            table = pf.read(columns=wanted, use_threads=False)
        except (OSError, pa.ArrowException) as exc:
            self.problem(f"{where}: not a readable parquet file ({exc})")
            return None, None
        embedded = schema.features_from_schema(file_schema)
        if embedded is None:
            self.problem(f"{where}: the file embeds no Hugging Face features metadata")
        else:
            if list(embedded) != file_schema.names:
                self.problem(
                    f"{where}: embedded features name columns {list(embedded)} but the file has "
                    f"{file_schema.names}"
                )
            if features is not None and embedded != features:
                self.problem(
                    f"{where}: embedded features differ from README dataset_info: "
                    f"{_feature_diff(embedded, features)}"
                )
        if table.num_rows == 0:
            self.problem(f"{where}: empty split file (empty splits must be omitted)")
        counts = None
        scores = None
        if "label" not in table.column_names:
            self.problem(f"{where}: no 'label' column")
        elif scored:
            try:
                scores = ScoreMoments.of(table.column("label"))
            except (ValueError, pa.ArrowException) as exc:
                self.problem(f"{where}: unusable scores: {exc}")
        elif label_names is not None:
            try:
                counts = label_counts(table.column("label"), len(label_names))
            except (ValueError, pa.ArrowException) as exc:
                self.problem(f"{where}: labels out of range for {len(label_names)} classes: {exc}")

        def strings(col: str) -> list[str]:
            if col not in table.column_names:
                self.problem(f"{where}: no {col!r} column")
                return []
            return [v for v in table.column(col).to_pylist() if v is not None]

        ids = strings("id")
        groups = set(strings("group"))
        all_keys = strings("lexical_key")
        keys = {k for k in all_keys if k}
        keyless = sum(1 for k in all_keys if not k)
        for found in _control_characters(pf, table):
            self.problem(f"{where}: {found}")
        for found in _null_texts(pf, table):
            self.problem(f"{where}: {found}")
        self._check_sample_creation(where, table)
        data = _SplitData(table.num_rows, counts, ids, groups, keys, keyless, scores)
        return data, embedded

    def _check_sample_creation(self, where: str, table: pa.Table) -> None:
        """The optional per-row ``sample_creation`` column (a string column; the wide
        ``parallel`` config's per-language struct of the same name is not it): a value on
        every row, one of the documented ones."""
        if SAMPLE_CREATION_COLUMN not in table.column_names:
            return
        column = table.column(SAMPLE_CREATION_COLUMN)
        if not pa.types.is_string(column.type):
            return
        if column.null_count:
            self.problem(f"{where}: {column.null_count} row(s) without a sample_creation value")
        bad = sorted({v for v in column.to_pylist() if v is not None} - set(SAMPLE_CREATION))
        if bad:
            self.problem(
                f"{where}: sample_creation values {bad} are not among {', '.join(SAMPLE_CREATION)}"
            )

    def _check_scores(
        self,
        config: str,
        splits: dict[str, _SplitData],
        pblock: dict[str, Any],
        tables: dict[tuple[str, str | None], list[list[str]]],
    ) -> None:
        """A scored config's statistics (YAML and body table) against the files' scores."""
        where = _where(config)
        if pblock.get("labels") not in ([], None):
            self.problem(f"{README}: {where}: a scored config lists labels {pblock['labels']}")
        recomputed = {s: (d.scores or ScoreMoments()).summary() for s, d in splits.items()}
        total = ScoreMoments()
        for d in splits.values():
            total = total + (d.scores or ScoreMoments())
        stats = pblock.get("statistics")
        if not isinstance(stats, dict):
            self.problem(f"{README}: {where}: polyprobe statistics are missing")
            return
        if stats.get("scores") != total.summary():
            self.problem(
                f"{README}: {where}: statistics scores = {stats.get('scores')!r}, recomputed "
                f"{total.summary()}"
            )
        ssplits = stats.get("splits") if isinstance(stats.get("splits"), dict) else {}
        for split, want in recomputed.items():
            got = (ssplits.get(split) or {}).get("scores")
            if got != want:
                self.problem(
                    f"{README}: {_where(config, split)}: statistics scores = {got!r}, "
                    f"recomputed {want}"
                )
        rows = tables.get(("scores", config))
        if not rows:
            self.problem(f"{README}: {where}: the body has no score distribution table")
            return
        expected = dict(recomputed)
        expected["total"] = total.summary()
        found = {r[0]: r[1:] for r in rows[1:] if r}
        for split, summary in expected.items():
            want = [str(summary.get(k, "")) for k in SCORE_COLUMNS]
            if found.get(split) != want:
                self.problem(
                    f"{README}: {where}: score table row {split!r} = {found.get(split)}, "
                    f"recomputed {want}"
                )

    def _check_ids_and_leaks(self, config: str, splits: dict[str, _SplitData]) -> None:
        seen: dict[str, str] = {}
        dup: set[str] = set()
        for split, sd in splits.items():
            for i in sd.ids:
                if i in seen:
                    dup.add(i)
                seen.setdefault(i, split)
        if dup:
            self.problem(
                f"{_where(config)}: {len(dup)} id(s) occur more than once: {_examples(dup)}"
            )
        names = list(splits)
        for a_i, a in enumerate(names):
            for b in names[a_i + 1 :]:
                shared = splits[a].groups & splits[b].groups
                if shared:
                    self.problem(
                        f"{_where(config)}: {len(shared)} group(s) occur in both {a!r} and "
                        f"{b!r}: {_examples(shared)}"
                    )
                shared = splits[a].keys & splits[b].keys
                if shared:
                    self.problem(
                        f"{_where(config)}: {len(shared)} lexical_key(s) occur in both {a!r} and "
                        f"{b!r}: {_examples(shared)}"
                    )

    def _check_numbers(
        self,
        config: str,
        splits: dict[str, _SplitData],
        info_splits: dict[str, dict[str, Any]],
        pblock: dict[str, Any],
        label_names: list[str] | None,
        tables: dict[tuple[str, str | None], list[list[str]]],
    ) -> None:
        where = _where(config)
        # dataset_info splits
        for split in ordered_splits(set(info_splits) | set(splits)):
            sd, info = splits.get(split), info_splits.get(split)
            if info is None:
                self.problem(f"{README}: {_where(config, split)}: no dataset_info.splits entry")
                continue
            if sd is None:
                self.problem(
                    f"{README}: {_where(config, split)}: dataset_info lists a split with no "
                    "readable data file"
                )
                continue
            if _int(info.get("num_examples")) != sd.rows:
                self.problem(
                    f"{README}: {_where(config, split)}: dataset_info num_examples = "
                    f"{info.get('num_examples')!r}, the files hold {sd.rows} rows"
                )
            # num_bytes is the Arrow in-memory size, which depends on the pyarrow version that
            # reads the file; a folder built elsewhere must not fail on it, so only its shape is
            # checked (datasets ignores a splits list without it).
            if "num_bytes" in info and _int(info.get("num_bytes")) is None:
                self.problem(
                    f"{README}: {_where(config, split)}: dataset_info num_bytes = "
                    f"{info.get('num_bytes')!r} is not a byte count"
                )

        if label_names is None:
            return
        counts = {s: d.counts for s, d in splits.items() if d.counts is not None}
        by_name = {s: dict(zip(label_names, c, strict=True)) for s, c in counts.items()}
        total_rows = sum(d.rows for d in splits.values())
        total_labels = {n: sum(c[n] for c in by_name.values()) for n in label_names}

        # YAML statistics
        stats = pblock.get("statistics") if isinstance(pblock, dict) else None
        if not isinstance(stats, dict):
            self.problem(f"{README}: {where}: polyprobe statistics are missing")
        else:
            if _int(stats.get("num_examples")) != total_rows:
                self.problem(
                    f"{README}: {where}: statistics num_examples = {stats.get('num_examples')!r}, "
                    f"the files hold {total_rows}"
                )
            if stats.get("labels") != total_labels:
                self.problem(
                    f"{README}: {where}: statistics labels = {stats.get('labels')!r}, "
                    f"recomputed {total_labels}"
                )
            ssplits = stats.get("splits") if isinstance(stats.get("splits"), dict) else {}
            for split in ordered_splits(set(ssplits) | set(splits)):
                st, sd = ssplits.get(split), splits.get(split)
                w = f"{README}: {_where(config, split)}: statistics"
                if not isinstance(st, dict):
                    self.problem(f"{w}: missing")
                    continue
                if sd is None:
                    self.problem(f"{w}: describe a split with no data file")
                    continue
                if _int(st.get("num_examples")) != sd.rows:
                    self.problem(
                        f"{w} num_examples = {st.get('num_examples')!r}, files hold {sd.rows}"
                    )
                if split in by_name and st.get("labels") != by_name[split]:
                    self.problem(f"{w} labels = {st.get('labels')!r}, recomputed {by_name[split]}")
            dropped = stats.get("dropped") or {}
            table = tables.get(("dropped", config))
            if dropped or table:
                body = {r[0]: _int(r[1]) for r in (table or [])[1:] if len(r) >= 2}
                if body != {str(k): _int(v) for k, v in dropped.items()}:
                    self.problem(
                        f"{README}: {where}: body drop table {body} differs from YAML "
                        f"statistics.dropped {dropped}"
                    )

        # Body label table
        rows = tables.get(("labels", config))
        if not rows:
            self.problem(f"{README}: {where}: the body has no label distribution table")
            return
        header, body_rows = rows[0], rows[1:]
        split_cols = header[2:-1]
        if header[:2] != ["label", "id"] or header[-1:] != ["total"]:
            self.problem(f"{README}: {where}: unexpected label table header {header}")
            return
        if split_cols != list(splits):
            self.problem(
                f"{README}: {where}: label table has split columns {split_cols}, the files "
                f"have {list(splits)}"
            )
        expected: dict[str, list[int | None]] = {}
        for i, label in enumerate(label_names):
            row = [counts[s][i] if s in counts else None for s in split_cols]
            expected[label] = [*row, total_labels[label]]
        expected[""] = [
            *(splits[s].rows if s in splits else None for s in split_cols),
            total_rows,
        ]
        found: dict[str, list[int | None]] = {}
        for r in body_rows:
            key = r[0] if r[1:2] != [""] else ""
            found[key] = [_int(c) for c in r[2:]]
        for key, want in expected.items():
            label = f"label {key!r}" if key else "the total row"
            if key not in found:
                self.problem(f"{README}: {where}: label table lacks {label}")
            elif found[key] != want:
                self.problem(
                    f"{README}: {where}: label table {label} says "
                    f"{dict(zip([*split_cols, 'total'], found[key], strict=False))}, recomputed "
                    f"{dict(zip([*split_cols, 'total'], want, strict=False))}"
                )
        for key in sorted(set(found) - set(expected)):
            self.problem(f"{README}: {where}: label table has an unknown label {key!r}")

    # -- folder-wide --------------------------------------------------------------------------

    def _check_overview(
        self,
        tables: dict[tuple[str, str | None], list[list[str]]],
        totals: dict[str, dict[str, int]],
    ) -> None:
        rows = tables.get(("configs", None))
        if not rows:
            self.problem(f"{README}: the body has no configs overview table")
            return
        header = rows[0]
        if header[:3] != ["config", "task", "default"] or header[-1:] != ["total"]:
            self.problem(f"{README}: unexpected configs table header {header}")
            return
        split_cols = header[3:-1]
        found = {r[0]: r for r in rows[1:]}
        for name, per_split in totals.items():
            row = found.get(name)
            if row is None:
                self.problem(f"{README}: the configs table lacks {_where(name)}")
                continue
            want = [str(per_split[s]) if s in per_split else "—" for s in split_cols]
            want.append(str(sum(per_split.values())))
            if row[3:] != want:
                self.problem(
                    f"{README}: configs table row for {_where(name)} says {row[3:]}, "
                    f"recomputed {want} (columns {[*split_cols, 'total']})"
                )
            missing = set(per_split) - set(split_cols)
            if missing:
                self.problem(
                    f"{README}: the configs table has no column for split(s) {sorted(missing)} "
                    f"of {_where(name)}"
                )
        for extra in sorted(set(found) - set(totals)):
            self.problem(f"{README}: the configs table lists unknown config {extra!r}")

    def _check_size_categories(self, value: Any, totals: dict[str, dict[str, int]]) -> None:
        if not totals:
            return
        want = [size_category(max(sum(t.values()) for t in totals.values()))]
        if value != want:
            self.problem(
                f"{README}: size_categories = {value!r}, the largest config's rows give {want}"
            )

    def _check_stray_files(self) -> None:
        for rel in sorted(self.folder.tree):
            if rel.startswith("data/") and rel not in self.listed:
                self.problem(f"{rel}: file under data/ is not listed in any config's data_files")

    def _check_report(self) -> None:
        path = self.root / REPORT
        if not path.is_file():
            self.problem(f"{REPORT}: missing")
            return
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            self.problem(f"{REPORT}: not valid JSON ({exc})")


# RE2 (Arrow's regex engine): every C0 control character but tab, the rule the input layer
# refuses lines and fields by (polyprobe.controlchars: one rule for both).
_CONTROL = CONTROL_PATTERN


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _is_text_column(kind: pa.DataType) -> bool:
    """A column of strings or of lists of strings (``tokens``)."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _is_text(kind.value_type)
    return _is_text(kind)


def _may_hold_control(strings: pa.Array) -> bool:
    """Whether the bytes behind a string array hold a byte below 0x20 other than tab: in
    UTF-8 such a byte is always a C0 character. A look at the raw buffer (a millisecond for
    all of EWT) so that only an array that may hold one is searched string by string; bytes
    of the buffer outside the array's slice can only cause that search, never a report."""
    data = strings.buffers()[2]
    if data is None or data.size == 0:
        return False
    raw = np.frombuffer(data, dtype=np.uint8)
    return int(np.count_nonzero(raw < 32)) > int(np.count_nonzero(raw == 9))


def _control_rows(column: pa.ChunkedArray) -> list[int]:
    """Rows (0-based, in the column's order) whose text holds a C0 character but tab."""
    rows: list[int] = []
    offset = 0
    for chunk in column.chunks:
        is_list = not _is_text(chunk.type)
        if _may_hold_control(chunk.values if is_list else chunk):
            values = pc.list_flatten(chunk) if is_list else chunk
            found = pc.match_substring_regex(values, _CONTROL).to_numpy(zero_copy_only=False)
            matched = found.nonzero()[0]
            if is_list:
                matched = pc.list_parent_indices(chunk).to_numpy()[matched]
            rows.extend(sorted({int(i) + offset for i in matched}))
        offset += len(chunk)
    return rows


def _control_characters(pf: pq.ParquetFile, table: pa.Table) -> list[str]:
    """One line per string column (or list-of-strings column) of the file holding a C0
    control character other than tab: how many rows, and the first row's id and character.
    Columns already read (``table``) are searched there; the others a row group at a time,
    since text columns can be most of a file."""
    columns = [f.name for f in pf.schema_arrow if _is_text_column(f.type)]
    hits = {n: _control_rows(table.column(n)) for n in table.column_names if n in columns}
    rest = [name for name in columns if name not in table.column_names]
    offset = 0
    for group in range(pf.num_row_groups if rest else 0):
        part = pf.read_row_group(group, columns=rest, use_threads=False)
        for name in rest:
            hits.setdefault(name, []).extend(offset + i for i in _control_rows(part.column(name)))
        offset += part.num_rows
    ids = table.column("id") if "id" in table.column_names else None
    out = []
    for name in columns:
        rows = hits.get(name)
        if not rows:
            continue
        first = rows[0]
        value = pf.read(columns=[name], use_threads=False).column(name)[first].as_py()
        text = "\t".join(value) if isinstance(value, list) else value
        char = text[first_control(text)]
        row = f"row id {ids[first].as_py()!r}" if ids is not None else f"row {first}"
        out.append(
            f"column {name!r}: {len(rows)} row(s) hold a control character ({control_name(char)} "
            f"in {row}); C0 characters other than tab are not text"
        )
    return out


# The columns a row cannot go without: its inputs (what ``evaluate`` encodes), its label, and
# the id, group and key the split checks read. A null in one is refused here as ``evaluate``
# refuses it, so that a folder ``validate`` passes is one ``evaluate`` reads.
_REQUIRED = frozenset(
    {
        "id",
        "label",
        "group",
        "sentence",
        "text",
        "tokens",
        "word",
        "word1",
        "word2",
        "word3",
        "word4",
        "sentence1",
        "sentence2",
        "sentence3",
        "sentence4",
        "sentences",
        "left",
        "right",
        "target_index",
        "index1",
        "index2",
    }
)


def _null_texts(pf: pq.ParquetFile, table: pa.Table) -> list[str]:
    """One line per required column holding nulls: how many rows, and the first one's id.
    The row groups' statistics answer for a column without nulls (no read); a column is
    read only when they report nulls or are absent."""
    meta = pf.metadata
    names = [n for n in pf.schema_arrow.names if n in _REQUIRED]
    ids = table.column("id") if "id" in table.column_names else None
    out = []
    for name in names:
        index = pf.schema_arrow.get_field_index(name)
        leaf = next(
            (
                i
                for i in range(meta.num_columns)
                if meta.schema.column(i).path.split(".")[0] == name
            ),
            None,
        )
        clean = leaf is not None and all(
            (st := meta.row_group(g).column(leaf).statistics) is not None
            and st.has_null_count
            and st.null_count == 0
            for g in range(meta.num_row_groups)
        )
        if clean or index < 0:
            continue
        column = (
            table.column(name)
            if name in table.column_names
            else pf.read(columns=[name], use_threads=False).column(name)
        )
        if column.null_count == 0:
            continue
        first = int(pc.index(pc.is_null(column), True).as_py())
        row = f"row id {ids[first].as_py()!r}" if ids is not None else f"row {first + 1}"
        out.append(
            f"column {name!r} is null in {column.null_count} row(s) (first: {row}); every row "
            "needs its inputs and label (evaluate refuses such a split)"
        )
    return out


def _merge(parts: list[_SplitData]) -> _SplitData:
    """One split may in principle be sharded into several files; the card counts the union."""
    if len(parts) == 1:
        return parts[0]
    counts = None
    if all(p.counts is not None for p in parts):
        counts = [sum(c) for c in zip(*(p.counts for p in parts if p.counts), strict=True)]
    return _SplitData(
        rows=sum(p.rows for p in parts),
        counts=counts,
        ids=[i for p in parts for i in p.ids],
        groups=set().union(*(p.groups for p in parts)),
        keys=set().union(*(p.keys for p in parts)),
        keyless=sum(p.keyless for p in parts),
        scores=_merged_scores(parts),
    )


def _merged_scores(parts: list[_SplitData]) -> ScoreMoments | None:
    if any(p.scores is None for p in parts):
        return None
    total = ScoreMoments()
    for p in parts:
        total = total + (p.scores or ScoreMoments())
    return total


def _declares_scores(features: dict[str, Any] | None, pblock: Any) -> bool:
    """A scored config (``label_type: score``): its label is a float ``Value``, its
    statistics are score summaries. Either half without the other is a problem the class
    checks then report (the label is not a ClassLabel / the labels differ)."""
    declared = isinstance(pblock, dict) and pblock.get("label_type") == "score"
    feature = (features or {}).get("label")
    return declared and (features is None or schema.is_score_feature(feature))


def validate(path: str | Path) -> ValidationReport:
    """Check a dataset folder; ``report.ok`` is False when any invariant is violated."""
    return _Validator(Path(path)).run()
