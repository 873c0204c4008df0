"""What one ``evaluate`` call will run: every dataset given, each of its configs with the way
it is scored, and the encoders that apply to it.

Why a plan before any work: one command may cover several datasets, and one dataset may mix
probing configs with lexical ones (a suite built by ``polyprobe suite build`` holds UD and
UniMorph probing tasks next to similarity and analogy sets). Deciding per config, up front,
lets the progress display count the whole run (dataset × config × encoder), lets what does
not apply (the majority baseline on a set scored by correlation) be said once instead of
failing mid-run, and refuses two datasets that would write into the same results folder
before either is evaluated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polyprobe.errors import UsageError
from polyprobe.evaluation.data import Card, config_names, read_card, resolve_configs
from polyprobe.evaluation.encoders import Encoder
from polyprobe.evaluation.results import safe_dataset

PROBING, SCORED, LEXICAL = "probing", "scored", "lexical"


def config_kind(card: Card, config: str) -> str:
    """How a config is scored: ``lexical`` (its own metric, no probe), ``scored`` (sentence
    pairs with a score: cosine STS and the regression head) or ``probing`` (a classifier)."""
    block = card.config_block(config)
    if block.get("task_type") == "lexical":
        return LEXICAL
    if block.get("label_type") == "score" and block.get("level") == "sentence-pair":
        return SCORED
    return PROBING


def dataset_name(dataset: str) -> str:
    """How a dataset is shown: a local folder by its name (never its absolute path, which
    says where it sits on one machine), a Hub id as it is."""
    path = Path(dataset).expanduser()
    if path.exists():
        return path.resolve().name
    return dataset


@dataclass
class DatasetPlan:
    """One dataset of the run and its configs, by how each is scored (card order kept)."""

    source: str  # as given: a folder or a Hub id
    card: Card
    configs: dict[str, str] = field(default_factory=dict)  # config -> kind

    @property
    def name(self) -> str:
        return dataset_name(self.source)

    def of_kind(self, kind: str) -> list[str]:
        return [c for c, k in self.configs.items() if k == kind]


def applies(enc: Encoder, kind: str) -> bool:
    """The majority baseline predicts a class: it has nothing to say where no class is
    predicted (lexical sets and scored pairs are scored from vectors' cosines)."""
    return not (enc.is_majority and kind != PROBING)


def plan_datasets(
    datasets: Sequence[str], config: str | list[str] | None, revision: str | None
) -> list[DatasetPlan]:
    """Each dataset once (the same folder given twice is one), its configs resolved as
    ``config`` says; two datasets whose results would share ``OUT/<name>`` are refused.
    With several datasets, named configs are taken from each dataset that has them (a
    probing suite and a similarity set share no config names); a name no dataset has is an
    error, as for one dataset."""
    plans: list[DatasetPlan] = []
    seen: dict[str, str] = {}  # results folder name -> the dataset that has it
    for raw in datasets:
        source = str(raw)
        key = str(Path(source).expanduser().resolve()) if Path(source).exists() else source
        folder = safe_dataset(source)
        if folder in seen:
            if seen[folder] == key:
                continue
            raise UsageError(
                f"{seen[folder]} and {key} would both write their results under OUT/{folder}: "
                "evaluate them with different --out folders, or rename one of the folders"
            )
        seen[folder] = key
        card = read_card(source, revision)
        plans.append(DatasetPlan(source, card))
    named = [config] if isinstance(config, str) and config not in _SELECTORS else config
    for plan in plans:
        if isinstance(named, list) and len(plans) > 1:
            available = config_names(plan.source, revision, plan.card)
            names = [c for c in named if c in available]
        else:
            names = resolve_configs(plan.source, config, revision, plan.card)
        plan.configs = {n: config_kind(plan.card, n) for n in names}
    if isinstance(named, list) and len(plans) > 1:
        unknown = [c for c in named if not any(c in p.configs for p in plans)]
        if unknown:
            raise UsageError(f"no dataset given has config(s) {', '.join(unknown)}")
    return [p for p in plans if p.configs]


_SELECTORS = ("all", "recommended")


def count_jobs(plans: Sequence[DatasetPlan], encoders: Sequence[Encoder]) -> int:
    """Dataset × config × encoder, counting only the encoders that apply to each config."""
    return sum(
        1 for p in plans for kind in p.configs.values() for e in encoders if applies(e, kind)
    )


def skipped(plans: Sequence[DatasetPlan], encoders: Sequence[Encoder]) -> list[str]:
    """One sentence per encoder left out somewhere, saying where and why."""
    notes = []
    for enc in encoders:
        where: dict[str, list[str]] = {}
        for p in plans:
            for config, kind in p.configs.items():
                if not applies(enc, kind):
                    where.setdefault(p.name, []).append(config)
        if where:
            n = sum(len(v) for v in where.values())
            sets = "; ".join(f"{d}: {_first(v)}" for d, v in where.items())
            notes.append(
                f"{enc.spec} skipped on {n} lexical or scored config(s) ({sets}): it predicts "
                "the training majority class, and these configs are scored by similarity, "
                "analogy or correlation metrics, not by classification"
            )
    return notes


def _first(names: list[str], k: int = 3) -> str:
    more = f" and {len(names) - k} more" if len(names) > k else ""
    return ", ".join(names[:k]) + more
