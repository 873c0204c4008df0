"""``build senteval`` (issue 35, point 3): published probing sets in SentEval's line format,
X-Probe's split files and SentEval's STS layout become dataset folders.

The round trip: an EWT folder exported with ``export --format senteval`` and built back gives,
per config and split, the same (tokens, label) rows and labels: the family keeps the files'
rows where they put them and reports a text in two splits (``cross_split_duplicates``) rather
than dropping it (``--duplicates drop`` drops it; see the round-trip test for the 6 EWT rows). The fixtures under ``tests/fixtures/senteval`` are written in the published layouts:
X-Probe's ``<lang>/<task>/{tr,va,te}.txt`` (``sentence TAB label``, as in ltgoslo/xprobe),
SentEval's line format (``lines/de``) and Eger et al. (2020)'s tasks and languages in it
(``eger/tr``; see its test for what of their release could be checked), and SentEval's
``STS14-en-test/STS.input.<subset>.txt`` + ``STS.gs.<subset>.txt`` with an unscored pair.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe import build_senteval, build_ud
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "senteval"
EWT_TASKS = ["subject_number", "bigram_shift", "tree_depth"]


def _labels(folder: Path, config: str) -> list[str]:
    card, _ = read_readme(folder / "README.md")
    return card["polyprobe"]["configs"][config]["labels"]


def _rows(folder: Path, config: str) -> dict[str, Counter[tuple[str, str]]]:
    """split -> multiset of (tokens joined by spaces, label name)."""
    names = _labels(folder, config)
    return {
        split: Counter((" ".join(r["tokens"]), names[r["label"]]) for r in rows)
        for split, rows in config_rows(folder, config).items()
    }


@pytest.fixture(scope="module")
def ewt(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ewt-senteval") / "ewt"
    build_ud(
        [ud_dir / "UD_English-EWT"], lang="en", tasks=EWT_TASKS, balances="natural", jobs=1, out=out
    )
    return out


@pytest.fixture(scope="module")
def exported(ewt: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ewt-exported") / "se"
    assert main(["export", str(ewt), "--format", "senteval", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def back(exported: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = sorted(exported.rglob("*.txt"))
    out = tmp_path_factory.mktemp("ewt-back") / "back"
    build_senteval(files, lang="en", out=out)
    return out


def _earlier_split_texts(rows: dict[str, Counter[tuple[str, str]]]) -> dict[str, int]:
    """Per later split, how many rows hold a text already in an earlier split (what the
    audit reports), by the engine's order train < validation < test."""
    seen: set[str] = set()
    out = {}
    for split in ("train", "validation", "test"):
        found = rows.get(split, Counter())
        if split != "train":
            out[split] = sum(n for (text, _), n in found.items() if text in seen)
        seen |= {text for text, _ in found}
    return out


def test_export_then_build_gives_the_same_rows_per_config(
    ewt: Path, exported: Path, back: Path
) -> None:
    """Exact round trip: every config comes back with the same (tokens, label) rows per split
    and the same labels. EWT's bigram_shift has 6 of its 30,228 rows whose exported text an
    earlier split also holds, which the original build keeps (it groups rows by their source
    sentence's normalised text): 2 because the export writes tokens (test's ``Goodluck!``,
    tokens ``Good luck !``, and its inversion equal train's ``Good luck!``), 4 because the
    inversion re-cases the swapped words, so sentences differing only in case give one text
    (validation's ``Take Care`` and train's ``Take care`` -> ``Care take``; ``Highly
    recommend``, ``Highly recommended``, ``Good food.``). ``build senteval`` keeps the files'
    rows and reports these (``cross_split_duplicates``) instead of dropping them."""
    sources = list(read_readme(ewt / "README.md")[0]["polyprobe"]["configs"])
    built = list(read_readme(back / "README.md")[0]["polyprobe"]["configs"])
    # one built config per exported file, whatever the export names them
    assert len(built) == len(list(exported.rglob("*.txt"))) == len(sources) == 4
    report = json.loads((back / "report.json").read_text(encoding="utf-8"))
    matched = {}
    for config in built:
        theirs = _rows(back, config)
        found = [s for s in sources if _rows(ewt, s) == theirs]
        assert len(found) == 1, (config, found)
        matched[found[0]] = config
        # the same label names (their id order is the family's: the line format has none)
        assert set(_labels(back, config)) == set(_labels(ewt, found[0]))
        assert report[config]["engine_drops"] == {}, config
        reported = report[config]["derived"]["cross_split_duplicates"]
        assert reported == _earlier_split_texts(theirs), config
    assert sorted(matched) == sorted(sources)
    bigram = report[matched["bigram_shift"]]["derived"]["cross_split_duplicates"]
    assert bigram == {"validation": 1, "test": 5}
    assert ("Care take", "inverted") in _rows(back, matched["bigram_shift"])["validation"]
    assert validate(back).ok


def test_cross_split_duplicates_kept_and_counted_or_dropped(tmp_path: Path) -> None:
    """A text in two splits: kept where the file puts it and counted (default), or dropped
    from the later split with --duplicates drop (the engine's audit, counted)."""
    path = tmp_path / "task.txt"
    lines = ["tr\tA\tone two", "tr\tB\tthree four", "va\tA\tone  two", "te\tB\tthree four",
             "te\tA\tfive six", "va\tB\tseven"]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept = tmp_path / "kept"
    build_senteval([path], lang="en", out=kept)
    assert {s: len(r) for s, r in config_rows(kept, "task").items()} == {
        "train": 2, "validation": 2, "test": 2
    }  # fmt: skip
    report = json.loads((kept / "report.json").read_text(encoding="utf-8"))["task"]
    assert report["derived"]["cross_split_duplicates"] == {"validation": 1, "test": 1}
    assert report["engine_drops"] == {}
    dropped = tmp_path / "dropped"
    args = ["build", "senteval", str(path), "--lang", "en", "--out", str(dropped), "--quiet"]
    assert main([*args, "--duplicates", "drop"]) == 0
    rows = config_rows(dropped, "task")
    assert {s: len(r) for s, r in rows.items()} == {"train": 2, "validation": 1, "test": 1}
    report = json.loads((dropped / "report.json").read_text(encoding="utf-8"))["task"]
    assert sum(report["engine_drops"].values()) == 2


def test_xprobe_folders_build_with_splits_from_file_names(tmp_path: Path) -> None:
    """X-Probe's release layout, checked against ltgoslo/xprobe (commit b17e3c2):
    ``<lang>/<task>/{tr,va,te}.txt``, no header, ``sentence TAB label`` per line (e.g.
    ``de/tree_depth/va.txt``: tokenised German sentence, tab, integer depth); some tasks ship
    without one split file (there ``de/tree_depth`` has only ``va.txt``), as the fixture's
    ``tree_depth`` has no ``tr.txt``. The fixture's lines are our own."""
    out = tmp_path / "x"
    build_senteval([FIXTURES / "xprobe" / "de"], lang="de", out=out)
    rows = config_rows(out, "subj_number")
    assert {s: len(r) for s, r in rows.items()} == {"train": 8, "validation": 2, "test": 2}
    names = _labels(out, "subj_number")
    test = {r["sentence"]: names[r["label"]] for r in rows["test"]}
    assert test == {"Ein Zug fährt nach Berlin .": "Sing", "Zwei Züge fahren nach Berlin .": "Plur"}
    # integer labels in numeric order, not string order (10 before 5)
    assert _labels(out, "tree_depth") == ["5", "7", "10", "11"]
    assert set(config_rows(out, "tree_depth")) == {"validation", "test"}  # no tr.txt
    assert validate(out).ok
    card, _ = read_readme(out / "README.md")
    kinds = {s["name"]: s["kind"] for s in card["polyprobe"]["sources"]}
    assert kinds == {"subj_number": "xprobe-probing", "tree_depth": "xprobe-probing"}


def test_senteval_line_files_build(tmp_path: Path) -> None:
    """SentEval's own line format (``data/probing/*.txt``, ``tr|va|te TAB label TAB
    sentence``), German lines written for this test."""
    out = tmp_path / "e"
    build_senteval([FIXTURES / "lines" / "de"], lang="de", out=out)
    rows = config_rows(out, "obj_number")
    names = _labels(out, "obj_number")
    assert names == ["NN", "NNS"]
    train = Counter(names[r["label"]] for r in rows["train"])
    assert train == {"NN": 4, "NNS": 4}
    first = rows["validation"][0]
    assert first["tokens"] == first["sentence"].split()  # SentEval's own tokenisation
    assert _labels(out, "tree_depth") == ["5", "7", "10", "11"]
    assert validate(out).ok


def test_eger_style_files_build(tmp_path: Path) -> None:
    """Eger et al. (2020)'s release, UKPLab/conll2020-multilingual-sentence-probing (only its
    README.md is in the index we checked): probing sets for en, tr, ru, ka read by their
    modified SentEval, so in SentEval's line format (``tr|va|te TAB label TAB sentence``), with
    the tasks they added: Voice (``He likes cats`` -> False), SubjVerbAgreement (``They works
    together`` -> Disagree) and SubjVerbDistance (an integer). The README does not show the
    data files, so their names here (``voice.txt``, ...) follow SentEval's naming, an
    assumption; the Turkish lines are our own."""
    out = tmp_path / "eger"
    build_senteval([FIXTURES / "eger" / "tr"], lang="tr", out=out)
    card, _ = read_readme(out / "README.md")
    configs = card["polyprobe"]["configs"]
    assert sorted(configs) == ["subj_verb_agreement", "subj_verb_distance", "voice"]
    assert _labels(out, "voice") == ["False", "True"]
    assert _labels(out, "subj_verb_agreement") == ["Agree", "Disagree"]
    assert _labels(out, "subj_verb_distance") == ["1", "2", "3", "10"]  # numeric order
    rows = config_rows(out, "voice")
    assert {s: len(r) for s, r in rows.items()} == {"train": 6, "validation": 2, "test": 2}
    names = _labels(out, "voice")
    test = {r["sentence"]: names[r["label"]] for r in rows["test"]}
    assert test == {"Öğretmen dersi anlattı .": "False", "Ders sabah anlatıldı .": "True"}
    agreement = config_rows(out, "subj_verb_agreement")["validation"]
    assert {r["sentence"] for r in agreement} == {
        "Sen çok çalışıyorsun .",
        "Sen çok çalışıyoruz .",
    }
    assert validate(out).ok


def test_sts_layout_builds_a_scored_dataset(tmp_path: Path) -> None:
    out = tmp_path / "sts"
    build_senteval([FIXTURES / "sts" / "STS14-en-test"], lang="en", out=out)
    card, _ = read_readme(out / "README.md")
    block = card["polyprobe"]["configs"]["sts14-headlines"]
    assert block["label_type"] == "score" and block["level"] == "sentence-pair"
    rows = config_rows(out, "sts14-headlines")
    assert list(rows) == ["test"] and len(rows["test"]) == 5  # the unscored pair dropped
    scores = {r["sentence1"]: r["label"] for r in rows["test"]}
    assert scores["Stocks fall in Asia"] == pytest.approx(3.6)
    assert "Rain expected on Friday" not in scores
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    drops = report["sts14-headlines"]["task_drops"]
    assert list(drops.values()) == [1] and "no gold score" in next(iter(drops))
    assert validate(out).ok


BAD = [
    ("xx\tA\tone two", 2, "split 'xx' is not tr, va or te"),
    ("tr\tB", 2, "expected split TAB label TAB sentence, found 2 fields"),
    ("te\tA\t   ", 2, "empty sentence"),
    ("te\t \tsome words", 2, "empty label"),
]


@pytest.mark.parametrize(("line", "number", "problem"), BAD, ids=lambda v: str(v)[:12])
def test_bad_lines_are_one_line_errors_or_counted(
    line: str, number: int, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "task.txt"
    good = ["tr\tA\tone two", "tr\tB\tthree four", "va\tA\tfive", "te\tB\tsix seven"]
    path.write_text("\n".join([good[0], line, *good[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "o"
    args = ["build", "senteval", str(path), "--lang", "en", "--out", str(out), "--quiet"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == f"polyprobe: error: {path}:{number}: {problem}\n"
    assert not out.exists()
    assert main([*args, "--on-invalid", "skip"]) == 0
    skipped = read_readme(out / "README.md")[0]["polyprobe"]["skipped_invalid"]
    assert sum(skipped.values()) == 1, skipped
    assert sum(len(r) for r in config_rows(out, "task").values()) == 4


def test_sts_gold_file_must_align(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "STS12-en-test"
    folder.mkdir()
    (folder / "STS.input.MSRpar.txt").write_text("a b\tc d\ne f\tg h\n", encoding="utf-8")
    (folder / "STS.gs.MSRpar.txt").write_text("1.0\n2.0\n3.0\n", encoding="utf-8")
    out = tmp_path / "o"
    assert (
        main(["build", "senteval", str(folder), "--lang", "en", "--out", str(out), "--quiet"]) == 2
    )
    err = capsys.readouterr().err
    gold = folder / "STS.gs.MSRpar.txt"
    assert err.startswith(f"polyprobe: error: {gold}: 3 gold lines for 2 sentence pairs"), err
    (folder / "STS.gs.MSRpar.txt").unlink()
    assert (
        main(["build", "senteval", str(folder), "--lang", "en", "--out", str(out), "--quiet"]) == 2
    )
    assert "no gold scores beside it (STS.gs.MSRpar.txt)" in capsys.readouterr().err


def test_the_family_is_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "senteval" in capsys.readouterr().out


def test_licence_from_a_file_beside_the_sets_and_notes_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "obj_number.txt").write_bytes(
        (FIXTURES / "lines" / "de" / "obj_number.txt").read_bytes()
    )
    (folder / "README.txt").write_text("Probing sets of our paper.\n", encoding="utf-8")
    (folder / "LICENSE").write_text(
        "Creative Commons Attribution 4.0 International\n"
        "https://creativecommons.org/licenses/by/4.0/\n",
        encoding="utf-8",
    )
    out = tmp_path / "o"
    build_senteval([folder], lang="de", out=out)
    card, _ = read_readme(out / "README.md")
    assert card["license"] == "cc-by-4.0"
    assert [s["name"] for s in card["polyprobe"]["sources"]] == ["obj_number"]  # no README set
