"""Cross-lingual word analogies: ``build analogies FILES --cross FILES --cross-lang xx`` (two
languages' sets in the same layout, EMBEDDIA-style: categories by name, line-aligned
translations) and ``--unimorph ... --cross-unimorph`` (lexicons aligned by features); the card
names both languages, the profile the direction, and evaluation searches word4 among the
second language's words of the set only.

The accuracy test uses a word-vector file written here, where every vector is built from
one-hot parts so the right answer of each question is known by hand (see ``_vectors``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from polyprobe import build_analogies
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.evaluation.encoders import build_encoder
from polyprobe.evaluation.lexical.run import analogy_scores, evaluate_lexical
from polyprobe.evaluation.lexical.space import file_space

FIXTURES = Path(__file__).parent / "fixtures" / "analogies_cross"
EN, SL = FIXTURES / "embeddia-en.txt", FIXTURES / "embeddia-sl.txt"
CITIES_EN = ["paris", "rome", "berlin", "madrid"]
COUNTRIES_EN = ["france", "italy", "germany", "spain"]
CITIES_SL = ["pariz", "rim", "berlin", "madrid"]  # Berlin and Madrid are spelt alike
COUNTRIES_SL = ["francija", "italija", "nemčija", "španija"]
ADJ_EN, CMP_EN = ["big", "small", "old", "warm"], ["bigger", "smaller", "older", "warmer"]
ADJ_SL, CMP_SL = ["velik", "majhen", "star", "topel"], ["večji", "manjši", "starejši", "toplejši"]


def _vectors(path: Path) -> Path:
    """12 dimensions: e0-e3 the four cities, e4-e7 the four adjectives, e8 capital→country,
    e9 adjective→comparative, e10 a Slovene offset (0.5), e11 the Slovene comparatives'
    direction (they do *not* follow e9). A decoy word ``zzz`` first in the file has
    ``francija``'s vector. Expected, by hand: for a cross question a : b (English) :: c : d
    (Slovene), b - a + c is d exactly or d's nearest Slovene word (cos 0.943 or 0.556 against
    at most 0.471 for any other Slovene word), while an English word or the decoy is nearer
    in 7 of the 8 questions (germany, spain, zzz; bigger, smaller, older, warmer)."""
    e = np.eye(12)
    vecs: dict[str, np.ndarray] = {"zzz": e[0] + e[8] + 0.5 * e[10]}
    for i in range(4):
        vecs[CITIES_EN[i]] = e[i]
        vecs[COUNTRIES_EN[i]] = e[i] + e[8]
        vecs[ADJ_EN[i]] = e[4 + i]
        vecs[CMP_EN[i]] = e[4 + i] + e[9]
        vecs.setdefault(CITIES_SL[i], e[i] + 0.5 * e[10])  # berlin, madrid: the English ones
        vecs[COUNTRIES_SL[i]] = e[i] + e[8] + 0.5 * e[10]
        vecs[ADJ_SL[i]] = e[4 + i] + 0.5 * e[10]
        vecs[CMP_SL[i]] = e[4 + i] + e[11] + 0.5 * e[10]
    lines = [f"{len(vecs)} 12"] + [f"{w} " + " ".join(f"{x:g}" for x in v) for w, v in vecs.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("xa") / "embeddia"
    build_analogies([EN], lang="en", cross=[SL], cross_lang="sl", out=out)
    return out


def test_build_card_and_rows(built: Path) -> None:
    import datasets

    assert validate(built).ok
    text = (built / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---")[1])
    assert meta["language"] == ["en", "sl"] and meta["multilinguality"] == ["multilingual"]
    assert "word1 : word2 in en, word3 : word4 in sl" in text
    cross = meta["polyprobe"]["profile"]["tasks"]["embeddia-en-sl"]["cross_lingual"]
    assert cross["languages"] == ["en", "sl"] and cross["direction"] == "en -> sl"
    ds = datasets.load_dataset(str(built), "embeddia-en-sl")["test"]
    assert len(ds) == 8
    row = next(r for r in ds if r["id"] == "embeddia-en-sl/capital-country/1")
    # line-aligned: English question 2's first pair, Slovene question 2's second
    assert (row["word1"], row["word2"], row["word3"], row["word4"]) == (
        "rome",
        "italy",
        "berlin",
        "nemčija",
    )
    assert len(datasets.load_dataset(str(built), "embeddia-en")["test"]) == 8  # monolingual


def test_accuracy_on_hand_made_vectors(built: Path, tmp_path: Path) -> None:
    vec = _vectors(tmp_path / "tiny.vec")
    mono, cross = evaluate_lexical(
        str(built), ["embeddia-en", "embeddia-en-sl"], [f"vec:{vec}"], out=tmp_path / "r"
    )
    # the monolingual set: every answer is b - a + c exactly, no restriction
    assert (
        mono["scores"]["overall"]["3cosadd"]["correct"] == 8
        and "cross_lingual" not in (mono["scores"])
    )
    s = cross["scores"]
    assert s["cross_lingual"] == {
        "languages": ["en", "sl"],
        "direction": "en -> sl",
        "answer_candidates": 16,  # the set's Slovene words (berlin, madrid included)
    }
    assert s["overall"]["3cosadd"]["correct"] == 8 and s["overall"]["3cosadd"]["accuracy"] == 1
    assert s["categories"]["capital-country"]["3cosadd"]["correct"] == 4
    assert "16 sl words" in cross["space"]["answers"]
    # the same questions searched over the whole vector file: 1 of 8 (the decoy, English)
    space = file_space(build_encoder(f"vec:{vec}"), None)
    import datasets

    ds = datasets.load_dataset(str(built), "embeddia-en-sl")["test"]
    questions = [(r["word1"], r["word2"], r["word3"], r["word4"]) for r in ds]
    names = ds.features["label"].names
    cats = [names[r["label"]] for r in ds]
    free = analogy_scores(space, questions, cats, {c: True for c in names})
    assert free["overall"]["3cosadd"]["correct"] == 1
    from polyprobe.evaluation.lexical.report import lexical_markdown

    md = lexical_markdown([cross])
    assert "| embeddia-en-sl (en -> sl) | overall |" in md


def test_not_line_aligned_category_pairs_every_combination(tmp_path: Path) -> None:
    import datasets

    sl = tmp_path / "embeddia-sl.txt"
    lines = SL.read_text(encoding="utf-8").splitlines()
    sl.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # 3 comparative questions
    out = tmp_path / "x"
    build_analogies([EN], lang="en", cross=[sl], cross_lang="sl", out=out)
    ds = datasets.load_dataset(str(out), "embeddia-en-sl-adj-comparative")["test"]
    assert len(ds) == 4 * 4  # 4 distinct English pairs x 4 distinct Slovene pairs
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "Category adj-comparative: 4 and 3 questions (not line-aligned)" in text
    assert "Category capital-country: 4 line-aligned questions." in text


def test_unimorph_cross_lingual_names_both_languages(tmp_path: Path) -> None:
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
    out = tmp_path / "u"
    build_analogies(
        unimorph=[en], cross_unimorph=[de], cross_lang="de", lang="en", min_pairs=3, out=out
    )
    assert validate(out).ok
    meta = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---")[1])
    assert meta["language"] == ["en", "de"]
    tasks = meta["polyprobe"]["profile"]["tasks"]
    assert tasks["unimorph-analogies-en-de"]["cross_lingual"]["direction"] == "en -> de"
    assert "cross_lingual" not in tasks["unimorph-analogies-en"]
    (res,) = evaluate_lexical(str(out), "unimorph-analogies-en-de", ["random"])
    assert res["scores"]["cross_lingual"]["answer_candidates"] == 6  # the German forms
    assert res["scores"]["overall"]["questions"] == 12


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cross", str(SL)], "build analogies: --cross needs --cross-lang (its language)"),
        (
            ["--cross", str(SL), "--cross-lang", "en"],
            "build analogies: --cross-lang en is --lang: a cross-lingual set needs two languages",
        ),
    ],
)
def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code = main(["build", "analogies", str(EN), "--lang", "en", *extra, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.strip().splitlines() == [f"polyprobe: error: {message}"]
