"""``ContextualObservation.merge``: ranges observed apart and merged hold the very state of one
observation fed every sentence (polyprobe/builders/sentence/contextual.py).

The fit-level harness (tests/test_observation_merge.py) only sees what the fit makes of the
state; this compares the state itself — every attribute, dicts and counters in key order,
the flat id arrays and their offsets, the split estimate — on EWT dev, with cuts chosen where
the id remapping can go wrong: a value first seen only in a later range, empty ranges.
"""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polyprobe.builders.sentence.contextual import (
    CONTEXTUAL_TASKS,
    ContextualFeature,
    ContextualObservation,
)
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.builders.variants import SplitEstimate
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.sources import discover, read_sources

BY_NAME = {c.metadata.name: c for c in CONTEXTUAL_TASKS}
EWT_DEV = "UD_English-EWT/en_ewt-ud-dev.conllu"
# EWT dev sentence 12 (weblog-juancole.com_juancole_20040114085100_ENG_20040114_085100-0003)
# has the first Number=Ptan ("troops"); sentence 8 the first Person=1, sentence 47
# (weblog-blogspot.com_marketview_20040611132900_ENG_20040611_132900-0008) the first Person=2
# ("you").
FIRST_PTAN = 12
FIRST_PERSON_1 = 8
FIRST_PERSON_2 = 47


@cache
def _sentences(root: str) -> tuple[Sentence, ...]:
    return tuple(read_sources(discover([Path(root) / EWT_DEV])))


@pytest.fixture(scope="module")
def dev(ud_dir: Path) -> tuple[Sentence, ...]:
    return _sentences(str(ud_dir))


def task(name: str) -> ContextualFeature:
    t = BY_NAME[name].configure({}, TaskContext(lang="en", seed=3))
    assert isinstance(t, ContextualFeature)
    return t


def observed(t: ContextualFeature, sentences: Sequence[Sentence]) -> ContextualObservation:
    obs = t.observation()
    for s in sentences:
        obs.observe(s, Shared(s))
    return obs


def merged(t: ContextualFeature, sentences: Sequence[Sentence], cuts: Sequence[int]):
    """``sentences`` cut at ``cuts`` (first 0, last len), each range observed apart and sent
    through a pickle round trip (as from another process), merged in order."""
    bounds = list(zip(cuts, cuts[1:], strict=False))
    first, *rest = [pickle.loads(pickle.dumps(observed(t, sentences[a:b]))) for a, b in bounds]
    for later in rest:
        first.merge(later)
    return first


def state(value: Any) -> Any:
    """A comparable picture of an observation's state: dicts (Counters included) as their
    items in order, arrays with their typecode, the split estimate by its own attributes."""
    if isinstance(value, (ContextualObservation, SplitEstimate)):
        return (type(value).__name__, state(vars(value)))
    if isinstance(value, dict):
        return (type(value).__name__, [(k, state(v)) for k, v in value.items()])
    if isinstance(value, array):
        return ("array", value.typecode, value.tolist())
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(value, key=repr))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [state(v) for v in value])
    return value


def assert_same_state(a: ContextualObservation, b: ContextualObservation) -> None:
    sa, sb = state(a), state(b)
    names = [k for k, _ in sa[1][1]]
    assert names == [k for k, _ in sb[1][1]]
    for (name, x), (_, y) in zip(sa[1][1], sb[1][1], strict=True):
        assert x == y, f"{name} differs"


@pytest.mark.parametrize(
    ("name", "cuts"),
    [
        # Ptan is first seen in the later range: its id must follow Sing/Plur's.
        ("contextual_number", [0, FIRST_PTAN, None]),
        ("contextual_number", [0, 700, 1400, None]),
        # Person 1 first in the second range, 2 first in the third.
        ("contextual_person", [0, FIRST_PERSON_1, FIRST_PERSON_2, None]),
        ("contextual_person", [0, 1000, None]),
        # Empty ranges: first, in the middle, last.
        ("contextual_person", [0, 0, None]),
        ("contextual_number", [0, FIRST_PTAN, FIRST_PTAN, None]),
        ("contextual_number", [0, None, None]),
    ],
)
def test_merged_state_is_one_pass_state(
    dev: tuple[Sentence, ...], name: str, cuts: list[int | None]
) -> None:
    n = len(dev)
    bounds = [n if c is None else c for c in cuts]
    t = task(name)
    one = observed(t, dev)
    both = merged(t, dev, bounds)
    assert_same_state(one, both)
    # The merged arrays are what the fit replays: same length as one pass's, offsets ending
    # at the token count, one draw seed per sentence.
    assert len(both.offsets) == n + 1 and both.offsets[-1] == len(both.val) == len(both.form)
    assert len(both.draw) == n == len(both.estimate)


def test_value_first_seen_later_gets_the_next_id(dev: tuple[Sentence, ...]) -> None:
    """The cuts really put Ptan (Person=2) in the later range only, and the merge numbers it
    after the values the first range saw, as one pass does, remapping later's ids."""
    t = task("contextual_number")
    head = observed(t, dev[:FIRST_PTAN])
    assert list(head.value_ids) == ["Sing", "Plur"]
    tail = observed(t, dev[FIRST_PTAN:])
    assert list(tail.value_ids) == ["Sing", "Plur", "Ptan"]  # Fallujah, hundreds, troops
    head.merge(tail)
    assert head.value_ids == {"Sing": 0, "Plur": 1, "Ptan": 2}
    ptan = [i for i, v in enumerate(head.val) if v == 2]
    assert ptan and head.offsets[FIRST_PTAN] <= ptan[0] < head.offsets[FIRST_PTAN + 1]

    # Person: the later range numbers 2 before 1 ("you" in sentence 47 comes before any
    # first person), so its ids must be remapped, not just shifted.
    t = task("contextual_person")
    head = observed(t, dev[:FIRST_PERSON_2])
    assert list(head.value_ids) == ["3", "1"]
    tail = observed(t, dev[FIRST_PERSON_2:])
    assert list(tail.value_ids) == ["3", "2", "1"]
    tail_names = {i: v for v, i in tail.value_ids.items()}
    tail_values = [tail_names[i] for i in tail.val]
    tail_forms = {i: f for f, i in tail.form_ids.items()}
    tail_form_list = [tail_forms[i] for i in tail.form]
    start = len(head.val)
    head.merge(tail)
    assert list(head.value_ids) == ["3", "1", "2"]
    names = {i: v for v, i in head.value_ids.items()}
    forms = {i: f for f, i in head.form_ids.items()}
    assert [names[i] for i in head.val[start:]] == tail_values
    assert [forms[i] for i in head.form[start:]] == tail_form_list
    assert head.offsets[FIRST_PERSON_2] == start


def test_merged_fit_equals_one_pass_fit(dev: tuple[Sentence, ...]) -> None:
    t = task("contextual_person")
    one = t.fit(observed(t, dev))
    both = t.fit(merged(t, dev, [0, FIRST_PERSON_1, FIRST_PERSON_2, len(dev)]))
    assert one == both
    assert list(one.report["tokens_per_value"]) == list(both.report["tokens_per_value"])


def test_merging_another_task_is_refused(dev: tuple[Sentence, ...]) -> None:
    number = observed(task("contextual_number"), dev[:5])
    person = observed(task("contextual_person"), dev[5:10])
    with pytest.raises(ValueError, match="contextual_number: cannot merge an observation of"):
        number.merge(person)
