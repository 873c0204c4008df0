"""The downstream models' parts on inputs whose answers are known: conlleval's spans counted
by hand, MST against brute force, attachment scores of a hand-made treebank
(tests/fixtures/tiny_parse, with a multiword token), a parser that overfits it, the tagger's
span F1 on a synthetic NER folder, determinism, and the configs a model does not apply to."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import config_rows

from polyprobe import build_ud
from polyprobe.errors import UsageError
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.downstream.models import PARSER, train_parser
from polyprobe.evaluation.downstream.mst import mst_heads
from polyprobe.evaluation.downstream.run import DownstreamSpec, attachment
from polyprobe.evaluation.downstream.sentences import MASKED, rebuild
from polyprobe.evaluation.downstream.spans import chunks, is_iob, span_scores
from polyprobe.evaluation.synthetic import write_folder

TINY = Path(__file__).parent / "fixtures" / "tiny_parse"


@pytest.fixture(autouse=True)
def _one_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_conlleval_chunks_counted_by_hand() -> None:
    # I- after O starts a chunk; a type change inside I- starts another; a trailing chunk ends
    tags = ["O", "I-PER", "I-PER", "I-LOC", "O", "B-ORG", "I-ORG", "B-ORG", "I-MISC"]
    assert chunks(tags) == [
        (1, 2, "PER"),
        (3, 3, "LOC"),
        (5, 6, "ORG"),
        (7, 7, "ORG"),
        (8, 8, "MISC"),
    ]
    assert chunks(["B-PER", "I-LOC"]) == [(0, 0, "PER"), (1, 1, "LOC")]
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG"]]
    pred = [["B-PER", "I-PER", "O", "B-ORG"], ["O", "B-ORG", "O"]]
    s = span_scores(gold, pred)
    # gold spans: PER(0-1), LOC(3), ORG(1-2) = 3; predicted: PER(0-1), ORG(3), ORG(1) = 3
    assert (s["gold_spans"], s["predicted_spans"], s["correct_spans"]) == (3, 3, 1)
    assert s["precision"] == pytest.approx(1 / 3) and s["f1"] == pytest.approx(1 / 3)
    assert s["per_type"]["PER"]["f1"] == 1.0 and s["per_type"]["LOC"]["recall"] == 0.0
    assert is_iob(["O", "B-PER", "I-PER"]) and not is_iob(["NOUN", "VERB", "O"])


def _brute(scores: np.ndarray) -> float:
    n = len(scores)
    best = -np.inf
    for hs in itertools.product(range(n), repeat=n - 1):
        heads = [-1, *hs]
        if any(h == d for d, h in enumerate(heads) if d):
            continue
        ok = True
        for d in range(1, n):
            seen, v = set(), d
            while v != 0 and ok:
                ok = v not in seen
                seen.add(v)
                v = heads[v]
        if ok:
            best = max(best, sum(scores[d, heads[d]] for d in range(1, n)))
    return best


def test_mst_is_the_best_tree() -> None:
    rng = np.random.default_rng(0)
    for _ in range(120):
        n = int(rng.integers(2, 7))
        s = rng.normal(size=(n, n))
        heads = mst_heads(s)
        assert heads[0] == -1 and all(heads[d] != d for d in range(1, n))
        assert sum(s[d, heads[d]] for d in range(1, n)) == pytest.approx(_brute(s))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "tiny"
    build_ud([TINY], lang="en", out=out, tasks=["parse", "pos"], min_per_class=0)
    return out


def test_parse_rows_are_the_trees(tiny: Path) -> None:
    rows = [r for split in config_rows(tiny, "parse").values() for r in split]
    assert len(rows) == 25  # 26 words, but 'can' + 'not' of t5's 'cannot' have no token
    t4 = sorted((r for r in rows if r["group"].endswith("t4")), key=lambda r: r["target_index"])
    assert [r["head_index"] for r in t4] == [2, 2, 3, -1, 3, 3]  # The old man reads books .
    report = json.loads((tiny / "report.json").read_text(encoding="utf-8"))
    assert report["parse"]["task_drops"] == {"word inside a multiword token": 2}
    t5 = sorted((r for r in rows if r["group"].endswith("t5")), key=lambda r: r["target_index"])
    assert [(r["tokens"][r["target_index"]], r["head_index"]) for r in t5] == [
        ("Dogs", 2), ("fly", -1), (".", 2),
    ]  # fmt: skip


def test_attachment_scores_by_hand() -> None:
    # The old man reads books . : gold heads (0 = root) and relations (ids)
    gold = np.array([[3, 3, 4, 0, 4, 4], [0, 1, 2, 3, 4, 5]])
    pred = np.array([[3, 4, 4, 0, 4, 5], [0, 1, 9, 3, 4, 5]])
    # heads right: The, man, reads, books (4 of 6); of those, relations right: The, reads, books
    assert attachment(gold, pred) == (6, 4, 3)
    gold[0, 1] = MASKED  # an unscored token counts nowhere
    assert attachment(gold, pred) == (5, 4, 3)


def test_parser_overfits_a_tiny_treebank(tiny: Path) -> None:
    from polyprobe.evaluation.data import load_config, read_card

    cfg = load_config(str(tiny), "parse", None, read_card(str(tiny), None))
    sents = [
        s for split in cfg.splits for s in rebuild(cfg.rows[split], "tiny", split, True).sentences
    ]
    vocab = sorted({t for s in sents for t in s.tokens})
    width = len(vocab) + 8

    def vec(s) -> np.ndarray:  # noqa: ANN001
        x = np.zeros((len(s.tokens), width), np.float32)
        for j, t in enumerate(s.tokens):
            x[j, vocab.index(t)] = 1.0
            x[j, len(vocab) + j] = 1.0
        return x

    vectors = {s: [vec(x) for x in sents] for s in ("train", "validation", "test")}
    heads = {s: [x.heads for x in sents] for s in vectors}
    rels = {s: [x.labels for x in sents] for s in vectors}
    params = {**PARSER, "max_epochs": 150, "patience": 150, "batch_size": 8, "dropout": 0.0,
              "input_dropout": 0.0}  # fmt: skip
    trained = train_parser(
        vectors, heads, rels, len(cfg.label_names), params, 0, "test",
        lambda g, p: np.mean([attachment(a, b)[2] / max(1, attachment(a, b)[0]) for a, b in zip(g, p, strict=True)]),
    )  # fmt: skip
    counts = np.array([attachment(np.stack([s.heads, s.labels]), p)
                       for s, p in zip(sents, trained.predictions, strict=True)]).sum(0)  # fmt: skip
    assert counts[0] == 25 and counts[1] == 25 and counts[2] == 25  # UAS = LAS = 1.0


NAMES = ["Anna", "Bob", "Carl", "Dora"]
SURNAMES = ["Smith", "Jones"]
CITIES = ["Paris", "Rome", "Oslo", "Lima"]
FILLER = ["lives", "in", "near", "and", "today", "works", "the", "city", "of"]


def _ner_rows(n: int, seed: int, prefix: str) -> dict[str, list]:
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {
        k: [] for k in ("id", "sentence", "tokens", "target_index", "label", "group")
    }
    for i in range(n):
        toks, tags = [], []
        for _ in range(int(rng.integers(2, 5))):
            kind = int(rng.integers(0, 3))
            if kind == 0:
                toks += [str(rng.choice(NAMES)), str(rng.choice(SURNAMES))]
                tags += ["B-PER", "I-PER"]
            elif kind == 1:
                toks.append(str(rng.choice(CITIES)))
                tags.append("B-LOC")
            toks.append(str(rng.choice(FILLER)))
            tags.append("O")
        for j, tag in enumerate(tags):
            rows["id"].append(f"{prefix}{i}/{j}")
            rows["sentence"].append(" ".join(toks))
            rows["tokens"].append(toks)
            rows["target_index"].append(j)
            rows["label"].append(["O", "B-PER", "I-PER", "B-LOC"].index(tag))
            rows["group"].append(f"{prefix}{i}")
    return rows


@pytest.fixture(scope="module")
def ner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    splits = {"train": _ner_rows(150, 1, "tr"), "validation": _ner_rows(40, 2, "va"),
              "test": _ner_rows(40, 3, "te")}  # fmt: skip
    return write_folder(
        tmp_path_factory.mktemp("ner") / "ner", {"ner": splits},
        {"ner": ["O", "B-PER", "I-PER", "B-LOC"]}, {"ner": "word-in-context"},
        task_types={"ner": "downstream"},
    )  # fmt: skip


def test_tagger_span_f1_on_ner_and_determinism(ner: Path, tmp_path: Path) -> None:
    spec = DownstreamSpec("tagger", {"max_epochs": 8, "patience": 8})
    run = lambda: evaluate(str(ner), encoders=["random?dim=32"], probe=spec, seeds=1,  # noqa: E731
                           cache=tmp_path / "c", n_boot=200)[0]  # fmt: skip
    first, again = run(), run()
    m = first["metrics"]
    assert (
        first["headline"] == "span_f1" and first["probe"]["params"]["layers"] == 2
    )  # NER settings
    assert m["span_f1"]["mean"] > 0.9 and m["token_accuracy"]["mean"] > 0.9
    lo, hi = m["span_f1"]["ci95"]
    assert lo <= m["span_f1"]["mean"] <= hi
    assert set(m["span_f1_per_type"]) == {"PER", "LOC"}
    assert again["metrics"] == m  # same seed, same numbers


def test_a_model_skips_configs_it_does_not_take(tiny: Path, tmp_path: Path) -> None:
    notes: list[str] = []
    with pytest.raises(UsageError, match=r"--probe parser: nothing to train on \(it takes parse"):
        evaluate(str(tiny), config="pos", encoders=["random"], probe="parser", seeds=1,
                 cache=tmp_path / "c", on_note=notes.append)  # fmt: skip
    assert notes == ["--probe parser skipped 1 config(s) of tiny: pos (not a parse config)"]
