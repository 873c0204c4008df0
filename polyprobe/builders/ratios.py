"""Class-ratio balances (``--balances 1:5,1:10``): the names, and how many rows of each class
a ``1:R`` split keeps.

Why: Eger et al.'s follow-up studies probing under controlled class imbalance (their
``--balance 1 5``, ``1 10``); ``natural`` mixes every treebank's own imbalance and
``balanced`` removes it, so neither says how a probe degrades as the imbalance grows.

The rule (one place, used by :mod:`polyprobe.builders.variants`):

* Classes are ranked by their **natural frequency** over the whole task (the kept classes'
  rows in all three splits, ties by declared label order), rarest first: rank ``j`` of
  ``K - 1``. So a class is "the rare one" in every split and every size alike.
* For a multiplier ``m``, class rank ``j`` gets ``q_j(m) = floor(m * R**(j / (K - 1)) + 1/2)``
  rows (round half up): the rarest ``m``, the most frequent ``R * m`` exactly, the classes
  between a geometric interpolation. Binary tasks: minority:majority = 1:R.
* Per split, ``m`` is the largest for which every class has its ``q_j(m)`` rows; a train size
  takes the largest ``m`` whose quotas sum to at most the size's rows (so a ``1:R`` size may
  hold a few rows fewer than asked: the card's statistics give the exact count).
* ``q_j`` never decreases as ``m`` grows, and every class's rows are taken lowest seeded
  ``order`` first (the same order as ``balanced`` and the sizes), so the sizes of one ratio
  nest, and ``balanced`` ⊂ ``1:5`` ⊂ ``1:10`` ⊂ natural per class wherever the quotas grow
  in that order (always for the rarest class's partners; a split whose rarest class is not
  the task's rarest may keep fewer of it than ``balanced`` does).

The balance ``1:R`` is named ``ratio1toR`` (``subject_number.ratio1to5-full``): a colon is not
allowed in a Hugging Face config name. A user may type either form.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from polyprobe.errors import UsageError

RATIO_PREFIX = "ratio"
_CANONICAL = re.compile(r"ratio1to(\d+)")
_WRITTEN = re.compile(r"([^:\s]+)\s*:\s*([^:\s]*)")
_WHOLE = re.compile(r"\d+")


def parse_balance(text: str) -> str:
    """A balance as given (``natural``, ``balanced``, ``1:5``, ``ratio1to5``) → its canonical
    name (``ratio1to5`` for ``1:5``); a :class:`UsageError` with the rule otherwise."""
    value = str(text).strip()
    if value in ("natural", "balanced"):
        return value
    canonical = _CANONICAL.fullmatch(value)
    written = _WRITTEN.fullmatch(value)
    if canonical is None and written is None:
        raise UsageError(f"unknown balance {value!r}: use natural, balanced and/or 1:R (e.g. 1:5)")
    if canonical is not None:
        ratio = canonical.group(1)
    else:
        assert written is not None
        if written.group(1) != "1":
            raise UsageError(
                f"balance {value!r}: a class ratio is written 1:R, rarest class first (e.g. 1:5)"
            )
        ratio = written.group(2)
    if not _WHOLE.fullmatch(ratio) or int(ratio) < 2:
        raise UsageError(
            f"balance {value!r}: R in 1:R must be a whole number >= 2 (1:1 is balanced)"
        )
    return f"{RATIO_PREFIX}1to{int(ratio)}"


def ratio_of(balance: str) -> int | None:
    """``R`` of a canonical ``ratio1toR`` balance; None for any other balance."""
    found = _CANONICAL.fullmatch(balance)
    return int(found.group(1)) if found else None


def display(balance: str) -> str:
    """How reports name a balance: ``1:5`` for ``ratio1to5``, others as they are."""
    ratio = ratio_of(balance)
    return balance if ratio is None else f"1:{ratio}"


def ranks(natural: np.ndarray) -> np.ndarray:
    """Per class, its rank by natural frequency (0 = rarest; ties: declared order first)."""
    order = np.argsort(np.asarray(natural, dtype=np.int64), kind="stable")
    out = np.empty(order.size, dtype=np.int64)
    out[order] = np.arange(order.size)
    return out


def weights(natural: np.ndarray, ratio: int) -> np.ndarray:
    """Per class (declared order), its multiplier ``R**(rank / (K - 1))``; the rarest exactly
    1 and the most frequent exactly R, so their quotas are exact integers."""
    rank = ranks(natural)
    k = rank.size
    if k < 2:
        return np.ones(k, dtype=np.float64)
    out = float(ratio) ** (rank / (k - 1))
    out[rank == 0] = 1.0
    out[rank == k - 1] = float(ratio)
    return out


def quotas(m: int, weight: np.ndarray) -> np.ndarray:
    """Rows per class for multiplier ``m``: ``floor(m * w + 1/2)`` (round half up)."""
    return np.floor(m * weight + 0.5).astype(np.int64)


def largest_m(counts: np.ndarray, weight: np.ndarray) -> int:
    """The largest ``m`` whose quotas every class can fill from ``counts`` (0: none)."""
    counts = np.asarray(counts, dtype=np.int64)
    return _largest(lambda m: bool(np.all(quotas(m, weight) <= counts)), int(counts.max(initial=0)))


def m_for_rows(rows: int, weight: np.ndarray, m_max: int) -> int:
    """The largest ``m`` ≤ ``m_max`` whose quotas sum to at most ``rows`` (a train size)."""
    return _largest(lambda m: int(quotas(m, weight).sum()) <= rows, m_max)


def limiting_class(counts: np.ndarray, weight: np.ndarray, m: int) -> int:
    """The class whose rows stop ``m`` from growing (the first whose quota at ``m + 1`` it
    cannot fill): the one a "not built" note names."""
    short = quotas(m + 1, weight) > np.asarray(counts, dtype=np.int64)
    return int(np.flatnonzero(short)[0]) if short.any() else 0


def _largest(fits: Callable[[int], bool], high: int) -> int:
    """Binary search for the largest m in 0..high with ``fits(m)`` (monotone: true, then
    false); ``fits(0)`` is true."""
    lo, hi = 0, max(high, 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
