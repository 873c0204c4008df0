"""Class plans decided with their floors (issue 37, item 3): a ``--scale`` word task sizes its
sample and its validation/test splits so that every kept class meets its floors in every
split, and an infeasible task names an option that, applied, builds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import config_rows

from polyprobe import build_unimorph
from polyprobe.builders.floors import plan_classes, rows_needed
from polyprobe.errors import InfeasibleError

# 17 case values (UniMorph tags) of 117-135 forms each: Hungarian's case at SIGMORPHON scale.
CASES = ("ABL", "ACC", "ALL", "BEN", "COM", "DAT", "ERG", "ESS", "GEN", "INS", "LOC", "NOM",
         "PRIV", "PROL", "PROPR", "TERM", "TRANS")


def _lexicon(path: Path, per_case: dict[str, int], verbs: int) -> Path:
    """A UniMorph file: ``per_case[c]`` nouns with one form in case ``c`` each (every form
    distinct, so none is ambiguous or syncretic) and ``verbs`` caseless verb forms (the
    ``None`` pool)."""
    lines = []
    for c, n in per_case.items():
        for i in range(n):
            lines.append(f"l{c.lower()}{i}\tf{c.lower()}{i}x\tN;{c};SG")
    for i in range(verbs):
        lines.append(f"v{i}\tv{i}ra\tV;PRS;3;SG")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _report(out: Path, task: str) -> dict[str, Any]:
    return json.loads((out / "report.json").read_text(encoding="utf-8"))[task]


def _labels(out: Path, config: str) -> dict[str, set[int]]:
    return {s: {r["label"] for r in rows} for s, rows in config_rows(out, config).items()}


def test_seventeen_classes_of_120_forms_all_kept(tmp_path: Path) -> None:
    """Before the plan, the test split (10 % of ~1,000 rows) could not hold 18 classes x 20
    rows: every class fell to 13-14 test rows and the task was infeasible. The plan grows the
    sample and raises validation/test, so every class meets 50/20/20 in every split."""
    sizes = {c: 117 + (i * 18) // 16 for i, c in enumerate(CASES)}
    assert min(sizes.values()) == 117 and max(sizes.values()) == 135
    lexicon = _lexicon(tmp_path / "hun", sizes, verbs=1500)
    out = build_unimorph([lexicon], lang="hu", scale=True, tasks=["case"],
                         out=tmp_path / "out").out
    report = _report(out, "case")
    assert report["built"], report
    names = report["class_counts"]
    assert len(names) == 18 and "None" in names and report["dropped_classes"] == {}, names
    for config in ("case", "case.natural-full-lemma-disjoint"):
        rows = config_rows(out, config)
        for split, floor in (("train", 50), ("validation", 20), ("test", 20)):
            counts: dict[int, int] = {}
            for r in rows[split]:
                counts[r["label"]] = counts.get(r["label"], 0) + 1
            assert len(counts) == 18, (config, split, counts)
            assert min(counts.values()) >= floor, (config, split, counts)
    notes = " ".join(report["derived"]["notes"])
    assert "validation/test raised from" in notes and "18 classes" in notes


def test_plan_without_raise_is_the_default_split() -> None:
    """A task whose classes fit at the default proportions gets the default plan exactly (so
    builds that always fit are unchanged): nothing raised, the given reserve."""
    plan = plan_classes({"a": 3000, "b": 3000}, 3000, target=3000, none_share=0.3,
                        proportions=(7000, 2000, 1000), floors=(50, 20, 20),
                        reserve=rows_needed((7000, 2000, 1000), (50, 20, 20)), grow=True)
    assert plan is not None and plan.raised == () and plan.kept == ("a", "b")
    assert (plan.labelled, plan.none, plan.reserve) == (2100, 900, 90)


def test_plan_keeps_the_most_classes_that_fit_fixed_sizes() -> None:
    """Fixed --split-sizes (no --scale): the size is the user's; the plan keeps the most
    frequent classes whose floors fit (here test 100 rows hold 5 classes x 20)."""
    available = {f"c{i}": 500 - i for i in range(8)}
    plan = plan_classes(available, 0, target=1000, none_share=0.0,
                        proportions=(700, 200, 100), floors=(50, 20, 20), reserve=100,
                        grow=False, fixed_counts=(700, 200, 100))
    assert plan is not None and plan.kept == ("c0", "c1", "c2", "c3", "c4")


def _infeasible_lexicon(tmp_path: Path) -> Path:
    # three values of 80 forms: below the 90 rows 50/20/20 needs at 70/20/10
    return _lexicon(tmp_path / "small", {"NOM": 80, "ACC": 80, "DAT": 80}, verbs=0)


def test_infeasible_task_names_a_remedy_that_builds(tmp_path: Path) -> None:
    lexicon = _infeasible_lexicon(tmp_path)
    with pytest.raises(InfeasibleError) as caught:
        build_unimorph([lexicon], lang="hu", scale=True, min_forms=100, tasks=["case"],
                       out=tmp_path / "a")
    reason = str(caught.value)
    assert "labels below the class floors (90 forms)" in reason, reason
    assert "remedy: --min-per-class " in reason, reason
    value = reason.split("remedy: --min-per-class ", 1)[1].split()[0]
    floors = tuple(int(x) for x in value.split(","))
    assert floors != (50, 20, 20) and min(floors) >= 1
    again = build_unimorph([lexicon], lang="hu", scale=True, min_forms=100, tasks=["case"],
                           min_per_class=floors, out=tmp_path / "b")
    assert _report(again.out, "case")["built"], _report(again.out, "case")
    assert len(_labels(again.out, "case")["test"]) >= 2


def test_remedy_scale_for_fixed_sizes(tmp_path: Path) -> None:
    """Without --scale the size is LINSPECTOR's 10,000 forms: the remedy computed on this input
    is --scale, and the build with it keeps every class."""
    sizes = {c: 400 for c in CASES[:4]}
    lexicon = _lexicon(tmp_path / "four", sizes, verbs=600)
    with pytest.raises(InfeasibleError) as caught:
        build_unimorph([lexicon], lang="hu", tasks=["case"], out=tmp_path / "a")
    reason = str(caught.value)
    assert "remedy: --scale" in reason, reason
    again = build_unimorph([lexicon], lang="hu", tasks=["case"], scale=True, out=tmp_path / "b")
    assert _report(again.out, "case")["built"]
    assert len(_labels(again.out, "case")["test"]) == 5


@pytest.mark.parametrize("floors", [(0, 0, 0)])
def test_plan_with_no_floors_is_none_free(floors: tuple[int, int, int]) -> None:
    """Floors of 0 ask nothing of a plan: every class is kept at the target size."""
    plan = plan_classes({"a": 10, "b": 5}, 0, target=15, none_share=0.0,
                        proportions=(7, 2, 1), floors=floors, reserve=0, grow=True)
    assert plan is not None and plan.kept == ("a", "b") and plan.labelled == 15


# ------------------------------------------------------------------ computed remedies (item 5)


def _treebank(path: Path, n: int) -> Path:
    """``n`` two-word sentences with their own verb each, tenses alternating."""
    blocks = []
    for i in range(n):
        tense = "Past" if i % 2 else "Pres"
        blocks.append(
            f"# sent_id = s{i}\n# text = n{i} v{i}\n"
            f"1\tn{i}\tn{i}\tNOUN\t_\tNumber=Sing\t2\tnsubj\t_\t_\n"
            f"2\tv{i}\tv{i}\tVERB\t_\tTense={tense}\t0\troot\t_\t_\n"
        )
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return path


def test_small_test_warning_names_a_split_that_reaches_500(tmp_path: Path) -> None:
    from polyprobe import build_ud

    bank = _treebank(tmp_path / "en_many-ud-train.conllu", 3000)
    first = build_ud([bank], lang="en", tasks=["tense"], split="ratio", out=tmp_path / "a")
    card = (first.out / "README.md").read_text(encoding="utf-8")
    assert "test split: the recommended config has 276 test rows (\\< 500" in card
    spec = card.split("remedy: --split ", 1)[1].split()[0]
    assert spec == "ratio:71/10/19", spec
    again = build_ud([bank], lang="en", tasks=["tense"], split=spec, out=tmp_path / "b")
    assert len(config_rows(again.out, "tense")["test"]) >= 500


def test_floor_losses_name_the_floors_that_keep_every_class() -> None:
    import numpy as np

    from polyprobe.builders.variants import (
        CandidateColumns,
        MinPerClass,
        SplitSpec,
        VariantSettings,
        make_variants,
    )

    # three classes, the third with 40 rows: 10 % test gives it ~4 test rows < 20
    labels = [0] * 400 + [1] * 400 + [2] * 40
    n = len(labels)
    cols = CandidateColumns(
        label=np.asarray(labels, dtype=np.int16),
        group=np.arange(1, n + 1, dtype=np.uint64),
        key=np.zeros(n, dtype=np.uint64),
        source_split=np.full(n, -1, dtype=np.int8),
        order=(np.arange(n, dtype=np.uint64) * 2654435761) % 4294967291,
    )

    def run(floors: tuple[int, int, int]) -> Any:
        return make_variants(cols, ["a", "b", "c"], VariantSettings(
            split=SplitSpec("ratio", (80, 10, 10)), min_per_class=MinPerClass(*floors)))

    first = run((50, 20, 20))
    assert first.dropped_classes.keys() == {"c"}
    note = next(x for x in first.notes if x.startswith("classes below --min-per-class: c; "))
    value = note.split("remedy: --min-per-class ", 1)[1].split()[0]
    floors = tuple(int(x) for x in value.split(","))
    assert len(floors) == 3 and floors[1] < 20
    again = run(floors)  # type: ignore[arg-type]
    assert again.dropped_classes == {} and again.label_names == ["a", "b", "c"]


def test_type_level_task_raises_its_held_out_splits(tmp_path: Path) -> None:
    """``character_bin`` under --scale: 6 bins of 200 forms, a 1,000-row task whose 10 % test
    split (100 rows) cannot hold 6 x 20; before, every bin fell to 16-17 test rows and the task
    was infeasible. Validation/test are raised, and every bin meets its floors."""
    import random

    rng = random.Random(1)
    seen: set[str] = set()
    lines = []
    for lo, hi in ((2, 4), (5, 8), (9, 12), (13, 16), (17, 20), (21, 24)):
        n = 0
        while n < 200:
            word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                           for _ in range(rng.randint(lo, hi)))
            if word not in seen:
                seen.add(word)
                n += 1
                lines.append(f"{word}\t{word}\tN;SG")
    lexicon = tmp_path / "bins"
    lexicon.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = build_unimorph([lexicon], lang="en", scale=True, tasks=["character_bin"],
                         out=tmp_path / "out").out
    report = _report(out, "character_bin")
    assert len(report["class_counts"]) == 6 and report["dropped_classes"] == {}
    test = config_rows(out, "character_bin")["test"]
    counts: dict[int, int] = {}
    for r in test:
        counts[r["label"]] = counts.get(r["label"], 0) + 1
    assert len(counts) == 6 and min(counts.values()) >= 20, counts
    assert "validation/test raised from 200/100 to 200/120" in " ".join(report["derived"]["notes"])


def test_word_content_names_floors_that_build_it(data_dir: Path, tmp_path: Path) -> None:
    """EWT at the default floors (50/20/20) keeps no K of word_content: the reason names the
    floors the smallest K's 30 targets reach on this treebank, and a build with them has
    every one of those 30 words as a class."""
    from polyprobe import build_ud

    ewt = data_dir / "ud" / "UD_English-EWT"
    with pytest.raises(InfeasibleError) as caught:
        build_ud([ewt], lang="en", tasks=["word_content"], out=tmp_path / "a")
    reason = str(caught.value)
    assert "no K in 1000/300/100/30 has every target" in reason, reason
    assert "remedy: --min-per-class " in reason and "keeps the smallest K's 30 targets" in reason
    value = reason.split("remedy: --min-per-class ", 1)[1].split()[0]
    floors = tuple(int(x) for x in value.split(","))
    assert all(1 <= f <= d for f, d in zip(floors, (50, 20, 20), strict=True)), floors
    again = build_ud([ewt], lang="en", tasks=["word_content"], min_per_class=floors,
                     out=tmp_path / "b")  # fmt: skip
    assert _report(again.out, "word_content")["built"]
    assert len(_labels(again.out, "word_content")["test"]) == 30
