"""``validate``: a valid folder passes; each hand-corrupted copy reports its specific problem.

Corruptions are made the way they happen in practice: a README edited by hand, a parquet file
rewritten by another tool (keeping its embedded features), a file deleted or added.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_folder_writer import SENT_LABELS, make_table, write_folder

from polyprobe.cards import schema
from polyprobe.cards.card import read_readme, render_readme
from polyprobe.cards.folder import PARQUET_OPTIONS, split_file
from polyprobe.cards.validate import UnusableFolderError, ValidationReport, validate

SN = "subject_number"


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("valid") / "ds")


@pytest.fixture
def copy(valid: Path, tmp_path: Path) -> Path:
    out = tmp_path / "ds"
    shutil.copytree(valid, out)
    return out


def edit_yaml(folder: Path, change: Callable[[dict], None]) -> None:
    data, body = read_readme(folder / "README.md")
    change(data)
    (folder / "README.md").write_text(render_readme(data, body), encoding="utf-8")


def edit_body(folder: Path, old: str, new: str) -> None:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (folder / "README.md").write_text(text.replace(old, new), encoding="utf-8")


def rewrite(folder: Path, config: str, split: str, change: Callable[[pa.Table], pa.Table]) -> None:
    path = folder / split_file(config, split)
    table = change(pq.read_table(path))
    pq.write_table(table, path, **PARQUET_OPTIONS)


def set_cell(table: pa.Table, column: str, row: int, value: object) -> pa.Table:
    values = table.column(column).to_pylist()
    values[row] = value
    i = table.schema.get_field_index(column)
    return table.set_column(i, table.schema.field(i), pa.array(values, table.schema.field(i).type))


def problems_matching(report: ValidationReport, *needles: str) -> list[str]:
    return [p for p in report.problems if all(n in p for n in needles)]


def assert_reported(folder: Path, *needles: str) -> ValidationReport:
    report = validate(folder)
    assert not report.ok and report.exit_code == 1
    assert problems_matching(report, *needles), report.summary()
    return report


# --------------------------------------------------------------------------------------------


def test_valid_folder_passes(valid: Path) -> None:
    report = validate(valid)
    assert report.ok, report.summary()
    assert report.exit_code == 0
    assert report.configs == [SN, f"{SN}.natural-full", "word_class"]
    assert report.files_checked == 6
    assert "no problems" in str(report)


def test_swapped_label_names_in_readme(copy: Path) -> None:
    def swap(data: dict) -> None:
        for feat in data["dataset_info"][0]["features"]:
            if feat["name"] == "label":
                feat["dtype"]["class_label"]["names"] = {"0": "Plur", "1": "Sing"}

    edit_yaml(copy, swap)
    report = assert_reported(
        copy, f"config '{SN}' split 'train'", split_file(SN, "train"), "differ from README"
    )
    assert problems_matching(report, "ClassLabel names ['Sing', 'Plur'] in the file")
    assert problems_matching(report, "polyprobe labels")


def test_group_leaked_across_splits(copy: Path) -> None:
    leaked = pq.read_table(copy / split_file(SN, "train")).column("group")[0].as_py()
    rewrite(copy, SN, "test", lambda t: set_cell(t, "group", 3, leaked))
    report = assert_reported(copy, f"config '{SN}'", "group(s) occur in both 'train' and 'test'")
    assert problems_matching(report, repr(leaked))
    assert len(report.problems) == 1


def test_lexical_key_leaked_across_splits(copy: Path) -> None:
    leaked = pq.read_table(copy / split_file(SN, "validation")).column("lexical_key")[5].as_py()
    rewrite(copy, SN, "test", lambda t: set_cell(t, "lexical_key", 0, leaked))
    report = assert_reported(copy, "lexical_key(s) occur in both 'validation' and 'test'")
    assert len(report.problems) == 1


def test_empty_lexical_keys_are_not_a_leak(copy: Path) -> None:
    for split in ("train", "test"):
        rewrite(copy, SN, split, lambda t: set_cell(t, "lexical_key", 0, ""))
    problems = validate(copy).problems
    # not a leak; but this config declares a lexical control, so keyless rows are reported
    assert not any("occur in both" in p for p in problems), problems
    assert all("lexical_control is declared" in p for p in problems) and len(problems) == 2


def test_num_examples_wrong(copy: Path) -> None:
    edit_yaml(copy, lambda d: d["dataset_info"][0]["splits"][1].update(num_examples=9))
    report = assert_reported(
        copy, f"config '{SN}' split 'validation'", "dataset_info num_examples = 9", "8 rows"
    )
    assert len(report.problems) == 1


def test_empty_parquet_file(copy: Path) -> None:
    rewrite(copy, "word_class", "test", lambda t: t.slice(0, 0))
    assert_reported(copy, "config 'word_class' split 'test'", "empty split file")


def test_features_differ_between_splits(copy: Path) -> None:
    other = schema.arrow_schema("sentence", ["Plur", "Sing"]).metadata
    rewrite(copy, SN, "test", lambda t: t.replace_schema_metadata(other))
    report = assert_reported(
        copy, f"config '{SN}' split 'test'", "features differ from split train"
    )
    assert problems_matching(report, "split 'test'", "differ from README")


def test_card_count_edited_in_body(copy: Path) -> None:
    edit_body(copy, "| Plur | 1 | 12 | 4 | 5 | 21 |", "| Plur | 1 | 13 | 4 | 5 | 21 |")
    report = assert_reported(copy, f"config '{SN}'", "label table label 'Plur'", "'train': 13")
    assert len(report.problems) == 1


def test_card_total_edited_in_overview(copy: Path) -> None:
    edit_body(
        copy,
        "| word_class | word_class |  | — | — | 12 | 12 |",
        "| word_class | word_class |  | — | — | 12 | 120 |",
    )
    assert_reported(copy, "configs table row for config 'word_class'")


def test_card_count_edited_in_yaml(copy: Path) -> None:
    def edit(data: dict) -> None:
        data["polyprobe"]["configs"][SN]["statistics"]["splits"]["test"]["labels"]["Sing"] = 6

    edit_yaml(copy, edit)
    report = assert_reported(copy, f"config '{SN}' split 'test'", "statistics labels")
    assert len(report.problems) == 1


def test_drop_counts_must_agree(copy: Path) -> None:
    edit_body(copy, "| no-number | 2 |", "| no-number | 3 |")
    assert_reported(copy, f"config '{SN}'", "body drop table")


def test_missing_data_file(copy: Path) -> None:
    (copy / split_file(SN, "validation")).unlink()
    assert_reported(
        copy, f"config '{SN}' split 'validation'", split_file(SN, "validation"), "does not exist"
    )


def test_stray_file(copy: Path) -> None:
    shutil.copy(copy / split_file(SN, "test"), copy / "data" / SN / "test-extra.parquet")
    report = assert_reported(copy, f"data/{SN}/test-extra.parquet", "not listed")
    assert len(report.problems) == 1


def test_truncated_parquet_file(copy: Path) -> None:
    path = copy / split_file(SN, "test")
    path.write_bytes(path.read_bytes()[:100])
    assert_reported(copy, f"config '{SN}' split 'test'", "not a readable parquet file")


def test_label_out_of_range(copy: Path) -> None:
    rewrite(copy, SN, "train", lambda t: set_cell(t, "label", 0, 2))
    assert_reported(copy, f"config '{SN}' split 'train'", "labels out of range for 2 classes")


def test_duplicate_ids(copy: Path) -> None:
    dup = pq.read_table(copy / split_file(SN, "train")).column("id")[1].as_py()
    rewrite(copy, SN, "test", lambda t: set_cell(t, "id", 0, dup))
    assert_reported(copy, f"config '{SN}'", "1 id(s) occur more than once", repr(dup))


@pytest.mark.parametrize("defaults", [[], [0, 2]])
def test_exactly_one_default(copy: Path, defaults: list[int]) -> None:
    def edit(data: dict) -> None:
        for i, c in enumerate(data["configs"]):
            c.pop("default", None)
            if i in defaults:
                c["default"] = True

    edit_yaml(copy, edit)
    report = assert_reported(copy, "exactly one config must have 'default: true'")
    assert len(report.problems) == 1


def test_labels_recomputed_after_relabelling(copy: Path) -> None:
    """A file replaced by one with other labels (same row count) is caught by the counts."""
    rewrite(copy, SN, "train", lambda t: set_cell(t, "label", 0, 1))
    report = assert_reported(copy, f"config '{SN}' split 'train'", "statistics labels")
    assert problems_matching(report, "label table label 'Sing'")


def test_unusable_input_raises(tmp_path: Path) -> None:
    with pytest.raises(UnusableFolderError, match="no such folder"):
        validate(tmp_path / "missing")
    (tmp_path / "ds").mkdir()
    with pytest.raises(UnusableFolderError, match="README.md: missing"):
        validate(tmp_path / "ds")
    (tmp_path / "ds" / "README.md").write_text("# just markdown\n", encoding="utf-8")
    with pytest.raises(UnusableFolderError, match="no YAML front matter"):
        validate(tmp_path / "ds")
    assert UnusableFolderError("x").exit_code == 2


def test_make_table_helper_matches_schema() -> None:
    t = make_table("sentence", SENT_LABELS, [])
    assert t.schema.equals(schema.arrow_schema("sentence", SENT_LABELS), check_metadata=True)


def test_lexical_control_rows_need_keys(tmp_path: Path) -> None:
    """A config that declares a lexical control must key every row (tense, subject_number,
    object_number, odd_man_out): an empty key would let that row escape the control."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from polyprobe.demo import build_demo

    out = tmp_path / "demo"
    build_demo(out)
    assert validate(out).ok
    f = out / "data" / "subject_number" / "train-00000-of-00001.parquet"
    table = pq.read_table(f)
    keys = table.column("lexical_key").to_pylist()
    keys[0] = ""
    table = table.set_column(
        table.schema.get_field_index("lexical_key"), "lexical_key", pa.array(keys, pa.string())
    )
    pq.write_table(table, f)
    problems = validate(out).problems
    assert any("lexical_control is declared but 1 row(s)" in p for p in problems), problems
