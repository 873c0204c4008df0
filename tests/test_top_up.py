"""``build ud ... --top-up DUMP`` on EWT dev/test and the English dump: the card's source
shares, one group space, no Wikipedia sentence equal to a treebank sentence."""

from __future__ import annotations

import bz2
from pathlib import Path

import datasets
import yaml

from polyprobe import build_ud
from polyprobe.cards.validate import validate
from polyprobe.hashing import normalise_text

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
# Two sentences of en_ewt-ud-test.conllu, copied into a small dump made at test time.
EWT_SENTENCES = (
    "Google is a nice search engine.",
    "John Donovan from Argghhh! has put out a excellent slide show on what was actually "
    "found and fought for in Fallujah.",
)


def _dump_with_treebank_sentences(path: Path) -> Path:
    text = " ".join(EWT_SENTENCES) + " A sentence that no treebank holds is here."
    xml = (
        '<mediawiki xml:lang="en"><siteinfo><namespaces>'
        '<namespace key="6">File</namespace></namespaces></siteinfo>'
        f"<page><title>Copy</title><ns>0</ns><id>1</id><revision><id>5</id><text>{text}"
        "</text></revision></page></mediawiki>"
    )
    path.write_bytes(bz2.compress(xml.encode("utf-8")))
    return path


def test_top_up_shares_groups_and_no_treebank_sentence(
    data_dir: Path, tmp_path: Path, hf_offline: None
) -> None:
    ewt = data_dir / "ud" / "UD_English-EWT"
    files = [ewt / "en_ewt-ud-dev.conllu", ewt / "en_ewt-ud-test.conllu"]
    copy = _dump_with_treebank_sentences(tmp_path / "copy.xml.bz2")
    result = build_ud(
        files,
        lang="en",
        out=tmp_path / "topped",
        tasks=["sentence_length", "tense"],
        top_up=[copy, data_dir / "wikipedia" / EN],
        top_up_sentences=2000,
        jobs=1,
    )
    assert validate(result.out).ok  # no group or lexical key in two splits
    card = yaml.safe_load((result.out / "README.md").read_text(encoding="utf-8").split("---")[1])
    top = card["polyprobe"]["parameters"]["top_up"]
    assert top["tasks"] == ["sentence_length"]  # tense needs annotation: treebanks only
    assert top["sentences_dropped"]["equal to a treebank sentence"] == 2
    shares = top["rows_by_source"]["sentence_length.natural-full"]
    assert set(shares) == {"treebanks", "copy", EN.removesuffix(".bz2")}
    assert shares["copy"] == 1 and shares["treebanks"] > 3000
    names = [s["name"] for s in card["polyprobe"]["sources"]]
    assert names[-2:] == ["copy", EN.removesuffix(".bz2")]

    treebank_texts = set()
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.startswith("# text = "):
                treebank_texts.add(normalise_text(line[len("# text = ") :]))
    ds = datasets.load_dataset(str(result.out), "sentence_length.natural-full")
    wiki_rows = [r for s in ds.values() for r in s if not r["id"].startswith("en_ewt")]
    assert len(wiki_rows) == sum(v for k, v in shares.items() if k != "treebanks")
    assert not any(normalise_text(r["sentence"]) in treebank_texts for r in wiki_rows)
    groups = {}
    for split, rows in ds.items():
        for r in rows:
            assert groups.setdefault(r["group"], split) == split
    tense = datasets.load_dataset(str(result.out), "tense.natural-full")
    assert all(r["id"].startswith("en_ewt") for s in tense.values() for r in s)
