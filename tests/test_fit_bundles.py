"""The fit phase of a build on record ranges hands each process one bundle of observing tasks
(``stream.fit_bundles``): every task in exactly one bundle, the bundles balanced by the
measured task costs, the costliest first (this process takes it), and at most one per
process."""

from __future__ import annotations

from polyprobe.builders.execution.stream import fit_bundles

NAMES = ["tense", "odd_man_out", "tree_depth", "voice", "subject_verb_agreement", "word_content"]


def test_every_task_in_exactly_one_bundle_costliest_first() -> None:
    bundles = fit_bundles(NAMES, 2)
    assert len(bundles) == 2
    assert sorted(i for b in bundles for i in b) == list(range(len(NAMES)))
    # odd_man_out (10.8 units) outweighs the other five together (7.8): it is alone in the
    # first bundle, the one the build's own process takes
    assert [NAMES[i] for i in bundles[0]] == ["odd_man_out"]
    assert [NAMES[i] for i in bundles[1]] == [n for n in NAMES if n != "odd_man_out"]


def test_one_process_one_bundle_and_no_empty_bundles() -> None:
    assert fit_bundles(NAMES, 1) == [list(range(len(NAMES)))]
    assert fit_bundles(["voice"], 4) == [[0]]
    assert fit_bundles([], 2) == []


def test_deterministic() -> None:
    assert fit_bundles(NAMES, 3) == fit_bundles(list(NAMES), 3)
    assert len(fit_bundles(NAMES, 3)) == 3
