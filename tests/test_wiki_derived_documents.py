"""Documents made from the sentence stream's records (``SentenceDocuments``) equal the
documents read from the source (``RawDocumentSource``) on both shared dumps, and a build
that runs sentence and document tasks in one process reads the shard tables once per pass
for both, with the same bytes as the two streams reading on their own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from polyprobe import build_wiki
from polyprobe.builders.records import rawdocuments
from polyprobe.builders.records.rawdocuments import RawDocumentSource, SentenceDocuments
from polyprobe.builders.records.rawtext import SentenceFilter, TextRecords
from polyprobe.builders.records.shards import TokenizedSource, plan_shards, tokenize_shard
from polyprobe.loaders.records import Document
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.wikisource import WikiDumpSource

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def _tokenized(dump: Path, lang: str, folder: Path) -> TokenizedSource:
    segmenter = Segmenter(lang)
    source = WikiDumpSource(dump, segmenter)
    tasks = plan_shards([source], segmenter, 2, folder)[0]
    for task in tasks:
        tokenize_shard(task)
    return TokenizedSource.of(source, tasks)


def _derived(family: TextRecords, skipped: Counter[str]) -> list[Document]:
    grouper = SentenceDocuments()
    out = [d for s in family.records("raise", skipped) for d in grouper.push(s)]
    return out + grouper.close()


@pytest.mark.parametrize(("name", "lang"), [(EN, "en"), (BG, "bg")])
def test_documents_from_sentences_equal_documents_read(
    data_dir: Path, tmp_path: Path, name: str, lang: str
) -> None:
    source = _tokenized(data_dir / "wikipedia" / name, lang, tmp_path)
    keep = SentenceFilter()
    family = TextRecords(sources=(source,), sentence_filter=keep)
    read_counts: Counter[str] = Counter()
    read = list(RawDocumentSource(source, keep).records(InvalidPolicy("raise", read_counts)))
    derived_counts: Counter[str] = Counter()
    derived = _derived(family, derived_counts)
    assert derived == read  # every field: units, ids, breaks, sections, paragraphs, line
    assert derived_counts == read_counts  # the same drops, by reason
    assert len(read) >= (100 if lang == "en" else 1)  # the Bulgarian excerpt: one article
    # the cases the rule is about occur: breaks, paragraph openings, sections
    assert any(d.breaks for d in read)
    assert any(d.paragraphs for d in read)
    assert any(d.sections for d in read)
    assert rawdocuments.derivable(family, [source])
    assert not rawdocuments.derivable(
        TextRecords(**{**family.__dict__, "exclude": frozenset({1})}), [source]
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_one_reading_per_pass_same_bytes(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dump = data_dir / "wikipedia" / EN
    tasks = ["sentence_length", "sentence_position", "sentence_section"]
    calls = Counter[str]()
    original = RawDocumentSource.records

    def counted(self: RawDocumentSource, policy: InvalidPolicy):  # type: ignore[no-untyped-def]
        calls["read"] += 1
        return original(self, policy)

    monkeypatch.setattr(RawDocumentSource, "records", counted)
    kw = {
        "lang": "en",
        "tasks": tasks,
        "jobs": 1,
        "shards": 2,
        "shard_cache": tmp_path / "tables",  # the second build reuses the first's tables
    }
    build_wiki([dump], out=tmp_path / "derived", **kw)  # type: ignore[arg-type]
    assert calls["read"] == 0  # the documents came from the sentence stream's readings
    monkeypatch.setattr(rawdocuments, "derivable", lambda *_: False)
    build_wiki([dump], out=tmp_path / "read", **kw)  # type: ignore[arg-type]
    assert calls["read"] == 2  # the document stream read the tables itself, in both passes
    derived, read = _files(tmp_path / "derived"), _files(tmp_path / "read")
    configs = {k.split("/")[1] for k in derived if k.startswith("data/")}
    assert {"sentence_position", "sentence_section", "sentence_length"} <= configs
    assert derived == read
    # two workers: the streams' tasks may land in different processes (each then reads)
    monkeypatch.undo()
    build_wiki([dump], out=tmp_path / "two", **{**kw, "jobs": 2})  # type: ignore[arg-type]
    assert _files(tmp_path / "two") == derived


def test_upos_memo_is_guess_upos_and_stays_bounded() -> None:
    from polyprobe.loaders.raw_records import UposGuesser, guess_upos

    nouns = frozenset({"cat"})
    guesser = UposGuesser(nouns, limit=3)
    forms = ["The", "cat", "sat", ",", "42", "$", "cat", "€5", "the", ".", "Cat"]
    for _ in range(2):  # once filling the memo, once reading it
        assert guesser.forms(forms) == [guess_upos(f, nouns) for f in forms]
        assert len(guesser.memo) <= 3 + len(forms)
