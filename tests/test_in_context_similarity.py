"""Graded word similarity in context (CoSimLex / SemEval-2020 Task 3): the loader on the
published layout, ``build in-context-similarity``, its evaluation (subtask 1's uncentred
Pearson of the change, subtask 2's correlations) and the report table.

The fixtures are hand-made in CoSimLex's layout (``tests/fixtures/cosimlex``): 8 English and
8 Slovene pairs, each in two contexts with the words marked ``<strong>``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from polyprobe import build_in_context_similarity
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.evaluation.lexical.metrics import pearson, uncentred_pearson
from polyprobe.evaluation.lexical.run import evaluate_lexical
from polyprobe.loaders.cosimlex import read_pairs
from polyprobe.loaders.source import InvalidPolicy

FIXTURES = Path(__file__).parent / "fixtures" / "cosimlex"
EN = FIXTURES / "cosimlex_en.tsv"
SL = FIXTURES / "cosimlex_sl.tsv"
# (sim1, sim2) and the two words' forms in context1 and context2, as in the English file
EN_GOLD = [(4.5, 1.2), (4.8, 1.0), (2.0, 2.6), (5.5, 2.1), (1.0, 0.8), (5.0, 3.9), (3.0, 3.4)]
EN_GOLD += [(4.9, 1.5)]
EN_FORMS = [
    (("room", "cell"), ("room", "cells")),
    (("bank", "shore"), ("bank", "shore")),
    (("coast", "hill"), ("coast", "hill")),
    (("smart", "intelligent"), ("smart", "intelligent")),
    (("old", "new"), ("old", "New")),
    (("happy", "glad"), ("happy", "glad")),
    (("boy", "son"), ("boy", "son")),
    (("cup", "mug"), ("cup", "mug")),
]


def test_uncentred_pearson_by_hand() -> None:
    """x = [1, -2, 3], y = [2, -1, 1]: sum(xy) = 7, sum(x²) = 14, sum(y²) = 6, so 7/√84;
    centred (means 2/3 each): 51/9 over √(114/9 · 42/9), i.e. 51/√4788 - another number."""
    x, y = [1.0, -2.0, 3.0], [2.0, -1.0, 1.0]
    assert uncentred_pearson(x, y) == pytest.approx(7 / math.sqrt(84))  # 0.763763
    assert pearson(x, y) == pytest.approx(51 / math.sqrt(4788))  # 0.737046
    assert abs(uncentred_pearson(x, y) - pearson(x, y)) > 0.02
    # the sign of a change counts: the same magnitudes, every direction wrong, is -1
    assert uncentred_pearson([1.0, 2.0], [-1.0, -2.0]) == pytest.approx(-1.0)
    assert math.isnan(uncentred_pearson([0.0, 0.0], [1.0, 2.0]))


def test_loader_reads_the_published_layout() -> None:
    pairs = read_pairs(EN, InvalidPolicy("raise"))
    assert len(pairs) == 8 and [p.line for p in pairs] == list(range(2, 10))
    first = pairs[0]
    assert (first.word1, first.word2) == ("room", "cell")
    c1, c2 = first.contexts
    # "Her prison cell was almost an improvement over her room at the hostel."
    assert c1.tokens[c1.index1] == "room" and c1.index1 == 9 and c1.index2 == 2
    # context2 uses the inflected form "cells" (word2_context2), the 15th token
    assert c2.tokens[c2.index2] == "cells" and c2.index2 == 14 and c2.index1 == 4
    assert "<strong>" not in c1.text and (c1.score, c2.score) == (4.5, 1.2)
    # Slovene: the forms are inflected ("sobe" for soba) and found through word1_context1
    sl = read_pairs(SL, InvalidPolicy("raise"))
    assert sl[0].contexts[0].tokens[sl[0].contexts[0].index1] == "sobe"


def _bad(tmp_path: Path, line: int, column: str, value: str) -> Path:
    rows = EN.read_text(encoding="utf-8").splitlines()
    header = rows[0].split("\t")
    fields = rows[line - 1].split("\t")
    fields[header.index(column)] = value
    rows[line - 1] = "\t".join(fields)
    path = tmp_path / "cosimlex_en.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("line", "column", "value", "problem"),
    [
        (3, "sim2", "", "sim2 is missing"),
        (4, "sim1", "n/a", "sim1 is not a number: 'n/a'"),
        (2, "word2_context1", "bicycle", "context1 does not contain word2 'bicycle'"),
    ],
)
def test_bad_row_is_one_line_naming_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    line: int,
    column: str,
    value: str,
    problem: str,
) -> None:
    path = _bad(tmp_path, line, column, value)
    code = main(["build", "in-context-similarity", str(path), "--lang", "en", "--out",
                 str(tmp_path / "out")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [f"polyprobe: error: {path}:{line}: {problem}"]
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ic") / "cosimlex"
    build_in_context_similarity([EN, SL], lang="en", allow_language_mismatch=True, out=out)
    return out


def test_build_rows_and_card(built: Path) -> None:
    import datasets

    assert validate(built).ok
    card = (built / "README.md").read_text(encoding="utf-8")
    assert yaml.safe_load(card.split("---")[1])["language"] == ["en", "sl"]
    assert "word-pair-in-context" in card and "in-context-similarity" in card
    ds = datasets.load_dataset(str(built), "cosimlex-en")["test"]
    assert len(ds) == 16 and ds.column_names == [
        "id", "sentence", "tokens", "index1", "index2", "label", "group", "lexical_key",
    ]  # fmt: skip
    by_group: dict[str, list[str]] = {}
    for row in ds:
        by_group.setdefault(row["group"], []).append(row["id"].rsplit("/", 1)[1])
    assert len(by_group) == 8
    assert all(sorted(v) == ["context1", "context2"] for v in by_group.values())
    row = next(r for r in ds if r["id"] == "cosimlex-en/2/context2")
    assert row["tokens"][row["index2"]] == "cells" and row["label"] == pytest.approx(1.2)
    assert len(datasets.load_dataset(str(built), "cosimlex-sl")["test"]) == 16


def _vectors(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    forms = sorted({f for pair in EN_FORMS for ctx in pair for f in ctx})
    vecs = {f: rng.normal(size=6) for f in forms}
    vecs["cells"] = vecs["room"] + 0.1 * vecs["cells"]  # close to room: a known change
    path = tmp_path / "tiny.vec"
    lines = [f"{len(vecs)} 6"] + [
        f"{w} " + " ".join(f"{x:.6f}" for x in v) for w, v in vecs.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, {w: np.array([float(f"{x:.6f}") for x in v]) for w, v in vecs.items()}


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_evaluation_against_hand_computed_scores(built: Path, tmp_path: Path) -> None:
    """A word-vector file: each word's in-context vector is its form's vector, so every
    cosine, change and correlation is computed here independently and compared."""
    vec, vecs = _vectors(tmp_path)
    (result,) = evaluate_lexical(str(built), "cosimlex-en", [f"vec:{vec}"], out=tmp_path / "r")
    s = result["scores"]
    assert (s["pairs"], s["contexts"], s["unpaired_rows"]) == (8, 16, 0)
    cos = [[_cos(vecs[a], vecs[b]) for a, b in pair] for pair in EN_FORMS]
    pred = [c2 - c1 for c1, c2 in cos]
    gold = [s2 - s1 for s1, s2 in EN_GOLD]
    expected = sum(p * g for p, g in zip(pred, gold, strict=True)) / math.sqrt(
        sum(p * p for p in pred) * sum(g * g for g in gold)
    )
    assert s["subtask1_change"]["uncentred_pearson"] == pytest.approx(expected, abs=1e-5)
    from scipy.stats import spearmanr

    flat = [c for pair in cos for c in pair]
    flat_gold = [g for pair in EN_GOLD for g in pair]
    rho = spearmanr(flat, flat_gold).statistic
    assert s["subtask2_similarity"]["spearman"] == pytest.approx(rho, abs=1e-5)
    r = s["subtask2_similarity"]["pearson"]
    if r > 0 and rho > 0:
        assert s["subtask2_similarity"]["harmonic_mean"] == pytest.approx(
            2 * r * rho / (r + rho), abs=1e-5
        )


def test_char_ngrams_minilm_and_report(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "res"
    code = main(["evaluate", str(built), "--all", "--encoder", "char-ngrams?dim=64",
                 "--encoder", "minilm", "--probe", "lr", "--seeds", "1", "--out", str(out),
                 "--cache", str(tmp_path / "cache")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    files = sorted(out.rglob("lexical.json"))
    # a fresh cache: MiniLM really encoded the 32 words in context of each config
    minilm = [json.loads(f.read_text("utf-8")) for f in files if "MiniLM" in f.read_text("utf-8")]
    assert [r["cache"]["misses"] for r in minilm] == [32, 32]
    assert len(files) == 4  # 2 configs x 2 encoders
    for f in files:
        res = json.loads(f.read_text(encoding="utf-8"))
        assert res["level"] == "word-pair-in-context" and res["scores"]["pairs"] == 8
        assert -1 <= res["scores"]["subtask1_change"]["uncentred_pearson"] <= 1
        assert res["space"]["size"] == 32  # 16 contexts x 2 words
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "## Word similarity in context" in md and "change: uncentred r" in md
    assert md.count("| cosimlex | in-context-similarity | cosimlex-") == 4


def _gwsc(tmp_path: Path, drop_last_gold: bool = False) -> tuple[Path, Path]:
    """The English fixture split as the GWSC kit ships it: contexts without scores in
    ``data_en.tsv``, the scores in a gold file aligned by line."""
    rows = [r.split("\t") for r in EN.read_text(encoding="utf-8").splitlines()]
    header = rows[0]
    keep = [i for i, c in enumerate(header) if c not in {"sim1", "sim2", "stdev1", "stdev2"}]
    data = tmp_path / "data_en.tsv"
    data.write_text("".join("\t".join(r[i] for i in keep) + "\n" for r in rows), "utf-8")
    s1, s2 = header.index("sim1"), header.index("sim2")
    gold_rows = [f"{r[s1]}\t{r[s2]}\t{float(r[s2]) - float(r[s1]):.2f}" for r in rows[1:]]
    if drop_last_gold:
        gold_rows = gold_rows[:-1]
    gold = tmp_path / "gold_en.tsv"
    gold.write_text("sim_context1\tsim_context2\tchange\n" + "\n".join(gold_rows) + "\n", "utf-8")
    return data, gold


def test_gwsc_layout_with_a_gold_file(tmp_path: Path) -> None:
    data, gold = _gwsc(tmp_path)
    pairs = read_pairs(data, InvalidPolicy("raise"), gold)
    same = read_pairs(EN, InvalidPolicy("raise"))
    assert [(c.score, c.tokens, c.index1, c.index2) for p in pairs for c in p.contexts] == [
        (c.score, c.tokens, c.index1, c.index2) for p in same for c in p.contexts
    ]
    with pytest.raises(Exception, match=r"data_en.tsv:1: no sim1/sim2 columns: give the gold"):
        read_pairs(data, InvalidPolicy("raise"))
    data, gold = _gwsc(tmp_path, drop_last_gold=True)
    with pytest.raises(Exception, match=r"gold_en.tsv: 7 gold lines for 8 pairs in "):
        read_pairs(data, InvalidPolicy("raise"), gold)
