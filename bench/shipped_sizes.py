"""What a UD build with ``--jobs N`` ships between processes, per observing task: each range's
observation (pickled in a worker, loaded by the parent to merge), the merged observation (sent
to whichever process fits it) and the fit (sent back, and to every process that makes
candidates): pickled megabytes and the CPU milliseconds of one dump and one load (best of
``--repeat``, 3 by default); the parts of 50 kB or more of what each pickle carries are
listed apart.

The records are cut into ``--parts`` ranges at document starts, as ``builders.stream`` cuts
them; document tasks see the documents derived from each range. Use it to find what to slim
(a fit should carry only what the candidate pass reads) and to show a change's effect.

Run: ``python bench/shipped_sizes.py [--data ../shared/data] [--treebank UD_English-EWT]
[--tasks a,b] [--parts 2] [--repeat 3]``.
"""

from __future__ import annotations

import pickle
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from _data import treebank_arguments

from polyprobe.builders.build import planned
from polyprobe.builders.families.ud import UD, UdConfig
from polyprobe.builders.task import Shared, Task


def cuts(records: Sequence[Any], parts: int) -> list[int]:
    """Range bounds, each cut moved forward to where a document opens."""
    out = []
    for k in range(1, parts):
        i = max(1, len(records) * k // parts)
        while (
            i < len(records)
            and records[i].doc_id is not None
            and (records[i].doc_id == records[i - 1].doc_id)
        ):
            i += 1
        out.append(i)
    return [0, *out, len(records)]


def cost(value: Any, repeat: int) -> tuple[int, float, float]:
    """Pickled bytes, dump and load CPU seconds (best of ``repeat``)."""
    dump = load = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        dump = min(dump, time.process_time() - start)
        start = time.process_time()
        pickle.loads(data)
        load = min(load, time.process_time() - start)
    return len(data), dump, load


def show(label: str, value: Any, repeat: int) -> None:
    size, dump, load = cost(value, repeat)
    print(
        f"  {label:28s} {size / 1e6:7.3f} MB  dump {dump * 1e3:6.1f} ms  load {load * 1e3:6.1f} ms"
    )
    state = value.__getstate__() if hasattr(value, "__dict__") else None
    for name, part in (state if isinstance(state, dict) else {}).items():
        part_size = len(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
        if part_size >= 50_000:
            print(f"      {name:26s} {part_size / 1e6:7.3f} MB (pickled alone)")


def observed(task: Task[Any], records: Sequence[Any]) -> Any:
    observation = task.observation()
    for record in records:
        observation.observe(record, Shared(record))
    return observation


def main() -> None:
    ap = treebank_arguments()
    ap.add_argument("--tasks", help="comma-separated task names (default: every observing task)")
    ap.add_argument("--parts", type=int, default=2, help="record ranges (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="timings per value, best kept")
    args = ap.parse_args()
    folder = args.data / "ud" / args.treebank
    names = args.tasks.split(",") if args.tasks else [
        n for n, cls in UD.tasks.by_name.items() if cls.observation is not Task.observation
    ]  # fmt: skip
    config = UdConfig(
        paths=tuple(sorted(folder.glob("*.conllu*"))),
        lang=args.lang,
        out=args.data / "unused",
        tasks=tuple(names),
    )
    _, streams = planned(UD, config)
    # the sentence stream first, then the documents grouped from it (build ud's plan)
    sentences, documents = (streams + [None])[:2]
    records = list(sentences.records.records("raise", Counter()))
    bounds = cuts(records, args.parts)
    ranges = [records[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    for name in names:
        if name in sentences.names:
            (task,) = [t for t in sentences.tasks if t.name == name]
            parts = ranges
        elif documents is not None and name in documents.names:
            (task,) = [t for t in documents.tasks if t.name == name]
            deriver_ranges = []
            for part in ranges:
                deriver = documents.records.deriver()
                docs = [d for s in part for d in deriver.push(s)]
                deriver_ranges.append(docs + list(deriver.close()))
            parts = deriver_ranges
        else:
            continue
        print(name)
        observations = [observed(task, part) for part in parts]
        for i, observation in enumerate(observations):
            show(f"observation of range {i + 1}", observation, args.repeat)
        first, *rest = [pickle.loads(pickle.dumps(o)) for o in observations]
        for later in rest:
            first.merge(later)
        show("merged observation", first, args.repeat)
        show("fit", task.fit(first), args.repeat)


if __name__ == "__main__":
    main()
