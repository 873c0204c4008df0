"""Baselines that need no download and work for every language.

- ``majority``: no features; the evaluation replaces the probe with the *train* majority class.
- ``random``: a fixed random vector per word type, seeded from blake2b of the seed and the type
  (never Python's salted ``hash()``), averaged over the tokens.
- ``borep``: Wieting & Kiela (2019) bag of random embedding projections: random word vectors
  (uniform in ±1/sqrt(d)), a random projection W (same init), pooled over tokens; max pooling
  and 4096 output dimensions as in the paper (``borep?dim=1024&pool=mean`` to change).
- ``char-ngrams``: hashed bag of character 2–4-grams inside word boundaries (scikit-learn's
  MurmurHash3, stable across processes), L2-normalised.

``random`` and ``borep`` are random *encoders*: which random vectors they draw is a source of
variance like a probe's initialisation. Their seed follows the evaluation seed (seed s of
``--seeds N`` encodes with vectors of seed s; seed 0 gives the vectors these encoders always
gave), unless the spec pins it (``random?seed=7``); a pinned seed is part of the encoder id.
These three are cheap and deterministic given their seed, so they are recomputed rather than
cached (``cacheable = False``): BOREP's 4096 dimensions alone filled half of a 656 MB cache,
and recomputing them costs less than reading them back.
- ``w2v:CORPUS``: gensim word2vec trained on a UD treebank folder / CoNLL-U file or plain text,
  cached on disk under the corpus checksum and the training parameters.
- ``vec:FILE``: word vectors in word2vec text (``.vec``, with or without header) or binary format.

Word-in-context items get the *target token's* vector for these context-free encoders (they
have nothing else to offer), so a word-in-context task measures what the type alone carries.
Type lookups for ``w2v`` and ``vec`` fall back to the casefolded form; unknown words are zero.
"""

from __future__ import annotations

import copy
import gzip
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from polyprobe.errors import InputError, UsageError
from polyprobe.evaluation.encoders import Encoder, Item, ParsedSpec, option_int
from polyprobe.hashing import digest, file_sha256, stable_u64

_WORD_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


# The random baselines' vectors come from polyprobe.hashing; if that implementation ever changes,
# so do the vectors. Folding a probe of it into the revision changes the encoder id (and so the
# cache keys and result paths) instead of silently mixing old cached and new fresh vectors.
HASH_TAG = digest("polyprobe-baseline-hash-probe", size=3).hex()
BASELINE_REVISION = f"v1-{HASH_TAG}"


def make_encoder(parsed: ParsedSpec) -> Encoder:
    kind = parsed.kind
    if kind == "majority":
        return MajorityEncoder(parsed)
    if kind == "random":
        return RandomEncoder(parsed)
    if kind == "borep":
        return BorepEncoder(parsed)
    if kind == "char-ngrams":
        return CharNgramEncoder(parsed)
    if kind == "w2v":
        return Word2VecEncoder(parsed)
    if kind == "vec":
        return VecFileEncoder(parsed)
    raise UsageError(f"no baseline named {kind!r}")


class _TokenEncoder(Encoder):
    """Shared logic: a vector per token type, pooled over the tokens (or the target token)."""

    dim: int = 1
    pool: str = "mean"

    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed.spec)
        self.kind = parsed.kind
        self.name = parsed.target or ""
        self._memo: dict[str, np.ndarray] = {}

    @property
    def id(self) -> str:
        base = self.kind + (f":{self.name}" if self.name else "")
        rev = f"@{self.revision}" if self.revision != "none" else ""
        opts = "".join(f"?{k}={v}" for k, v in sorted(self.options.items()))
        return base + rev + opts

    def type_vector(self, token: str) -> np.ndarray:
        raise NotImplementedError

    def _vec(self, token: str) -> np.ndarray:
        v = self._memo.get(token)
        if v is None:
            v = self.type_vector(token)
            self._memo[token] = v
        return v

    def pooled(self, vectors: np.ndarray) -> np.ndarray:
        if len(vectors) == 0:
            return np.zeros(self.dim, np.float32)
        return vectors.max(axis=0) if self.pool == "max" else vectors.mean(axis=0)

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        """Each item's tokens pooled (:meth:`pooled`, the same numbers): a chunk of items at a
        time, the items of one token count together, their token vectors gathered from a
        table of the chunk's types into one (items, tokens, dim) array and pooled over its
        middle axis (an item-by-item ``np.stack`` and ``mean`` took half of the random
        encoder's time on TREC's 5,942 questions)."""
        out = np.zeros((len(items), self.dim), np.float32)
        budget = max(1, (1 << 24) // max(self.dim, 1))  # token vectors per chunk: 64 MB
        rows: dict[str, int] = {}
        chunk: dict[int, tuple[list[int], list[list[int]]]] = {}  # token count → items
        held = 0
        for i, item in enumerate(items):
            tokens = item.token_list()
            if item.target is not None:
                tokens = (tokens[item.target],) if 0 <= item.target < len(tokens) else ()
            if not tokens:
                continue
            at, ids = chunk.setdefault(len(tokens), ([], []))
            at.append(i)
            ids.append([rows.setdefault(t, len(rows)) for t in tokens])
            held += len(tokens)
            if held >= budget:
                self._pool_into(out, rows, chunk)
                rows, chunk, held = {}, {}, 0
        if chunk:
            self._pool_into(out, rows, chunk)
        return {None: out}

    def _pool_into(
        self, out: np.ndarray, rows: dict[str, int], chunk: dict[int, tuple[list[int], list]]
    ) -> None:
        """``out[i]`` = the pooled vectors of item ``i``'s tokens (rows of ``rows``' types), for
        the items of ``chunk``. Bit for bit :meth:`pooled`: a reduction over the middle axis of
        (items, tokens, dim) adds each item's vectors in token order, as ``mean(axis=0)`` does
        on one item's (tokens, dim) — ``np.add.reduceat`` does not (last-bit differences)."""
        table = np.stack([self._vec(t) for t in rows])
        for at, ids in chunk.values():
            vectors = table[np.asarray(ids, dtype=np.int64)]
            out[at] = vectors.max(axis=1) if self.pool == "max" else vectors.mean(axis=1)


class MajorityEncoder(_TokenEncoder):
    """Produces a constant; :func:`polyprobe.evaluation.api.evaluate` predicts the train majority."""

    is_majority = True

    def type_vector(self, token: str) -> np.ndarray:
        return np.zeros(1, np.float32)

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        return {None: np.zeros((len(items), 1), np.float32)}


class _SeededEncoder(_TokenEncoder):
    """A random encoder: its vectors depend on a seed that follows the evaluation seed unless
    the spec pins it (then it is part of the id). Not cached: recomputing is cheap."""

    cacheable = False

    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.seed_pinned = "seed" in parsed.options
        self.seed = option_int(parsed, "seed", 0)

    @property
    def varies_with_seed(self) -> bool:
        return not self.seed_pinned

    def _id_options(self, options: dict[str, object]) -> dict[str, object]:
        return {**options, "seed": self.seed} if self.seed_pinned else options

    def for_seed(self, seed: int) -> _SeededEncoder:
        """This encoder with the vectors of ``seed`` (itself when the spec pins the seed)."""
        if self.seed_pinned or seed == self.seed:
            return self
        other = copy.copy(self)
        other.seed = int(seed)
        other._memo = {}
        other._reseed()
        return other

    def _reseed(self) -> None:
        """Redraw what depends on the seed beyond the per-type vectors."""


class RandomEncoder(_SeededEncoder):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.dim = option_int(parsed, "dim", 300)
        self.options = self._id_options({"dim": self.dim})
        self.revision = BASELINE_REVISION

    def type_vector(self, token: str) -> np.ndarray:
        rng = np.random.default_rng(stable_u64("polyprobe-random", self.seed, token))
        return rng.standard_normal(self.dim).astype(np.float32)


class BorepEncoder(_SeededEncoder):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.in_dim = option_int(parsed, "in_dim", 300)
        self.dim = option_int(parsed, "dim", 4096)
        self.pool = parsed.options.get("pool", "max")
        if self.pool not in ("max", "mean"):
            raise UsageError(f"{parsed.spec}: borep pooling must be max or mean")
        self.options = self._id_options({"dim": self.dim, "in_dim": self.in_dim, "pool": self.pool})
        self.pooling = None
        self.revision = BASELINE_REVISION
        self._reseed()

    def _reseed(self) -> None:
        bound = 1.0 / np.sqrt(self.in_dim)
        rng = np.random.default_rng(stable_u64("polyprobe-borep-projection", self.seed))
        self.projection = rng.uniform(-bound, bound, (self.in_dim, self.dim)).astype(np.float32)

    def type_vector(self, token: str) -> np.ndarray:
        bound = 1.0 / np.sqrt(self.in_dim)
        rng = np.random.default_rng(stable_u64("polyprobe-borep-word", self.seed, token))
        word = rng.uniform(-bound, bound, self.in_dim).astype(np.float32)
        return word @ self.projection


class CharNgramEncoder(_TokenEncoder):
    cacheable = False  # a hashing vectorizer: recomputing is cheaper than a cache lookup

    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.dim = option_int(parsed, "dim", 2048)
        self.n_min = option_int(parsed, "n_min", 2)
        self.n_max = option_int(parsed, "n_max", 4)
        self.options = {"dim": self.dim, "n_max": self.n_max, "n_min": self.n_min}
        self.revision = BASELINE_REVISION
        self._vectorizer = None

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        if self._vectorizer is None:
            from sklearn.feature_extraction.text import HashingVectorizer

            self._vectorizer = HashingVectorizer(
                analyzer="char_wb",
                ngram_range=(self.n_min, self.n_max),
                n_features=self.dim,
                alternate_sign=False,
                norm="l2",
                lowercase=False,
            )
        texts = []
        for item in items:
            if item.target is not None:
                tokens = item.token_list()
                texts.append(tokens[item.target] if 0 <= item.target < len(tokens) else "")
            else:
                texts.append(" ".join(item.token_list()) if item.tokens else item.text)
        matrix = self._vectorizer.transform(texts)
        return {None: np.asarray(matrix.todense(), dtype=np.float32)}


class _KeyedVectorsEncoder(_TokenEncoder):
    """Looks words up in gensim ``KeyedVectors``: exact form, then casefolded, else zero."""

    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self._kv = None

    def load_vectors(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _ensure(self):
        if self._kv is None:
            self._kv = self.load_vectors()
            self.dim = int(self._kv.vector_size)
        return self._kv

    def type_vector(self, token: str) -> np.ndarray:
        kv = self._ensure()
        for form in (token, token.casefold()):
            if form in kv.key_to_index:
                return np.asarray(kv[form], dtype=np.float32)
        return np.zeros(self.dim, np.float32)

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        self._ensure()
        return super().encode(items, batch_size)


def corpus_files(path: Path) -> list[Path]:
    """A treebank folder → its CoNLL-U files (sorted); a file → itself."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if re.search(r"\.conllu(\.gz)?$", p.name))
        if not files:
            files = sorted(p for p in path.iterdir() if p.suffix in (".txt", ".gz") and p.is_file())
        if not files:
            raise InputError(path, None, "no .conllu or .txt files in this folder", "empty-corpus")
        return files
    if not path.is_file():
        raise InputError(path, None, "corpus not found", "missing")
    return [path]


def iter_corpus_sentences(files: Sequence[Path]) -> Iterator[list[str]]:
    """Token lists, casefolded. CoNLL-U through ``conllu`` (syntactic words: integer ids only);
    anything else as plain text, one sentence per line, split into words and punctuation."""
    import conllu

    for path in files:
        opener = gzip.open if path.name.endswith(".gz") else open
        is_conllu = ".conllu" in path.name
        with opener(path, "rt", encoding="utf-8") as fh:
            if is_conllu:
                for sent in conllu.parse_incr(fh):
                    words = [t["form"].casefold() for t in sent if isinstance(t["id"], int)]
                    if words:
                        yield words
            else:
                for line in fh:
                    words = [w.casefold() for w in _WORD_RE.findall(line)]
                    if words:
                        yield words


def _stable_hashfxn(text: str) -> int:
    """gensim seeds each word's initial vector with ``hashfxn(word + str(seed))``; its default is
    Python's salted ``hash()``, which would make training differ between processes."""
    return stable_u64("gensim", text) & 0x7FFFFFFF


class Word2VecEncoder(_KeyedVectorsEncoder):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.corpus = Path(parsed.target).expanduser()
        self.files = corpus_files(self.corpus)
        self.params = {
            "dim": option_int(parsed, "dim", 100),
            "window": option_int(parsed, "window", 5),
            "min_count": option_int(parsed, "min_count", 1),
            "epochs": option_int(parsed, "epochs", 10),
            "sg": option_int(parsed, "sg", 1),
            "seed": option_int(parsed, "seed", 0),
        }
        self.options = dict(self.params)
        self.name = self.corpus.name
        self.cache_root: Path | None = None

    def resolve(self) -> None:
        import gensim

        sums = [(p.name, file_sha256(str(p))) for p in self.files]
        params = sorted(self.params.items())
        self.revision = "sha-" + digest(sums, params, gensim.__version__, size=6).hex()

    def load_vectors(self):
        from gensim.models import KeyedVectors, Word2Vec

        from polyprobe.evaluation.cache import default_cache_dir

        root = (self.cache_root or default_cache_dir()) / "w2v"
        root.mkdir(parents=True, exist_ok=True)
        target = root / f"{self.name}-{self.revision}.kv"
        if target.exists():
            return KeyedVectors.load(str(target))
        sentences = list(iter_corpus_sentences(self.files))
        if not sentences:
            raise InputError(self.corpus, None, "corpus has no sentences", "empty-corpus")
        p = self.params
        model = Word2Vec(
            sentences=sentences,
            vector_size=p["dim"],
            window=p["window"],
            min_count=p["min_count"],
            epochs=p["epochs"],
            sg=p["sg"],
            seed=p["seed"],
            workers=1,  # more workers make training order, hence vectors, non-deterministic
            hashfxn=_stable_hashfxn,
        )
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        model.wv.save(str(tmp), separately=[])  # one file, so the rename below is atomic
        tmp.replace(target)
        return model.wv


class VecFileEncoder(_KeyedVectorsEncoder):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.path = Path(parsed.target).expanduser()
        if not self.path.is_file():
            raise InputError(self.path, None, "vector file not found", "missing")
        self.name = self.path.name

    def resolve(self) -> None:
        self.revision = "sha-" + file_sha256(str(self.path))[:12]

    def load_vectors(self):
        from gensim.models import KeyedVectors

        binary = self.path.suffix == ".bin"
        if binary:
            return KeyedVectors.load_word2vec_format(str(self.path), binary=True)
        opener = gzip.open if self.path.name.endswith(".gz") else open
        with opener(self.path, "rt", encoding="utf-8") as fh:
            first = fh.readline().split()
        has_header = len(first) == 2 and all(x.isdigit() for x in first)
        try:
            return KeyedVectors.load_word2vec_format(
                str(self.path), binary=False, no_header=not has_header
            )
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(self.path, None, f"not a word-vector file: {exc}", "bad-vec") from exc
