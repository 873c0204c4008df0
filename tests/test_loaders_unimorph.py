"""UniMorph under the shared invalid-input policy, true line numbers, the column-order check,
and lexicon folders as sources (issue 13; issue 15 point 6).

Why: a malformed line must name its real line (it was reported ~100 lines early), a line in
the other column order must not publish ``V;V.PTCP;PRS`` as a word, and ``--on-invalid skip``
must mean for a lexicon what it means for a treebank. Test files are written to tmp_path
from the shared data, never committed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from polyprobe.errors import InputError
from polyprobe.loaders.source import FATAL_REASONS, InvalidPolicy
from polyprobe.loaders.unimorph import REASONS, UniMorphReader, read_unimorph
from polyprobe.loaders.unimorph_source import (
    UniMorphSource,
    lexicon_folders,
    read_lexicon,
    unimorph_sources,
)


@pytest.fixture(scope="module")
def german(data_dir: Path) -> Path:
    return data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"


def _copy_with(src: Path, dst: Path, changes: dict[int, bytes]) -> Path:
    """``src`` with the given 1-based lines replaced (bytes, so bad bytes can be injected)."""
    lines = src.read_bytes().split(b"\n")
    for number, new in changes.items():
        lines[number - 1] = new
    dst.write_bytes(b"\n".join(lines))
    return dst


def test_bad_byte_is_reported_on_its_true_line(german: Path, tmp_path: Path) -> None:
    # Line 5001 is "orgeln<TAB>orgelte<TAB>V;IND;PST;1;SG"; the text layer named line 4912.
    line = german.read_bytes().split(b"\n")[5000]
    assert line == b"orgeln\torgelte\tV;IND;PST;1;SG"
    bad = _copy_with(german, tmp_path / "german-bad", {5001: line.replace(b"te", b"t\xff")})
    with pytest.raises(InputError) as err:
        list(read_unimorph(bad))
    assert err.value.line == 5001 and err.value.reason == "bad-encoding"
    assert f"{bad}:5001: not UTF-8" in str(err.value)


def test_skip_policy_counts_and_reads_on(german: Path, tmp_path: Path) -> None:
    changes = {
        10: b"Hund\tHunde",  # two columns
        20: b"mulchen\tmulchend\tV;PTCP(PRS",  # unbalanced bundle
        30: b"\tstochernd\tV.PTCP;PRS",  # empty lemma
        5001: b"orgeln\torgel\xfft\tV;IND;PST;1;SG",
        7000: b"pennen\tV.PTCP;PRS\tpennend",  # the other column order
    }
    bad = _copy_with(german, tmp_path / "german-bad", changes)
    policy = InvalidPolicy("skip")
    reader = UniMorphReader(bad, dedupe=False, policy=policy)
    entries = list(reader)
    assert policy.skipped == {
        "bad-column-count": 1,
        "bad-features": 1,
        "empty-field": 1,
        "bad-encoding": 1,
        "column-order": 1,
    }
    assert set(policy.skipped) <= set(REASONS)
    assert len(entries) == 10000 - 5
    assert not {e.line for e in entries} & set(changes)
    # Entries around a skipped line keep the file's own line numbers.
    by_line = {e.line: e for e in entries}
    assert by_line[5000].form == "benahmen" and 5002 in by_line and 10000 in by_line


def test_column_order_line_is_rejected_with_file_and_line(german: Path, tmp_path: Path) -> None:
    # Line 20 is "mulchen<TAB>mulchend<TAB>V.PTCP;PRS"; put it in the 2023 order at line 5000,
    # far past the lines that decide the layout, so only the per-line check can see it.
    swapped = _copy_with(german, tmp_path / "swapped", {5000: b"mulchen\tV.PTCP;PRS\tmulchend"})
    with pytest.raises(InputError) as err:
        list(read_unimorph(swapped))
    assert err.value.reason == "column-order" and err.value.line == 5000
    message = str(err.value)
    assert message.startswith(f"{swapped}:5000: column 3 is not a UniMorph feature bundle")
    assert "'V.PTCP;PRS'" in message and "lemma-form-feats" in message


def test_column_order_in_a_2023_file(data_dir: Path, tmp_path: Path) -> None:
    src = data_dir / "unimorph" / "sigmorphon2023" / "deu.dev"
    first = src.read_bytes().split(b"\n")[0]
    assert first == b"Abmachung\tN;ACC(PL)\tAbmachungen"
    swapped = _copy_with(src, tmp_path / "deu.dev", {1: b"Abmachung\tAbmachungen\tN;ACC(PL)"})
    with pytest.raises(InputError) as err:
        list(read_unimorph(swapped, layout="sigmorphon2023"))
    assert (err.value.line, err.value.reason) == (1, "column-order")
    assert "column 2 is not a UniMorph feature bundle but column 3 is" in str(err.value)


def test_words_that_are_not_bundles_are_still_read(tmp_path: Path) -> None:
    # Neither column a bundle: not a column-order problem (unknown tags are counted instead).
    path = tmp_path / "x.tsv"
    path.write_text("walk\twalked\tV;PST\nwalk\twalks\tfoo\nwalk\twalker\tfoo\n", encoding="utf-8")
    reader = UniMorphReader(path, layout="unimorph")
    assert [e.unknown_tags for e in reader] == [(), ("foo",), ("foo",)]
    assert reader.stats.unknown_tags == {"foo": 2}


def test_whole_file_problems_raise_even_when_skipping(tmp_path: Path) -> None:
    bad = tmp_path / "mixed.tsv"
    bad.write_text("Hund\tHunde\tN;NOM;PL\nKatze\tN;NOM;PL\tKatzen\n", encoding="utf-8")
    policy = InvalidPolicy("skip")
    with pytest.raises(InputError) as err:
        list(read_unimorph(bad, policy=policy))
    assert err.value.reason == "ambiguous-layout" and err.value.reason in FATAL_REASONS
    assert not policy.skipped


def test_skipping_detection_ignores_malformed_lines(tmp_path: Path) -> None:
    path = tmp_path / "x.tsv"
    path.write_bytes(b"bad line\nHund\tHunde\tN;NOM;PL\nKatze\tKatzen\xff\tN;NOM;PL\n")
    policy = InvalidPolicy("skip")
    assert [e.form for e in read_unimorph(path, policy=policy)] == ["Hunde"]
    assert policy.skipped == {"bad-column-count": 1, "bad-encoding": 1}


def test_reasons_are_not_fatal_reasons() -> None:
    assert not set(REASONS) & set(FATAL_REASONS)


# ---------------------------------------------------------------------- lexicons as sources


def test_source_per_folder_named_as_cards_print_it(data_dir: Path) -> None:
    um = data_dir / "unimorph"
    files = [
        um / "sigmorphon2018" / "german-train-high",
        um / "sigmorphon2018" / "german-dev",
        um / "lexicons" / "eng",
    ]
    sources = unimorph_sources(files, lang="deu")
    assert [s.name for s in sources] == ["sigmorphon2018", "lexicons"]
    info = sources[0].info
    assert (info.kind, info.name, info.license, info.version) == (
        "unimorph",
        "sigmorphon2018",
        "unknown",
        "unknown",
    )
    assert info.files == [
        {"name": f.name, "sha256": hashlib.sha256(f.read_bytes()).hexdigest()} for f in files[:2]
    ]
    assert sources[0].lang == "deu" and sources[0].paths == tuple(files[:2])


def test_folders_sharing_a_name_get_their_parent(tmp_path: Path) -> None:
    for parent in ("a", "b"):
        (tmp_path / parent / "deu").mkdir(parents=True)
        (tmp_path / parent / "deu" / "x").write_text("Hund\tHunde\tN;NOM;PL\n", encoding="utf-8")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "y").write_text("Hund\tHunde\tN;NOM;PL\n", encoding="utf-8")
    files = [tmp_path / "a" / "deu" / "x", tmp_path / "c" / "y", tmp_path / "b" / "deu" / "x"]
    assert [name for name, _, _ in lexicon_folders(files)] == ["a/deu", "c", "b/deu"]


def test_license_override_by_source_or_file_name(data_dir: Path) -> None:
    path = data_dir / "unimorph" / "sigmorphon2018" / "german-dev"
    by_name = unimorph_sources([path], license_overrides={"sigmorphon2018": "CC BY-SA 3.0"})
    by_file = unimorph_sources([path], license_overrides={"german-dev": "CC BY-SA 3.0"})
    assert by_name[0].license == by_file[0].license == "CC-BY-SA-3.0"


def test_records_are_the_readers_entries(data_dir: Path) -> None:
    files = sorted((data_dir / "unimorph" / "sigmorphon2018").glob("german-*"))
    (source,) = unimorph_sources(files)
    assert isinstance(source, UniMorphSource)
    entries = list(source.records(InvalidPolicy()))
    assert entries == list(read_unimorph(files))
    assert source.stats.entries == len(entries) == 12000 - source.stats.duplicates


def test_read_lexicon_dedupes_across_sources(data_dir: Path, tmp_path: Path) -> None:
    german = data_dir / "unimorph" / "sigmorphon2018" / "german-dev"
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / "german-dev"
    copy.write_bytes(german.read_bytes())
    sources = unimorph_sources([german, copy])
    assert [s.name for s in sources] == ["sigmorphon2018", "copy"]
    reader = read_lexicon(sources, InvalidPolicy())
    entries = list(reader)
    assert entries == list(read_unimorph([german, copy]))
    alone = UniMorphReader(german)
    assert len(list(alone)) == len(entries)  # the copy adds nothing new
    assert reader.stats.duplicates == alone.stats.duplicates + 1000
    assert all(e.source == str(german) for e in entries)
