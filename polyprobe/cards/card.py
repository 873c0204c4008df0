"""The dataset card: README.md = YAML front matter (machine-readable, what ``datasets`` and the
Hub read) + a markdown body (what people read). Both are rendered from plain data and from
statistics of the written files; nothing here formats YAML by hand or reads a clock.

The card is laid out so that it survives ``huggingface_hub.DatasetCard`` load/save byte for
byte: the front matter is exactly ``yaml.safe_dump(data, sort_keys=False, allow_unicode=True)``
stripped, between ``---`` lines, which is what ``DatasetCard.content`` regenerates, and no
top-level value is ``None`` (``CardData.to_dict`` would drop it). Body tables that ``validate``
re-checks are preceded by an HTML comment anchor (invisible on the Hub) so they can be found
again without guessing at headings.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import Any

import yaml

from polyprobe import hubmeta
from polyprobe.cards import schema
from polyprobe.cards.overview import overview_rows
from polyprobe.cards.payload import ConfigCard, ConfigPayload
from polyprobe.cards.stats import (
    POWER,
    POWER_ALPHA,
    SCORE_DECIMALS,
    ConfigStats,
    ScoreMoments,
    detectable_difference,
    ordered_splits,
    size_category,
)
from polyprobe.metadata import INPUT_COLUMNS, DatasetMeta, Level, SourceInfo

README = "README.md"
REPORT = "report.json"

# Same pattern as huggingface_hub.repocard.REGEX_YAML_BLOCK (itself the Hub server's).
_FRONT_MATTER = re.compile(r"^(\s*---(?:\r\n|\r|\n))([\S\s]*?)((?:\r\n|\r|\n)---[ \t]*(\r\n|\n|$))")

# Characters escaped with a backslash in table cells (CommonMark allows escaping any ASCII
# punctuation; these are the ones that would change a cell's rendering or split the table).
_MD_SPECIAL = set("\\|*`[]<>~&")
_ANCHOR = re.compile(
    r"^<!-- polyprobe:(?P<kind>[a-z-]+)(?: config=(?P<config>\"(?:[^\"\\]|\\.)*\"))? -->$"
)

EXAMPLE_CELL_CHARS = 160
# A derived-profile value longer than this (inline) is shown in a collapsible block below the
# build table instead of one table cell (EWT's ``tasks`` entry is ~6,000 characters).
PROFILE_CELL_CHARS = 160

# libyaml's safe loader when available: the same result as SafeLoader, ~10x faster on big cards.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CardFormatError(ValueError):
    """README.md has no parseable YAML front matter."""


# ---------------------------------------------------------------------------------------------
# plain data and YAML


def plain(value: Any) -> Any:
    """Convert to YAML/JSON-safe plain data (str-Enums such as ``Level``, tuples, numpy
    scalars, dataclasses and paths would otherwise make ``yaml.safe_dump`` fail or emit Python
    tags). Dict key order is kept: it is the order the card shows."""
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value))
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, PurePath):
        return value.as_posix()
    if isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return plain(item())
    raise TypeError(f"cannot put {type(value).__name__} into a dataset card: {value!r}")


def dump_yaml(data: dict[str, Any]) -> str:
    """The front matter text, without the ``---`` fences."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).strip()


def render_readme(data: dict[str, Any], body: str) -> str:
    """``---\\n<yaml>\\n---\\n<body>``: the exact form ``DatasetCard.content`` regenerates."""
    return f"---\n{dump_yaml(data)}\n---\n{body}"


def split_readme(text: str) -> tuple[dict[str, Any], str]:
    """(front matter as data, body). Raises :class:`CardFormatError` without front matter."""
    match = _FRONT_MATTER.search(text)
    if not match:
        raise CardFormatError("no YAML front matter (a '---' block at the top)")
    try:
        data = yaml.load(match.group(2), Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise CardFormatError(f"YAML front matter does not parse: {exc}") from exc
    if not isinstance(data, dict):
        raise CardFormatError("YAML front matter is not a mapping")
    return data, text[match.end() :]


def has_block(text: str, key: str) -> bool:
    """Does the README ``text``'s front matter hold a top-level block mapping ``key``? A
    test of the text, not a parse: an unindented ``key:`` line followed by an indented line,
    which is how block-style YAML (every card this package writes) spells a mapping value.
    For questions that a whole parse (50 ms for a full suite's card) would only answer with
    this: is a folder one of ours?"""
    match = _FRONT_MATTER.search(text)
    if not match:
        return False
    pattern = rf"^{re.escape(key)}:[ \t]*\r?\n[ \t]+[^\s#]"
    return re.search(pattern, match.group(2), re.MULTILINE) is not None


def read_readme(path: str | Path) -> tuple[dict[str, Any], str]:
    text = Path(path).read_text(encoding="utf-8")
    return split_readme(text)


def hub_license(license_id: str) -> str:
    """The Hub's ``license`` field uses lower-case ids (``cc-by-sa-4.0``, ``other``)."""
    value = (license_id or "").strip().lower()
    return value or "unknown"


# ---------------------------------------------------------------------------------------------
# markdown tables


def md_escape(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(plain(value), ensure_ascii=False)
    text = " ".join(text.split())
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def md_unescape(cell: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", cell.strip())


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Sequence[bool]) -> str:
    """A GitHub-flavoured markdown table; numeric columns right-aligned. Cells are escaped."""
    lines = [
        "| " + " | ".join(md_escape(h) for h in header) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(md_escape(c) for c in row) + " |")
    return "\n".join(lines)


def anchor(kind: str, config: str | None = None) -> str:
    attr = f" config={json.dumps(config, ensure_ascii=False)}" if config is not None else ""
    return f"<!-- polyprobe:{kind}{attr} -->"


def parse_md_row(line: str) -> list[str]:
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [md_unescape(c) for c in re.split(r"(?<!\\)\|", inner)]


def anchored_tables(body: str) -> dict[tuple[str, str | None], list[list[str]]]:
    """Every anchored table in the body: (kind, config) -> rows (header first, no rule line).
    A later duplicate anchor replaces an earlier one only if validate reports it; here we keep
    the first, which is what a reader sees first."""
    out: dict[tuple[str, str | None], list[list[str]]] = {}
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        m = _ANCHOR.match(lines[i].strip())
        i += 1
        if not m:
            continue
        key = (m["kind"], json.loads(m["config"]) if m["config"] else None)
        rows: list[list[str]] = []
        while i < len(lines) and lines[i].strip().startswith("|"):
            if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i].strip()):
                rows.append(parse_md_row(lines[i]))
            i += 1
        out.setdefault(key, rows)
    return out


# ---------------------------------------------------------------------------------------------
# the card


def polyprobe_config_block(payload: ConfigPayload) -> dict[str, Any]:
    """The payload's ``polyprobe`` dict, completed with task/level/inputs/labels so that
    evaluation needs nothing but the card. A disagreement with the payload is a pipeline bug."""
    block = plain(dict(payload.polyprobe))
    level = Level(payload.level).value
    required = {
        "task": payload.task,
        "level": level,
        "inputs": list(INPUT_COLUMNS[Level(level)]),
        "labels": list(payload.label_names),
    }
    for key, value in required.items():
        if key in block and block[key] != value:
            raise ValueError(
                f"config {payload.name!r}: polyprobe[{key!r}] = {block[key]!r} disagrees with "
                f"the payload ({value!r})"
            )
    block = {**required, **{k: v for k, v in block.items() if k not in required}}
    for reserved in ("statistics",):
        if reserved in block:
            raise ValueError(
                f"config {payload.name!r}: polyprobe[{reserved!r}] is set by the writer"
            )
    return block


def config_statistics(cfg: ConfigCard) -> dict[str, Any]:
    block = cfg.stats.yaml_block()
    block["dropped"] = {str(k): int(v) for k, v in cfg.payload.dropped.items()}
    block["dropped_classes"] = {str(k): str(v) for k, v in cfg.payload.dropped_classes.items()}
    return block


def hub_fields(configs: Sequence[ConfigCard], meta: DatasetMeta) -> dict[str, Any]:
    """The Hub's standard fields (:mod:`polyprobe.hubmeta`), in the order its cards give
    them: who made the labels and the texts and the multilinguality as the build says
    (else as the sources' kinds say), the size, ``source_datasets`` in the Hub's form, the
    task categories and the configs' sub-task ids."""
    kinds = [s.kind for s in meta.sources if s.role == "rows"]
    creators = [hubmeta.source_creators(k) for k in kinds] or [hubmeta.DEFAULT_CREATORS]
    annotations = meta.annotations_creators or [a for a, _ in creators]
    language = meta.language_creators or [w for _, w in creators]
    translation = any(Level(c.payload.level) is Level.WORD_TRANSLATION for c in configs)
    ids = (
        hubmeta.task_id(
            Level(c.payload.level).value,
            c.payload.scored,
            str(c.payload.polyprobe.get("task_type", "probing")),
        )
        for c in configs
    )
    largest = max(c.stats.num_examples for c in configs)
    return {
        "annotations_creators": hubmeta.ordered(annotations, hubmeta.ANNOTATIONS_CREATORS),
        "language_creators": hubmeta.ordered(language, hubmeta.LANGUAGE_CREATORS),
        "multilinguality": list(meta.multilinguality)
        or hubmeta.multilinguality(meta.languages, translation),
        "size_categories": [size_category(largest)],
        "source_datasets": hubmeta.source_datasets(kinds, meta.source_datasets),
        "task_categories": list(meta.task_categories),
        "task_ids": sorted({i for i in ids if i is not None}),
    }


def card_data(configs: Sequence[ConfigCard], meta: DatasetMeta) -> dict[str, Any]:
    """The YAML front matter as plain data."""
    license_id = hub_license(meta.license)
    data: dict[str, Any] = {
        "pretty_name": meta.pretty_name,
        "language": list(meta.languages),
        "license": license_id,
    }
    if license_id == "other":
        data["license_name"] = "per-source-licences"
    data.update(hub_fields(configs, meta))
    data["tags"] = list(meta.tags)

    data["configs"] = []
    data["dataset_info"] = []
    for cfg in configs:
        entry: dict[str, Any] = {"config_name": cfg.name}
        if cfg.payload.default:
            entry["default"] = True
        entry["data_files"] = [{"split": s.name, "path": s.path} for s in cfg.stats.splits.values()]
        data["configs"].append(entry)
        features = schema.features_dict(
            cfg.payload.level,
            cfg.payload.label_names,
            cfg.payload.extra_features,
            scored=cfg.payload.scored,
        )
        data["dataset_info"].append(
            {
                "config_name": cfg.name,
                "features": schema.yaml_features(features),
                "splits": [
                    {"name": s.name, "num_bytes": s.num_bytes, "num_examples": s.num_examples}
                    for s in cfg.stats.splits.values()
                ],
            }
        )

    block: dict[str, Any] = {
        "version": meta.polyprobe_version,
        "release": meta.release,
        "fingerprint": meta.fingerprint,
        "license": meta.license,
        "license_mix_allowed": bool(meta.license_mix_allowed),
        "parameters": meta.parameters,
        "profile": meta.profile,
        "skipped_invalid": meta.skipped_invalid,
        "duplicates": meta.duplicates,
        "sources": [s.card_entry() for s in meta.sources],
        "changelog": list(meta.changelog),
    }
    if meta.bump_check:
        block["bump_check"] = dict(meta.bump_check)
    if meta.members:
        block["members"] = [
            {
                "name": m["name"],
                "family": m["family"],
                "tasks": list(m["tasks"]),
                "renamed": dict(m.get("renamed") or {}),
            }
            for m in meta.members
        ]
    block["configs"] = {}
    for cfg in configs:
        cblock = polyprobe_config_block(cfg.payload)
        cblock["statistics"] = config_statistics(cfg)
        block["configs"][cfg.name] = cblock
    data["polyprobe"] = block
    return plain(data)


def _inline(value: Any) -> str:
    """A compact one-line rendering of a parameter value for a table cell."""
    value = plain(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_inline(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list):
        return ", ".join(_inline_nested(v) for v in value) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == "":
        return "—"
    return str(value)


def _inline_nested(value: Any) -> str:
    """Inner lists keep their brackets (bins ``[[1, 4], [5, 8]]`` must not read as a flat list)."""
    if isinstance(value, list):
        return "[" + ", ".join(_inline_nested(v) for v in value) + "]"
    return _inline(value)


def _example_cell(value: Any) -> str:
    text = " · ".join(str(v) for v in value) if isinstance(value, list) else _inline(value)
    if len(text) > EXAMPLE_CELL_CHARS:
        text = text[: EXAMPLE_CELL_CHARS - 1] + "…"
    return text


SCORE_COLUMNS = ("n", "min", "max", "mean", "std")


def score_table(config: str, st: ConfigStats) -> list[str]:
    """A scored config's score statistics per split and overall (``validate`` recomputes
    them from the files): what its label distribution is for a class config."""
    rows = []
    summaries = [(s, (sp.scores or ScoreMoments()).summary()) for s, sp in st.splits.items()]
    for split, summary in [*summaries, ("total", st.total_scores().summary())]:
        rows.append([split, *(str(summary.get(k, "")) for k in SCORE_COLUMNS)])
    return [
        "**Score distribution** (the chart shows ten equal-width score bins)",
        "",
        anchor("scores", config),
        md_table(["split", *SCORE_COLUMNS], rows, [False, *([True] * len(SCORE_COLUMNS))]),
        "",
    ]


def plot_path(config: str) -> str:
    return f"plots/{config}.png"


def _config_section(cfg: ConfigCard, load_target: str) -> list[str]:
    p, st = cfg.payload, cfg.stats
    splits = list(st.splits)
    out = [f"### `{p.name}`" + (" (default)" if p.default else ""), ""]
    if p.description:
        out += [p.description.strip(), ""]
    out += [
        "```python",
        f"ds = datasets.load_dataset({json.dumps(load_target)}, {json.dumps(p.name)})",
        "```",
        "",
    ]

    meta_rows = [(k, _inline(v)) for k, v in polyprobe_config_block(p).items()]
    out += ["**Configuration**", "", md_table(["key", "value"], meta_rows, [False, False]), ""]
    if p.recipe:
        rows = [(k, _inline(v)) for k, v in plain(p.recipe).items()]
        out += [
            "**Recipe parameters**",
            "",
            md_table(["parameter", "value"], rows, [False, False]),
            "",
        ]

    heading = "**Rows per split** (the label is a score)" if p.scored else "**Label distribution**"
    out += [heading, "", anchor("labels", p.name)]
    rows = []
    for i, label in enumerate(st.label_names):
        counts = [st.splits[s].label_counts[i] for s in splits]
        rows.append([label, str(i), *map(str, counts), str(sum(counts))])
    rows.append(
        ["total", "", *(str(st.splits[s].num_examples) for s in splits), str(st.num_examples)]
    )
    out += [
        md_table(
            ["label", "id", *splits, "total"], rows, [False, True, *([True] * (len(splits) + 1))]
        ),
        "",
        f"![label distribution of {p.name}]({plot_path(p.name)})",
        "",
    ]
    if p.scored:
        out += score_table(p.name, st)
    else:  # an accuracy difference means nothing for a graded score
        out += power_section(st)

    if st.examples:
        columns = [c for c in st.examples[0] if c not in ("group", "lexical_key")]
        rows = []
        for row in st.examples:
            cells = []
            for c in columns:
                v = row[c]
                if c == "label":
                    v = round(v, SCORE_DECIMALS) if p.scored else st.label_names[v]
                cells.append(_example_cell(v))
            rows.append(cells)
        out += [
            f"**Examples** (the first {len(st.examples)} rows of `{st.examples_split}`)",
            "",
            md_table(columns, rows, [False] * len(columns)),
            "",
        ]

    out += ["**Dropped**", ""]
    if p.dropped:
        out += [
            anchor("dropped", p.name),
            md_table(
                ["reason", "items"],
                [(k, str(int(v))) for k, v in plain(p.dropped).items()],
                [False, True],
            ),
            "",
        ]
    else:
        out += ["Nothing was dropped by the task or the variant engine.", ""]
    if p.dropped_classes:
        out += [
            "Classes dropped from this config:",
            "",
            md_table(["class", "why"], list(plain(p.dropped_classes).items()), [False, False]),
            "",
        ]
    if p.notes:
        out += ["**Notes**", "", *(f"- {md_escape(n)}" for n in p.notes), ""]
    return out


def power_section(st: ConfigStats) -> list[str]:
    """What the test split can tell apart: the smallest accuracy difference between two
    encoders it detects (issue 14: a 70-row test split could not separate a real encoder from
    the random baseline). Kept in its own function: other levels may print more here."""
    test = st.splits.get("test")
    n = test.num_examples if test is not None else 0
    d = detectable_difference(n)
    if d is None:
        return ["**Test power**", "", "This config has no test split.", ""]
    return [
        "**Test power**",
        "",
        f"With {n} test rows, two encoders' accuracies must differ by at least "
        f"{100 * d:.1f} points to be told apart (two-proportion z-test, alpha = "
        f"{POWER_ALPHA} two-sided, power {POWER}, accuracies around 50%: the worst case).",
        "",
    ]


_CONFIG_HEADING = re.compile(r"^### `(?P<name>(?:[^`\\]|\\.)+)`(?: \(default\))?$")
CONFIG_HEADING = _CONFIG_HEADING  # a config section's heading (cards.baselines finds them)


def config_descriptions(body: str) -> dict[str, str]:
    """Each config's task description as the card body shows it (the paragraph under the
    config's heading): what a reader of the card, or an export, learns of the task without
    knowing the task itself."""
    out: dict[str, str] = {}
    lines = body.splitlines()
    for i, line in enumerate(lines):
        m = _CONFIG_HEADING.match(line)
        if not m:
            continue
        paragraph: list[str] = []
        for nxt in lines[i + 1 :]:
            if nxt.startswith(("```", "#", "**")):
                break
            if nxt.strip() or paragraph:
                if not nxt.strip():
                    break
                paragraph.append(nxt.strip())
        out[m["name"]] = " ".join(paragraph)
    return out


def card_body(configs: Sequence[ConfigCard], meta: DatasetMeta) -> str:
    """The markdown body. Every number comes from ``ConfigStats`` (the written files) or from
    the meta the pipeline counted (skips, duplicates, drops)."""
    load_target = meta.repo_id or "path/to/this/folder"
    default = next((c.name for c in configs if c.payload.default), configs[0].name)
    out: list[str] = ["", f"# {meta.pretty_name}", ""]
    summary = meta.summary.strip() or (
        f"Probing datasets built by polyprobe {meta.polyprobe_version} from "
        + ", ".join(s.name for s in meta.sources)
        + "."
    )
    out += [summary, ""]
    out += _release_section(meta)

    out += [
        "## How to load",
        "",
        "```python",
        "import datasets",
        "",
        f"ds = datasets.load_dataset({json.dumps(load_target)}, {json.dumps(default)})",
        'print(ds["train"].features["label"].names)'
        if "train" in _splits_of(configs, default)
        else f'print(ds[{json.dumps(_splits_of(configs, default)[0])}].features["label"].names)',
        "```",
        "",
        "Labels are `ClassLabel`s; `group` (items from one source sentence share it) and "
        "`lexical_key` never occur in two splits of one config.",
        "",
    ]
    out += _not_built_section(meta)
    if meta.members:
        out += _overview_section(configs, meta)
    out += ["## Configs", ""]
    all_splits = ordered_splits({s for c in configs for s in c.stats.splits})
    rows = []
    for c in configs:
        counts = [
            str(c.stats.splits[s].num_examples) if s in c.stats.splits else "—" for s in all_splits
        ]
        rows.append(
            [
                c.name,
                c.payload.task,
                "yes" if c.payload.default else "",
                *counts,
                str(c.stats.num_examples),
            ]
        )
    out += [
        anchor("configs"),
        md_table(
            ["config", "task", "default", *all_splits, "total"],
            rows,
            [False, False, False, *([True] * (len(all_splits) + 1))],
        ),
        "",
    ]
    if meta.members:
        out += _member_sections(configs, meta, load_target)
    else:
        for c in configs:
            out += _config_section(c, load_target)

    out += ["## Skipped invalid input", ""]
    if meta.skipped_invalid:
        out += [
            md_table(
                ["reason", "sentences"],
                [(k, str(int(v))) for k, v in plain(meta.skipped_invalid).items()],
                [False, True],
            ),
            "",
        ]
    else:
        out += ["No invalid input was skipped.", ""]

    out += ["## Duplicate sentences", ""]
    if meta.duplicates:
        out += [
            "Sentences whose NFC, whitespace-normalised text is identical share one `group`, "
            "so they always land in the same split.",
            "",
            md_table(
                ["what", "count"],
                [(k, _inline(v)) for k, v in plain(meta.duplicates).items()],
                [False, True],
            ),
            "",
        ]
    else:
        out += ["No duplicate sentences were found.", ""]

    out += ["## Sources", ""]
    out += [
        md_table(
            ["source", "kind", "version", "licence"],
            [(s.name, s.kind, s.version, s.license) for s in meta.sources],
            [False] * 4,
        ),
        "",
    ]
    if any(s.kind == "ud-treebank" for s in meta.sources):
        out += [
            "A treebank's version is its folder's git commit, else the version given with "
            "`--source-version`, else the newest release its README's changelog names.",
            "",
        ]
    file_rows = [
        (s.name, f.get("name", ""), f.get("sha256", "")) for s in meta.sources for f in s.files
    ]
    if file_rows:
        out += [
            "Input files:",
            "",
            md_table(["source", "file", "sha256"], file_rows, [False] * 3),
            "",
        ]

    out += ["## Licence", ""]
    rows = [s for s in meta.sources if s.role == "rows"]
    references = [s for s in meta.sources if s.role != "rows"]
    if hub_license(meta.license) == "other":
        out += [
            "The sources do not share one licence; each row is under its source's licence:",
            "",
            md_table(["source", "licence"], [(s.name, s.license) for s in rows], [False, False]),
            "",
        ]
    elif references:
        out += [f"`{meta.license}`, the licence of every source of rows.", ""]
    else:
        out += [f"`{meta.license}`, the licence of every source.", ""]
    if references:
        out += [
            "Reference sources inform which rows are chosen (e.g. which forms are frequent) "
            "but no row comes from them; they keep their own licences:",
            "",
            md_table(
                ["source", "licence"], [(s.name, s.license) for s in references], [False, False]
            ),
            "",
        ]
    if meta.license_mix_allowed:
        out += [
            "Sources under NonCommercial and ShareAlike licences were merged because the builder "
            "was run with `--allow-license-mix`; check that your use is compatible with both.",
            "",
        ]

    out += ["## Build", ""]
    build_rows = [("polyprobe version", meta.polyprobe_version), ("fingerprint", meta.fingerprint)]
    build_rows += [(f"parameter {k}", _inline(v)) for k, v in plain(meta.parameters).items()]
    long_values: list[tuple[str, Any]] = []
    for k, v in plain(meta.profile).items():
        cell = _inline(v)
        if len(cell) > PROFILE_CELL_CHARS and isinstance(v, (dict, list)):
            long_values.append((k, v))
            cell = f"{_size_words(v)}, in full below"
        build_rows.append((f"profile {k}", cell))
    out += [md_table(["", "value"], build_rows, [False, False]), ""]
    for k, v in long_values:
        out += _details(f"Derived profile: <code>{_html_escape(k)}</code>", "yaml", dump_yaml(v))
    out += [
        "The fingerprint hashes the inputs, the recipes, the parameters and the polyprobe "
        "version: the same fingerprint means the same rows.",
        "",
    ]

    citations = []
    for c in configs:
        if c.payload.citation.strip() and c.payload.citation.strip() not in citations:
            citations.append(c.payload.citation.strip())
    out += ["## Citations", ""]
    if citations:
        for cit in citations:
            out += _code_block(cit)
    else:
        out += ["No task citations.", ""]
    out += _source_citations(meta)
    return "\n".join(out).rstrip("\n") + "\n"


def _overview_section(configs: Sequence[ConfigCard], meta: DatasetMeta) -> list[str]:
    """A suite's table of every built task (:mod:`polyprobe.cards.overview`)."""
    header, rows = overview_rows(configs, meta.members)
    numeric = [False] * 4 + [True] * (len(header) - 4)
    return [
        "## Overview",
        "",
        "One row per task: its recommended config (the one to report; the others are its "
        "balance and size variants), rows per split, and the smallest difference between two "
        "encoders' test accuracies that its test split can detect (two-proportion z-test, "
        f'alpha = {POWER_ALPHA}, power {POWER}; "—" for a scored task).',
        "",
        anchor("overview"),
        md_table(header, rows, numeric),
        "",
    ]


def _member_sections(
    configs: Sequence[ConfigCard], meta: DatasetMeta, load_target: str
) -> list[str]:
    """A suite's configs, member by member, each under its member's heading and summary."""
    out: list[str] = []
    for m in meta.members:
        mine = [c for c in configs if c.payload.polyprobe.get("member") == m["name"]]
        if not mine:
            continue
        out += [f"## Member `{m['name']}` ({m['family']}): {m['title']}", ""]
        if str(m.get("summary", "")).strip():
            out += [str(m["summary"]).strip(), ""]
        for c in mine:
            out += _config_section(c, load_target)
    return out


def _code_block(text: str, lang: str | None = None) -> list[str]:
    """A fenced block (BibTeX is marked so); the fence is longer than any backtick run in
    the text, so no text can close it early."""
    if lang is None:
        lang = "bibtex" if text.lstrip().startswith("@") else "text"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text, fence, ""]


def _source_label(source: SourceInfo) -> str:
    """``UD_English-EWT (UD release v2.16)``, or the version as the card's Sources table
    gives it (a git commit, a ``--source-version``)."""
    version = str(source.version)
    if source.kind == "ud-treebank" and re.fullmatch(r"[vr]?\d+\.\d+", version):
        return f"`{source.name}` (UD release {version})"
    return f"`{source.name}` (version `{version}`)"


def _source_citations(meta: DatasetMeta) -> list[str]:
    """The sources' own citations, after the tasks': what each source's README asks to be
    cited, with the release it was taken from, and the sources for which none was recorded."""
    cited = [s for s in meta.sources if str(s.citation or "").strip()]
    silent = [s for s in meta.sources if not str(s.citation or "").strip()]
    out: list[str] = []
    if cited:
        out += ["The sources, as they ask to be cited:", ""]
        for s in cited:
            out += [f"{_source_label(s)}:", "", *_code_block(str(s.citation).strip())]
    if silent:
        names = ", ".join(_source_label(s) for s in silent)
        them = "them" if len(silent) > 1 else "it"
        out += [f"No citation was recorded for {names}; cite {them} by name and version.", ""]
    return out


def _not_built_section(meta: DatasetMeta) -> list[str]:
    """Which tasks were not built, and which variants of built tasks, with the reasons the
    build gave (the same as ``report.json``'s), so a reader of the card learns it too."""
    reports = {
        name: report
        for name, report in plain(meta.feasibility or {}).items()
        if isinstance(report, dict) and "built" in report
    }
    if not reports:  # nothing says what was built: the card claims nothing
        return []
    missing, partial = [], []
    for name, report in reports.items():
        reasons = [str(r) for r in report.get("not_built") or []]
        if not report.get("built"):
            missing.append((name, str(report.get("infeasible") or "no config could be made")))
        else:
            if report.get("infeasible"):
                reasons.insert(0, f"not built: {report['infeasible']}")
            if reasons:
                partial.append((name, "; ".join(reasons)))
    out = ["## Tasks not built", ""]
    if not missing and not partial:
        return out + ["Every task was built, in every variant the build asked for.", ""]
    if missing:
        out += ["These tasks have no config, for the reason the build gave:", ""]
        out += [f"- `{name}`: {md_escape(why)}" for name, why in missing] + [""]
    else:
        out += ["Every task has at least one config.", ""]
    if partial:
        out += ["Variants (sizes, balances) not built for tasks that have configs:", ""]
        out += [f"- `{name}`: {md_escape(why)}" for name, why in partial] + [""]
    out += ["`report.json` has the counts behind each reason.", ""]
    return out


def _size_words(value: dict[str, Any] | list[Any]) -> str:
    return f"{len(value)} entries" if isinstance(value, dict) else f"{len(value)} items"


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _details(summary: str, lang: str, text: str) -> list[str]:
    """A collapsible block (rendered closed on the Hub and GitHub) holding a code block."""
    return [
        "<details>",
        f"<summary>{summary}</summary>",
        "",
        *_code_block(text, lang),
        "</details>",
        "",
    ]


def _release_section(meta: DatasetMeta) -> list[str]:
    """Release version, changelog (newest first) and, if any, the bump check."""
    out = ["## Release", "", f"Version `{meta.release}` of this dataset.", ""]
    if meta.changelog:
        rows = [
            (
                str(e.get("version", "")),
                str(e.get("bump", "")),
                "; ".join(str(x) for x in e.get("summary", [])) or "—",
            )
            for e in reversed(plain(meta.changelog))
        ]
        out += ["Changelog:", "", md_table(["version", "bump", "changes"], rows, [False] * 3), ""]
    check = plain(meta.bump_check)
    if check.get("mismatch_allowed"):
        out += [
            f"This release was published as `{check.get('given')}` although the changes since "
            f"`{check.get('previous')}` require a {check.get('required')} bump "
            f"(`{check.get('expected')}`): the build was run with `--allow-bump-mismatch`.",
            "",
        ]
    return out


def _splits_of(configs: Sequence[ConfigCard], name: str) -> list[str]:
    return next(list(c.stats.splits) for c in configs if c.name == name)
