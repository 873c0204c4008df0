"""Morphological analogies generated from UniMorph: English and Slovene lexicons (ranked by
the shared UD treebanks' frequencies) and a SIGMORPHON 2023 language (Finnish): categories
listed with their sizes, every question checked against the raw lexicon lines: its two pairs
are real paradigm cells of two lemmas, and no word of it is a syncretic cell."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from polyprobe import build_analogies
from polyprobe.builders.lexical.generate import GenerationOptions, generate
from polyprobe.cards.validate import validate
from polyprobe.loaders.frequency import load_frequencies
from polyprobe.loaders.unimorph import read_unimorph

FIN_2023 = ("fin.trn", "fin.dev", "fin.tst")


def atoms_of(tag: str) -> frozenset[str]:
    """A tag's atoms, SIGMORPHON 2023's parentheses read as separators (``ADJ;GEN(SG)``)."""
    return frozenset(a for a in tag.replace("(", ";").replace(")", ";").split(";") if a)


def raw_paradigms(paths: list[Path]) -> dict[str, dict[frozenset[str], set[str]]]:
    """lemma -> tag atoms -> forms, straight from the TSV lines (no polyprobe decoding):
    ``lemma TAB form TAB tag`` (UniMorph, SIGMORPHON 2018) or ``lemma TAB tag TAB form``
    (SIGMORPHON 2023)."""
    out: dict[str, dict[frozenset[str], set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            f = line.split("\t")
            if len(f) < 3 or not f[0]:
                continue
            lemma, form, tag = (
                (f[0], f[2], f[1]) if path.suffix in (".trn", ".dev", ".tst") else f[:3]
            )
            out[lemma][atoms_of(tag)].add(form)
    return out


def check_no_syncretic_cell(aset, paths: list[Path]) -> int:
    """Every question a : b :: c : d: some lemma has a (only) in the category's first cell and
    b (only) in its second, and neither form also realises a cell of that lemma that differs
    from its own on the contrasted tag atoms. Returns the questions checked."""
    pars = raw_paradigms(paths)
    by_tag = {}
    for name in aset.categories:
        src, dst = name.split("->")
        by_tag[name] = (atoms_of(src), atoms_of(dst))
    lemmas_of: dict[tuple[frozenset[str], str], list[str]] = defaultdict(list)
    for lemma, cells in pars.items():
        for cell, forms in cells.items():
            for form in forms:
                lemmas_of[(cell, form)].append(lemma)
    checked = 0
    for q in aset.questions:
        a_cell, b_cell = by_tag[q.category]
        contrasted = a_cell ^ b_cell
        a, b, c, d = q.words
        for x, y in ((a, b), (c, d)):
            ok = False
            for lemma in lemmas_of[(a_cell, x)]:
                cells = pars[lemma]
                if cells.get(a_cell) != {x} or cells.get(b_cell) != {y}:
                    continue
                clean = True
                for form, own in ((x, a_cell), (y, b_cell)):
                    for other, forms in cells.items():
                        if (
                            other != own
                            and form in forms
                            and (other & contrasted) != (own & contrasted)
                        ):
                            clean = False
                ok = ok or clean
            assert ok, f"{q.category}: {x} : {y} is not a clean pair of one lemma"
        checked += 1
    return checked


@pytest.mark.parametrize(
    ("lexicon", "treebank", "expect"),
    [
        ("lexicons/eng", "UD_English-EWT", "V;NFIN->V;3;SG;PRS"),
        ("lexicons/slv", "UD_Slovenian-SSJ", "N;ACC;SG->N;ACC;PL"),
    ],
)
def test_generated_categories_have_no_syncretic_cell(
    data_dir: Path, lexicon: str, treebank: str, expect: str
) -> None:
    path = data_dir / "unimorph" / lexicon
    freq = load_frequencies(data_dir / "ud" / treebank)
    aset, report = generate(read_unimorph(path), name="x", path=str(path), frequencies=freq)
    assert expect in aset.categories
    assert 4 <= len(aset.categories) <= 15
    for name in aset.categories:
        c = report["categories"][name]
        assert c["questions"] == sum(1 for q in aset.questions if q.category == name) > 0
        assert c["pairs_used"] <= 40 and c["questions"] <= 500
    assert not any(aset.semantic.values())  # all morphological
    assert check_no_syncretic_cell(aset, [path]) == len(aset.questions)


def test_syncretic_lemmas_are_left_out(data_dir: Path) -> None:
    """English regular verbs have one form for V;PST and V;V.PTCP;PST (``walked``), which
    differ on no contrasted feature of V;NFIN->V;PST: they are usable. But in
    V;PST->V;V.PTCP;PST the two cells *are* the contrast, so only verbs with two different
    forms (``sang``/``sung``) appear."""
    path = data_dir / "unimorph" / "lexicons" / "eng"
    aset, report = generate(read_unimorph(path), name="x", path=str(path))
    pst = [q for q in aset.questions if q.category == "V;PST->V;V.PTCP;PST"]
    assert pst and all(q.words[0] != q.words[1] and q.words[2] != q.words[3] for q in pst)
    assert report["categories"]["V;PST->V;V.PTCP;PST"]["lemmas_usable"] < 1000
    assert report["categories"]["V;NFIN->V;PST"]["lemmas_usable"] > 10000


def test_sigmorphon_language_builds(data_dir: Path, tmp_path: Path) -> None:
    files = [data_dir / "unimorph" / "sigmorphon2023" / f for f in FIN_2023]
    r = build_analogies(
        unimorph=files,
        frequencies=[data_dir / "ud" / "UD_Finnish-TDT"],
        lang="fi",
        out=tmp_path / "fi",
    )
    assert validate(r.out).ok
    front = yaml.safe_load((r.out / "README.md").read_text(encoding="utf-8").split("---")[1])
    main = r.tasks[0].task
    assert main == "unimorph-analogies-fi"
    profile = front["polyprobe"]["profile"]["tasks"][main]["categories"]
    assert len(profile) >= 5 and all(not c["is_semantic"] for c in profile.values())
    sizes = {name: c["questions"] for name, c in profile.items()}
    assert sum(sizes.values()) == r.tasks[0].rows["test"]
    kinds = [s["kind"] for s in front["polyprobe"]["sources"]]
    assert kinds == ["unimorph", "frequency-ud"]
    notes = (r.out / "README.md").read_text(encoding="utf-8")
    assert "Category " in notes and "questions from" in notes
    again = generate(
        read_unimorph(files), name="x", path=str(files[0]), options=GenerationOptions(), seed=0
    )[0]
    assert check_no_syncretic_cell(again, files) == len(again.questions)


def test_cross_lingual_analogies(tmp_path: Path) -> None:
    """Two small lexicons (English and German nouns, N;NOM;SG and N;NOM;PL): the
    cross-lingual set takes a : b from English and c : d from German, for the shared
    category."""
    en = tmp_path / "eng"
    en.write_text(
        "".join(
            f"{s}\t{s}\tN;NOM;SG\n{s}\t{p}\tN;NOM;PL\n"
            for s, p in [("cat", "cats"), ("dog", "dogs"), ("house", "houses"), ("tree", "trees")]
        ),
        encoding="utf-8",
    )
    de = tmp_path / "deu"
    de.write_text(
        "".join(
            f"{s}\t{s}\tN;NOM;SG\n{s}\t{p}\tN;NOM;PL\n"
            for s, p in [("Katze", "Katzen"), ("Hund", "Hunde"), ("Haus", "Häuser")]
        ),
        encoding="utf-8",
    )
    r = build_analogies(
        unimorph=[en],
        cross_unimorph=[de],
        cross_lang="de",
        lang="en",
        min_pairs=3,
        out=tmp_path / "x",
    )
    assert validate(r.out).ok
    names = [t.task for t in r.tasks]
    assert "unimorph-analogies-en-de" in names
    import datasets

    ds = datasets.load_dataset(str(r.out), "unimorph-analogies-en-de")["test"]
    assert len(ds) == 4 * 3  # every English pair with every German pair
    for row in ds:
        assert row["word1"] in {"cat", "dog", "house", "tree"}
        assert row["word3"] in {"Katze", "Hund", "Haus"}
