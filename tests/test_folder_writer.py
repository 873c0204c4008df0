"""The dataset folder writer: layout, card, atomicity, determinism, and loading with `datasets`.

Tables are made by hand here (no pipeline), so these tests pin the writer's contract alone.
``make_payloads``/``make_meta``/``write_folder`` are reused by ``test_validate.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from polyprobe.cards import schema
from polyprobe.cards.card import read_readme, split_readme
from polyprobe.cards.folder import (
    DatasetFolderWriter,
    FolderError,
    OutputExistsError,
    split_file,
    write_config_files,
)
from polyprobe.cards.payload import ConfigPayload, SplitCopy
from polyprobe.cards.stats import label_counts
from polyprobe.metadata import DatasetMeta, SourceInfo

REPO = Path(__file__).resolve().parent.parent
SENT_LABELS = ["Sing", "Plur"]
WORD_LABELS = ["NOUN", "VERB", "ADJ"]


def make_table(level: str, labels: list[str], rows: list[dict[str, Any]]) -> pa.Table:
    s = schema.arrow_schema(level, labels)
    return pa.table({n: [r[n] for r in rows] for n in s.names}, schema=s)


def sentence_rows(split: str, n: int, labels: int = 2) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        words = ["Der", f"Bär{i}", "schläft", "|", "ja", "."]
        out.append(
            {
                "id": f"UD_Test/{split}-{i}/subject_number/0",
                "sentence": " ".join(words),
                "tokens": words,
                "label": i % labels,
                "group": f"UD_Test/{split}-{i}",
                "lexical_key": f"bär{split}{i}",
            }
        )
    return out


def word_rows(split: str, n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"lex/{split}-{i}/word_class/0",
            "word": f"wörd{split}{i}",
            "label": (i * 7) % 3,
            "group": f"lex/{split}-{i}",
            "lexical_key": "",
        }
        for i in range(n)
    ]


def make_payloads() -> list[ConfigPayload]:
    sent = {
        "train": make_table("sentence", SENT_LABELS, sentence_rows("train", 24)),
        "validation": make_table("sentence", SENT_LABELS, sentence_rows("dev", 8)),
        "test": make_table("sentence", SENT_LABELS, sentence_rows("test", 10)),
    }
    natural = {
        "test": make_table("sentence", SENT_LABELS, sentence_rows("test", 7)),
        "validation": make_table("sentence", SENT_LABELS, []),  # empty: omitted
        "train": make_table("sentence", SENT_LABELS, sentence_rows("train", 31)),
    }
    words = {"test": make_table("word", WORD_LABELS, word_rows("test", 12))}
    common = {"task": "subject_number", "level": "sentence", "label_names": SENT_LABELS}
    return [
        ConfigPayload(
            name="subject_number",
            description="Grammatical number of the main clause's subject.",
            polyprobe={
                "recipe_version": "1.0.0",
                "variant": {"balance": "balanced", "size": "full", "split": "ud"},
                "seed": 13,
                "lexical_control": True,
                "seed_dependent": True,
            },
            recipe={"subject_upos": ["NOUN"], "drop_coordinated": True},
            splits=sent,
            dropped={"coordinated-subject": 4, "no-number": 2},
            notes=["Pronoun subjects are excluded."],
            citation="@inproceedings{conneau2018,\n  title={What you can cram}\n}",
            default=True,
            **common,
        ),
        ConfigPayload(
            name="subject_number.natural-full",
            description="Grammatical number of the main clause's subject.",
            polyprobe={
                "variant": {"balance": "natural", "size": "full", "split": "ud"},
                "seed": 13,
                "seed_dependent": False,
            },
            recipe={},
            splits=natural,
            dropped_classes={"Dual": "fewer than 50 rows in train"},
            citation="@inproceedings{conneau2018,\n  title={What you can cram}\n}",
            **common,
        ),
        ConfigPayload(
            name="word_class",
            task="word_class",
            level="word",
            description="Part of speech of a word type.",
            label_names=WORD_LABELS,
            polyprobe={"seed_dependent": False},
            recipe={"min_count": 3},
            splits=words,
        ),
    ]


def make_meta(**overrides: Any) -> DatasetMeta:
    kwargs: dict[str, Any] = {
        "pretty_name": "polyprobe test (de)",
        "languages": ["de"],
        "license": "CC-BY-SA-4.0",
        "sources": [
            SourceInfo(
                kind="ud-treebank",
                name="UD_Test",
                version="abc123",
                license="CC-BY-SA-4.0",
                files=[{"name": "de_test-ud-test.conllu", "sha256": "0" * 64}],
            )
        ],
        "polyprobe_version": "0.1.0",
        "fingerprint": "f" * 32,
        "parameters": {"seed": 13, "sizes": ["full"], "split": "ud"},
        "skipped_invalid": {"bad-column-count": 2},
        "duplicates": {"sentences": 3, "groups": 1},
        "feasibility": {"word_class": {"feasible": True}, "subject_number": {"sizes": ["full"]}},
    }
    kwargs.update(overrides)
    return DatasetMeta(**kwargs)


def write_folder(out: Path, payloads: list[ConfigPayload] | None = None, **kw: Any) -> Path:
    with DatasetFolderWriter(out, **kw) as writer:
        for p in payloads if payloads is not None else make_payloads():
            writer.add_config(p)
        return writer.finish(make_meta())


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def hidden_leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("writer") / "ds")


# --------------------------------------------------------------------------------------------


def test_layout_is_a_hub_dataset_repository(folder: Path) -> None:
    assert sorted(files_of(folder)) == [
        "README.md",
        "data/subject_number.natural-full/test-00000-of-00001.parquet",
        "data/subject_number.natural-full/train-00000-of-00001.parquet",
        "data/subject_number/test-00000-of-00001.parquet",
        "data/subject_number/train-00000-of-00001.parquet",
        "data/subject_number/validation-00000-of-00001.parquet",
        "data/word_class/test-00000-of-00001.parquet",
        "plots/subject_number.natural-full.png",
        "plots/subject_number.png",
        "plots/word_class.png",
        "report.json",
    ]
    assert hidden_leftovers(folder.parent) == []
    report = (folder / "report.json").read_text(encoding="utf-8")
    assert json.loads(report) == make_meta().feasibility
    assert report == json.dumps(make_meta().feasibility, sort_keys=True, indent=2) + "\n"


def test_parquet_files_embed_features_and_keep_rows(folder: Path) -> None:
    payloads = {p.name: p for p in make_payloads()}
    for name, p in payloads.items():
        for split, table in p.splits.items():
            path = folder / split_file(name, split)
            if table.num_rows == 0:
                assert not path.exists()
                continue
            written = pq.read_table(path)
            assert schema.features_from_schema(written.schema) == schema.features_dict(
                p.level, p.label_names
            )
            assert written.to_pylist() == table.to_pylist()  # output order kept
            meta = pq.ParquetFile(path).metadata
            assert meta.row_group(0).column(0).compression == "ZSTD"


def test_yaml_layout(folder: Path) -> None:
    data, body = read_readme(folder / "README.md")
    assert list(data) == [
        "pretty_name",
        "language",
        "license",
        "annotations_creators",
        "language_creators",
        "multilinguality",
        "size_categories",
        "source_datasets",
        "task_categories",
        "task_ids",
        "tags",
        "configs",
        "dataset_info",
        "polyprobe",
    ]
    assert data["license"] == "cc-by-sa-4.0"
    assert data["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in data["configs"]] == [p.name for p in make_payloads()]
    assert [c.get("default", False) for c in data["configs"]] == [True, False, False]
    natural = data["configs"][1]
    assert [f["split"] for f in natural["data_files"]] == ["train", "test"]  # canonical order
    info = {i["config_name"]: i for i in data["dataset_info"]}
    assert info["word_class"]["features"] == schema.yaml_features(
        schema.features_dict("word", WORD_LABELS)
    )
    assert [(s["name"], s["num_examples"]) for s in info["subject_number"]["splits"]] == [
        ("train", 24),
        ("validation", 8),
        ("test", 10),
    ]
    block = data["polyprobe"]
    assert block["version"] == "0.1.0" and block["fingerprint"] == "f" * 32
    cfg = block["configs"]["subject_number"]
    assert list(cfg)[:4] == ["task", "level", "inputs", "labels"]
    assert cfg["inputs"] == ["sentence", "tokens"] and cfg["labels"] == SENT_LABELS
    assert cfg["seed"] == 13 and cfg["lexical_control"] is True
    stats = cfg["statistics"]
    assert stats["splits"]["train"] == {"num_examples": 24, "labels": {"Sing": 12, "Plur": 12}}
    assert stats["num_examples"] == 42
    assert stats["dropped"] == {"coordinated-subject": 4, "no-number": 2}
    assert block["configs"]["word_class"]["statistics"]["labels"] == {
        "NOUN": 4,
        "VERB": 4,
        "ADJ": 4,
    }
    assert block["configs"]["subject_number.natural-full"]["statistics"]["dropped_classes"] == {
        "Dual": "fewer than 50 rows in train"
    }


def test_body_reports_what_the_files_hold(folder: Path) -> None:
    text = (folder / "README.md").read_text(encoding="utf-8")
    _, body = split_readme(text)
    assert 'datasets.load_dataset("path/to/this/folder", "subject_number")' in body
    assert "| Sing | 0 | 12 | 4 | 5 | 21 |" in body
    assert "| total |  | 24 | 8 | 10 | 42 |" in body
    assert "| subject_number.natural-full | subject_number |  | 31 | — | 7 | 38 |" in body
    assert "![label distribution of word_class](plots/word_class.png)" in body
    assert "| coordinated-subject | 4 |" in body
    assert "| Dual | fewer than 50 rows in train |" in body
    assert "| bad-column-count | 2 |" in body  # skipped input
    assert "| sentences | 3 |" in body  # duplicates
    assert "| UD_Test | de_test-ud-test.conllu | " + "0" * 64 + " |" in body
    assert "Der · Bär0 · schläft · \\| · ja · ." in body  # example row, escaped pipe
    assert body.count("@inproceedings{conneau2018") == 1  # citations de-duplicated
    for forbidden in ("2024", "2025", "2026", str(folder)):
        assert forbidden not in text


def test_card_round_trips_through_datasetcard(folder: Path, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    path = folder / "README.md"
    text = path.read_text(encoding="utf-8")
    data, _ = split_readme(text)
    card = DatasetCard.load(path)
    assert card.data.to_dict() == data
    assert DatasetCard(card.content).content == text
    card.save(tmp_path / "README.md")
    assert (tmp_path / "README.md").read_bytes() == path.read_bytes()


def test_front_matter_is_safe_dump_of_the_data(folder: Path) -> None:
    text = (folder / "README.md").read_text(encoding="utf-8")
    data, body = split_readme(text)
    dumped = yaml.safe_dump(data, sort_keys=False, allow_unicode=True).strip()
    assert text == f"---\n{dumped}\n---\n{body}"


def _png_chunks(data: bytes) -> list[bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, out = 8, []
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        assert zlib.crc32(data[pos + 4 : pos + 8 + length]) == int.from_bytes(
            data[pos + 8 + length : pos + 12 + length], "big"
        )
        out.append(kind)
        pos += 12 + length
    return out


def test_plots_carry_no_metadata(folder: Path) -> None:
    for png in sorted((folder / "plots").glob("*.png")):
        chunks = _png_chunks(png.read_bytes())
        assert not {b"tEXt", b"iTXt", b"zTXt", b"tIME"} & set(chunks), (png, chunks)


def test_double_write_is_byte_identical(folder: Path, tmp_path: Path) -> None:
    again = write_folder(tmp_path / "other-name")
    assert files_of(again) == files_of(folder)


def test_byte_identical_across_processes_and_hash_seeds(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub"
    code = (
        "import sys; sys.path[:0] = [sys.argv[2], sys.argv[3]]\n"
        "from test_folder_writer import write_folder\n"
        "from pathlib import Path\n"
        "write_folder(Path(sys.argv[1]))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run(
        [sys.executable, "-c", code, str(out), str(REPO), str(REPO / "tests")],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    assert files_of(out) == files_of(folder)


def test_importing_the_writer_does_not_import_matplotlib() -> None:
    code = (
        "import sys, polyprobe.cards.folder, polyprobe.cards.validate\n"
        "assert 'matplotlib' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# -- refusing, overwriting, aborting ---------------------------------------------------------


def test_split_copy_gives_what_a_fresh_write_would(tmp_path: Path) -> None:
    """A split declared to hold an earlier config's rows gets a copy of its file: the same
    bytes, statistics and examples a fresh encoding of those rows gives under its own name,
    whether or not the earlier config took its examples from that split."""
    import dataclasses

    first = make_payloads()[0]
    twin = dataclasses.replace(first, name="subject_number.natural-full", default=False)
    copied_dir, fresh_dir = tmp_path / "copied", tmp_path / "fresh"
    earlier = write_config_files(copied_dir, first)
    assert earlier.stats.examples_split == "train"
    for splits in (["train", "validation", "test"], ["validation", "test"]):
        name = f"twin{len(splits)}"
        copies = {**twin.splits, **{sp: SplitCopy(earlier) for sp in splits}}
        copied = write_config_files(copied_dir, dataclasses.replace(twin, name=name, splits=copies))
        fresh = write_config_files(fresh_dir, dataclasses.replace(twin, name=name))
        assert copied.stats == fresh.stats
        assert list(copied.stats.splits) == ["train", "validation", "test"]
        for st in fresh.stats.splits.values():
            assert (copied_dir / st.path).read_bytes() == (fresh_dir / st.path).read_bytes()
    # Examples read from the head of a copied file equal those taken while writing.
    only_test = dataclasses.replace(
        twin, name="tests_only", splits={"test": SplitCopy(earlier), "train": None}
    )
    fresh_test = dataclasses.replace(twin, name="tests_only", splits={"test": first.splits["test"]})
    assert write_config_files(copied_dir, only_test).stats == (
        write_config_files(fresh_dir, fresh_test).stats
    )
    words = make_payloads()[2]
    with pytest.raises(FolderError, match="cannot copy the rows of config 'subject_number'"):
        write_config_files(
            copied_dir, dataclasses.replace(words, name="w2", splits={"test": SplitCopy(earlier)})
        )


def test_refuses_existing_out(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(OutputExistsError, match=str(out)):
        DatasetFolderWriter(out)
    assert (out / "keep.txt").read_text() == "mine"
    assert hidden_leftovers(tmp_path) == []


def test_overwrite_swaps_in_the_new_folder(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    write_folder(out, make_payloads()[:1])
    assert not (out / "data" / "word_class").exists()
    write_folder(out, overwrite=True)
    assert (out / "data" / "word_class").is_dir()
    assert files_of(out) == files_of(write_folder(tmp_path / "fresh"))
    assert hidden_leftovers(tmp_path) == []


def test_overwrite_refuses_a_folder_that_is_not_a_dataset(tmp_path: Path) -> None:
    out = tmp_path / "home"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    with pytest.raises(FolderError, match="not a polyprobe dataset folder"):
        DatasetFolderWriter(out, overwrite=True)
    assert (out / "notes.txt").read_text() == "precious"
    # A README is not enough: its front matter must hold a `polyprobe:` mapping.
    for readme in (
        "# My notes\n\npolyprobe:\n  not front matter\n",
        "---\nlicense: mit\npolyprobe: 3\n---\nbody\n",
        "---\nlicense: mit\n# polyprobe:\n#   commented out\n---\n",
        "---\nlicense: mit\n---\npolyprobe:\n  version: 1\n",
    ):
        (out / "README.md").write_text(readme)
        with pytest.raises(FolderError, match="not a polyprobe dataset folder"):
            DatasetFolderWriter(out, overwrite=True)
    (out / "README.md").write_text("---\nlicense: mit\npolyprobe:\n  version: 0.1.0\n---\n")
    DatasetFolderWriter(out, overwrite=True).abort()  # accepted


def test_failed_overwrite_keeps_the_old_folder(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    write_folder(out)
    before = files_of(out)
    with pytest.raises(RuntimeError), DatasetFolderWriter(out, overwrite=True) as writer:
        writer.add_config(make_payloads()[0])
        raise RuntimeError("boom")
    assert files_of(out) == before
    assert hidden_leftovers(tmp_path) == []


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_interrupted_build_leaves_nothing(tmp_path: Path, exc: type[BaseException]) -> None:
    out = tmp_path / "ds"
    with pytest.raises(exc), DatasetFolderWriter(out) as writer:
        writer.add_config(make_payloads()[0])
        assert any(writer.tmp.rglob("*.parquet"))  # written immediately
        raise exc()
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_abort_removes_the_temporary_folder(tmp_path: Path) -> None:
    writer = DatasetFolderWriter(tmp_path / "ds")
    writer.add_config(make_payloads()[0])
    assert writer.tmp.parent == tmp_path and writer.tmp.name.startswith(".")
    writer.abort()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FolderError, match="aborted"):
        writer.add_config(make_payloads()[1])


def test_leaving_without_finish_writes_nothing(tmp_path: Path) -> None:
    with (
        pytest.warns(RuntimeWarning, match="without finish"),
        DatasetFolderWriter(tmp_path / "ds") as writer,
    ):
        writer.add_config(make_payloads()[0])
    assert list(tmp_path.iterdir()) == []


# -- payload contract ------------------------------------------------------------------------


def _finish_with(tmp_path: Path, payloads: list[ConfigPayload]) -> None:
    with DatasetFolderWriter(tmp_path / "ds") as writer:
        for p in payloads:
            writer.add_config(p)
        writer.finish(make_meta())


def test_exactly_one_default_is_required(tmp_path: Path) -> None:
    payloads = make_payloads()
    payloads[0].default = False
    with pytest.raises(FolderError, match="exactly one config must be marked default"):
        _finish_with(tmp_path, payloads)
    payloads[1].default = payloads[0].default = True
    with pytest.raises(FolderError, match="both marked default"):
        _finish_with(tmp_path, payloads)
    assert list(tmp_path.iterdir()) == []


def test_table_in_the_wrong_schema_is_refused(tmp_path: Path) -> None:
    p = make_payloads()[0]
    p.splits["train"] = p.splits["train"].drop_columns(["lexical_key"])
    with pytest.raises(FolderError, match="'subject_number' split 'train'.*published schema"):
        _finish_with(tmp_path, [p])
    p = make_payloads()[0]
    p.splits["test"] = p.splits["test"].replace_schema_metadata(
        schema.arrow_schema("sentence", ["Plur", "Sing"]).metadata
    )
    with pytest.raises(FolderError, match="embedded features"):
        _finish_with(tmp_path, [p])
    assert list(tmp_path.iterdir()) == []


def test_label_out_of_range_is_refused(tmp_path: Path) -> None:
    p = make_payloads()[0]
    rows = sentence_rows("train", 4)
    rows[2]["label"] = 2
    p.splits["train"] = make_table("sentence", SENT_LABELS, rows)
    with pytest.raises(FolderError, match=r"label ids must lie in \[0, 1\]"):
        _finish_with(tmp_path, [p])


def test_config_without_rows_is_refused(tmp_path: Path) -> None:
    p = make_payloads()[2]
    p.splits = {"test": make_table("word", WORD_LABELS, [])}
    with pytest.raises(FolderError, match="no rows"):
        _finish_with(tmp_path, [p])


def test_polyprobe_block_must_agree_with_payload(tmp_path: Path) -> None:
    p = make_payloads()[0]
    p.polyprobe["labels"] = ["Plur", "Sing"]
    with pytest.raises(FolderError, match="disagrees"):
        _finish_with(tmp_path, [p])


def test_mixed_licence_card(tmp_path: Path) -> None:
    sources = [
        SourceInfo("ud-treebank", "UD_A", "1", "CC-BY-SA-4.0", []),
        SourceInfo("ud-treebank", "UD_B", "2", "CC-BY-4.0", []),
    ]
    with DatasetFolderWriter(tmp_path / "ds") as writer:
        writer.add_config(make_payloads()[0])
        out = writer.finish(make_meta(license="other", sources=sources))
    data, body = read_readme(out / "README.md")
    assert data["license"] == "other"
    assert "| UD_A | CC-BY-SA-4.0 |" in body and "| UD_B | CC-BY-4.0 |" in body


def test_card_accepts_enums_tuples_and_dataclasses(tmp_path: Path) -> None:
    from polyprobe.builders.variants import SplitSpec
    from polyprobe.metadata import Level

    p = make_payloads()[0]
    p.level = Level.SENTENCE  # type: ignore[assignment]
    p.polyprobe["split"] = SplitSpec("ratio", (80, 10, 10), "no dev split")
    with DatasetFolderWriter(tmp_path / "ds") as writer:
        writer.add_config(p)
        out = writer.finish(make_meta(parameters={"sizes": ("full", "10k"), "level": Level.WORD}))
    data, _ = read_readme(out / "README.md")
    cfg = data["polyprobe"]["configs"]["subject_number"]
    assert cfg["level"] == "sentence"
    assert cfg["split"] == {
        "mode": "ratio",
        "ratios": [80, 10, 10],
        "reason": "no dev split",
        "counts": None,
        "source_label": "ud",
        "stratify": False,  # issue 14: stratified sizes splits (word tasks)
    }
    assert data["polyprobe"]["parameters"] == {"sizes": ["full", "10k"], "level": "word"}


def test_stats_are_exposed_for_the_pipeline(tmp_path: Path) -> None:
    with DatasetFolderWriter(tmp_path / "ds") as writer:
        for p in make_payloads():
            writer.add_config(p)
        stats = writer.stats
        writer.finish(make_meta())
    assert stats["subject_number"].num_examples == 42
    assert stats["word_class"].labels_by_name("test") == {"NOUN": 4, "VERB": 4, "ADJ": 4}
    assert label_counts(pa.array([0, 1, 1]), 2) == [1, 2]


# -- what a user sees ------------------------------------------------------------------------


def test_every_config_loads_with_datasets_offline(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    for p in make_payloads():
        ds = datasets.load_dataset(str(folder), p.name, cache_dir=str(tmp_path / "cache"))
        expected = {s: t.num_rows for s, t in p.splits.items() if t.num_rows}
        assert {s: d.num_rows for s, d in ds.items()} == expected
        for split, d in ds.items():
            assert d.features["label"].names == p.label_names
            assert d["id"] == p.splits[split].column("id").to_pylist()
            assert d["label"] == p.splits[split].column("label").to_pylist()
