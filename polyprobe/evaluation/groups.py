"""Benchmark group means: the unweighted mean score over a benchmark group's tasks, as
SentEval, Spanish SentEval, DiscoEval and LINSPECTOR report them.

Why: those papers summarise an encoder per group (SentEval's surface / syntactic / semantic
probing tasks, DiscoEval's discourse tasks), and a reader compares an encoder with them by
those means. A mean over fewer tasks than the group has is a different number, so every mean
says how many of the group's tasks it covers (``0.712 (4/5)``); a group with none of its
tasks present is not shown.

The groupings name polyprobe's tasks (``docs/tasks.md``; SentEval's names:
``cards/exports/senteval_names.py``, LINSPECTOR's: ``cards/exports/linspector_names.py``).
A result belongs to a group's task when its ``task`` is one of the group's, its ``level``
one of the group's (SentEval's: sentence; LINSPECTOR's type-level tasks: word, so the
sentence ``tense`` is not its word ``tense``), and its ``task_type`` the group's. Means are taken per dataset × encoder (id +
layer) × probe × **variant**: the config's name after its task (the recommended config ``""``,
``.natural-full``, ``.ratio1to5-full`` ...), so variants are never mixed in one mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from polyprobe.evaluation.correlate import dataset_display, encoder_key, probe_name


@dataclass(frozen=True)
class Group:
    """One benchmark group: its tasks as polyprobe names them, and the paper it follows."""

    benchmark: str
    name: str
    tasks: tuple[str, ...]  # polyprobe task names; () = the benchmark's group has no match
    source: str
    levels: tuple[str, ...] = ("sentence",)  # () = any level
    task_type: str = "probing"
    paper_tasks: tuple[str, ...] = ()  # the group's tasks as the paper names them


_SENTEVAL = "Conneau et al. 2018, What you can cram into a single vector, Table 2"
_SPANISH = "Araujo et al. 2022, Evaluation Benchmarks for Spanish Sentence Representations"
_DISCOEVAL = (
    "Chen et al. 2019, Evaluation Benchmarks and Learning Criteria for Discourse-Aware "
    "Sentence Representations"
)
_LINSPECTOR = "Şahin et al. 2020, LINSPECTOR: Multilingual Probing Tasks for Word Representations"

_SURFACE = ("sentence_length_senteval", "word_content")
_SYNTACTIC = ("tree_depth", "top_dependencies", "bigram_shift")
_SEMANTIC = ("tense", "subject_number", "object_number", "odd_man_out", "coordination_inversion")
_DISCOURSE = (
    "sentence_position",
    "binary_sentence_ordering",
    "discourse_coherence",
    "sentence_section",
    "discourse_relations",
)

GROUPS: tuple[Group, ...] = (
    Group("SentEval", "surface", _SURFACE, _SENTEVAL, paper_tasks=("Length", "WordContent")),
    Group(
        "SentEval",
        "syntactic",
        _SYNTACTIC,
        _SENTEVAL,
        paper_tasks=("Depth", "TopConstituents", "BigramShift"),
    ),
    Group(
        "SentEval",
        "semantic",
        _SEMANTIC,
        _SENTEVAL,
        paper_tasks=("Tense", "SubjNumber", "ObjNumber", "OddManOut", "CoordinationInversion"),
    ),
    # Spanish SentEval's groups: SC (sentence classification), SPC (sentence-pair
    # classification) and SS (semantic similarity) are downstream sets polyprobe builds under
    # no fixed task name, so only its linguistic probing (SentEval's ten tasks, translated)
    # and its DiscoEval part map to polyprobe tasks.
    Group(
        "Spanish SentEval",
        "LP",
        _SURFACE + _SYNTACTIC + _SEMANTIC,
        _SPANISH,
        paper_tasks=("the ten SentEval probing tasks",),
    ),
    Group(
        "Spanish SentEval",
        "DiscoEval",
        _DISCOURSE,
        _SPANISH,
        levels=(),
        paper_tasks=("SP", "BSO", "DC", "SSP", "RST"),
    ),
    Group(
        "DiscoEval",
        "all",
        _DISCOURSE,
        _DISCOEVAL,
        levels=(),
        paper_tasks=("SP", "BSO", "DC", "SSP", "PDTB-E/I, RST-DT"),
    ),
    Group(
        "LINSPECTOR",
        "type-level probing",
        (
            "case",
            "gender",
            "mood",
            "number",
            "person",
            "polarity",
            "possession",
            "tense",
            "voice",
            "pos",
            "tag_count",
            "character_bin",
            "pseudo",
            "same_feature",
            "odd_feature",
        ),
        _LINSPECTOR,
        levels=("word",),
    ),
    Group(
        "LINSPECTOR",
        "downstream",
        ("pos", "deprel"),
        _LINSPECTOR,
        levels=(),
        task_type="downstream",
        paper_tasks=("POS tagging", "dependency parsing"),
    ),
)


def variant_of(result: dict[str, Any]) -> str:
    """The config's name after its task: ``""`` for the recommended config."""
    task, config = str(result.get("task") or ""), str(result.get("config") or "")
    return config[len(task) :] if config.startswith(task) else f".{config}"


def members(group: Group, result: dict[str, Any]) -> bool:
    """Whether ``result`` is one of ``group``'s tasks (name, level and task type)."""
    return (
        result.get("task") in group.tasks
        and (not group.levels or result.get("level") in group.levels)
        and (result.get("task_type") or "probing") == group.task_type
    )


def _score(result: dict[str, Any], metric: str) -> float | None:
    value = ((result.get("metrics") or {}).get(metric) or {}).get("mean")
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def group_means(results: list[dict[str, Any]], metric: str = "accuracy") -> list[dict[str, Any]]:
    """Per (dataset, variant, encoder, probe, benchmark group) with at least one task present:
    the unweighted mean of the tasks' mean test ``metric``, the tasks used and how many of
    the group's tasks that is. Sorted for a stable report."""
    cells: dict[tuple[str, str, str, str, int], dict[str, float]] = {}
    for r in results:
        score = _score(r, metric)
        if score is None:
            continue
        for gi, group in enumerate(GROUPS):
            if members(group, r):
                key = (dataset_display(r), variant_of(r), encoder_key(r), probe_name(r), gi)
                cells.setdefault(key, {})[str(r["task"])] = score
    out = []
    for (dataset, variant, encoder, probe, gi), scores in sorted(cells.items()):
        group = GROUPS[gi]
        tasks = [t for t in group.tasks if t in scores]
        out.append(
            {
                "dataset": dataset,
                "variant": variant,
                "encoder": encoder,
                "probe": probe,
                "benchmark": group.benchmark,
                "group": group.name,
                "mean": sum(scores[t] for t in tasks) / len(tasks),
                "tasks": tasks,
                "present": len(tasks),
                "of": len(group.tasks),
                "source": group.source,
            }
        )
    return out


def format_mean(entry: dict[str, Any]) -> str:
    """``0.712 (4/5)``."""
    return f"{entry['mean']:.3f} ({entry['present']}/{entry['of']})"


def groups_markdown(entries: list[dict[str, Any]], labels: dict[str, str] | None = None) -> str:
    """One table per benchmark: rows dataset × variant × encoder × probe, a column per group."""
    if not entries:
        return ""
    names = labels or {}
    lines = [
        "## Benchmark group means",
        "",
        "Unweighted mean test score over the group's tasks present (present/in the group); "
        "variants are never mixed (`recommended` = the config named like its task).",
        "",
    ]
    for benchmark in dict.fromkeys(g.benchmark for g in GROUPS):
        groups = [g for g in GROUPS if g.benchmark == benchmark]
        mine = [e for e in entries if e["benchmark"] == benchmark]
        if not mine:
            continue
        rows: dict[tuple[str, str, str, str], dict[str, str]] = {}
        for e in mine:
            key = (e["dataset"], e["variant"] or "recommended", e["encoder"], e["probe"])
            rows.setdefault(key, {})[e["group"]] = format_mean(e)
        header = ["dataset", "variant", "encoder", "probe", *(g.name for g in groups)]
        lines += [f"### {benchmark} ({groups[0].source})", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for (dataset, variant, encoder, probe), cells in rows.items():
            shown = names.get(encoder, encoder)
            row = [dataset, variant, shown, probe, *(cells.get(g.name, "–") for g in groups)]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        lines.append("")
    return "\n".join(lines)
