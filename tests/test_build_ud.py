"""End-to-end: real treebanks → dataset folder → ``validate`` → ``datasets.load_dataset``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from conftest import all_treebanks

from polyprobe import build_ud
from polyprobe.cards.info import read_card_yaml
from polyprobe.cards.validate import validate
from polyprobe.errors import PolyprobeError

JUANCOLE = "weblog-juancole.com_juancole_20041111060900_ENG_20041111_060900-0007"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.getbasetemp() / "hf-cache"))


@pytest.fixture(scope="module")
def ewt_folder(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ewt") / "ewt"
    build_ud([ud_dir / "UD_English-EWT"], lang="en", sizes="10k", out=out)
    return out


def _configs(folder: Path) -> dict[str, dict]:
    card = read_card_yaml(folder)
    return {c["config_name"]: c for c in card["configs"]}


def _split_tables(folder: Path, config: str) -> dict[str, object]:
    out = {}
    for f in sorted((folder / "data" / config).glob("*.parquet")):
        out[f.name.split("-")[0]] = pq.read_table(f)
    return out


def _load_all(folder: Path, only: list[str] | None = None) -> None:
    """Every config (or those in ``only``) through ``datasets.load_dataset``, its label names
    the card's."""
    import datasets

    card = read_card_yaml(folder)
    block = card["polyprobe"]["configs"]
    for name in only if only is not None else _configs(folder):
        ds = datasets.load_dataset(str(folder), name)
        labels = block[name]["labels"]
        for split, d in ds.items():
            assert d.features["label"].names == labels, (name, split)
            assert len(d) > 0


def test_ewt_builds_validates_and_loads(ewt_folder: Path) -> None:
    report = validate(ewt_folder)
    assert report.ok, report.problems
    configs = _configs(ewt_folder)
    assert {"sentence_length", "bigram_shift", "subject_number"} <= set(configs)
    assert "subject_number.natural-full" in configs
    # EWT has 12,544 train sentences: 10k is feasible for sentence_length and bigram_shift.
    assert "sentence_length.natural-10k" in configs
    assert "bigram_shift.natural-10k" in configs
    assert [c for c, v in configs.items() if v.get("default")] == ["sentence_length"]
    _load_all(ewt_folder)


def test_ewt_uses_ud_splits_and_labels_match_names(ewt_folder: Path) -> None:
    import datasets

    card = read_card_yaml(ewt_folder)
    block = card["polyprobe"]["configs"]["subject_number"]
    # issue 14: EWT's own test split left the recommended config 70 test rows (test subjects
    # whose lemma train holds are dropped), so subject_number is re-split by components; the
    # first ratio (validation kept at 10%) that gives 500 test rows is 60/10/30 (588)
    assert block["variant"] == {"balance": "balanced", "size": "full", "split": "ratio:60/10/30"}
    assert block["labels"] == ["Sing", "Plur"]
    # bigram_shift keeps the UD split: every test id comes from the EWT test file
    assert card["polyprobe"]["configs"]["bigram_shift"]["variant"]["split"] == "ud"
    ds = datasets.load_dataset(str(ewt_folder), "bigram_shift.natural-full")
    test_ids = {i.split("/")[1] for i in ds["test"]["id"]}
    assert all(
        i.startswith(("answers-", "email-", "newsgroup-", "reviews-", "weblog-")) for i in test_ids
    )
    ds = datasets.load_dataset(str(ewt_folder), "subject_number.natural-full")
    names = ds["train"].features["label"].names
    row = next(r for r in ds["train"] if r["lexical_key"] == "people")
    assert names[row["label"]] == "Plur"


def test_nested_sizes_and_shared_eval_splits(ewt_folder: Path) -> None:
    full = _split_tables(ewt_folder, "sentence_length.natural-full")
    small = _split_tables(ewt_folder, "sentence_length.natural-10k")
    assert small["train"].num_rows == 10_000
    assert set(small["train"]["id"].to_pylist()) <= set(full["train"]["id"].to_pylist())
    for split in ("validation", "test"):
        assert small[split]["id"].to_pylist() == full[split]["id"].to_pylist()


def test_no_group_or_key_in_two_splits(ewt_folder: Path) -> None:
    for name in _configs(ewt_folder):
        tables = _split_tables(ewt_folder, name)
        seen_groups: dict[str, str] = {}
        seen_keys: dict[str, str] = {}
        for split, t in tables.items():
            for g in set(t["group"].to_pylist()):
                assert seen_groups.setdefault(g, split) == split, (name, g)
            for k in set(t["lexical_key"].to_pylist()) - {""}:
                assert seen_keys.setdefault(k, split) == split, (name, k)


def test_subject_number_drops_recomputed(ewt_folder: Path, ud_dir: Path) -> None:
    """The card's drop counts equal a recomputation from the treebank with ``conllu``."""
    import gzip

    import conllu

    card = read_card_yaml(ewt_folder)
    report = json.loads((ewt_folder / "report.json").read_text())["subject_number"]
    tb = ud_dir / "UD_English-EWT"
    coordinated = not_noun = candidates = 0
    seen_juancole = False
    for f in sorted(tb.glob("*-ud-*.conllu*")):
        fh = (
            gzip.open(f, "rt", encoding="utf-8") if f.suffix == ".gz" else open(f, encoding="utf-8")
        )
        with fh:
            for sent in conllu.parse_incr(fh):
                words = [t for t in sent if isinstance(t["id"], int)]
                root = next(t for t in words if t["head"] == 0)
                subj = [
                    t
                    for t in words
                    if t["head"] == root["id"] and t["deprel"] in ("nsubj", "nsubj:pass")
                ]
                if len(subj) != 1:
                    continue
                s = subj[0]
                if s["upos"] != "NOUN":
                    not_noun += 1
                    continue
                if any(t["head"] == s["id"] and t["deprel"] == "conj" for t in words):
                    coordinated += 1
                    if sent.metadata["sent_id"] == JUANCOLE:
                        seen_juancole = True
                    continue
                if (s["feats"] or {}).get("Number") not in ("Sing", "Plur"):
                    continue
                candidates += 1
    assert seen_juancole, "hand-checked coordinated subject must be among the drops"
    assert report["candidates"] == candidates
    drops = report["task_drops"]
    assert sum(v for k, v in drops.items() if "conj" in k or "coordinat" in k) == coordinated
    assert sum(v for k, v in drops.items() if "UPOS" in k or "upos" in k) == not_noun
    # the card's YAML carries the same numbers as report.json
    assert card["polyprobe"]["configs"]["subject_number"]["seed"] == 0
    # and the dropped sentence is in no config
    for name in _configs(ewt_folder):
        if name.startswith("subject_number"):
            for t in _split_tables(ewt_folder, name).values():
                assert not any(JUANCOLE in i for i in t["id"].to_pylist())


def test_ud_split_key_drops_counted(ewt_folder: Path) -> None:
    report = json.loads((ewt_folder / "report.json").read_text())["subject_number"]
    natural = _split_tables(ewt_folder, "subject_number.natural-full")
    kept = sum(t.num_rows for t in natural.values())
    engine = report["engine_drops"]
    dropped_classes_rows = 0  # both classes survive on EWT
    assert report["dropped_classes"] == {}
    assert kept + sum(engine.values()) + dropped_classes_rows == report["candidates"]
    # issue 14: EWT's own split dropped so many test items (their subject lemma seen in train)
    # that subject_number is re-split by components: no key is dropped any more
    assert report["sets"]["default"]["split"].startswith("ratio:")
    assert engine.get("lexical key seen in an earlier split", 0) == 0


@pytest.mark.parametrize("treebank", all_treebanks())
def test_every_shared_treebank_builds(
    treebank: str, ud_dir: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if treebank == "UD_English-EWT":  # built, validated and loaded whole by the tests above
        out = request.getfixturevalue("ewt_folder")
        result = json.loads((out / "report.json").read_text())
        built = [c for entry in result.values() for c in entry["built"]]
    else:
        out = tmp_path / treebank
        result = build_ud([ud_dir / treebank], lang=_lang(treebank), out=out)
        built = [c for t in result.tasks for c in t.configs]
    report = validate(out)
    assert report.ok, report.problems
    card = read_card_yaml(out)
    has_train = any((ud_dir / treebank).glob("*-ud-train.conllu*"))
    expected = (
        "ud"
        if has_train and any((ud_dir / treebank).glob("*-ud-dev.conllu*"))
        else "ratio:80/10/10"
    )
    assert built, "at least one task must be built"
    body = (out / "README.md").read_text(encoding="utf-8")
    for name in built:
        split = card["polyprobe"]["configs"][name]["variant"]["split"]
        # issue 14: a task whose treebank test split leaves the recommended config < 500 test
        # rows is re-split by components, and its card says so; so is a task that the default
        # ratio split would leave without a class another ratio keeps (German PUD voice:
        # passive 17 in validation at 80/10/10, built at 50/25/25)
        resplit = split.startswith("ratio:") and "re-split ratio:" in body
        assert split == expected or resplit, (name, split)
    feas = json.loads((out / "report.json").read_text())
    for task, entry in feas.items():
        assert entry["built"] or entry["infeasible"], task
    if treebank == "UD_English-EWT":
        return  # every config loaded by test_ewt_builds_validates_and_loads
    # validate compared every config's embedded features with the card's; the recommended
    # config of each task goes through datasets.load_dataset as a user loads it
    recommended = [name for name in built if "." not in name]
    _load_all(out, recommended)


def _lang(treebank: str) -> str:
    return {
        "Czech": "cs",
        "English": "en",
        "Finnish": "fi",
        "Georgian": "ka",
        "German": "de",
        "Russian": "ru",
        "Slovenian": "sl",
        "Spanish": "es",
        "Turkish": "tr",
    }[treebank.split("_")[1].split("-")[0]]


def _build_in_process(args: list[str], hashseed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    subprocess.run(
        [sys.executable, "-m", "polyprobe", "build", "ud", *args, "--quiet"],
        check=True,
        env=env,
        capture_output=True,
    )


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_determinism_across_processes_and_seeds(ud_dir: Path, tmp_path: Path) -> None:
    # Turkish IMST has train/dev/test, so --split ud applies and natural-full configs of
    # tasks without perturbation are seed-independent (German GSD would be re-split by ratio).
    # The split is requested: left to itself the build re-splits a task whose own test split
    # leaves its recommended config under 500 rows (IMST sentence_length: 238), by ratio.
    tb = str(ud_dir / "UD_Turkish-IMST")
    common = [tb, "--lang", "tr", "--sizes", "0.5", "--split", "ud"]
    _build_in_process([*common, "--out", str(tmp_path / "a")], "1")
    _build_in_process([*common, "--out", str(tmp_path / "b")], "987")
    a, b = _tree_bytes(tmp_path / "a"), _tree_bytes(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []

    _build_in_process([*common, "--seed", "7", "--out", str(tmp_path / "c")], "1")
    card = read_card_yaml(tmp_path / "a")
    block = card["polyprobe"]["configs"]
    dependent = [n for n, c in block.items() if c["seed_dependent"]]
    independent = [n for n, c in block.items() if not c["seed_dependent"]]
    assert dependent and independent
    for name in dependent:
        rows_a = {
            (r["id"], _text(r), r["label"])
            for t in _split_tables(tmp_path / "a", name).values()
            for r in t.to_pylist()
        }
        rows_c = {
            (r["id"], _text(r), r["label"])
            for t in _split_tables(tmp_path / "c", name).values()
            for r in t.to_pylist()
        }
        assert rows_a != rows_c, name
    for name in independent:
        rows_a = {
            (r["id"], _text(r), r["label"])
            for t in _split_tables(tmp_path / "a", name).values()
            for r in t.to_pylist()
        }
        rows_c = {
            (r["id"], _text(r), r["label"])
            for t in _split_tables(tmp_path / "c", name).values()
            for r in t.to_pylist()
        }
        assert rows_a == rows_c, name


def _text(row: dict) -> str:
    """A row's input text: ``sentence``, or a discourse row's ``sentences`` joined."""
    return row["sentence"] if "sentence" in row else "\n".join(row["sentences"])


def test_skip_mode_counts_reach_the_card(ud_dir: Path, tmp_path: Path) -> None:
    src = ud_dir / "UD_German-GSD" / "de_gsd-ud-test.conllu"
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    # break two sentences: a wrong column count and a head out of range
    broken = []
    n_tokens = 0
    for line in lines:
        if line[:1].isdigit():
            n_tokens += 1
            cols = line.rstrip("\n").split("\t")
            if n_tokens == 3:
                line = "\t".join(cols[:8]) + "\n"
            elif n_tokens == 500:
                cols[6] = "999"
                line = "\t".join(cols) + "\n"
        broken.append(line)
    bad = tmp_path / "de_bad-ud-test.conllu"
    bad.write_text("".join(broken), encoding="utf-8")
    with pytest.raises(PolyprobeError) as err:
        build_ud([bad], lang="de", out=tmp_path / "x")
    assert str(bad) in str(err.value) and ":" in str(err.value)
    assert not (tmp_path / "x").exists()
    result = build_ud([bad], lang="de", out=tmp_path / "y", on_invalid="skip")
    assert sum(result.skipped_invalid.values()) == 2
    readme = (tmp_path / "y" / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(readme.split("---")[1])
    assert "2" in readme and front is not None
    assert validate(tmp_path / "y").ok


def test_license_mix_refused_then_allowed(ud_dir: Path, tmp_path: Path) -> None:
    paths = [ud_dir / "UD_Czech-FicTree", ud_dir / "UD_Czech-PUD"]
    with pytest.raises(PolyprobeError, match="NonCommercial"):
        build_ud(paths, lang="cs", out=tmp_path / "cs")
    assert not (tmp_path / "cs").exists()
    build_ud(paths, lang="cs", out=tmp_path / "cs", allow_license_mix=True)
    card = read_card_yaml(tmp_path / "cs")
    assert card["license"] == "other"
    assert validate(tmp_path / "cs").ok


def test_existing_out_refused_and_overwrite(tmp_path: Path) -> None:
    from polyprobe.demo import build_demo

    out = tmp_path / "demo"
    build_demo(out)
    before = _tree_bytes(out)
    with pytest.raises(PolyprobeError, match="exists"):
        build_demo(out)
    build_demo(out, overwrite=True)
    assert _tree_bytes(out) == before
