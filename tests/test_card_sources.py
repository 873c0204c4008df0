"""Cards that cite and explain: the sources' versions and citations from their READMEs, the
tasks (and variants) not built and why, derived-profile values too long for a table cell,
and the demo card that says it is a demo.

Why: a card is what a user cites and reads. Before, every shared treebank's version was
"unknown" (none is a git checkout, yet EWT's README says v2.16), no source was cited, only
``report.json`` said which tasks were not built, and the "Build" table held one
~6,000-character cell."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from polyprobe.cards import card as card_module
from polyprobe.cards.card import md_escape, split_readme
from polyprobe.cards.validate import validate
from polyprobe.loaders import sources
from polyprobe.loaders.sources import discover, treebank_metadata

# The newest release each README's changelog names (EWT's title line still says v2.15).
EXPECTED_VERSIONS = {
    "UD_Czech-FicTree": "v2.17",
    "UD_Czech-PUD": "v2.17",
    "UD_English-EWT": "v2.16",
    "UD_English-PUD": "v2.6",
    "UD_Finnish-PUD": "v2.4",  # "CHANGELOG 2.3 -> 2.4"
    "UD_Finnish-TDT": "v2.4",
    "UD_Georgian-GLC": "v2.13",  # "* UD 2.13"
    "UD_German-GSD": "v2.15",
    "UD_German-PUD": "v2.12",
    "UD_Russian-GSD": "v2.5",  # newer than "v.2.3+"
    "UD_Russian-PUD": "v2.4",
    "UD_Slovenian-SSJ": "v2.17",  # "2025--10-22 v 2.17"
    "UD_Spanish-GSD": "v2.15",
    "UD_Spanish-PUD": "v2.17",
    "UD_Turkish-IMST": "v2.13",
    "UD_Turkish-PUD": "v2.8",
}

# What each README asks to be cited: a snippet of it, or "" for none.
EXPECTED_CITATIONS = {
    "UD_Czech-FicTree": "Tomáš Jelínek. 2017. FicTree",  # "## References"
    "UD_English-EWT": "@inproceedings{silveira14gold,",  # "# Citations", BibTeX
    "UD_Finnish-TDT": "@InProceedings{pyysalo2015udfinnish,",  # "# Cite", two entries
    "UD_Georgian-GLC": "Georgian language corpus",
    "UD_German-GSD": "Universal Dependency Annotation for Multilingual Parsing",  # lead-in
    "UD_Slovenian-SSJ": "The Universal Dependencies Treebank for Slovenian",  # "Key reference"
    "UD_Spanish-GSD": "Universal Dependency Annotation for Multilingual Parsing",
    "UD_Turkish-IMST": "Universal Dependencies for Turkish",  # "please cite the following"
}


def test_versions_come_from_the_readme_changelog(ud_dir: Path) -> None:
    for name, expected in EXPECTED_VERSIONS.items():
        assert sources.readme_release(ud_dir / name) == expected, name
        assert treebank_metadata(ud_dir / name)[1] == expected, name
    assert "v2.15" in (ud_dir / "UD_English-EWT" / "README.md").read_text().splitlines()[1]
    (ewt,) = discover([ud_dir / "UD_English-EWT"])
    assert ewt.version == ewt.info.version == "v2.16"


def test_git_and_source_version_win_over_the_readme(ud_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "UD_English-EWT"
    folder.mkdir()
    shutil.copy(ud_dir / "UD_English-EWT" / "README.md", folder / "README.md")
    shutil.copy(ud_dir / "UD_English-EWT" / "en_ewt-ud-dev.conllu", folder)
    assert treebank_metadata(folder)[1] == "v2.16"
    assert treebank_metadata(folder, source_version="r2.16-local")[1] == "r2.16-local"
    sha = "15d613d8" + "0" * 32
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text(sha + "\n")
    assert treebank_metadata(folder, source_version="ignored")[1] == sha
    # a README without a changelog says nothing about the version
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "README.md").write_text("# Summary\n\nA treebank, v2.16 of something else.\n")
    assert treebank_metadata(bare) == ("unknown", "unknown")


def test_citations_come_from_the_readmes(ud_dir: Path) -> None:
    for name in EXPECTED_VERSIONS:
        citation = sources.readme_citation(ud_dir / name)
        snippet = EXPECTED_CITATIONS.get(name, "")
        if not snippet:
            assert citation == "", name
            continue
        assert snippet in citation, name
        assert "```" not in citation and "{%" not in citation and "\t" not in citation, name
        assert citation == citation.strip() and "\n\n\n" not in citation, name
    ewt = sources.readme_citation(ud_dir / "UD_English-EWT")
    assert ewt.startswith("@inproceedings{silveira14gold,") and ewt.endswith("}")
    assert ewt.count("{") == ewt.count("}")
    assert "You are encouraged" not in ewt  # the BibTeX, not the prose around it
    tdt = sources.readme_citation(ud_dir / "UD_Finnish-TDT")
    assert tdt.count("\n@") == 1 and tdt.startswith("@Article{haverinen2013tdt,")
    imst = sources.readme_citation(ud_dir / "UD_Turkish-IMST")
    assert imst.count("Sulubacak") == 2 and "This treebank follows" not in imst
    (src,) = discover([ud_dir / "UD_English-EWT"])
    assert src.info.citation == ewt and src.info.card_entry()["citation"] == ewt


# ------------------------------------------------------------------------------ the card


@pytest.fixture(scope="module")
def ewt_card(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from polyprobe import build_ud

    out = tmp_path_factory.mktemp("cards") / "ewt"
    build_ud(
        [ud_dir / "UD_English-EWT"],
        lang="en",
        out=out,
        tasks=["sentence_length", "word_content", "top_dependencies"],
        sizes="10k",
    )
    return out


def _section(body: str, heading: str) -> str:
    start = body.index(f"\n## {heading}\n")
    end = body.find("\n## ", start + 1)
    return body[start : end if end != -1 else len(body)]


def test_card_sources_have_version_and_citation(ewt_card: Path) -> None:
    data, body = split_readme((ewt_card / "README.md").read_text(encoding="utf-8"))
    (source,) = data["polyprobe"]["sources"]
    assert source["version"] == "v2.16"
    assert source["citation"].startswith("@inproceedings{silveira14gold,")
    assert "| UD_English-EWT | ud-treebank | v2.16 | CC-BY-SA-4.0 |" in _section(body, "Sources")
    citations = _section(body, "Citations")
    task = citations.index("Conneau, Alexis")
    cited = citations.index("`UD_English-EWT` (UD release v2.16):")
    assert task < cited < citations.index("```bibtex\n@inproceedings{silveira14gold,")
    assert source["citation"] in citations


def test_card_says_which_tasks_were_not_built_and_why(ewt_card: Path) -> None:
    _, body = split_readme((ewt_card / "README.md").read_text(encoding="utf-8"))
    report = json.loads((ewt_card / "report.json").read_text(encoding="utf-8"))
    section = _section(body, "Tasks not built")
    assert body.index("## Tasks not built") < body.index("## Configs")
    assert report["word_content"]["built"] == []
    assert f"- `word_content`: {md_escape(report['word_content']['infeasible'])}\n" in section
    for task in ("sentence_length", "top_dependencies"):  # built, without their 10k variants
        assert report[task]["built"] and report[task]["not_built"]
        assert f"- `{task}`: {md_escape('; '.join(report[task]['not_built']))}\n" in section


def test_long_profile_values_are_collapsed(ewt_card: Path, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    path = ewt_card / "README.md"
    text = path.read_text(encoding="utf-8")
    data, body = split_readme(text)
    rows = [line for line in _section(body, "Build").splitlines() if line.startswith("| profile")]
    assert len(rows) == 3 and all(len(r) < card_module.PROFILE_CELL_CHARS + 40 for r in rows)
    derived = data["polyprobe"]["profile"]["tasks"]
    assert sorted(derived) == ["top_dependencies", "word_content"]  # the tasks that observe
    assert "| profile tasks | 2 entries, in full below |" in body
    blocks = re.findall(
        r"<details>\n<summary>Derived profile: <code>(\w+)</code></summary>\n\n```yaml\n"
        r"(.*?)\n```\n\n</details>",
        body,
        flags=re.S,
    )
    assert [name for name, _ in blocks] == ["tasks"]
    assert yaml.safe_load(blocks[0][1]) == derived
    # still a Hub card, byte for byte, and still valid
    card = DatasetCard.load(path)
    assert card.data.to_dict() == data
    card.save(tmp_path / "README.md")
    assert (tmp_path / "README.md").read_bytes() == path.read_bytes()
    assert validate(ewt_card).ok


def test_bibtex_with_escapes_round_trips(ud_dir: Path, tmp_path: Path) -> None:
    """Finnish-TDT's BibTeX holds ``{\\"a}``: YAML escapes it, the Hub's card keeps it."""
    from huggingface_hub import DatasetCard

    from polyprobe import build_ud

    out = build_ud(
        [ud_dir / "UD_Finnish-TDT"], lang="fi", out=tmp_path / "tdt", tasks=["sentence_length"]
    ).out
    path = out / "README.md"
    data, body = split_readme(path.read_text(encoding="utf-8"))
    assert 'Missil{\\"a}' in data["polyprobe"]["sources"][0]["citation"]
    assert "`UD_Finnish-TDT` (UD release v2.4):" in body
    DatasetCard.load(path).save(tmp_path / "README.md")
    assert (tmp_path / "README.md").read_bytes() == path.read_bytes()
    assert validate(out).ok


def test_sources_without_a_citation_are_named(ud_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_ud

    out = build_ud(
        [ud_dir / "UD_German-GSD", ud_dir / "UD_German-PUD"],
        lang="de",
        out=tmp_path / "de",
        tasks=["sentence_length"],
    ).out
    _, body = split_readme((out / "README.md").read_text(encoding="utf-8"))
    citations = _section(body, "Citations")
    assert "`UD_German-GSD` (UD release v2.15):" in citations
    assert "McDonald" in citations
    assert "No citation was recorded for `UD_German-PUD` (UD release v2.12); cite it" in citations
    assert _section(body, "Tasks not built").count("- `") == 0


# ------------------------------------------------------------------------------ the demo


def test_demo_card_says_it_is_a_tiny_sample(tmp_path: Path) -> None:
    from polyprobe.demo import build_demo

    result = build_demo(tmp_path / "demo")
    _, body = split_readme((result.out / "README.md").read_text(encoding="utf-8"))
    summary = body.split("\n## ", 1)[0]
    assert "sample of 46 hand-annotated sentences" in summary
    assert "most tasks are expected to be infeasible" in summary
    infeasible = [s.task for s in result.tasks if not s.configs]
    assert len(infeasible) > len(result.tasks) / 2  # what the summary promises
    section = _section(body, "Tasks not built")
    assert all(f"- `{task}`: " in section for task in infeasible)
    assert validate(result.out).ok


def _sentences(path: Path) -> list[tuple[str, list[list[str]]]]:
    out: list[tuple[str, list[list[str]]]] = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        lines = block.splitlines()
        text = next(line[len("# text = ") :] for line in lines if line.startswith("# text = "))
        out.append((text, [line.split("\t") for line in lines if not line.startswith("#")]))
    return out


def test_demo_treebank_text_matches_its_tokens(tmp_path: Path) -> None:
    """``# text`` is the tokens joined as MISC says (no ``SpaceAfter=No`` = one space): the
    sample once read "fixed the bikeyesterday." and "everyone understood ."."""
    import importlib.util

    from polyprobe.demo import DEMO_TREEBANK

    files = sorted(DEMO_TREEBANK.glob("*.conllu"))
    assert len(files) == 3
    texts = []
    for f in files:
        for text, rows in _sentences(f):
            assert all(len(r) == 10 for r in rows), f
            rebuilt = "".join(
                r[1] + ("" if "SpaceAfter=No" in r[9] or i == len(rows) - 1 else " ")
                for i, r in enumerate(rows)
            )
            assert rebuilt == text, (f.name, text)
            texts.append(text)
    assert "My brother fixed the bike yesterday." in texts
    assert "The teacher explained the rule, and everyone understood." in texts
    assert not any(re.search(r" [.,!?]$|bikeyesterday", t) for t in texts)
    # the files are what the generator writes
    spec = importlib.util.spec_from_file_location(
        "make_demo_conllu", Path(__file__).resolve().parent.parent / "tools/make_demo_conllu.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    generator.main(str(tmp_path))
    for f in files:
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), f.name
