"""DiscoEval's document tasks on UD '# newdoc' documents: sentence position, binary sentence
ordering, discourse coherence (and section prediction, infeasible on UD), built from EWT,
hand-checked on a named EWT document, and the any-language rule on treebanks never built
before (German PUD: short documents; Georgian GLC: no document marks at all)."""

from __future__ import annotations

import glob
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from polyprobe import build_ud
from polyprobe.builders.discourse.binary_sentence_ordering import BinarySentenceOrdering
from polyprobe.builders.discourse.discourse_coherence import DiscourseCoherence
from polyprobe.builders.discourse.sentence_position import SentencePosition, moved_to_front
from polyprobe.builders.discourse.sentence_section import SentenceSection
from polyprobe.builders.execution.passes import first_pass
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.cards.validate import validate
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Document, SourceFile
from polyprobe.loaders.sources import discover, read_sources
from polyprobe.loaders.ud_documents import (
    UdDocumentSource,
    has_document_marks,
    sentences_before_document_marks,
    ud_documents,
)

DOC = "answers-20081218053636AA9vV0u_ans"  # EWT test: an Answers thread about slogans
# Its sentences, as en_ewt-ud-test.conllu's '# text' lines give them (sent_id -0001 .. -0010).
DOC_TEXT = (
    "what is a good slogan for an Argentinian restaurant?",
    '"In Argentina, beef is revered, respected, and praised.',
    'Come see how we continue this tradition."',
    "A taste of Argentina.",
    "Here are some articles that discuss the details of slogan writing.",
    "Why certain slogans work and why some don't.",
    "You will find these helpful in writing a new slogan.",
    "A Look at Slogans - http://www.small-business-software.net/look-at-slogans.htm",
    "Unique Selling Proposition - "
    "http://www.small-business-software.net/unique-selling-proposition.htm",
    "Goodluck!",
)
TASKS = ["sentence_position", "binary_sentence_ordering", "discourse_coherence"]


def rows(folder: Path, config: str, split: str) -> list[dict]:
    (path,) = glob.glob(str(folder / "data" / config / f"{split}-*.parquet"))
    return pq.read_table(path).to_pylist()


def all_rows(folder: Path, config: str) -> list[dict]:
    """Every split's rows: a task whose treebank test split is too small for its recommended
    config is re-split by ratio (assemble's test-power rule), so a document's split is the
    engine's choice, not the treebank's."""
    return [r for split in ("train", "validation", "test") for r in rows(folder, config, split)]


@pytest.fixture(scope="module")
def ewt(ud_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("discourse") / "ewt"
    build_ud([ud_dir / "UD_English-EWT"], lang="en", out=out, tasks=["discourse"], jobs=1)
    return out


# --- the document stream -------------------------------------------------------------------


def test_ewt_documents(ud_dir: Path) -> None:
    (tb,) = discover([ud_dir / "UD_English-EWT"])
    counts: Counter[str] = Counter()
    docs = list(ud_documents(read_sources([tb], lazy=True), counts))
    assert counts["documents"] == len(docs) == 1174
    assert counts["sentences without a document"] == 0
    assert counts["sentences in documents"] == 16622  # train 12,544 + dev 2,001 + test 2,077
    doc = next(d for d in docs if d.doc_id == DOC)
    assert doc.source.split == "test" and doc.unit == "sentence" and doc.sections == ()
    assert doc.units[:10] == DOC_TEXT
    assert doc.paragraphs[:4] == (0, 1, 3, 10)  # '# newpar' before sentences 1, 2, 4 and 11
    assert doc.unit_ids[0] == f"{DOC}-0001" and doc.unit_id(4) == f"{DOC}-0005"


def test_treebank_without_newdoc_has_no_documents(ud_dir: Path) -> None:
    (tb,) = discover([ud_dir / "UD_Georgian-GLC"])
    assert not UdDocumentSource(tb).has_documents()
    assert UdDocumentSource(tb).sentences_without_document() == 950  # dev 469 + test 481
    assert all(has_document_marks(f.path) for f in discover([ud_dir / "UD_English-EWT"])[0].files)
    counts: Counter[str] = Counter()
    assert list(ud_documents(read_sources([tb], lazy=True), counts)) == []
    assert counts["sentences without a document"] == 950


def test_document_never_bridges_a_skipped_sentence(tmp_path: Path) -> None:
    """A malformed sentence inside a document, skipped: the document is cut there (two parts,
    one doc id), so no window joins the sentences around the hole."""

    def block(n: int, form: str) -> str:
        return (
            f"# sent_id = s{n}\n# text = {form} .\n1\t{form}\t{form}\tNOUN\t_\t_\t0\troot\t_\t_\n"
            f"2\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n"
        )

    bad = "# sent_id = s3\n# text = broken\n1\tbroken\tbroken\tNOUN\t_\t_\t7\troot\t_\t_\n\n"
    text = "# newdoc id = d1\n" + block(1, "One") + block(2, "Two") + bad + block(4, "Four")
    path = tmp_path / "xx_toy-ud-test.conllu"
    path.write_text(text, encoding="utf-8")
    (tb,) = discover([path])
    counts: Counter[str] = Counter()
    docs = list(ud_documents(read_sources([tb], on_invalid="skip", lazy=True), counts))
    assert [d.units for d in docs] == [("One .", "Two ."), ("Four .",)]
    assert {d.doc_id for d in docs} == {"d1"}
    assert counts["documents cut at a skipped sentence"] == 1


# --- the tasks on synthetic documents --------------------------------------------------------


def _doc(doc_id: str, n: int, split: str = "test", sections: tuple = ()) -> Document:
    return Document(
        doc_id=doc_id,
        units=tuple(f"{doc_id} sentence {i}." for i in range(1, n + 1)),
        unit="sentence",
        sections=sections,
        source=SourceFile("toy", "toy.txt", split),
        line=1,
    )


def test_moved_to_front() -> None:
    window = ("a", "b", "c", "d", "e")
    assert moved_to_front(window, 1) == ["a", "b", "c", "d", "e"]
    assert moved_to_front(window, 4) == ["d", "a", "b", "c", "e"]


def test_tasks_are_deterministic_and_count_drops() -> None:
    docs = [_doc("long", 13), _doc("other", 7), _doc("short", 1)]
    for cls in (SentencePosition, BinarySentenceOrdering, DiscourseCoherence):
        made = []
        for _ in range(2):
            task = cls.configure({"windows": 0}, TaskContext(seed=3))
            obs = task.observation()
            for d in docs:
                obs.observe(d, Shared(d))
            fit = task.fit(obs)
            made.append(
                [
                    (c.copy, c.label, c.inputs)
                    for d in docs
                    for c in task.candidates(d, fit, Shared(d))
                ]
            )
        assert made[0] == made[1]
        assert sum(task.drops.values()) >= 1  # the 1-sentence document
    # every window of a 13-sentence document: SP 5-sentence windows at 1 and 6
    sp = SentencePosition.configure({"windows": 0}, TaskContext(seed=3))
    fit = sp.fit(sp.observation())
    assert [c.copy for c in sp.candidates(docs[0], fit, Shared(docs[0]))] == ["1", "6"]
    assert sp.drops == Counter()
    sp1 = SentencePosition.configure({}, TaskContext(seed=3))
    assert [c.copy for c in sp1.candidates(docs[0], fit, Shared(docs[0]))] == ["1"]


def test_coherence_takes_every_window_by_default() -> None:
    """DiscoEval's DC windows come from anywhere in an article (its data/DC/wiki: 17 of 21
    windows read do not open their article), so the task default is every window; ``windows =
    1`` keeps the opening one."""
    docs = [_doc("long", 13), _doc("other", 7)]
    for options, starts in (({}, ["1", "7"]), ({"windows": 1}, ["1"])):
        task = DiscourseCoherence.configure(options, TaskContext(seed=3))
        obs = task.observation()
        for d in docs:
            obs.observe(d, Shared(d))
        fit = task.fit(obs)
        made = task.candidates(docs[0], fit, Shared(docs[0]))
        assert [c.copy for c in made if c.label == "coherent"] == starts, options


def test_coherence_replacement_comes_from_another_document_of_the_same_split() -> None:
    docs = [_doc("a", 6), _doc("b", 6), _doc("c", 6, split="train")]
    task = DiscourseCoherence.configure({}, TaskContext(seed=0))
    obs = task.observation()
    for d in docs:
        obs.observe(d, Shared(d))
    fit = task.fit(obs)
    coherent, incoherent = task.candidates(docs[0], fit, Shared(docs[0]))
    assert coherent.label == "coherent" and coherent.inputs["sentences"] == list(docs[0].units)
    changed = [
        i
        for i, (x, y) in enumerate(
            zip(coherent.inputs["sentences"], incoherent.inputs["sentences"], strict=True)
        )
        if x != y
    ]
    assert len(changed) == 1 and 1 <= changed[0] <= 4  # positions 2-5
    assert incoherent.inputs["sentences"][changed[0]] in docs[1].units  # b: same split, not c


def test_bad_options_are_refused() -> None:
    with pytest.raises(UsageError, match="windows must be a whole number"):
        SentencePosition.configure({"windows": -1}, TaskContext())
    with pytest.raises(UsageError, match="pool_size"):
        DiscourseCoherence.configure({"pool_size": 1}, TaskContext())
    with pytest.raises(UsageError, match="unknown option"):
        BinarySentenceOrdering.configure({"window": 2}, TaskContext())


def test_sentence_section_lead_and_body() -> None:
    doc = _doc("w", 6, sections=(None, None, "History", "History", "Sources", "Sources"))
    task = SentenceSection.configure({"per_document": 2}, TaskContext(seed=1))
    obs = task.observation()
    obs.observe(doc, Shared(doc))
    fit = task.fit(obs)
    assert fit.infeasible is None
    cands = task.candidates(doc, fit, Shared(doc))
    assert Counter(c.label for c in cands) == {"lead": 2, "body": 2}
    assert {c.inputs["sentences"][0] for c in cands if c.label == "lead"} == set(doc.units[:2])
    flat = _doc("flat", 4)
    task = SentenceSection.configure({}, TaskContext())
    obs = task.observation()
    obs.observe(flat, Shared(flat))
    assert "marks no sections" in (task.fit(obs).infeasible or "")


# --- EWT ---------------------------------------------------------------------------------------


def test_ewt_validates_and_loads(ewt: Path, hf_offline: None) -> None:
    import datasets

    assert validate(ewt).ok
    for task in TASKS:
        ds = datasets.load_dataset(str(ewt), f"{task}.natural-full")
        assert sorted(ds) == ["test", "train", "validation"]
        assert ds["train"].features["sentences"].feature.dtype == "string"
    ds = datasets.load_dataset(str(ewt), "sentence_position.natural-full")
    assert ds["test"].features["label"].names == ["1", "2", "3", "4", "5"]


def test_ewt_label_balance(ewt: Path) -> None:
    report = json.loads((ewt / "report.json").read_text())
    tasks = report.get("tasks", report)
    sp = tasks["sentence_position"]["class_counts"]
    mean = sum(sp.values()) / 5
    assert all(abs(n - mean) / mean < 0.1 for n in sp.values()), sp  # uniform draw
    # the default split keeps every class, each at its floor at least, in every split
    assert tasks["sentence_position"]["dropped_classes"] == {}
    for config in ("sentence_position", "sentence_position.natural-full"):
        for split in ("train", "validation", "test"):
            labels = Counter(r["label"] for r in rows(ewt, config, split))
            floor = 50 if split == "train" else 20
            assert len(labels) == 5 and min(labels.values()) >= floor, (config, split, labels)
    for task in ("binary_sentence_ordering", "discourse_coherence"):
        for split in ("train", "validation", "test"):
            labels = Counter(r["label"] for r in rows(ewt, f"{task}.natural-full", split))
            assert labels[0] == labels[1] > 0, (task, split, labels)
    drops = tasks["discourse_coherence"]["task_drops"]
    assert drops["document shorter than 6 sentences"] == 545
    assert "no input record qualifies" not in str(tasks["sentence_section"]["infeasible"])
    assert "marks no sections" in tasks["sentence_section"]["infeasible"]


def test_ewt_no_document_in_two_splits(ewt: Path) -> None:
    for task in TASKS:
        seen: dict[str, str] = {}
        for split in ("train", "validation", "test"):
            for r in rows(ewt, f"{task}.natural-full", split):
                assert seen.setdefault(r["group"], split) == split


def test_ewt_hand_checked_document(ewt: Path) -> None:
    """EWT test document answers-20081218053636AA9vV0u_ans (sentences quoted in DOC_TEXT)."""
    sp = {r["id"]: r for r in all_rows(ewt, "sentence_position.natural-full") if DOC in r["id"]}
    first = sp[f"UD_English-EWT/{DOC}/sentence_position/{DOC}-0001"]
    # sentence 5 "Here are some articles ..." moved before sentences 1-4: label "5" (id 4)
    assert first["sentences"] == [DOC_TEXT[4], *DOC_TEXT[:4]]
    assert first["label"] == 4
    second = sp[f"UD_English-EWT/{DOC}/sentence_position/{DOC}-0006"]
    assert second["sentences"] == [DOC_TEXT[6], DOC_TEXT[5], *DOC_TEXT[7:10]]  # label "2"
    assert second["label"] == 1
    assert first["group"] == second["group"] == f"UD_English-EWT/{DOC}"
    dc = {r["id"]: r for r in all_rows(ewt, "discourse_coherence.natural-full") if DOC in r["id"]}
    coherent = dc[f"UD_English-EWT/{DOC}/discourse_coherence/{DOC}-0001"]
    incoherent = dc[f"UD_English-EWT/{DOC}/discourse_coherence/{DOC}-0001/incoherent"]
    assert coherent["sentences"] == list(DOC_TEXT[:6]) and coherent["label"] == 0
    assert incoherent["label"] == 1
    assert incoherent["sentences"][0] == DOC_TEXT[0]
    assert incoherent["sentences"][2:] == list(DOC_TEXT[2:6])
    foreign = incoherent["sentences"][1]  # position 2 replaced by a sentence of another test doc
    assert foreign.startswith('The statement said, "We direct an appeal at the men in the Iraqi')
    # BSO: the opening pair of each paragraph of two or more ('# newpar'): p0001 is the
    # question alone, p0002 sentences 2-3, p0003 sentences 4-10, p0004 sentence 11 alone
    bso = [r for r in all_rows(ewt, "binary_sentence_ordering.natural-full") if DOC in r["id"]]
    assert sorted((r["label"], tuple(r["sentences"])) for r in bso) == sorted(
        [
            (0, DOC_TEXT[1:3]),
            (1, (DOC_TEXT[2], DOC_TEXT[1])),
            (0, DOC_TEXT[3:5]),
            (1, (DOC_TEXT[4], DOC_TEXT[3])),
        ]
    )


# --- any language ------------------------------------------------------------------------------


def test_any_language_pud_and_georgian(ud_dir: Path, tmp_path: Path) -> None:
    """Two treebanks never built with these tasks, no code change: German PUD (397 short
    documents, test file only) builds what its documents allow and says why not the rest;
    Georgian GLC has no '# newdoc' lines, so every discourse task is infeasible with that
    reason while the sentence task builds."""
    pud = build_ud(
        [ud_dir / "UD_German-PUD"],
        lang="de",
        out=tmp_path / "pud",
        tasks=["discourse"],
        min_per_class=(5, 2, 2),
        jobs=1,
    )
    report = json.loads((pud.out / "report.json").read_text())
    tasks = report.get("tasks", report)
    assert tasks["binary_sentence_ordering"]["built"]
    assert "shorter than 6 sentences" in tasks["discourse_coherence"]["infeasible"]
    assert "sections" in tasks["sentence_section"]["infeasible"]
    assert validate(pud.out).ok
    ka = build_ud(
        [ud_dir / "UD_Georgian-GLC"],
        lang="ka",
        out=tmp_path / "ka",
        tasks=["sentence_length", "discourse"],
        min_per_class=(5, 2, 2),
        jobs=1,
    )
    report = json.loads((ka.out / "report.json").read_text())
    tasks = report.get("tasks", report)
    assert tasks["sentence_length"]["built"]
    # the card counts what the document stream left out: all 950 sentences of GLC
    assert "sentences_without_a_document=950" in (ka.out / "README.md").read_text()
    for name in ("sentence_position", "binary_sentence_ordering", "discourse_coherence"):
        assert "'# newdoc id'" in tasks[name]["infeasible"]
        assert not tasks[name]["built"]
    assert validate(ka.out).ok


def test_profile_counts_documents(ud_dir: Path) -> None:
    (tb,) = discover([ud_dir / "UD_English-PUD"])
    source = UdDocumentSource(tb)

    class Family:
        def records(self, on_invalid, skipped):
            from polyprobe.loaders.source import InvalidPolicy

            return source.records(InvalidPolicy(on_invalid, skipped))

        def text_hash(self, record, shared):
            return 0

    task = SentencePosition.configure({}, TaskContext())
    (fit,), derived = first_pass(Family(), [task], "raise")
    assert derived["sentence_position"]["documents"] == {"sentence": 397}
    assert derived["sentence_position"]["documents_with_5_or_more_sentences"] == 44


def test_sentences_before_the_first_newdoc_are_counted(tmp_path: Path) -> None:
    block = "# sent_id = s{n}\n# text = Word .\n1\tWord\tword\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
    text = block.format(n=1) + "# newdoc id = d1\n" + block.format(n=2) + block.format(n=3)
    path = write_conllu(tmp_path / "xx_toy-ud-test.conllu", text)
    assert sentences_before_document_marks(path) == (True, 1)
    (tb,) = discover([path])
    counts: Counter[str] = Counter()
    docs = list(ud_documents(read_sources([tb], lazy=True), counts))
    assert [d.unit_ids for d in docs] == [("s2", "s3")]
    assert counts["sentences without a document"] == 1


def test_newpar_marks_paragraph_openings(tmp_path: Path) -> None:
    """'# newpar' with or without an id opens a paragraph; a document's first sentence opens
    one when any is marked; a treebank without '# newpar' marks none."""
    block = "# sent_id = s{n}\n# text = Word .\n1\tWord\tword\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
    text = (
        "# newdoc id = d1\n"
        + block.format(n=1)
        + block.format(n=2)
        + "# newpar\n"
        + block.format(n=3)
        + "# newpar id = p3\n"
        + block.format(n=4)
        + "# newdoc id = d2\n"
        + block.format(n=5)
        + block.format(n=6)
    )
    (tb,) = discover([write_conllu(tmp_path / "xx_toy-ud-test.conllu", text)])
    docs = list(ud_documents(read_sources([tb], lazy=True)))
    assert [d.paragraphs for d in docs] == [(0, 2, 3), ()]


def write_conllu(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_rebuild_is_byte_identical(ud_dir: Path, tmp_path: Path) -> None:
    """Same inputs and seed: the same fingerprint and the same parquet bytes; another seed
    moves other sentences to the front."""
    built = []
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        built.append(
            build_ud(
                [ud_dir / "UD_German-PUD"],
                lang="de",
                out=tmp_path / name,
                tasks=["sentence_position", "binary_sentence_ordering"],
                min_per_class=(0, 0, 0),
                seed=seed,
                jobs=1,
            )
        )
    assert built[0].fingerprint == built[1].fingerprint != built[2].fingerprint
    files = sorted(p.relative_to(built[0].out) for p in built[0].out.rglob("*.parquet"))
    assert files
    for rel in files:
        assert (built[0].out / rel).read_bytes() == (built[1].out / rel).read_bytes()
    # at floors of 0 the recommended config is natural-full: German PUD's validation and test
    # miss some positions, so no balanced config is built (it would empty them)
    assert "sentence_position.natural-full" not in {
        p.name for p in (built[0].out / "data").iterdir()
    }
    sp = [rows(b.out, "sentence_position", "train") for b in (built[0], built[2])]
    assert [r["label"] for r in sp[0]] != [r["label"] for r in sp[1]]


def test_documents_are_grouped_from_the_sentence_readings(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that runs sentence and document tasks reads the treebank once per pass for
    both (the documents are grouped from the sentences it reads); the document configs are
    byte for byte those of the document tasks built on their own, which read the treebank
    themselves. German PUD is a test file of 1,000 sentences in 397 documents."""
    from polyprobe.builders.records.documents import DocumentRecords
    from polyprobe.builders.records.treebank import TreebankRecords

    readings: list[str] = []
    for family in (TreebankRecords, DocumentRecords):
        real = family.records

        def counting(self, on_invalid, skipped, real=real):
            readings.append(type(self).__name__)
            return real(self, on_invalid, skipped)

        monkeypatch.setattr(family, "records", counting)
    doc_tasks = ["sentence_position", "binary_sentence_ordering"]
    built = {}
    for name, tasks in (("alone", doc_tasks), ("with_sentences", [*doc_tasks, "tense"])):
        readings.clear()
        built[name] = build_ud(
            [ud_dir / "UD_German-PUD"],
            lang="de",
            out=tmp_path / name,
            tasks=tasks,
            min_per_class=(5, 2, 2),
            jobs=1,
        ).out
        # two passes (tense and the document tasks observe), one reading each
        reader = "DocumentRecords" if name == "alone" else "TreebankRecords"
        assert readings == [reader, reader], name
    files = sorted(
        p.relative_to(built["alone"]) for p in built["alone"].rglob("data/*/*.parquet")
    )
    assert files and all(f.parts[1].split(".")[0] in doc_tasks for f in files)
    for rel in files:
        assert (built["alone"] / rel).read_bytes() == (built["with_sentences"] / rel).read_bytes()
