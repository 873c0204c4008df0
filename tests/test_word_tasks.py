"""Word-level task logic on the shared UniMorph lexicons: hand-checked labels and invariants, and
the word tasks as Task objects (metadata, options, fit)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from polyprobe.builders.citations import SAHIN_2020
from polyprobe.builders.families.unimorph import UNIMORPH
from polyprobe.builders.records.words import unit_splitter
from polyprobe.builders.task import TaskContext
from polyprobe.builders.word import (
    LEMMA_LABEL,
    NONE_LABEL,
    SizeParams,
    character_bin,
    character_bin_task,
    odd_feature,
    odd_feature_label,
    pos_task,
    pseudo_task,
    same_feature,
    same_feature_label,
    single_feature,
    tag_count,
)
from polyprobe.builders.word.common import CHARACTER_BINS
from polyprobe.builders.word.corpus import WordCorpus
from polyprobe.builders.word.pairs import skipped_features
from polyprobe.builders.word.syncretism import SyncretismOptions
from polyprobe.builders.word.tasks import (
    WORD_TASKS,
    CharacterBin,
    OddFeature,
    SameFeature,
    TagCount,
    WordOptions,
    WordTask,
    layer_task,
)
from polyprobe.errors import UsageError
from polyprobe.hashing import lexical_key
from polyprobe.loaders.frequency import from_conllu
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.unimorph import read_unimorph
from polyprobe.loaders.wuggy import filter_pseudowords, read_wuggy_output
from polyprobe.metadata import Level

SCALE = SizeParams(scale=True)


def _lexicon(data_dir: Path, pattern: str, lang: str | None = None) -> list[LexEntry]:
    return list(read_unimorph(sorted((data_dir / "unimorph").glob(pattern)), lang=lang))


@pytest.fixture(scope="module")
def german(data_dir: Path) -> list[LexEntry]:
    return _lexicon(data_dir, "sigmorphon2018/german-*")


@pytest.fixture(scope="module")
def turkish(data_dir: Path) -> list[LexEntry]:
    return _lexicon(data_dir, "sigmorphon2018/turkish-*", "tur")


def _full_pool(entries: list[LexEntry], task: str) -> dict[str, str]:
    """Every eligible labelled form (no None class, size = pool): form -> label."""
    probe = single_feature(entries, task, sizes=SCALE)
    pool = probe.report.counts["labelled_pool"]
    full = single_feature(entries, task, sizes=SizeParams(min_forms=pool), none_share=0.0)
    assert full.eligible
    return {c.word: c.label for c in full.candidates}


def _entry(entries: list[LexEntry], form: str) -> LexEntry:
    return next(e for e in entries if e.form == form)


def test_german_case_hand_checked(german: list[LexEntry]) -> None:
    labels = _full_pool(german, "case")
    assert labels["Hahnes"] == "Genitive"
    assert labels["Wahlgang"] == "Dative"
    # "Fehlgriffe" is Accusative and Nominative plural in the lexicon: ambiguous, excluded.
    assert {e.tag for e in german if e.form == "Fehlgriffe"} == {"N;ACC;PL", "N;NOM;PL"}
    assert "Fehlgriffe" not in labels
    result = single_feature(german, "case", sizes=SCALE)
    assert result.report.drops["ambiguous-form"] >= 500
    assert "wandert aus" not in labels and result.report.drops["form-with-space"] > 0


def test_turkish_possession_hand_checked(turkish: list[LexEntry]) -> None:
    labels = _full_pool(turkish, "possession")
    assert labels["heyetlerinin"] == "Possession by 3.pl"
    assert set(labels.values()) <= {f"Possession by {p}.{n}" for p in "123" for n in ("sg", "pl")}


def test_layered_person_label(data_dir: Path) -> None:
    spanish = _lexicon(data_dir, "sigmorphon2023/spa.*")
    labels = _full_pool(spanish, "person")
    assert labels["abastaríais"] == "Second person Plural"  # V;COND;NOM(2,PL)
    person_dat = _full_pool(spanish, "person_dat")
    assert person_dat["abocínale"] == "Third person Singular"  # V;IMP;DAT(3,SG);NOM(INFM,2,SG)


def test_none_class_share_and_sizes(german: list[LexEntry]) -> None:
    result = single_feature(german, "case", sizes=SCALE, seed=3)
    report = result.report
    target = report.counts["target"]
    assert target == max(1000, report.counts["carrying_forms"] // 2)
    assert len(result.candidates) == target
    counts = Counter(c.label for c in result.candidates)
    assert counts[NONE_LABEL] == round(0.3 * target)
    carrying = {lexical_key(e.form) for e in german if "Case" in e.features}
    assert all(c.lexical_key not in carrying for c in result.candidates if c.label == NONE_LABEL)
    keys = [c.lexical_key for c in result.candidates]
    assert len(keys) == len(set(keys))  # one row per form
    assert all(c.group == c.lexical_key == lexical_key(c.word) for c in result.candidates)  # type: ignore[arg-type]


def test_linspector_min_forms_and_single_valued(data_dir: Path, german: list[LexEntry]) -> None:
    strict = single_feature(german, "case")  # LINSPECTOR's 10,000
    assert not strict.eligible and "10000 required" in strict.report.reasons[0]
    english = _lexicon(data_dir, "sigmorphon2018/english-*")
    number = single_feature(english, "number", sizes=SCALE)
    assert not number.eligible and number.report.reasons[0].startswith(
        "single-valued: only Singular"
    )
    gender = single_feature(german, "gender", sizes=SCALE)
    assert not gender.eligible and "no form carries" in gender.report.reasons[0]


def test_seeded_and_deterministic(german: list[LexEntry]) -> None:
    a = single_feature(german, "number", sizes=SCALE, seed=1).candidates
    b = single_feature(german, "number", sizes=SCALE, seed=1).candidates
    c = single_feature(german, "number", sizes=SCALE, seed=2).candidates
    assert a == b and a != c


def test_frequency_sampling_falls_back_to_rare(data_dir: Path, german: list[LexEntry]) -> None:
    freq = from_conllu(data_dir / "ud" / "UD_German-GSD")
    result = single_feature(german, "case", sizes=SCALE, frequencies=freq)
    counts = result.report.counts
    assert counts["labelled_frequent"] > 0
    assert (
        counts["labelled_frequent"] + counts["labelled_rare"]
        == len(result.candidates) - counts["none_frequent"] - counts["none_rare"]
    )
    assert any("filled with rare" in n for n in result.report.notes)  # the UD sample is small
    frequent = [c for c in result.candidates if freq.is_frequent(c.word)]  # type: ignore[arg-type]
    assert len(frequent) == counts["labelled_frequent"] + counts["none_frequent"]


def test_pos_tag_count_character_bin(german: list[LexEntry]) -> None:
    pos = pos_task(german, sizes=SCALE)
    # German V.PTCP entries (gesagt, ...) are their own class, as LINSPECTOR's (issue 14)
    assert pos.eligible and set(pos.report.label_counts) == {"Noun", "Participle", "Verb"}
    tags = tag_count(german, sizes=SCALE)
    bins = character_bin_task(german, sizes=SCALE)
    assert [c.word for c in tags.candidates] == [c.word for c in bins.candidates]  # same words
    first: dict[str, LexEntry] = {}
    for e in german:
        first.setdefault(lexical_key(e.form), e)
    assert all(c.label == str(first[c.lexical_key].tag.count(";") + 1) for c in tags.candidates)
    assert (
        first["hahnes"].tag == "N;GEN;SG" and len(first["hahnes"].features) == 3
    )  # POS, Case, Number
    assert all(c.label == character_bin(c.word) for c in bins.candidates)  # type: ignore[arg-type]
    assert [character_bin("x" * n) for n in (1, 4, 5, 8, 9, 13, 17, 20, 21)] == [
        "1-4", "1-4", "5-8", "5-8", "9-12", "13-16", "17-20", "17-20", ">20"
    ]  # fmt: skip


def test_same_feature_pair_hand_checked(german: list[LexEntry]) -> None:
    hahnes, wahlgang, bukette = (_entry(german, f) for f in ("Hahnes", "Wahlgang", "Bukette"))
    # N;GEN;SG vs N;DAT;SG, different lemmas: only Number is shared.
    assert same_feature_label(hahnes, wahlgang) == "Number"
    # N;GEN;SG vs N;ACC;PL: nothing shared, different lemmas: no item.
    assert same_feature_label(hahnes, bukette) is None
    result = same_feature(german, sizes=SCALE)
    assert result.eligible
    _check_pairs(result.candidates, german, same_feature_label)


def test_odd_feature_pair_hand_checked(german: list[LexEntry]) -> None:
    amboss, ambosses = (_entry(german, f) for f in ("Amboss", "Ambosses"))
    # Same lemma, N;DAT;SG vs N;GEN;SG: they differ in Case only.
    assert (amboss.lemma, amboss.tag, ambosses.lemma, ambosses.tag) == (
        "Amboss",
        "N;DAT;SG",
        "Amboss",
        "N;GEN;SG",
    )
    assert odd_feature_label(amboss, ambosses) == "Case"
    wahlgang, hahnes = _entry(german, "Wahlgang"), _entry(german, "Hahnes")
    assert odd_feature_label(wahlgang, hahnes) is None  # different lemmas, different bundles
    result = odd_feature(german, sizes=SCALE)
    assert result.eligible
    labels = {frozenset(c.word): c.label for c in result.candidates}
    assert labels[frozenset(("Amboss", "Ambosses"))] == "Case"
    _check_pairs(result.candidates, german, odd_feature_label)
    counts = Counter(c.label for c in result.candidates)
    assert counts[LEMMA_LABEL] <= sorted(counts.values())[-2]  # dominant label downsampled


def _check_pairs(candidates, entries: list[LexEntry], label_fn) -> None:  # type: ignore[no-untyped-def]
    """No word pair twice, and every label is the only one any analyses of the words give."""
    by_key: dict[str, list[LexEntry]] = {}
    for e in entries:
        by_key.setdefault(lexical_key(e.form), []).append(e)
    seen: set[tuple[str, str]] = set()
    for c in candidates:
        k1, k2 = c.keys
        pair = tuple(sorted((k1, k2)))
        assert pair not in seen, f"pair {c.word} twice"
        seen.add(pair)  # type: ignore[arg-type]
        labels = {
            lab for a in by_key[k1] for b in by_key[k2] if (lab := label_fn(a, b)) is not None
        }
        assert labels == {c.label}, (c.word, labels)
        assert c.group == "|".join(pair)


def test_linspector_skips() -> None:
    assert skipped_features("tr") == {"Mood", "Interrogativity"}
    assert skipped_features("fin") == {"Mood"} and skipped_features("de") == frozenset()


def test_pseudo_task_from_real_output(data_dir: Path, german: list[LexEntry]) -> None:
    rows = read_wuggy_output(data_dir / "wuggy" / "outputs" / "ort_german").rows
    kept = filter_pseudowords(rows, [[e.form for e in german], [r.seed for r in rows]]).kept
    result = pseudo_task(kept, n_pairs=500, seed=1)
    assert result.eligible and result.report.label_counts == {"0": 500, "1": 500}
    groups: dict[str, list[str]] = {}
    for c in result.candidates:
        groups.setdefault(c.group, []).append(c.label)
    assert all(sorted(labels) == ["0", "1"] for labels in groups.values())
    real = {lexical_key(e.form) for e in german}
    assert not any(c.lexical_key in real for c in result.candidates if c.label == "0")


# ------------------------------------------------------------------------- Task objects


def _corpus(entries: list[LexEntry], lang: str = "de") -> WordCorpus:
    iso3 = {"de": "deu", "es": "spa"}[lang]
    return WordCorpus(list(entries), lang=lang, iso3=iso3, splitter=unit_splitter)


def _task(cls: type[WordTask], **options: Any) -> WordTask:
    return cls.configure({"scale": True, **options}, TaskContext(lang="de"))


def test_word_task_metadata() -> None:
    names = [cls.metadata.name for cls in WORD_TASKS]
    assert names == [
        "case", "gender", "mood", "number", "person", "polarity", "possession", "tense",
        "voice", "pos", "tag_count", "character_bin", "pseudo", "same_feature", "odd_feature",
    ]  # fmt: skip
    assert UNIMORPH.tasks is not None and UNIMORPH.tasks.resolve(None) == names
    for cls in WORD_TASKS:
        meta = cls.metadata
        assert meta.citation == SAHIN_2020 and meta.lexical_control and meta.seed_dependent
        assert meta.record == "lexicon entry" and meta.labels is None and meta.labels_derived
        assert cls.whole_corpus and cls.Options is WordOptions
        pair = meta.name in ("same_feature", "odd_feature")
        assert meta.level == (Level.WORD_PAIR if pair else Level.WORD)
    case = UNIMORPH.tasks.get("case").metadata.description
    assert case == (
        "Case of a word form (UniMorph schema value names, as LINSPECTOR released them), or "
        "`None` for forms that never carry it."
    )
    assert UNIMORPH.tasks.get("person").metadata.description.startswith(
        "Person and number of the subject of a word form"
    )


def test_argument_layer_tasks_made_on_demand(data_dir: Path) -> None:
    cls = UNIMORPH.tasks.get("person_dat")
    assert cls is layer_task("person_dat") and "person_dat" not in UNIMORPH.tasks.by_name
    assert cls.metadata.description.startswith("person and number of the DAT argument")
    assert UNIMORPH.tasks.resolve(["person_dat", "case", "person_acc"]) == [
        "case",
        "person_acc",
        "person_dat",
    ]
    for bad in ("person_", "person_DAT", "person_d4t", "casus"):
        with pytest.raises(UsageError, match="unknown task"):
            UNIMORPH.tasks.get(bad)
    spanish = _lexicon(data_dir, "sigmorphon2023/spa.*", "spa")
    task = cls.configure({"scale": True}, TaskContext(lang="es"))
    fit = task.fit(_corpus(spanish, "es"))
    assert fit.label_names[-1] == NONE_LABEL and "Third person Singular" in fit.label_names
    values: dict[str, set[str | None]] = {}
    for e in spanish:
        values.setdefault(lexical_key(e.form), set()).add(e.features.get("person_dat"))
    labelled = [c for c in fit.pools[0].candidates if c.label != NONE_LABEL]
    assert len(labelled) > 100
    assert all(values[c.lexical_key] - {None} == {c.label} for c in labelled)
    # hand-checked: abocínale is V;IMP;DAT(3,SG);NOM(INFM,2,SG)
    assert values["abocínale"] == {"Third person Singular"}


def test_feature_task_fit_is_a_value(german: list[LexEntry]) -> None:
    """The fit holds what the lexicon decided; the task object holds options and context
    only, and fitting twice gives equal values."""
    task = _task(UNIMORPH.tasks.get("case"))
    corpus = _corpus(german)
    fit = task.fit(corpus)
    # issue 37: syncretism per paradigm cell - the singular's and the plural's joined classes
    assert fit.label_names == (
        "Accusative/Dative/Nominative", "Accusative/Genitive/Nominative", "Dative", "Genitive",
        "None",
    )
    assert [p.disjoint for p in fit.pools] == ["form", "lemma"]
    direct = single_feature(
        german,
        "case",
        sizes=SCALE,
        class_floor=90,
        case_sensitive=True,
        syncretism=SyncretismOptions(),
    )
    assert list(fit.pools[0].candidates) == direct.candidates
    assert sum(fit.pools[0].counts) == len(direct.candidates)  # as 7000/2000/1000
    counts = {k: v for k, v in fit.report["counts"].items() if k != "case_evidence"}
    assert counts == direct.report.counts and fit.report["eligible"]
    # case-sensitive forms (issue 14): fewer merged analyses, so fewer ambiguous ones; per
    # cell (issue 37), a form listed under two cells its cell joins (Pinscher: N;GEN;PL and
    # N;ACC;PL) is one class, not ambiguous: 253
    assert fit.drops["ambiguous-form"] >= 200 and fit.infeasible is None
    assert task.fit(corpus) == fit
    assert set(vars(task)) == {"options", "context", "drops"}
    gender = _task(UNIMORPH.tasks.get("gender")).fit(corpus)
    assert gender.pools == () and gender.infeasible == "no form carries gender"


def test_declared_label_orders(german: list[LexEntry]) -> None:
    corpus = _corpus(german)
    tags = _task(TagCount).fit(corpus).label_names
    assert list(tags) == sorted(tags, key=int) and len(tags) >= 2
    bins = _task(CharacterBin).fit(corpus).label_names
    assert list(bins) == [b for b in CHARACTER_BINS if b in bins]
    pairs = _task(OddFeature).fit(corpus).label_names
    assert pairs[-1] == LEMMA_LABEL and list(pairs[:-1]) == sorted(pairs[:-1])


def test_pair_tasks_share_the_lemma_partition(german: list[LexEntry]) -> None:
    corpus = _corpus(german)
    same = _task(SameFeature).fit(corpus)
    odd = _task(OddFeature).fit(corpus)
    # same_feature: both sets inside a partition; odd_feature: only the lemma-disjoint one
    assert [p.source_split is not None for p in same.pools] == [True, True]
    assert [p.source_split is not None for p in odd.pools] == [False, True]
    assert sorted(k[0] for k in corpus.partitions) == ["form", "lemma"]  # made once each
    lemma_of = {lexical_key(e.form): e.lemma for e in german}
    for fit in (same, odd):
        pool = fit.pools[1]
        split_of: dict[str, int] = {}
        for cand, split in zip(pool.candidates, pool.source_split or (), strict=True):
            for key in cand.keys:
                assert split_of.setdefault(lemma_of[key], split) == split


def test_word_options_are_checked() -> None:
    ctx = TaskContext(lang="de")
    task = UNIMORPH.tasks.get("case").configure(
        {"min_forms": 300, "scale": True, "split_sizes": [70, 20, 10]}, ctx
    )
    assert task.options == WordOptions(min_forms=300, scale=True, split_sizes=(70, 20, 10))
    assert task.options.sizes == SizeParams(min_forms=300, scale=True, scale_floor=300)
    assert WordOptions().sizes == SizeParams()  # LINSPECTOR's 10,000
    with pytest.raises(UsageError) as err:
        UNIMORPH.tasks.get("case").configure({"min_form": 3}, ctx)
    assert str(err.value) == (
        "[tasks.case]: unknown option(s) min_form; valid options: min_forms, scale, split_sizes, "
        "syncretism, syncretism_threshold, syncretism_min_lemmas, case_sensitive"
    )
    for raw, what in (
        ({"split_sizes": [0, 1, 1]}, "split_sizes"),
        ({"split_sizes": [7, 2]}, "split_sizes"),
        ({"min_forms": 0}, "min_forms"),
        ({"scale": "yes"}, "scale"),
    ):
        with pytest.raises(UsageError, match=rf"^\[tasks\.same_feature\]: {what}"):
            SameFeature.configure(raw, ctx)
