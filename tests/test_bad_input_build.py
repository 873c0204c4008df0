"""Bad input given to ``polyprobe build``, as a new user would give it (issue 15, points 1-5).

Each case is made at test time from the shared data, run through the command line in this
process, and checked from outside: the exit code, the one-line message (file, line, problem),
and that nothing is left behind (no output folder, no hidden staging folder beside it, nothing
in the temp dir). Cases that must build check the card instead (skip counts, parameters, notes)
and that ``validate`` accepts the folder.
"""

from __future__ import annotations

import bz2
import gzip
import json
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.cli import main

GSD = "UD_German-GSD"
C0_CASES = {"nul": "\x00", "soh": "\x01", "esc": "\x1b", "lone-cr": "\r", "form-feed": "\x0c"}


class Runner:
    """Runs ``polyprobe build`` with the temp dir redirected into the test's folder, so that
    anything a failed build leaves there is seen."""

    def __init__(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
        self.tmp = tmp_path / "tmpdir"
        self.tmp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(self.tmp))
        self.capsys = capsys
        self.outs = tmp_path / "outs"
        self.outs.mkdir()
        self.count = 0

    def build(self, *argv: object) -> tuple[int, str, Path]:
        self.count += 1
        target = self.outs / f"ds{self.count}"
        code = main(["build", *map(str, argv), "--out", str(target), "--quiet"])
        captured = self.capsys.readouterr()
        return code, captured.err.strip(), target

    def refused(self, *argv: object) -> str:
        """Build, expect exit 2 with one line of message and nothing left; the message."""
        before = sorted(p.name for p in self.outs.iterdir())
        code, err, out = self.build(*argv)
        assert code == 2, err
        assert err.startswith("polyprobe: error: ") and "\n" not in err, err
        assert "Traceback" not in err
        assert not out.exists()
        assert sorted(p.name for p in self.outs.iterdir()) == before  # no hidden staging
        assert sorted(p.name for p in self.tmp.iterdir()) == []
        return err

    def built(self, *argv: object) -> Path:
        code, err, out = self.build(*argv)
        assert code == 0, err
        report = validate(out)
        assert report.ok, report.summary()
        return out


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> Runner:
    return Runner(tmp_path, capsys, monkeypatch)


def card(out: Path) -> dict:
    return read_readme(out / "README.md")[0]["polyprobe"]


def copy_treebank(src: Path, dest: Path) -> Path:
    dest.mkdir(parents=True)
    for f in src.iterdir():
        shutil.copy(f, dest / f.name)
    return dest


def parquet_bytes(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.parquet")}


def blocks(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n\n")


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# ------------------------------------------------------------------ 1. duplicate sent_id


def test_duplicate_sent_id_across_files_names_both_places(
    run: Runner, ud_dir: Path, tmp_path: Path
) -> None:
    tb = copy_treebank(ud_dir / GSD, tmp_path / "UD_German-GSDdup")
    dev, test = tb / "de_gsd-ud-dev.conllu", tb / "de_gsd-ud-test.conllu"
    first = blocks(dev)[0]
    before = test.read_text(encoding="utf-8")
    test.write_text(before + first + "\n\n", encoding="utf-8")
    dup_line = before.count("\n") + 1
    sid = first.split("# sent_id = ")[1].split("\n")[0]
    err = run.refused("ud", tb, "--lang", "de", "--tasks", "sentence_length")
    assert f"{test}:{dup_line}: " in err and f"{dev}:1" in err and repr(sid) in err, err
    assert "sent_id" in err
    err = run.refused("ud", tb, "--lang", "de", "--tasks", "sentence_length", "--jobs", "2")
    assert f"{test}:{dup_line}: " in err and f"{dev}:1" in err


def test_duplicate_sent_id_within_a_file_is_skipped_and_counted(
    run: Runner, ud_dir: Path, tmp_path: Path
) -> None:
    tb = copy_treebank(ud_dir / GSD, tmp_path / "UD_German-GSDdup")
    dev = tb / "de_gsd-ud-dev.conllu"
    parts = blocks(dev)
    repeated = parts[2]
    dev.write_text("\n\n".join([*parts[:10], repeated, *parts[10:]]) + "\n\n", encoding="utf-8")
    text = dev.read_text(encoding="utf-8")
    first_line = line_of(text, repeated)
    dup_line = "\n\n".join(parts[:10]).count("\n") + 3
    err = run.refused("ud", tb, "--lang", "de", "--tasks", "sentence_length")
    assert f"{dev}:{dup_line}: " in err and f"{dev}:{first_line}" in err, err
    out = run.built("ud", tb, "--lang", "de", "--tasks", "sentence_length", "--on-invalid", "skip")
    assert card(out)["skipped_invalid"] == {"duplicate-sent-id": 1}
    # the same rows as the treebank without the repeated sentence
    clean_tb = copy_treebank(ud_dir / GSD, tmp_path / "clean" / tb.name)
    clean = run.built("ud", clean_tb, "--lang", "de", "--tasks", "sentence_length")
    assert parquet_bytes(out) == parquet_bytes(clean)


# ------------------------------------------------------------------------ 2. --lang


def test_a_mix_of_languages_is_refused(run: Runner, ud_dir: Path) -> None:
    en, de = ud_dir / "UD_English-PUD", ud_dir / "UD_German-PUD"
    err = run.refused("ud", en, de, "--lang", "en", "--tasks", "bigram_shift")
    assert "UD_English-PUD" in err and "UD_German-PUD" in err, err
    assert "English" in err and "German" in err and "--allow-language-mismatch" in err


def test_lang_that_the_source_contradicts_is_refused(run: Runner, ud_dir: Path) -> None:
    err = run.refused("ud", ud_dir / "UD_English-EWT", "--lang", "de", "--tasks", "bigram_shift")
    assert "--lang de" in err and "UD_English-EWT" in err and "English" in err, err
    assert "en_ewt-ud-" in err  # the evidence: its file names


def test_iso639_3_lang_matches_a_two_letter_file_name(run: Runner, ud_dir: Path) -> None:
    out = run.built("ud", ud_dir / "UD_German-PUD", "--lang", "deu", "--tasks", "bigram_shift")
    assert "allow_language_mismatch" not in card(out)["parameters"]


def test_readme_language_is_read(run: Runner, ud_dir: Path, tmp_path: Path) -> None:
    tb = copy_treebank(ud_dir / "UD_German-PUD", tmp_path / "UD_Mystery-PUD")
    readme = tb / "README.md"
    readme.write_text(
        readme.read_text(encoding="utf-8").replace("License:", "Language: Turkish\nLicense:", 1),
        encoding="utf-8",
    )
    err = run.refused("ud", tb, "--lang", "de", "--tasks", "bigram_shift")
    assert "Turkish" in err and "README" in err, err


def test_allow_language_mismatch_builds_and_says_so(run: Runner, ud_dir: Path) -> None:
    en, de = ud_dir / "UD_English-PUD", ud_dir / "UD_German-PUD"
    out = run.built(
        "ud", en, de, "--lang", "en", "--tasks", "bigram_shift", "--allow-language-mismatch"
    )
    params = card(out)["parameters"]
    assert params["allow_language_mismatch"] is True
    assert params["language_mismatch"] == {"UD_German-PUD": ["de"]}


@pytest.mark.parametrize(
    ("path", "lang", "says"),
    [
        ("unimorph/sigmorphon2018/german-train-high", "en", "german-train-high"),
        ("unimorph/sigmorphon2023/deu.trn", "en", "deu.trn"),
        ("unimorph/lexicons/slv", "en", "slv"),
    ],
)
def test_unimorph_file_names_declare_the_language(
    run: Runner, data_dir: Path, path: str, lang: str, says: str
) -> None:
    err = run.refused("unimorph", data_dir / path, "--lang", lang, "--tasks", "number", "--scale")
    assert says in err and "--lang en" in err, err


def test_frequency_treebank_in_another_language_is_refused(run: Runner, data_dir: Path) -> None:
    err = run.refused(
        "unimorph",
        data_dir / "unimorph/sigmorphon2018/german-train-high",
        "--lang",
        "de",
        "--tasks",
        "number",
        "--scale",
        "--frequencies",
        data_dir / "ud/UD_English-PUD",
    )
    assert "UD_English-PUD" in err and "English" in err, err


def test_trec_is_english(run: Runner, data_dir: Path) -> None:
    err = run.refused("trec", data_dir / "trec", "--lang", "de")
    assert "TREC" in err and "English" in err, err


# --------------------------------------------------------------------------- 3. TREC


def trec_folder(data_dir: Path, tmp_path: Path, train: bytes, test: bytes | None = None) -> Path:
    folder = tmp_path / "trec"
    folder.mkdir()
    (folder / "train_5500.label").write_bytes(train)
    (folder / "TREC_10.label").write_bytes(
        (data_dir / "trec/TREC_10.label").read_bytes() if test is None else test
    )
    return folder


@pytest.mark.parametrize("policy", ["raise", "skip"])
@pytest.mark.parametrize(
    ("case", "problem"),
    [
        ("empty-train", "no questions"),
        ("blank-train", "no questions"),
        ("cut-train", "truncated"),
        ("lines-train", "truncated"),
        ("empty-test", "no questions"),
    ],
)
def test_trec_empty_or_truncated_split_is_an_error(
    run: Runner, data_dir: Path, tmp_path: Path, case: str, problem: str, policy: str
) -> None:
    train = (data_dir / "trec/train_5500.label").read_bytes()
    made = {
        "empty-train": (b"", None),
        "blank-train": (b"\n\n\n", None),
        "cut-train": (train[: len(train) // 3], None),
        "lines-train": (b"".join(train.splitlines(keepends=True)[:2000]), None),
        "empty-test": (train, b""),
    }[case]
    folder = trec_folder(data_dir, tmp_path, *made)
    err = run.refused("trec", folder, "--on-invalid", policy)
    name = "TREC_10.label" if case == "empty-test" else "train_5500.label"
    assert f"{folder / name}" in err and problem in err, err


def test_trec_label_set_that_is_not_the_standard_is_stated(
    run: Runner, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "trec"
    folder.mkdir()
    lines = (data_dir / "trec/train_5500.label").read_bytes().splitlines(keepends=True)
    (folder / "train_300.label").write_bytes(b"".join(lines[:300]))
    shutil.copy(data_dir / "trec/TREC_10.label", folder)
    out = run.built("trec", folder)
    data, body = read_readme(out / "README.md")
    fine = data["polyprobe"]["configs"]["fine"]["labels"]
    assert len(fine) < 50
    assert f"{len(fine)} of the standard 50" in body
    derived = data["polyprobe"]["profile"]["tasks"]["trec-fine"]
    assert len(derived["standard_labels_missing"]) == 50 - len(fine)
    assert "standard_labels_missing" not in data["polyprobe"]["profile"]["tasks"]["trec-coarse"]


# ---------------------------------------------------------------- 4. whole-file failures


def ewt_with_bad_dev(ud_dir: Path, tmp_path: Path, name: str, data: bytes) -> Path:
    tb = tmp_path / "UD_English-EWTbad"
    tb.mkdir()
    (tb / name).write_bytes(data)
    shutil.copy(ud_dir / "UD_English-EWT/en_ewt-ud-test.conllu", tb)
    return tb


def _truncated(dev: bytes) -> bytes:
    gz = gzip.compress(dev, mtime=0)
    return gz[: len(gz) // 2]


def _corrupt(dev: bytes) -> bytes:
    gz = bytearray(gzip.compress(dev, mtime=0))
    for i in range(len(gz) // 2, len(gz) // 2 + 64):
        gz[i] ^= 0x5A
    return bytes(gz)


WHOLE_FILE = {
    "truncated-gzip": ("en_ewt-ud-dev.conllu.gz", _truncated, "truncated gzip"),
    "corrupt-gzip": ("en_ewt-ud-dev.conllu.gz", _corrupt, "gzip"),
    "utf-16": ("en_ewt-ud-dev.conllu", lambda d: d.decode().encode("utf-16"), "UTF-16"),
    "bzip2": ("en_ewt-ud-dev.conllu", bz2.compress, "bzip2"),
}


@pytest.mark.parametrize("case", sorted(WHOLE_FILE))
def test_whole_file_failure_is_fatal_under_skip(
    run: Runner, ud_dir: Path, tmp_path: Path, case: str
) -> None:
    name, make, problem = WHOLE_FILE[case]
    dev = (ud_dir / "UD_English-EWT/en_ewt-ud-dev.conllu").read_bytes()
    tb = ewt_with_bad_dev(ud_dir, tmp_path, name, make(dev))
    err = run.refused(
        "ud", tb, "--lang", "en", "--tasks", "sentence_length", "--on-invalid", "skip"
    )
    assert f"{tb / name}" in err and problem in err, err


# ---------------------------------------------------------------- 5. control characters


def gsd_with(ud_dir: Path, tmp_path: Path, char: str) -> tuple[Path, Path, int]:
    tb = copy_treebank(ud_dir / GSD, tmp_path / "UD_German-GSDctl")
    dev = tb / "de_gsd-ud-dev.conllu"
    lines = dev.read_text(encoding="utf-8").split("\n")
    number = next(i for i, line in enumerate(lines) if i > 100 and line[:1].isdigit())
    cols = lines[number].split("\t")
    cols[1] = cols[1][:1] + char + cols[1][1:]
    lines[number] = "\t".join(cols)
    dev.write_bytes("\n".join(lines).encode("utf-8"))
    return tb, dev, number + 1


@pytest.mark.parametrize("case", sorted(C0_CASES))
def test_control_character_in_a_token_is_refused(
    run: Runner, ud_dir: Path, tmp_path: Path, case: str
) -> None:
    char = C0_CASES[case]
    tb, dev, line = gsd_with(ud_dir, tmp_path, char)
    err = run.refused("ud", tb, "--lang", "de", "--tasks", "sentence_length")
    assert err.startswith(f"polyprobe: error: {dev}:{line}: control character"), err
    assert f"U+{ord(char):04X}" in err and "FORM" in err
    out = run.built("ud", tb, "--lang", "de", "--tasks", "sentence_length", "--on-invalid", "skip")
    assert card(out)["skipped_invalid"] == {"control-character": 1}
    for f in out.rglob("*.parquet"):
        assert char not in json.dumps(pq.read_table(f).to_pylist(), ensure_ascii=False)


def test_control_character_in_trec_and_unimorph(
    run: Runner, data_dir: Path, tmp_path: Path
) -> None:
    train = (data_dir / "trec/train_5500.label").read_bytes().replace(b"What is", b"What\x01is", 1)
    folder = trec_folder(data_dir, tmp_path, train)
    line = train[: train.index(b"\x01")].count(b"\n") + 1
    err = run.refused("trec", folder)
    assert f"{folder / 'train_5500.label'}:{line}: control character U+0001" in err, err
    out = run.built("trec", folder, "--on-invalid", "skip")
    assert card(out)["skipped_invalid"] == {"control-character": 1}

    lexicon = tmp_path / "um" / "german-train-high"
    lexicon.parent.mkdir()
    raw = (data_dir / "unimorph/sigmorphon2018/german-train-high").read_bytes()
    lines = raw.split(b"\n")
    lines[4999] = lines[4999].replace(b"\t", b"\x00\t", 1)
    lexicon.write_bytes(b"\n".join(lines))
    err = run.refused("unimorph", lexicon, "--lang", "de", "--tasks", "number", "--scale")
    assert f"{lexicon}:5000: control character U+0000" in err, err
