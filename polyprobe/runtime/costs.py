"""What each task costs a build, as measured, for balancing tasks across processes.

Why a table here and not an attribute of the tasks: how much CPU a task's passes take is a
fact about this machinery on real data, not part of a task's recipe, and it never changes a
byte of output. ``python bench/task_costs.py`` re-measures the costs (the marginal time a task
adds to a build of EWT, relative to ``sentence_length``) and prints them beside this table.
A task missing here counts as :data:`DEFAULT_COST`.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_COST = 1.0

# Measured on EWT with ``bench/task_costs.py`` (relative to sentence_length).
TASK_COSTS: dict[str, float] = {
    "sentence_length": 1.0,
    "sentence_length_senteval": 0.6,
    "word_content": 1.1,
    "tree_depth": 2.1,
    "top_dependencies": 1.8,
    "bigram_shift": 4.3,
    "tense": 1.0,
    "subject_number": 0.4,
    "object_number": 0.3,
    "odd_man_out": 10.8,
    "coordination_inversion": 0.5,
    "subject_verb_agreement": 3.0,
    "subject_verb_distance": 0.4,
    "voice": 0.6,
    "word_order": 1.3,
    "word_order_permuted": 1.1,
    "end_of_sentence": 1.6,
    # The document tasks of ``build ud`` together: 1.8 units. They were 4.9 (CPU time of EWT
    # with and without them) while their stream read the treebanks itself; a process that
    # runs sentence tasks now feeds them its own readings, which took 3.1 units of the 4.9
    # (a profile of the EWT build: 8.5% of its CPU in the document stream's two readings).
    "sentence_position": 0.45,
    "binary_sentence_ordering": 0.45,
    "discourse_coherence": 0.5,
    "sentence_section": 0.4,
}

# Tasks that share per-record work (``builders.task.Shared``): it is computed once only when
# they run in one process, so a plan keeps them together. odd_man_out and
# subject_verb_agreement both digest every sentence's form inventory; the two word_order
# tasks read a sentence (lengths, target position) the same way; the document tasks share
# their stream's grouping of sentences into documents.
SHARED_WORK: tuple[tuple[str, ...], ...] = (
    ("odd_man_out", "subject_verb_agreement"),
    ("word_order", "word_order_permuted"),
    ("sentence_position", "binary_sentence_ordering", "discourse_coherence", "sentence_section"),
)


def cost_of(name: str) -> float:
    return TASK_COSTS.get(name, DEFAULT_COST)


def affinity_of(name: str) -> str:
    """The name of the group of tasks sharing work with ``name`` ("" when none)."""
    for group in SHARED_WORK:
        if name in group:
            return "+".join(group)
    return ""


def total_cost(names: Sequence[str]) -> float:
    return sum(cost_of(n) for n in names)
