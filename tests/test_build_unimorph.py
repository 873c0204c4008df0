"""End-to-end word-level builds: shared UniMorph lexicons → dataset folder → ``validate`` →
``datasets.load_dataset``, and the invariants the word suite promises on real data (the build is
the ``unimorph`` recipe on the shared build spine)."""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import socket
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from polyprobe import build_unimorph
from polyprobe.builders.cli import add_build_parser
from polyprobe.builders.families.unimorph import UnimorphConfig
from polyprobe.builders.options import make_config
from polyprobe.builders.records.word_sets import columns, rows_of
from polyprobe.builders.variants import SPLITS, CandidateColumns, VariantSettings, make_variants
from polyprobe.builders.word.common import WordCandidate, scaled_split_sizes
from polyprobe.builders.word.tasks import parse_split_sizes
from polyprobe.cards.info import read_card_yaml
from polyprobe.cards.validate import validate
from polyprobe.errors import UsageError
from polyprobe.hashing import file_sha256, lexical_key, stable_u64
from polyprobe.loaders.frequency import from_conllu
from polyprobe.loaders.unimorph import read_unimorph
from polyprobe.loaders.wuggy import read_wuggy_output

REPO = Path(__file__).resolve().parent.parent
SINGLE_FEATURES = ("case", "gender", "mood", "number", "person", "polarity", "possession", "tense")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.getbasetemp() / "hf-cache"))
    monkeypatch.setenv("POLYPROBE_CACHE", str(tmp_path_factory.getbasetemp() / "pp-cache"))


def _de_inputs(data_dir: Path) -> dict[str, Any]:
    return {
        "paths": sorted((data_dir / "unimorph" / "sigmorphon2018").glob("german-*")),
        "frequencies": [data_dir / "ud" / "UD_German-GSD"],
        "wuggy_output": data_dir / "wuggy" / "outputs" / "ort_german",
    }


@pytest.fixture(scope="module")
def de_build(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    inputs = _de_inputs(data_dir)
    out = tmp_path_factory.mktemp("de") / "de"
    return build_unimorph(
        inputs.pop("paths"),
        lang="de",
        out=out,
        scale=True,
        license_overrides={"sigmorphon2018": "CC-BY-SA-3.0"},
        **inputs,
    )


@pytest.fixture(scope="module")
def tr_build(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("tr") / "tr"
    return build_unimorph(
        sorted((data_dir / "unimorph" / "sigmorphon2023").glob("tur.*")),
        lang="tr",
        out=out,
        scale=True,
        wuggy_output=data_dir / "wuggy" / "outputs" / "ort_turkish",
    )


@pytest.fixture(scope="module")
def de_lexicon(data_dir: Path) -> dict[str, set[str]]:
    """form key -> lemmas (every analysis), for checks the published columns cannot answer."""
    out: dict[str, set[str]] = {}
    for e in read_unimorph(_de_inputs(data_dir)["paths"]):
        out.setdefault(lexical_key(e.form), set()).add(e.lemma)
    return out


@pytest.fixture(scope="module")
def tr_lexicon(data_dir: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for e in read_unimorph(sorted((data_dir / "unimorph" / "sigmorphon2023").glob("tur.*"))):
        out.setdefault(lexical_key(e.form), set()).add(e.lemma)
    return out


def _configs(folder: Path) -> dict[str, dict[str, Any]]:
    return read_card_yaml(folder)["polyprobe"]["configs"]


def _splits(folder: Path, config: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for split in SPLITS:
        f = folder / "data" / config / f"{split}-00000-of-00001.parquet"
        if f.is_file():
            yield split, pq.read_table(f).to_pylist()


def _words(row: dict[str, Any]) -> list[str]:
    return [row["word"]] if "word" in row else [row["word1"], row["word2"]]


@pytest.fixture
def fast_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """``datasets`` re-parses the whole card on every load with PyYAML's pure-Python loader
    (~0.8 s for a 50-config card, most of a load). Here the same README text is parsed once
    (libyaml, safe loader) and each load gets a deep copy; the rest of the loading path is
    untouched, and the first configs of each folder are loaded without this patch."""
    import huggingface_hub.repocard as repocard

    @functools.lru_cache(maxsize=4)
    def parse(text: str) -> Any:
        return yaml.load(text, Loader=yaml.CSafeLoader)

    memo = types.ModuleType("yaml_memo")
    memo.__dict__.update(repocard.yaml.__dict__)
    memo.safe_load = lambda text: copy.deepcopy(parse(text))  # type: ignore[attr-defined]
    monkeypatch.setattr(repocard, "yaml", memo)


# ------------------------------------------------------------------------- folders load


@pytest.mark.parametrize("which", ["de_build", "tr_build"])
def test_validate_and_every_config_loads(which: str, request: pytest.FixtureRequest) -> None:
    import datasets

    datasets.disable_progress_bars()
    result = request.getfixturevalue(which)
    report = validate(result.out)
    assert report.ok, report.summary()
    configs = _configs(result.out)
    assert len(configs) >= 30
    names = list(configs)
    if which != "de_build":  # every config of one build; of the other, each recommended one
        names = [n for n in names if "." not in n]  # (validate checked every config's features)
    for i, name in enumerate(names):
        if i == 2:
            request.getfixturevalue("fast_yaml")
        ds = datasets.load_dataset(str(result.out), name)
        assert set(ds) <= set(SPLITS) and "train" in ds
        for split in ds.values():
            assert split.features["label"].names == configs[name]["labels"], name
            assert len(split) > 0


def test_config_names_and_feasibility_report(de_build: Any) -> None:
    folder = de_build.out
    configs = _configs(folder)
    assert {
        "case",
        "case.natural-full",
        "case.natural-full-lemma-disjoint",
        "case.balanced-full-lemma-disjoint",
    } <= set(configs)
    assert configs["case"]["variant"] == {
        "balance": "balanced",
        "size": "full",
        "split": "sizes:1999/571/286",
        "disjoint": "form",
    }
    assert configs["same_feature"]["level"] == "word-pair"
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert set(report) == {
        "case",
        "gender",
        "mood",
        "number",
        "person",
        "polarity",
        "possession",
        "tense",
        "voice",
        "pos",
        "tag_count",
        "character_bin",
        "pseudo",
        "same_feature",
        "odd_feature",
    }
    # German SIGMORPHON 2018 nouns carry no gender: reported, not silently skipped
    assert report["gender"]["infeasible"] == "no form carries gender"
    assert report["gender"]["derived"]["reasons"] == ["no form carries gender"]
    assert report["case"]["built"] and report["case"]["derived"]["eligible"]
    drops = report["case"]["task_drops"]
    assert drops["ambiguous-form"] > 0 and drops["form-with-space"] > 0
    assert set(report["case"]["sets"]) == {"form", "lemma-disjoint"}
    assert report["case"]["sets"]["lemma-disjoint"]["built"] == [
        "case.natural-full-lemma-disjoint",
        "case.balanced-full-lemma-disjoint",
    ]
    summary = {s.task: s for s in de_build.tasks}
    assert summary["gender"].infeasible and not summary["gender"].configs


def test_card_records_parameters_and_inputs(de_build: Any, data_dir: Path) -> None:
    card = read_card_yaml(de_build.out)
    block = card["polyprobe"]
    params = block["parameters"]
    assert params["scale"] is True and params["scale_floor"] == 1000
    assert params["split_sizes"] == [7000, 2000, 1000]
    assert params["none_share"] == 0.3 and params["frequent_share"] == 0.8
    assert params["min_per_class"] == {"train": 50, "validation": 20, "test": 20}
    kinds = {s["kind"]: s for s in block["sources"]}
    assert kinds["unimorph"]["license"] == "CC-BY-SA-3.0"  # --license override
    assert len(kinds["unimorph"]["files"]) == 3
    assert kinds["frequency-ud"]["license"] == "CC-BY-SA-4.0"  # from the treebank README
    wuggy = kinds["wuggy-output"]
    table = data_dir / "wuggy" / "outputs" / "ort_german"
    assert wuggy["files"] == [{"name": "ort_german", "sha256": file_sha256(str(table))}]
    assert card["license"] == "other"  # UniMorph CC-BY-SA-3.0 + Wuggy table of unknown licence
    profile = block["profile"]
    assert profile["lexicon"]["entries"] == 12000
    assert profile["pseudowords"]["real_words_removed"] > 0
    body = (de_build.out / "README.md").read_text(encoding="utf-8")
    for needle in (
        "split_sizes",
        "count labelled_frequent",
        "none_share",
        "test words seen in train",
    ):
        assert needle in body, needle
    assert str(data_dir) not in body  # no absolute paths in the card


# ------------------------------------------------------------------------- invariants


@pytest.mark.parametrize("which", ["de", "tr"])
def test_no_form_and_no_lemma_in_two_splits(which: str, request: pytest.FixtureRequest) -> None:
    result = request.getfixturevalue(f"{which}_build")
    lexicon: dict[str, set[str]] = request.getfixturevalue(f"{which}_lexicon")
    checked_lemma = 0
    for name in _configs(result.out):
        forms: dict[str, str] = {}
        lemmas: dict[str, str] = {}
        lemma_disjoint = name.endswith("-lemma-disjoint")
        for split, rows in _splits(result.out, name):
            for row in rows:
                for word in _words(row):
                    key = lexical_key(word)
                    assert forms.setdefault(key, split) == split, (name, word)
                    if lemma_disjoint:
                        for lemma in lexicon.get(key, ()):
                            assert lemmas.setdefault(lemma, split) == split, (name, word, lemma)
        checked_lemma += len(lemmas)
    assert checked_lemma > 1000


def test_none_share_as_configured(de_build: Any) -> None:
    report = json.loads((de_build.out / "report.json").read_text(encoding="utf-8"))
    seen = shortfalls = 0
    for task in SINGLE_FEATURES:
        if not report[task]["built"]:
            continue
        counts = report[task]["class_counts"]
        facts = report[task]["derived"]["counts"]
        # 30% of the task's size, unless fewer forms never carry the feature (then all of
        # them, and the card says so)
        wanted = round(0.3 * facts["target"])
        assert counts["None"] == min(wanted, facts["none_pool"])
        if facts["none_pool"] < wanted:
            shortfalls += 1
            notes = report[task]["derived"]["notes"]
            assert any(f"None class has {counts['None']}" in n for n in notes)
        expected = counts["None"] / sum(counts.values())
        for split, rows in _splits(de_build.out, f"{task}.natural-full"):
            labels = _configs(de_build.out)[f"{task}.natural-full"]["labels"]
            share = sum(1 for r in rows if labels[r["label"]] == "None") / len(rows)
            assert share == pytest.approx(expected, abs=0.09), (task, split, share)
        seen += 1
    assert seen >= 4 and shortfalls == 1  # German number: only 529 forms lack Number


def test_labels_match_the_lexicon(de_build: Any, tr_build: Any, data_dir: Path) -> None:
    """Every published case (German) and possession (Turkish) label is the form's only value
    in the lexicon, or None for a form that never carries it. Issue 14: German forms are
    case-sensitive (decided from the data: ``Zapfen`` the noun, ``zapfen`` the verb), a form
    some of whose entries lack the feature is a homograph and not published, and a form whose
    paradigm cell cannot tell values apart carries their joined class (issue 37: the plural's
    ``Accusative/Genitive/Nominative``), so every value it has is one of its class's."""
    for result, glob, lang, task, dim in (
        (de_build, "sigmorphon2018/german-*", None, "case", "Case"),
        (tr_build, "sigmorphon2023/tur.*", "tur", "possession", "Possession"),
    ):
        values: dict[str, set[str | None]] = {}
        for e in read_unimorph(sorted((data_dir / "unimorph").glob(glob)), lang=lang):
            key = e.form if lang is None else lexical_key(e.form)
            values.setdefault(key, set()).add(e.features.get(dim))
        labels = _configs(result.out)[f"{task}.natural-full"]["labels"]
        n = 0
        for _, rows in _splits(result.out, f"{task}.natural-full"):
            for row in rows:
                label = labels[row["label"]]
                found = values[row["word"] if lang is None else lexical_key(row["word"])]
                if label == "None":
                    assert found == {None}, (row["word"], found)
                else:
                    assert None not in found and found <= set(label.split("/")), (
                        row["word"], found
                    )
                n += 1
        assert n > 1000
    # hand-checked: German 'Kapitäne' is Nominative/Accusative/Genitive plural: ambiguous
    forms = {r["word"] for _, rows in _splits(de_build.out, "case.natural-full") for r in rows}
    assert "Kapitäne" not in forms


@pytest.mark.parametrize("which", ["de_build", "tr_build"])
def test_no_pair_with_two_labels(which: str, request: pytest.FixtureRequest) -> None:
    result = request.getfixturevalue(which)
    configs = _configs(result.out)
    for task in ("same_feature", "odd_feature"):
        labels_of: dict[frozenset[str], set[str]] = {}
        for name, block in configs.items():
            if block["task"] != task:
                continue
            for _, rows in _splits(result.out, name):
                for row in rows:
                    pair = frozenset((lexical_key(row["word1"]), lexical_key(row["word2"])))
                    labels_of.setdefault(pair, set()).add(block["labels"][row["label"]])
        assert labels_of, task
        assert all(len(v) == 1 for v in labels_of.values()), task


def test_pair_leakage_reported(de_build: Any) -> None:
    report = json.loads((de_build.out / "report.json").read_text(encoding="utf-8"))
    seen = 0
    for task in ("same_feature", "odd_feature"):
        for name, cset in report[task]["sets"].items():
            assert cset["built"] or cset["infeasible"]
            assert set(cset["facts"]["leakage"]) == set(cset["built"])
            for leak in cset["facts"]["leakage"].values():
                assert leak["test_forms"] > 0
                assert leak["test_forms_seen_in_train"] == 0
                if name == "lemma-disjoint":
                    assert leak["test_lemmas_seen_in_train"] == 0
                seen += 1
    assert seen >= 4


def test_pseudowords_are_not_real_words(de_build: Any, data_dir: Path) -> None:
    inputs = _de_inputs(data_dir)
    real = {lexical_key(e.form) for e in read_unimorph(inputs["paths"])}
    real |= from_conllu(inputs["frequencies"]).vocabulary()
    real |= {lexical_key(r.seed) for r in read_wuggy_output(inputs["wuggy_output"]).rows}
    labels = _configs(de_build.out)["pseudo"]["labels"]
    assert labels == ["0", "1"]
    pseudo = real_rows = 0
    for name in _configs(de_build.out):
        if not name.startswith("pseudo"):
            continue
        for _, rows in _splits(de_build.out, name):
            for row in rows:
                if labels[row["label"]] == "0":
                    assert lexical_key(row["word"]) not in real, row["word"]
                    pseudo += 1
                else:
                    real_rows += 1
    assert pseudo > 1000 and real_rows > 1000
    removed = read_card_yaml(de_build.out)["polyprobe"]["profile"]["pseudowords"]
    assert removed["pseudowords_removed"]["real-word"] > 0


# ------------------------------------------------------------------------- pair groups


def _pairs(edges: list[tuple[str, str]]) -> list[WordCandidate]:
    return [
        WordCandidate(
            (a, b),
            ("Number", "Case")[i % 2],
            "|".join(sorted((a, b))),
            a,
            f"L{a}",
            (a, b),
            (f"L{a}", f"L{b}"),
        )
        for i, (a, b) in enumerate(edges)
    ]


def test_pairs_sharing_a_word_stay_in_one_split() -> None:
    """A word can be word1 of one pair and word2 of another. Hashing word1 as the group and
    word2 as the key (two separate node spaces in the engine) would not join those pairs; the
    pipeline names each pair's component over *both* words instead."""
    edges = []
    for c in range(300):  # 300 chains a-b, b-c, c-d: every middle word in both positions
        w = [f"w{c}x{i}" for i in range(4)]
        edges += [(w[0], w[1]), (w[1], w[2]), (w[2], w[3])]
    cands = _pairs(edges)
    ids = [f"xx/same_feature/{a}|{b}" for a, b in edges]
    rows = rows_of(cands, ids, lemma_disjoint=False, pair=True)
    assert len(set(rows.groups)) == 300
    cols = columns(rows, ["Case", "Number"], seed=0)
    spec_counts = (630, 180, 90)
    from polyprobe.builders.variants import MinPerClass, SplitSpec

    settings = VariantSettings(
        split=SplitSpec("sizes", counts=spec_counts),
        balances=("natural",),
        min_per_class=MinPerClass(0, 0, 0),
    )
    tv = make_variants(cols, ["Case", "Number"], settings)
    variant = tv.get("natural", "full")
    assert variant is not None
    where: dict[str, str] = {}
    for split in SPLITS:
        for i in variant.indices[split].tolist():
            for word in rows.words[i]:
                assert where.setdefault(word, split) == split, word
    assert [len(variant.indices[s]) for s in SPLITS] == list(spec_counts)

    # The naive hashing loses the chain: pairs (a,b) and (b,c) fall apart.
    naive = CandidateColumns(
        label=cols.label,
        group=np.asarray([stable_u64("g", a) for a, _ in edges], dtype=np.uint64),
        key=np.asarray([stable_u64("k", b) for _, b in edges], dtype=np.uint64),
        source_split=np.full(len(edges), -1, dtype=np.int8),
        order=cols.order,
    )
    naive_v = make_variants(naive, ["Case", "Number"], settings).get("natural", "full")
    assert naive_v is not None
    placed: dict[str, set[str]] = {}
    for split in SPLITS:
        for i in naive_v.indices[split].tolist():
            for word in edges[i]:
                placed.setdefault(word, set()).add(split)
    assert any(len(s) > 1 for s in placed.values())


def test_lemma_disjoint_rows_link_lemmas() -> None:
    cands = [
        WordCandidate("a1", "X", "a1", "a1", "A", ("a1",), ("A",)),
        WordCandidate("a2", "Y", "a2", "a2", "A", ("a2",), ("A",)),
        WordCandidate("ab", "X", "ab", "ab", "A", ("ab",), ("A", "B")),  # shared by A and B
        WordCandidate("b1", "Y", "b1", "b1", "B", ("b1",), ("B",)),
        WordCandidate("c1", "X", "c1", "c1", "C", ("c1",), ("C",)),
    ]
    ids = [f"xx/case/{c.lexical_key}" for c in cands]
    form = rows_of(cands, ids, lemma_disjoint=False, pair=False)
    assert form.groups == ["a1", "a2", "ab", "b1", "c1"]
    lemma = rows_of(cands, ids, lemma_disjoint=True, pair=False)
    assert lemma.groups == ["lemma:A"] * 4 + ["lemma:C"]


def test_scaled_split_sizes() -> None:
    assert scaled_split_sizes(2854, (7000, 2000, 1000)) == (1998, 571, 285)
    assert scaled_split_sizes(10, (7000, 2000, 1000)) == (7, 2, 1)
    assert sum(scaled_split_sizes(1234567, (5, 3, 3))) == 1234567


# ------------------------------------------------------------------------- CLI and errors


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polyprobe")
    sub = parser.add_subparsers(dest="command")
    add_build_parser(sub)
    return parser


def _config(argv: list[str]) -> UnimorphConfig:
    """The config ``polyprobe build unimorph ARGV`` makes (argparse passes only what is
    given; the config's defaults fill the rest)."""
    args = _parser().parse_args(["build", "unimorph", *argv])
    given = {k: v for k, v in vars(args).items() if k not in ("command", "source", "func")}
    given.pop("quiet")
    return make_config(UnimorphConfig, given)


def test_cli_parser_defaults_and_errors(tmp_path: Path) -> None:
    config = _config(["f1", "f2", "--lang", "de", "--out", "o"])
    assert config.paths == (Path("f1"), Path("f2")) and config.lang == "de"
    assert config.split_sizes == (7000, 2000, 1000) and config.min_forms is None
    assert not config.scale and config.wuggy_max_seeds == 10_000 and config.seed == 0
    assert config.min_per_class.as_tuple() == (50, 20, 20)
    args = _parser().parse_args(["build", "unimorph", "f", "--lang", "de", "--out", "o"])
    assert callable(args.func)
    assert parse_split_sizes("7k,2k,1k") == (7000, 2000, 1000)
    given = _config(["f", "--lang", "de", "--out", "o", "--split-sizes", "7k,2k,1k"])
    assert given.split_sizes == (7000, 2000, 1000)
    for bad in ("7000,2000", "a,b,c", "0,1,1"):
        with pytest.raises(UsageError, match="--split-sizes"):
            parse_split_sizes(bad)
    both = ["f", "--lang", "de", "--out", "o", "--wuggy-lexicon", "a", "--wuggy-output", "b"]
    with pytest.raises(UsageError, match="either"):
        _config(both)
    from polyprobe.cli import main

    assert main(["build", "unimorph", *both]) == 2  # a usage error, as argparse's was


def test_usage_errors(data_dir: Path, tmp_path: Path) -> None:
    paths = [data_dir / "unimorph" / "sigmorphon2018" / "german-dev"]
    for kwargs, message in (
        ({"tasks": ["case", "nonsense"]}, "unknown task 'nonsense'"),
        ({"tasks": ["person_"]}, "unknown task"),
        ({"min_forms": 0}, "--min-forms"),
        ({"wuggy_max_seeds": 0}, "--wuggy-max-seeds"),
        ({"layout": "columns"}, "unknown UniMorph layout"),
        ({"split_sizes": (0, 10, 10)}, "--split-sizes"),
        ({"wuggy_lexicon": "a", "wuggy_output": "b"}, "either"),
        ({"balances": ("natural", "skewed")}, "unknown balance"),
    ):
        with pytest.raises(UsageError, match=message):
            build_unimorph(paths, lang="de", out=tmp_path / "x", **kwargs)
    assert not (tmp_path / "x").exists()


def _cli_build(out: Path, data_dir: Path, hashseed: str) -> subprocess.Popen[str]:
    """The command line in a fresh process (a small lexicon and task subset keeps it quick)."""
    code = "import sys\nfrom polyprobe.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    d = data_dir / "unimorph" / "sigmorphon2018"
    argv = [
        "build",
        "unimorph",
        str(d / "german-dev"),
        str(d / "german-test"),
        "--lang",
        "deu",
        "--scale",
        "--min-forms",
        "150",
        "--min-per-class",
        "5,2,2",
        "--tasks",
        "case,number,pos,character_bin,pseudo,same_feature,odd_feature",
        "--wuggy-output",
        str(data_dir / "wuggy" / "outputs" / "ort_german"),
        "--frequencies",
        str(data_dir / "ud" / "UD_German-GSD" / "de_gsd-ud-test.conllu"),
        "--sizes",
        "0.5",
        "--seed",
        "3",
        "--out",
        str(out),
        "--quiet",
    ]
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        env=env,
        cwd=REPO,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_builds_in_separate_processes_are_byte_identical(data_dir: Path, tmp_path: Path) -> None:
    procs = [_cli_build(tmp_path / f"run{h}", data_dir, h) for h in ("1", "12345")]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (stdout, stderr) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, stderr
        assert stdout.splitlines()[0].split()[:3] == ["task", "candidates", "configs"]
        assert "wrote " in stdout
    first, second = _tree(tmp_path / "run1"), _tree(tmp_path / "run12345")
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []
    assert any(k.startswith("data/pseudo.natural-0.5/") for k in first)  # --sizes applied
    assert validate(tmp_path / "run1").ok


@pytest.mark.parametrize(
    ("lang", "lexicon_name", "unimorph_name"),
    [("en", "english", "english-dev"), ("es", "spanish", "spanish-dev")],
)
def test_pseudowords_generated_offline(
    lang: str,
    lexicon_name: str,
    unimorph_name: str,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    attempts: list[Any] = []

    def refuse(self: socket.socket, *args: Any) -> None:
        attempts.append(args)
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    lexicon = (data_dir / "wuggy" / "lexicons" / f"orthographic_{lexicon_name}.txt").resolve()
    kwargs: dict[str, Any] = {
        "lang": lang,
        "scale": True,
        "min_forms": 8,
        "tasks": ["pseudo", "tense"],
        "wuggy_lexicon": lexicon,
        "wuggy_max_seeds": 8,
        "min_per_class": (1, 0, 0),
        # 4 pairs are 4 components: no test split asked, so none is published empty (issue 36)
        "split_sizes": "6,2,0",
        "wuggy_cache": tmp_path / "cache",
    }
    paths = [data_dir / "unimorph" / "sigmorphon2018" / unimorph_name]
    result = build_unimorph(paths, out=tmp_path / lang, **kwargs)
    assert attempts == []
    block = read_card_yaml(result.out)["polyprobe"]
    source = next(s for s in block["sources"] if s["kind"] == "wuggy-generated")
    table_file = next((tmp_path / "cache" / "tables").glob("*.tsv"))
    assert source["files"][0] == {
        "name": f"<cache>/wuggy/tables/{table_file.name}",
        "sha256": file_sha256(str(table_file)),
    }
    facts = block["profile"]["pseudowords"]
    assert facts["generated"] is True and facts["generation"]["max_seeds"] == 8
    pseudo_report = json.loads((result.out / "report.json").read_text(encoding="utf-8"))["pseudo"]
    assert pseudo_report["derived"]["eligible"] and pseudo_report["built"], pseudo_report
    real = {lexical_key(e.form) for e in read_unimorph(paths)}
    for name in _configs(result.out):
        if name.startswith("pseudo"):
            for _, rows in _splits(result.out, name):
                assert not any(r["label"] == 0 and lexical_key(r["word"]) in real for r in rows)
    # a second build reads the cached table (no regeneration) and writes the same bytes
    assert not result.facts["wuggy_cached"]
    again = build_unimorph(paths, out=tmp_path / f"{lang}2", **kwargs)
    assert again.facts["wuggy_cached"] and attempts == []
    assert _tree(again.out) == _tree(result.out)
