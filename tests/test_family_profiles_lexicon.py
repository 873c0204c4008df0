"""A profile reaches the word and lexical families as it reaches every family
(``test_family_profiles.py``): a misspelt key in ``[family]`` or in ``[tasks.<name>]`` is
refused with the valid keys listed, and each documented option changes the output (one test
per family: unimorph, similarity, analogies, dictionary, costra). Until these families were
declarations, their builds ignored ``--profile`` silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import config_rows
from profile_helpers import card, refuses, write

from polyprobe.cards.validate import validate

MSL = "word_similarity/multisimlex_concepticon/Vulic-2020-2244.tsv"


def test_unimorph_profile(data_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_unimorph

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_unimorph(
            [data_dir / "unimorph" / "sigmorphon2018" / "german-dev"],
            lang="de",
            out=out,
            scale=True,
            min_forms=100,
            min_per_class=(2, 1, 1),
            tasks=["case", "number"],
            balances=["natural"],
            profile=profile,
        )

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "split_size", "split_sizes")
    refuses(build, tmp_path, "tasks.case", "min_form", "min_forms")
    # docs/tasks.md: --split-sizes is a family option ([family] split_sizes, every task) and
    # --min-forms every word task's option a profile's [tasks.<name>] sets for one task
    profile = write(
        tmp_path / "p.toml", '[family]\nsplit_sizes = "8,1,1"\n\n[tasks.case]\nmin_forms = 300\n'
    )
    changed = build(tmp_path / "changed", profile)
    assert validate(changed.out).ok
    assert changed.fingerprint != plain.fingerprint
    meta = card(changed.out)
    assert meta["parameters"]["split_sizes"] == [8, 1, 1]
    assert card(plain.out)["parameters"]["split_sizes"] == [7000, 2000, 1000]
    assert meta["profile"]["overrides"]["file"] == "p.toml"
    assert changed.split.startswith("sizes 8/1/1")
    report = json.loads((changed.out / "report.json").read_text(encoding="utf-8"))
    assert report["case"]["derived"]["params"]["min_forms"] == 300  # the one task's
    assert report["number"]["derived"]["params"]["min_forms"] == 100  # the others keep it
    sizes = {s.task: s.candidates for s in changed.tasks}
    assert sizes["case"] == 300 != {s.task: s.candidates for s in plain.tasks}["case"]


def test_similarity_profile(data_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_similarity

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_similarity([data_dir / MSL], lang="fi", out=out, profile=profile)

    plain = build(tmp_path / "plain")
    names = [s.task for s in plain.tasks]
    assert "multisimlex-fi-en" in names and "multisimlex-fi-et" in names  # every partner
    refuses(build, tmp_path, "family", "cross_lingul", "cross_lingual")
    refuses(build, tmp_path, "tasks.multisimlex-fi", "scale", "none")
    # --help: --cross-lingual picks Multi-SimLex's partner languages of --lang
    changed = build(
        tmp_path / "changed", write(tmp_path / "p.toml", '[family]\ncross_lingual = "en"\n')
    )
    assert validate(changed.out).ok
    assert changed.fingerprint != plain.fingerprint
    crossed = [s.task for s in changed.tasks if len(s.task.split("-")) == 3]
    assert "multisimlex-fi-en" in crossed and "multisimlex-fi-et" not in crossed
    assert set(card(changed.out)["configs"]) < set(card(plain.out)["configs"])


def test_analogies_profile(tmp_path: Path) -> None:
    from polyprobe import build_analogies

    questions = write(
        tmp_path / "tiny.txt",
        ": capital-common-countries\nAthens Greece Baghdad Iraq\nBerlin Germany Paris France\n"
        ": gram2-opposite\naware unaware certain uncertain\nclear unclear honest dishonest\n",
    )

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_analogies([questions], lang="en", out=out, profile=profile)

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "semantik", "semantic")
    refuses(build, tmp_path, "tasks.tiny", "category", "none")
    # --help: --semantic marks categories semantic (gram* ones are morphological otherwise)
    profile = write(tmp_path / "p.toml", '[family]\nsemantic = "gram2-opposite"\n')
    changed = build(tmp_path / "changed", profile)
    assert validate(changed.out).ok
    assert changed.fingerprint != plain.fingerprint
    kinds = card(changed.out)["profile"]["tasks"]["tiny"]
    assert kinds["semantic"] == ["capital-common-countries", "gram2-opposite"]
    assert card(plain.out)["profile"]["tasks"]["tiny"]["morphological"] == ["gram2-opposite"]


def test_dictionary_profile(tmp_path: Path) -> None:
    from polyprobe import build_dictionary

    pairs = write(tmp_path / "fi-en.tsv", "".join(f"sana{i}\tword{i}\n" for i in range(40)))

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_dictionary(pairs, lang="fi", target_lang="en", out=out, profile=profile)

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "test_shares", "test_share")
    refuses(build, tmp_path, "tasks.fi-en", "pos", "none")
    # --help: --test-share is the percent of source words in test
    changed = build(tmp_path / "changed", write(tmp_path / "p.toml", "[family]\ntest_share = 50\n"))
    assert validate(changed.out).ok
    assert changed.fingerprint != plain.fingerprint
    assert card(changed.out)["parameters"]["split"] == "ratio:50/0/50"
    assert card(plain.out)["parameters"]["split"] == "ratio:80/0/20"
    before, after = config_rows(plain.out, "fi-en"), config_rows(changed.out, "fi-en")
    assert len(after["test"]) > len(before["test"])


def test_costra_profile(data_dir: Path, tmp_path: Path) -> None:
    """COSTRA has no option of its own: ``[family]`` accepts none, nor do its tasks."""
    from polyprobe import build_costra

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_costra(data_dir / "costra", out=out, profile=profile)

    # a shared option is no [family] key (the one a profile may set: balances)
    refuses(build, tmp_path, "family", "lang", "balances")
    refuses(build, tmp_path, "family", "path", "balances")
    refuses(build, tmp_path, "tasks.transformations", "types", "none")
