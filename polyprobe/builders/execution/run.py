"""The execution entry the spine calls: a plan's record streams on this machine's processes
(record ranges or task shards, :mod:`.stream`), or its lexicon in this process, and how many
processes a build gets.

Only the spine calls this package: a family declares streams, never how they run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyprobe import progress
from polyprobe.builders.assemble import assemble
from polyprobe.builders.execution.stream import OpenedStream, RunSettings, run_streams
from polyprobe.builders.family import Lexicon, Outcome
from polyprobe.builders.task import Task


def jobs_for(jobs: int | None, names: Sequence[str], inputs: Sequence[Path]) -> int:
    """Processes for a build of ``names`` over ``inputs`` (``--jobs``, else by the input's
    size and the tasks' measured costs: :func:`polyprobe.runtime.shards.jobs_for`)."""
    from polyprobe.runtime.shards import jobs_for as by_cost

    size = sum(Path(p).stat().st_size for p in inputs)
    return by_cost(jobs, list(names), size)


def run_record_streams(
    streams: Sequence[OpenedStream],
    run: RunSettings,
    inputs: Sequence[Path],
    jobs: int | None,
) -> list[Outcome]:
    """Every stream's tasks, one outcome per stream (processes: :func:`jobs_for`)."""
    names = [n for s in streams for n in s.names]
    settings = RunSettings(
        run.seed,
        run.on_invalid,
        run.variants,
        run.staging,
        jobs_for(jobs, names, inputs),
        run.remote,
    )
    return run_streams(streams, settings)


def run_lexicon(
    lexicon: Lexicon,
    tasks: Sequence[Task[Any]],
    run: RunSettings,
) -> Outcome:
    """Whole-corpus tasks (``Task.whole_corpus``): the corpus read once, each task fitted on
    it, its candidate sets (``lexicon.sets``) assembled, in this process."""
    corpus = lexicon.corpus
    assembled, recipes = [], []
    for task in progress.track(tasks, "tasks (fit, candidates, configs)", unit=" task"):
        if lexicon.say is not None:
            lexicon.say(f"task {task.name}")
        fit = task.fit(corpus)
        meta = task.metadata
        report = {"task": meta.name, "level": meta.level.value, "task_type": meta.task_type}
        report.update(fit.report)
        if fit.infeasible is not None:  # no candidate set carries the task's drops
            report["task_drops"] = dict(fit.drops)
        assembled.append(
            assemble(
                lexicon.sets(task, fit, corpus),
                run.variants,
                run.seed,
                run.staging,
                task_report=report,
                infeasible=fit.infeasible,
            )
        )
        recipes.append(
            {
                "name": task.name,
                "recipe_version": meta.recipe_version,
                "parameters": task.parameters(fit),
            }
        )
    return Outcome(assembled=assembled, recipes=recipes, profile=dict(lexicon.profile))
