"""Word vectors for lexical evaluation: a vocabulary with its vectors, and how a dataset's
word is looked up in it (recorded in every result, with the out-of-vocabulary counts).

Two kinds of encoder give one:

* a word-vector file (``vec:FILE``: ``.vec``/fastText/word2vec text, with or without header,
  or ``.bin``; read by the same loader as ``vec:`` probing, gensim's): its vocabulary in file
  order (frequency order for every published file), restricted to the **top N** words;
  a word is looked up as written, then casefolded, then (multiword entries such as SemEval's
  ``Promised Land``) with spaces as underscores; a word found nowhere is out of vocabulary;
* any other encoder (``st:``, ``hf:``, ``random``, ``char-ngrams``, a callable): every word is
  encoded **alone**, as a one-token text; the vocabulary is then the words the evaluated
  dataset holds (its size recorded as N), and nothing is out of vocabulary.

Texts and words go through the embedding cache (:func:`polyprobe.evaluation.cache.encode_cached`)
as probing configs' do: COSTRA's two configs encode the same 6,941 sentences, and a re-run of a
lexical config with a cached encoder (``st:``, ``hf:``, a callable with a ``polyprobe_id``)
encodes nothing. A word is cached as the one-token item it is encoded as, a sentence as a
text without tokens, so their keys never meet a probing config's (whose items carry tokens).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.evaluation.cache import CacheStats, EmbeddingCache, encode_cached
from polyprobe.evaluation.encoders import Encoder, Item


@dataclass
class WordSpace:
    words: list[str]
    vectors: np.ndarray  # (n, dim) float32, rows in ``words`` order
    kind: str  # "vector file, top N" | "encoder applied to each word alone"
    lookup_rule: str
    index: dict[str, int] = field(default_factory=dict)
    casefold: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}
        for i, w in enumerate(self.words):
            self.casefold.setdefault(w.casefold(), i)

    def find(self, word: str) -> int | None:
        for form in (word, word.replace(" ", "_")):
            i = self.index.get(form)
            if i is None:
                i = self.casefold.get(form.casefold())
            if i is not None:
                return i
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "vocabulary": self.kind,
            "size": len(self.words),
            "lookup": self.lookup_rule,
        }


def is_vector_file(encoder: Encoder) -> bool:
    return hasattr(encoder, "load_vectors") and encoder.kind in ("vec", "w2v")


def file_space(encoder: Encoder, top_n: int | None) -> WordSpace:
    """The top ``top_n`` words of a word-vector file (all of them when None)."""
    # the encoder keeps the vectors it loaded (one read of the file for every config)
    kv = encoder._ensure() if hasattr(encoder, "_ensure") else encoder.load_vectors()  # type: ignore[attr-defined]
    n = len(kv.index_to_key) if top_n is None else min(top_n, len(kv.index_to_key))
    words = [str(w) for w in kv.index_to_key[:n]]
    vectors = np.asarray(kv.vectors[:n], dtype=np.float32)
    return WordSpace(
        words,
        vectors,
        f"vector file, top {n} words" if top_n is not None else f"vector file, all {n} words",
        "as written, then casefolded, then spaces as underscores; else out of vocabulary",
    )


def encoded_space(
    encoder: Encoder,
    words: Iterable[str],
    batch_size: int = 64,
    *,
    cache: EmbeddingCache | None = None,
    stats: CacheStats | None = None,
) -> WordSpace:
    """Every distinct word of ``words`` encoded alone (a one-token text)."""
    distinct = list(dict.fromkeys(w for w in words if w))
    vectors = encode_texts(encoder, distinct, batch_size, tokens=True, cache=cache, stats=stats)
    return WordSpace(
        distinct,
        vectors,
        f"encoder applied to each word alone; vocabulary = the dataset's {len(distinct)} words",
        "every word is encoded, none is out of vocabulary",
    )


def encode_texts(
    encoder: Encoder,
    texts: Sequence[str],
    batch_size: int = 64,
    *,
    tokens: bool = False,
    cache: EmbeddingCache | None = None,
    stats: CacheStats | None = None,
) -> np.ndarray:
    """Texts (or words, as one-token texts) through ``encoder``, read from and written to
    ``cache`` when the encoder is worth caching (no cache: encoded every time); its last
    layer when it has several. ``stats`` adds this call's hits and misses (unique texts)."""
    if not texts:
        return np.zeros((0, 1), np.float32)
    items = [Item(t, (t,) if tokens else None) for t in texts]
    store = cache if cache is not None else EmbeddingCache(enabled=False)
    out, got = encode_cached(encoder, items, store, batch_size)
    if stats is not None:
        stats.hits += got.hits
        stats.misses += got.misses
    return np.asarray(out[encoder.layers[-1]], dtype=np.float32)


def word_space(
    encoder: Encoder,
    words: Iterable[str],
    top_n: int | None,
    batch_size: int = 64,
    *,
    cache: EmbeddingCache | None = None,
    stats: CacheStats | None = None,
) -> WordSpace:
    if is_vector_file(encoder):
        return file_space(encoder, top_n)
    return encoded_space(encoder, words, batch_size, cache=cache, stats=stats)


@dataclass
class Encoding:
    """How one lexical result's words and texts become vectors: the encoder, the embedding
    cache, the batch size, and the cache's hits and misses so far (the result records them)."""

    encoder: Encoder
    cache: EmbeddingCache
    batch_size: int = 64
    stats: CacheStats = field(default_factory=CacheStats)
    from_file: bool = False  # words were looked up in a vector file: nothing was encoded

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        return encode_texts(
            self.encoder, texts, self.batch_size, cache=self.cache, stats=self.stats
        )

    def items(self, items: Sequence[Item]) -> np.ndarray:
        """Words in context (``Item(text, tokens, index)``), as word-in-context probing
        configs encode them: through the cache, keyed as theirs (so a CoSimLex context seen by
        both is encoded once), the encoder's last layer."""
        if not items:
            return np.zeros((0, 1), np.float32)
        out, got = encode_cached(self.encoder, list(items), self.cache, self.batch_size)
        self.stats.hits += got.hits
        self.stats.misses += got.misses
        return np.asarray(out[self.encoder.layers[-1]], dtype=np.float32)

    def words(self, words: Iterable[str], top_n: int | None) -> WordSpace:
        self.from_file = self.from_file or is_vector_file(self.encoder)
        return word_space(
            self.encoder, words, top_n, self.batch_size, cache=self.cache, stats=self.stats
        )
