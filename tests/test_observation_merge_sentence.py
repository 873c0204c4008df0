"""Merged observations of the sentence tasks hold exactly the state of one observation.

``tests/test_observation_merge.py`` compares what the merged observations *fit to*; this file
compares the observations themselves, every attribute (``vars()``, recursively: dicts and
Counters in key order, arrays with their type), so that a difference a fit happens to hide
(a key order, an id numbering, a pending count of the form inventory) is still caught. On EWT
dev, cut adversarially: empty ranges (first, in the middle, last), a first range of one
sentence (so nearly every form, key and sequence first occurs in a later range) and a cut
inside a document (a build cuts between documents, but the merge must not rely on it).
"""

from __future__ import annotations

import dataclasses
import pickle
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polyprobe.builders.sentence.end_of_sentence import EndOfSentence
from polyprobe.builders.sentence.inventory import FormInventory
from polyprobe.builders.sentence.odd_man_out import OddManOut
from polyprobe.builders.sentence.subject_verb_agreement import VERBAL_UPOS, SubjectVerbAgreement
from polyprobe.builders.sentence.top_dependencies import TopDependencies, root_sequence
from polyprobe.builders.sentence.tree_depth import TreeDepth
from polyprobe.builders.sentence.word_content import WordContent
from polyprobe.builders.sentence.word_order import WordOrder, WordOrderPermuted
from polyprobe.builders.task import Observation, Shared, Task, TaskContext
from polyprobe.hashing import lexical_key
from polyprobe.loaders.conllu import read_conllu
from polyprobe.loaders.records import Sentence

EWT = "UD_English-EWT"
CONTEXT = TaskContext(lang="en")
TASKS: list[type[Task[Sentence]]] = [
    WordContent,
    TreeDepth,
    TopDependencies,
    OddManOut,
    SubjectVerbAgreement,
    WordOrder,
    WordOrderPermuted,
    EndOfSentence,
]


@pytest.fixture(scope="module")
def dev(ud_dir: Path) -> list[Sentence]:
    path = ud_dir / EWT / "en_ewt-ud-dev.conllu"
    return list(read_conllu(path, treebank=EWT, split="dev"))


def state(value: Any) -> Any:
    """``value`` as plain, comparable data: dicts (Counters too) as their items in order,
    arrays with their type code or dtype, objects as their attributes, recursively."""
    if isinstance(value, dict):
        return (type(value).__name__, [(k, state(v)) for k, v in value.items()])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    if isinstance(value, array):
        return ("array", value.typecode, value.tolist())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [state(v) for v in value])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value  # frozen values (the task context): compared as they are
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return (type(value).__name__, state(vars(value)))
    return value


def range_cuts(n: int, *cuts: int) -> list[tuple[int, int]]:
    bounds = [0, *cuts, n]
    return list(zip(bounds, bounds[1:], strict=False))


def observe(observation: Any, sentences: Sequence[Sentence]) -> Any:
    for s in sentences:
        observation.observe(s, Shared(s))
    return observation


def merged(make: Callable[[], Any], ranges: Sequence[Sequence[Sentence]]) -> Any:
    """Each range observed apart and pickled (as in another process), merged in order."""
    first, *rest = [pickle.loads(pickle.dumps(observe(make(), r))) for r in ranges]
    for later in rest:
        first.merge(later)
    return first


# Empty ranges at the start, in the middle and at the end; one range of one sentence.
def adversarial_cuts(n: int) -> list[list[tuple[int, int]]]:
    return [
        range_cuts(n, 0, 1, 700, 700, 1500, n),
        range_cuts(n, n // 2),
    ]


@pytest.mark.parametrize("task_class", TASKS, ids=lambda c: c.metadata.name)
def test_merged_observation_state_is_one_observation(
    dev: list[Sentence], task_class: type[Task[Sentence]]
) -> None:
    task = task_class(context=CONTEXT)

    def make() -> Observation:
        observation = task.observation()
        assert observation is not None
        return observation

    def shipped(observation: Observation) -> Any:
        """The state another process receives (word_content's per-form memo stays behind)."""
        return state(pickle.loads(pickle.dumps(observation)))

    one = shipped(observe(make(), dev))
    for cuts in adversarial_cuts(len(dev)):
        ranges = [dev[a:b] for a, b in cuts]
        assert shipped(merged(make, ranges)) == one, cuts


@pytest.mark.parametrize(
    ("cell_upos", "kwargs"),
    [
        (("NOUN", "VERB"), {"bigrams": True}),  # odd_man_out's inventory
        (VERBAL_UPOS, {"only_upos": (*VERBAL_UPOS, "NOUN")}),  # subject_verb_agreement's
    ],
    ids=["odd_man_out", "subject_verb_agreement"],
)
def test_form_inventory_merged_equals_one(
    dev: list[Sentence], cell_upos: tuple[str, ...], kwargs: dict[str, Any]
) -> None:
    """The merged inventory's raw counts, then its folded tables (key order included), are
    those of one inventory fed every sentence; forms first seen in a later range come after
    the earlier range's, in their order of first occurrence."""

    def make() -> FormInventory:
        return FormInventory(CONTEXT, cell_upos, **kwargs)

    one = observe(make(), dev)
    raw = state(one)
    for cuts in adversarial_cuts(len(dev)):
        both = merged(make, [dev[a:b] for a, b in cuts])
        assert state(both) == raw, cuts
        assert both == one
        assert state(both.state()) == state(one.state())
        assert state(both) == state(one)  # folded the same way
        one = observe(make(), dev)
    # Forms first seen after the first half: merged, they follow the first half's forms.
    half = len(dev) // 2
    early = observe(make(), dev[:half]).form_counts
    late = [k for k in observe(make(), dev[half:]).form_counts if k not in early]
    assert len(late) > 100  # the adversarial case is real
    assert list(one.form_counts) == [*early, *late]


def test_form_inventory_read_before_merge(dev: list[Sentence]) -> None:
    """An inventory read (folded) before taking in a later range equals one inventory read at
    the same point of the stream; a later inventory that was read is refused."""
    cut = 900
    one = observe(FormInventory(CONTEXT, ("NOUN", "VERB"), bigrams=True), dev[:cut])
    one.form_counts  # noqa: B018 - a read folds the raw counts
    observe(one, dev[cut:])
    first = observe(FormInventory(CONTEXT, ("NOUN", "VERB"), bigrams=True), dev[:cut])
    first.form_counts  # noqa: B018
    later = observe(FormInventory(CONTEXT, ("NOUN", "VERB"), bigrams=True), dev[cut:])
    first.merge(pickle.loads(pickle.dumps(later)))
    assert state(first) == state(one)
    assert state(first.state()) == state(one.state())
    later.form_counts  # noqa: B018
    with pytest.raises(ValueError, match="was read"):
        observe(FormInventory(CONTEXT, ("NOUN", "VERB"), bigrams=True), dev[:cut]).merge(later)
    with pytest.raises(ValueError, match="different settings"):
        FormInventory(CONTEXT, ("NOUN",)).merge(FormInventory(CONTEXT, ("VERB",)))


def test_renumbered_ids_follow_first_occurrence(dev: list[Sentence]) -> None:
    """word_content's key ids and top_dependencies' sequence ids of a range of one sentence
    merged with the rest: the ids of keys first seen in the rest are renumbered after the
    first sentence's, and the id arrays point at the same keys as one pass's."""
    first_keys = {lexical_key(t.form) for t in dev[0].surface_tokens() if t.upos != "PUNCT"}
    word_content = WordContent(context=CONTEXT)
    both = merged(word_content.observation, [dev[:1], dev[1:]])
    one = observe(word_content.observation(), dev)
    assert list(both.ids) == list(one.ids)
    assert set(list(both.ids)[: len(first_keys)]) == first_keys
    assert both.tok == one.tok and both.lengths == one.lengths and both.noun_tok == one.noun_tok
    assert both.tok.typecode == both.lengths.typecode == "i"  # widened again after the pickle
    keys = list(both.ids)
    # The first token of sentence 1 (index 1: the first of the later range) names its key.
    token = next(t for t in dev[1].surface_tokens() if t.upos != "PUNCT")
    at = both.lengths[0]
    assert keys[both.tok[at]] == lexical_key(token.form)
    # Merged in one process (no pickle): the first range's form memo still names the merged
    # ids, so observing more sentences records the ids one pass would.
    head = observe(word_content.observation(), dev[:1])
    head.merge(observe(word_content.observation(), dev[1:1000]))
    assert head.form_ids and all(
        head.ids[lexical_key(form)] == ident for form, ident in head.form_ids.items()
    )
    observe(head, dev[1000:])
    assert head.tok == one.tok and list(head.ids) == list(one.ids)

    top = TopDependencies(context=CONTEXT)
    both_top = merged(top.observation, [dev[:1], dev[1:]])
    assert list(both_top.ids) == list(observe(top.observation(), dev).ids)
    sequences = list(both_top.ids)
    for i in (1, 2, 500, len(dev) - 1):
        seq, _ = root_sequence(dev[i])
        assert (sequences[both_top.seq[i]] if both_top.seq[i] >= 0 else None) == seq


def test_end_of_sentence_cut_inside_a_document(dev: list[Sentence]) -> None:
    """A range cut inside a document: the document is counted once, the last sentence's key
    is the later range's."""
    cut = next(i for i in range(800, len(dev)) if dev[i].doc_id == dev[i - 1].doc_id)
    task = EndOfSentence(context=CONTEXT)
    one = observe(task.observation(), dev)
    both = merged(task.observation, [dev[:cut], dev[cut:]])
    assert state(both) == state(one)
    apart = observe(task.observation(), dev[:cut]).documents
    apart += observe(task.observation(), dev[cut:]).documents
    assert both.documents == one.documents == apart - 1


def test_a_form_first_seen_in_the_later_range(dev: list[Sentence]) -> None:
    """"refugee" occurs twice in EWT dev, both in sentence 1000 (hiddennook_..._230600-0012,
    "Abbas, a refugee himself ... called the refugee issue ..."), the first sentence of the
    second half; the first half has only "refugees". Merged, it is counted, spelled and
    celled as in one pass, and it comes after every form of the first half."""
    half = len(dev) // 2
    assert dev[half].sent_id.endswith("hiddennook_23708a8afef2f3a8_ENG_20041226_230600-0012")
    early = observe(FormInventory(CONTEXT, ("NOUN", "VERB")), dev[:half])
    assert "refugee" not in early.form_counts and "refugees" in early.form_counts
    both = merged(lambda: FormInventory(CONTEXT, ("NOUN", "VERB")), [dev[:half], dev[half:]])
    one = observe(FormInventory(CONTEXT, ("NOUN", "VERB")), dev)
    assert both.form_counts["refugee"] == one.form_counts["refugee"] == 2
    assert both.spelling("refugee") == one.spelling("refugee") == "refugee"
    cell = ("refugee", "NOUN", (("Number", "Sing"),))
    assert both.cells[cell] == one.cells[cell] == {"refugee": 2}
    keys = list(both.form_counts)
    assert keys.index("refugee") >= len(early.form_counts)
    assert keys == list(one.form_counts)
