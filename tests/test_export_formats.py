"""What ``polyprobe export`` writes for MTEB and SentEval (issue 15, point 16).

MTEB: ``dataset.revision`` is the release tag (mteb 2 requires one; a local folder ignores it),
never the build fingerprint, which goes to ``provenance.json``; the card's citations, ``date`` null (the card does not
say when the texts were written), ``domains`` null unless given and checked. SentEval: the
third field is space-separated tokens, as SentEval splits it, not the raw sentence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe import build_ud
from polyprobe.cards.card import read_readme
from polyprobe.cards.export import (
    MTEB_DOMAINS,
    card_citations,
    export,
    mteb_metadata,
    read_senteval,
    senteval_text,
)
from polyprobe.cards.folder import split_file
from polyprobe.cli import main
from polyprobe.demo import DEMO_TREEBANK


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "demo"
    tasks = ["subject_number", "bigram_shift"]
    return build_ud(
        [DEMO_TREEBANK], lang="en", min_per_class=(2, 1, 1), out=out, tasks=tasks, release="1.2.0"
    ).out


def test_mteb_revision_is_the_release_tag_or_null(folder: Path, tmp_path: Path) -> None:
    card, _ = read_readme(folder / "README.md")
    hub = mteb_metadata(folder, dataset_path="org/demo")["subject_number"]
    assert hub["dataset"] == {"path": "org/demo", "revision": "v1.2.0", "name": "subject_number"}
    local = mteb_metadata(folder)["subject_number"]
    path = str(folder.resolve())  # absolute: mteb may run anywhere
    assert local["dataset"] == {"path": path, "revision": "v1.2.0", "name": "subject_number"}
    fingerprint = card["polyprobe"]["fingerprint"]
    for meta in (hub, local):
        assert fingerprint not in json.dumps(meta)
    # the command line writes the same, and the fingerprint beside it
    assert main(["export", str(folder), "--format", "mteb", "--out", str(tmp_path / "m")]) == 0
    written = json.loads((tmp_path / "m" / "subject_number.json").read_text(encoding="utf-8"))
    assert written["dataset"]["revision"] == "v1.2.0"
    provenance = json.loads((tmp_path / "m" / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["fingerprint"] == fingerprint


def test_mteb_citation_date_and_domains(folder: Path, tmp_path: Path) -> None:
    meta = mteb_metadata(folder, dataset_path="org/demo")
    sn = meta["subject_number"]
    # the card's citations (its "Citations" section): Conneau et al. for SentEval's tasks
    assert "Conneau, Alexis" in sn["bibtex_citation"]
    assert sn["bibtex_citation"] == meta["bigram_shift"]["bibtex_citation"]
    assert sn["date"] is None and "date" in sn  # present, explicitly unknown
    assert sn["domains"] is None
    code = main(
        ["export", str(folder), "--format", "mteb", "--out", str(tmp_path / "m")]
        + ["--dataset-path", "org/demo", "--domains", "news, written-web,Web"]
    )
    assert code == 2 and not (tmp_path / "m").exists()  # 'written-web' is no MTEB domain
    assert (
        main(
            ["export", str(folder), "--format", "mteb", "--out", str(tmp_path / "m")]
            + ["--domains", "news,Web,NEWS"]
        )
        == 0
    )
    written = json.loads((tmp_path / "m" / "bigram_shift.json").read_text(encoding="utf-8"))
    assert written["domains"] == ["News", "Web"]
    assert set(written["domains"]) <= set(MTEB_DOMAINS)


def test_card_citations_read_sources_then_the_section() -> None:
    card = {"polyprobe": {"sources": [{"name": "UD_X", "citation": "Treebank X (2020)."}]}}
    body = (
        "# t\n\n## Build\n\n```text\nnot a citation\n```\n\n## Citations\n\n"
        "```bibtex\n@inproceedings{a,\n  title={A}\n}\n```\n\n```text\nTreebank X (2020).\n```\n"
        "\n## Release\n\n```text\nnot one either\n```\n"
    )
    assert card_citations(card, body) == [
        "Treebank X (2020).",
        "@inproceedings{a,\n  title={A}\n}",
    ]
    assert card_citations({}, "# no citations\n") == []


def test_senteval_writes_space_separated_tokens(folder: Path, tmp_path: Path) -> None:
    export(folder, "senteval", tmp_path / "se")
    rows = read_senteval(tmp_path / "se" / "data" / "probing" / "subj_number.txt")
    table = pq.read_table(folder / split_file("subject_number", "train"))
    sentences = table.column("sentence").to_pylist()
    tokens = table.column("tokens").to_pylist()
    train = [r for r in rows if r[0] == "train"]
    assert [r[2] for r in train] == [" ".join(t) for t in tokens]
    # what SentEval does with the field: split on whitespace -> exactly the tokens
    assert [r[2].split() for r in train] == tokens
    # where the raw text differs (punctuation glued to a word), the raw text would be wrong
    assert any(s.split() != t for s, t in zip(sentences, tokens, strict=True))


def test_senteval_text_keeps_one_field_per_token() -> None:
    assert senteval_text(["sinh viên", "học", "."], "sinh viên học.") == "sinh_viên học ."
    assert senteval_text(["a", "", "b\tc"], "ignored") == "a _ b_c"
    assert senteval_text(None, "  no\ttokens  here ") == "no tokens here"
