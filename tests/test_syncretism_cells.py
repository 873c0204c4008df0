"""Syncretism per paradigm cell (issue 37, item 1), on the README's German build
(SIGMORPHON 2018 ``german-train-high``, ``--scale``, ``--frequencies UD_German-GSD``).

Hand-checked lines (the forms' only entries in the 2018 files):
- ``Absicht	Absichten	N;GEN;PL``: the plural spells NOM, ACC and GEN alike (*die/der
  Absichten*);
- ``Qualifikation	Qualifikationen	N;ACC;PL``: the same plural cell;
- ``Produkt	Produkten	N;DAT;PL``: the dative plural adds *-n* (*die Produkte*, *den
  Produkten*), so its cell tells it apart.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import config_rows

from polyprobe import build_unimorph
from polyprobe.builders.word import SizeParams, single_feature
from polyprobe.builders.word.syncretism import SyncretismOptions, join_values
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.unimorph import read_unimorph

CASES = {"NOM": "Nominative", "ACC": "Accusative", "DAT": "Dative", "GEN": "Genitive"}


@pytest.fixture(scope="module")
def german_file(data_dir: Path) -> Path:
    return data_dir / "unimorph" / "sigmorphon2018" / "german-train-high"


@pytest.fixture(scope="module")
def german(data_dir: Path) -> list[LexEntry]:
    return list(read_unimorph(sorted((data_dir / "unimorph" / "sigmorphon2018").glob("german-*"))))


def _pool(entries: list[LexEntry], mode: str) -> dict[str, str]:
    options = SyncretismOptions(mode=mode)
    probe = single_feature(entries, "case", sizes=SizeParams(scale=True), syncretism=options)
    pool = probe.report.counts["labelled_pool"]
    full = single_feature(entries, "case", sizes=SizeParams(min_forms=pool), none_share=0.0,
                          syncretism=options)
    return {str(c.word): c.label for c in full.candidates}


def test_named_forms_by_cell(german: list[LexEntry]) -> None:
    merged = _pool(german, "merge")
    assert merged["Absichten"] == "Accusative/Genitive/Nominative"
    assert merged["Qualifikationen"] == "Accusative/Genitive/Nominative"
    assert merged["Produkten"] == "Dative"
    dropped = _pool(german, "drop")
    assert "Absichten" not in dropped and "Qualifikationen" not in dropped
    assert dropped["Produkten"] == "Dative"
    kept = _pool(german, "keep")  # LINSPECTOR's labels
    assert (kept["Absichten"], kept["Qualifikationen"], kept["Produkten"]) == (
        "Genitive", "Accusative", "Dative"
    )


def _independent_syncretic(path: Path) -> dict[str, set[str]]:
    """Re-derived from the file's lines, without polyprobe: per noun form, the cases its
    (lemma, number) cell cannot tell apart - attested (same lemma, same number, another
    case spelled alike) or inferred (>= 20 lemmas with both cells, >= 90 % alike)."""
    cells: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for line in path.read_text(encoding="utf-8").splitlines():
        lemma, form, tag = line.split("\t")
        parts = tag.split(";")
        if parts[0] != "N" or " " in form:
            continue
        case = next(CASES[p] for p in parts if p in CASES)
        number = "PL" if "PL" in parts else "SG"
        cells[(lemma, number)][case].add(form.casefold())
    both: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for (_, number), by_case in cells.items():
        names = sorted(by_case)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                both[(number, a, b)][0] += 1
                both[(number, a, b)][1] += bool(by_case[a] & by_case[b])
    inferred = {k for k, (n, s) in both.items() if n >= 20 and s / n >= 0.9}
    out: dict[str, set[str]] = defaultdict(set)
    for (_, number), by_case in cells.items():
        for case, forms in by_case.items():
            for form in forms:
                partners = {c for c, fs in by_case.items() if c != case and form in fs}
                for n, a, b in inferred:
                    if n == number and case in (a, b):
                        other = b if case == a else a
                        if other not in by_case or form in by_case[other]:
                            partners.add(other)
                if partners:
                    out[form] |= {case, *partners}
    return out


@pytest.fixture(scope="module")
def readme_build(german_file: Path, data_dir: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> Path:
    out = tmp_path_factory.mktemp("de-cells") / "de"
    return build_unimorph([german_file], lang="de", scale=True, tasks=["case"],
                          frequencies=[data_dir / "ud" / "UD_German-GSD"], out=out).out


def _report(out: Path) -> dict[str, Any]:
    return json.loads((out / "report.json").read_text(encoding="utf-8"))["case"]


def test_readme_build_classes_are_not_syncretic(readme_build: Path, german_file: Path) -> None:
    """Every published row, checked against the independent re-derivation: a row's class
    holds every case its cell cannot tell apart, so the share of syncretic rows per class is
    0 (<= 5 % is the acceptance)."""
    syncretic = _independent_syncretic(german_file)
    rows = config_rows(readme_build, "case")
    names = _report(readme_build)["class_counts"]
    label_names = list(names)
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for split_rows in rows.values():
        for r in split_rows:
            label = label_names[r["label"]]
            if label == "None":
                continue
            parts = set(label.split("/"))
            per_class[label][0] += 1
            per_class[label][1] += bool(syncretic.get(r["word"].casefold(), set()) - parts)
    assert set(per_class) == {"Accusative/Dative/Nominative", "Accusative/Genitive/Nominative",
                              "Dative", "Genitive"}
    for label, (n, bad) in per_class.items():
        assert n >= 100 and bad / n <= 0.05, (label, n, bad)
    shares = _report(readme_build)["derived"]["counts"]["syncretic_share"]
    assert all(v["share"] <= 0.05 for v in shares.values()), shares


def test_card_explains_agreement_and_shares(readme_build: Path) -> None:
    counts = _report(readme_build)["derived"]["counts"]
    agreement = counts["ud_agreement"]
    assert agreement["agreement"] > 0.57  # pooled merging published 0.57 (issue 37)
    card = (readme_build / "README.md").read_text(encoding="utf-8")
    assert f"treebank agreement {agreement['agreement']:.2f}: of " in card
    assert f"{agreement['in_treebanks']} forms occur in UD_German-GSD with the feature" in card
    assert "paradigm-syncretic rows per class at most 0.0%" in card


def test_keep_mode_flags_the_classes(german_file: Path, tmp_path: Path) -> None:
    """LINSPECTOR's choice: labels kept, and the card flags each class's syncretic share."""
    out = build_unimorph([german_file], lang="de", scale=True, tasks=["case"],
                         task_options={"case": {"syncretism": "keep"}},
                         out=tmp_path / "keep").out
    report = _report(out)
    assert set(report["class_counts"]) == {"Accusative", "Dative", "Genitive", "Nominative",
                                           "None"}
    shares = report["derived"]["counts"]["syncretic_share"]
    assert shares["Accusative"]["share"] == 1.0 and shares["Nominative"]["share"] == 1.0
    assert 0.3 < shares["Genitive"]["share"] < 0.7  # the plural genitives
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "FLAG: classes with more than 5% paradigm-syncretic rows" in card


def test_joined_names_keep_slashed_values() -> None:
    """UniMorph's ``PROL`` is ``Prolative/translative``: a joined class is named from its
    parts and never split again on ``/``."""
    assert join_values({"Prolative/translative", "Ablative"}) == "Ablative/Prolative/translative"
