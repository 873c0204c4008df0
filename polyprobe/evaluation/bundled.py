"""``add_baselines(folder)``: the bundled baselines (majority, random, BOREP, character
n-grams) scored on every config of a dataset folder and written into its card, so a published
dataset says what a number on it means before anyone runs an encoder.

Fixed settings, because the card must be the same bytes whenever the same folder is scored:

* probe ``lr`` (the SentEval grid, batched L-BFGS), one CPU thread (``POLYPROBE_THREADS=1``
  for the call: fits stopped at ``max_iter`` depend on the thread count);
* seeds 0, 1, 2 — ``evaluate``'s own default, so a plain ``polyprobe evaluate`` with the same
  encoders gives the same means; three seeds are what it takes for the random encoders'
  vector draw to show in the CI at all, and each seed more adds a fit per config;
* BOREP at 512 dimensions instead of Wieting & Kiela's 4,096, and character n-grams at 512
  hashed features instead of 2,048: the ``lr`` probe's cost grows faster than the square of the
  feature count (its preconditioner's eigendecomposition), and pair configs see four times
  the width (SentEval's [u, v, |u−v|, u∗v]). Measured with seeds 0-2 on 2 shared cores: on
  the 4,616-row ``bigram_shift`` BOREP took 98 s at 4,096 dimensions and 3.7 s at 1,024; on
  the word-pair ``same_feature.natural-full`` BOREP + n-grams took 145 s at 1,024 and 37 s at
  512, which is most of a whole Finnish suite's time. A baseline is a floor, not a
  contender, so the narrow width is enough;
* the bootstrap's draws are keyed on the dataset revision, which ``evaluate`` takes for a
  local folder from a hash of all its files — the card included, so adding the baselines
  would change the next run's CIs. The revision passed here is a hash of the data files
  only (``data-…``, recorded in the card), so the card never feeds back into its numbers.

Results go to a temporary folder (with the embedding cache) removed afterwards; the card is
rewritten atomically (a temporary file in the folder, then ``os.replace``), so a crash or
Ctrl-C leaves the old card whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.cards import baselines as cardbase
from polyprobe.cards.card import README, split_readme
from polyprobe.cards.folder import make_owned_dir, owned_name, sweep_orphans
from polyprobe.errors import PolyprobeError, UsageError
from polyprobe.evaluation.encoders import STANDARD_BASELINES
from polyprobe.hashing import digest, file_sha256
from polyprobe.version import __version__

PROBE = "lr"
SEEDS = (0, 1, 2)
# card name -> encoder spec: ``evaluate --baselines``'s, so the card's line reproduces them
ENCODERS: dict[str, str] = {spec.split("?", 1)[0]: spec for spec in STANDARD_BASELINES}
# The lexical sets read no label and fit no probe: the majority class means nothing there.
LEXICAL_ENCODERS = ("random", "borep", "char-ngrams")
TMP_PREFIX = "polyprobe-baselines-"
CARD_TMP_PREFIX = f".{README}.tmp-"


@dataclass
class BaselinesOutcome:
    """What ``add_baselines`` did: the block written and the configs by kind."""

    folder: Path
    block: dict[str, Any]
    scored: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def data_revision(folder: Path) -> str:
    """A hash of the folder's data files (names and bytes), not of its card: the revision
    the baselines are computed under, so the card they are written into does not move them."""
    parts: list[object] = []
    for path in sorted((folder / "data").rglob("*")):
        if path.is_file():
            parts += [path.relative_to(folder).as_posix(), file_sha256(str(path))]
    return "data-" + digest(*parts, size=6).hex()


def reproduce_command(folder: str, revision: str) -> str:
    """The ``evaluate`` call that gives the card's numbers: ``--revision`` keys the CIs'
    bootstrap draws on the data files' hash, not on the folder's (whose card these numbers
    change)."""
    return (
        f"polyprobe evaluate {folder} --all --baselines --probe {PROBE} --seeds {len(SEEDS)} "
        f"--revision {revision} --out results"
    )


def method_block(folder_name: str, revision: str) -> dict[str, Any]:
    return {
        "polyprobe": __version__,
        "probe": PROBE,
        "seeds": list(SEEDS),
        "cpu_threads": 1,
        "encoders": dict(ENCODERS),
        "lexical_encoders": list(LEXICAL_ENCODERS),
        "revision": revision,
        "reproduce": reproduce_command(folder_name, revision),
        "note": (
            f"The revision {revision} (a hash of the data files) draws the bootstrap samples "
            "of the card's CIs; without --revision the means are the same and the CIs near."
        ),
    }


@contextlib.contextmanager
def _single_thread() -> Iterator[None]:
    """``POLYPROBE_THREADS=1`` for the call, whatever the caller's environment says."""
    before = os.environ.get("POLYPROBE_THREADS")
    os.environ["POLYPROBE_THREADS"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("POLYPROBE_THREADS", None)
        else:
            os.environ["POLYPROBE_THREADS"] = before


def _kind(block: dict[str, Any]) -> str:
    if block.get("task_type") == "lexical":
        return "lexical"
    if block.get("label_type") == "score" or block.get("scored"):
        if block.get("level") == "sentence-pair":
            return "scored"
        return "none"
    return "classifier"


def classifier_entry(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One classifier config's entry from its results (one per encoder)."""
    scores: dict[str, Any] = {}
    n = 0
    for r in results:
        m = r["metrics"]
        scores[_card_name(r)] = {
            "accuracy": m["accuracy"]["mean"],
            "accuracy_ci95": list(m["accuracy"]["ci95"]),
            "macro_f1": m["macro_f1"]["mean"],
        }
        sizes = r.get("split_sizes") or {}
        n = int(sizes.get("test", sum(sizes.values())))
    return {"kind": "classifier", "n": n, "scores": scores}


def _card_name(result: dict[str, Any]) -> str:
    spec = str(result["encoder"]["spec"])
    for name, wanted in ENCODERS.items():
        if spec == wanted:
            return name
    raise ValueError(f"result of an encoder that is no bundled baseline: {spec}")


def lexical_headline(level: str, scores: dict[str, Any]) -> tuple[str, Any, int]:
    """(metric name, value, items scored) of one lexical result: the figure its own
    literature reports first."""
    if level == "word-pair":
        return "spearman", scores.get("spearman"), int(scores.get("pairs", 0))
    if level == "word-analogy":
        overall = scores.get("overall") or {}
        return (
            "3cosadd",
            (overall.get("3cosadd") or {}).get("accuracy"),
            int(overall.get("questions", 0)),
        )
    if level == "word-translation":
        p1 = ((scores.get("source_to_target") or {}).get("csls") or {}).get("p@1")
        return "csls_p@1", p1, int(scores.get("test_pairs", 0))
    if level == "sentence-transformation":
        n = sum(int(t.get("sentences", 0)) for t in (scores.get("types") or {}).values())
        return "pearson", scores.get("pearson_cosine_vs_string_similarity"), n
    if level == "sentence-comparison":
        n = sum(int(t.get("comparisons", 0)) for t in (scores.get("labels") or {}).values())
        return "costra", (scores.get("package_groups") or {}).get("costra"), n
    if level == "word-pair-in-context":  # SemEval-2020 Task 3's subtask 1
        change = (scores.get("subtask1_change") or {}).get("uncentred_pearson")
        return "uncentred_pearson_change", change, int(scores.get("pairs", 0))
    return "score", None, 0


def lexical_entry(level: str, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    metric, n, scores = "score", 0, {}
    for r in results:
        metric, value, n = lexical_headline(level, r["scores"])
        scores[_card_name(r)] = {metric: value}
    return {
        "kind": "lexical",
        "metric": metric,
        "n": n,
        "scores": scores,
        "note": "Seed 0's vectors; the majority class has no meaning without labels.",
    }


def scored_entry(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    scores, n = {}, 0
    for r in results:
        scores[_card_name(r)] = {"spearman": r["metrics"]["spearman"]["mean"]}
        sizes = r.get("split_sizes") or {}
        n = int(sizes.get("test", max(sizes.values(), default=0)))
    return {"kind": "scored", "metric": "spearman", "n": n, "scores": scores}


def _by_config(results: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        out.setdefault(str(r["config"]), []).append(r)
    return out


def _evaluate_each(
    evaluate: Callable[..., list[dict[str, Any]]],
    folder: Path,
    names: list[str],
    encoders: list[str],
    common: dict[str, Any],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Results by config, and the configs ``evaluate`` refused with its reason: the whole
    list in one call (one read of the card, one progress bar), one config at a time only
    when that call fails, so one config evaluation cannot handle leaves the others scored."""
    try:
        return _by_config(evaluate(str(folder), config=names, encoders=encoders, **common)), {}
    except PolyprobeError:
        if len(names) == 1:
            raise
    grouped: dict[str, list[dict[str, Any]]] = {}
    failed: dict[str, str] = {}
    for name in names:
        try:
            grouped.update(_evaluate_each(evaluate, folder, [name], encoders, common)[0])
        except PolyprobeError as exc:
            failed[name] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return grouped, failed


def compute(
    folder: Path,
    card: dict[str, Any],
    work: Path,
    *,
    progress: bool,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    """Every config's entry, in the card's config order."""
    from polyprobe.evaluation.api import evaluate

    revision = data_revision(folder)
    pconfigs: dict[str, Any] = card["polyprobe"]["configs"]
    names = [str(c["config_name"]) for c in card.get("configs") or []]
    kinds = {n: _kind(pconfigs.get(n) or {}) for n in names}
    common = {
        "probe": PROBE,
        "seeds": list(SEEDS),
        "out": work / "results",
        "revision": revision,
        "cache": work / "embeddings",
        "cache_dir": work / "datasets",
        "progress": progress,
    }

    entries: dict[str, Any] = {}
    groups = {
        "classifier": list(ENCODERS.values()),
        "lexical": [ENCODERS[e] for e in LEXICAL_ENCODERS],
        "scored": [ENCODERS[e] for e in LEXICAL_ENCODERS],
    }
    for kind, encoders in groups.items():
        todo = [n for n in names if kinds[n] == kind]
        if not todo:
            continue
        if progress:
            echo(f"baselines: {len(todo)} {kind} config(s) × {len(encoders)} encoder(s)")
        grouped, failed = _evaluate_each(evaluate, folder, todo, encoders, common)
        for name, reason in failed.items():  # no path of this run in the card: same bytes
            reason = reason.replace(str(work), "<temporary folder>").replace(
                str(folder), folder.name
            )
            entries[name] = {"kind": "none", "note": f"not scored: {reason}"}
        for name in todo:
            if name in failed:
                continue
            found = grouped.get(name, [])
            if kind == "classifier":
                entries[name] = classifier_entry(found)
            elif kind == "lexical":
                entries[name] = lexical_entry(str(pconfigs[name].get("level", "")), found)
            else:
                entries[name] = scored_entry(found)
    for name in names:
        if kinds[name] == "none":
            entries[name] = {
                "kind": "none",
                "note": "no classifier baseline: the label is a graded score of single items",
            }
    return {
        "method": method_block(folder.name, revision),
        "configs": {n: entries[n] for n in names},
    }


def write_card(folder: Path, text: str) -> None:
    """Replace README.md atomically: a temporary file beside it, then ``os.replace`` (the
    file is named for this process, so the next run removes it after a SIGKILL)."""
    target = folder / README
    tmp = folder / owned_name(CARD_TMP_PREFIX)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def add_baselines(
    folder: str | Path, *, progress: bool = True, echo: Callable[[str], None] = print
) -> BaselinesOutcome:
    """Score the bundled baselines on every config of ``folder`` and write them into its
    card (replacing earlier ones). The same folder always gives the same card bytes."""
    folder = Path(folder)
    readme = folder / README
    if not readme.is_file():
        raise UsageError(f"{folder}: no {README} (not a dataset folder)")
    text = readme.read_text(encoding="utf-8")
    try:
        card, _ = split_readme(cardbase.strip_baselines(text))
    except ValueError as exc:
        raise UsageError(f"{readme}: {exc}") from exc
    if not isinstance(card.get("polyprobe"), dict) or "configs" not in card["polyprobe"]:
        raise UsageError(f"{readme}: no polyprobe block: not a polyprobe dataset folder")
    scratch_parent = Path(tempfile.gettempdir())
    sweep_orphans(folder, CARD_TMP_PREFIX)  # what a killed run left
    sweep_orphans(scratch_parent, TMP_PREFIX)
    scratch = make_owned_dir(scratch_parent, TMP_PREFIX, 0o700)
    try:
        with _single_thread():
            block = compute(folder, card, scratch, progress=progress, echo=echo)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    new_text = cardbase.with_baselines(text, block)
    problems = cardbase.check_block(block, list(block["configs"]), split_readme(new_text)[1])
    if problems:  # a bug here, not the user's: never write a card validate would refuse
        raise PolyprobeError("baselines block does not check: " + "; ".join(problems))
    if new_text != text:
        write_card(folder, new_text)
    outcome = BaselinesOutcome(folder, block)
    for name, entry in block["configs"].items():
        if entry["kind"] == "none":
            outcome.skipped[name] = entry["note"]
        else:
            outcome.scored.append(name)
    if progress:
        echo(
            f"baselines: {len(outcome.scored)} config(s) scored, {len(outcome.skipped)} "
            f"without a baseline; written to {readme}"
        )
    return outcome
