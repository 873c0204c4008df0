"""Resume (issue 16, point 3) and the fit warnings (point 4).

Re-running the same evaluation reads back every result made by an equal job (dataset
fingerprint, encoder id, probe parameters, seeds) instead of recomputing it; ``force``
recomputes; a run interrupted after its first result resumes with the second. A changed probe
parameter is a different job. Unconverged fits and a choice at the grid's edge are warnings in
the result file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyprobe.evaluation import api, evaluate
from polyprobe.evaluation.diagnostics import probe_warnings
from polyprobe.evaluation.probes import get_probe
from polyprobe.evaluation.synthetic import toy_sentences, write_folder


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("POLYPROBE_THREADS", "1")


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resume")
    return write_folder(
        root / "toy",
        {
            "split": {
                "train": toy_sentences(160, prefix="tr"),
                "validation": toy_sentences(50, prefix="va"),
                "test": toy_sentences(50, prefix="te"),
            }
        },
        {"split": ["no", "yes"]},
        {"split": "sentence"},
    )


class _Count:
    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        real = api.run_protocols

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(api, "run_protocols", counted)


ENCODERS = ["random", "char-ngrams?dim=64"]


def test_rerun_skips_force_recomputes(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    first = evaluate(str(toy), encoders=ENCODERS, seeds=2, out=out, n_boot=50)
    assert not any(r.get("resumed") for r in first)
    count = _Count(monkeypatch)
    again = evaluate(str(toy), encoders=ENCODERS, seeds=2, out=out, n_boot=50)
    assert count.calls == 0 and all(r["resumed"] for r in again)
    assert [r["metrics"] for r in again] == [r["metrics"] for r in first]
    forced = evaluate(str(toy), encoders=ENCODERS, seeds=2, out=out, n_boot=50, force=True)
    assert count.calls > 0 and not any(r.get("resumed") for r in forced)
    assert [r["metrics"]["accuracy"]["mean"] for r in forced] == [
        r["metrics"]["accuracy"]["mean"] for r in first
    ]
    # Another probe parameter is another job: recomputed, not served the old file.
    spec = get_probe("lr")
    spec.params["max_iter"] = 50
    count.calls = 0
    other = evaluate(str(toy), encoders=ENCODERS[:1], probe=spec, seeds=2, out=out, n_boot=50)
    assert count.calls > 0 and not other[0].get("resumed")


def test_interrupted_run_resumes_where_it_stopped(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"

    def stop(result: dict) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(str(toy), encoders=ENCODERS, seeds=1, out=out, n_boot=50, on_result=stop)
    files = list(out.rglob("*.json"))
    assert len(files) == 1  # the first result was written whole, the second never started
    count = _Count(monkeypatch)
    results = evaluate(str(toy), encoders=ENCODERS, seeds=1, out=out, n_boot=50)
    assert [bool(r.get("resumed")) for r in results] == [True, False]
    assert count.calls > 0  # only the second encoder's probe (and control) ran
    assert len(list(out.rglob("*.json"))) == 2


def test_unconverged_fits_and_grid_edge_are_warnings(toy: Path, tmp_path: Path) -> None:
    spec = get_probe("lr")
    spec.params["max_iter"] = 2
    (result,) = evaluate(str(toy), encoders=["random"], probe=spec, seeds=1, out=tmp_path)
    text = json.loads(Path(result["path"]).read_text())["warnings"]
    (chosen,) = result["probe"]["chosen"]
    done, total = map(int, chosen["grid_fits_converged"].split("/"))
    assert total == 6 and done < 6  # warm starts let some later C values converge
    assert chosen["converged"] is False and chosen["iterations"] == 2
    assert text[0] == (
        f"lr: 1 of 1 final fit(s) (max |gradient| {chosen['grad_max']:.2g}, tol 0.0001) and "
        f"{6 - done} of 6 selection fits stopped at max_iter=2 before converging"
    )
    # The edge sentence, from the records protocols.py writes (grid_edge: see test_eval_lr_grid).
    chosen = [{"seed": s, "C": 0.25, "grid_edge": "lowest", "converged": True} for s in (0, 1)] + [
        {"seed": 2, "C": 1.0, "converged": True}
    ]
    assert probe_warnings(get_probe("lr"), chosen) == [
        "lr: C=0.25 chosen 2 time(s) is the lowest value of the grid "
        "[0.25, 0.5, 1.0, 2.0, 4.0, 8.0] (--extend-grid N searches beyond it): the best C may "
        "lie below it"
    ]


def test_extend_grid_is_a_probe_parameter_of_the_job(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """``--extend-grid N`` is recorded in the probe's params (and so in the job a re-run
    compares): the same command with and without it are two jobs; a negative N is refused."""
    from polyprobe.cli import main

    out = tmp_path / "out"
    (plain,) = evaluate(str(toy), encoders=ENCODERS[1:], seeds=1, out=out, n_boot=50)
    assert "extend_grid" not in plain["probe"]["params"]
    count = _Count(monkeypatch)
    (ext,) = evaluate(str(toy), encoders=ENCODERS[1:], seeds=1, out=out, n_boot=50, extend_grid=2)
    assert count.calls > 0 and not ext.get("resumed")
    assert ext["probe"]["params"]["extend_grid"] == 2 and ext["job"] != plain["job"]
    code = main(["evaluate", str(toy), "--encoder", "random", "--out", str(out),
                 "--extend-grid", "-1"])  # fmt: skip
    assert code == 2
    assert "--extend-grid must be >= 0" in capsys.readouterr().err


def test_a_result_of_the_unpreconditioned_solver_is_recomputed(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``lr`` preset names its solver in the job: fits that stop at ``max_iter`` differ
    between the preconditioned L-BFGS and the solver before it, so a result file written by
    the earlier solver (its job says ``lbfgs-batched-warm-start``) is computed again."""
    out = tmp_path / "out"
    (first,) = evaluate(str(toy), encoders=ENCODERS[:1], seeds=1, out=out, n_boot=50)
    assert first["probe"]["params"]["solver"] == "lbfgs-preconditioned-warm-start"
    path = Path(first["path"])
    old = json.loads(path.read_text())
    old["job"]["probe"]["params"]["solver"] = "lbfgs-batched-warm-start"
    path.write_text(json.dumps(old))
    count = _Count(monkeypatch)
    (again,) = evaluate(str(toy), encoders=ENCODERS[:1], seeds=1, out=out, n_boot=50)
    assert count.calls > 0 and not again.get("resumed")
    assert json.loads(path.read_text())["job"]["probe"]["params"]["solver"] == (
        "lbfgs-preconditioned-warm-start"
    )
