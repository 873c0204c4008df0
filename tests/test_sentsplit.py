"""``polyprobe.loaders.sentsplit`` against segtok's ``split_single``: the same sentences on
every paragraph of both shared dumps and on abbreviation cases written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from segtok.segmenter import split_single

from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.sentsplit import SegtokSplitter, splitter
from polyprobe.loaders.wikidump import DumpReader
from polyprobe.loaders.wikisource import WikiDumpSource
from polyprobe.loaders.wikitext import WikitextCleaner

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


@pytest.mark.parametrize("name", [EN, BG])
def test_same_sentences_as_segtok_on_every_paragraph(data_dir: Path, name: str) -> None:
    path = data_dir / "wikipedia" / name
    cleaner = WikitextCleaner(WikiDumpSource(path, segmenter=None).hidden_namespaces())  # type: ignore[arg-type]
    ours = SegtokSplitter()
    paragraphs = [
        p.text for page in DumpReader(path).pages() for p in cleaner.paragraphs(page.text)
    ]
    sentences = 0
    for paragraph in paragraphs:
        found = ours(paragraph)
        assert found == split_single(paragraph), paragraph[:80]
        sentences += len(found)
    assert sentences > len(paragraphs)  # English: ~18,000 sentences in ~5,000 paragraphs


CASES = [
    "Dr. Smith met Mr. Jones at 5 p.m. on Jan. 3. They talked.",
    "See e.g. the U.S. report (vol. 2, p. 4). It was long. Prof. X agreed.",
    "He was born on 12. Mai 1990 in Berlin. Das ist z.B. wahr.",
    "A. B. Smith and J. R. R. Tolkien wrote. Then Captain A. Haddock sailed.",
    "1. First item. 2. Second item.\nA new line. And (a bracket. Inside it.) ends.",
    'Quotes: "He left." She stayed! Why? Because [see ref. 3] it rained.',
    "Smith et al. (2001) said so. The end",
    "x.",
    "",
    "Это т.е. пример. Второе предложение.",
    # lower-case continuations (segtok's BEFORE_LOWER: a quote or bracket after the terminal,
    # "spp.", a one-letter abbreviation), and their upper-case counterparts
    'He shouted "Stop." and ran. Then "Go." Then (it ended.) and more. (It ended.) More.',
    "Many Quercus spp. are oaks. Some spp. Are not. Anne B. said no. The U. was gone.",
    "Line one ended.\n and the next starts low. x. y. z.",
]


@pytest.mark.parametrize("text", CASES)
def test_same_sentences_as_segtok_on_abbreviations(text: str) -> None:
    assert SegtokSplitter()(text) == split_single(text)


def test_segmenter_uses_it() -> None:
    assert isinstance(splitter(), SegtokSplitter)  # segtok 1.5, the release it follows
    assert Segmenter("en", tokenizer="segtok").split("Dr. Who came. He left.") == [
        "Dr. Who came.",
        "He left.",
    ]
