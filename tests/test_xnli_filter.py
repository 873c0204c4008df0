"""XNLI's language filter for pair builds, on a hand-written fixture in XNLI 1.0's
xnli.test.tsv layout (tests/fixtures/xnli): 20 rows, 4 English, 12 German, 4 French."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import config_rows

import polyprobe
from polyprobe.errors import InputError, UsageError

XNLI = Path(__file__).parent / "fixtures" / "xnli" / "xnli.test.tsv"


def _rows(folder: Path, config: str = "nli") -> list[dict]:
    return [r for rs in config_rows(folder, config).values() for r in rs]


def test_nli_preset_keeps_the_lang_rows(tmp_path: Path) -> None:
    result = polyprobe.build_pairs(
        [str(XNLI)], preset="nli", format="tsv", lang="de", out=tmp_path / "de"
    )
    rows = _rows(result.out)
    assert len(rows) == 12
    assert {"Er sagte, er würde zurückkommen.", "Der Zug hatte Verspätung."} <= {
        r["sentence1"] for r in rows
    }
    assert not {"He said he would come back.", "Il a dit qu'il reviendrait."} & {
        r["sentence1"] for r in rows
    }
    assert result.skipped_invalid == {"other-language": 8}
    card = (result.out / "README.md").read_text(encoding="utf-8")
    assert "| other-language | 8 |" in card
    assert "column=language, keep=de" in card


def test_explicit_column_and_language(tmp_path: Path) -> None:
    result = polyprobe.build_pairs(
        [str(XNLI)],
        columns="sentence1=sentence1,sentence2=sentence2,label=gold_label",
        format="tsv",
        language_column="language",
        keep_language="deu",  # ISO 639-3 matches the file's 'de'
        lang="de",
        out=tmp_path / "de",
    )
    assert len(_rows(result.out, "pairs")) == 12
    assert result.skipped_invalid == {"other-language": 8}


def test_filter_off_and_absent_column(tmp_path: Path) -> None:
    every = polyprobe.build_pairs(
        [str(XNLI)], preset="nli", format="tsv", language_column="", lang="de", out=tmp_path / "all"
    )
    assert len(_rows(every.out)) == 20 and every.skipped_invalid == {}
    with pytest.raises(InputError) as err:
        polyprobe.build_pairs(
            [str(XNLI)],
            preset="nli",
            format="tsv",
            language_column="lang",
            lang="de",
            out=tmp_path / "x",
        )
    assert str(err.value).startswith(f"{XNLI}:1: no column(s) lang in the header (language, ")


def test_a_column_needs_a_language_to_keep() -> None:
    from polyprobe.loaders.tabular import sources_for

    with pytest.raises(UsageError, match="--language-column needs the language to keep"):
        sources_for([str(XNLI)], "pairs", preset="nli", language_column="language")
