"""``build classification`` / ``build pairs`` from user files: a fixture in each published
format (written here; the real sets are not available offline), column mappings, encodings,
splits, the card's pair features, and bad input named by file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe import build_classification, build_pairs, build_regression
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.errors import InfeasibleError, InputError, UsageError


def _block(folder: Path, config: str) -> dict:
    return read_readme(folder / "README.md")[0]["polyprobe"]["configs"][config]


def test_ukp_argmin_with_topic(tmp_path: Path) -> None:
    """UKP Sentential Argument Mining: topic, hash, sentence, annotation, set."""
    lines = ["topic\thash\tsentence\tannotation\tset"]
    labels = ("NoArgument", "Argument_for", "Argument_against")
    for i in range(30):
        split = ("train", "val", "test")[i % 3]
        topic = ("nuclear energy", "school uniforms")[i % 2]
        lines.append(
            f"{topic}\th{i}\tSentence number {i} about {topic} .\t{labels[i % 3 - 1]}\t{split}"
        )
    path = tmp_path / "argmin.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = build_pairs([path], preset="ukp-argmin", lang="en", out=tmp_path / "ds").out
    assert validate(out).ok, str(validate(out))
    block = _block(out, "ukp-argmin")
    assert block["pair_features"] == "topic"
    assert block["labels"] == ["Argument_against", "Argument_for", "NoArgument"]
    rows = config_rows(out, "ukp-argmin")
    assert sorted(rows) == ["test", "train", "validation"] and len(rows["train"]) == 10
    first = {r["id"]: r for r in rows["train"]}["argmin.tsv/train/h0"]
    assert first["sentence1"] == "Sentence number 0 about nuclear energy ."
    assert first["sentence2"] == "nuclear energy"


def test_sentiment_tsv_one_file_per_split(tmp_path: Path) -> None:
    files = []
    for split in ("train", "dev", "test"):
        path = tmp_path / f"{split}.tsv"
        body = [
            f"a {'good' if i % 2 else 'bad'} film number {split} {i}\t{i % 2}" for i in range(8)
        ]
        path.write_text("sentence\tlabel\n" + "\n".join(body) + "\n", encoding="utf-8")
        files.append(f"{split}={path}")
    out = build_classification(files, preset="sentiment-tsv", lang="es", out=tmp_path / "ds").out
    assert validate(out).ok
    rows = config_rows(out, "sentiment-tsv")
    assert {s: len(r) for s, r in rows.items()} == {"train": 8, "validation": 8, "test": 8}
    assert _block(out, "sentiment-tsv")["labels"] == ["0", "1"]
    assert rows["test"][1]["tokens"] == ["a", "good", "film", "number", "test", "1"]


def test_sqc_lines_and_ratio_split(tmp_path: Path) -> None:
    """SQC in TREC's line format; no split given: ratio 80/10/10, groups kept together."""
    classes = ("DESC:manner", "HUM:ind", "LOC:city", "NUM:date")
    lines = [f"{classes[i % 4]} ¿Pregunta número {i} ?" for i in range(60)]
    lines.append(lines[0])  # a duplicate: same group, never in two splits
    path = tmp_path / "sqc.txt"
    # Not UTF-8: refused at the first bad line, never decoded as another encoding (one bad
    # byte used to make the whole file Latin-1, silently).
    path.write_bytes(("\n".join(lines) + "\n").encode("iso-8859-1"))
    with pytest.raises(InputError, match=r"sqc.txt:1: not UTF-8 \(invalid") as err:
        build_classification([path], preset="sqc", lang="es", out=tmp_path / "latin1")
    assert err.value.reason == "bad-encoding" and not (tmp_path / "latin1").exists()
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    out = build_classification([path], preset="sqc", lang="es", out=tmp_path / "ds").out
    assert validate(out).ok
    rows = config_rows(out, "sqc")
    assert _block(out, "sqc")["labels"] == ["DESC", "HUM", "LOC", "NUM"]
    texts = {r["sentence"] for split in rows.values() for r in split}
    assert "¿Pregunta número 7 ?" in texts
    assert _block(out, "sqc")["variant"]["split"] == "ratio:80/10/10"


def test_nli_jsonl_drops_no_gold_label(tmp_path: Path) -> None:
    rows = []
    for i in range(12):
        gold = ("entailment", "neutral", "contradiction", "-")[i % 4]
        rows.append(
            {
                "sentence1": f"A man plays {i}.",
                "sentence2": f"Someone plays {i}.",
                "gold_label": gold,
            }
        )
    files = []
    for split in ("train", "test"):  # each split its own pairs (a repeated pair is leakage)
        path = tmp_path / f"snli_{split}.jsonl"
        own = [{**r, "sentence1": f"{r['sentence1']} {split}"} for r in rows]
        path.write_text("\n".join(json.dumps(r) for r in own) + "\n", encoding="utf-8")
        files.append(f"{split}={path}")
    result = build_pairs(files, preset="nli", lang="en", out=tmp_path / "ds", on_invalid="skip")
    assert result.skipped_invalid == {"no-gold-label": 6}
    assert _block(result.out, "nli")["labels"] == ["contradiction", "entailment", "neutral"]
    # dropped as the preset's help says, not only under --on-invalid skip (issue 35)
    strict = build_pairs(files, preset="nli", lang="en", out=tmp_path / "raise")
    assert strict.skipped_invalid == {"no-gold-label": 6}
    assert config_rows(strict.out, "nli") == config_rows(result.out, "nli")


def test_paws_and_sick_e(tmp_path: Path) -> None:
    paws = tmp_path / "paws_train.tsv"
    body = [f"{i}\tWords in order {i} .\tOrder in words {i} .\t{i % 2}" for i in range(10)]
    paws.write_text("id\tsentence1\tsentence2\tlabel\n" + "\n".join(body) + "\n", encoding="utf-8")
    # the same pairs in train and test share groups: the test copies are dropped as in UD,
    # which leaves no test split, and a config is never published with an empty split
    with pytest.raises(InfeasibleError, match="paws: the test split would be empty"):
        build_pairs([f"train={paws}", f"test={paws}"], preset="paws", lang="en",
                    out=tmp_path / "same")  # fmt: skip
    assert not (tmp_path / "same").exists()
    test = tmp_path / "paws_test.tsv"
    body = [f"{i}\tWords in test {i} .\tTest in words {i} .\t{i % 2}" for i in range(10)]
    test.write_text("id\tsentence1\tsentence2\tlabel\n" + "\n".join(body) + "\n", encoding="utf-8")
    out = build_pairs(
        [f"train={paws}", f"test={test}"], preset="paws", lang="en", out=tmp_path / "p"
    )
    assert {k: len(v) for k, v in config_rows(out.out, "paws").items()} == {"train": 10, "test": 10}
    assert validate(out.out).ok
    sick = tmp_path / "SICK.txt"
    head = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\tSemEval_set"
    judg = ("NEUTRAL", "ENTAILMENT", "CONTRADICTION")
    sets = ("TRAIN", "TRIAL", "TEST")
    body = [
        f"{i}\tA dog runs {i}\tA dog walks {i}\t3.{i}\t{judg[i % 3]}\t{sets[i % 3]}"
        for i in range(18)
    ]
    sick.write_text(head + "\n" + "\n".join(body) + "\n", encoding="utf-8")
    s = build_pairs([sick], preset="sick-e", lang="en", out=tmp_path / "s").out
    rows = config_rows(s, "sick-e")
    assert {k: len(v) for k, v in rows.items()} == {"train": 6, "validation": 6, "test": 6}
    assert sorted(r["id"] for r in rows["train"]) == sorted(
        f"SICK.txt/train/{i}" for i in (0, 3, 6, 9, 12, 15)
    )


SICK_FIXTURES = Path(__file__).parent / "fixtures" / "sick"
# SICK's two published layouts (fixtures written for these tests, not SICK's data): the full
# SICK.txt (entailment_label, SemEval_set) and the SemEval-2014 Task 1 files SICK_train.txt,
# SICK_trial.txt, SICK_test_annotated.txt (entailment_judgment, the split is the file's).
SICK_LAYOUTS = {
    "full": ["SICK.txt"],
    "semeval": ["SICK_train.txt", "SICK_trial.txt", "SICK_test_annotated.txt"],
    "semeval-given": ["train=SICK_train.txt", "dev=SICK_trial.txt", "test=SICK_test_annotated.txt"],
}


def _sick_files(layout: str) -> list[str]:
    out = []
    for name in SICK_LAYOUTS[layout]:
        split, sep, file = name.rpartition("=")
        out.append(f"{split}{sep}{SICK_FIXTURES / file}")
    return out


def _sick_rows(out: Path, config: str) -> dict[str, tuple]:
    """pair_ID -> (split, label name or score, sentence1, sentence2) of a built config."""
    names = _block(out, config).get("labels")
    found = {}
    for split, rows in config_rows(out, config).items():
        for r in rows:
            label = names[r["label"]] if names else r["label"]
            found[r["id"].rsplit("/", 1)[1]] = (split, label, r["sentence1"], r["sentence2"])
    return found


@pytest.mark.parametrize("layout", sorted(SICK_LAYOUTS))
def test_sick_e_both_layouts(tmp_path: Path, layout: str) -> None:
    """sick-e reads SICK.txt (label entailment_label, split SemEval_set) and the SemEval-2014
    files (label entailment_judgment, split from the file name or SPLIT=FILE) alike."""
    out = build_pairs(_sick_files(layout), preset="sick-e", lang="en", out=tmp_path / "e").out
    assert validate(out).ok, str(validate(out))
    rows = _sick_rows(out, "sick-e")
    assert len(rows) == 15
    assert rows["101"][:2] == ("train", "NEUTRAL")
    assert rows["107"][:2] == ("train", "CONTRADICTION")
    assert rows["119"][:2] == ("validation", "ENTAILMENT")  # TRIAL / SICK_trial.txt
    assert rows["143"][:2] == ("test", "CONTRADICTION")
    assert rows["122"][2:] == ("A young girl is reading a newspaper",
                               "A young girl is not reading a newspaper")  # fmt: skip
    assert _block(out, "sick-e")["labels"] == ["CONTRADICTION", "ENTAILMENT", "NEUTRAL"]


@pytest.mark.parametrize("layout", sorted(SICK_LAYOUTS))
def test_sick_r_both_layouts(tmp_path: Path, layout: str) -> None:
    """sick-r: the relatedness score, splits as for sick-e, from either layout."""
    files = _sick_files(layout)
    out = build_regression(files, preset="sick-r", lang="en", out=tmp_path / "r").out
    assert validate(out).ok, str(validate(out))
    rows = _sick_rows(out, "sick-r")
    assert len(rows) == 15
    assert rows["101"][:2] == ("train", pytest.approx(1.0))
    assert rows["116"][:2] == ("validation", pytest.approx(4.5))
    assert rows["134"][:2] == ("test", pytest.approx(4.7))
    assert rows["140"][:2] == ("test", pytest.approx(2.1))


def test_sick_layout_named_when_neither_fits(tmp_path: Path) -> None:
    """A file in neither layout: the missing columns of the nearer one are named."""
    bad = tmp_path / "SICK_train.txt"
    bad.write_text("pair_ID\tsentence_A\tsentence_B\tscore\n1\ta\tb\t1.0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"no column\(s\) relatedness_score in the header"):
        build_regression([bad], preset="sick-r", lang="en", out=tmp_path / "x")


def test_own_csv_with_column_mapping(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    lines = [
        "txt,cls,part",
        *(
            f'"Hello, world {i}",{"ab"[i % 2]},{("train", "test")[i % 2 and i > 10]}'
            for i in range(20)
        ),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = build_classification(
        [path],
        columns={"text": "txt", "label": "cls", "split": "part"},
        name="mine",
        lang="en",
        out=tmp_path / "ds",
    ).out
    rows = config_rows(out, "mine")
    assert "Hello, world 0" in {r["sentence"] for r in rows["train"]}  # quoted comma kept
    with pytest.raises(UsageError, match="map the column"):
        build_classification([path], columns={"text": "txt"}, lang="en", out=tmp_path / "x")
    with pytest.raises(InputError, match=r"mine.csv:1: no column\(s\) nope in the header"):
        build_classification(
            [path], columns={"text": "nope", "label": "cls"}, lang="en", out=tmp_path / "y"
        )
    bad = tmp_path / "bad.csv"
    bad.write_text("txt,cls\nok,a\nno label here\nfine,b\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.csv:3: 1 fields, the header has 2"):
        build_classification(
            [bad], columns={"text": "txt", "label": "cls"}, lang="en", out=tmp_path / "z"
        )


def test_translated_files_say_so_per_row(tmp_path: Path) -> None:
    """A machine-translated sentiment set through the command: every row's sample_creation
    is machine-translated, the card names the system; without --sample-creation the rows
    have no such column, and translator details alone are refused."""
    import subprocess
    import sys

    files = []
    for split in ("train", "dev", "test"):
        path = tmp_path / f"{split}.tsv"
        body = [
            f"ein {'guter' if i % 2 else 'schlechter'} Film Nummer {split} {i}\t{i % 2}"
            for i in range(8)
        ]
        path.write_text("sentence\tlabel\n" + "\n".join(body) + "\n", encoding="utf-8")
        files.append(f"{split}={path}")
    repo = Path(__file__).resolve().parent.parent

    def run(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "polyprobe", "build", "classification", *files]
        cmd += ["--preset", "sentiment-tsv", "--lang", "de", "--out", str(out), "--quiet"]
        return subprocess.run([*cmd, *extra], capture_output=True, text=True, cwd=repo)

    done = run(
        tmp_path / "mt",
        "--sample-creation",
        "machine-translated",
        "--translator",
        "opus-mt-en-de",
        "--translator-version",
        "2024-01",
        "--translation-date",
        "2026-11-27",
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "mt"
    assert validate(out).ok, str(validate(out))
    for rows in config_rows(out, "sentiment-tsv").values():
        assert {r["sample_creation"] for r in rows} == {"machine-translated"}
    front, body = read_readme(out / "README.md")
    assert front["polyprobe"]["parameters"]["translation"] == {
        "sample_creation": "machine-translated",
        "system": "opus-mt-en-de",
        "version": "2024-01",
        "date": "2026-11-27",
        "source_language": "en",
        "target_language": "de",
    }
    assert "machine translated from en by opus-mt-en-de" in body
    native = build_classification(files, preset="sentiment-tsv", lang="de", out=tmp_path / "n")
    assert "sample_creation" not in config_rows(native.out, "sentiment-tsv")["train"][0]
    done = run(tmp_path / "x", "--translator", "opus-mt-en-de")
    assert done.returncode == 2
    assert "--translator and its details need --sample-creation" in done.stderr
    assert "Traceback" not in done.stderr
