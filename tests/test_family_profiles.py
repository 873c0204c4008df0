"""A profile reaches every family the same way: a misspelt key in ``[family]`` or in
``[tasks.<name>]`` is refused with the valid keys listed, and each documented option changes
the output of the family that documents it (one test per family; the other families' tests
are in ``test_family_profiles_*.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import config_rows
from profile_helpers import card, refuses, write

from polyprobe.cards.validate import validate


def test_ud_profile(data_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_ud

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_ud(
            [data_dir / "ud" / "UD_English-PUD"],
            lang="en",
            out=out,
            tasks=["subject_number"],
            min_per_class=(5, 2, 2),
            balances=["natural"],
            profile=profile,
        )

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "splitt", "split")
    refuses(build, tmp_path, "tasks.subject_number", "subject_upoz", "subject_upos")
    # docs/tasks.md: [tasks.subject_number] subject_upos; README: [family] options
    profile = write(
        tmp_path / "p.toml",
        '[family]\nsplit = "ratio:70/15/15"\n\n'
        '[tasks.subject_number]\nsubject_upos = ["NOUN", "PRON"]\n',
    )
    changed = build(tmp_path / "changed", profile)
    assert validate(changed.out).ok
    assert changed.fingerprint != plain.fingerprint
    meta = card(changed.out)
    assert meta["parameters"]["split"] == "ratio:70/15/15"
    assert meta["profile"]["overrides"]["file"] == "p.toml"
    before = config_rows(plain.out, "subject_number")
    after = config_rows(changed.out, "subject_number")
    assert sum(map(len, after.values())) > sum(map(len, before.values()))  # pronouns admitted


def test_trec_profile(data_dir: Path, tmp_path: Path) -> None:
    from polyprobe import build_trec

    lines = []
    for name in ("train_5500.label", "TREC_10.label"):
        for line in (data_dir / "trec" / name).read_bytes().decode("latin-1").splitlines():
            if line.strip():
                lines.append(line.split(" ", 1)[1].upper())
    translation = write(tmp_path / "trec.de.txt", "\n".join(lines) + "\n")

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_trec(
            data_dir / "trec", lang="de", out=out, translation=translation, profile=profile
        )

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "translater", "translator")
    refuses(build, tmp_path, "tasks.trec-coarse", "anything", "none")
    # README: --translator (a [family] option) names the system in the card
    profile = write(tmp_path / "p.toml", '[family]\ntranslator = "opus-mt-en-de"\n')
    changed = build(tmp_path / "changed", profile)
    assert changed.fingerprint != plain.fingerprint
    assert card(changed.out)["parameters"]["translation"]["system"] == "opus-mt-en-de"
    assert card(plain.out)["parameters"]["translation"]["system"] == "unknown"


def test_rst_profile(tmp_path: Path) -> None:
    from test_discourse_rst import DIS, RS3

    from polyprobe import build_rst

    root = tmp_path / "rst"
    for split in ("train", "dev", "test"):
        for i in range(4):
            (root / split).mkdir(parents=True, exist_ok=True)
            text = RS3.replace("quarter,", f"quarter of {split}{i},")
            write(root / split / f"doc{i}.rs3", text)
            write(root / split / f"wsj{i}.dis", DIS.replace("Last year,", f"In {split}{i},"))

    def build(out: Path, profile: Path | None = None) -> Any:
        return build_rst([root], lang="en", out=out, min_per_class=(1, 1, 1), profile=profile)

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "relation_mapp", "relation_map")
    refuses(build, tmp_path, "tasks.discourse_relations", "nuclearty", "nuclearity")
    # README: the relation map may come from [tasks.discourse_relations] relation_map
    profile = write(
        tmp_path / "p.toml",
        "[tasks.discourse_relations]\nnuclearity = false\n"
        'relation_map = { elaboration = "Expansion", circumstance = "Temporal" }\n',
    )
    changed = build(tmp_path / "changed", profile)
    assert changed.fingerprint != plain.fingerprint
    labels = card(changed.out)["configs"]["discourse_relations"]["labels"]
    assert set(labels) <= {"Expansion", "Temporal"}


@pytest.mark.parametrize("family", ["classification", "pairs", "regression"])
def test_tabular_profile(family: str, tmp_path: Path) -> None:
    import polyprobe

    rows = ["id\tsentence1\tsentence2\tlabel\tscore\tsplit"]
    for i in range(60):
        split = ("train", "dev", "test")[i % 3]
        rows.append(f"r{i}\tA dog runs {i} .\tA cat sits {i} .\t{i % 2}\t{i % 5}.0\t{split}")
    data = write(tmp_path / "rows.tsv", "\n".join(rows) + "\n")
    columns = {
        "classification": "id=id,text=sentence1,label=label,split=split",
        "pairs": "id=id,sentence1=sentence1,sentence2=sentence2,label=label,split=split",
        "regression": "id=id,sentence1=sentence1,sentence2=sentence2,score=score,split=split",
    }[family]

    def build(out: Path, profile: Path | None = None) -> Any:
        fn = getattr(polyprobe, f"build_{family}")
        return fn([data], columns=columns, lang="en", out=out, profile=profile)

    plain = build(tmp_path / "plain")
    refuses(build, tmp_path, "family", "pair_feature", "pair_features")
    refuses(build, tmp_path, f"tasks.{family}", "labels_x", "none")
    # README: a pair config's evaluation features are the card's pair_features; a profile's
    # [family] sets them (and the config's name)
    option = 'pair_features = "spanish"' if family != "classification" else 'name = "mine"'
    changed = build(tmp_path / "changed", write(tmp_path / "p.toml", f"[family]\n{option}\n"))
    assert changed.fingerprint != plain.fingerprint
    configs = card(changed.out)["configs"]
    if family == "classification":
        assert list(configs) == ["mine"]
    else:
        assert configs[family]["pair_features"] == "spanish"
        assert "pair_features" not in card(plain.out)["configs"][family]
