"""Observations merged across record ranges fit exactly as one observation, for the families
outside the UD build: RST trees, raw text (subject-verb agreement; Wikipedia documents for the
document tasks), tabular files, TREC, word analogies and COSTRA.

As in ``test_observation_merge``: each family's real records (the shared data the family's own
tests read; RST has no treebank offline, so its tests' hand-drawn trees) are cut into 2 and 3
contiguous ranges, each range observed apart and sent through a pickle round trip (ranges are
observed in other processes), merged in order, fitted, and compared field by field — dict key
order and array dtypes included — with the fit of one observation fed every record.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_discourse_rst import _treebank
from test_observation_merge import derived, families, merged, observed, same

from polyprobe.builders.task import Task, TaskContext, mergeable
from polyprobe.loaders.source import InvalidPolicy

PARTS = [2, 3]
EN_WIKI = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
GOOGLE_CSV = (
    "word_similarity/vecto_word_benchmarks/word-analogy/monolingual/en/google-analogies.csv"
)
SIMLEX = "word_similarity/vecto_word_benchmarks/word-similarity/monolingual/en/simlex999.csv"


def cut(records: Sequence[Any], parts: int) -> list[list[Any]]:
    """``records`` in ``parts`` contiguous ranges of about equal length (every record of
    these families is a document of its own, so any cut is one a build may make)."""
    bounds = [len(records) * k // parts for k in range(parts + 1)]
    ranges = [list(records[a:b]) for a, b in itertools.pairwise(bounds)]
    assert all(ranges) and sum(map(len, ranges)) == len(records)
    return ranges


def check(task: Task[Any], records: Sequence[Any], parts: int) -> Any:
    """Assert the fit (and the parameters) of ``records`` cut into ``parts`` ranges, merged,
    is the fit of one observation of them all; return that fit."""
    whole = observed(task, records)
    assert mergeable(whole), f"{task.name}: its observation has no merge()"
    one = task.fit(whole)
    both = task.fit(merged(task, cut(records, parts)))
    same(one, both, f"{task.name} fit")
    same(task.parameters(one), task.parameters(both), f"{task.name} parameters")
    return one


# --- RST ----------------------------------------------------------------------------------


@pytest.mark.parametrize("parts", PARTS)
@pytest.mark.parametrize("relation_map", [{}, {"list": "Joint", "List": "Joint", "cause": "Cause"}])
def test_discourse_relations(tmp_path: Path, parts: int, relation_map: dict[str, str]) -> None:
    from polyprobe.builders.discourse.discourse_relations import DiscourseRelations
    from polyprobe.loaders.rst import RstSource

    source = RstSource.from_paths([_treebank(tmp_path / "toy-rst")])
    documents = list(source.records(InvalidPolicy("raise")))
    assert len(documents) == 10
    task = DiscourseRelations.configure({"relation_map": relation_map}, TaskContext())
    fit = check(task, documents, parts)
    assert fit.report["documents"] == 10
    if relation_map:  # the unmapped relations are counted too
        assert fit.label_names == ("NN-Joint", "NS-Cause")
        assert fit.report["unmapped_relations"]["elaboration"] == 5


# --- raw text ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wiki_documents(data_dir: Path) -> list[Any]:
    """The first 40 documents of the shared English dump, as ``build wiki`` reads them."""
    from polyprobe.builders.records.rawdocuments import RawDocumentSource
    from polyprobe.builders.records.rawtext import SentenceFilter
    from polyprobe.loaders.segmentation import Segmenter
    from polyprobe.loaders.wikisource import WikiDumpSource

    source = WikiDumpSource(data_dir / "wikipedia" / EN_WIKI, Segmenter("en"))
    read = RawDocumentSource(source, SentenceFilter()).records(InvalidPolicy("raise", Counter()))
    return list(itertools.islice(read, 40))


@pytest.mark.parametrize("parts", PARTS)
@pytest.mark.parametrize(
    ("task_name", "options"),
    [
        ("sentence_position", {}),
        ("binary_sentence_ordering", {"align": "document"}),
        ("discourse_coherence", {"pool_size": 50}),  # small pools: the merge must evict
        ("sentence_section", {}),
    ],
)
def test_document_tasks_on_wikipedia(
    wiki_documents: list[Any], parts: int, task_name: str, options: dict[str, Any]
) -> None:
    """Wikipedia documents mark sections and paragraphs (UD documents mark neither)."""
    from polyprobe.builders.families.wiki import WIKI

    task = WIKI.tasks.get(task_name).configure(options, TaskContext(lang="en"))
    fit = check(task, wiki_documents, parts)
    assert fit.infeasible is None
    if task_name == "sentence_section":
        assert fit.report["sections"]["documents with a lead and a body"] > 10
    if task_name == "discourse_coherence":
        assert list(fit.report["pool"].values()) == [50]


@pytest.mark.parametrize("parts", PARTS)
def test_discourse_coherence_pools_of_ud_documents(data_dir: Path, parts: int) -> None:
    """EWT's dev and test documents with pools smaller than a split: the merged pools keep
    the same sentences, per source and split in the order one pass meets them."""
    from test_observation_merge import document_cuts

    sentences, documents = families(
        data_dir, "UD_English-EWT", ("en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu")
    )
    records = list(sentences.records.records("raise", Counter()))
    cuts = document_cuts(records, parts)
    ranges = [derived(documents, records[a:b]) for a, b in itertools.pairwise(cuts)]
    whole = derived(documents, records)
    (task,) = [t for t in documents.tasks if t.name == "discourse_coherence"]
    task = type(task).configure({"pool_size": 100}, task.context)
    one = task.fit(observed(task, whole))
    same(one, task.fit(merged(task, ranges)), "discourse_coherence fit")
    assert len(one.pools) == 2 and all(len(p) == 100 for p in one.pools.values())


@pytest.fixture(scope="module")
def wiki_sentences(data_dir: Path) -> list[Any]:
    """The first 3000 kept sentences of the shared English dump, as ``build wiki`` reads them."""
    from polyprobe.builders.records.rawtext import SentenceFilter, TextRecords
    from polyprobe.loaders.segmentation import Segmenter
    from polyprobe.loaders.wikisource import WikiDumpSource

    family = TextRecords(
        sources=(WikiDumpSource(data_dir / "wikipedia" / EN_WIKI, Segmenter("en")),),
        sentence_filter=SentenceFilter(),
    )
    return list(itertools.islice(family.records("raise", Counter()), 3000))


@pytest.mark.parametrize("parts", PARTS)
def test_raw_subject_verb_agreement(data_dir: Path, wiki_sentences: list[Any], parts: int) -> None:
    from polyprobe.builders.sentence.raw_agreement import RawSubjectVerbAgreement

    options = {
        "unimorph": [str(data_dir / "unimorph" / "lexicons" / "eng")],
        "noun_forms": [str(data_dir / "ud" / "UD_English-EWT" / "en_ewt-ud-dev.conllu")],
        "top_verbs": 40,  # fewer than the corpus's verbs: the cut at the top must agree
    }
    task = RawSubjectVerbAgreement.configure(options, TaskContext(lang="en"))
    fit = check(task, wiki_sentences, parts)
    assert fit.infeasible is None and fit.report["verbs"] == 40
    assert fit.targets


# --- tabular files, TREC -----------------------------------------------------------------


@pytest.mark.parametrize("parts", PARTS)
def test_tabular_classification_and_pairs(data_dir: Path, parts: int, tmp_path: Path) -> None:
    """TREC's train file read as a classification file (SQC's line format), SimLex-999 read
    as a pairs file labelled by its score column."""
    from polyprobe.builders.downstream.tabular import Classification, PairClassification
    from polyprobe.loaders.tabular import TabularSource

    policy = InvalidPolicy("raise")
    # The distributed file is ISO-8859-1, which only the TREC reader decodes (a user's file
    # must be UTF-8): a UTF-8 copy, as a user would give it.
    trec = tmp_path / "train_5500.label"
    raw = (data_dir / "trec" / "train_5500.label").read_bytes()
    trec.write_text(raw.decode("iso-8859-1"), encoding="utf-8")
    lines = TabularSource(trec, "classification", format="trec-lines")
    questions = list(lines.records(policy))
    fit = check(Classification(context=TaskContext(lang="en")), questions, parts)
    assert fit.label_names == ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
    columns = {"sentence1": "word1", "sentence2": "word2", "label": "similarity"}
    simlex = TabularSource(data_dir / SIMLEX, "pairs", columns=columns)
    pairs = list(simlex.records(policy))
    assert len(pairs) == 999
    check(PairClassification(context=TaskContext(lang="en")), pairs, parts)


@pytest.mark.parametrize("parts", PARTS)
def test_trec(data_dir: Path, parts: int) -> None:
    from polyprobe.builders.downstream.trec import TrecCoarse, TrecFine
    from polyprobe.loaders.trec import TrecSource

    records = list(TrecSource(data_dir / "trec").records(InvalidPolicy("raise")))
    assert len(records) == 5452 + 500
    for cls in (TrecCoarse, TrecFine):
        fit = check(cls(context=TaskContext(lang="en")), records, parts)
        assert fit.report["train_rows_dropped_as_test_copies"] > 0  # (copies across ranges)
        assert len(fit.group_of) > 5000


# --- lexical sets ----------------------------------------------------------------------------


@pytest.mark.parametrize("parts", PARTS)
def test_analogies(data_dir: Path, parts: int) -> None:
    from polyprobe.builders.lexical.analogies import analogy_tasks
    from polyprobe.loaders.analogies import AnalogySource

    finnish = sorted((data_dir / "word_similarity/finsemevl/analogy").glob("ANA_*.txt"))
    for source in (AnalogySource((data_dir / GOOGLE_CSV,)), AnalogySource(tuple(finnish))):
        policy = InvalidPolicy("raise")
        classes = analogy_tasks(source.read(policy))
        records = list(source.records(policy))
        for cls in (classes[0], classes[-1]):  # every category, and the last one alone
            fit = check(cls(context=TaskContext()), records, parts)
            counted = sum(c["questions"] for c in fit.report["categories"].values())
            assert counted == len(records)


@pytest.mark.parametrize("parts", PARTS)
def test_costra(data_dir: Path, parts: int) -> None:
    from polyprobe.builders.lexical.costra import costra_tasks
    from polyprobe.loaders.costra import CostraSource

    source = CostraSource(data_dir / "costra")
    policy = InvalidPolicy("raise")
    records = list(source.records(policy))
    for found in source.sets(policy):
        for cls in costra_tasks(found):
            fit = check(cls(context=TaskContext(lang="cs")), records, parts)
            assert sum(fit.report["rows"].values()) == sum(
                1 for r in records if r.source.treebank == cls.set_name
            )
