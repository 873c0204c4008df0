"""The Hub's standard card fields and the sources' licences (issue 35, point 4).

Every card carries ``annotations_creators``, ``language_creators``, ``multilinguality``,
``task_ids`` and ``source_datasets`` in the Hub's vocabularies, with the values the build
knows: a treebank feature task is ``expert-generated``, a text-only or perturbation task
``machine-generated`` (and a perturbed text too); a SIGMORPHON 2018 lexicon, whose folder has
no licence file, gets UniMorph's documented CC BY-SA 3.0 (and the card says so); a source
whose licence stays unknown is a warning on stderr naming ``--license``, silent under
``--quiet``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe import build_senteval, build_ud
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.cli import main
from polyprobe.demo import DEMO_TREEBANK
from polyprobe.hubmeta import ANNOTATIONS_CREATORS, LANGUAGE_CREATORS, MULTILINGUALITY

FIELDS = (
    "annotations_creators",
    "language_creators",
    "multilinguality",
    "task_ids",
    "source_datasets",
)
UD_HUB = "extended|universal-dependencies/universal_dependencies"
STS = Path(__file__).parent / "fixtures" / "senteval" / "sts" / "STS14-en-test"


def _card(folder: Path) -> dict:
    return read_readme(folder / "README.md")[0]


def _hub_values_only(card: dict) -> None:
    for field in FIELDS:
        assert field in card, field
    assert set(card["annotations_creators"]) <= set(ANNOTATIONS_CREATORS)
    assert set(card["language_creators"]) <= set(LANGUAGE_CREATORS)
    assert set(card["multilinguality"]) <= set(MULTILINGUALITY)
    for value in card["source_datasets"]:
        assert value in ("original", "extended") or value.startswith("extended|"), value


def test_treebank_labels_are_expert_derived_ones_machine(tmp_path: Path) -> None:
    mixed = build_ud(
        [DEMO_TREEBANK],
        lang="en",
        min_per_class=(2, 1, 1),
        tasks=["subject_number", "bigram_shift", "sentence_length"],
        out=tmp_path / "mixed",
    ).out
    card = _card(mixed)
    _hub_values_only(card)
    assert card["annotations_creators"] == ["expert-generated", "machine-generated"]
    # bigram_shift's inverted sentences are made by the build
    assert card["language_creators"] == ["found", "machine-generated"]
    assert card["multilinguality"] == ["monolingual"]
    assert card["source_datasets"] == [UD_HUB]
    assert card["task_ids"] == ["multi-class-classification"]
    assert validate(mixed).ok
    only = build_ud(
        [DEMO_TREEBANK], lang="en", min_per_class=(2, 1, 1), tasks=["subject_number"],
        out=tmp_path / "only",
    ).out  # fmt: skip
    card = _card(only)
    assert card["annotations_creators"] == ["expert-generated"]
    assert card["language_creators"] == ["found"]


def test_the_hub_reads_the_fields(tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    folder = build_ud(
        [DEMO_TREEBANK], lang="en", min_per_class=(2, 1, 1), tasks=["subject_number"],
        out=tmp_path / "d",
    ).out  # fmt: skip
    card = DatasetCard.load(folder / "README.md")
    assert card.data.annotations_creators == ["expert-generated"]
    assert card.data.multilinguality == ["monolingual"]
    assert card.data.task_ids == ["multi-class-classification"]
    card.save(tmp_path / "README.md")  # still the Hub's card byte for byte
    assert (tmp_path / "README.md").read_bytes() == (folder / "README.md").read_bytes()


def test_sigmorphon_2018_gets_unimorph_documented_licence(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    german = data_dir / "unimorph" / "sigmorphon2018" / "german-dev"
    assert not list(german.parent.glob("LICENSE*"))  # no file states it: documentation does
    common = ["build", "unimorph", str(german), "--lang", "de"]
    common += ["--min-forms", "100", "--min-per-class", "5,2,2"]
    assert main([*common, "--tasks", "pos", "--out", str(tmp_path / "de")]) == 0
    assert "warning" not in capsys.readouterr().err
    card = _card(tmp_path / "de")
    assert card["license"] == "cc-by-sa-3.0"
    (source,) = card["polyprobe"]["sources"]
    assert source["license"] == "CC-BY-SA-3.0"
    assert source["license_basis"].startswith("documented: UniMorph's data licence")
    assert card["annotations_creators"] == ["crowdsourced"]
    assert card["source_datasets"] == ["extended"]
    _hub_values_only(card)
    # with a Wuggy table of unknown licence, the build says so and how to set it
    wuggy = data_dir / "wuggy" / "outputs" / "ort_german"
    # the pseudo task's rows come from the table (without it the table is no source)
    args = [*common, "--tasks", "pos,pseudo", "--wuggy-output", str(wuggy)]
    out = tmp_path / "de-words"
    assert main([*args, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    warning = (
        "polyprobe: warning: source 'ort_german' (wuggy-output) has no known licence: a "
        "Wuggy output table states none; the card says 'license: unknown'. Set it with "
        "--license ort_german=ID"
    )
    assert warning in err
    assert _card(out)["license"] == "other"
    # set as the warning says: no warning, and the card takes it
    fixed = tmp_path / "de-fixed"
    assert main([*args, "--license", "ort_german=Apache-2.0", "--out", str(fixed)]) == 0
    assert "warning" not in capsys.readouterr().err
    licences = {s["name"]: s["license"] for s in _card(fixed)["polyprobe"]["sources"]}
    assert licences["ort_german"].lower() == "apache-2.0"
    # --quiet prints nothing on stderr; the card still says unknown
    quiet = tmp_path / "de-quiet"
    assert main([*args, "--out", str(quiet), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_trec_is_on_the_hub_and_its_licence_unknown(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "trec"
    assert main(["build", "trec", str(data_dir / "trec"), "--out", str(out)]) == 0
    assert "source 'TREC' (trec) has no known licence: TREC's distributors state no" in (
        capsys.readouterr().err
    )
    card = _card(out)
    assert card["source_datasets"] == ["extended|CogComp/trec"]
    assert card["annotations_creators"] == ["expert-generated"]
    assert card["license"] == "unknown"


def test_sts_is_scored_similarity_and_analogies_fit_no_task_id(tmp_path: Path) -> None:
    sts = build_senteval([STS], lang="en", out=tmp_path / "sts").out
    card = _card(sts)
    assert card["task_ids"] == ["semantic-similarity-scoring"]
    assert card["task_categories"] == ["sentence-similarity"]
    assert card["annotations_creators"] == ["crowdsourced"]
    assert card["source_datasets"] == ["original"]
    assert validate(sts).ok
    questions = tmp_path / "questions.txt"
    rows = [": capital-country"] + [f"city{i} land{i} city{i + 1} land{i + 1}" for i in range(6)]
    questions.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "analogies"
    assert main(["build", "analogies", str(questions), "--lang", "en", "--out", str(out)]) == 0
    card = _card(out)
    assert card["task_ids"] == []  # present and empty: no Hub sub-task fits an analogy set
    _hub_values_only(card)
    assert validate(out).ok


def test_a_failing_build_says_only_its_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The licence warning comes once the folder is in place: a build that fails on bad
    input (its sources' licences unknown) prints one ``polyprobe`` line, the error."""
    path = tmp_path / "task.txt"
    path.write_text("tr\tA\tone two\nzz\tB\tthree\nte\tB\tfour\n", encoding="utf-8")
    args = ["build", "senteval", str(path), "--lang", "en", "--out", str(tmp_path / "o")]
    assert main(args) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if "polyprobe:" in x]
    assert lines == [f"polyprobe: error: {path}:2: split 'zz' is not tr, va or te"]
    path.write_text("tr\tA\tone two\ntr\tB\tthree\nte\tB\tfour\nte\tA\tfive\n", encoding="utf-8")
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "polyprobe: warning: source 'task' (senteval-probing) has no known licence: a " in err
