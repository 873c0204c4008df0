"""``discourse_relations`` from RST trees: the ``.rs3`` and ``.dis`` readers, binarisation
checked against hand-drawn trees, the build with the treebank's own splits and a relation map,
and bad input named by file and line. The two fixtures are written here (no RST treebank is
available offline)."""

from __future__ import annotations

import glob
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe import build_rst
from polyprobe.builders.discourse.discourse_relations import DiscourseRelations
from polyprobe.builders.discourse.rst_binary import binarise
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.rst import RstSource, read_dis, read_relation_map, read_rs3
from polyprobe.loaders.source import InvalidPolicy

# Drawn by hand:                     elaboration (NS)
#                            /                          \
#              circumstance (SN)                       list (NN)
#              /          \                          /        \
#             1        cause (NS)                   4       list (NN)
#                      /     \                              /     \
#                     2       3                            5       6
# EDU 2 is the nucleus of 1 (circumstance) and of 3 (cause); group 12 (list of 4-6) elaborates
# the span 1-3, whose nucleus is EDU 2 (group 11).
RS3 = """<rst>
<header><relations>
  <rel name="circumstance" type="rst"/>
  <rel name="cause" type="rst"/>
  <rel name="elaboration" type="rst"/>
  <rel name="list" type="multinuc"/>
</relations></header>
<body>
  <segment id="1" parent="2" relname="circumstance">In the third quarter,</segment>
  <segment id="2" parent="11" relname="span">the company reported record profits</segment>
  <segment id="3" parent="2" relname="cause">because sales rose sharply.</segment>
  <segment id="4" parent="12" relname="list">Its shares climbed,</segment>
  <segment id="5" parent="12" relname="list">its bonds rallied,</segment>
  <segment id="6" parent="12" relname="list">and its rivals fell.</segment>
  <group id="11" type="span"/>
  <group id="12" type="multinuc" parent="11" relname="elaboration"/>
</body>
</rst>
"""
RS3_TREE = "(NS-elaboration (SN-circumstance 1 (NS-cause 2 3)) (NN-list 4 (NN-list 5 6)))"

# Drawn by hand: the first span has one nucleus (2) with three satellites, 1 on its left and
# 3, 4 on its right: one relation per satellite, nearest first, right before left:
#            elaboration-general-specific (NS)
#              /                              \
#      background (SN)                       List (NN)
#       /        \                           /      \
#      1     attribution (NS)               5     List (NN)
#             /           \                        /    \
#   elaboration-additional (NS)  4                6      7
#          /      \
#         2        3
DIS = """( Root (span 1 7)
  ( Nucleus (span 1 4) (rel2par span)
    ( Satellite (leaf 1) (rel2par background) (text _!Last year,_!) )
    ( Nucleus (leaf 2) (rel2par span) (text _!the firm grew_!) )
    ( Satellite (leaf 3) (rel2par elaboration-additional) (text _!by ten percent,_!) )
    ( Satellite (leaf 4) (rel2par attribution) (text _!its chief said._!) )
  )
  ( Satellite (span 5 7) (rel2par elaboration-general-specific)
    ( Nucleus (leaf 5) (rel2par List) (text _!Sales doubled,_!) )
    ( Nucleus (leaf 6) (rel2par List) (text _!costs fell,_!) )
    ( Nucleus (leaf 7) (rel2par List) (text _!and margins widened._!) )
  )
)
"""
DIS_TREE = (
    "(NS-elaboration-general-specific (SN-background 1 (NS-attribution "
    "(NS-elaboration-additional 2 3) 4)) (NN-List 5 (NN-List 6 7)))"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rs3_binarised_as_drawn(tmp_path: Path) -> None:
    edus, tree = read_rs3(write(tmp_path / "a.rs3", RS3))
    assert edus[0] == "In the third quarter," and len(edus) == 6
    assert binarise(tree).bracketed() == RS3_TREE


def test_dis_binarised_as_drawn(tmp_path: Path) -> None:
    edus, tree = read_dis(write(tmp_path / "a.dis", DIS))
    assert edus == (
        "Last year,",
        "the firm grew",
        "by ten percent,",
        "its chief said.",
        "Sales doubled,",
        "costs fell,",
        "and margins widened.",
    )
    assert binarise(tree).bracketed() == DIS_TREE


def test_rows_of_a_tree(tmp_path: Path) -> None:
    source = RstSource.from_paths([write(tmp_path / "a.dis", DIS)])
    (doc,) = list(source.records(InvalidPolicy("raise")))
    task = DiscourseRelations.configure({}, TaskContext())
    obs = task.observation()
    obs.observe(doc, Shared(doc))
    fit = task.fit(obs)
    assert fit.label_names[0] == "NN-List"  # twice; every other label once
    rows = {c.copy: c for c in task.candidates(doc, fit, Shared(doc))}
    assert sorted(rows) == ["1-4", "1-7", "2-3", "2-4", "5-7", "6-7"]
    top = rows["1-7"]
    assert top.label == "NS-elaboration-general-specific"
    assert top.inputs["left"] == list(doc.edus[:4]) and top.inputs["right"] == list(doc.edus[4:])
    assert rows["2-4"].inputs == {
        "left": ["the firm grew", "by ten percent,"],
        "right": ["its chief said."],
    }
    coarse = DiscourseRelations.configure(
        {"relation_map": {"list": "Joint", "Background": "Background"}, "nuclearity": False},
        TaskContext(),
    )
    obs = coarse.observation()
    obs.observe(doc, Shared(doc))
    fit = coarse.fit(obs)
    assert fit.label_names == ("Joint", "Background")  # matched case-insensitively
    assert len(coarse.candidates(doc, fit, Shared(doc))) == 3
    assert coarse.drops["relation not in the relation map"] == 3
    assert fit.report["unmapped_relations"] == {
        "attribution": 1,
        "elaboration-additional": 1,
        "elaboration-general-specific": 1,
    }


def test_bad_rst_input_names_file_and_line(tmp_path: Path) -> None:
    broken = DIS.replace("(leaf 3) (rel2par elaboration-additional)", "(leaf 3) (rel2par)")
    with pytest.raises(InputError, match=r"b\.dis:5: .*malformed \(rel2par"):
        read_dis(write(tmp_path / "b.dis", broken))
    orphan = RS3.replace(
        'parent="12" relname="list">its bonds', 'parent="99" relname="list">its bonds'
    )
    with pytest.raises(InputError, match=r"b\.rs3:13: node 5: parent 99 does not exist"):
        read_rs3(write(tmp_path / "b.rs3", orphan))
    with pytest.raises(InputError, match=r"c\.dis:12: unexpected end of file, expected '\)'"):
        read_dis(write(tmp_path / "c.dis", DIS.rstrip()[:-1]))
    # under --on-invalid skip: the bad file is counted, the good one read
    good = write(tmp_path / "a.dis", DIS)
    source = RstSource.from_paths([good, tmp_path / "c.dis"])
    counts: Counter[str] = Counter()
    docs = list(source.records(InvalidPolicy("skip", counts)))
    assert [d.doc_id for d in docs] == ["a.dis"] and sum(counts.values()) == 1


def test_relation_map_file(tmp_path: Path) -> None:
    tsv = write(tmp_path / "map.tsv", "# fine\tcoarse\nList\tJoint\ncause\tCause\n")
    assert read_relation_map(tsv) == {"List": "Joint", "cause": "Cause"}
    bad = write(tmp_path / "bad.tsv", "List\tJoint\nList\tOther\n")
    with pytest.raises(InputError, match=r"bad\.tsv:2: relation 'List' mapped twice"):
        read_relation_map(bad)
    assert read_relation_map(write(tmp_path / "m.json", json.dumps({"list": "Joint"}))) == {
        "list": "Joint"
    }


def _treebank(root: Path) -> Path:
    """Both fixtures in the treebank's own train/dev/test folders (renamed copies)."""
    for split, n in (("train", 3), ("dev", 1), ("test", 1)):
        for i in range(n):  # distinct texts: a duplicate document would share its group
            write(root / split / f"doc{i}.rs3", RS3.replace("quarter,", f"quarter of {split}{i},"))
            write(root / split / f"wsj{i}.dis", DIS.replace("Last year,", f"In {split}{i},"))
    return root


def test_build_rst_keeps_splits_and_validates(tmp_path: Path, hf_offline: None) -> None:
    import datasets

    root = _treebank(tmp_path / "toy-rst")
    result = build_rst([root], lang="en", out=tmp_path / "out", min_per_class=(1, 1, 1))
    assert validate(result.out).ok
    ds = datasets.load_dataset(str(result.out), "discourse_relations.natural-full")
    assert ds["train"].features["left"].feature.dtype == "string"
    (path,) = glob.glob(str(result.out / "data/discourse_relations.natural-full/test-*.parquet"))
    rows = pq.read_table(path).to_pylist()
    assert {r["group"] for r in rows} == {"toy-rst/test/doc0.rs3", "toy-rst/test/wsj0.dis"}
    assert len(rows) == 5 + 6  # internal nodes of the two trees
    top = next(r for r in rows if r["id"] == "toy-rst/test/wsj0.dis/discourse_relations/1-7")
    labels = ds["test"].features["label"].names
    assert labels[top["label"]] == "NS-elaboration-general-specific"
    card = (result.out / "README.md").read_text()
    assert "the treebank's own splits (dev, test, train)" in card
    # a mapping from the command line's file
    tsv = write(tmp_path / "map.tsv", "list\tJoint\nList\tJoint\ncause\tCause\n")
    mapped = build_rst(
        [root], lang="en", out=tmp_path / "mapped", relation_map=tsv, min_per_class=(1, 1, 1)
    )
    report = json.loads((mapped.out / "report.json").read_text())
    entry = report.get("tasks", report)["discourse_relations"]
    assert set(entry["class_counts"]) == {"NN-Joint", "NS-Cause"}
    # per pair of documents: elaboration, circumstance (rs3); 4 relations of the .dis
    assert entry["task_drops"]["relation not in the relation map"] == 5 * (2 + 4)


def test_mixed_split_folders_refused(tmp_path: Path) -> None:
    write(tmp_path / "t" / "train" / "a.dis", DIS)
    write(tmp_path / "t" / "b.dis", DIS)
    with pytest.raises(UsageError, match="some RST files lie in a train/dev/test folder"):
        build_rst([tmp_path / "t"], lang="en", out=tmp_path / "o")
