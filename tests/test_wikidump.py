"""The dump reader on the two shared dumps (English UTF-8 bz2, Bulgarian UTF-16-LE with a BOM)
and on broken inputs: compression by magic bytes, siteinfo namespaces, what is kept."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import pytest

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import compression_of
from polyprobe.loaders.wikidump import DumpReader, read_siteinfo

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


@pytest.fixture(scope="module")
def wiki(data_dir: Path) -> Path:
    return data_dir / "wikipedia"


def test_english_dump_pages_kept_and_skipped(wiki: Path) -> None:
    reader = DumpReader(wiki / EN)
    pages = list(reader.pages())
    # 206 pages: 1 outside namespace 0, 99 redirects, 106 articles kept
    assert dict(reader.stats) == {
        "pages": 206,
        "articles": 106,
        "redirect": 99,
        "other namespace": 1,
    }
    assert len(pages) == 106
    first = pages[0]
    assert (first.title, first.page_id, first.line) == ("Anarchism", "12", 68)
    assert first.text.startswith("{{Redirect2|Anarchist|Anarchists|")
    # AccessibleComputing (page 10) is a redirect: skipped
    assert "AccessibleComputing" not in {p.title for p in pages}


def test_bulgarian_utf16_dump_with_localised_namespaces(wiki: Path) -> None:
    raw = bz2.open(wiki / BG).read(2)
    assert raw == b"\xff\xfe"  # UTF-16-LE byte-order mark, no XML declaration
    site = read_siteinfo(wiki / BG)
    assert (site.dbname, site.lang) == ("bgwiki", "bg")
    assert site.namespaces[6] == "Файл"
    assert site.namespaces[14] == "Категория"
    reader = DumpReader(wiki / BG)
    pages = list(reader.pages())
    assert [p.title for p in pages] == ["Григориански календар"]
    assert len(pages[0].text) == 13790
    assert reader.stats["other namespace"] == 2


def test_compression_by_magic_bytes_not_by_name(wiki: Path, tmp_path: Path) -> None:
    xml = bz2.open(wiki / BG).read()
    gz = tmp_path / "dump.bz2"  # gzip content under a bz2 name
    gz.write_bytes(gzip.compress(xml))
    plain = tmp_path / "dump.gz"  # plain XML under a gzip name
    plain.write_bytes(xml)
    assert compression_of(gz) == "gzip"
    assert compression_of(plain) == "plain"
    for path in (gz, plain):
        assert [p.title for p in DumpReader(path).pages()] == ["Григориански календар"]


def test_last_revision_wins_and_utf8_declared(tmp_path: Path) -> None:
    xml = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<mediawiki xml:lang="de"><siteinfo>'
        '<namespaces><namespace key="6">Datei</namespace></namespaces></siteinfo>\n'
        "<page><title>Stra\xdfe</title><ns>0</ns><id>7</id>"
        "<revision><id>1</id><text>alt</text></revision>"
        "<revision><id>2</id><text>neu \xe4</text></revision></page></mediawiki>\n"
    ).encode("latin-1")
    path = tmp_path / "de.xml"
    path.write_bytes(xml)
    (page,) = DumpReader(path).pages()
    assert (page.title, page.text, page.revision_id, page.line) == ("Straße", "neu ä", "2", 3)
    assert read_siteinfo(path).namespaces == {6: "Datei"}


def test_malformed_xml_names_file_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "broken.xml"
    path.write_bytes(b"<mediawiki>\n<siteinfo></siteinfo>\n<page><title>A</title>\n</mediawiki>\n")
    with pytest.raises(InputError) as err:
        list(DumpReader(path).pages())
    assert err.value.line == 4
    assert str(err.value).startswith(f"{path}:4: malformed XML at line 4, column 2 (byte ")
    assert "mismatched tag" in str(err.value)


def test_not_a_dump_and_truncated_bz2(wiki: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.xml"
    other.write_bytes(b"<html><body/></html>")
    with pytest.raises(InputError, match="not a MediaWiki XML dump: the root element is <html>"):
        list(DumpReader(other).pages())
    cut = tmp_path / "cut.bz2"
    cut.write_bytes((wiki / BG).read_bytes()[:40_000])
    with pytest.raises(InputError, match="compressed stream ends early") as err:
        list(DumpReader(cut).pages())
    assert err.value.reason == "truncated-bz2" and err.value.path == str(cut)
    with pytest.raises(InputError, match="no such file"):
        list(DumpReader(tmp_path / "missing.bz2").pages())
