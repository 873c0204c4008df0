"""The bundled baselines in a card (``polyprobe suite baselines DIR``, ``suite build
--with-baselines``): on a small Finnish suite from the shared data (UD_Finnish-TDT's
``subject_number``, FinnSim, one FinSemEvl analogy file), so a classifier config, its
natural variant and three lexical sets (similarity, the analogy set and its category) are scored.

What must hold: each config's section has a table whose numbers are the evaluation's (the
majority baseline's accuracy is the test share of the train split's majority class, counted
here from the parquet files), the YAML parses and validates, every config still loads, a
second run and a rebuilt folder give the same bytes, a broken block fails ``validate`` naming
it, and an interruption leaves the old card and no temporary folder behind."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe.cards import baselines as cardbase
from polyprobe.cards import folder as folder_names
from polyprobe.cards.card import anchored_tables, read_readme, render_readme, split_readme
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.evaluation import bundled

SMALL = """\
[suite]
name = "fi-small"
lang = "fi"

[members.ud]
paths = ["ud/UD_Finnish-TDT"]
tasks = ["subject_number"]

[members.similarity]
paths = ["word_similarity/finsemevl/FinnSim/FinnSim_judgment_scores.csv"]

[members.analogies]
paths = ["word_similarity/finsemevl/analogy/ANA_female-male.txt"]
"""


def _build(root: Path, data: Path, *extra: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "fi.toml"
    manifest.write_text(SMALL, encoding="utf-8")
    out = root / "fi-small"
    args = ["suite", "build", str(manifest), "--data", str(data), "--out", str(out), "--quiet"]
    assert main([*args, *extra]) == 0
    return out


@pytest.fixture(scope="session")
def scored(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> tuple[Path, str, str]:
    """(folder with baselines, its card before, its card after), built and scored once."""
    out = _build(tmp_path_factory.mktemp("baselines") / "a", data_dir)
    before = (out / "README.md").read_text(encoding="utf-8")
    bundled.add_baselines(out, progress=False)
    return out, before, (out / "README.md").read_text(encoding="utf-8")


def _copy(folder: Path, dest: Path, card: str | None = None) -> Path:
    target = dest / folder.name
    shutil.copytree(folder, target)
    if card is not None:
        (target / "README.md").write_text(card, encoding="utf-8")
    return target


def test_every_config_has_a_table_with_the_evaluations_numbers(
    scored: tuple[Path, str, str],
) -> None:
    out, _, after = scored
    data, body = split_readme(after)
    block = data["polyprobe"]["baselines"]
    names = [c["config_name"] for c in data["configs"]]
    assert list(block["configs"]) == names
    assert block["method"]["seeds"] == [0, 1, 2] and block["method"]["probe"] == "lr"
    tables = anchored_tables(body)
    kinds = collections.Counter(e["kind"] for e in block["configs"].values())
    assert kinds == {"classifier": 2, "lexical": 3}, kinds
    for name, entry in block["configs"].items():
        header, rows = cardbase.table_rows(entry)
        assert tables[("baselines", name)] == [header, *rows], name
        if entry["kind"] != "classifier":
            assert set(entry["scores"]) == {"random", "borep", "char-ngrams"}
            assert all(-1 <= s[entry["metric"]] <= 1 for s in entry["scores"].values())
            continue
        assert set(entry["scores"]) == {"majority", "random", "borep", "char-ngrams"}
        rows_by_split = config_rows(out, name)
        train = collections.Counter(r["label"] for r in rows_by_split["train"])
        test = [r["label"] for r in rows_by_split["test"]]
        majority = train.most_common(1)[0][0]
        share = sum(1 for y in test if y == majority) / len(test)
        assert entry["n"] == len(test)
        assert entry["scores"]["majority"]["accuracy"] == pytest.approx(share, abs=1e-6)
        for s in entry["scores"].values():
            lo, hi = s["accuracy_ci95"]
            assert 0 <= lo <= s["accuracy"] <= hi <= 1
    # the section says how they were computed and how to reproduce them
    assert "## Baselines" in body and block["method"]["reproduce"] in body
    assert " --all --baselines " in block["method"]["reproduce"]
    assert f"--revision {block['method']['revision']}" in block["method"]["reproduce"]


def test_the_card_validates_and_every_config_loads(
    scored: tuple[Path, str, str], hf_offline: None
) -> None:
    import datasets

    out, before, after = scored
    report = validate(out)
    assert report.ok, report.problems
    data, _ = read_readme(out / "README.md")
    for entry in data["configs"]:
        ds = datasets.load_dataset(str(out), entry["config_name"])
        assert sum(len(split) for split in ds.values()) > 0
    # the fingerprint names the rows, not the card: adding baselines leaves it as it was
    assert data["polyprobe"]["fingerprint"] == split_readme(before)[0]["polyprobe"]["fingerprint"]
    # what was added is exactly what strip removes
    assert cardbase.strip_baselines(after) == before


def test_again_and_on_a_rebuilt_folder_the_same_bytes(
    scored: tuple[Path, str, str], data_dir: Path, tmp_path: Path
) -> None:
    out, _, after = scored
    again = _copy(out, tmp_path / "again")
    bundled.add_baselines(again, progress=False)
    assert (again / "README.md").read_text(encoding="utf-8") == after
    rebuilt = _build(tmp_path / "rebuilt", data_dir, "--with-baselines")
    assert (rebuilt / "README.md").read_bytes() == (out / "README.md").read_bytes()


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda b: b["configs"].update(nosuch=b["configs"]["subject_number"]),
            "'nosuch' is no config",
        ),
        (
            lambda b: b["configs"]["subject_number"]["scores"]["majority"].update(accuracy=1.5),
            "subject_number.scores.majority.accuracy: 1.5 is not in [0, 1]",
        ),
        (
            lambda b: b["configs"]["subject_number"]["scores"].update(
                bert=b["configs"]["subject_number"]["scores"]["random"]
            ),
            "scores.bert: unknown baseline encoder",
        ),
        (
            lambda b: b["configs"]["finnsim-fi"]["scores"]["random"].update(spearman=0.9),
            "config 'finnsim-fi': the body's baselines table does not show the YAML's numbers",
        ),
    ],
)
def test_a_broken_block_fails_validate_naming_it(
    scored: tuple[Path, str, str], tmp_path: Path, edit, expected: str
) -> None:
    out, _, after = scored
    data, body = split_readme(after)
    edit(data["polyprobe"]["baselines"])
    broken = _copy(out, tmp_path, render_readme(data, body))
    report = validate(broken)
    assert not report.ok
    assert any("polyprobe.baselines" in p and expected in p for p in report.problems), (
        report.problems
    )


def test_an_interruption_leaves_the_old_card_and_nothing_behind(
    scored: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, before, after = scored
    folder = _copy(out, tmp_path / "folder", before)
    files = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def interrupt(*args, **kwargs):  # after the classifier configs were evaluated
        raise KeyboardInterrupt

    monkeypatch.setattr(bundled, "lexical_entry", interrupt)
    with pytest.raises(KeyboardInterrupt):
        bundled.add_baselines(folder, progress=False)
    assert (folder / "README.md").read_text(encoding="utf-8") == before
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == files
    assert list(temp.iterdir()) == []

    # a failure while the card itself is replaced (the scores computed): the old card stays,
    # no temporary file
    block = split_readme(after)[0]["polyprobe"]["baselines"]
    monkeypatch.setattr(bundled, "compute", lambda *args, **kwargs: block)

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(bundled.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        bundled.add_baselines(folder, progress=False)
    assert (folder / "README.md").read_text(encoding="utf-8") == before
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == files
    assert list(temp.iterdir()) == []

    # what a SIGKILLed run leaves (its card's temporary file, its scratch folder) goes with
    # the next run; a live process's are kept
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(bundled, "compute", lambda *args, **kwargs: block)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = folder_names.owned_name("").split("-")[1]
    stale_card = folder / f"{bundled.CARD_TMP_PREFIX}{dead.pid}-{host}-0badc0de"
    stale_card.write_text("half a card", encoding="utf-8")
    stale_dir = temp / f"{bundled.TMP_PREFIX}{dead.pid}-{host}-0badc0de"
    stale_dir.mkdir()
    live_dir = temp / folder_names.owned_name(bundled.TMP_PREFIX)
    live_dir.mkdir()
    bundled.add_baselines(folder, progress=False)
    assert not stale_card.exists() and not stale_dir.exists() and live_dir.exists()
    assert (folder / "README.md").read_text(encoding="utf-8") == after


def test_a_config_without_a_baseline_is_listed_not_scored(scored: tuple[Path, str, str]) -> None:
    """A graded score of single items (no classifier, no pair metric) is named in the card
    as having no baseline, and the card still checks."""
    _, before, after = scored
    data, _ = split_readme(after)
    block = data["polyprobe"]["baselines"]
    assert bundled._kind({"label_type": "score", "level": "word"}) == "none"
    assert bundled._kind({"label_type": "score", "level": "sentence-pair"}) == "scored"
    block["configs"]["subject_number"] = {"kind": "none", "note": "no classifier baseline"}
    text = cardbase.with_baselines(before, block)
    new_data, body = split_readme(text)
    assert "**Baselines**: none — no classifier baseline" in body
    names = [c["config_name"] for c in new_data["configs"]]
    assert cardbase.check_block(new_data["polyprobe"]["baselines"], names, body) == []
    assert cardbase.strip_baselines(text) == before


def test_the_cards_command_reproduces_its_numbers(
    scored: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card's reproduce line (``--all --baselines`` with the revision that draws the
    card's bootstrap samples), run on one config, gives the card's numbers."""
    import json
    import shlex

    out, _, after = scored
    block = split_readme(after)[0]["polyprobe"]["baselines"]
    method = block["method"]
    args = shlex.split(method["reproduce"].replace("--all", "--config subject_number"))
    assert args[:3] == ["polyprobe", "evaluate", out.name]
    args = [a if a != "results" else str(tmp_path / "results") for a in args[1:]]
    monkeypatch.chdir(out.parent)
    monkeypatch.setenv("POLYPROBE_CACHE", str(tmp_path / "cache"))
    assert main([*args, "--no-progress"]) == 0
    found = {}
    for path in (tmp_path / "results").rglob("*.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        found[result["encoder"]["spec"]] = result["metrics"]
    entry = block["configs"]["subject_number"]
    for name, spec in bundled.ENCODERS.items():
        metrics = found[spec]
        assert entry["scores"][name] == {
            "accuracy": metrics["accuracy"]["mean"],
            "accuracy_ci95": metrics["accuracy"]["ci95"],
            "macro_f1": metrics["macro_f1"]["mean"],
        }


def test_a_config_evaluate_refuses_is_named_and_the_others_scored(tmp_path: Path) -> None:
    """One call for the list; when it fails, one call per config, so a config evaluate
    cannot handle is listed with its reason instead of losing every other score."""
    from polyprobe.errors import UsageError

    calls: list[list[str]] = []

    def evaluate(dataset, config, encoders, **kwargs):
        calls.append(list(config))
        if "bad" in config:
            raise UsageError("config 'bad': no input column")
        return [{"config": c, "encoder": {"spec": e}} for c in config for e in encoders]

    grouped, failed = bundled._evaluate_each(evaluate, tmp_path, ["a", "bad", "b"], ["random"], {})
    assert calls == [["a", "bad", "b"], ["a"], ["bad"], ["b"]]
    assert failed == {"bad": "config 'bad': no input column"}
    assert sorted(grouped) == ["a", "b"]
