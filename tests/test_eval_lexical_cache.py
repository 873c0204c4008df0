"""Lexical configs read their vectors through the embedding cache, as probing configs do.

The real COSTRA 1.1 (``costra/data.tsv``): its ``transformations`` and ``comparisons`` configs
hold the same 6,941 distinct sentences. With a cached encoder, the first ``evaluate`` of both
encodes each sentence once (``comparisons`` is served entirely from the cache), and a second
``evaluate`` (``--force``, so the results are recomputed rather than read back) encodes none:
the encoder is not called at all. The same holds for a word-level set (SimLex-999) and from
the command line (a ``vec:`` encoder, whose sentence vectors are cached)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import config_rows

from polyprobe import build_costra, build_similarity
from polyprobe.cli import main
from polyprobe.evaluation import evaluate
from polyprobe.hashing import stable_u64

COSTRA_SENTENCES = 6941  # distinct sentences of data.tsv: seeds and their transformations
SIMLEX = "word_similarity/vecto_word_benchmarks/word-similarity/monolingual/en/simlex999.csv"


class CountingEncoder:
    """A deterministic vector per text; every call and every text it is given is counted.
    ``polyprobe_id`` makes it cacheable (a bare function is recomputed every time)."""

    polyprobe_id = "test-counting-encoder-v1"

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        return np.stack(
            [np.random.default_rng(stable_u64("lexical-cache", t)).normal(size=8) for t in texts]
        )


@pytest.fixture(scope="module")
def costra(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("costra")
    return build_costra(
        data_dir / "costra", out=root / "costra", tasks=["transformations", "comparisons"]
    ).out


def _by_config(results: list[dict]) -> dict[str, dict]:
    return {r["config"]: r for r in results}


def test_costra_second_evaluate_encodes_nothing(costra: Path, tmp_path: Path) -> None:
    encoder = CountingEncoder()
    kwargs = {
        "config": ["transformations", "comparisons"],
        "out": tmp_path / "res",
        "cache": tmp_path / "cache",
    }
    first = _by_config(evaluate(str(costra), encoders=[encoder], **kwargs))
    assert encoder.texts == COSTRA_SENTENCES  # each distinct sentence once, for both configs
    assert first["transformations"]["cache"] == {"hits": 0, "misses": COSTRA_SENTENCES}
    assert first["comparisons"]["cache"] == {"hits": COSTRA_SENTENCES, "misses": 0}
    assert first["comparisons"]["space"]["size"] == COSTRA_SENTENCES

    encoder.calls = encoder.texts = 0
    second = _by_config(evaluate(str(costra), encoders=[encoder], force=True, **kwargs))
    assert (encoder.calls, encoder.texts) == (0, 0)
    for config in ("transformations", "comparisons"):
        assert second[config]["cache"] == {"hits": COSTRA_SENTENCES, "misses": 0}
        assert not second[config].get("resumed")  # recomputed, from cached vectors
        assert second[config]["scores"] == first[config]["scores"]  # the same vectors


def test_an_uncached_encoder_is_said_to_be(costra: Path, tmp_path: Path) -> None:
    """``char-ngrams`` is recomputed by design (cheap): the result says so, and nothing is
    written to the cache folder."""
    (result,) = evaluate(
        str(costra), config="transformations", encoders=["char-ngrams?dim=64"],
        cache=tmp_path / "cache",
    )  # fmt: skip
    assert result["cache"] == {"hits": 0, "misses": COSTRA_SENTENCES, "cached": False}
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_word_similarity_words_are_cached(data_dir: Path, tmp_path: Path) -> None:
    """SimLex-999 (English): its 1,028 distinct words are encoded once, then read back."""
    out = build_similarity([data_dir / SIMLEX], lang="en", out=tmp_path / "sim").out
    encoder = CountingEncoder()
    kwargs = {"out": tmp_path / "res", "cache": tmp_path / "cache"}
    (first,) = evaluate(str(out), encoders=[encoder], **kwargs)
    words = first["space"]["size"]
    assert words == 1028 and encoder.texts == words
    assert first["cache"] == {"hits": 0, "misses": words}
    encoder.texts = 0
    (second,) = evaluate(str(out), encoders=[encoder], force=True, **kwargs)
    assert encoder.texts == 0 and second["cache"] == {"hits": words, "misses": 0}
    assert second["scores"] == first["scores"]


def test_command_line_rerun_reads_the_cache(
    costra: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``polyprobe evaluate`` with a ``vec:`` encoder (sentences as mean word vectors, a
    cached encoder): the second, forced run is all hits, and the summary line says so."""
    vec = tmp_path / "words.vec"
    words: set[str] = set()
    for row in config_rows(costra, "transformations")["test"]:
        words.update(row["sentence1"].split() + row["sentence2"].split())
    lines = [f"{len(words)} 8"]
    for w in sorted(words):
        v = np.random.default_rng(stable_u64("vec", w)).normal(size=8)
        lines.append(w + " " + " ".join(f"{x:.4f}" for x in v))
    vec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = [
        "evaluate", str(costra), "--config", "transformations", "--encoder", f"vec:{vec}",
        "--out", str(tmp_path / "res"), "--cache", str(tmp_path / "cache"), "--no-progress",
    ]  # fmt: skip
    assert main(args) == 0
    assert f"cache 0/{COSTRA_SENTENCES} hit/miss" in capsys.readouterr().out
    assert main([*args, "--force"]) == 0
    assert f"cache {COSTRA_SENTENCES}/0 hit/miss" in capsys.readouterr().out
    (path,) = (tmp_path / "res").rglob("lexical.json")
    result = json.loads(path.read_text(encoding="utf-8"))
    assert result["cache"] == {"hits": COSTRA_SENTENCES, "misses": 0}


def test_evaluate_lexical_alone_writes_no_cache(
    costra: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Called on its own without ``cache``, ``evaluate_lexical`` keeps no disk cache (as
    before): nothing appears under ``$POLYPROBE_CACHE``; given one, it uses it."""
    from polyprobe.evaluation.lexical import evaluate_lexical

    monkeypatch.setenv("POLYPROBE_CACHE", str(tmp_path / "root"))
    encoder = CountingEncoder()
    (result,) = evaluate_lexical(str(costra), "transformations", [encoder])
    assert encoder.texts == COSTRA_SENTENCES and not (tmp_path / "root").exists()
    assert result["cache"] == {"hits": 0, "misses": COSTRA_SENTENCES}
    evaluate_lexical(str(costra), "transformations", [encoder], cache=tmp_path / "c")
    encoder.texts = 0
    (again,) = evaluate_lexical(str(costra), "transformations", [encoder], cache=tmp_path / "c")
    assert encoder.texts == 0 and again["cache"] == {"hits": COSTRA_SENTENCES, "misses": 0}
