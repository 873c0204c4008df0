"""Variant engine: turns a task's candidates into leakage-free, seeded splits in balance and
size variants.

Why it looks the way it does:

* **Columns, not objects.** The engine sees only :class:`CandidateColumns` (~27 bytes per
  candidate) and works with vectorised numpy, so 10M candidates fit in a few hundred MB and take
  seconds. No Python object is created per candidate; scratch arrays use int32 where they can.
* **One source of randomness.** Every random decision is "sort by ``order``" (a blake2b hash of
  seed and row id made by the build): shuffling is sorting, undersampling keeps the lowest
  ``order`` values, ratio splits walk components in the order of a candidate's ``order``. No
  numpy RNG stream is used, so the output is identical across numpy versions; ties are broken
  by candidate index, never by sort-algorithm accident.
* **Leakage-free by construction.** No group and no (non-zero) lexical key is ever in two
  splits: ``ud`` mode drops late-split candidates whose group/key was already used earlier;
  ``ratio`` mode moves whole connected components of the (group ∪ key) graph.
* **Absolute split sizes** (``sizes`` mode, LINSPECTOR's ``--split-sizes 7000,2000,1000``):
  components are assigned exactly as in ``ratio`` mode with targets proportional to the
  requested row counts, then each split is truncated to its count, keeping its lowest-``order``
  rows. Truncation only removes candidates, so it can never move a group or key across splits;
  the rows cut are counted as a drop. A split given 0 rows is empty and has no class floor.
* **Nesting for free.** Smaller train sets take the lowest-``order`` rows of the same pool, so
  they are subsets of larger ones; validation and test are built once per balance and shared
  (the very same array object) by all sizes, and a balanced split that needs no undersampling
  is the natural split's array itself (no second copy of the same indices).
* **Class ratios** (``1:R``, balance ``ratio1toR``; the rule is :mod:`polyprobe.builders.ratios`'):
  per split, class rank j (rarest 0 .. most frequent K-1 by natural frequency over the task)
  keeps its ``floor(m·R^(j/(K-1)) + 1/2)`` lowest-``order`` rows, m the largest every class
  can fill; a train size the largest m whose quotas fit its rows. The same per-class order as
  ``balanced`` and the sizes, so one ratio's sizes nest and balanced ⊂ 1:5 ⊂ 1:10 ⊂ natural
  per class as far as the quotas grow in that order. A split whose rarest class would keep
  fewer rows than its ``--min-per-class`` floor (or none) leaves the ratio not built, with why.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyprobe.builders import ratios as class_ratios
from polyprobe.builders.floors import class_targets, floor_remedy
from polyprobe.errors import UsageError

SPLITS = ("train", "validation", "test")
SPLIT_INDEX = {"train": 0, "validation": 1, "test": 2}  # UD's "dev" maps to validation
BALANCES = ("natural", "balanced")  # and ``ratio1toR`` (``1:R``, :mod:`polyprobe.builders.ratios`)

DROP_GROUP_SEEN = "group seen in an earlier split"
DROP_KEY_SEEN = "lexical key seen in an earlier split"
DROP_CLASS_FLOOR = "class below min-per-class"
DROP_SIZE_CAP = "beyond the requested split size"

# A component holding at least 1/_BIG_COMPONENT_SHARE of all candidates is placed by a
# largest-first greedy pass (at most that many of them, so a Python loop is cheap); the rest
# are placed vectorised along their seeded order.
_BIG_COMPONENT_SHARE = 1000
# In ``sizes`` mode (and :func:`split_components`) a component must also hold at least this
# share of the smallest non-empty split's target to be placed largest-first. Word tasks have a
# few thousand candidates, where 1/1000 is 2-3 rows: nearly every lemma family would be
# "big", placed by size and leave only singletons (mostly one class) for the small splits.
_BIG_TARGET_SHARE = 0.05


@dataclass
class CandidateColumns:
    """Everything the engine needs about candidates, in ~27 bytes each (numpy columns in the
    order the task produced the candidates; row i of every column is candidate i)."""

    label: np.ndarray  # int16: index into the task's label_names
    group: np.ndarray  # uint64: stable hash of the group (duplicate sentences share one)
    key: np.ndarray  # uint64: stable hash of the lexical key; 0 = no key
    source_split: np.ndarray  # int8: 0 train, 1 validation, 2 test, -1 none
    order: np.ndarray  # uint64: stable hash of (seed, row id) — the seeded shuffle order

    def __len__(self) -> int:
        return int(len(self.label))


@dataclass(frozen=True)
class SizeSpec:
    """``full``, an absolute train size (``10k`` → 10000) or a fraction of full train (``0.25``)."""

    label: str  # as written in config names: "full", "10k", "0.25"
    rows: int | None = None  # absolute
    fraction: float | None = None

    @property
    def is_full(self) -> bool:
        return self.rows is None and self.fraction is None


@dataclass(frozen=True)
class SplitSpec:
    """``ud`` (the source's own splits), ``ratio`` (percentages in ``ratios``) or ``sizes``
    (absolute train/validation/test row counts in ``counts``; see the module docstring)."""

    mode: str  # "ud", "ratio" or "sizes"
    ratios: tuple[int, int, int] = (80, 10, 10)
    reason: str = ""  # why this mode was chosen (goes into the card)
    counts: tuple[int, int, int] | None = None  # rows per split, for mode "sizes"
    # How the card names mode "ud" (the source's own splits): "ud" for treebanks, "source"
    # for sources whose splits are not UD's.
    source_label: str = "ud"
    # ``sizes`` mode only: allocate each class's rows to the splits separately, every class
    # getting at least its floor in every split it can (see :func:`_stratified_split`), so a
    # class kept by the task is not lost to a chance shortfall in one split.
    stratify: bool = False

    @property
    def label(self) -> str:
        """How the card and the ``polyprobe:`` block name the split mode (``ratio:80/10/10``,
        ``sizes:7000/2000/1000``)."""
        if self.mode == "ratio":
            return "ratio:" + "/".join(str(r) for r in self.ratios)
        if self.mode == "sizes" and self.counts is not None:
            return "sizes:" + "/".join(str(c) for c in self.counts)
        if self.mode == "ud":
            return self.source_label
        return self.mode


@dataclass(frozen=True)
class MinPerClass:
    train: int = 50
    validation: int = 20
    test: int = 20

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.train, self.validation, self.test)


@dataclass
class VariantSettings:
    split: SplitSpec
    sizes: tuple[SizeSpec, ...] = (SizeSpec("full"),)
    balances: tuple[str, ...] = ("natural", "balanced")
    min_per_class: MinPerClass = field(default_factory=MinPerClass)


@dataclass
class Variant:
    balance: str  # "natural" | "balanced"
    size: str  # SizeSpec.label
    # split name -> candidate indices (into CandidateColumns) in output (seeded shuffled) order.
    # Empty splits are present with an empty array; the writer omits them.
    indices: dict[str, np.ndarray]

    @property
    def name(self) -> str:
        """``<balance>-<size>``: the config suffix (``subject_number.natural-10k``)."""
        return f"{self.balance}-{self.size}"


@dataclass
class TaskVariants:
    label_names: list[str]  # kept classes, in the task's declared order
    label_remap: np.ndarray  # int16: old label index -> new index, -1 for dropped classes
    variants: list[Variant]
    drops: Counter[str]  # reason -> candidates removed by the engine
    dropped_classes: dict[str, str]  # label -> reason (e.g. "12 in train < 50")
    not_built: list[str]  # e.g. "balanced size 10k not built: 8123 available"
    infeasible: str | None  # reason when nothing could be built
    split: SplitSpec
    # Natural per-split counts of the kept classes after splitting and floors, shape (3, k),
    # indexed by SPLIT_INDEX and the *new* label index (what the floors were checked against).
    class_counts: np.ndarray = field(default_factory=lambda: np.zeros((3, 0), dtype=np.int64))
    # Human-readable facts about how the split was made (e.g. achieved ratio, component sizes).
    notes: list[str] = field(default_factory=list)

    def get(self, balance: str, size: str) -> Variant | None:
        for variant in self.variants:
            if variant.balance == balance and variant.size == size:
                return variant
        return None


# --------------------------------------------------------------------------------------------
# Estimates before candidates exist
# --------------------------------------------------------------------------------------------

_SOURCE_SPLIT_CODE: dict[str, int] = {"train": 0, "dev": 1, "validation": 1, "test": 2}
DEFAULT_RATIOS: tuple[int, int, int] = (80, 10, 10)


def _floors_tuple(value: Any) -> tuple[int, int, int]:
    """``min_per_class`` as a 3-sequence, a :class:`MinPerClass` or one int."""
    if isinstance(value, MinPerClass):
        return value.as_tuple()
    if isinstance(value, int):
        return (value, value, value)
    train, dev, test = (int(v) for v in value)
    return (train, dev, test)


def _split_request(value: Any) -> tuple[str, tuple[int, int, int]] | None:
    """``split`` as the build gives it: ``"ud"``, ``"ratio"``, ``"ratio:80/10/10"``, a
    :class:`SplitSpec`, or ``None`` (decided from the data)."""
    if value is None:
        return None
    if isinstance(value, SplitSpec):
        return (value.mode, tuple(int(r) for r in value.ratios))  # type: ignore[return-value]
    text = str(value).strip()
    if text == "ud":
        return ("ud", DEFAULT_RATIOS)
    if text == "ratio":
        return ("ratio", DEFAULT_RATIOS)
    if text.startswith("ratio:"):
        parts = [int(p) for p in text[len("ratio:") :].split("/")]
        if len(parts) != 3 or sum(parts) != 100 or min(parts) < 0:
            raise ValueError(f"bad split {value!r}: use ud or ratio:TRAIN/VALIDATION/TEST")
        return ("ratio", (parts[0], parts[1], parts[2]))
    raise ValueError(f"bad split {value!r}: use ud or ratio:TRAIN/VALIDATION/TEST")


class SplitEstimate:
    """How many items of each class each split will hold, estimated by this engine's rules
    while a task is still choosing its classes (before any candidate exists).

    Why: a task that picks its own label set (``word_content``'s targets, ``tree_depth``'s
    bins, ``top_dependencies``' sequences, the contextual tasks' values) must know which
    classes will survive ``--min-per-class`` in every split, or it would publish classes that
    :func:`make_variants` then deletes. The rules are this module's, in one place:

    * ``ud`` (when every source has train, dev and test records, or when the build says so):
      the record's own split counts, and a record whose normalised text already occurred in an
      earlier split (train < dev < test) counts nowhere, because :func:`_ud_split` drops such
      groups; with lexical keys, an item whose key an earlier split used counts nowhere either;
    * ``ratio``: a class with n items is expected to get n·share items in a split (without
      keys); with keys, whole key components are placed as :func:`_ratio_split` places them
      (components holding >= 1/1000 of the items first, largest first, into the split furthest
      below its target; the rest in proportion to the room left). A random ratio split can
      still leave a class a few items short by chance; the engine then drops it and the card
      says so.

    Feed it every record in stream order (:meth:`add`), then ask :meth:`table`."""

    def __init__(self, floors: Any = (50, 20, 20), split: Any = None) -> None:
        self.floors = _floors_tuple(floors)
        self._requested = _split_request(split)
        self._split = array("b")
        self._text = array("Q")
        self._source_splits: dict[str, set[str | None]] = {}
        self.mode = "ratio"
        self.ratios: tuple[int, int, int] = DEFAULT_RATIOS
        self.reason = ""
        self._effective: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._split)

    def add(self, split: str | None, text_hash: int, source: str) -> None:
        """One record: its source split (``train``/``dev``/``test`` or None), the hash of its
        normalised text (duplicates share it) and its source's name."""
        self._split.append(_SOURCE_SPLIT_CODE.get(split or "", -1))
        self._text.append(text_hash)
        self._source_splits.setdefault(source, set()).add(split)

    def merge(self, later: SplitEstimate) -> None:
        """Take in the records ``later`` was fed (the ones right after this estimate's), as
        if this estimate had been fed them too (see ``Observation.merge``)."""
        if self._effective is not None or later._effective is not None:
            raise ValueError("a finished split estimate cannot take in more records")
        self._split.extend(later._split)
        self._text.extend(later._text)
        for source, splits in later._source_splits.items():
            self._source_splits.setdefault(source, set()).update(splits)

    def finish(self) -> None:
        """Decide the split mode and each record's effective split (once)."""
        if self._requested is not None:
            self.mode, self.ratios = self._requested
            self.reason = "split mode passed in by the pipeline"  # (card text: kept as published)
        elif self._source_splits and all(
            {"train", "dev", "test"} <= s for s in self._source_splits.values()
        ):
            self.mode, self.ratios = "ud", DEFAULT_RATIOS
            self.reason = "every treebank has train, dev and test sentences"
        else:
            self.mode, self.ratios = "ratio", DEFAULT_RATIOS
            self.reason = "not every treebank has train, dev and test sentences"
        split = (
            np.frombuffer(self._split, dtype=np.int8).copy()
            if self._split
            else np.zeros(0, np.int8)
        )
        if self.mode == "ud" and split.size:
            text = np.frombuffer(self._text, dtype=np.uint64)
            seen = np.zeros(0, dtype=np.uint64)
            for code in range(3):
                idx = np.flatnonzero(split == code)
                dup = np.isin(text[idx], seen)
                split[idx[dup]] = -1
                seen = np.union1d(seen, text[idx[~dup]])
        self._effective = split

    def source_splits(self) -> np.ndarray:
        """Per record, its source split code (0 train, 1 dev, 2 test, -1 none)."""
        return np.frombuffer(self._split, dtype=np.int8) if self._split else np.zeros(0, np.int8)

    def table(
        self, classes: np.ndarray, n_classes: int, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Per class, items per split (train, dev, test) as float: counts under ``ud``,
        expected counts under ``ratio``. ``classes[i]`` is record i's class (-1: none);
        ``keys[i]`` its item's lexical key id (lexical control), if any."""
        if self._effective is None:
            self.finish()
        assert self._effective is not None
        classes = np.asarray(classes, dtype=np.int64)
        if keys is not None:
            if self.mode == "ud":
                classes = self._without_late_keys(classes, np.asarray(keys, dtype=np.int64))
            else:
                return self._ratio_key_table(classes, np.asarray(keys), n_classes)
        out = np.zeros((n_classes, 3), dtype=np.float64)
        if n_classes == 0:
            return out
        has = classes >= 0
        if self.mode == "ud":
            split = self._effective[has].astype(np.int64)
            cls = classes[has]
            ok = split >= 0
            np.add.at(out, (cls[ok], split[ok]), 1.0)
        else:
            totals = np.bincount(classes[has], minlength=n_classes).astype(np.float64)
            out[:] = totals[:, None] * np.asarray(self.ratios, dtype=np.float64)[None, :] / 100.0
        return out

    def _without_late_keys(self, classes: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``classes`` with -1 for items whose key an earlier source split already used (the
        engine's ``ud`` rule for lexical keys)."""
        classes = classes.copy()
        split = self.source_splits()
        seen = np.zeros(0, dtype=np.int64)
        for code in range(3):
            at = np.flatnonzero((split == code) & (classes >= 0))
            late = np.isin(keys[at], seen)
            classes[at[late]] = -1
            seen = np.union1d(seen, keys[at[~late]])
        return classes

    def _ratio_key_table(self, classes: np.ndarray, keys: np.ndarray, n_classes: int) -> np.ndarray:
        """Expected items per class and split under a ratio split with lexical control: every
        item of a key goes to one split (see the class docstring), so a closed-class value
        (German Person=1: a handful of pronouns) gets its share of a split only if its items
        are spread over enough keys, which expected counts alone would miss."""
        out = np.zeros((n_classes, 3), dtype=np.float64)
        has = classes >= 0
        if not has.any():
            return out
        cls, frm = classes[has], keys[has]
        n = float(cls.size)
        ratios = np.asarray(self.ratios, dtype=np.float64)
        active = ratios > 0
        target = ratios * n / ratios.sum()
        size = np.bincount(frm)
        count = np.zeros(3, dtype=np.float64)
        big = np.flatnonzero(size * _BIG_COMPONENT_SHARE >= n)
        big = big[np.lexsort((big, -size[big]))]
        is_big = np.zeros(size.size, dtype=bool)
        for f in big.tolist():
            deficit = np.where(active, target - count, -np.inf)
            s = int(np.argmax(deficit))
            count[s] += size[f]
            is_big[f] = True
            np.add.at(out[:, s], cls[frm == f], 1.0)
        room = np.where(active, np.maximum(target - count, 0.0), 0.0)
        if room.sum() <= 0:
            room = np.where(active, target, 0.0)
        small = ~is_big[frm]
        per_class = np.bincount(cls[small], minlength=n_classes).astype(np.float64)
        out += per_class[:, None] * (room / room.sum())[None, :]
        return out

    def required(self) -> np.ndarray:
        """The floor per split; a split that gets no data under ``ratio`` asks for nothing."""
        floors = np.asarray(self.floors, dtype=np.float64)
        if self.mode == "ratio":
            floors = np.where(np.asarray(self.ratios) > 0, floors, 0.0)
        return floors

    def passing(self, table: np.ndarray) -> np.ndarray:
        """Per class: does every split reach its floor, and has the class an item at all? (The
        engine drops a class without rows even under floors of 0: see :func:`make_variants`.)"""
        if table.size == 0:
            return np.zeros(table.shape[0], dtype=bool)
        return np.all(table + 1e-9 >= self.required()[None, :], axis=1) & (table.sum(axis=1) > 0)

    def minimum_items(self) -> int | None:
        """Under ``ratio``: the fewest items a class needs in all (None under ``ud``)."""
        if self.mode != "ratio":
            return None
        need = [-(-f * 100 // r) for f, r in zip(self.floors, self.ratios, strict=True) if r > 0]
        return int(max(need)) if need else 0

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "split_mode": "ud" if self.mode == "ud" else "ratio:" + "/".join(map(str, self.ratios)),
            "split_mode_reason": self.reason,
            "min_per_class": list(self.floors),
        }
        if self.mode == "ud":
            out["split_estimate"] = (
                "items per UD split, minus texts already seen in an earlier split"
            )
        else:
            out["split_estimate"] = (
                "expected items per split = items x split share; a class needs "
                f">= {self.minimum_items()} items"
            )
        return out


# --------------------------------------------------------------------------------------------
# Option parsing
# --------------------------------------------------------------------------------------------

_ROWS_RE = re.compile(r"^(\d+(?:\.\d+)?)([km]?)$")
_FRACTION_RE = re.compile(r"^(?:0?\.\d+|0\.\d*|1(?:\.0*)?)$")


def _rows_label(rows: int) -> str:
    """Canonical config-name spelling of an absolute size, so ``10000`` and ``10k`` coincide."""
    if rows % 1_000_000 == 0:
        return f"{rows // 1_000_000}m"
    if rows % 1000 == 0:
        return f"{rows // 1000}k"
    return str(rows)


def _parse_one_size(token: str) -> SizeSpec:
    hint = "use a row count such as 10k or 5000, or a fraction of full train such as 0.25"
    if token == "full":
        return SizeSpec("full")
    if token.startswith("-"):
        raise UsageError(f"--sizes: {token!r} is negative; sizes must be positive ({hint})")
    if "." in token and _FRACTION_RE.match(token):
        fraction = float(token)
        if not 0.0 < fraction < 1.0:
            raise UsageError(
                f"--sizes: fraction {token!r} must be strictly between 0 and 1 "
                "(full train is always built as 'full')"
            )
        return SizeSpec(repr(fraction), fraction=fraction)
    match = _ROWS_RE.match(token)
    if match is None:
        raise UsageError(f"--sizes: {token!r} is not a size ({hint})")
    number, suffix = match.groups()
    scale = {"": 1, "k": 1000, "m": 1_000_000}[suffix]
    if "." in number and not suffix:
        raise UsageError(
            f"--sizes: {token!r} is neither a whole row count nor a fraction between 0 and 1"
        )
    value = float(number) * scale if "." in number else int(number) * scale
    if value != int(value):
        raise UsageError(f"--sizes: {token!r} is not a whole number of rows")
    rows = int(value)
    if rows < 1:
        raise UsageError(f"--sizes: {token!r} asks for 0 rows; sizes must be at least 1 row")
    return SizeSpec(_rows_label(rows), rows=rows)


def parse_sizes(text: str | None) -> tuple[SizeSpec, ...]:
    """Parse ``--sizes`` (``"10k,0.25,0.5,5000"``). ``full`` is always first and implicit;
    duplicates (``10k`` and ``10000``) collapse onto one canonical label so config names are
    unique. Raises :class:`UsageError` naming the offending item."""
    specs: list[SizeSpec] = [SizeSpec("full")]
    if text is None:
        return tuple(specs)
    seen = {"full"}
    for raw in text.split(","):
        token = raw.strip().lower()
        if not token:
            if text.strip():
                raise UsageError(f"--sizes: empty item in {text!r}")
            continue
        spec = _parse_one_size(token)
        if spec.label not in seen:
            seen.add(spec.label)
            specs.append(spec)
    return tuple(specs)


def parse_split(text: str) -> SplitSpec:
    """Parse ``--split`` (``ud`` or ``ratio:80/10/10``; bare ``ratio`` means 80/10/10)."""
    token = text.strip().lower()
    if token == "ud":
        return SplitSpec("ud", reason="requested with --split ud")
    if token == "ratio":
        return SplitSpec("ratio", (80, 10, 10), reason="requested with --split ratio")
    if not token.startswith("ratio:"):
        raise UsageError(f"--split: {text!r} is not a split mode (use 'ud' or 'ratio:80/10/10')")
    parts = token[len("ratio:") :].split("/")
    if len(parts) != 3 or not all(re.fullmatch(r"\d+", p.strip()) for p in parts):
        raise UsageError(
            f"--split: {text!r} needs three non-negative whole percentages "
            "train/validation/test, e.g. ratio:80/10/10"
        )
    train, validation, test = (int(p) for p in parts)
    if train + validation + test != 100:
        raise UsageError(f"--split: ratios in {text!r} sum to {train + validation + test}, not 100")
    if train == 0:
        raise UsageError(f"--split: {text!r} gives train 0%; train needs a positive share")
    ratios = (train, validation, test)
    return SplitSpec(
        "ratio", ratios, reason=f"requested with --split ratio:{train}/{validation}/{test}"
    )


# --------------------------------------------------------------------------------------------
# Sorting and id helpers (deterministic, memory-lean)
# --------------------------------------------------------------------------------------------


def _argsort_by_index_ties(values: np.ndarray) -> np.ndarray:
    """``argsort`` whose ties are broken by position, like a stable sort, but ~1.6× faster.

    Introsort is used first (fast, yet its tie order is an implementation detail); the rare
    runs of equal values (64-bit hash collisions, or hand-made test data) are then re-sorted
    by position, so the result never depends on the numpy version."""
    perm = np.argsort(values)
    if perm.size < 2:
        return perm
    # np.sort is a SIMD sort, ~10x faster than argsort and than gathering values[perm]
    ordered = np.sort(values)
    tied = ordered[1:] == ordered[:-1]
    del ordered
    if not tied.any():
        return perm
    starts = np.flatnonzero(tied)  # position p ties with p + 1
    pos = np.union1d(starts, starts + 1)
    # run id: a new run starts where the previous position is not tied to this one
    run_start = np.ones(pos.size, dtype=bool)
    run_start[1:] = ~((pos[1:] == pos[:-1] + 1) & tied[pos[:-1]])
    run_id = np.cumsum(run_start)
    sub = perm[pos]
    perm[pos] = sub[np.lexsort((sub, run_id))]
    return perm


def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Map uint64 hashes to dense int32 ids 0..u-1 (in sorted-hash order) with ~17 bytes of
    scratch per value, instead of ``np.unique(return_inverse=True)``'s ~32."""
    n = values.size
    if n == 0:
        return np.empty(0, dtype=np.int32), 0
    ordered = np.sort(values)  # SIMD sort: ~10x faster than argsort or a values[perm] gather
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    # Introsort is ~2x faster on distinct hashes, timsort ~3x faster on heavily repeated ones
    # (Zipfian lexical keys); any tie order gives the same ids.
    repeated = int(np.count_nonzero(new)) * 4 < n
    perm = np.argsort(values, kind="stable" if repeated else None)
    sorted_ids = np.cumsum(new, dtype=np.int32)
    del new
    sorted_ids -= 1
    ids = np.empty(n, dtype=np.int32)
    ids[perm] = sorted_ids
    return ids, int(sorted_ids[-1]) + 1


def _key_ids(key: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense int32 ids of the non-zero keys, -1 for "no key" (0)."""
    ids, count = _dense_ids(key)
    if ids.size and (key == 0).any():
        # 0 is the smallest uint64, so "no key" got id 0: shift everything down by one.
        ids -= 1
        count -= 1
    return ids, count


# --------------------------------------------------------------------------------------------
# Splitting
# --------------------------------------------------------------------------------------------


def _ud_split(
    source_split: np.ndarray, gid: np.ndarray, n_groups: int, kid: np.ndarray, n_keys: int
) -> tuple[np.ndarray, Counter[str]]:
    """Keep the source's splits; in train < validation < test, drop a candidate whose group or
    key is already used by a *kept* candidate of an earlier split (group checked first, each
    drop counted once). Checking against kept candidates only drops the minimum needed."""
    missing = int(np.count_nonzero(source_split < 0))
    if missing:
        raise ValueError(
            f"split mode 'ud' needs every candidate's source split, but {missing} candidate(s) "
            "have none; use a ratio split (e.g. ratio:80/10/10) for such sources"
        )
    bad = int(np.count_nonzero(source_split > 2))
    if bad:
        raise ValueError(f"{bad} candidate(s) have a source split outside 0..2")
    split = source_split.astype(np.int8, copy=True)
    drops: Counter[str] = Counter()
    seen_group = np.zeros(n_groups, dtype=bool)
    seen_key = np.zeros(n_keys + 1, dtype=bool)  # slot n_keys stands for "no key": never seen
    for s in range(3):
        idx = np.flatnonzero(split == s)
        g = gid[idx]
        k = kid[idx]
        k[k < 0] = n_keys
        group_seen = seen_group[g]
        key_seen = seen_key[k] & ~group_seen
        drops[DROP_GROUP_SEEN] += int(np.count_nonzero(group_seen))
        drops[DROP_KEY_SEEN] += int(np.count_nonzero(key_seen))
        dropped = group_seen | key_seen
        split[idx[dropped]] = -1
        kept = ~dropped
        seen_group[g[kept]] = True
        seen_key[k[kept]] = True
        seen_key[n_keys] = False
    return split, +drops


def _components(
    gid: np.ndarray, n_groups: int, kid: np.ndarray, n_keys: int
) -> tuple[np.ndarray, np.ndarray]:
    """Connected components of the bipartite (group, key) graph; returns, per group, a dense
    int32 component id, and whether the group is its component's root (the group with the
    smallest hash: a choice that does not depend on the order candidates arrive in).

    Vectorised hook-and-compress union-find: every edge between two different roots hooks the
    larger root under the smaller (``np.minimum.at``), then all nodes jump to their root. Each
    round at least halves the roots of every still-split component, so O(log n) rounds; edges
    already inside one component are discarded as we go. Scratch is ~12 bytes per edge plus 4
    per node — leaner than building a scipy sparse graph (float64 data, plus its transpose)."""
    n_nodes = n_groups + n_keys
    parent = np.arange(n_nodes, dtype=np.int32)
    if n_keys:
        has_key = kid >= 0
        u = gid[has_key]
        v = kid[has_key]
        del has_key
        v += np.int32(n_groups)
        while u.size:
            u = parent[u]
            v = parent[v]
            live = u != v
            u = u[live]
            v = v[live]
            del live
            if not u.size:
                break
            lo = np.minimum(u, v)
            hi = np.maximum(u, v)
            np.minimum.at(parent, hi, lo)
            del lo, hi
            while True:
                jumped = parent[parent]
                if np.array_equal(jumped, parent):
                    break
                parent = jumped
    roots = parent[:n_groups]
    is_root = roots == np.arange(n_groups, dtype=np.int32)
    dense = np.cumsum(is_root, dtype=np.int32)
    dense -= 1
    return dense[roots], is_root


def _ratio_split(
    gid: np.ndarray,
    n_groups: int,
    kid: np.ndarray,
    n_keys: int,
    order: np.ndarray,
    ratios: tuple[int, int, int],
    what: str = "ratio split",
    relative_big: bool = False,
) -> tuple[np.ndarray, list[str]]:
    """Assign whole components to splits so candidate counts approach the ratios.

    ``ratios`` are weights (percentages summing to 100 in ``ratio`` mode, row counts in
    ``sizes`` mode): split *s* aims at ``ratios[s] / sum(ratios)`` of the candidates.

    Components holding ≥ 1/1000 of the candidates (with ``relative_big``, also ≥ 5% of the
    smallest non-empty split's target) go first, largest first, each to the active
    split furthest below its target (so one giant component, e.g. a frequent lexical key, cannot
    land in test by chance). The others are walked in seeded order (the lowest ``order`` in the
    component's smallest-hash group: uniform, independent of component size and of input
    order) and cut at the remaining targets by each component's cumulative midpoint. Deterministic: only sorting, no RNG."""
    n = gid.size
    comp_of_group, root_group = _components(gid, n_groups, kid, n_keys)
    comp = comp_of_group[gid]
    n_comp = int(comp_of_group.max()) + 1 if comp_of_group.size else 0
    del comp_of_group
    size = np.bincount(comp, minlength=n_comp)
    # A component's seeded hash: the lowest `order` among the candidates of its root group.
    # Seeded, independent of input order, and (unlike the component-wide minimum) not pulled
    # towards the front by the component's size.
    in_root = root_group[gid]
    comp_hash = np.full(n_comp, np.iinfo(np.uint64).max, dtype=np.uint64)
    np.minimum.at(comp_hash, comp[in_root], order[in_root])
    del in_root, root_group
    comp_rank = _argsort_by_index_ties(comp_hash)  # components in seeded order
    del comp_hash

    target = np.asarray(ratios, dtype=np.float64) * n / float(sum(ratios))
    active = np.asarray(ratios) > 0
    count = np.zeros(3, dtype=np.float64)
    assign = np.full(n_comp, -1, dtype=np.int8)

    is_big = size * _BIG_COMPONENT_SHARE >= n
    if relative_big:
        smallest = float(target[target > 0].min()) if (target > 0).any() else 0.0
        is_big &= size >= _BIG_TARGET_SHARE * smallest
    big = np.flatnonzero(is_big)
    del is_big
    if big.size:
        position = np.empty(n_comp, dtype=np.int64)
        position[comp_rank] = np.arange(n_comp)
        big = big[np.lexsort((position[big], -size[big]))]
        del position
        for c in big.tolist():
            deficit = np.where(active, target - count, -np.inf)
            s = int(np.argmax(deficit))
            assign[c] = s
            count[s] += size[c]

    small = comp_rank[assign[comp_rank] < 0]
    del comp_rank
    if small.size:
        room = np.where(active, np.maximum(target - count, 0.0), 0.0)
        if room.sum() <= 0:
            room = np.where(active, target, 0.0)
        small_sizes = size[small]
        total = float(small_sizes.sum())
        bounds = np.cumsum(room) / room.sum() * total
        midpoint = np.cumsum(small_sizes) - small_sizes / 2.0
        chosen = np.searchsorted(bounds, midpoint, side="right")
        last_active = int(np.flatnonzero(active)[-1])
        np.minimum(chosen, last_active, out=chosen)
        assign[small] = chosen.astype(np.int8)
        del midpoint, chosen
    split = assign[comp]
    achieved = np.bincount(split, minlength=3)
    largest = int(size.max()) if size.size else 0
    share = "/".join(f"{100.0 * c / n:.1f}" for c in achieved) if n else "0/0/0"
    notes = [
        f"{what} {'/'.join(map(str, ratios))}: {n_comp} components of (group"
        + (" ∪ lexical key" if n_keys else "")
        + f"), largest {largest} candidates; achieved {share} %"
    ]
    return split, notes


def split_components(
    group: np.ndarray, key: np.ndarray, order: np.ndarray, weights: tuple[int, int, int]
) -> np.ndarray:
    """Split index (0 train, 1 validation, 2 test) per row, moving whole (group ∪ key)
    components so that split *s* gets about ``weights[s] / sum(weights)`` of the rows: the
    assignment of ``ratio``/``sizes`` mode, for callers that must partition something *before*
    making candidates (word pairs are generated inside a partition of the lexicon so that no
    pair straddles two splits). ``key`` 0 means no key."""
    weights = tuple(int(w) for w in weights)  # type: ignore[assignment]
    if len(weights) != 3 or min(weights) < 0 or weights[0] <= 0:
        raise ValueError(f"bad split weights {weights!r}: three non-negative, train positive")
    group = np.asarray(group, dtype=np.uint64)
    key = np.asarray(key, dtype=np.uint64)
    order = np.asarray(order, dtype=np.uint64)
    if not (group.shape == key.shape == order.shape) or group.ndim != 1:
        raise ValueError("group, key and order must be 1-d arrays of one length")
    if group.size == 0:
        return np.empty(0, dtype=np.int8)
    gid, n_groups = _dense_ids(group)
    kid, n_keys = _key_ids(key)
    split, _ = _ratio_split(gid, n_groups, kid, n_keys, order, weights, relative_big=True)
    return split


def _stratified_split(
    gid: np.ndarray,
    n_groups: int,
    kid: np.ndarray,
    n_keys: int,
    order: np.ndarray,
    label: np.ndarray,
    counts: tuple[int, int, int],
    floors: tuple[int, int, int],
) -> tuple[np.ndarray, list[str]]:
    """Assign whole (group ∪ key) components to splits class by class.

    Each component belongs to its dominant class (most rows; ties: the lower label index).
    Per class, the split targets are :func:`class_targets` (proportional, every floor met when
    the class has rows enough), and the class's components are walked in seeded order (the
    lowest ``order`` of the component's rows) and cut at those targets by cumulative midpoint,
    as :func:`_ratio_split` cuts. With one-row components (form-disjoint word tasks) every
    class gets exactly its targets; with bigger components (lemma families) approximately,
    and a class that still falls short is dropped by the floors and named in the card."""
    n = gid.size
    comp_of_group, _ = _components(gid, n_groups, kid, n_keys)
    comp = comp_of_group[gid]
    n_comp = int(comp_of_group.max()) + 1 if comp_of_group.size else 0
    size = np.bincount(comp, minlength=n_comp)
    k = int(label.max()) + 1 if label.size else 0
    # dominant class per component
    pair = comp.astype(np.int64) * max(k, 1) + label.astype(np.int64)
    pair_counts = np.bincount(pair, minlength=n_comp * max(k, 1)).reshape(n_comp, max(k, 1))
    dominant = np.argmax(pair_counts, axis=1)  # first maximum: the lower label index
    comp_hash = np.full(n_comp, np.iinfo(np.uint64).max, dtype=np.uint64)
    np.minimum.at(comp_hash, comp, order)
    ranked = _argsort_by_index_ties(comp_hash)
    assign = np.full(n_comp, -1, dtype=np.int8)
    short: list[str] = []
    for c in range(k):
        members = ranked[dominant[ranked] == c]
        if not members.size:
            continue
        rows = int(size[members].sum())
        targets = class_targets(rows, counts, floors)
        if targets is None:  # cannot meet the floors: proportional, the floors will drop it
            targets = tuple(rows * w // max(sum(counts), 1) for w in counts)  # type: ignore[assignment]
            short.append(str(c))
        bounds = np.cumsum(np.asarray(targets, dtype=np.float64))
        if bounds[-1] <= 0:
            assign[members] = 0
            continue
        bounds = bounds / bounds[-1] * rows
        sizes_ = size[members]
        midpoint = np.cumsum(sizes_) - sizes_ / 2.0
        chosen = np.searchsorted(bounds, midpoint, side="right")
        active = np.flatnonzero(np.asarray(counts) > 0)
        np.minimum(chosen, int(active[-1]), out=chosen)
        assign[members] = chosen.astype(np.int8)
    split = assign[comp] if n else np.zeros(0, dtype=np.int8)
    achieved = np.bincount(split[split >= 0], minlength=3) if n else np.zeros(3, np.int64)
    share = "/".join(f"{100.0 * c / n:.1f}" for c in achieved) if n else "0/0/0"
    notes = [
        "stratified split sizes "
        + "/".join(map(str, counts))
        + f": each class's {n_comp} components of (group"
        + (" ∪ lexical key" if n_keys else "")
        + ") allocated to the splits on their own, every class at least its floor "
        + "/".join(map(str, floors))
        + f" where its rows allow; achieved {share} %"
    ]
    return split, notes


def _stratified_truncate(
    split: np.ndarray,
    order: np.ndarray,
    label: np.ndarray,
    counts: tuple[int, int, int],
    floors: tuple[int, int, int],
) -> tuple[int, list[str]]:
    """Cut each split to its row count like :func:`_truncate`, but take the cut rows from the
    classes above their floor, in proportion to how far above it they are (largest
    remainder), each class keeping its lowest-``order`` rows: truncation never pushes a kept
    class under its floor."""
    k = int(label.max()) + 1 if label.size else 0
    before = [int(np.count_nonzero(split == s)) for s in range(3)]
    cut = 0
    for s in range(3):
        excess = before[s] - counts[s]
        if excess <= 0:
            continue
        idx = np.flatnonzero(split == s)
        have = np.bincount(label[idx], minlength=k)
        surplus = np.maximum(have - floors[s], 0)
        if surplus.sum() < excess:  # cannot spare: cut proportionally to the rows
            surplus = have
        take = surplus * excess // max(int(surplus.sum()), 1)
        rest = excess - int(take.sum())
        remainder = surplus * excess % max(int(surplus.sum()), 1)
        for c in sorted(range(k), key=lambda c: (-int(remainder[c]), c))[:rest]:
            take[c] += 1
        for c in range(k):
            if take[c] <= 0:
                continue
            rows = idx[label[idx] == c]
            ranked = rows[_argsort_by_index_ties(order[rows])]
            split[ranked[len(ranked) - int(take[c]) :]] = -1
        cut += excess
    after = [int(np.count_nonzero(split == s)) for s in range(3)]
    short = [f"{SPLITS[s]} {after[s]} < {counts[s]}" for s in range(3) if after[s] < counts[s]]
    notes = [
        "split sizes "
        + "/".join(map(str, counts))
        + ": assigned "
        + "/".join(map(str, before))
        + ", kept "
        + "/".join(map(str, after))
        + (f" (fewer candidates than requested: {', '.join(short)})" if short else "")
    ]
    return cut, notes


def _truncate(
    split: np.ndarray, order: np.ndarray, counts: tuple[int, int, int]
) -> tuple[int, list[str]]:
    """Cut each split to its requested row count, in place, keeping its lowest-``order`` rows
    (the same seeded order that shuffles and undersamples). Returns (rows cut, notes)."""
    before = [int(np.count_nonzero(split == s)) for s in range(3)]
    cut = 0
    for s in range(3):
        if before[s] <= counts[s]:
            continue
        idx = np.flatnonzero(split == s)
        ranked = idx[_argsort_by_index_ties(order[idx])]
        split[ranked[counts[s] :]] = -1
        cut += before[s] - counts[s]
    after = [min(b, c) for b, c in zip(before, counts, strict=True)]
    short = [f"{SPLITS[s]} {after[s]} < {counts[s]}" for s in range(3) if after[s] < counts[s]]
    notes = [
        "split sizes "
        + "/".join(map(str, counts))
        + ": assigned "
        + "/".join(map(str, before))
        + ", kept "
        + "/".join(map(str, after))
        + (f" (fewer candidates than requested: {', '.join(short)})" if short else "")
    ]
    return cut, notes


# --------------------------------------------------------------------------------------------
# Balance and sizes
# --------------------------------------------------------------------------------------------


class _ClassSlices:
    """Rows (already in output order) grouped by class, for per-class "lowest order first"
    takes: ``rows[start[c]:start[c] + m]`` are class c's ``m`` lowest-order rows.

    Holds one int32 (or int64 beyond 2**31 rows) per row instead of a rank array plus its
    int64 temporaries, so balancing a 10M-row pool costs ~4-8 bytes per row."""

    def __init__(self, labels: np.ndarray, k: int) -> None:
        perm = np.argsort(labels, kind="stable")  # radix sort for int16: fast, and stable
        self.rows = perm.astype(np.int32) if labels.size < 2**31 else perm
        del perm
        self.counts = np.bincount(labels, minlength=k)
        self.start = np.cumsum(self.counts) - self.counts
        self.size = labels.size

    def keep(self, quotas: np.ndarray) -> np.ndarray:
        """Boolean mask (in output order) of each class's ``quotas[c]`` lowest-order rows."""
        mask = np.zeros(self.size, dtype=bool)
        for c, (start, quota) in enumerate(zip(self.start.tolist(), quotas.tolist(), strict=True)):
            mask[self.rows[start : start + min(quota, int(self.counts[c]))]] = True
        return mask


def _balanced_quotas(rows: int, k: int) -> np.ndarray:
    """``rows`` split over ``k`` classes: ``rows // k`` each, the remainder one by one to the
    classes in declared order (quotas grow monotonically with ``rows``, so nesting holds)."""
    quotas = np.full(k, rows // k, dtype=np.int64)
    quotas[: rows % k] += 1
    return quotas


def _size_rows(spec: SizeSpec, available: int) -> int:
    if spec.rows is not None:
        return spec.rows
    if spec.fraction is not None:
        return math.floor(spec.fraction * available)
    return available


def _not_built_reason(balance: str, spec: SizeSpec, want: int, available: int) -> str | None:
    """None when the size can be built; else the feasibility report's sentence."""
    head = f"{balance} size {spec.label} not built: {available} available"
    if want <= 0:
        return f"{head} ({spec.label} of {available} is 0 rows)"
    if want > available:
        return head
    if want == available:
        return f"{head} (same as full)"
    return None


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


def _frozen(array: np.ndarray) -> np.ndarray:
    """Outputs are read-only: validation/test arrays (and natural train prefixes) are shared
    between variants, so an in-place edit by one consumer would silently change the others."""
    array.flags.writeable = False
    return array


def _check_columns(cols: CandidateColumns, n_labels: int) -> CandidateColumns:
    """Coerce dtypes (no copy when already right) and refuse inconsistent columns early: a
    wrong length or an out-of-range label would otherwise surface as a silent mis-assignment."""
    label = np.asarray(cols.label, dtype=np.int16)
    out = CandidateColumns(
        label=label,
        group=np.asarray(cols.group, dtype=np.uint64),
        key=np.asarray(cols.key, dtype=np.uint64),
        source_split=np.asarray(cols.source_split, dtype=np.int8),
        order=np.asarray(cols.order, dtype=np.uint64),
    )
    n = label.size
    for name in ("label", "group", "key", "source_split", "order"):
        column = getattr(out, name)
        if column.ndim != 1 or column.size != n:
            raise ValueError(f"candidate column {name!r} has shape {column.shape}, expected ({n},)")
    if n and (int(label.min()) < 0 or int(label.max()) >= n_labels):
        raise ValueError(
            f"candidate labels must lie in 0..{n_labels - 1} (got {int(label.min())}..{int(label.max())})"
        )
    return out


def _class_floor_reasons(
    counts: np.ndarray, floors: tuple[int, int, int], checked: tuple[bool, bool, bool]
) -> list[str | None]:
    reasons: list[str | None] = []
    for c in range(counts.shape[1]):
        parts = [
            f"{int(counts[s, c])} in {SPLITS[s]} < {floors[s]}"
            for s in range(3)
            if checked[s] and counts[s, c] < floors[s]
        ]
        reasons.append(", ".join(parts) if parts else None)
    return reasons


NO_ROWS_REASON = "no rows in any split"


def _ratio_fixed(
    pools: list[np.ndarray],
    labels: np.ndarray,
    label_remap: np.ndarray,
    k: int,
    weight: np.ndarray,
    floors: tuple[int, int, int],
    checked: tuple[bool, bool, bool],
    names: list[str],
) -> tuple[list[np.ndarray], list[int]] | str:
    """Each split of a ``1:R`` balance (every class's lowest-order quota rows) and its ``m``;
    or why the ratio cannot be built: a split holding rows whose rarest class would keep
    fewer rows than the split's floor, or none (``names``: the kept classes' names)."""
    fixed: list[np.ndarray] = []
    ms: list[int] = []
    for s in range(3):
        if not pools[s].size:  # a split meant to be empty (0 % or 0 rows asked)
            fixed.append(pools[s])
            ms.append(0)
            continue
        classes = _ClassSlices(label_remap[labels[pools[s]]], k)
        m = class_ratios.largest_m(classes.counts, weight)
        floor = floors[s] if checked[s] else 0
        if m == 0 or m < floor:
            c = class_ratios.limiting_class(classes.counts, weight, m)
            rarest = int(np.argmin(weight))
            keeps = f"{m} (< --min-per-class {floor})" if m else "no row"
            return (
                f"in {SPLITS[s]} class {names[c]} has {int(classes.counts[c])} rows, so the "
                f"rarest class {names[rarest]} would keep {keeps}"
            )
        keep = classes.keep(class_ratios.quotas(m, weight))
        fixed.append(pools[s] if keep.all() else _frozen(pools[s][keep]))
        ms.append(m)
    return fixed, ms


def _ratio_note(balance: str, names: list[str], class_counts: np.ndarray, ms: list[int]) -> str:
    """The card's sentence on how a ``1:R`` balance was drawn: the classes rarest first and
    the multiplier m of each split."""
    rank = class_ratios.ranks(class_counts.sum(axis=0))
    by_rank = [names[c] for c in np.argsort(rank)]
    return (
        f"{class_ratios.display(balance)} ({balance}): classes by natural frequency "
        f"{' < '.join(by_rank)} keep floor(m·{class_ratios.ratio_of(balance)}^(rank/"
        f"{len(names) - 1}) + 1/2) rows each, the lowest seeded order first; m = "
        + ", ".join(
            f"{ms[s]} {SPLITS[s]}"
            + (" (full size; a smaller size: the largest m it holds)" if s == 0 else "")
            for s in range(3)
            if ms[s]
        )
    )


def _emptied_splits(
    class_counts: np.ndarray, checked: tuple[bool, bool, bool], mode: str, source_split: Any
) -> list[str]:
    """The splits that should hold rows but hold none of the kept classes (possible only under
    a floor of 0 there). A split asked for 0 rows (``ratio:100/0/0``, sizes ``X,Y,0``) is meant
    to be empty; in ``ud`` mode so is a split the sources do not have at all (TREC has no
    validation file, an evaluation set is test only): neither is reported."""
    out = []
    for s in range(3):
        if not checked[s] or class_counts[s].sum() > 0:
            continue
        if mode == "ud" and not bool(np.any(np.asarray(source_split) == s)):
            continue
        out.append(SPLITS[s])
    return out


def _empty_split_remedy(split: SplitSpec, n_comp: int) -> str:
    """What would give every split rows on this input. No floor can (a floor only drops
    classes); rows that share a group or a lexical key move together, so what counts is
    components: in a ``ratio`` split, the components it takes for the smallest non-zero share
    to get one; in ``sizes`` mode at least one per split; in ``ud`` mode, rows in the
    source's split that came out empty."""
    if split.mode == "ratio":
        share = min(r for r in split.ratios if r > 0)
        need = max(math.ceil(100 / share), n_comp + 1)
        return (
            f"remedy: more input - at least {need} components ({need - n_comp} more: "
            f"sentences or forms with other words) for a {share} % share to get one"
        )
    if split.mode == "sizes":
        return "remedy: more input - at least one component per split (forms of other lemmas)"
    return "remedy: more input - sentences in the source's split that came out empty"


def _unbalanceable(class_counts: np.ndarray, kept_names: list[str]) -> str | None:
    """Why no balanced variant can be made, or None. A balanced split holds as many rows of
    every class as its smallest class has, so a kept class with no row in a split that holds
    rows (possible only under a floor of 0 there: TREC has no validation split, a ratio split
    can leave a rare class out of test) would empty that split; the variant is reported,
    never built with a split emptied by balancing (nor, at worst, with no rows at all)."""
    parts = []
    for s in range(3):
        missing = [kept_names[c] for c in range(len(kept_names)) if class_counts[s, c] == 0]
        if class_counts[s].any() and missing:
            parts.append(f"no {SPLITS[s]} row of {', '.join(missing)}")
    if not parts:
        return None
    return (
        "; ".join(parts) + " (a floor of 0 keeps such a class), so a balanced split would be empty"
    )


def _check_counts(counts: tuple[int, int, int] | None) -> tuple[int, int, int]:
    """``sizes`` mode needs three non-negative whole row counts, train positive."""
    if counts is None or len(counts) != 3:
        raise ValueError(f"split mode 'sizes' needs three row counts, got {counts!r}")
    out = tuple(int(c) for c in counts)
    if any(o != c for o, c in zip(out, counts, strict=True)) or min(out) < 0 or out[0] == 0:
        raise ValueError(
            f"bad split sizes {counts!r}: whole non-negative row counts, train positive"
        )
    return out  # type: ignore[return-value]


# Labels that stand for "no value of the feature" (a word task's ``None``, top_dependencies'
# ``OTHER``): a task needs two *real* values besides them, or it teaches nothing about the
# feature (Hungarian ``tense`` once published as {Present, None}).
CATCH_ALL_LABELS = ("None", "OTHER")


def make_scored_variants(cols: CandidateColumns, settings: VariantSettings) -> TaskVariants:
    """The variants of a scored task (label = a graded score, ``TaskMetadata.scored``): its
    candidates form one pseudo-class, so balancing and class floors mean nothing. The engine
    builds the **natural variant only** (whatever ``--balances`` asked), never drops a class,
    and splits, sizes and nests exactly as for class tasks (same leakage rules, same order
    hash: a 1k train is a prefix of the full one)."""
    natural = VariantSettings(
        split=settings.split,
        sizes=settings.sizes,
        balances=("natural",),
        min_per_class=MinPerClass(0, 0, 0),
    )
    return make_variants(cols, ["score"], natural, min_classes=1)


def make_variants(
    cols: CandidateColumns,
    label_names: list[str],
    settings: VariantSettings,
    catch_all: tuple[str, ...] = (),
    *,
    min_classes: int = 2,
) -> TaskVariants:
    """Split, floor, balance and size a task's candidates (see the module docstring for why).

    Steps: (1) split (``ud``: source splits minus earlier-seen groups/keys; ``ratio``: whole
    (group ∪ key) components; ``sizes``: as ``ratio`` with targets proportional to the row
    counts, then each split cut to its count by ``order``); (2) drop every class below ``min_per_class`` in any split,
    counted on the natural split, and (for ``min_classes`` ≥ 2) every class without a row in any
    split, whatever the floors; fewer than two classes left → ``infeasible``; (3) per balance,
    fix validation and test, and cut each requested train size from the balance's train pool
    (lowest ``order`` first, per class for ``balanced``; a balance is not built, with its reason,
    when a kept class has no row in a split that holds rows, which only a floor of 0 allows, since
    balancing would empty that split). Raises ``ValueError`` for inconsistent
    columns, unknown balances/modes, or ``ud`` mode with candidates lacking a source split."""
    label_names = list(label_names)
    k_all = len(label_names)
    for balance in settings.balances:
        if balance not in BALANCES and class_ratios.ratio_of(balance) is None:
            raise ValueError(
                f"unknown balance {balance!r} (expected one of {BALANCES} or ratio1toR)"
            )
    if settings.split.mode not in ("ud", "ratio", "sizes"):
        raise ValueError(f"unknown split mode {settings.split.mode!r}")
    cols = _check_columns(cols, k_all)
    n = len(cols)

    # (1) split ---------------------------------------------------------------------------
    gid, n_groups = _dense_ids(cols.group)
    kid, n_keys = _key_ids(cols.key)
    notes: list[str] = []
    drops: Counter[str] = Counter()
    if settings.split.mode == "ud":
        split, drops = _ud_split(cols.source_split, gid, n_groups, kid, n_keys)
        checked = (True, True, True)
    elif settings.split.mode == "sizes":
        counts = _check_counts(settings.split.counts)
        if settings.split.stratify:
            floors_ = settings.min_per_class.as_tuple()
            split, notes = _stratified_split(
                gid, n_groups, kid, n_keys, cols.order, cols.label, counts, floors_
            )
            cut, cut_notes = _stratified_truncate(split, cols.order, cols.label, counts, floors_)
        else:
            split, notes = _ratio_split(
                gid,
                n_groups,
                kid,
                n_keys,
                cols.order,
                counts,
                what="split sizes",
                relative_big=True,
            )
            cut, cut_notes = _truncate(split, cols.order, counts)
        notes += cut_notes
        if cut:
            drops[DROP_SIZE_CAP] += cut
        # A split asked for 0 rows is meant to be empty: no floor applies to it.
        checked = (counts[0] > 0, counts[1] > 0, counts[2] > 0)
    else:
        ratios = tuple(int(r) for r in settings.split.ratios)
        if len(ratios) != 3 or min(ratios) < 0 or sum(ratios) != 100 or ratios[0] == 0:
            raise ValueError(f"bad split ratios {settings.split.ratios!r}")
        split, notes = _ratio_split(gid, n_groups, kid, n_keys, cols.order, ratios)  # type: ignore[arg-type]
        # A split the user gave 0 % is meant to be empty: no floor applies to it.
        checked = (ratios[0] > 0, ratios[1] > 0, ratios[2] > 0)

    # (2) class floors on the natural split -------------------------------------------------
    counts = np.zeros((3, k_all), dtype=np.int64)
    for s in range(3):
        counts[s] = np.bincount(cols.label[split == s], minlength=k_all)[:k_all]
    floors = settings.min_per_class.as_tuple()
    reasons = _class_floor_reasons(counts, floors, checked)
    # A floor of 0 drops nothing, yet a class with no row in any split teaches a classifier
    # nothing and would publish a label without an example: it is dropped like a class below
    # its floor. Not in a set whose label only describes its rows (``min_classes`` 1: a
    # lexical category, a scored pseudo-class): its subsets share the whole label list, so a
    # label id means the same in every config.
    if min_classes >= 2:
        reasons = [
            NO_ROWS_REASON if why is None and not counts[:, c].any() else why
            for c, why in enumerate(reasons)
        ]
    dropped_classes = {
        name: reason
        for name, reason in zip(label_names, reasons, strict=True)
        if reason is not None
    }
    keep_class = np.array([r is None for r in reasons], dtype=bool)
    label_remap = np.full(k_all, -1, dtype=np.int16)
    label_remap[keep_class] = np.arange(int(keep_class.sum()), dtype=np.int16)
    kept_names = [name for name, keep in zip(label_names, keep_class, strict=True) if keep]
    k = len(kept_names)
    class_counts = counts[:, keep_class]
    if dropped_classes:
        lost = ~keep_class[cols.label] & (split >= 0)
        drops[DROP_CLASS_FLOOR] += int(np.count_nonzero(lost))
        split[lost] = -1
        del lost

    result = TaskVariants(
        label_names=kept_names,
        label_remap=label_remap,
        variants=[],
        drops=drops,
        dropped_classes=dropped_classes,
        not_built=[],
        infeasible=None,
        split=settings.split,
        class_counts=class_counts,
        notes=notes,
    )
    real = [name for name in kept_names if name not in catch_all]
    if k >= 2 and len(real) < 2:
        result.infeasible = (
            f"{len(real)} real value(s) left besides {', '.join(x for x in kept_names if x in catch_all)}"
            f" (kept: {', '.join(kept_names)}); a task needs at least 2"
            + (
                "; dropped " + "; ".join(f"{a}: {b}" for a, b in dropped_classes.items())
                if dropped_classes
                else ""
            )
        )
        return result
    if k < min_classes:
        floor_text = ", ".join(f"{SPLITS[s]} {floors[s]}" for s in range(3) if checked[s])
        detail = "; ".join(f"{name}: {why}" for name, why in dropped_classes.items())
        if n == 0:
            result.infeasible = "no candidates"
        else:
            kept_text = f" (kept: {', '.join(kept_names)})" if kept_names else ""
            result.infeasible = (
                f"{k} class(es) left after --min-per-class ({floor_text}); need at least 2"
                f"{kept_text}"
                + (f"; dropped {detail}" if detail else "")
                + "; "
                + floor_remedy(counts.tolist(), label_names, floors, checked, max(min_classes, 2))
            )
        return result
    floor_losses = [c for c, why in enumerate(reasons) if why not in (None, NO_ROWS_REASON)]
    usable = [c for c in range(k_all) if all(counts[s, c] > 0 for s in range(3) if checked[s])]
    if floor_losses and len(usable) > k and min(floors) > 0:
        notes.append(
            "classes below --min-per-class: "
            + ", ".join(label_names[c] for c in floor_losses)
            + "; "
            + floor_remedy(counts.tolist(), label_names, floors, checked, len(usable))
        )
    empty = _emptied_splits(class_counts, checked, settings.split.mode, cols.source_split)
    if empty:
        comp_of_group, _ = _components(gid, n_groups, kid, n_keys)
        n_comp = int(comp_of_group.max()) + 1 if comp_of_group.size else 0
        result.infeasible = (
            f"the {' and '.join(empty)} split{'s' if len(empty) > 1 else ''} would be empty "
            f"({n} candidates in {n_comp} components of rows sharing a group or lexical key, "
            "which stay in one split; kept rows by split "
            + "/".join(str(int(class_counts[s].sum())) for s in range(3))
            + "): a config is never published with an empty split; "
            + _empty_split_remedy(settings.split, n_comp)
        )
        return result
    del gid, kid

    # (3) output order, balances, sizes -----------------------------------------------------
    # One global sort by `order` gives every split's pool in output order at once.
    perm = _argsort_by_index_ties(cols.order)
    split_sorted = split[perm]
    pools = [_frozen(perm[split_sorted == s]) for s in range(3)]
    del perm, split_sorted, split

    for balance in settings.balances:
        train_classes: _ClassSlices | None = None
        ms: list[int] = []  # a ratio's m per split
        ratio = class_ratios.ratio_of(balance)
        weight = class_ratios.weights(class_counts.sum(axis=0), ratio) if ratio else None
        if balance != "natural":
            why_not = _unbalanceable(class_counts, kept_names)
            if why_not is not None:
                result.not_built.append(f"{class_ratios.display(balance)} not built: {why_not}")
                continue
        if balance == "natural":
            fixed = pools
        elif weight is not None:
            ratio_split = _ratio_fixed(
                pools, cols.label, label_remap, k, weight, floors, checked, kept_names
            )
            if isinstance(ratio_split, str):
                result.not_built.append(f"{class_ratios.display(balance)} not built: {ratio_split}")
                continue
            fixed, ms = ratio_split
            notes.append(_ratio_note(balance, kept_names, class_counts, ms))
            train_classes = _ClassSlices(label_remap[cols.label[fixed[0]]], k)
        else:
            fixed = []
            for s in range(3):
                classes = _ClassSlices(label_remap[cols.label[pools[s]]], k)
                smallest = int(classes.counts.min())
                keep = classes.keep(np.full(k, smallest, dtype=np.int64))
                # Already balanced (e.g. paired copies): share the natural pool, which is
                # read-only, rather than hold a second copy of the same indices.
                fixed.append(pools[s] if keep.all() else _frozen(pools[s][keep]))
                del keep
                del classes
            train_classes = _ClassSlices(label_remap[cols.label[fixed[0]]], k)
        train_full = fixed[0]
        available = int(train_full.size)
        for spec in settings.sizes:
            if spec.is_full:
                train = train_full
            else:
                want = _size_rows(spec, available)
                why = _not_built_reason(balance, spec, want, available)
                if why is not None:
                    result.not_built.append(why)
                    continue
                if balance == "natural":
                    train = train_full[:want]  # lowest-order rows: nested by construction
                elif weight is not None:
                    assert train_classes is not None
                    m = class_ratios.m_for_rows(want, weight, ms[0])
                    if m == 0:
                        result.not_built.append(
                            f"{class_ratios.display(balance)} size {spec.label} not built: {want} "
                            f"rows cannot hold one row of the rarest class at 1:{ratio}"
                        )
                        continue
                    train = _frozen(train_full[train_classes.keep(class_ratios.quotas(m, weight))])
                else:
                    assert train_classes is not None
                    train = _frozen(train_full[train_classes.keep(_balanced_quotas(want, k))])
            if not (train.size or fixed[1].size or fixed[2].size):
                # unreachable under the rules above; a config without rows is never produced
                result.not_built.append(f"{balance} size {spec.label} not built: no rows")
                continue
            result.variants.append(
                Variant(
                    balance=balance,
                    size=spec.label,
                    indices={"train": train, "validation": fixed[1], "test": fixed[2]},
                )
            )
        del train_classes
    return result
