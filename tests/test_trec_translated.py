"""Translated TREC: a translation file made in the test by a reversible transform of the
English questions (each word reversed, then the word order reversed) gives a dataset with the
English build's ids, labels, splits and drops, the transformed text, and the translation's
provenance in the card; bad translation files are refused with file and line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe import build_trec
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError

REPO = Path(__file__).resolve().parent.parent


def transform(text: str) -> str:
    """Reversible: reverse every word's letters and the word order."""
    return " ".join(word[::-1] for word in reversed(text.split()))


@pytest.fixture(scope="module")
def builds(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("trec")
    english = build_trec(data_dir / "trec", out=root / "en").out
    # The translation file: every English question as published (read back from the English
    # build's rows, plus the train copies of test questions it dropped, from the source).
    from polyprobe.loaders.source import InvalidPolicy
    from polyprobe.loaders.trec import TrecSource

    lines = ["id\tsource\ttext"]
    for ex in TrecSource(data_dir / "trec").records(InvalidPolicy()):
        lines.append(f"{ex.id}\t{ex.inputs[0]}\t{transform(ex.inputs[0])}")
    tsv = root / "trec.de.tsv"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    german = build_trec(
        data_dir / "trec",
        lang="de",
        out=root / "de",
        translation=tsv,
        sample_creation="machine-translated",
        translator="reverse-words",
        translator_version="1",
        translation_date="2026-11-27",
    ).out
    return {"en": english, "de": german, "tsv": tsv}


def test_same_ids_labels_splits_and_drops(builds: dict[str, Path]) -> None:
    assert validate(builds["de"]).ok, str(validate(builds["de"]))
    for config in ("coarse", "fine"):
        en, de = config_rows(builds["en"], config), config_rows(builds["de"], config)
        for split in ("train", "test"):
            assert [r["id"] for r in de[split]] == [r["id"] for r in en[split]]
            assert [r["label"] for r in de[split]] == [r["label"] for r in en[split]]
            assert [r["group"] for r in de[split]] == [r["group"] for r in en[split]]
            for a, b in zip(en[split], de[split], strict=True):
                assert b["sentence"] == transform(a["sentence"])
                assert transform(b["sentence"]) == " ".join(a["sentence"].split())
                assert b["tokens"] == b["sentence"].split()
        assert len(en["test"]) == 500
    # every translated row says how it was made; the English build has no such column
    for config in ("coarse", "fine"):
        for split in ("train", "test"):
            rows = config_rows(builds["de"], config)[split]
            assert {r["sample_creation"] for r in rows} == {"machine-translated"}
            assert "sample_creation" not in config_rows(builds["en"], config)[split][0]
    en_report = json.loads((builds["en"] / "report.json").read_text())
    de_report = json.loads((builds["de"] / "report.json").read_text())
    assert de_report["trec-coarse"]["task_drops"] == en_report["trec-coarse"]["task_drops"]


def test_card_says_how_the_text_was_made(builds: dict[str, Path]) -> None:
    front, body = read_readme(builds["de"] / "README.md")
    assert front["language"] == ["de"]
    translation = front["polyprobe"]["parameters"]["translation"]
    assert translation == {
        "sample_creation": "machine-translated",
        "system": "reverse-words",
        "version": "1",
        "date": "2026-11-27",
        "source_language": "en",
        "target_language": "de",
    }
    assert [s["kind"] for s in front["polyprobe"]["sources"]] == ["trec", "translation"]
    assert "machine translated by reverse-words" in body
    labels = front["polyprobe"]["configs"]["coarse"]["labels"]
    assert labels == ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]


def test_missing_and_unknown_translations(data_dir: Path, builds, tmp_path: Path) -> None:
    lines = builds["tsv"].read_text(encoding="utf-8").splitlines()
    gap = tmp_path / "gap.tsv"
    gap.write_text("\n".join([lines[0], *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_trec(data_dir / "trec", lang="de", out=tmp_path / "x", translation=gap)
    first_id = lines[1].split("\t")[0]
    assert f"no translation for TREC question {first_id} (train_5500.label:1)" in str(err.value)
    assert not (tmp_path / "x").exists()
    # under skip: the question is dropped and counted
    result = build_trec(
        data_dir / "trec", lang="de", out=tmp_path / "y", translation=gap, on_invalid="skip"
    )
    assert result.skipped_invalid == {"missing-translation": 1}
    # a file keyed by id only (no source column): an id that is no question is refused
    odd = tmp_path / "odd.tsv"
    by_id = ["id\ttext", *(f"{a}\t{c}" for a, _, c in (x.split("\t") for x in lines[1:]))]
    odd.write_text("\n".join([*by_id, "train/99999\ty"]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"odd.tsv:\d+: train/99999 is not a TREC question id"):
        build_trec(data_dir / "trec", lang="de", out=tmp_path / "z", translation=odd)
    with pytest.raises(UsageError, match="needs --lang"):
        build_trec(data_dir / "trec", out=tmp_path / "w", translation=gap)


def test_line_aligned_file_through_the_command(data_dir: Path, builds, tmp_path: Path) -> None:
    """A plain file, one translation per line (train questions, then test), by the CLI."""
    texts = [line.split("\t")[2] for line in builds["tsv"].read_text().splitlines()[1:]]
    plain = tmp_path / "trec.de.txt"
    plain.write_text("\n".join(texts) + "\n", encoding="utf-8")
    out = tmp_path / "cli"
    cmd = [
        sys.executable,
        "-m",
        "polyprobe",
        "build",
        "trec",
        str(data_dir / "trec"),
        "--lang",
        "de",
        "--out",
        str(out),
        "--translation",
        str(plain),
        "--translator",
        "reverse-words",
        "--quiet",
    ]
    done = subprocess.run(
        cmd, capture_output=True, text=True, env={"PYTHONPATH": str(REPO)} | _env()
    )
    assert done.returncode == 0, done.stderr
    assert config_rows(out, "coarse")["test"] == config_rows(builds["de"], "coarse")["test"]


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
