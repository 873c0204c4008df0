"""``build ner`` on hand-made fixtures (tests/fixtures/ner): the English one in CoNLL-2003's
layout with IOB1 tags and ``-DOCSTART-`` lines (eng.train/testa/testb), the German one
WikiANN-style (``de:token<TAB>tag``, IOB2, one file without a split, one sentence twice).

Hand counts. English: train 8 sentences, 55 tokens, entities LOC 5, MISC 4, ORG 5, PER 3; dev
(eng.testa) 3 sentences, 26 tokens, LOC 1, MISC 1, ORG 3, PER 1; test (eng.testb) 4
sentences, 26 tokens, LOC 5, MISC 1, PER 1. German: 14 sentences, 90 tokens, LOC 14, ORG 6,
PER 8.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import config_rows

import polyprobe
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.iob_schemes import detect_scheme, to_iob2
from polyprobe.loaders.sniff import sniff

FIXTURES = Path(__file__).parent / "fixtures" / "ner"
EN_LABELS = ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER", "I-PER"]


def _names(folder: Path) -> list[str]:
    import json

    info = json.loads((folder / "report.json").read_text())
    return info["ner"]["derived"]["labels"]


def _sentences(rows: list[dict[str, Any]], names: list[str]) -> dict[str, list[str]]:
    """sentence text -> its tags in token order (from the rows' target_index)."""
    out: dict[str, dict[int, str]] = {}
    for r in rows:
        out.setdefault(r["sentence"], {})[r["target_index"]] = names[r["label"]]
    return {s: [tags[i] for i in sorted(tags)] for s, tags in out.items()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("ner")
    en = polyprobe.build_ner([FIXTURES / "en"], lang="en", out=out / "en")
    de = polyprobe.build_ner([FIXTURES / "de" / "wikiann-de.tsv"], lang="de", out=out / "de")
    again = polyprobe.build_ner([FIXTURES / "en"], lang="en", out=out / "en2")
    return {"en": en, "de": de, "en2": again, "out": out}


def test_english_rows_are_iob2_tags_per_token(built: dict[str, Any]) -> None:
    folder = built["en"].out
    names = _names(folder)
    assert names == EN_LABELS  # O, then B/I per type, alphabetical
    rows = config_rows(folder, "ner")
    assert {s: len(r) for s, r in rows.items()} == {"train": 55, "validation": 26, "test": 26}
    train = _sentences(rows["train"], names)
    # eng.train line 46: IOB1 "Schalke I-ORG / Bayern B-ORG / Munich I-ORG": two chunks
    assert train["Schalke Bayern Munich drew 1-1 ."] == ["B-ORG", "B-ORG", "I-ORG", "O", "O", "O"]
    # IOB1 -> IOB2 on a named token: "EU I-ORG" opens its chunk, so it is B-ORG
    assert train["EU rejects German call to boycott British lamb ."][0] == "B-ORG"
    assert _sentences(rows["test"], names)["AL-AIN , United Arab Emirates 1996-12-06"] == [
        "B-LOC",
        "O",
        "B-LOC",
        "I-LOC",
        "I-LOC",
        "O",
    ]
    # every row of a sentence is one group; no group in two splits
    groups = {split: {r["group"] for r in rs} for split, rs in rows.items()}
    assert not groups["train"] & groups["validation"]
    assert not groups["train"] & groups["test"]
    assert not groups["validation"] & groups["test"]
    assert len(groups["train"]) == 8 and len(groups["test"]) == 4


def test_english_counts_in_the_card(built: dict[str, Any]) -> None:
    import json

    derived = json.loads((built["en"].out / "report.json").read_text())["ner"]["derived"]
    assert derived["sentences"] == {"train": 8, "dev": 3, "test": 4}
    assert derived["tokens"] == {"train": 55, "dev": 26, "test": 26}
    assert derived["entities"]["train"] == {"LOC": 5, "MISC": 4, "ORG": 5, "PER": 3}
    assert derived["entities"]["dev"] == {"LOC": 1, "MISC": 1, "ORG": 3, "PER": 1}
    assert derived["entities"]["test"] == {"LOC": 5, "MISC": 1, "PER": 1}
    card = (built["en"].out / "README.md").read_text()
    # 17 entities in eng.train, one of them opened by IOB1's B- (Bayern)
    assert "Tag scheme of eng.train: IOB1 converted to IOB2 (16 chunk-opening I- tags" in card


def test_german_wikiann_build(built: dict[str, Any]) -> None:
    folder = built["de"].out
    names = _names(folder)
    assert names == ["O", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-PER", "I-PER"]
    rows = config_rows(folder, "ner")
    every = [r for rs in rows.values() for r in rs]
    assert len(every) == 90
    tags = Counter(names[r["label"]] for r in every)
    assert (tags["B-LOC"], tags["B-ORG"], tags["B-PER"]) == (14, 6, 8)
    sentences = {s: t for rs in rows.values() for s, t in _sentences(rs, names).items()}
    assert sentences["Helmut Kohl , Helmut Schmidt und Willy Brandt"] == [
        "B-PER", "I-PER", "O", "B-PER", "I-PER", "O", "B-PER", "I-PER",
    ]  # fmt: skip
    assert "de:Berlin" not in {t for r in every for t in r["tokens"]}  # prefix stripped
    # the sentence given twice is one group, in one split (its 14 rows together)
    split_of: dict[str, set[str]] = {}
    for split, rs in rows.items():
        for r in rs:
            split_of.setdefault(r["group"], set()).add(split)
    assert all(len(s) == 1 for s in split_of.values())
    berlin = [r for r in every if r["sentence"].startswith("Berlin ist die Hauptstadt")]
    assert len(berlin) == 14 and len({r["group"] for r in berlin}) == 1


def test_load_dataset_and_determinism(built: dict[str, Any], hf_offline: None) -> None:
    import datasets

    ds = datasets.load_dataset(str(built["en"].out), "ner")
    assert ds["train"].features["label"].names == EN_LABELS
    assert ds["validation"].num_rows == 26
    assert built["en"].fingerprint == built["en2"].fingerprint
    for part in sorted((built["en"].out / "data").rglob("*.parquet")):
        twin = built["en2"].out / part.relative_to(built["en"].out)
        assert part.read_bytes() == twin.read_bytes()


def test_map_types(tmp_path: Path) -> None:
    result = polyprobe.build_ner(
        [FIXTURES / "en"], lang="en", out=tmp_path / "m", map_types="MISC=OTHR"
    )
    names = _names(result.out)
    assert names == ["O", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-OTHR", "I-OTHR", "B-PER", "I-PER"]
    assert "Entity types mapped: MISC → OTHR." in (result.out / "README.md").read_text()


def test_natural_only_is_enforced(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="natural variant only"):
        polyprobe.build_ner([FIXTURES / "en"], lang="en", out=tmp_path / "x", balances="balanced")
    with pytest.raises(UsageError, match="no class floor"):
        polyprobe.build_ner([FIXTURES / "en"], lang="en", out=tmp_path / "x", min_per_class="5")


def test_wikiann_prefix_is_the_declared_language(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--lang fr is French, but the sources say German"):
        polyprobe.build_ner([FIXTURES / "de" / "wikiann-de.tsv"], lang="fr", out=tmp_path / "x")


# ------------------------------------------------------------------------- schemes


def test_schemes_detected_and_converted() -> None:
    iob1 = [["I-PER", "I-PER", "O", "I-ORG", "B-ORG"]]
    assert detect_scheme(iob1).name == "IOB1"
    assert to_iob2(iob1[0]) == ("B-PER", "I-PER", "O", "B-ORG", "B-ORG")
    bioes = ["S-LOC", "O", "B-PER", "I-PER", "E-PER", "S-PER"]
    assert detect_scheme([bioes]).name == "BIOES"
    assert to_iob2(bioes) == ("B-LOC", "O", "B-PER", "I-PER", "I-PER", "B-PER")
    assert detect_scheme([["U-LOC", "B-PER", "L-PER"]]).name == "BILOU"
    iob2 = ["B-PER", "I-PER", "B-PER", "O"]
    assert detect_scheme([iob2]).name == "IOB2" and to_iob2(iob2) == tuple(iob2)
    # conlleval: an I- of another type than the chunk it follows opens a chunk
    assert to_iob2(["B-PER", "I-LOC"]) == ("B-PER", "B-LOC")


# ------------------------------------------------------------------------- bad input


def _bad(tmp_path: Path, bad_line: str) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir()
    lines = ["Angela\tB-PER", "Merkel\tI-PER", "", bad_line, "sprach\tO", "", "Bonn\tB-LOC", ""]
    (folder / "train.tsv").write_text("\n".join(lines), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("bad_line", "message", "reason"),
    [
        (
            "Kohl",
            "train.tsv:4: no tag column (a token line is TOKEN TAG, or TOKEN POS CHUNK TAG)",
            "no-tag",
        ),
        (
            "Kohl\tX-PER",
            "train.tsv:4: bad tag 'X-PER': expected O, or B-, I-, E-, S-, L- or U- and an "
            "entity type",
            "bad-tag",
        ),
    ],
)
def test_bad_lines(tmp_path: Path, bad_line: str, message: str, reason: str) -> None:
    folder = _bad(tmp_path, bad_line)
    with pytest.raises(InputError) as err:
        polyprobe.build_ner([folder], lang="de", out=tmp_path / "x")
    assert str(err.value) == f"{folder / message}"
    result = polyprobe.build_ner([folder], lang="de", out=tmp_path / "ok", on_invalid="skip")
    assert result.skipped_invalid == {reason: 1}
    card = (result.out / "README.md").read_text()
    assert reason in card
    # the bad line's sentence is dropped whole: 2 sentences, 3 rows left
    assert sum(len(r) for r in config_rows(result.out, "ner").values()) == 3


def test_conllu_file_refused_in_one_line(data_dir: Path, tmp_path: Path) -> None:
    path = data_dir / "ud" / "UD_German-GSD" / "de_gsd-ud-dev.conllu"
    with pytest.raises(InputError) as err:
        polyprobe.build_ner([path], lang="de", out=tmp_path / "x")
    assert str(err.value) == f"{path}: this looks like CoNLL-U (use `build ud`)"


def test_iob_files_are_sniffed_as_ner() -> None:
    lines = (FIXTURES / "en" / "eng.train").read_text().splitlines()
    assert sniff(lines) is not None and sniff(lines).command == "build ner"
    wikiann = (FIXTURES / "de" / "wikiann-de.tsv").read_text().splitlines()
    assert sniff(wikiann).key == "iob"
    assert sniff(["the O", "cat O", "sat O"]) is None  # no entity: not claimed


def test_bioes_two_columns_with_spaces(tmp_path: Path) -> None:
    """A space-separated BIOES file: converted to IOB2 and recorded as such."""
    lines = [
        line
        for i in range(12)
        for line in (
            "Barack B-PER", "Obama E-PER", f"visited{i} O", "Paris S-LOC", ". O", "",
            "Google S-ORG", f"hired{i} O", "Ada B-PER", "Lovelace E-PER", "",
        )
    ]  # fmt: skip
    path = tmp_path / "bioes.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = polyprobe.build_ner([path], lang="en", out=tmp_path / "b")
    names = _names(result.out)
    every = [r for rs in config_rows(result.out, "ner").values() for r in rs]
    tags = _sentences(every, names)
    assert tags["Barack Obama visited3 Paris ."] == ["B-PER", "I-PER", "O", "B-LOC", "O"]
    card = (result.out / "README.md").read_text()
    assert "Tag scheme of bioes.txt: BIOES converted to IOB2 (S-/U- made B-, E-/L- made I-)" in card


def test_wikiann_line_without_its_prefix(tmp_path: Path) -> None:
    path = tmp_path / "de.tsv"
    lines = [f"de:Wort{i}\tB-LOC" for i in range(10)] + ["", "Bonn\tB-LOC", "de:liegt\tO", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        polyprobe.build_ner([path], lang="de", out=tmp_path / "x")
    assert str(err.value) == (
        f"{path}:12: no language prefix, expected 'de:' as on every token of this WikiANN file"
    )


def test_a_column_count_unlike_the_files(tmp_path: Path) -> None:
    path = tmp_path / "eng.train"
    lines = ["EU NNP I-NP I-ORG", "rejects VBZ I-VP O", "", "German I-MISC", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        polyprobe.build_ner([path], lang="en", out=tmp_path / "x")
    assert str(err.value) == f"{path}:4: 2 columns, expected 4 as on line 1"


def test_the_tagger_evaluates_both_languages_builds(
    built: dict[str, Any], tmp_path: Path
) -> None:
    """The published folders go through ``evaluate --probe tagger`` as a user would: span F1
    (conlleval's chunks) with a CI, per entity type over the gold types of the test split
    (English test, eng.testb: LOC, MISC, PER by hand), F1 the harmonic mean of the span
    precision and recall of the one seed."""
    from polyprobe.evaluation import evaluate
    from polyprobe.evaluation.downstream.run import DownstreamSpec

    spec = DownstreamSpec("tagger", {"max_epochs": 2, "patience": 2})
    for lang in ("en", "de"):
        (result,) = evaluate(
            str(built[lang].out), encoders=["random?dim=16"], probe=spec, seeds=1,
            cache=tmp_path / "cache", n_boot=50,
        )  # fmt: skip
        m = result["metrics"]
        assert result["headline"] == "span_f1"
        lo, hi = m["span_f1"]["ci95"]
        assert 0.0 <= lo <= m["span_f1"]["mean"] <= hi <= 1.0
        p, r = m["span_precision"]["mean"], m["span_recall"]["mean"]
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        assert abs(m["span_f1"]["mean"] - f1) < 1e-5
        if lang == "en":
            assert {"LOC", "MISC", "PER"} <= set(m["span_f1_per_type"])
