"""``polyprobe suite init``: a language's resources found by their standard names, and the
manifests polyprobe ships.

What must hold: over the shared data, init writes each shipped manifest byte for byte (the
command in its head is the one that wrote it); it says per family what it found, what it
found but did not use and what is missing; a shipped suite builds by name with ``--data``;
a language no test otherwise uses (Esperanto, ``tests/fixtures/esperanto``: a treebank, a
UniMorph lexicon and a Wuggy lexicon) is found and builds with no code change; bad input is
refused with a message saying what to do."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from polyprobe.builders.manifest import SHIPPED, read_manifest, shipped_names
from polyprobe.cli import main

ESPERANTO = Path(__file__).parent / "fixtures" / "esperanto"


def _init_command(manifest: Path) -> list[str]:
    """The ``suite init`` arguments a shipped manifest's head says wrote it."""
    line = manifest.read_text(encoding="utf-8").splitlines()[1]
    words = shlex.split(line.lstrip("# "))
    assert words[:3] == ["polyprobe", "suite", "init"], line
    return words[1:]


def test_every_shared_data_language_and_pud_ship_a_manifest() -> None:
    assert shipped_names() == sorted(["cs", "de", "en", "es", "fi", "ka", "pud", "ru", "sl", "tr"])


@pytest.mark.parametrize("name", shipped_names())
def test_init_over_the_shared_data_writes_the_shipped_manifest(
    name: str, data_dir: Path, tmp_path: Path
) -> None:
    shipped = SHIPPED / f"{name}.toml"
    out = tmp_path / f"{name}.toml"
    args = [*_init_command(shipped), "--search", str(data_dir), "--data", str(data_dir)]
    assert main([*args, "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")


def test_a_data_root_reached_through_a_link_still_gives_relative_paths(
    data_dir: Path, tmp_path: Path
) -> None:
    """``../shared/data`` is often a symbolic link: the paths found through it are still
    written relative to it (not as absolute paths of the link's target)."""
    link = tmp_path / "data"
    link.symlink_to(data_dir.resolve(), target_is_directory=True)
    out = tmp_path / "fi.toml"
    args = ["suite", "init", "--lang", "fi", "--search", str(link), "--data", str(link)]
    assert main([*args, "--out", str(out)]) == 0
    shipped = (SHIPPED / "fi.toml").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == shipped


def test_init_says_what_it_found_what_it_left_and_what_is_missing(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finnish: TDT is the treebank, PUD goes to the parallel suite, SIGMORPHON 2023 is a
    second release of the lexicon SIGMORPHON 2018 already gives; there is no Finnish Wuggy
    file or Wikipedia dump, and the missing lines say which tasks those would add."""
    out = tmp_path / "fi.toml"
    args = ["suite", "init", "--lang", "fi", "--search", str(data_dir), "--data", str(data_dir)]
    assert main([*args, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    found, rest = said.split("\nnot used:\n")
    unused, missing = rest.split("\nmissing:\n")
    assert "ud          ud/UD_Finnish-TDT" in found
    assert "unimorph/sigmorphon2018/{finnish-train-high, finnish-dev, finnish-test}" in found
    assert "word_similarity/finsemevl/FinnSim/FinnSim_judgment_scores.csv" in found
    assert "ud/UD_Finnish-PUD: a parallel treebank" in unused
    assert "unimorph/sigmorphon2023/{fin.trn, fin.dev, fin.tst}" in unused
    assert "orthographic_finnish.txt" in missing and "pseudo" in missing
    assert "fiwiki-*pages-articles*.xml*" in missing and "bigram_shift" in missing
    assert f"polyprobe suite build {out} --data {data_dir} --out fi-probing" in said
    suite = read_manifest(out, data_dir)
    assert [m.name for m in suite.members] == [
        "ud",
        "unimorph",
        "unimorph_analogies",
        "analogies",
        "similarity",
        "dictionary",
    ]


def test_init_refuses_an_existing_manifest_and_a_language_with_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eo.toml"
    out.write_text("kept", encoding="utf-8")
    args = ["suite", "init", "--lang", "eo", "--search", str(ESPERANTO), "--out", str(out)]
    assert main(args) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "kept"
    args = ["suite", "init", "--lang", "xh", "--search", str(ESPERANTO)]
    assert main([*args, "--out", str(tmp_path / "xh.toml")]) == 2
    err = capsys.readouterr().err
    assert "no resource of Xhosa (xh)" in err and "found resources of eo only" in err
    assert not (tmp_path / "xh.toml").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eo.toml"]  # no temporary file left


def test_a_shipped_suite_needs_its_data_root_and_an_unknown_name_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["suite", "build", "ka", "--out", str(tmp_path / "ka")]) == 2
    assert "pass --data DIR" in capsys.readouterr().err
    assert main(["suite", "build", "xx", "--out", str(tmp_path / "xx")]) == 2
    assert (
        "nor a shipped suite (cs, de, en, es, fi, ka, pud, ru, sl, tr)" in capsys.readouterr().err
    )
    assert not (tmp_path / "ka").exists() and not (tmp_path / "xx").exists()


@pytest.mark.parametrize("name", ["ka", "pud"])
def test_a_shipped_suite_builds_by_name_validates_and_every_config_loads(
    name: str, data_dir: Path, tmp_path: Path
) -> None:
    """Georgian (a treebank, a UniMorph lexicon and its analogies) and the parallel suite
    (every PUD treebank in one member)."""
    import datasets

    from polyprobe.cards.info import read_card_yaml

    out = tmp_path / name
    assert (
        main(["suite", "build", name, "--data", str(data_dir), "--out", str(out), "--quiet"]) == 0
    )
    assert main(["validate", str(out)]) == 0
    card = read_card_yaml(out)
    families = {block["family"] for block in card["polyprobe"]["configs"].values()}
    assert families == ({"ud", "unimorph", "analogies"} if name == "ka" else {"parallel"})
    for config in card["configs"]:
        ds = datasets.load_dataset(str(out), config["config_name"])
        assert sum(len(split) for split in ds.values()) > 0, config["config_name"]


@pytest.fixture(scope="module")
def esperanto(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """``suite init`` on the Esperanto fixture folder, then ``suite build`` of what it wrote."""
    root = tmp_path_factory.mktemp("eo")
    manifest, out = root / "eo.toml", root / "eo-probing"
    init = ["suite", "init", "--lang", "eo", "--search", str(ESPERANTO), "--out", str(manifest)]
    assert main(init) == 0
    assert main(["suite", "build", str(manifest), "--out", str(out), "--quiet"]) == 0
    return manifest, out, manifest.read_text(encoding="utf-8")


def test_a_never_seen_language_is_found_by_its_resources_names(
    esperanto: tuple[Path, Path, str],
) -> None:
    manifest, _, text = esperanto
    suite = read_manifest(manifest)
    assert suite.lang == "eo"
    members = {m.name: m for m in suite.members}
    assert [m.family.name for m in suite.members] == ["ud", "unimorph", "analogies"]
    assert [Path(p).name for p in members["ud"].config.paths] == ["UD_Esperanto-Fixture"]
    unimorph = members["unimorph"].config
    assert [Path(p).name for p in unimorph.paths] == ["epo"]
    assert Path(unimorph.wuggy_lexicon).name == "orthographic_esperanto.txt"
    assert "wuggy_lexicon: a Wuggy lexicon (generated) for the pseudo task" in text


def test_a_never_seen_language_builds_with_exact_labels(
    esperanto: tuple[Path, Path, str],
) -> None:
    """Hand-checked against the fixture: eo_fixture-0968's root ``vojaĝas`` is present
    (-as), eo_fixture-1123's ``savis`` past (-is); UniMorph's ``sendata`` is a present
    participle, ``kaptus`` a conditional (no tense); the Wuggy lexicon gave the pseudo task."""
    import datasets

    _, out, _ = esperanto
    assert main(["validate", str(out)]) == 0
    tense = datasets.load_dataset(str(out), "tense")
    names = tense["test"].features["label"].names
    by_sentence = {
        r["group"].rsplit("/", 1)[1]: names[r["label"]] for split in tense.values() for r in split
    }
    assert by_sentence["eo_fixture-0968"] == "Pres"
    assert by_sentence["eo_fixture-1123"] == "Past"
    words = datasets.load_dataset(str(out), "unimorph-tense")
    names = words["test"].features["label"].names
    by_word = {r["word"]: names[r["label"]] for split in words.values() for r in split}
    assert by_word["sendata"] == "Present"
    assert by_word["kaptus"] == "None"
    pseudo = datasets.load_dataset(str(out), "pseudo")
    assert sorted(set(pseudo["train"]["label"])) == [0, 1]
    assert len(pseudo["train"]) + len(pseudo["validation"]) + len(pseudo["test"]) == 1000
