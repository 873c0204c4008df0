"""Profiles of the raw-text families (``build wiki``, ``build text``): an option the docs
mention changes the output when a profile sets it (``[family] min_tokens`` / ``final_punct``,
``[tasks.sentence_position] windows = 1``), and a misspelt key in ``[family]`` or in
``[tasks.<name>]`` is refused, naming it and listing the valid ones. Tiny inputs written
at test time."""

from __future__ import annotations

import bz2
from pathlib import Path
from typing import Any

import pytest
import yaml

from polyprobe import build_text, build_wiki
from polyprobe.errors import PolyprobeError

WORDS = [
    "river",
    "stone",
    "garden",
    "window",
    "morning",
    "silver",
    "paper",
    "lantern",
    "forest",
    "meadow",
]


def _sentence(i: int) -> str:
    """Deterministic sentences of 2 to 9 words; every seventh without a final mark."""
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(2 + i % 8)]
    text = " ".join(words).capitalize()
    return text if i % 7 == 3 else text + "."


def _documents(n: int) -> list[list[list[str]]]:
    """``n`` documents of three paragraphs of six sentences."""
    i = 0
    docs = []
    for _ in range(n):
        paragraphs = []
        for _ in range(3):
            paragraphs.append([_sentence(i + k) for k in range(6)])
            i += 6
        docs.append(paragraphs)
    return docs


def _card(folder: Path) -> dict[str, Any]:
    return yaml.safe_load((folder / "README.md").read_text(encoding="utf-8").split("---")[1])


def _rows(result: Any, task: str) -> int:
    """The task's candidate rows (before the splits and floors)."""
    return next(t.candidates for t in result.tasks if t.task == task)


def _profile(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _refused(build: Any, tmp_path: Path) -> None:
    """A misspelt key in ``[family]`` and in ``[tasks.sentence_position]``: an error naming
    it and listing the valid ones, before any folder is written."""
    family = _profile(tmp_path, "family-typo", "[family]\nmin_token = 5\n")
    with pytest.raises(PolyprobeError, match=r"min_token\b.*valid options: .*min_tokens"):
        build(profile=family, out=tmp_path / "typo1")
    task = _profile(tmp_path, "task-typo", "[tasks.sentence_position]\nwindow = 1\n")
    with pytest.raises(PolyprobeError, match=r"window\b.*valid options: .*windows"):
        build(profile=task, out=tmp_path / "typo2")
    assert not (tmp_path / "typo1").exists() and not (tmp_path / "typo2").exists()


COMMON: dict[str, Any] = {
    "lang": "en",
    "tasks": ["sentence_length", "sentence_position"],
    "min_per_class": 0,
    "balances": ["natural"],
    "jobs": 1,
}


def _dump(folder: Path) -> Path:
    pages = []
    for n, doc in enumerate(_documents(12)):
        text = "\n\n".join(" ".join(p) for p in doc)
        pages.append(
            f"<page><title>Article {n}</title><ns>0</ns><id>{n + 1}</id>"
            f"<revision><id>1</id><text>{text}</text></revision></page>"
        )
    xml = (
        '<mediawiki xml:lang="en"><siteinfo><dbname>enwiki</dbname></siteinfo>'
        + "".join(pages)
        + "</mediawiki>"
    )
    path = folder / "tiny-enwiki.xml.bz2"
    path.write_bytes(bz2.compress(xml.encode("utf-8")))
    return path


def test_wiki_profile_options_change_the_output_and_typos_are_refused(tmp_path: Path) -> None:
    dump = _dump(tmp_path)

    def build(**kw: Any) -> Any:
        return build_wiki([dump], **COMMON, **kw)

    base = build(out=tmp_path / "base")
    assert _card(base.out)["polyprobe"]["parameters"]["sentence_filter"]["min_tokens"] == 3
    longer = build(
        out=tmp_path / "longer", profile=_profile(tmp_path, "fam", "[family]\nmin_tokens = 6\n")
    )
    params = _card(longer.out)["polyprobe"]["parameters"]
    assert params["sentence_filter"]["min_tokens"] == 6
    assert params["sentences_dropped"]["fewer than 6 tokens"] > 0
    assert _rows(longer, "sentence_length") < _rows(base, "sentence_length")
    assert longer.fingerprint != base.fingerprint
    # docs/tasks.md: "a profile's [tasks.<name>] windows = 1 restores DiscoEval's choice"
    first = build(
        out=tmp_path / "first",
        profile=_profile(tmp_path, "win", "[tasks.sentence_position]\nwindows = 1\n"),
    )
    assert _rows(first, "sentence_position") < _rows(base, "sentence_position")
    assert _rows(first, "sentence_length") == _rows(base, "sentence_length")
    assert first.fingerprint != base.fingerprint
    _refused(build, tmp_path)


def test_text_profile_options_change_the_output_and_typos_are_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    docs = _documents(12)
    corpus.write_text(
        "\n\n".join("\n".join(" ".join(p) for p in doc) for doc in docs) + "\n", encoding="utf-8"
    )

    def build(**kw: Any) -> Any:
        return build_text([corpus], layout="documents", **COMMON, **kw)

    base = build(out=tmp_path / "base")
    params = _card(base.out)["polyprobe"]["parameters"]
    assert params["sentence_filter"]["final_punctuation_required"] is False
    assert "no sentence-final punctuation" not in params["sentences_dropped"]
    # --final-punct as a profile's [family] value: sentences without a final mark dropped
    strict = build(
        out=tmp_path / "strict",
        profile=_profile(tmp_path, "fam", "[family]\nfinal_punct = true\n"),
    )
    params = _card(strict.out)["polyprobe"]["parameters"]
    assert params["sentence_filter"]["final_punctuation_required"] is True
    assert params["sentences_dropped"]["no sentence-final punctuation"] > 0
    assert _rows(strict, "sentence_length") < _rows(base, "sentence_length")
    assert strict.fingerprint != base.fingerprint
    first = build(
        out=tmp_path / "first",
        profile=_profile(tmp_path, "win", "[tasks.sentence_position]\nwindows = 1\n"),
    )
    assert _rows(first, "sentence_position") < _rows(base, "sentence_position")
    assert first.fingerprint != base.fingerprint
    _refused(build, tmp_path)


def test_executors_are_the_runtimes() -> None:
    """The executors a Config may offer are the ones the runtime runs."""
    from polyprobe.builders.family import EXECUTORS
    from polyprobe.runtime.inputs import EXECUTORS as RUNTIME

    assert EXECUTORS == RUNTIME
