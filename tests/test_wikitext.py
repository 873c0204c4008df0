"""The wikitext cleaner and the segmenter, hand-checked on named pages of the shared dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.loaders.rawtext import sentence_drop
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikidump import DumpReader
from polyprobe.loaders.wikisource import WikiDumpSource
from polyprobe.loaders.wikitext import HOLE_TEMPLATE, WikitextCleaner, prestrip

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def _page(path: Path, title: str) -> str:
    return next(p.text for p in DumpReader(path).pages() if p.title == title)


@pytest.fixture(scope="module")
def anarchism(data_dir: Path) -> list:
    """The article Anarchism (page 12), cleaned and split."""
    source = WikiDumpSource(data_dir / "wikipedia" / EN, Segmenter("en"))
    return next(iter(source.documents())).sentences


def test_link_label_kept_and_refs_dropped(anarchism: list) -> None:
    # wikitext: '''Anarchism''' is a [[political philosophy]] that advocates
    #   [[self-governance|self-governed]] societies based on voluntary institutions.
    #   These are often described as [[stateless society|stateless societies]],<ref>"ANARCHISM,
    #   a social philosophy ...</ref><ref>...</ref> although several authors ...
    first, second = anarchism[0], anarchism[1]
    assert first.text == (
        "Anarchism is a political philosophy that advocates self-governed societies based on "
        "voluntary institutions."
    )
    assert (first.section, first.dropped) == (None, None)  # lead section: title None
    assert second.text.startswith(
        "These are often described as stateless societies, although several authors"
    )
    assert "ANARCHISM, a social philosophy" not in " ".join(s.text for s in anarchism)


def test_template_hole_sentence_dropped_with_reason(anarchism: list) -> None:
    # ... derived respectively from the Greek {{lang|grc|ἀναρχία}}, i.e. "anarchy" ...
    etymology = next(s for s in anarchism if s.text.startswith("The term anarchism is a compound"))
    assert etymology.dropped == "template inside the sentence"
    assert etymology.section == "Etymology and terminology"
    assert HOLE_TEMPLATE in etymology.text
    following = anarchism[anarchism.index(etymology) + 1]
    assert following.text == "The first known use of this word was in 1539."
    assert following.dropped is None


def test_localised_category_and_file_links_dropped(data_dir: Path) -> None:
    path = data_dir / "wikipedia" / BG
    text = _page(path, "Григориански календар")
    assert "[[Категория:Календари]]" in text
    assert "[[File:Gregory XIII.jpg|thumb|[[Папа]] [[Григорий XIII]]]]" in text
    source = WikiDumpSource(path, Segmenter("bg"))
    cleaner = WikitextCleaner(source.hidden_namespaces())
    assert {"Файл", "Категория", "Медия"} <= set(source.hidden_namespaces())
    paragraphs = cleaner.paragraphs(text)
    joined = "\n".join(p.text for p in paragraphs)
    assert "Календари" not in joined  # the localised category link
    assert "thumb" not in joined and "Папа Григорий XIII" not in joined  # the File captions
    assert paragraphs[0].text.startswith(
        "Григорианският календар (понякога наричан и Грегориански календар, „нов стил“) е "
        "съвременният международно признат светски календар, на който се основава и "
        "международният стандарт ISO 8601."
    )
    # Without the dump's own namespace names the category link would show as text.
    assert "Календари" in "\n".join(p.text for p in WikitextCleaner(()).paragraphs(text))
    titles = {p.section for p in paragraphs}
    assert None in titles and "Описание" in titles


def test_cleaner_rules_on_small_wikitext() -> None:
    cleaner = WikitextCleaner(("Datei",))
    text = (
        "{{Infobox|a=b}}\n'''Foo''' is a [[bar (city)|baz]] city.<ref name=x>note</ref> "
        "It was [[:Category:Cities|listed]].{{citation needed|date=2020}}\n"
        "[[Datei:X.jpg|thumb|caption]]\n* a list item\n\n== History ==\n"
        "It has <math>x^2</math> here. It has {{convert|3|km}} there.\n"
        "{| class=wikitable\n| cell text\n|}\n"
    )
    paragraphs = cleaner.paragraphs(text)
    assert [(p.section, p.text) for p in paragraphs] == [
        (None, "Foo is a baz city. It was listed."),
        ("History", "It has \ue001 here. It has \ue000 there."),
    ]
    assert cleaner.drops == {"list item": 1, "template-only line": 1}
    assert sentence_drop("It has \ue001 here.") == "formula inside the sentence"
    assert sentence_drop("A [[broken link here.") == "markup left in the sentence"
    assert prestrip("a {{x|{{y}}}} b {{{1}}} c<!-- d -->") == "a \ue000 b \ue002 c"


def test_segmenter_tokens_and_fallbacks() -> None:
    en = Segmenter("en")
    assert en.split('Dr. Smith went to Washington. He said: "Hi!" Fine') == [
        "Dr. Smith went to Washington.",
        'He said: "Hi!"',
        "Fine",
    ]
    assert en.tokens("He didn't go  (really).") == [
        ("He", True),
        ("did", False),
        ("n't", True),
        ("go", True),
        ("(", False),
        ("really", False),
        (")", False),
        (".", False),
    ]
    segtok = Segmenter("en", tokenizer="segtok")
    assert [f for f, _ in segtok.tokens("He didn't go.")] == ["He", "did", "n't", "go", "."]
    # Georgian: spaCy has no module; xx plus the Georgian suffix rule splits the final stop
    ka = Segmenter("ka")
    assert ka.tokens("ეს არის ტექსტი.") == [
        ("ეს", True),
        ("არის", True),
        ("ტექსტი", False),
        (".", False),
    ]
    described = ka.describe()
    assert described["tokens"]["spacy_lang"] == "xx"
    assert "Georgian" in described["tokens"]["script_suffix_rules"]
    assert described["sentences"]["name"] == "segtok split_single"
    assert described["sentences"]["version"]


def test_absent_spacy_pipeline_is_one_clear_line() -> None:
    from polyprobe.errors import UsageError

    segmenter = Segmenter("en", tokenizer="en_core_web_sm_absent")
    with pytest.raises(UsageError, match="never downloads models") as err:
        segmenter.tokens("A sentence.")
    assert "\n" not in str(err.value)


def test_line_rules_equal_the_regex_and_translate_rules() -> None:
    """The paragraph step's two string shortcuts give what the rules they replace give, on
    random lines over the characters that matter (spaces of every kind, holes, list marks,
    punctuation the bare-line test strips, letters): spaces collapsed by ``str`` methods as
    ``_SPACES.sub`` (up to spaces at the ends, which the caller strips), and a line with
    nothing but holes and markup found by ``str.strip`` as by ``translate`` then ``strip``."""
    import random

    from polyprobe.loaders import wikitext

    alphabet = " \t\u00a0\u2009\u202f\u2003\n.,;:()[]{}|-–—ab\ue000\ue001\ue002\ue003"
    rng = random.Random(17)
    for _ in range(20_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert wikitext._single_spaces(line).strip() == wikitext._SPACES.sub(" ", line).strip(), (
            repr(line)
        )
        old_bare = line.translate(wikitext._STRIP_HOLES).strip(" .,;:()[]{}|-–—\u00a0")
        assert (not line.strip(wikitext._MARKS_AND_MARKUP)) == (not old_bare), repr(line)
