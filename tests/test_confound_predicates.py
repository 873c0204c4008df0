"""Predicate-type confounds (issue 37, item 4) on an Armenian-style treebank written here:
presents are copular (*ուսուցիչ է*) or periphrastic (converb + aux *է*, ``Tense=Pres``); pasts
are synthetic (aorist *գնաց*, ``Tense=Past``), periphrastic (perfect participle + aux *էր*)
or copular (*բժիշկ էր*) - and Armenian UD writes the past auxiliary *էր* ``Tense=Imp``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from polyprobe import build_ud
from polyprobe.builders.confounds import predicate_audit
from polyprobe.builders.sentence.predicates import predicate_type
from polyprobe.loaders.conllu import read_conllu

LETTERS = "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ"
PRES = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
IMP = "Mood=Ind|Number=Sing|Person=3|Tense=Imp|VerbForm=Fin"
KINDS: dict[str, tuple[int, list[tuple[str, str, str, str, str]]]] = {
    # kind: (sentences, [(form, lemma, upos, feats, deprel)] after the subject)
    "cop-pres": (90, [("ուսուցիչ{s}", "ուսուցիչ{s}", "NOUN", "Case=Nom|Number=Sing", "root"),
                      ("է", "եմ", "AUX", PRES, "cop")]),
    "per-pres": (90, [("գրում{s}", "գրել{s}", "VERB", "Aspect=Imp|VerbForm=Conv", "root"),
                      ("է", "եմ", "AUX", PRES, "aux")]),
    "per-past": (60, [("կարդացել{s}", "կարդալ{s}", "VERB", "Aspect=Perf|VerbForm=Part", "root"),
                      ("էր", "եմ", "AUX", IMP, "aux")]),
    "cop-past": (30, [("բժիշկ{s}", "բժիշկ{s}", "NOUN", "Case=Nom|Number=Sing", "root"),
                      ("էր", "եմ", "AUX", IMP, "cop")]),
    "syn-past": (120, [("գնաց{s}", "գնալ{s}", "VERB",
                        "Aspect=Perf|Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin",
                        "root")]),
}


def _sentence(kind: str, i: int) -> str:
    s = LETTERS[i % 38] + LETTERS[(i // 38) % 38]
    words = [("Նա", "նա", "PRON", "_", "nsubj"), *KINDS[kind][1]]
    lines = [f"# sent_id = {kind}-{i}", "# text = " + " ".join(w[0] for w in words).format(s=s)
             + ":"]
    for k, (form, lemma, upos, feats, rel) in enumerate(words, 1):
        head = "0" if rel == "root" else "2"
        misc = "SpaceAfter=No" if k == len(words) else "_"
        lines.append(f"{k}\t{form.format(s=s)}\t{lemma.format(s=s)}\t{upos}\t_\t{feats}\t{head}"
                     f"\t{rel}\t_\t{misc}")
    lines.append(f"{len(words) + 1}\t:\t:\tPUNCT\t_\t_\t2\tpunct\t_\t_")
    return "\n".join(lines) + "\n"


def write_treebank(path: Path) -> Path:
    blocks = [_sentence(kind, i) for kind, (n, _) in KINDS.items() for i in range(n)]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def armenian(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_treebank(tmp_path_factory.mktemp("hy") / "hy_fixture-ud-train.conllu")


def _build(armenian: Path, out: Path, **options: Any) -> dict[str, Any]:
    result = build_ud([armenian], lang="hy", tasks=["tense", "tense_periphrastic"],
                      min_per_class=(5, 2, 2), out=out, **options)
    return json.loads((result.out / "report.json").read_text(encoding="utf-8"))


def _flags(entry: dict[str, Any]) -> list[str]:
    return entry["sets"]["default"]["confounds"][entry["built"][0]]["predicate_type"]["flags"]


def test_predicate_types_of_the_fixture(armenian: Path) -> None:
    kinds = {s.sent_id.rsplit("-", 1)[0]: predicate_type(s, s.root)
             for s in read_conllu(armenian)}
    assert kinds == {"cop-pres": "copular", "per-pres": "periphrastic",
                     "per-past": "periphrastic", "cop-past": "copular",
                     "syn-past": "synthetic verbal"}


def test_the_confound_is_flagged_with_the_periphrastic_type(armenian: Path,
                                                            tmp_path: Path) -> None:
    report = _build(armenian, tmp_path / "hy")
    entry = report["tense_periphrastic"]
    # Imp on the past auxiliary is read as Past, derived from the data: every periphrastic
    # and copular past is kept (before: 90 dropped as "Tense=Imp, not mapped")
    assert entry["class_counts"] == {"Past": 210, "Pres": 180}
    assert entry["derived"]["auxiliary_past"] == {"Imp": {"եմ": {
        "uses": 90, "past_participle_chains": 60, "present_uses": 180, "past_uses": 0}}}
    flags = _flags(entry)
    assert ("predicate: 100% of Pres rows have an auxiliary or copula (copular 50%, "
            "periphrastic 50%) (vs Past 43%); the rule 'has an auxiliary or copula' alone "
            "scores 76.9% (majority class 53.8%)") in flags
    strict = report["tense"]
    assert strict["class_counts"] == {"Past": 150, "Pres": 180}  # + the copular pasts
    assert strict["task_drops"] == {"periphrastic: participle root with aux/cop": 60}
    card = (tmp_path / "hy" / "README.md").read_text(encoding="utf-8")
    assert "read as Past (derived: the aux/cop lemma is never Tense=Past" in card
    assert "եմ Tense=Imp" in card


def test_without_the_derived_past_the_pasts_are_dropped(armenian: Path, tmp_path: Path) -> None:
    """The issue's Armenian numbers: Present rows all aux/cop, Past rows none."""
    report = _build(armenian, tmp_path / "off", task_options={
        "tense_periphrastic": {"derive_auxiliary_past": False}})
    entry = report["tense_periphrastic"]
    assert entry["class_counts"] == {"Past": 120, "Pres": 180}
    assert entry["task_drops"] == {"Tense=Imp (not Past/Pres, not mapped)": 90}
    assert any(f.startswith("predicate: 100% of Pres rows have an auxiliary or copula "
                            "(copular 50%, periphrastic 50%) (vs Past 0%)") for f in _flags(entry))


def test_grouped_flag_needs_periphrastic_rows() -> None:
    """A copular-only split is the per-type flag already; no second flag."""
    result = predicate_audit({"Pres": {"copular": 90, "synthetic verbal": 10},
                              "Past": {"synthetic verbal": 100}}, ["Past", "Pres"])
    assert result["flags"] == [
        "predicate type: 100% of Past rows have predicate type 'synthetic verbal' (vs Pres 10%)",
        "predicate type: 90% of Pres rows have predicate type 'copular' (vs Past 0%)",
    ]
    assert result["aux_or_copula"]["rule_accuracy"] == 0.95
