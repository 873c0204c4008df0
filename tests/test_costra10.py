"""COSTRA 1.0's layout (5 columns a line: id, seed id, transformation, sentence, tokenised
sentence; no annotated comparisons) beside 1.1's 9, and the COSTRA PCA plot of the lexical
report.

The 1.0 fixture (``tests/fixtures/costra10/costra-1.0-sample.tsv``) is hand-made: two seeds, their
paraphrases (one, then two) and one past, future and nonsense sentence each - so the basic
comparisons (a paraphrase closer to the seed than each other type's sentence) are 1 + 2 per
type, 3 each.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from polyprobe import build_costra
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.evaluation.lexical.metrics import pca_2d
from polyprobe.evaluation.lexical.report import write_lexical_report
from polyprobe.evaluation.lexical.run import evaluate_lexical
from polyprobe.loaders.costra import CostraSource, comparisons, read_costra, release
from polyprobe.loaders.source import InvalidPolicy

FIXTURE = Path(__file__).parent / "fixtures" / "costra10" / "costra-1.0-sample.tsv"


def test_release_from_the_columns(data_dir: Path) -> None:
    ten = read_costra(FIXTURE, InvalidPolicy("raise"))
    assert len(ten) == 11 and release(ten) == "1.0"
    assert CostraSource(FIXTURE).release() == "1.0"
    assert CostraSource(data_dir / "costra").release() == "1.1"
    assert CostraSource(FIXTURE, "1.0-lindat").info.version == "1.0-lindat"  # given wins
    found = comparisons(ten)
    assert {k: len(v) for k, v in found.items()} == {
        "basic:past": 3,
        "basic:future": 3,
        "basic:nonsense": 3,
    }
    assert not any(k.startswith("annotated:") for k in found)


def test_mixed_widths_are_refused_at_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    lines[3] += "\t\t\t\t"  # line 4 in 1.1's width
    bad = tmp_path / "data.tsv"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["build", "costra", str(bad), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"polyprobe: error: {bad}:4: 9 fields, but line 1 has 5: a COSTRA file is either "
        "1.0 (5 columns) or 1.1 (9 columns), not both"
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("costra10") / "costra10"
    build_costra(FIXTURE, out=out)
    return out


def test_build_records_release(built: Path) -> None:
    import datasets

    assert validate(built).ok
    text = (built / "README.md").read_text(encoding="utf-8")
    assert "COSTRA 1.0 (Barančíková & Bojar 2020)" in text
    assert "COSTRA 1.0 has no annotated comparisons" in text
    meta = yaml.safe_load(text.split("---")[1])
    (source,) = meta["polyprobe"]["sources"]
    assert source["kind"] == "costra" and source["version"] == "1.0"
    trans = datasets.load_dataset(str(built), "transformations")["test"]
    assert len(trans) == 9  # every sentence but the two seeds
    cmp = datasets.load_dataset(str(built), "comparisons")["test"]
    names = cmp.features["label"].names
    assert sorted(names) == ["basic:future", "basic:nonsense", "basic:past"] and len(cmp) == 9


def test_pca_by_hand() -> None:
    """Points on a line y = 2x in 2-D: the first component carries all the variance, the
    projections are the centred points' signed distances along (1, 2)/√5."""
    pts, ratio = pca_2d([[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]])
    assert ratio[0] == pytest.approx(1.0) and ratio[1] == pytest.approx(0.0, abs=1e-12)
    assert pts[:, 0] == pytest.approx([-(5**0.5), 0.0, 5**0.5])


def test_evaluation_stores_pca_and_report_plots_it(built: Path, tmp_path: Path) -> None:
    results = evaluate_lexical(
        str(built), ["transformations", "comparisons"], ["char-ngrams?dim=64"], out=tmp_path / "r"
    )
    trans, cmp = results
    pca = trans["scores"]["pca"]
    assert pca["type_names"] == ["paraphrase", "past", "future", "nonsense"]
    assert len(pca["x"]) == len(pca["y"]) == len(pca["types"]) == 9
    assert abs(sum(pca["x"])) < 1e-3  # centred
    assert 0 < pca["explained_variance"][1] <= pca["explained_variance"][0] <= 1
    groups = cmp["scores"]["package_groups"]
    assert cmp["scores"]["groups_without_comparisons"] == [
        "modality",
        "time",
        "style",
        "generalization",
        "opposite_meaning",
    ]
    assert groups["time"] == 0.0 and 0.0 <= groups["basic"] <= 1.0
    first = write_lexical_report(results, tmp_path / "rep1")
    pngs = sorted((tmp_path / "rep1").glob("costra-pca-*.png"))
    assert len(pngs) == 1 and pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"]({pngs[0].name})" in first.read_text(encoding="utf-8")
    write_lexical_report(results, tmp_path / "rep2")
    again = tmp_path / "rep2" / pngs[0].name
    digest = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (pngs[0], again)]
    assert digest[0] == digest[1]  # deterministic bytes
    stored = json.loads((tmp_path / "rep1" / "lexical-report.json").read_text("utf-8"))
    assert stored[0]["scores"]["pca"]["x"] == pca["x"]
