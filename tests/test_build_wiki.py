"""End-to-end raw-text builds: both shared Wikipedia dumps and plain text → dataset folder →
``validate`` → ``datasets.load_dataset``; the card's segmentation and drop counts."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
import yaml

from polyprobe import build_text, build_wiki
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.segmentation import Segmenter
from polyprobe.loaders.wikisource import WikiDumpSource

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def _card(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1])


def test_bulgarian_utf16_dump_builds_validates_and_loads(
    data_dir: Path, tmp_path: Path, hf_offline: None
) -> None:
    result = build_wiki(
        [data_dir / "wikipedia" / BG],
        lang="bg",
        out=tmp_path / "bg",
        min_per_class=(0, 0, 0),
        balances=["natural"],
        tasks=["sentence_length", "bigram_shift"],
        jobs=1,
    )
    assert validate(result.out).ok
    ds = datasets.load_dataset(str(result.out), "sentence_length")
    rows = [r for split in ds.values() for r in split]
    first = next(r for r in rows if r["id"].startswith("bgwiki-latest-pages-articles-shortened/"))
    by_text = {r["sentence"]: r for r in rows}
    # The lead's first sentence: 31 tokens (spaCy bg: „ нов стил “ ) ... ISO 8601 .) -> 30-33
    lead = (
        "Григорианският календар (понякога наричан и Грегориански календар, „нов стил“) е "
        "съвременният международно признат светски календар, на който се основава и "
        "международният стандарт ISO 8601."
    )
    assert lead in by_text
    assert ds["train"].features["label"].int2str(by_text[lead]["label"]) == "30-33"
    assert by_text[lead]["id"] == ("bgwiki-latest-pages-articles-shortened/558/0/sentence_length/0")
    assert first["id"].count("/") == 4  # source / page id / sentence index / task / copy
    params = _card(result.out)["polyprobe"]["parameters"]
    assert params["sentences_dropped"]["template inside the sentence"] == 1
    assert params["pages"]["bgwiki-latest-pages-articles-shortened"] == {
        "articles": 1,
        "other namespace": 2,
        "pages": 3,
    }
    assert params["segmentation"]["tokens"]["spacy_lang"] == "bg"
    assert params["segmentation"]["sentences"]["name"] == "segtok split_single"


def test_english_dump_builds_with_card_counts(
    data_dir: Path, tmp_path: Path, hf_offline: None
) -> None:
    result = build_wiki(
        [data_dir / "wikipedia" / EN],
        lang="en",
        out=tmp_path / "en",
        tasks=["sentence_length"],
        balances=["natural"],
        jobs=1,
    )
    assert validate(result.out).ok
    ds = datasets.load_dataset(str(result.out), "sentence_length")
    assert sum(len(s) for s in ds.values()) > 3000
    texts = {r["sentence"] for s in ds.values() for r in s}
    assert (
        "Anarchism is a political philosophy that advocates self-governed societies based on "
        "voluntary institutions."
    ) in texts
    assert not any("The term anarchism is a compound word" in t for t in texts)
    assert not any(c in t for t in texts for c in "\ue000\ue001\ue002")
    params = _card(result.out)["polyprobe"]["parameters"]
    dropped = params["sentences_dropped"]
    assert dropped["template inside the sentence"] == 591
    assert dropped["formula inside the sentence"] == 47
    assert params["pages"][EN.removesuffix(".bz2")]["redirect"] == 99
    report = json.loads((result.out / "report.json").read_text())
    assert "sentence_length" in json.dumps(report)


def test_article_as_document_for_discourse_tasks(data_dir: Path) -> None:
    source = WikiDumpSource(data_dir / "wikipedia" / EN, Segmenter("en"))
    doc = next(iter(source.records(None)))  # type: ignore[arg-type]
    assert doc.doc_id == "12" and doc.unit == "sentence"
    assert doc.sections[0] is None  # the lead section
    assert "Etymology and terminology" in doc.sections
    assert len(doc.sections) == len(doc.units)
    assert not any(u.startswith("The term anarchism is a compound") for u in doc.units)


@pytest.fixture(scope="module")
def english_lines(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """900 kept sentences of the English dump, one per line (written at test time)."""
    source = WikiDumpSource(data_dir / "wikipedia" / EN, Segmenter("en"))
    lines: list[str] = []
    for doc in source.documents():
        lines.extend(s.text for s in doc.kept())
        if len(lines) >= 900:
            break
    folder = tmp_path_factory.mktemp("text")
    (folder / "corpus.txt").write_text("\n".join(lines[:900]) + "\n", encoding="utf-8")
    return folder


def test_text_lines_build_is_identical_for_1_and_2_jobs(
    english_lines: Path, tmp_path: Path, hf_offline: None
) -> None:
    common = {
        "lang": "en",
        "tasks": ["sentence_length", "bigram_shift", "word_content"],
        "min_per_class": (5, 2, 2),
    }
    one = build_text([english_lines], out=tmp_path / "one", jobs=1, **common)
    two = build_text([english_lines], out=tmp_path / "two", jobs=2, **common)
    assert one.fingerprint == two.fingerprint
    for f in sorted((tmp_path / "one").rglob("*.parquet")):
        assert f.read_bytes() == (tmp_path / "two" / f.relative_to(tmp_path / "one")).read_bytes()
    assert validate(one.out).ok
    ds = datasets.load_dataset(str(one.out), "bigram_shift")
    assert set(ds["train"].features["label"].names) == {"original", "inverted"}
    card = _card(one.out)
    assert card["polyprobe"]["parameters"]["layout"] == "lines"
    assert card["polyprobe"]["parameters"]["task_options"]["word_content"] == {"noun_share": 0.0}


def test_text_documents_layout_pairs_consecutive_sentences(
    english_lines: Path, tmp_path: Path
) -> None:
    """Blank-line-separated documents of 6 lines (paragraphs): end_of_sentence pairs
    sentences within a document, never across a blank line."""
    lines = (english_lines / "corpus.txt").read_text(encoding="utf-8").splitlines()
    docs = ["\n".join(lines[i : i + 6]) for i in range(0, len(lines), 6)]
    text = tmp_path / "docs.txt"
    text.write_text("\n\n".join(docs) + "\n", encoding="utf-8")
    result = build_text(
        [text],
        lang="en",
        out=tmp_path / "docs",
        layout="documents",
        tasks=["end_of_sentence"],
        min_per_class=(1, 1, 1),
        balances=["natural"],
    )
    summary = {t.task: t for t in result.tasks}["end_of_sentence"]
    assert summary.configs
    ds = datasets.load_dataset(str(result.out), "end_of_sentence")
    first_doc = " ".join(lines[:6]).lower()
    joined = [r["sentence"] for s in ds.values() for r in s]
    # every pair is two consecutive sentences of one document (lowercased, joined)
    assert all(r.count(" ") > 3 for r in joined)
    assert len(joined) <= len(lines) // 2 + 1
    assert first_doc  # the fixture is non-empty


def test_bad_text_input_names_file_and_line(tmp_path: Path) -> None:
    text = tmp_path / "bad.txt"
    text.write_bytes(b"A good line here.\nA bad \xff line.\n")
    with pytest.raises(InputError, match=r"bad\.txt:2: not UTF-8"):
        build_text([text], lang="en", out=tmp_path / "x", min_per_class=(0, 0, 0))
    with pytest.raises(UsageError, match="--layout must be one of lines, documents"):
        build_text([text], lang="en", out=tmp_path / "x", layout="pages")
    with pytest.raises(UsageError, match="raw text has no splits of its own"):
        build_text([text], lang="en", out=tmp_path / "x", split="ud")


def test_raw_subject_verb_agreement_hand_checked_rows(
    data_dir: Path, english_lines: Path, tmp_path: Path
) -> None:
    """Wehner's raw-text recipe with the shared English UniMorph lexicon and EWT's nouns."""
    result = build_text(
        [english_lines],
        lang="en",
        out=tmp_path / "sva",
        name="txt",  # the source name seeds the draws: the same as in the hand check
        tasks=["subject_verb_agreement"],
        unimorph=[data_dir / "unimorph" / "lexicons" / "eng"],
        noun_forms=[data_dir / "ud" / "UD_English-EWT"],
        min_per_class=(5, 2, 2),
        balances=["natural"],
    )
    assert validate(result.out).ok
    ds = datasets.load_dataset(str(result.out), "subject_verb_agreement")
    names = ds["train"].features["label"].names
    assert names == ["agree", "disagree"]
    rows = {r["id"].split("/")[1]: r for s in ds.values() for r in s}
    lines = (english_lines / "corpus.txt").read_text(encoding="utf-8").splitlines()

    def row(line: int) -> tuple[str, str]:
        r = rows[f"corpus.txt:{line}"]
        return names[r["label"]], r["sentence"]

    # line 677: "... albedo ... is 30 to 35% because of cloud cover, but widely varies locally"
    assert "but widely varies locally" in lines[676]
    label, sentence = row(677)
    assert label == "disagree"
    assert sentence == lines[676].replace("widely varies", "widely vary")
    # line 463: "... a litigation-funded study that has since been shown ..." -> "have"
    label, sentence = row(463)
    assert (label, sentence) == (
        "disagree",
        lines[462].replace("that has since", "that have since"),
    )
    # line 396: "It occurs four to five times more often in boys than girls." -> "It occur"
    assert row(396) == ("disagree", "It occur four to five times more often in boys than girls.")
    agree = [n for n, r in rows.items() if names[r["label"]] == "agree"]
    for name in agree:  # an agreeing row is the line unchanged
        assert rows[name]["sentence"] == lines[int(name.split(":")[1]) - 1]
    report = json.loads((result.out / "report.json").read_text())["subject_verb_agreement"]
    assert report["derived"]["excluded_forms"]["identical to the lemma"] == 19
    assert report["task_drops"]["several listed verb forms"] > 0


def test_raw_subject_verb_agreement_without_lexicon_is_infeasible(
    english_lines: Path, tmp_path: Path
) -> None:
    from polyprobe.errors import InfeasibleError

    with pytest.raises(InfeasibleError, match="needs a UniMorph lexicon"):
        build_text([english_lines], lang="en", out=tmp_path / "x", tasks=["subject_verb_agreement"])


def test_annotate_absent_models_are_one_line(english_lines: Path, tmp_path: Path) -> None:
    for value, expected in (
        ("spacy:en_core_web_absent", "never downloads models"),
        ("stanza:en", "never download"),
        ("udpipe:en", "expected spacy:MODEL"),
    ):
        with pytest.raises(UsageError, match=expected) as err:
            build_text([english_lines], lang="en", out=tmp_path / "x", annotate=value)
        assert "\n" not in str(err.value)
    assert not (tmp_path / "x").exists()


def test_annotate_with_a_saved_spacy_pipeline(english_lines: Path, tmp_path: Path) -> None:
    """A pipeline folder (here a blank English one with a lemmatizer-free attribute ruler,
    saved at test time) is loaded from disk; the UD family's tasks are offered and the card
    says the records are machine-annotated."""
    import spacy

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "the"}]], {"POS": "DET"})
    ruler.add([[{"IS_PUNCT": True}]], {"POS": "PUNCT"})
    nlp.to_disk(tmp_path / "pipeline")
    result = build_text(
        [english_lines],
        lang="en",
        out=tmp_path / "annotated",
        annotate=f"spacy:{tmp_path / 'pipeline'}",
        tasks=["sentence_length", "bigram_shift"],
        min_per_class=(5, 2, 2),
        balances=["natural"],
    )
    params = _card(result.out)["polyprobe"]["parameters"]
    assert params["upos"] == "machine-annotated"
    assert params["annotation"]["tool"] == "spacy"
    assert "machine-annotated" in params["annotation"]["note"]
    with pytest.raises(UsageError, match="unknown task 'nonexistent'"):
        build_text([english_lines], lang="en", out=tmp_path / "y", tasks=["nonexistent"])
