"""Stable hashing. Python's ``hash()`` is salted per process, so nothing that reaches an output
may depend on it; everything seed- or order-related goes through blake2b here."""

from __future__ import annotations

import hashlib
import random
import struct
import unicodedata

import numpy as np

_LENGTH = struct.Struct("<Q").pack
_blake2b = hashlib.blake2b


def _encode(parts: tuple[object, ...]) -> bytes:
    return b"".join(
        [_LENGTH(len(d)) + d for d in ((p if type(p) is str else str(p)).encode() for p in parts)]
    )


# Hash states already fed with the encoded leading parts: callers hash many ids under one
# (seed, task, treebank) prefix, so each prefix is encoded and hashed once and every call then
# copies its state and feeds only the last part (a copy costs less than a new hash object fed
# the whole payload; blake2b of the concatenation is the same either way). Bounded (filled up
# to the cap, then no longer added to). Never updated in place: only copies are fed.
_PREFIXES: dict[tuple[tuple[object, ...], tuple[type, ...], int], hashlib.blake2b] = {}
_PREFIXES_MAX = 1 << 12


def digest(*parts: object, size: int = 8) -> bytes:
    """blake2b of the parts, each prefixed by its byte length (8 bytes, little-endian) so that
    no two different part lists share an encoding. This runs several times per candidate
    (tests/test_hashing.py pins the encoding): all parts but the last are encoded and hashed
    once per prefix (see ``_PREFIXES``)."""
    if len(parts) < 2:
        return _blake2b(_encode(parts), digest_size=size).digest()
    lead = parts[:-1]
    # Keyed with the parts' types too: 1, True and 1.0 are equal keys but encode differently.
    key = (lead, tuple(map(type, lead)), size)
    try:
        state = _PREFIXES.get(key)
    except TypeError:  # an unhashable part: encode it every time
        return _blake2b(_encode(parts), digest_size=size).digest()
    last = parts[-1]
    d = (last if type(last) is str else str(last)).encode()
    tail = _LENGTH(len(d)) + d
    if state is None:
        head = _encode(lead)
        if len(_PREFIXES) >= _PREFIXES_MAX:  # full: hash this call's payload in one go
            return _blake2b(head + tail, digest_size=size).digest()
        state = _PREFIXES[key] = _blake2b(head, digest_size=size)
    h = state.copy()
    h.update(tail)
    return h.digest()


def stable_u64(*parts: object) -> int:
    """A 64-bit integer that is the same on every machine, process and Python version."""
    return int.from_bytes(digest(*parts, size=8), "little")


def stable_u64_each(prefix: tuple[object, ...], items: list[str]) -> list[int]:
    """``[stable_u64(*prefix, item) for item in items]`` with the prefix encoded once: the
    candidate spool hashes every candidate id under the build's seed this way, a batch at a
    time (tests/test_hashing.py checks the equality)."""
    state = _blake2b(_encode(prefix), digest_size=8)
    out = []
    for item in items:
        d = item.encode("utf-8")
        h = state.copy()
        h.update(_LENGTH(len(d)) + d)
        out.append(int.from_bytes(h.digest(), "little"))
    return out


def stable_rng(*parts: object) -> random.Random:
    """A private RNG seeded from stable parts (e.g. seed, task, sentence id).

    ``random.Random`` seeded with an int is documented as reproducible across versions for
    ``random()``; we only use ``random()``-based draws (via :func:`choice_index`)."""
    return random.Random(stable_u64(*parts))


def choice_index(rng: random.Random, n: int) -> int:
    """Uniform index in ``range(n)`` using only ``rng.random()`` (stable across Python versions,
    unlike ``randrange``, whose algorithm has changed before)."""
    return min(int(rng.random() * n), n - 1)


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def normalise_text(text: str) -> str:
    """NFC + collapsed whitespace: the identity used to detect duplicate sentences."""
    return " ".join(unicodedata.normalize("NFC", text).split())


# Memo of lexical_key: tasks ask for the key of every token (millions of calls on a large
# treebank) but a corpus has far fewer distinct forms. Cleared when it grows past the cap so
# memory stays bounded on any corpus.
_KEY_CACHE: dict[str, str] = {}
_KEY_CACHE_MAX = 1 << 18


def _lexical_key(word: str) -> str:
    if word.isascii():  # the common case: NFC is the identity on ASCII
        return word.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", word).casefold())


# A memo hit without a Python call (``None`` on a miss: then call :func:`lexical_key`), for
# loops that key every token of every sentence. Bound to the memo itself, which is cleared,
# never replaced, so it stays valid.
cached_lexical_key = _KEY_CACHE.get


def lexical_key(word: str) -> str:
    """Lexical keys are NFC-normalised and case-folded everywhere (one definition, one place)."""
    key = _KEY_CACHE.get(word)
    if key is None:
        if len(_KEY_CACHE) >= _KEY_CACHE_MAX:
            _KEY_CACHE.clear()
        key = _KEY_CACHE[word] = _lexical_key(word)
    return key


def u64_array(values: list[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.uint64)
