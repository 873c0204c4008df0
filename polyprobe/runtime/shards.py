"""How many processes a build uses (``--jobs``) and, for a build on task shards, which tasks
each runs.

A build whose families can cut their records runs on record ranges instead, one per process
(``polyprobe.builders.execution.stream.run_on_ranges``). Task shards are for the others: most tasks fix
corpus-wide choices in a first pass (target words, frequency bands, replacement classes)
before they can emit a single candidate, so a task needs every record, but no task needs
another task. A shard is therefore a complete little build — read, observe, fit, spool
candidates — for some of the tasks; the last step of each task (variants and files) is a job
any process may run (:mod:`polyprobe.runtime.parallel`). The output does not depend on how
tasks were sharded (tested byte for byte), so ``--jobs`` is not part of the fingerprint.
Tasks are balanced by their measured costs (:mod:`polyprobe.runtime.costs`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from polyprobe.errors import UsageError
from polyprobe.runtime.costs import total_cost

# Below this much input a worker's start-up costs more than it saves.
AUTO_MIN_INPUT_BYTES = 2 * 1024 * 1024
AUTO_MAX_JOBS = 4
# Every worker pays a fixed price: start-up and its own reading passes, about five
# sentence_length tasks on EWT (bench/task_costs.py). A second process is only worth it with
# about twice that much task work per process (3 platform tasks on EWT, 5.8 units: same wall
# time, 1.6x the CPU with two processes).
AUTO_MIN_COST_PER_JOB = 10.0


def resolve_jobs(
    jobs: int | None, n_tasks: int, input_bytes: int, total_cost: float | None = None
) -> int:
    """Processes to use: ``jobs`` if given (capped at the number of tasks); otherwise one per
    core, at most :data:`AUTO_MAX_JOBS`, only for inputs of at least
    :data:`AUTO_MIN_INPUT_BYTES`, and at most one per :data:`AUTO_MIN_COST_PER_JOB` of the
    tasks' summed measured costs."""
    if jobs is not None:
        if jobs < 1:
            raise UsageError(f"--jobs must be a positive integer, not {jobs}")
        return max(1, min(jobs, n_tasks))
    if input_bytes < AUTO_MIN_INPUT_BYTES or n_tasks < 2:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    by_cost = n_tasks if total_cost is None else int(total_cost // AUTO_MIN_COST_PER_JOB)
    return max(1, min(cores or 1, AUTO_MAX_JOBS, n_tasks, by_cost))


def jobs_for(jobs: int | None, task_names: Sequence[str], input_bytes: int) -> int:
    """:func:`resolve_jobs` for a build of ``task_names`` (their summed measured costs,
    :mod:`polyprobe.runtime.costs`)."""
    return resolve_jobs(jobs, len(task_names), input_bytes, total_cost(task_names))


def plan_shards(
    names: Sequence[str],
    costs: Sequence[float],
    jobs: int,
    affinity: Sequence[str] | None = None,
) -> list[list[str]]:
    """Split tasks into ``jobs`` shards of similar total cost (longest first onto the
    least-loaded shard; ties by position, so the plan is deterministic). Tasks with the same
    non-empty ``affinity`` (they share per-record work, :func:`polyprobe.runtime.costs.
    affinity_of`) go together, as one unit of their summed cost. Each shard keeps the tasks'
    original order; empty shards are dropped."""
    if len(names) != len(costs) or (affinity is not None and len(affinity) != len(names)):
        raise ValueError("one cost (and affinity) per task")
    units: list[list[int]] = []
    by_affinity: dict[str, list[int]] = {}
    for i in range(len(names)):
        tag = affinity[i] if affinity is not None else ""
        if not tag:
            units.append([i])
        elif tag in by_affinity:
            by_affinity[tag].append(i)
        else:
            by_affinity[tag] = [i]
            units.append(by_affinity[tag])
    loads = [0.0] * max(1, jobs)
    members: list[list[int]] = [[] for _ in loads]
    for unit in sorted(units, key=lambda u: (-sum(costs[i] for i in u), u[0])):
        s = min(range(len(loads)), key=lambda s: (loads[s], s))
        loads[s] += sum(costs[i] for i in unit)
        members[s].extend(unit)
    return [[names[i] for i in sorted(m)] for m in members if m]
