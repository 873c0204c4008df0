"""Bilingual dictionaries: Multi-SimLex concepts as a fi-en dictionary and a user's
``src TAB tgt`` file; split by source word (no source word in train and test); bad lines
named; evaluated by Procrustes + P@k (NN and CSLS) both ways."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

from polyprobe import build_dictionary
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.evaluation.lexical import evaluate_lexical
from polyprobe.loaders.dictionary import multisimlex_dictionary, read_pairs_file, variants
from polyprobe.loaders.source import InvalidPolicy

MSL = "word_similarity/multisimlex_concepticon/Vulic-2020-2244.tsv"


def test_multisimlex_concepts_as_translations(data_dir: Path) -> None:
    d = multisimlex_dictionary(data_dir / MSL, "fi", "en", InvalidPolicy())
    pairs = {(p.source, p.target): p.pos for p in d.pairs}
    # concept 1 (statue): FINNISH patsas, ENGLISH statue, POS nouns
    assert pairs[("patsas", "statue")] == "nouns"
    # concept 2 (permit): FINNISH "antaa lupa" (a multiword translation), verbs
    assert pairs[("antaa lupa", "permit")] == "verbs"
    assert variants("drwg (gwael/drwg  )") == ["drwg", "gwael"]
    assert variants("moottori  (moottori)") == ["moottori"]
    cy = multisimlex_dictionary(data_dir / MSL, "cy", "en", InvalidPolicy())
    muscle = {p.source for p in cy.pairs if p.target == "muscle"}
    assert muscle == {"cyhyrau", "cyhyr"}  # WELSH "cyhyrau (cyhyr)"


def test_user_dictionary_and_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "en-de.txt"
    path.write_text("dog\tHund\ncat Katze\nbird\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"en-de.txt:3: expected a source word and a target"):
        read_pairs_file(path, InvalidPolicy())
    pairs = read_pairs_file(path, InvalidPolicy("skip"))
    assert [(p.source, p.target) for p in pairs] == [("dog", "Hund"), ("cat", "Katze")]


def test_split_by_source_word_and_evaluate(
    data_dir: Path, tmp_path: Path, hf_offline: None
) -> None:
    r = build_dictionary(
        data_dir / MSL, lang="fi", target_lang="en", multisimlex=True, out=tmp_path / "d"
    )
    assert validate(r.out).ok
    ds = datasets.load_dataset(str(r.out), "multisimlex-fi-en")
    assert sorted(ds) == ["test", "train"]
    train_src = set(ds["train"]["word1"])
    test_src = set(ds["test"]["word1"])
    assert not train_src & test_src
    assert 0.15 < len(ds["test"]) / (len(ds["train"]) + len(ds["test"])) < 0.25
    (res,) = evaluate_lexical(str(r.out), "all", ["char-ngrams"])
    s = res["scores"]
    assert s["test_pairs"] == len(ds["test"]) and s["oov_test_pairs"] == 0
    for direction in ("source_to_target", "target_to_source"):
        nn, csls = s[direction]["nn"], s[direction]["csls"]
        assert 0 <= nn["p@1"] <= nn["p@5"] <= nn["p@10"] <= 1
        assert 0 <= csls["p@1"] <= csls["p@5"] <= csls["p@10"] <= 1
    user = tmp_path / "fi-en.tsv"
    user.write_text(
        "".join(f"sana{i}\tword{i}\n" for i in range(50)) + "sana0\tterm0\n", encoding="utf-8"
    )
    u = build_dictionary(user, lang="fi", target_lang="en", out=tmp_path / "u")
    assert validate(u.out).ok
    uds = datasets.load_dataset(str(u.out), "fi-en")
    both = [x for split in uds for x in uds[split] if x["word1"] == "sana0"]
    assert len(both) == 2 and len({x["id"] for x in both}) == 2
    assert len({s for s in uds if any(x["word1"] == "sana0" for x in uds[s])}) == 1
