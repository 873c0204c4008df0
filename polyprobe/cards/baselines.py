"""The bundled baselines' scores in a card: the ``polyprobe.baselines`` YAML block, a small
table under each config's section and one ``## Baselines`` section saying how they were
computed. Only rendering, parsing and checking live here (cards never import evaluation);
``polyprobe.evaluation.bundled`` computes the numbers.

Why the card can be edited in place: the card is rendered once, by the build, and nothing
re-renders it later (release, publish and export read it); so the baselines are added to the
written text rather than to the renderer's inputs, as a block that :func:`strip_baselines`
removes exactly. ``strip_baselines(with_baselines(text, block)) == text`` for a card without
baselines, which is what makes adding them twice (or to a rebuilt folder) give the same bytes.
The fingerprint names the rows (inputs, recipes, parameters), not the card, so it is untouched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from polyprobe.cards.card import (
    CONFIG_HEADING,
    anchor,
    anchored_tables,
    md_escape,
    md_table,
    render_readme,
    split_readme,
)

KEY = "baselines"  # polyprobe.<KEY>
ENCODERS = ("majority", "random", "borep", "char-ngrams")
KINDS = ("classifier", "lexical", "scored", "none")
SECTION = "## Baselines"
TABLE_HEADING = "**Baselines**"
CLASSIFIER_COLUMNS = ("encoder", "accuracy", "95% CI", "macro-F1", "n test")
SCORE_COLUMNS = ("encoder", "metric", "value", "n")
DECIMALS = 3  # shown in the tables; the YAML keeps the results' six


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    return f"{float(value):.{DECIMALS}f}"


def table_rows(entry: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """A config's baseline table (header, rows) from its YAML entry: what ``validate``
    re-renders to compare with the body."""
    scores = entry.get("scores") or {}
    if entry.get("kind") == "classifier":
        rows = []
        for enc, s in scores.items():
            ci = s.get("accuracy_ci95") or [None, None]
            rows.append(
                [
                    enc,
                    _fmt(s.get("accuracy")),
                    f"{_fmt(ci[0])}–{_fmt(ci[1])}",
                    _fmt(s.get("macro_f1")),
                    str(entry.get("n")),
                ]
            )
        return list(CLASSIFIER_COLUMNS), rows
    metric = str(entry.get("metric", ""))
    rows = [[enc, metric, _fmt(s.get(metric)), str(entry.get("n"))] for enc, s in scores.items()]
    return list(SCORE_COLUMNS), rows


def config_lines(name: str, entry: dict[str, Any]) -> list[str]:
    """The lines added at the end of one config's section (a blank line last)."""
    if entry.get("kind") == "none" or not entry.get("scores"):
        return [
            f"{TABLE_HEADING}: none — {md_escape(entry.get('note', 'no baseline applies'))}",
            "",
        ]
    header, rows = table_rows(entry)
    what = "test split" if entry.get("kind") == "classifier" else "the set's own metric"
    note = f" {md_escape(entry['note'])}" if entry.get("note") else ""
    return [
        f"{TABLE_HEADING} ({what}; see [Baselines](#baselines)).{note}",
        "",
        anchor(KEY, name),
        md_table(header, rows, [False, *(h != "metric" for h in header[1:])]),
        "",
    ]


def section_lines(method: dict[str, Any]) -> list[str]:
    """The card's one ``## Baselines`` section: how the numbers were computed, how to
    reproduce them."""
    encoders = ", ".join(f"`{v}`" for v in (method.get("encoders") or {}).values())
    seeds = ", ".join(str(s) for s in method.get("seeds") or [])
    return [
        SECTION,
        "",
        f"Each config's section ends with the bundled baselines' scores ({encoders}), computed "
        f"by polyprobe {method.get('polyprobe')} with probe `{method.get('probe')}`, seeds "
        f"{seeds}, single-threaded fits (classifier configs: test accuracy, its 95% bootstrap "
        "CI over the seeds' mean, macro-F1; lexical configs: the set's own headline metric, "
        f"no probe). {md_escape(method.get('note', ''))}".rstrip(),
        "",
        "Reproduce with:",
        "",
        "```",
        str(method.get("reproduce", "")),
        "```",
        "",
    ]


# ---------------------------------------------------------------------------------------------
# editing a card's text


def _is_heading(line: str, levels: int = 3) -> bool:
    stripped = line.lstrip("#")
    hashes = len(line) - len(stripped)
    return 1 <= hashes <= levels and stripped.startswith(" ")


def _section_ends(lines: Sequence[str], names: set[str]) -> dict[str, int]:
    """Config name -> index of the line its section ends before (the next heading of level
    1-3 outside code fences, or the body's end)."""
    ends: dict[str, int] = {}
    current: str | None = None
    fenced = False
    last = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not _is_heading(line):
            continue
        if current is not None:
            ends[current] = i
            current = None
        m = CONFIG_HEADING.match(line)
        if m and m["name"] in names:
            current = m["name"]
    if current is not None:
        ends[current] = last
    return ends


def strip_body(body: str) -> str:
    """The body without any baselines text this module added."""
    lines = body.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == SECTION:  # up to the next level-2 heading
            i += 1
            while i < len(lines) and not (lines[i].startswith("## ") or lines[i].startswith("# ")):
                i += 1
            continue
        if line.startswith(TABLE_HEADING + ":") and i + 1 < len(lines) and lines[i + 1] == "":
            i += 2
            continue
        if (
            line.startswith(TABLE_HEADING + " (")
            and i + 2 < len(lines)
            and lines[i + 2].startswith(f"<!-- polyprobe:{KEY} ")
        ):
            i += 3
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            i += 1  # the blank line after the table
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def insert_body(body: str, block: dict[str, Any]) -> str:
    """``body`` (without baselines) with the section before ``## Configs`` and each config's
    table at the end of its section."""
    lines = body.split("\n")
    configs: dict[str, Any] = block.get("configs") or {}
    ends = _section_ends(lines, set(configs))
    at: dict[int, list[str]] = {}
    for name, end in ends.items():
        at.setdefault(end, []).extend(config_lines(name, configs[name]))
    try:
        where = lines.index("## Configs")
    except ValueError:
        where = ends and min(ends.values()) or len(lines)
        where = _heading_before(lines, where)
    at.setdefault(where, [])
    at[where] = section_lines(block.get("method") or {}) + at[where]
    out: list[str] = []
    for i, line in enumerate(lines):
        out.extend(at.get(i, []))
        out.append(line)
    out.extend(at.get(len(lines), []))
    return "\n".join(out)


def _heading_before(lines: Sequence[str], index: int) -> int:
    """The heading line a config section belongs under (its member's, or the configs'), so
    the section is not put inside another config's section."""
    for i in range(min(index, len(lines)) - 1, -1, -1):
        if lines[i].startswith("## "):
            return i
    return index


def strip_baselines(text: str) -> str:
    """README text without the baselines block and tables (the card as the build wrote it)."""
    data, body = split_readme(text)
    block = data.get("polyprobe")
    if isinstance(block, dict) and KEY in block:
        block = dict(block)
        del block[KEY]
        data["polyprobe"] = block
    return render_readme(data, strip_body(body))


def with_baselines(text: str, baselines: dict[str, Any]) -> str:
    """README text with ``baselines`` (``{"method": ..., "configs": ...}``) replacing any
    earlier ones: the YAML under ``polyprobe.baselines``, the tables in the body."""
    clean = strip_baselines(text)
    data, body = split_readme(clean)
    data["polyprobe"][KEY] = baselines
    return render_readme(data, insert_body(body, baselines))


# ---------------------------------------------------------------------------------------------
# checking


def _in_range(value: Any, low: float, high: float) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(float(value)) and low <= float(value) <= high


def _check_entry(name: str, entry: Any) -> list[str]:
    where = f"polyprobe.{KEY}.configs.{name}"
    if not isinstance(entry, dict):
        return [f"{where}: not a mapping"]
    problems = []
    kind = entry.get("kind")
    if kind not in KINDS:
        problems.append(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    n = entry.get("n")
    if kind != "none" and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        problems.append(f"{where}: n {n!r} is not a count")
    scores = entry.get("scores") or {}
    if not isinstance(scores, dict):
        return [*problems, f"{where}: scores is not a mapping"]
    metric = entry.get("metric")
    for enc, s in scores.items():
        w = f"{where}.scores.{enc}"
        if enc not in ENCODERS:
            problems.append(f"{w}: unknown baseline encoder (known: {', '.join(ENCODERS)})")
        if not isinstance(s, dict):
            problems.append(f"{w}: not a mapping")
            continue
        if kind == "classifier":
            for key in ("accuracy", "macro_f1"):
                if key not in s or not _in_range(s[key], 0.0, 1.0):
                    problems.append(f"{w}.{key}: {s.get(key)!r} is not in [0, 1]")
            ci = s.get("accuracy_ci95")
            ok = (
                isinstance(ci, list)
                and len(ci) == 2
                and all(_in_range(x, 0.0, 1.0) and x is not None for x in ci)
                and ci[0] <= ci[1]
            )
            if not ok:
                problems.append(f"{w}.accuracy_ci95: {ci!r} is not an interval in [0, 1]")
        elif kind in ("lexical", "scored"):
            if not isinstance(metric, str) or metric not in s:
                problems.append(f"{w}: no value for the metric {metric!r}")
            elif not _in_range(s[metric], -1.0, 1.0):
                problems.append(f"{w}.{metric}: {s[metric]!r} is not in [-1, 1]")
    return problems


def check_block(block: Any, configs: Sequence[str], body: str) -> list[str]:
    """Problems of a card's ``polyprobe.baselines`` block (empty when it is sound or absent):
    every config it names exists, numbers are in range, encoders are the bundled ones, and
    each config's table in the body shows the block's numbers."""
    where = f"polyprobe.{KEY}"
    if not isinstance(block, dict):
        return [f"{where}: not a mapping"]
    problems: list[str] = []
    method = block.get("method")
    if not isinstance(method, dict):
        problems.append(f"{where}.method: missing (how the baselines were computed)")
    else:
        for enc in method.get("encoders") or {}:
            if enc not in ENCODERS:
                problems.append(f"{where}.method.encoders: {enc!r} is not a bundled baseline")
    entries = block.get("configs")
    if not isinstance(entries, dict):
        return [*problems, f"{where}.configs: missing or not a mapping"]
    known = set(configs)
    tables = anchored_tables(body)
    for name, entry in entries.items():
        if name not in known:
            problems.append(f"{where}.configs: {name!r} is no config of this folder")
            continue
        found = _check_entry(name, entry)
        problems += found
        if found or entry.get("kind") == "none" or not entry.get("scores"):
            continue
        header, rows = table_rows(entry)
        shown = tables.get((KEY, name))
        if shown is None:
            problems.append(f"{where}: config {name!r} has no baselines table in the body")
        elif shown != [header, *rows]:
            problems.append(
                f"{where}: config {name!r}: the body's baselines table does not show the "
                "YAML's numbers"
            )
    return problems
