"""The cleaner's walk over mwparserfromhell's tokens (``WikitextCleaner.paragraphs``) against
the walk over the library's parsed tree (``paragraphs_tree``): the same paragraphs and the
same drop counts, page by page over both shared dumps and on hand-written shapes the fast
path reads itself or hands back to the library."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.loaders.wikidump import DumpReader
from polyprobe.loaders.wikisource import WikiDumpSource
from polyprobe.loaders.wikitext import WikitextCleaner

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


@pytest.mark.parametrize("name", [EN, BG])
def test_token_walk_equals_tree_walk_on_every_page(data_dir: Path, name: str) -> None:
    path = data_dir / "wikipedia" / name
    source = WikiDumpSource(path, segmenter=None)  # type: ignore[arg-type]
    hidden = source.hidden_namespaces()
    fast, tree = WikitextCleaner(hidden), WikitextCleaner(hidden)
    pages = list(DumpReader(path).pages())
    assert pages  # 106 English articles, 1 Bulgarian
    paragraphs = 0
    for page in pages:
        found = fast.paragraphs(page.text)
        assert found == tree.paragraphs_tree(page.text), page.title
        paragraphs += len(found)
    assert fast.drops == tree.drops
    assert paragraphs > len(pages)


SHAPES = [
    # link labels, hidden links in English and localised names, visible category link
    "A [[Paris|the capital]] and [[Lyon]] [[File:X.jpg|thumb|caption]] [[:Category:Y]] end.",
    "Б [[Файл:Карта.png|мини|надпис]] и [[Категория:Календари]] край.",
    # a link title with an entity: the fast path hands the link to the library
    "See [[AT&amp;T|the firm]] and [[AT&amp;T]] here.",
    # entities, named and numeric, nowiki, br, hr
    "x &nbsp;y &#8212; z &#x2014; <nowiki>[[not a link]]</nowiki> a<br/>b\n----\nc.",
    # external links with and without a title, bare URL
    "Go [http://example.org the site] or [http://example.org] or http://example.org/x now.",
    # tags: dropped, formula, attributes holding markup, span contents walked
    'T <ref name="a">r</ref> <math>x^2</math> <span style="{{{1}}}">kept</span> '
    "<gallery>a.jpg</gallery> done.",
    # templates (hole, silent), parameters, comments
    "He {{convert|3|km}} went.{{citation needed}} {{{param}}} <!-- c --> x.",
    # headings at top level and nested in a tag, lists, tables
    "Lead.\n== Early [[life|years]] ==\nText.\n* item\n# item2\n; term\n: def\n"
    "{| class=x\n| cell\n|}\n<div>\n=== Inner ===\nin div</div>",
    # unbalanced markup left to the parser
    "Broken [[link and {{tpl and '''bold''' ''it'' </span> end.",
]


@pytest.mark.parametrize("text", SHAPES)
def test_token_walk_equals_tree_walk_on_shapes(text: str) -> None:
    hidden = ("Файл", "Категория")
    fast, tree = WikitextCleaner(hidden), WikitextCleaner(hidden)
    assert fast.paragraphs(text) == tree.paragraphs_tree(text)
    assert fast.drops == tree.drops
