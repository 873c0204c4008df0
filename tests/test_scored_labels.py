"""Scored labels on the build spine (``TaskMetadata.scored``): a graded score published as
``Value("float32")``, natural variant only, nested sizes, score statistics in the card that
``validate`` recomputes. Built here from a small sentence-pair file written by the test, so
the mechanism is checked apart from any one source family (word pairs: test_lexical_build)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import datasets
import pytest
import yaml

from polyprobe.builders.build import BuildResult, build_family
from polyprobe.builders.family import CardText, Family, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option
from polyprobe.builders.records.examples import ExampleRecords
from polyprobe.builders.task import Candidate, Fit, Shared, Task
from polyprobe.builders.variants import SplitSpec
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError
from polyprobe.loaders.records import Example, SourceFile
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.metadata import Level, SourceInfo, TaskMetadata


@dataclass(frozen=True)
class PairScores:
    """``split<TAB>score<TAB>sentence1<TAB>sentence2`` lines."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def info(self) -> SourceInfo:
        return SourceInfo("pairs", self.name, "1.0", "CC0-1.0", file_entries([("p", self.path)]))

    def records(self, policy: InvalidPolicy) -> Iterator[Example]:
        for n, line in enumerate(self.path.read_text("utf-8").splitlines(), 1):
            split, score, a, b = line.split("\t")
            if not score.replace(".", "").isdigit():
                policy.reject(InputError(self.path, n, "score is not a number", "bad-score"))
                continue
            yield Example(
                f"{split}/{n}", (a, b), "text", None, float(score), SourceFile("p", "p", split), n
            )


class PairSimilarity(Task[Example]):
    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="pair_similarity",
        level=Level.SENTENCE_PAIR,
        description="How similar are the two sentences (0-5)?",
        labels_derived="the file's similarity score, 0-5",
        task_type="downstream",
        record="example",
        scored=True,
    )

    def candidates(self, example: Example, fit: Fit, shared: Shared) -> list[Candidate]:
        a, b = example.inputs
        return [Candidate({"sentence1": a, "sentence2": b}, "", id=example.id, score=example.score)]


SPLIT = SplitSpec("ud", reason="the file's own splits", source_label="source")


@dataclass(frozen=True, kw_only=True)
class PairConfig(BuildConfig):
    path: Path = option(help="the pairs file", positional=True, parse=Path)


@dataclass
class PairInputs:
    source: PairScores

    def infos(self) -> list[SourceInfo]:
        return [self.source.info]

    def declared(self) -> list[Any]:
        return [(self.source.name, ())]


class PairFamily(Family[PairConfig, PairInputs]):
    """A family declared outside the package: the spine runs it as any other."""

    name = "scored-pairs"
    help = description = "scored sentence pairs"
    Config = PairConfig
    tasks = TaskSet.of(PairSimilarity)

    def sources(self, config: PairConfig) -> PairInputs:
        return PairInputs(PairScores(config.path))

    def plan(self, config: PairConfig, sources: PairInputs, names: Any) -> Plan:
        return Plan(SPLIT, (Stream(ExampleRecords((sources.source,)), tuple(names)),))

    def card(self, config: Any, sources: Any, language: Any, outcome: Any) -> CardText:
        return CardText(pretty_name="Scored pairs", summary="A scored sentence-pair test set.")


def build_pairs(path: Path, **options: Any) -> BuildResult:
    return build_family(PairFamily(), path=path, **options)


def _write_pairs(path: Path) -> dict[str, float]:
    scores = {}
    lines = []
    for i in range(60):
        split = "train" if i < 40 else ("dev" if i < 50 else "test")
        score = round((i * 7 % 51) / 10, 1)
        scores[f"A dog runs {i} ."] = score
        lines.append(f"{split}\t{score}\tA dog runs {i} .\tA dog is running {i} .")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return scores


def test_scored_pairs_publish_float_labels_natural_only(tmp_path: Path, hf_offline: None) -> None:
    scores = _write_pairs(tmp_path / "pairs.tsv")
    result = build_pairs(
        tmp_path / "pairs.tsv",
        lang="en",
        out=tmp_path / "out",
        sizes="full,20",
        balances=("natural", "balanced"),
    )
    report = validate(result.out)
    assert report.ok, report.problems
    ds = datasets.load_dataset(str(result.out), "pair_similarity")
    assert ds["train"].features["label"] == datasets.Value("float32")
    assert sorted(ds) == ["test", "train", "validation"]
    assert len(ds["train"]) == 40 and len(ds["validation"]) == 10 and len(ds["test"]) == 10
    for row in ds["train"]:
        assert row["label"] == pytest.approx(scores[row["sentence1"]], abs=1e-6)
    # Natural only: the balanced variant is reported as not built, with why; sizes nested.
    small = datasets.load_dataset(str(result.out), "pair_similarity.natural-20")
    assert set(small["train"]["id"]) <= set(ds["train"]["id"]) and len(small["train"]) == 20
    entry = json.loads((result.out / "report.json").read_text())["pair_similarity"]
    assert entry["built"] == ["pair_similarity", "pair_similarity.natural-20"]
    assert any("balanced: not built for a scored task" in m for m in entry["not_built"])
    # The card: label_type score, no labels, score statistics recomputed from the files.
    front = yaml.safe_load((result.out / "README.md").read_text().split("---")[1])
    block = front["polyprobe"]["configs"]["pair_similarity"]
    assert block["label_type"] == "score" and block["labels"] == []
    train_scores = [scores[s] for s in ds["train"]["sentence1"]]
    stats = block["statistics"]["splits"]["train"]["scores"]
    assert stats["n"] == 40
    assert stats["min"] == pytest.approx(min(train_scores), abs=1e-4)
    assert stats["max"] == pytest.approx(max(train_scores), abs=1e-4)
    assert stats["mean"] == pytest.approx(sum(train_scores) / 40, abs=1e-4)


def test_validate_catches_a_changed_score_statistic(tmp_path: Path) -> None:
    _write_pairs(tmp_path / "pairs.tsv")
    result = build_pairs(tmp_path / "pairs.tsv", lang="en", out=tmp_path / "out")
    readme = result.out / "README.md"
    text = readme.read_text()
    front = yaml.safe_load(text.split("---")[1])
    mean = front["polyprobe"]["configs"]["pair_similarity"]["statistics"]["scores"]["mean"]
    readme.write_text(text.replace(f"mean: {mean}", "mean: 99.0", 1))
    report = validate(result.out)
    assert not report.ok
    assert any("statistics scores" in p for p in report.problems)


def test_scored_rebuild_is_byte_identical(tmp_path: Path) -> None:
    _write_pairs(tmp_path / "pairs.tsv")
    a = build_pairs(tmp_path / "pairs.tsv", lang="en", out=tmp_path / "a", seed=3)
    b = build_pairs(tmp_path / "pairs.tsv", lang="en", out=tmp_path / "b", seed=3)
    files = sorted(p.relative_to(a.out) for p in a.out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b.out) for p in b.out.rglob("*") if p.is_file())
    for rel in files:
        assert (a.out / rel).read_bytes() == (b.out / rel).read_bytes(), rel


def test_scored_metadata_refuses_label_names() -> None:
    with pytest.raises(ValueError, match="scored task has no label names"):
        TaskMetadata("x", Level.WORD_PAIR, "d", labels=("a", "b"), scored=True)
