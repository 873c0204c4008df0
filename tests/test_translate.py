"""``polyprobe translate``: deterministic callables written here (module:function), the cache
and resumption, Wehner's split-token batches with their per-sentence fallback, errors, a
translated TREC made from the step's output, and a local transformers model folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import needs

from polyprobe.errors import UsageError
from polyprobe.translate.batching import BatchStats, translate_batch
from polyprobe.translate.run import translate_dataset
from polyprobe.translate.translators import load_translator

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
CALLS: list[list[str]] = []  # what the recording translator was sent (tests only)


def reverse_words(texts: list[str]) -> list[str]:
    """A reversible stand-in for a translator: every word reversed, then the word order."""
    return [" ".join(w[::-1] for w in reversed(t.split())) for t in texts]


def recording(texts: list[str]) -> list[str]:
    CALLS.append(list(texts))
    return reverse_words(texts)


def mangling(texts: list[str]) -> list[str]:
    """Like a system that drops the split token when a batch mentions 'Russia'."""
    CALLS.append(list(texts))
    out = reverse_words(texts)
    return [t.replace("0123456789", "") if "aissuR" in t else t for t in out]


FAIL_AFTER = [2]  # calls that succeed before the connection is "lost"


def failing_after_two(texts: list[str]) -> list[str]:
    CALLS.append(list(texts))
    if len(CALLS) > FAIL_AFTER[0]:
        raise RuntimeError("connection lost")
    return reverse_words(texts)


def wrong_length(texts: list[str]) -> list[str]:
    return texts[:-1]


@pytest.fixture(autouse=True)
def _clear() -> None:
    CALLS.clear()


def _lines(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def test_text_file_batches_cache_and_resume(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("a b c\nd e\n\na b c\nf\ng h\n", encoding="utf-8")  # one repeat, one blank
    cache = tmp_path / "cache"
    translator = load_translator(f"{__name__}:recording")
    assert translator.id == "callable:test_translate:recording"
    report = translate_dataset(src, translator, tmp_path / "out.tsv", cache_dir=cache, batch_size=2)
    assert (report.texts, report.cached, report.translated) == (4, 0, 4)
    assert CALLS == [["a b c", "d e"], ["f", "g h"]]
    rows = _lines(tmp_path / "out.tsv")
    assert rows[0] == ["id", "source", "text"]
    assert rows[1:] == [
        ["1", "a b c", "c b a"],
        ["2", "d e", "e d"],
        ["5", "f", "f"],
        ["6", "g h", "h g"],
    ]
    meta = json.loads((tmp_path / "out.tsv.json").read_text())
    assert meta["system"] == "test_translate:recording" and meta["translated"] == 4
    # a second run reads everything from the cache
    CALLS.clear()
    again = translate_dataset(src, translator, tmp_path / "out2.tsv", cache_dir=cache, batch_size=2)
    assert (again.cached, again.translated, CALLS) == (4, 0, [])
    assert _lines(tmp_path / "out2.tsv") == rows


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(f"text {i}" for i in range(10)) + "\n", encoding="utf-8")
    cache = tmp_path / "cache"
    broken = load_translator(f"{__name__}:failing_after_two")
    with pytest.raises(RuntimeError, match="connection lost"):
        translate_dataset(src, broken, tmp_path / "out.tsv", cache_dir=cache, batch_size=3)
    assert not (tmp_path / "out.tsv").exists()  # nothing half-written
    assert len(CALLS) == 3  # two batches stored, the third failed
    CALLS.clear()
    FAIL_AFTER[0] = 100  # same translator id (so the same cache), working now
    try:
        report = translate_dataset(src, broken, tmp_path / "out.tsv", cache_dir=cache, batch_size=3)
    finally:
        FAIL_AFTER[0] = 2
    assert (report.cached, report.translated) == (6, 4)
    assert CALLS == [["text 6", "text 7", "text 8"], ["text 9"]]


def test_split_token_batches_fall_back_per_sentence() -> None:
    # a translator that keeps the sentences apart: one call for the whole batch
    stats = BatchStats()
    per_part = translate_batch(
        lambda ts: [" 0123456789 ".join(reverse_words(ts[0].split(" 0123456789 ")))],
        ["a b", "c d", "e"],
        "0123456789",
        stats,
    )
    assert per_part == ["b a", "d c", "e"] and stats.fallback_batches == 0 and stats.calls == 1
    stats = BatchStats()
    mangled = translate_batch(mangling, ["Russia is big", "c d"], "0123456789", stats)
    assert mangled == ["gib si aissuR", "d c"]
    assert stats.fallback_batches == 1 and stats.calls == 3
    assert CALLS == [["Russia is big 0123456789 c d"], ["Russia is big"], ["c d"]]


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="module:function, or the folder"):
        load_translator("no-such-thing")
    with pytest.raises(UsageError, match="cannot import it"):
        load_translator("no_such_module_xyz:f")
    bad = load_translator(f"{__name__}:wrong_length")
    with pytest.raises(UsageError, match="returned 1 results for 2 texts"):
        bad(["a", "b"])


def test_translate_then_build_a_translated_trec(data_dir: Path, tmp_path: Path) -> None:
    """The step's output, keyed by the dataset's row ids and source texts, feeds ``build trec
    --translation``; the train copies of test questions the English build dropped are found
    by their text."""
    from polyprobe import build_trec

    english = build_trec(data_dir / "trec", out=tmp_path / "en").out
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(HERE)])
    cmd = [sys.executable, "-m", "polyprobe", "translate", str(english)]
    cmd += ["--translator", "test_translate:reverse_words", "--out", str(tmp_path / "de.tsv")]
    cmd += ["--cache", str(tmp_path / "cache"), "--target-lang", "de", "--batch-size", "64"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "translated" in done.stdout and "from the cache" in done.stdout
    german = build_trec(
        data_dir / "trec", lang="de", out=tmp_path / "de", translation=tmp_path / "de.tsv"
    ).out
    from polyprobe.cards.card import read_readme

    card = read_readme(german / "README.md")[0]["polyprobe"]["parameters"]["translation"]
    assert card["system"] == "test_translate:reverse_words"
    assert card["translator_id"] == "callable:test_translate:reverse_words"
    assert card["target_language"] == "de" and card["sample_creation"] == "machine-translated"
    for split in ("train", "test"):
        a = pq.read_table(english / "data" / "coarse" / f"{split}-00000-of-00001.parquet")
        b = pq.read_table(german / "data" / "coarse" / f"{split}-00000-of-00001.parquet")
        assert a.column("id").to_pylist() == b.column("id").to_pylist()
        assert a.column("label").to_pylist() == b.column("label").to_pylist()
        assert b.column("sentence").to_pylist() == reverse_words(a.column("sentence").to_pylist())


def test_a_local_transformers_model_folder(tmp_path: Path) -> None:
    """A tiny MarianMT with random weights and a word-level tokenizer, written here: the
    local-model path loads it from disk only and maps n texts to n strings, deterministically
    (greedy decoding), under an id that names the folder and hashes its config."""
    needs("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import MarianConfig, MarianMTModel, PreTrainedTokenizerFast

    words = ["<pad>", "</s>", "<unk>", "a", "b", "c", "d"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )
    folder = tmp_path / "tiny-marian"
    fast.save_pretrained(folder)
    import torch

    torch.manual_seed(0)
    config = MarianConfig(
        vocab_size=len(words),
        d_model=8,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=16,
        decoder_ffn_dim=16,
        max_position_embeddings=32,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    MarianMTModel(config).save_pretrained(folder)
    translator = load_translator(str(folder))
    assert translator.id.startswith("model:tiny-marian@")
    first = translator(["a b", "c d a"])
    assert len(first) == 2 and all(isinstance(t, str) for t in first)
    assert translator(["a b", "c d a"]) == first
    report = translate_dataset(
        _text_file(tmp_path, ["a b", "c d a"]), translator, tmp_path / "m.tsv", cache_dir=tmp_path
    )
    assert report.translated == 2
    assert [r[2] for r in _lines(tmp_path / "m.tsv")[1:]] == [" ".join(t.split()) for t in first]


def _text_file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "texts.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
