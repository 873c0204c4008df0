"""Benchmark of the fits a UD build ships between processes: per observing task, the pickled
size of its fit, the time to dump and to load it, and the CPU time of the fit itself.

Why: a build with ``--jobs 2`` fits every observing task once and then pickles the fits to
the other process inside its spool job (``builders/stream.py`` ``run_on_ranges``), so a fit's
pickled size is paid on the build's critical path (dump here, load there). A fit should hold
only what its candidate pass reads (see ``OddManOutFit``). Each task is observed over the
whole treebank once (as one process would), its observation pickled (a build's observations
come back from the worker that way), and then, ``--rounds`` times, the observation loaded
and fitted (CPU seconds) and the fit dumped and loaded (wall seconds, the least of the rounds:
the least disturbed by other processes on a busy machine; say the load beside the figures).

Run: ``python bench/fit_sizes.py [--data ../shared/data] [--treebank UD_English-EWT]
[--tasks odd_man_out ...] [--rounds 3]``.
"""

from __future__ import annotations

import gc
import os
import pickle
import time
from collections import Counter
from typing import Any

from _data import treebank_arguments

from polyprobe.builders.build import BuildOptions
from polyprobe.builders.discourse.ud import document_family
from polyprobe.builders.recipes.ud import TreebankFamily, choose_split, split_by_record
from polyprobe.builders.registry import family_tasks
from polyprobe.builders.task import Shared, Task
from polyprobe.loaders.sources import discover


def _observed(task: Task[Any], records: list[Any]) -> bytes:
    """The task's observation of every record, pickled."""
    observation = task.observation()
    assert observation is not None
    for record in records:
        observation.observe(record, Shared(record))
    return pickle.dumps(observation, protocol=pickle.HIGHEST_PROTOCOL)


def _measure(task: Task[Any], observation: bytes, rounds: int) -> tuple[int, float, float, float]:
    """Pickled bytes of the fit, least dump and load seconds, least fit CPU seconds."""
    dumps, loads, fits = [], [], []
    blob = b""
    for _ in range(rounds):
        loaded = pickle.loads(observation)
        gc.collect()
        start = time.process_time()
        fit = task.fit(loaded)
        fits.append(time.process_time() - start)
        start = time.perf_counter()
        blob = pickle.dumps(fit, protocol=pickle.HIGHEST_PROTOCOL)
        dumps.append(time.perf_counter() - start)
        gc.collect()
        start = time.perf_counter()
        pickle.loads(blob)
        loads.append(time.perf_counter() - start)
    return len(blob), min(dumps), min(loads), min(fits)


def main() -> None:
    ap = treebank_arguments()
    ap.add_argument("--tasks", nargs="+", help="task names (default: every observing UD task)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    known = family_tasks("ud")
    names = args.tasks or [n for n, cls in known.items() if cls.observation is not Task.observation]
    treebanks = discover([args.data / "ud" / args.treebank])
    options = BuildOptions.make(lang=args.lang, out=args.data / "unused")
    split = choose_split(None, treebanks)
    sentences = TreebankFamily(
        sources=tuple(treebanks),
        lang=args.lang,
        seed=0,
        min_per_class=options.min_per_class,
        split=split,
    )
    records = list(sentences.records("raise", Counter()))
    by_sentence, by_document = split_by_record(names)
    measured: list[tuple[str, Task[Any], bytes]] = []
    if by_sentence:
        tasks, _ = sentences.open_tasks(by_sentence)
        measured += [(t.name, t, _observed(t, records)) for t in tasks]
    documents, _ = document_family(treebanks, options, split, sentences=sentences)
    if by_document and documents is not None:
        deriver = documents.deriver()
        docs = [d for s in records for d in deriver.push(s)] + list(deriver.close())
        tasks, _ = documents.open_tasks(by_document)
        measured += [(t.name, t, _observed(t, docs)) for t in tasks]
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average); {args.treebank}, split {split.mode}")
    total = 0
    for name, task, observation in measured:
        size, dump, load, fit = _measure(task, observation, args.rounds)
        total += size
        print(
            f"{name:26s} fit {size / 1e6:6.2f} MB  dump {dump:.3f} s  load {load:.3f} s  "
            f"fit CPU {fit:.3f} s  (observation {len(observation) / 1e6:.2f} MB)"
        )
    print(f"{'all':26s} fit {total / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()
