"""The UD downstream tasks ``pos`` (token-level UPOS tagging) and ``deprel`` (arc labelling):
hand-checked rows, multiword tokens, group-aware splits, options, and a build on every shared
treebank."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import all_treebanks, config_rows

from polyprobe import build_ud
from polyprobe.builders.families.ud import UD
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.errors import UsageError


def _labelled(folder: Path, config: str, sent_id: str) -> list[tuple[str, dict]]:
    """(split, row with its label name) of every row of one sentence."""
    names = read_readme(folder / "README.md")[0]["polyprobe"]["configs"][config]["labels"]
    return [
        (split, {**row, "label": names[row["label"]]})
        for split, rows in config_rows(folder, config).items()
        for row in rows
        if row["id"].split("/")[1] == sent_id
    ]


@pytest.fixture(scope="module")
def pud_en_es(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for lang, name in (("en", "English"), ("es", "Spanish")):
        folder = tmp_path_factory.mktemp(lang) / "ds"
        build_ud(
            [ud_dir / f"UD_{name}-PUD"], lang=lang, out=folder, tasks=["pos", "deprel"], jobs=1
        )
        out[lang] = folder
    return out


def test_not_in_the_default_set_but_named_or_grouped() -> None:
    assert "pos" not in UD.tasks.resolve(None)
    assert UD.tasks.resolve(["downstream"]) == ["pos", "deprel", "parse"]


def test_pos_rows_of_a_named_sentence(pud_en_es: dict[str, Path]) -> None:
    """UD_English-PUD n01003013 "Maybe the dress code was too stuffy.":

        1 Maybe maybe ADV RB _ 7 advmod
        2 the the DET DT Definite=Def|PronType=Art 4 det
        3 dress dress NOUN NN Number=Sing 4 compound
        4 code code NOUN NN Number=Sing 7 nsubj
        5 was be AUX VBD Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin 7 cop
        6 too too ADV RB _ 7 advmod
        7 stuffy stuffy ADJ JJ Degree=Pos 0 root
        8 . . PUNCT . _ 7 punct

    every token is a row, all in one split (the sentence's group)."""
    rows = _labelled(pud_en_es["en"], "pos", "n01003013")
    assert len({split for split, _ in rows}) == 1
    assert len({row["group"] for _, row in rows}) == 1
    tags = {row["target_index"]: row["label"] for _, row in rows}
    assert tags == {
        0: "ADV",
        1: "DET",
        2: "NOUN",
        3: "NOUN",
        4: "AUX",
        5: "ADV",
        6: "ADJ",
        7: "PUNCT",
    }
    assert rows[0][1]["tokens"][3] == "code"
    assert rows[0][1]["lexical_key"] == ""


def test_deprel_rows_of_a_named_sentence(pud_en_es: dict[str, Path]) -> None:
    """The same sentence: every arc but the root's (``stuffy``), dependent and head indices
    into the tokens (0-based)."""
    rows = _labelled(pud_en_es["en"], "deprel", "n01003013")
    arcs = {(r["target_index"], r["head_index"]): r["label"] for _, r in rows}
    assert arcs == {
        (0, 6): "advmod",
        (1, 3): "det",
        (2, 3): "compound",
        (3, 6): "nsubj",
        (4, 6): "cop",
        (5, 6): "advmod",
        (7, 6): "punct",
    }


def test_multiword_tokens_are_never_targets(pud_en_es: dict[str, Path]) -> None:
    """UD_Spanish-PUD n01002017 "Sin embargo, el candidato del Partido Republicano ...":

        4 el el DET DT Definite=Def|... 5 det
        5 candidato candidato NOUN NN Gender=Masc|Number=Sing 10 nsubj
        6-7 del _ _ _ _ _ _
        6 de de ADP INDT _ 8 case
        7 el el DET _ Definite=Def|... 8 det
        8 Partido partido NOUN NN Gender=Masc|Number=Sing 5 nmod

    surface tokens: Sin(0) embargo(1) ,(2) el(3) candidato(4) del(5) Partido(6): ``del`` is
    no row of ``pos`` and no dependent of ``deprel``; Partido → candidato is nmod."""
    folder = pud_en_es["es"]
    pos = {r["target_index"]: r["label"] for _, r in _labelled(folder, "pos", "n01002017")}
    assert 5 not in pos and pos[4] == "NOUN" and pos[6] == "NOUN"
    arcs = {
        (r["target_index"], r["head_index"]): r["label"]
        for _, r in _labelled(folder, "deprel", "n01002017")
    }
    assert arcs[(6, 4)] == "nmod" and arcs[(3, 4)] == "det"
    assert not any(5 in arc for arc in arcs)
    report = read_readme(folder / "README.md")[0]["polyprobe"]
    assert report["profile"]["tasks"]["pos"]["labels"][0] in ("NOUN", "ADP")
    report_json = json.loads((folder / "report.json").read_text())
    assert report_json["pos"]["task_drops"]["word inside a multiword token"] > 100


def test_universal_relations_unless_subtypes(ud_dir: Path, tmp_path: Path) -> None:
    """English PUD uses subtypes (``nmod:poss``, ``compound:prt``): folded by default."""
    out = tmp_path / "sub"
    build_ud(
        [ud_dir / "UD_English-PUD"],
        lang="en",
        out=out,
        tasks=["deprel"],
        task_options={"deprel": {"subtypes": True}},
        jobs=1,
    )
    labels = read_readme(out / "README.md")[0]["polyprobe"]["configs"]["deprel"]["labels"]
    assert "nmod:poss" in labels


def test_folded_labels_and_valid_folders(pud_en_es: dict[str, Path]) -> None:
    for folder in pud_en_es.values():
        assert validate(folder).ok, str(validate(folder))
        pp = read_readme(folder / "README.md")[0]["polyprobe"]
        assert not any(":" in lab for lab in pp["configs"]["deprel"]["labels"])
        assert pp["configs"]["deprel"]["level"] == "arc"
        assert pp["configs"]["deprel"]["inputs"] == [
            "sentence",
            "tokens",
            "target_index",
            "head_index",
        ]
        # downstream: the recommended config is the natural distribution
        assert pp["configs"]["pos"]["variant"]["balance"] == "natural"


def test_unknown_option_is_refused(ud_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="subtype"):
        build_ud(
            [ud_dir / "UD_English-PUD"],
            lang="en",
            out=tmp_path / "x",
            tasks=["deprel"],
            task_options={"deprel": {"subtype": True}},
        )


@pytest.mark.parametrize("treebank", all_treebanks())
def test_builds_for_every_shared_treebank(ud_dir: Path, tmp_path: Path, treebank: str) -> None:
    """Both tasks build from each shared treebank (its smallest CoNLL-U file, to keep the
    suite fast: the tasks read every token, so a file is as good a test as the folder)."""
    from polyprobe.loaders.sources import discover

    source = discover([ud_dir / treebank])[0]
    smallest = min((Path(f.path) for f in source.files), key=lambda p: p.stat().st_size)
    lang = source.languages[0].tag
    result = build_ud(
        [smallest],
        lang=lang,
        out=tmp_path / "ds",
        tasks=["pos", "deprel"],
        min_per_class=(20, 5, 5),
        balances=["natural"],
        jobs=1,
    )
    built = {t.task: t.configs for t in result.tasks}
    assert built["pos"] and built["deprel"], [(t.task, t.infeasible) for t in result.tasks]
