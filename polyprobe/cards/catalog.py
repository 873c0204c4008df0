"""``polyprobe catalog DIR... --out DIR``: which probing tasks exist for which language — a table
of built datasets × languages × tasks with sizes, versions and feasibility, read from each
folder's README YAML and report.json (no parquet decoding). Writes ``catalog.md`` and
``catalog.json``.

A DIR that is not itself a dataset folder (no README.md) is searched one level down, so
``polyprobe catalog builds/`` catalogues every folder in ``builds/``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyprobe.cards.card import md_table
from polyprobe.errors import PolyprobeError


class CatalogError(PolyprobeError):
    """No dataset folder among the given paths, or an unreadable one."""


def _folders(paths: Sequence[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if (p / "README.md").is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(c for c in p.iterdir() if (c / "README.md").is_file())
        else:
            raise CatalogError(f"{p}: not a directory")
    if not out:
        raise CatalogError("no dataset folder (a directory with README.md) among the paths")
    return list(dict.fromkeys(out))


def _entry(folder: Path) -> dict[str, Any]:
    from polyprobe.cards.info import read_card_yaml

    card = read_card_yaml(folder)
    block = card.get("polyprobe") or {}
    if not isinstance(block, dict):
        raise CatalogError(f"{folder}: the card has no 'polyprobe' block")
    report: dict[str, Any] = {}
    if (folder / "report.json").is_file():
        try:
            report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        except ValueError as exc:
            raise CatalogError(f"{folder / 'report.json'}: {exc}") from exc
    pconfigs = block.get("configs") or {}
    infos = {i.get("config_name"): i for i in card.get("dataset_info") or [] if isinstance(i, dict)}

    def sizes(config: str) -> dict[str, int]:
        info = infos.get(config) or {}
        return {str(s.get("name")): int(s.get("num_examples", 0)) for s in info.get("splits") or []}

    tasks: dict[str, dict[str, Any]] = {}
    by_task: dict[str, list[str]] = {}
    language_of: dict[str, str] = {}  # a multilingual dataset's per-language task
    for name, c in pconfigs.items():
        task = str((c or {}).get("task", name.split(".")[0]))
        by_task.setdefault(task, []).append(name)
        if (c or {}).get("language"):
            language_of[task] = str(c["language"])
    languages = [str(x) for x in card.get("language") or []]
    if language_of:  # its tasks not built are named alike: <task>-<lang>
        for task in report:
            lang = task.rpartition("-")[2]
            if task not in language_of and lang in languages:
                language_of[task] = lang
    # a suite's task published as <member>-<task> next to another member's <task>
    family_name = {
        published: own
        for m in block.get("members") or []
        if isinstance(m, dict)
        for published, own in (m.get("renamed") or {}).items()
    }
    for task in list(dict.fromkeys([*by_task, *report])):
        configs = by_task.get(task, [])
        rep = report.get(task) or {}
        recommended = task if task in configs else (configs[0] if configs else None)
        rblock = pconfigs.get(recommended) or {} if recommended else {}
        if configs:
            status = "built"
        elif rep.get("infeasible"):
            status = "infeasible"
        else:
            status = "not built"
        tasks[task] = {
            "status": status,
            "reason": rep.get("infeasible") or "",
            "not_built": list(rep.get("not_built") or []),
            "configs": configs,
            "recommended": recommended,
            "sizes": sizes(recommended) if recommended else {},
            "labels": list(rblock.get("labels") or []),
            "recipe_version": rblock.get("recipe_version"),
            "level": rblock.get("level"),
            # the task in every language its dataset has, or in one (``tense`` of ``tense-de``)
            "probes": probes(family_name.get(task, task), language_of.get(task)),
            "language": language_of.get(task),
        }
    return {
        "folder": str(folder),
        "name": folder.name,
        "pretty_name": card.get("pretty_name", folder.name),
        "languages": languages,
        "license": card.get("license"),
        "release": block.get("release"),
        "polyprobe_version": block.get("version"),
        "fingerprint": block.get("fingerprint"),
        "sources": [
            {"name": s.get("name"), "version": s.get("version")}
            for s in block.get("sources") or []
            if isinstance(s, dict)
        ],
        "tasks": tasks,
    }


def probes(task: str, language: str | None) -> str:
    """What a per-language task probes: ``tense`` for a parallel corpus's ``tense-de`` (a
    suite's prefixed names are mapped back through its members' ``renamed``)."""
    return task.removesuffix(f"-{language}") if language else task


def build_catalog(paths: Sequence[str | Path]) -> dict[str, Any]:
    datasets = [_entry(f) for f in _folders(paths)]
    languages = sorted({lang for d in datasets for lang in d["languages"]})
    tasks = list(dict.fromkeys(t["probes"] for d in datasets for t in d["tasks"].values()))
    matrix: dict[str, dict[str, list[str]]] = {}
    for lang in languages:
        matrix[lang] = {task: [] for task in tasks}
        for d in datasets:
            for t in d["tasks"].values():
                here = t["language"] == lang if t["language"] else lang in d["languages"]
                if here and t["status"] == "built" and d["name"] not in matrix[lang][t["probes"]]:
                    matrix[lang][t["probes"]].append(d["name"])
    return {"datasets": datasets, "languages": languages, "tasks": tasks, "matrix": matrix}


def render_markdown(catalog: dict[str, Any]) -> str:
    out = ["# polyprobe catalog", ""]
    out += [
        "Which tasks exist for which language: ✓ built (number of datasets), ✗ not built.",
        "",
    ]
    tasks = catalog["tasks"]
    rows = []
    for lang in catalog["languages"]:
        cells = []
        for task in tasks:
            built = catalog["matrix"][lang][task]
            cells.append(f"✓ {len(built)}" if built else "✗")
        rows.append([lang, *cells])
    out += [md_table(["language", *tasks], rows, [False] * (len(tasks) + 1)), ""]
    out += ["## Datasets", ""]
    rows = [
        [
            d["name"],
            ", ".join(d["languages"]),
            str(d["release"] or "—"),
            str(d["polyprobe_version"] or "—"),
            ", ".join(f"{s['name']}@{s['version']}" for s in d["sources"]) or "—",
            str(d["license"] or "—"),
            str(d["fingerprint"] or "—"),
        ]
        for d in catalog["datasets"]
    ]
    out += [
        md_table(
            ["dataset", "languages", "release", "polyprobe", "sources", "licence", "fingerprint"],
            rows,
            [False] * 7,
        ),
        "",
    ]
    out += ["## Tasks", ""]
    rows = []
    for d in catalog["datasets"]:
        for task, t in d["tasks"].items():
            sz = t["sizes"]
            rows.append(
                [
                    d["name"],
                    ", ".join(d["languages"]),
                    task,
                    t["status"] + (f": {t['reason']}" if t["reason"] else ""),
                    str(len(t["configs"])),
                    str(sz.get("train", "—")),
                    str(sz.get("validation", "—")),
                    str(sz.get("test", "—")),
                    str(len(t["labels"]) or "—"),
                    str(t["recipe_version"] or "—"),
                ]
            )
    header = ["dataset", "languages", "task", "status", "configs", "train", "validation"]
    header += ["test", "classes", "recipe"]
    out += [
        md_table(header, rows, [False, False, False, False, True, True, True, True, True, False]),
        "",
        "Sizes are those of each task's recommended config.",
        "",
    ]
    return "\n".join(out)


def write_catalog(paths: Sequence[str | Path], out: str | Path) -> dict[str, Any]:
    catalog = build_catalog(paths)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "catalog.json").write_text(
        json.dumps(catalog, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / "catalog.md").write_text(render_markdown(catalog), encoding="utf-8")
    return catalog
