"""Frequency lists counted on a Wikipedia dump, through ``--frequencies`` and the
``polyprobe frequencies`` command."""

from __future__ import annotations

from pathlib import Path

from polyprobe.cli import main
from polyprobe.loaders.frequency import FrequencySource, from_word_list, load_frequencies
from polyprobe.loaders.source import InvalidPolicy

BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def test_dump_counts_as_a_frequency_source(data_dir: Path, tmp_path: Path) -> None:
    dump = data_dir / "wikipedia" / BG
    source = FrequencySource.from_path(dump)
    assert source.is_dump and not source.is_ud
    assert source.info.kind == "frequency-wikipedia"
    assert source.info.role == "reference"
    assert [d.tag for d in source.languages] == ["bg"]
    freq = source.frequency_list(InvalidPolicy())
    # "календар" (calendar): in the lead's first sentence three times, and throughout
    assert freq.count("календар") >= 20
    assert freq.rank("и") is not None and freq.rank("и") < 10  # "and": among the top 10
    assert freq.count(",") == 0  # punctuation is not a word
    assert freq.count("thumb") == 0  # file captions are not running text
    assert load_frequencies(dump).counts == freq.counts

    out = tmp_path / "bg-words.tsv"
    assert main(["frequencies", str(dump), "--out", str(out)]) == 0
    first = out.read_text(encoding="utf-8").splitlines()[0]
    word, count = first.split("\t")
    assert int(count) == max(freq.counts.values())
    assert from_word_list(out).counts == freq.counts
