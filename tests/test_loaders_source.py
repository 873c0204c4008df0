"""The shared invalid-input policy and the Source protocol, on every kind of source.

Why: the build spine treats every input alike - one ``--on-invalid`` rule, one card entry
per source (kind, name, version, licence, a checksum per file) - so each source kind must
satisfy the protocol, and its card entry must be exactly what the cards have printed so far
(names and order of files included)."""

from __future__ import annotations

import collections
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders import conllu, frequency, trec, unimorph, wuggy
from polyprobe.loaders.frequency import FrequencySource, load_frequencies
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import FATAL_REASONS, InvalidPolicy, Source, file_entries
from polyprobe.loaders.sources import TreebankSource, discover, read_sources
from polyprobe.loaders.trec import TrecSource, read_trec_file
from polyprobe.loaders.unimorph_source import unimorph_sources
from polyprobe.loaders.wuggy import WuggyOutputSource, read_wuggy_output
from polyprobe.metadata import SourceInfo


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------- the policy


def test_policy_modes() -> None:
    with pytest.raises(UsageError, match="raise, skip"):
        InvalidPolicy("ignore")
    error = InputError("x.tsv", 3, "bad", "bad-count")
    with pytest.raises(InputError):
        InvalidPolicy("raise").reject(error)
    policy = InvalidPolicy("skip")
    policy.reject(error)
    policy.reject(error)
    assert policy.skipped == {"bad-count": 2} and policy.skip


@pytest.mark.parametrize("reason", sorted(FATAL_REASONS))
def test_whole_file_problems_are_never_skipped(reason: str) -> None:
    policy = InvalidPolicy("skip")
    with pytest.raises(InputError):
        policy.reject(InputError("x", None, "whole file", reason))
    assert not policy.skipped


def test_policy_can_count_into_a_given_counter() -> None:
    mine: collections.Counter[str] = collections.Counter()
    InvalidPolicy("skip", mine).reject(InputError("x", 1, "bad", "empty-field"))
    assert mine == {"empty-field": 1}


def test_conllu_keeps_exporting_the_fatal_reasons() -> None:
    assert conllu.FATAL_REASONS is FATAL_REASONS


@pytest.mark.parametrize("module", [conllu, unimorph, frequency, wuggy, trec])
def test_per_item_reasons_are_never_fatal(module: object) -> None:
    assert not set(module.REASONS) & set(FATAL_REASONS)  # type: ignore[attr-defined]


def test_file_entries_in_given_order(data_dir: Path) -> None:
    a = data_dir / "trec" / "TREC_10.label"
    b = data_dir / "trec" / "train_5500.label"
    assert file_entries([("test", a), ("sub/train", b)]) == [
        {"name": "test", "sha256": _sha(a)},
        {"name": "sub/train", "sha256": _sha(b)},
    ]


# ------------------------------------------------------------------------------ the protocol


def test_every_source_kind_satisfies_the_protocol(data_dir: Path) -> None:
    sources = [
        discover([data_dir / "ud" / "UD_German-GSD"])[0],
        unimorph_sources([data_dir / "unimorph" / "sigmorphon2018" / "german-dev"])[0],
        WuggyOutputSource.from_path(data_dir / "wuggy" / "outputs" / "ort_german"),
        FrequencySource.from_path(data_dir / "ud" / "UD_German-GSD"),
        TrecSource(data_dir / "trec"),
    ]
    policy = InvalidPolicy()
    for source in sources:
        assert isinstance(source, Source), type(source).__name__
        assert isinstance(source.info, SourceInfo) and source.info.name == source.name
        assert next(iter(source.records(policy))) is not None
    assert not isinstance(object(), Source)


# -------------------------------------------------------------------------------- treebanks


def test_treebank_info_files_are_its_checksums_sorted(data_dir: Path) -> None:
    ewt = data_dir / "ud" / "UD_English-EWT"
    (src,) = discover([ewt])
    info = src.info
    assert info.kind == "ud-treebank" and info.name == "UD_English-EWT"
    assert (info.license, info.version) == (src.license, src.version)
    assert info.license == "CC-BY-SA-4.0"
    assert info.files == [{"name": n, "sha256": c} for n, c in sorted(src.checksums.items())]
    assert [f["name"] for f in info.files] == [
        "en_ewt-ud-dev.conllu",
        "en_ewt-ud-test.conllu",
        "en_ewt-ud-train.conllu.gz",
    ]
    assert info.files[2]["sha256"] == _sha(ewt / "en_ewt-ud-train.conllu.gz")  # as stored


def test_treebank_records_in_read_sources_order(data_dir: Path) -> None:
    (src,) = discover([data_dir / "ud" / "UD_German-GSD"])
    got = [(s.source.split, s.sent_id) for s in src.records(InvalidPolicy())]
    assert got == [(s.source.split, s.sent_id) for s in read_sources([src])]
    assert got[0][0] == "dev" and got[-1][0] == "test" and len(got) == 799 + 977


BROKEN_TREEBANK = (
    "# sent_id = a\n1\tHund\tHund\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
    "# sent_id = b\n1\tKatze\tKatze\tNOUN\t_\t_\t2\troot\t_\t_\n\n"  # head past the end
    "# sent_id = c\n1\tMaus\tMaus\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
)


def test_treebank_records_under_the_skip_policy(tmp_path: Path) -> None:
    (tmp_path / "xx-ud-test.conllu").write_text(BROKEN_TREEBANK, encoding="utf-8")
    (src,) = discover([tmp_path])
    policy = InvalidPolicy("skip")
    assert [s.sent_id for s in src.records(policy)] == ["a", "c"]
    assert policy.skipped == {"head-out-of-range": 1}
    with pytest.raises(InputError) as err:
        list(src.records(InvalidPolicy("raise")))
    assert err.value.line == 5


def test_read_sources_takes_a_policy_or_the_old_arguments(tmp_path: Path) -> None:
    (tmp_path / "xx-ud-test.conllu").write_text(BROKEN_TREEBANK, encoding="utf-8")
    sources = discover([tmp_path])
    old: collections.Counter[str] = collections.Counter()
    assert len(list(read_sources(sources, on_invalid="skip", skipped=old))) == 2
    policy = InvalidPolicy("skip")
    assert len(list(read_sources(sources, policy=policy))) == 2
    assert old == policy.skipped == {"head-out-of-range": 1}
    with pytest.raises(UsageError, match="not both"):
        list(read_sources(sources, on_invalid="skip", policy=policy))
    with pytest.raises(UsageError):
        list(read_sources(sources, on_invalid="ignore"))


def test_treebank_source_is_still_a_plain_dataclass(data_dir: Path) -> None:
    (src,) = discover([data_dir / "ud" / "UD_German-GSD"])
    assert isinstance(src, TreebankSource) and src.splits == {"dev", "test"}


# ------------------------------------------------------------------------- frequency lists


def test_frequency_ud_folder_info_names_files_relative_to_it(data_dir: Path) -> None:
    folder = data_dir / "ud" / "UD_German-GSD"
    src = FrequencySource.from_path(folder)
    info = src.info
    assert (info.kind, info.name, info.license) == ("frequency-ud", "UD_German-GSD", "CC-BY-SA-4.0")
    # As the word build has printed them: relative to the folder, in counting order.
    flist = load_frequencies([folder])
    assert info.files == [
        {"name": Path(p).relative_to(folder).as_posix(), "sha256": flist.checksums[p]}
        for p in flist.sources
    ]
    assert [f["name"] for f in info.files] == ["de_gsd-ud-dev.conllu", "de_gsd-ud-test.conllu"]
    records = list(src.records(InvalidPolicy()))
    assert records[:3] == [(".", 1506), (",", 1209), ("die", 846)]
    assert dict(records) == src.frequency_list(InvalidPolicy()).counts == flist.counts


def test_frequency_single_conllu_file_and_word_list(data_dir: Path, tmp_path: Path) -> None:
    dev = data_dir / "ud" / "UD_German-GSD" / "de_gsd-ud-dev.conllu"
    info = FrequencySource.from_path(dev).info
    assert info.kind == "frequency-ud" and info.files == [{"name": dev.name, "sha256": _sha(dev)}]
    words = tmp_path / "words.txt"
    words.write_text("the\nof\nand\n", encoding="utf-8")
    src = FrequencySource.from_path(words)
    assert src.info.kind == "frequency-list" and src.info.name == "words.txt"
    assert list(src.records(InvalidPolicy())) == [("the", 3), ("of", 2), ("and", 1)]


def test_frequency_skip_policy(tmp_path: Path) -> None:
    counts = tmp_path / "counts.tsv"
    counts.write_bytes(b"Haus\t5\nBaum\tx\nW\xfcrde\t3\nBaum\t9\n\t4\nHaus\t-1\n")
    with pytest.raises(InputError) as err:
        FrequencySource(counts).frequency_list(InvalidPolicy())
    assert (err.value.line, err.value.reason) == (2, "bad-count")
    policy = InvalidPolicy("skip")
    flist = FrequencySource(counts).frequency_list(policy)
    assert flist.counts == {"haus": 5, "baum": 9}
    assert policy.skipped == {"bad-count": 2, "bad-encoding": 1, "empty-field": 1}
    mixed = tmp_path / "mixed.tsv"
    mixed.write_text("a\t1\nb\n", encoding="utf-8")
    with pytest.raises(InputError, match="mixes"):  # a whole-file problem: never skipped
        FrequencySource(mixed).frequency_list(InvalidPolicy("skip"))


# --------------------------------------------------------------------------- wuggy tables


def test_wuggy_output_source(data_dir: Path) -> None:
    path = data_dir / "wuggy" / "outputs" / "ort_german"
    src = WuggyOutputSource.from_path(path, license_override="Apache 2.0")
    info = src.info
    assert (info.kind, info.name, info.license) == ("wuggy-output", "ort_german", "Apache-2.0")
    assert info.files == [{"name": "ort_german", "sha256": _sha(path)}]
    rows = list(src.records(InvalidPolicy()))
    assert rows == read_wuggy_output(path).rows
    # Line 2 of the table: "in<TAB>än<TAB>N<TAB>1.85 ...".
    assert (rows[0].seed, rows[0].pseudoword, rows[0].lexicality, rows[0].line) == (
        "in",
        "än",
        "N",
        2,
    )


def test_wuggy_skip_policy(tmp_path: Path) -> None:
    path = tmp_path / "table"
    path.write_bytes(b"Word\tMatch\tLexicality\nin\t\xe4n\tN\nin\ten\nan\t\tN\nin\tun\tN\n")
    with pytest.raises(InputError) as err:
        read_wuggy_output(path)
    assert (err.value.line, err.value.reason) == (2, "bad-encoding")
    policy = InvalidPolicy("skip")
    assert [r.line for r in WuggyOutputSource(path).records(policy)] == [5]
    assert policy.skipped == {"bad-encoding": 1, "bad-column-count": 1, "empty-field": 1}
    path.write_text("Seed\tPseudo\nx\ty\n", encoding="utf-8")
    with pytest.raises(InputError, match="Word<TAB>Match"):
        read_wuggy_output(path, InvalidPolicy("skip"))


# --------------------------------------------------------------------------------- TREC


def test_trec_source_info(data_dir: Path) -> None:
    folder = data_dir / "trec"
    info = TrecSource(folder, source_version="qnn@77f54937").info
    assert (info.kind, info.name, info.version, info.license) == (
        "trec",
        "TREC",
        "qnn@77f54937",
        "unknown",
    )
    assert info.files == [
        {"name": "train_5500.label", "sha256": _sha(folder / "train_5500.label")},
        {"name": "TREC_10.label", "sha256": _sha(folder / "TREC_10.label")},
    ]
    assert TrecSource(folder).info.version == "unknown"


def test_trec_examples_by_line(data_dir: Path) -> None:
    folder = data_dir / "trec"
    examples = {e.id: e for e in TrecSource(folder).records(InvalidPolicy())}
    assert len(examples) == 5452 + 500
    # train_5500.label line 66 is ISO-8859-1: "LOC:city Which city has the oldest
    # relationship as a sister<0xF0>city with Los Angeles ?".
    assert examples["train/66"] == Example(
        id="train/66",
        inputs=("Which city has the oldest relationship as a sisterðcity with Los Angeles ?",),
        kind="text",
        label="LOC:city",
        score=None,
        source=SourceFile("trec", str(folder / "train_5500.label"), "train"),
        line=66,
    )
    # TREC_10.label line 2: "LOC:city What county is Modesto , California in ?".
    test2 = examples["test/2"]
    assert test2.inputs == ("What county is Modesto , California in ?",)
    assert test2.label == "LOC:city" and test2.source.split == "test" and test2.line == 2
    first = next(iter(examples.values()))
    assert first.id == "train/1" and first.label == "DESC:manner"


def test_trec_skip_policy_counts_by_reason(tmp_path: Path) -> None:
    (tmp_path / "train_10.label").write_text(
        "DESC:manner How ?\nFOO:bar What ?\n\nHUM:ind\nNUM:date When ?\n", encoding="ascii"
    )
    # Not named TREC_10.label: a file of that name must have the distributed 500 lines.
    (tmp_path / "test.label").write_text("LOC:city Where ?\nnolabel here\n", encoding="ascii")
    paths = {"train": tmp_path / "train_10.label", "test": tmp_path / "test.label"}
    src = TrecSource(tmp_path, paths=paths)
    with pytest.raises(InputError) as err:
        list(src.records(InvalidPolicy()))
    assert (err.value.line, err.value.reason) == (2, "unknown-coarse-label")
    policy = InvalidPolicy("skip")
    assert [e.id for e in src.records(policy)] == ["train/1", "train/5", "test/1"]
    assert policy.skipped == {
        "unknown-coarse-label": 1,
        "blank-line": 1,
        "no-question": 1,
        "bad-label": 1,
    }
    # The older per-file API keeps its own per-file counts.
    assert read_trec_file(tmp_path / "test.label", on_invalid="skip").skipped == {"bad-label": 1}


def test_loaders_stay_light_to_import() -> None:
    # The command line sizes a build through loaders.sources before numpy is imported, so
    # that workers start while it loads; no loader module on that path may pull numpy in.
    code = (
        "import sys\n"
        "import polyprobe.loaders.sources, polyprobe.loaders.unimorph, polyprobe.loaders.trec\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
