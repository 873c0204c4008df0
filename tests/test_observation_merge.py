"""Observations merged across record ranges fit exactly as one observation of every record.

A build in several processes shows each process a contiguous range of the records and merges
the ranges' observations in stream order (``Observation.merge``); the output must not depend
on the number of processes, so the merged observation must fit to the very same value —
every dict in the same key order, every array equal — as one observation fed every record.
Checked on real treebanks, cut into ranges at document boundaries (where a build cuts), each
range's observation through a pickle round trip (ranges are observed in other processes).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polyprobe.builders.task import Observation, Shared, Task, mergeable

# (treebank, files): EWT's dev and test (documents), German GSD's test (no ``# newdoc``).
CASES = [
    ("UD_English-EWT", ("en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu")),
    ("UD_German-GSD", ("de_gsd-ud-test.conllu",)),
]


def same(a: Any, b: Any, where: str = "fit") -> None:
    """Assert ``a`` and ``b`` are equal, dict key order and array dtypes included."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict), where
        assert list(a) == list(b), f"{where}: keys differ or are in another order"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        assert np.array_equal(a, b), where
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def document_cuts(records: Sequence[Any], parts: int) -> list[int]:
    """Indices that cut ``records`` into about ``parts`` ranges, each cut where a sentence
    opens a document (or, without documents, anywhere): where a build cuts."""
    cuts = []
    for k in range(1, parts):
        i = max(1, len(records) * k // parts)
        while (
            i < len(records)
            and records[i].doc_id is not None
            and (records[i].doc_id == records[i - 1].doc_id)
        ):
            i += 1
        cuts.append(i)
    return [0, *cuts, len(records)]


def observed(task: Task[Any], records: Sequence[Any]) -> Observation:
    observation = task.observation()
    assert observation is not None
    for record in records:
        observation.observe(record, Shared(record))
    return observation


def merged(task: Task[Any], ranges: Sequence[Sequence[Any]]) -> Observation:
    """The ranges observed apart (each through a pickle round trip), merged in order."""
    first, *rest = [pickle.loads(pickle.dumps(observed(task, r))) for r in ranges]
    for later in rest:
        first.merge(later)
    return first


def families(data_dir: Path, name: str, files: tuple[str, ...]) -> tuple[Any, Any]:
    """The sentence stream and the document stream (None without documents) of a build of
    ``files`` with every observing task, configured as ``build ud`` configures them."""
    from polyprobe.builders.build import planned
    from polyprobe.builders.families.ud import UD, UdConfig

    config = UdConfig(
        paths=tuple(data_dir / "ud" / name / f for f in files),
        lang="und",
        out=data_dir / "unused",
        tasks=tuple(_observing_names()),
    )
    _, (sentences, documents) = planned(UD, config)
    return sentences, documents


def derived(stream: Any, sentences: Sequence[Any]) -> list[Any]:
    deriver = stream.records.deriver()
    out = [d for s in sentences for d in deriver.push(s)]
    return out + list(deriver.close())


def _check(task: Task[Any], ranges: list[list[Any]], whole: list[Any]) -> None:
    if not mergeable(task.observation()):  # type: ignore[arg-type]
        pytest.fail(f"{task.name}: its observation has no merge()")
    one = task.fit(observed(task, whole))
    both = task.fit(merged(task, ranges))
    same(one, both, f"{task.name} fit")
    same(task.parameters(one), task.parameters(both), f"{task.name} parameters")


def _observing_names() -> list[str]:
    """The UD family's tasks that observe (their class overrides ``observation``)."""
    from polyprobe.builders.families.ud import UD

    return [n for n, cls in UD.tasks.by_name.items() if cls.observation is not Task.observation]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def corpus(request: pytest.FixtureRequest, data_dir: Path) -> tuple[Any, Any, list[Any]]:
    name, files = request.param
    sentences, documents = families(data_dir, name, files)
    return sentences, documents, list(sentences.records.records("raise", Counter()))


@pytest.mark.parametrize("task_name", _observing_names())
@pytest.mark.parametrize("parts", [2, 3])
def test_merged_observations_fit_as_one(corpus: Any, parts: int, task_name: str):
    sentences, documents, records = corpus
    cuts = document_cuts(records, parts)
    ranges = [records[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    assert all(ranges), cuts
    if task_name in sentences.names:
        (task,) = [t for t in sentences.tasks if t.name == task_name]
        _check(task, ranges, records)
    elif documents is not None:
        (task,) = [t for t in documents.tasks if t.name == task_name]
        doc_ranges = [derived(documents, r) for r in ranges]
        whole = derived(documents, records)
        assert [d.doc_id for r in doc_ranges for d in r] == [d.doc_id for d in whole]
        _check(task, doc_ranges, whole)
