"""The confound audit counts rows per (label, length) and per (label, lexical key) from the
chunks as they are written (``write_config_files``' ``observe``), and takes a copied split's
counts from the split it copies. These tests compare those counts, config by config, with the
counts read back from the written parquet files, as the audit did before (the reference
below), on real builds: a UD whole suite (sentence token lists, discourse windows' lists of
texts, lexical keys, copied splits) and a UniMorph build (characters of words)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from polyprobe.builders import assemble
from polyprobe.builders.confounds import length_counts, pair_counts
from polyprobe.cards.payload import ConfigCard
from polyprobe.metadata import INPUT_COLUMNS, Level


def _counts_read_back(
    staging: Path, card: ConfigCard, level: Level
) -> tuple[Counter[tuple[int, int]], Counter[tuple[int, str]]]:
    """The audit's counts as ``assemble.config_confounds`` took them before: every split of
    the config read back from its parquet file, a row group at a time."""
    lengths: Counter[tuple[int, int]] = Counter()
    keys: Counter[tuple[int, str]] = Counter()
    inputs = INPUT_COLUMNS[level]
    measured = ["tokens"] if "tokens" in inputs else list(inputs)
    for split in card.stats.splits.values():
        with pq.ParquetFile(staging / split.path) as parquet:
            for i in range(parquet.num_row_groups):
                table = parquet.read_row_group(i, columns=["label", "lexical_key", *measured])
                label = table["label"].to_numpy()
                keys.update(pair_counts(label, pc.fill_null(table["lexical_key"], "").to_pylist()))
                lengths.update(length_counts(label, assemble._row_lengths(table, level, inputs)))
    return lengths, keys


def _record_audits(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """While a build runs in this process, record for every audited config the counts read
    back from its files (right after they are written, while the staging folder exists)
    beside the counts the audit used, and how many splits were copied."""
    from polyprobe.cards import folder

    seen: list[dict[str, Any]] = []
    write = folder.write_config_files
    counts = assemble.audit_counts
    plan = assemble.copy_sources

    def write_config_files(tmp: Path, payload: Any, **kwargs: Any) -> ConfigCard:
        card = write(tmp, payload, **kwargs)
        if not payload.scored:
            reference = _counts_read_back(tmp, card, Level(payload.level))
            seen.append({"config": payload.name, "reference": reference})
        return card

    def audit_counts(lengths: Any, names: Any, unit: str, keys: Any) -> dict[str, Any]:
        assert "used" not in seen[-1]
        seen[-1]["used"] = (Counter(lengths), Counter(keys))
        return counts(lengths, names, unit, keys)

    def copy_sources(variants: Any) -> list[dict[str, int]]:
        sources = plan(variants)
        seen.append({"copies": sum(len(mine) for mine in sources)})
        return sources

    monkeypatch.setattr(folder, "write_config_files", write_config_files)
    monkeypatch.setattr(assemble, "audit_counts", audit_counts)
    monkeypatch.setattr(assemble, "copy_sources", copy_sources)
    return seen


def _checked(seen: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The audited configs (each checked) and the number of copied splits."""
    audited = [entry for entry in seen if "config" in entry]
    for entry in audited:
        assert entry["used"] == entry["reference"], entry["config"]
        assert sum(entry["used"][0].values()) == sum(entry["used"][1].values()) > 0
    return audited, sum(entry.get("copies", 0) for entry in seen)


def test_ud_suite_counts_equal_the_files(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """English PUD (1000 sentences, one file: ratio splits), whole suite, natural and
    balanced configs at full size and 500 rows, some of whose splits are copies of an
    earlier config's (the counts of a copy are its source's)."""
    from polyprobe import build_ud

    seen = _record_audits(monkeypatch)
    build_ud([ud_dir / "UD_English-PUD"], lang="en", sizes="500", jobs=1, out=tmp_path / "o")
    audited, copies = _checked(seen)
    assert len(audited) > 25 and copies > 0
    names = {entry["config"] for entry in audited}
    assert {"tense", "sentence_length", "subject_number"} <= names
    # lexical keys counted (tense: the verb lemma)
    tense = next(entry for entry in audited if entry["config"] == "tense")
    assert any(key for _, key in tense["used"][1])


def test_discourse_counts_equal_the_files(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EWT's document tasks (PUD has no documents): a row's length is the whitespace tokens
    of its window's sentences (a list of texts), a relation's of both sides."""
    from polyprobe import build_ud

    seen = _record_audits(monkeypatch)
    tasks = ["sentence_position", "binary_sentence_ordering", "discourse_coherence"]
    build_ud([ud_dir / "UD_English-EWT"], lang="en", tasks=tasks, jobs=1, out=tmp_path / "o")
    audited, _ = _checked(seen)
    assert {entry["config"] for entry in audited} >= set(tasks)


def test_word_build_counts_equal_the_files(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A UniMorph build: lengths are characters of the word (both words of a pair), keys the
    forms or lemmas; two split sets (random and lemma-disjoint)."""
    from polyprobe import build_unimorph

    seen = _record_audits(monkeypatch)
    d = data_dir / "unimorph" / "sigmorphon2018"
    build_unimorph(
        [d / "german-dev", d / "german-test"],
        lang="deu",
        scale=True,
        min_forms=150,
        min_per_class=(5, 2, 2),
        tasks=["case", "number", "pos", "character_bin", "same_feature", "odd_feature"],
        sizes="0.5",
        out=tmp_path / "o",
        jobs=1,
    )
    audited, _ = _checked(seen)
    names = {entry["config"] for entry in audited}
    assert len(audited) > 6 and {"case", "same_feature"} <= names
    assert any(name.endswith("lemma-disjoint") or "disjoint" in name for name in names), names
