"""``polyprobe catalog`` of multilingual datasets: a language is ticked only for the configs in
that language (a parallel build's ``object_number-fi`` counts for Finnish, never for Czech), and a
task is one column whatever its dataset calls it (``tense-de``, a suite's ``unimorph-tense``)."""

from __future__ import annotations

from pathlib import Path

from polyprobe.cards.catalog import build_catalog, probes
from polyprobe.cli import main


def test_parallel_configs_tick_their_own_language_only(data_dir: Path, tmp_path: Path) -> None:
    pud = tmp_path / "pud"
    treebanks = [str(data_dir / "ud" / f"UD_{name}-PUD") for name in ("Czech", "Finnish", "English")]
    assert main(["build", "parallel", *treebanks, "--out", str(pud), "--quiet"]) == 0
    catalog = build_catalog([pud])
    entry = catalog["datasets"][0]
    assert sorted(entry["languages"]) == ["cs", "en", "fi"]
    assert "tense-fi" not in catalog["tasks"] and "sentence_length-cs" not in catalog["tasks"]
    assert "tense" in catalog["tasks"] and "sentence_length" in catalog["tasks"]
    for task, t in entry["tasks"].items():
        if t["language"]:
            assert task == f"{t['probes']}-{t['language']}"
    # every per-language config built for one language is ticked for it and not the other
    for lang, other in (("cs", "fi"), ("fi", "cs"), ("en", "fi")):
        mine = {
            t["probes"]
            for t in entry["tasks"].values()
            if t["language"] == lang and t["status"] == "built"
        }
        theirs = {
            t["probes"]
            for t in entry["tasks"].values()
            if t["language"] == other and t["status"] == "built"
        }
        for task in mine:
            assert catalog["matrix"][lang][task] == ["pud"], (lang, task)
        for task in theirs - mine:
            assert catalog["matrix"][lang][task] == [], (lang, task)
    # PUD Finnish has object_number, PUD Czech has not (a catalog once ticked Czech for it)
    assert catalog["matrix"]["fi"]["object_number"] == ["pud"]
    assert catalog["matrix"]["cs"]["object_number"] == []
    # the wide config has every language
    assert catalog["matrix"]["cs"]["parallel"] == catalog["matrix"]["fi"]["parallel"] == ["pud"]


def test_probes_strips_the_language_suffix_only() -> None:
    assert probes("tense-de", "de") == "tense"
    assert probes("tense-de", None) == "tense-de"
    assert probes("sentence_length", "en") == "sentence_length"
