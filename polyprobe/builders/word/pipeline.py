"""``build_unimorph``: a UniMorph lexicon (+ frequency lists, + Wuggy pseudowords) → one dataset
folder per language with LINSPECTOR's type-level suite, under leakage controls LINSPECTOR lacked.

Why it is built this way:

* **In memory.** A lexicon is at most a few hundred thousand lines and a task a few thousand
  candidates, so candidates stay Python objects; only the split decisions go through the
  numpy variant engine (the same one ``build ud`` uses), so balance, train sizes, class floors
  and the seeded order mean exactly the same in both suites.
* **Split sizes, not ratios.** LINSPECTOR published fixed train/validation/test sizes
  (7000/2000/1000). Single-word tasks use the engine's ``sizes`` mode: whole components to
  splits in proportion to the counts, then each split cut to its count by the seeded order.
  ``--scale`` derives the counts from the data (the task's own size, in the same proportions),
  because the shared lexicons are far smaller than LINSPECTOR's.
* **Forms never cross splits; in ``-lemma-disjoint`` configs, lemmas never do either.** Each
  row's published ``group`` is its connected component over the words it touches (and, lemma-
  disjoint, their lemmas); the engine gets ``group`` = the row's own unit and ``key`` = that
  component, so its components are exactly ours while each is walked by one small unit's
  seeded order (a whole component as one group would pull big components into train). A
  *pair* touches two words, and the pair graph can percolate: 61% of German ``same_feature``
  pairs are one component (all verbs), 77–100% once lemmas link them. Such tasks are
  *generated inside a seeded partition* of the lexicon (by form for ``same_feature``, by lemma
  family for every lemma-disjoint pair set), so each split's pairs come from its own words and
  its labels are not skewed by which region of the lexicon percolated. ``odd_feature`` pairs
  stay inside one paradigm (components of at most a few pairs) and are split by component.
  The card reports the share of test words and lemmas seen in train (LINSPECTOR: 80–94% of
  SameFeat test words; here 0% of forms by construction).
* **Everything in the card.** Every size the build derived, every drop, fallback and filter
  count, and every input (lexicon files, frequency sources, the Wuggy table) with a checksum.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

import polyprobe
from polyprobe.builders.pipeline import TaskSummary, drop_counts
from polyprobe.builders.variants import (
    SPLITS,
    CandidateColumns,
    MinPerClass,
    SizeSpec,
    SplitSpec,
    TaskVariants,
    Variant,
    VariantSettings,
    make_variants,
    parse_sizes,
    split_components,
)
from polyprobe.builders.word.common import (
    CHARACTER_BINS,
    FREQUENT_SHARE,
    NONE_LABEL,
    NONE_SHARE,
    SCALE_FLOOR,
    SCALE_SHARE,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    has_space,
    key_of,
)
from polyprobe.builders.word.pairs import LEMMA_LABEL, odd_feature, same_feature
from polyprobe.builders.word.pseudo import PSEUDO_LABEL, REAL_LABEL, pseudo_task
from polyprobe.builders.word.single import (
    FEATURE_TASKS,
    character_bin_task,
    pos_task,
    single_feature,
    tag_count,
)
from polyprobe.cards.schema import arrow_schema
from polyprobe.errors import InfeasibleError, UsageError
from polyprobe.hashing import digest, file_sha256, stable_u64
from polyprobe.languages import resolve_language
from polyprobe.licenses import resolve_card_license

RECIPE_VERSION = "1.0.0"
PAIR_TASKS = ("same_feature", "odd_feature")
TASK_ORDER: tuple[str, ...] = (
    *FEATURE_TASKS,
    "pos",
    "tag_count",
    "character_bin",
    "pseudo",
    *PAIR_TASKS,
)
LAYER_TASK_PREFIX = "person_"  # optional tasks from argument layers: person_dat, person_acc
LEMMA_DISJOINT = "lemma-disjoint"
DEFAULT_SPLIT_SIZES = (7000, 2000, 1000)
LINSPECTOR_CITATION = """@article{sahin-etal-2020-linspector,
  title = {{LINSPECTOR}: Multilingual Probing Tasks for Word Representations},
  author = {{\\c{S}}ahin, G{\\"o}zde G{\\"u}l and Vania, Clara and Kuznetsov, Ilia and Gurevych, Iryna},
  journal = {Computational Linguistics},
  volume = {46},
  number = {2},
  pages = {335--385},
  year = {2020}
}"""

_DESCRIPTIONS = {
    "person": "Person and number of the subject of a word form (UniMorph schema names, e.g. "
    "`Third person Singular`), or `None` for forms that never carry person.",
    "pos": "Part of speech of a word form (no `None` class: every entry has one).",
    "tag_count": "Number of feature dimensions in the form's UniMorph tag bundle, POS included "
    "(a form listed several times keeps its first analysis).",
    "character_bin": "Length of the form in Unicode code points, binned: 1-4, 5-8, 9-12, 13-16, "
    "17-20, >20 (the same words as `tag_count`).",
    "pseudo": "Is the form a real word (`1`) or a Wuggy pseudoword (`0`)? 50/50; a pseudoword "
    "and the real word it was made from share a group.",
    "same_feature": "Two forms of different lemmas: the one feature value they share (and differ "
    "in every other compared feature), or `lemma` for two forms of one lemma sharing none.",
    "odd_feature": "Two forms of one lemma: the one feature they differ in, or `lemma` for two "
    "forms of different lemmas with the same full tag bundle.",
}


@dataclass
class WordBuildResult:
    """What ``build_unimorph`` did: the CLI's closing table and tests read this."""

    out: Path
    fingerprint: str
    tasks: list[TaskSummary]
    lexicon: dict[str, Any]
    feasibility: dict[str, Any]
    split: str  # how splits were made, for the closing summary
    skipped_invalid: dict[str, int] = field(default_factory=dict)
    wuggy_cached: bool = False  # the generated Wuggy table came from the cache


@dataclass
class _Rows:
    """One candidate set (a task in one disjointness mode), in published-schema columns plus
    the engine's columns."""

    ids: list[str]
    inputs: dict[str, list[str]]
    labels: list[str]
    groups: list[str]
    keys: list[str]
    lemmas: list[tuple[str, ...]]  # lemmas each row touches (for leakage statistics)
    words: list[tuple[str, ...]]  # form keys each row touches
    units: list[str]  # the row's own unit: its form, its seed word (pseudo), its pair
    source_split: list[int] | None = None


@dataclass
class _Options:
    """Validated build options (so that a usage error surfaces before any reading)."""

    tasks: list[str]
    sizes: tuple[SizeSpec, ...]
    floors: MinPerClass
    balances: tuple[str, ...]
    split_sizes: tuple[int, int, int]
    size_params: SizeParams
    scale: bool
    seed: int
    # (unit, counts, seed, lexicon) -> entries per split: both pair tasks share partitions
    partitions: dict[tuple[Any, ...], list[list[Any]]] = field(default_factory=dict)


# ------------------------------------------------------------------------------- options


def _check_options(
    tasks: Sequence[str] | None,
    sizes: str | Sequence[SizeSpec] | None,
    min_per_class: tuple[int, int, int] | MinPerClass,
    balances: Sequence[str],
    split_sizes: Sequence[int],
    min_forms: int | None,
    scale: bool,
    seed: int,
    wuggy_lexicon: Any,
    wuggy_output: Any,
    wuggy_max_seeds: int,
) -> _Options:
    names = list(dict.fromkeys(tasks)) if tasks else list(TASK_ORDER)
    for name in names:
        if name not in TASK_ORDER and not _is_layer_task(name):
            raise UsageError(
                f"unknown word task {name!r}; known: {', '.join(TASK_ORDER)}, and "
                "person_<case> for an argument layer (e.g. person_dat)"
            )
    ordered = [n for n in TASK_ORDER if n in names] + sorted(n for n in names if _is_layer_task(n))
    size_specs = parse_sizes(sizes) if isinstance(sizes, str) or sizes is None else tuple(sizes)
    floors = (
        min_per_class if isinstance(min_per_class, MinPerClass) else MinPerClass(*min_per_class)
    )
    for b in balances:
        if b not in ("natural", "balanced"):
            raise UsageError(f"unknown balance {b!r}: use natural and/or balanced")
    if not balances:
        raise UsageError("--balances: give natural and/or balanced")
    counts = tuple(split_sizes)
    if (
        len(counts) != 3
        or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in counts)
        or min(counts) < 0
        or counts[0] <= 0
    ):
        raise UsageError(
            f"--split-sizes {split_sizes!r}: three whole row counts TRAIN,VALIDATION,TEST "
            "(train positive), e.g. 7000,2000,1000"
        )
    if min_forms is not None and min_forms < 1:
        raise UsageError(f"--min-forms {min_forms}: must be at least 1")
    if wuggy_lexicon is not None and wuggy_output is not None:
        raise UsageError(
            "give either --wuggy-lexicon (generate) or --wuggy-output (read), not both"
        )
    if wuggy_max_seeds < 1:
        raise UsageError(f"--wuggy-max-seeds {wuggy_max_seeds}: must be at least 1")
    if scale:
        # Under --scale, --min-forms is the floor of the derived size (default 1,000).
        params = SizeParams(
            min_forms=min_forms or SCALE_FLOOR,
            scale=True,
            scale_floor=min_forms or SCALE_FLOOR,
        )
    else:
        params = SizeParams(min_forms=min_forms or SizeParams().min_forms)
    return _Options(
        tasks=ordered,
        sizes=size_specs,
        floors=floors,
        balances=tuple(balances),
        split_sizes=(int(counts[0]), int(counts[1]), int(counts[2])),
        size_params=params,
        scale=scale,
        seed=seed,
    )


def _is_layer_task(name: str) -> bool:
    rest = name[len(LAYER_TASK_PREFIX) :]
    return name.startswith(LAYER_TASK_PREFIX) and rest.isalpha() and rest.islower()


def scaled_split_sizes(total: int, split_sizes: tuple[int, int, int]) -> tuple[int, int, int]:
    """``total`` rows in the proportions of ``split_sizes``, by largest remainder in integer
    arithmetic: the three add up to ``total`` exactly, with no float rounding to depend on."""
    weight = sum(split_sizes)
    base = [total * c // weight for c in split_sizes]
    remainder = [total * c % weight for c in split_sizes]
    by_remainder = sorted(range(3), key=lambda i: (-remainder[i], i))
    for i in by_remainder[: total - sum(base)]:
        base[i] += 1
    return (base[0], base[1], base[2])


# ------------------------------------------------------------------------------- sources


def _license_and_version(path: Path, override: str | None) -> tuple[str, str]:
    from polyprobe.loaders.sources import treebank_metadata

    return treebank_metadata(path, license_override=override)


def _override(overrides: dict[str, str], *names: str) -> str | None:
    for name in names:
        if name in overrides:
            return overrides[name]
    return None


def _lexicon_sources(files: Sequence[Path], overrides: dict[str, str]) -> list[Any]:
    """One SourceInfo per folder of lexicon files (SIGMORPHON's train/dev/test of one language
    are one source)."""
    from polyprobe.cards.folder import SourceInfo

    by_folder: dict[Path, list[Path]] = {}
    for f in files:
        by_folder.setdefault(f.resolve().parent, []).append(f)
    names: Counter[str] = Counter(folder.name for folder in by_folder)
    out = []
    for folder, group in by_folder.items():
        name = folder.name if names[folder.name] == 1 else f"{folder.parent.name}/{folder.name}"
        override = _override(overrides, name, *(f.name for f in group))
        lic, version = _license_and_version(group[0], override)
        out.append(
            SourceInfo(
                kind="unimorph",
                name=name,
                version=version,
                license=lic,
                files=[{"name": f.name, "sha256": file_sha256(str(f))} for f in group],
            )
        )
    return out


def _is_conllu(path: Path) -> bool:
    return path.name.endswith((".conllu", ".conllu.gz", ".conll", ".conll.gz"))


def _load_frequencies(
    paths: Sequence[str | os.PathLike[str]], overrides: dict[str, str]
) -> tuple[Any, list[Any]]:
    """Merge every given frequency source into one list (counts summed; with no rank cut-off a
    word is *frequent* when any source has it) and describe each source."""
    from polyprobe.cards.folder import SourceInfo
    from polyprobe.loaders.frequency import FrequencyList, load_frequencies

    merged: Counter[str] = Counter()
    infos = []
    for raw in paths:
        path = Path(raw)
        flist = load_frequencies([path])
        merged.update(flist.counts)
        root = path if path.is_dir() else path.parent
        files = []
        for src in flist.sources:
            p = Path(src)
            rel = p.relative_to(root).as_posix() if path.is_dir() else p.name
            files.append({"name": rel, "sha256": flist.checksums[src]})
        lic, version = _license_and_version(path, _override(overrides, path.name))
        infos.append(
            SourceInfo(
                kind="frequency-ud" if path.is_dir() or _is_conllu(path) else "frequency-list",
                name=path.name,
                version=version,
                license=lic,
                files=files,
            )
        )
    return FrequencyList(dict(merged)), infos


# ---------------------------------------------------------------------------- pseudowords


@dataclass
class _Pseudo:
    """Filtered Wuggy rows and everything the card says about them."""

    rows: list[Any]
    source: Any
    facts: dict[str, Any]
    vocabulary: set[str]
    # Generated table read from the cache? Reported to the caller only: the folder must not
    # depend on the state of the cache.
    cached: bool = False


def _pseudowords(
    *,
    wuggy_lexicon: str | os.PathLike[str] | None,
    wuggy_output: str | os.PathLike[str] | None,
    forms: Sequence[str],
    frequency_vocab: set[str],
    max_seeds: int,
    seed: int,
    lang: str,
    overrides: dict[str, str],
    cache_dir: str | os.PathLike[str] | None,
) -> _Pseudo:
    from polyprobe.cards.folder import SourceInfo
    from polyprobe.loaders import wuggy

    vocab: set[str] = {key_of(f) for f in forms} | set(frequency_vocab)
    if wuggy_output is not None:
        path = Path(wuggy_output)
        table = wuggy.read_wuggy_output(path)
        lic, version = _license_and_version(path, _override(overrides, path.name))
        source = SourceInfo(
            kind="wuggy-output",
            name=path.name,
            version=version,
            license=lic,
            files=[{"name": path.name, "sha256": table.sha256}],
        )
        table_name = path.name
    else:
        assert wuggy_lexicon is not None
        lexicon = Path(wuggy_lexicon)
        cache = Path(cache_dir) if cache_dir is not None else wuggy.default_cache_dir()
        staged = wuggy.stage_lexicon(lexicon, cache)
        vocab.update(key_of(w) for w in staged.words)
        nucleus = wuggy.NUCLEUS_ALIASES.get(lang)
        table = wuggy.generate_pseudowords(
            lexicon, forms, max_seeds=max_seeds, seed=seed, nucleus=nucleus, cache_dir=cache
        )
        lic, version = _license_and_version(lexicon, _override(overrides, lexicon.name))
        table_name = "<cache>/wuggy/tables/" + Path(table.path).name
        source = SourceInfo(
            kind="wuggy-generated",
            name=Path(table.path).name,
            version=f"wuggy {table.params.get('wuggy', 'unknown')}",
            license=lic,
            files=[
                {"name": table_name, "sha256": table.sha256},
                {"name": lexicon.name, "sha256": staged.sha256},
            ],
        )
    # Every seed of the table is a real word too (German *platz* is another row's seed).
    vocab.update(key_of(r.seed) for r in table.rows)
    filtered = wuggy.filter_pseudowords(table.rows, [vocab])
    facts: dict[str, Any] = {
        "wuggy_table": table_name,
        "wuggy_table_sha256": table.sha256,
        "generated": table.generated,
        "table_rows": len(table.rows),
        "pseudowords_kept": len(filtered.kept),
        "pseudowords_removed": dict(sorted(filtered.removed.items())),
        "real_words_removed": filtered.real_words,
        "removed_examples": {k: v[:5] for k, v in sorted(filtered.examples.items())},
        "filter": "case-insensitive (NFC + case-fold) against the UniMorph forms, the frequency "
        "lists, the Wuggy lexicon (when generating) and every seed word of the table",
    }
    if table.generated:
        facts["generation"] = {
            k: v for k, v in table.params.items() if k not in ("lexicon_sha256", "seeds_sha256")
        }
        facts["generation_failures"] = dict(sorted(table.failures.items()))
    return _Pseudo(filtered.kept, source, facts, vocab, table.generated and table.cached)


# ------------------------------------------------------------------------------ components


class _UnionFind:
    """Tiny union-find over strings (a few thousand nodes: Python is fine and exact)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # smaller string becomes the root: the result does not depend on union order
            lo, hi = (ra, rb) if ra < rb else (rb, ra)
            self.parent[hi] = lo


def _component_names(
    words: Sequence[tuple[str, ...]], lemmas: Sequence[tuple[str, ...]] | None
) -> list[str]:
    """Per row, the name of its connected component over the words it touches (and, when
    ``lemmas`` is given, its lemmas): the smallest form key, or ``lemma:<smallest lemma>`` when
    lemmas link the component. Rows sharing a word (or lemma) get the same name."""
    uf = _UnionFind()
    for i, ws in enumerate(words):
        nodes = [f"f\x00{w}" for w in ws]
        if lemmas is not None:
            nodes += [f"l\x00{lemma}" for lemma in lemmas[i]]
        for node in nodes[1:]:
            uf.union(nodes[0], node)
        if nodes:
            uf.find(nodes[0])
    best_form: dict[str, str] = {}
    best_lemma: dict[str, str] = {}
    for node in sorted(uf.parent):
        kind, _, value = node.partition("\x00")
        target = best_form if kind == "f" else best_lemma
        target.setdefault(uf.find(node), value)
    out = []
    for ws in words:
        root = uf.find(f"f\x00{ws[0]}")
        out.append(f"lemma:{best_lemma[root]}" if root in best_lemma else best_form[root])
    return out


# ------------------------------------------------------------------------------ tasks


def _component_stats(groups: Sequence[str]) -> dict[str, Any]:
    sizes = sorted(Counter(groups).values(), reverse=True)
    return {
        "components": len(sizes),
        "largest": sizes[0] if sizes else 0,
        "largest_share": round(sizes[0] / len(groups), 4) if sizes else 0.0,
    }


def _label_order(task: str, labels: Iterable[str]) -> list[str]:
    """Declared label order: stable and readable (``None``/``lemma`` last, bins and counts
    numeric, pseudo ``0`` < ``1`` so that ids equal the names)."""
    present = set(labels)
    if task == "character_bin":
        return [b for b in CHARACTER_BINS if b in present]
    if task == "tag_count":
        return sorted(present, key=lambda x: (int(x), x))
    if task == "pseudo":
        return [x for x in (PSEUDO_LABEL, REAL_LABEL) if x in present]
    tail = [x for x in (NONE_LABEL, LEMMA_LABEL) if x in present]
    return sorted(present - set(tail)) + tail


def _single_result(task: str, entries: list[Any], opts: _Options, frequencies: Any) -> TaskResult:
    kwargs: dict[str, Any] = {
        "sizes": opts.size_params,
        "frequencies": frequencies,
        "seed": opts.seed,
    }
    if task == "pos":
        return pos_task(entries, **kwargs)
    if task == "tag_count":
        return tag_count(entries, **kwargs)
    if task == "character_bin":
        return character_bin_task(entries, **kwargs)
    return single_feature(entries, task, **kwargs)


def _pseudo_result(pseudo: _Pseudo | None, opts: _Options, reason: str | None) -> TaskResult:
    if pseudo is None:
        report = TaskReport("pseudo")
        report.ineligible(reason or "no Wuggy input (--wuggy-lexicon or --wuggy-output)")
        return TaskResult("pseudo", [], report)
    seeds = {key_of(r.seed) for r in pseudo.rows if not has_space(r.seed)}
    target_rows = opts.size_params.target(2 * len(seeds))
    n_pairs = target_rows // 2
    if len(seeds) < n_pairs or n_pairs < 1:
        report = TaskReport("pseudo")
        report.params = {**opts.size_params.as_dict(), "n_pairs": n_pairs, "seed": opts.seed}
        report.counts.update(seed_words=len(seeds), target_rows=target_rows)
        report.ineligible(
            f"{len(seeds)} seed words with a pseudoword < {n_pairs} pairs required "
            + ("(scale: 50% of 2 rows per seed, floor)" if opts.scale else "(min_forms / 2)")
        )
        return TaskResult("pseudo", [], report)
    result = pseudo_task(pseudo.rows, n_pairs=n_pairs, seed=opts.seed)
    result.report.params.update(opts.size_params.as_dict())
    result.report.counts["target_rows"] = target_rows
    facts = pseudo.facts
    result.report.counts["pseudowords"] = {
        "wuggy_table": facts["wuggy_table"],
        "wuggy_table_sha256": facts["wuggy_table_sha256"],
        "table_rows": facts["table_rows"],
        "kept": facts["pseudowords_kept"],
        "removed": facts["pseudowords_removed"],
        "real_words_removed": facts["real_words_removed"],
    }
    return result


def _pair_partition(
    entries: list[Any], unit: str, weights: tuple[int, int, int], seed: int
) -> dict[str, int]:
    """Form key -> split, moving whole units: single forms, or lemma families (lemmas linked by
    a shared form, with all their forms) for the lemma-disjoint variant."""
    keys = sorted({key_of(e.form) for e in entries})
    if unit == "form":
        names = keys
    else:
        lemmas_of: dict[str, list[str]] = {}
        for e in entries:
            ls = lemmas_of.setdefault(key_of(e.form), [])
            if e.lemma not in ls:
                ls.append(e.lemma)
        names = _component_names([(k,) for k in keys], [tuple(lemmas_of[k]) for k in keys])
    group = _hashes(names, "word-unit")
    # One order value per unit: the engine walks a component by the lowest order of its root
    # group, which (a group being the whole unit here) would favour big units if each form
    # had its own order, pulling large lemma families into train.
    order = _hashes(names, seed, "word-partition")
    split = split_components(group, np.zeros(len(keys), dtype=np.uint64), order, weights)
    return dict(zip(keys, split.tolist(), strict=True))


def _hashes(names: Sequence[str], *prefix: object) -> np.ndarray:
    """``stable_u64(*prefix, name)`` per name, each distinct name hashed once (lemma-family
    and component names repeat a lot; blake2b per row was a third of a big build)."""
    memo: dict[str, int] = {}
    out = np.empty(len(names), dtype=np.uint64)
    for i, name in enumerate(names):
        value = memo.get(name)
        if value is None:
            value = memo[name] = stable_u64(*prefix, name)
        out[i] = value
    return out


def _merge_reports(task: str, parts: dict[str, TaskReport]) -> TaskReport:
    merged = TaskReport(task)
    merged.eligible = any(r.eligible for r in parts.values())
    for split, r in parts.items():
        merged.reasons += [f"{split} part: {x}" for x in r.reasons]
        merged.notes += [f"{split} part: {x}" for x in r.notes]
        merged.drops.update(r.drops)
        merged.counts[split] = dict(r.counts)
        for label, n in r.label_counts.items():
            merged.label_counts[label] = merged.label_counts.get(label, 0) + n
    first = next(iter(parts.values()), None)
    if first is not None:
        merged.params = {k: v for k, v in first.params.items() if k != "n_pairs"}
        merged.params["n_pairs"] = {s: r.params.get("n_pairs") for s, r in parts.items()}
    merged.label_counts = dict(sorted(merged.label_counts.items()))
    if not merged.eligible and not merged.reasons:
        merged.reasons.append("no part of the lexicon yields pairs")
    return merged


def _pair_rows(
    task: str,
    entries: list[Any],
    unit: str,
    counts: tuple[int, int, int],
    opts: _Options,
    iso3: str,
    lang: str,
) -> tuple[_Rows, TaskReport, dict[str, Any]]:
    """Generate ``task``'s pairs inside each split's part of the lexicon (see the module
    docstring), so no pair straddles two splits."""
    fn: Callable[..., TaskResult] = same_feature if task == "same_feature" else odd_feature
    memo_key = (unit, counts, opts.seed, id(entries))
    if memo_key not in opts.partitions:
        where = _pair_partition(entries, unit, counts, opts.seed)
        parts: list[list[Any]] = [[], [], []]
        for e in entries:
            parts[where[key_of(e.form)]].append(e)
        opts.partitions[memo_key] = parts
    by_split = opts.partitions[memo_key]
    reports: dict[str, TaskReport] = {}
    cands: list[tuple[int, WordCandidate]] = []
    for s, name in enumerate(SPLITS):
        if counts[s] == 0 or not by_split[s]:
            continue
        res = fn(by_split[s], lang=iso3, sizes=opts.size_params, n_pairs=counts[s], seed=opts.seed)
        reports[name] = res.report
        cands += [(s, c) for c in res.candidates]
    report = _merge_reports(task, reports)
    facts = {
        "partition": unit,
        "partition_forms": {
            SPLITS[s]: len({key_of(e.form) for e in by_split[s]}) for s in range(3)
        },
        "pairs_wanted": dict(zip(SPLITS, counts, strict=True)),
    }
    rows = _rows_of(task, [c for _, c in cands], lang, unit == "lemma", pair=True)
    rows.source_split = [s for s, _ in cands]
    return rows, report, facts


def _rows_of(
    task: str,
    cands: Sequence[WordCandidate],
    lang: str,
    lemma_disjoint: bool,
    pair: bool,
    form_lemmas: dict[str, tuple[str, ...]] | None = None,
) -> _Rows:
    """Published columns for candidates. ``group`` is the row's component (rows sharing a word
    or, lemma-disjoint, a lemma share it), so ``validate`` checks the control as well."""
    words: list[tuple[str, ...]] = []
    lemmas: list[tuple[str, ...]] = []
    for c in cands:
        ws = tuple(c.keys) or (c.lexical_key,)
        if c.group and c.group not in ws and not pair:
            ws = (*ws, c.group)  # pseudo: a pseudoword is tied to its seed word
        words.append(ws)
        ls = tuple(c.lemmas)
        if form_lemmas is not None:  # pseudo: the seed word's lemmas, when in the lexicon
            ls = tuple(dict.fromkeys(lm for w in ws for lm in form_lemmas.get(w, ())))
        lemmas.append(ls)
    groups = _component_names(words, lemmas if lemma_disjoint else None)
    if pair:
        inputs = {
            "word1": [c.word[0] for c in cands],  # type: ignore[index]
            "word2": [c.word[1] for c in cands],  # type: ignore[index]
        }
        ids = [f"{lang}/{task}/{ws[0]}|{ws[1]}" for ws in words]
    else:
        inputs = {"word": [str(c.word) for c in cands]}
        ids = [f"{lang}/{task}/{c.lexical_key}" for c in cands]
        if task == "pseudo":
            ids = [
                f"{lang}/{task}/{c.group}/{'real' if c.label == REAL_LABEL else 'pseudo'}"
                for c in cands
            ]
    return _Rows(
        ids=ids,
        inputs=inputs,
        labels=[c.label for c in cands],
        groups=groups,
        keys=[c.lexical_key for c in cands],
        lemmas=lemmas,
        words=words,
        units=[c.group for c in cands],
    )


def _columns(rows: _Rows, label_names: list[str], seed: int) -> CandidateColumns:
    index = {name: i for i, name in enumerate(label_names)}
    n = len(rows.ids)
    split = rows.source_split if rows.source_split is not None else [-1] * n
    return CandidateColumns(
        label=np.asarray([index[x] for x in rows.labels], dtype=np.int16),
        # group = the row's own unit (a form, a seed word with its pseudoword, a pair) and
        # key = its component, so the engine's components are exactly ours while each
        # component is walked by one small group's order (no pull of big components to train).
        group=_hashes(rows.units, "unit"),
        key=_hashes(rows.groups, "component"),
        source_split=np.asarray(split, dtype=np.int8),
        order=np.asarray([stable_u64(seed, i) for i in rows.ids], dtype=np.uint64),
    )


def _table(
    rows: _Rows, indices: np.ndarray, tv: TaskVariants, level: str, label_index: np.ndarray
) -> pa.Table:
    schema = arrow_schema(level, tv.label_names)
    idx = np.asarray(indices, dtype=np.int64)
    labels = tv.label_remap[label_index[idx]].astype(np.int64)
    if labels.size and labels.min() < 0:
        raise AssertionError("variant engine returned a candidate of a dropped class")
    pick = idx.tolist()
    arrays: dict[str, Any] = {
        "id": pa.array([rows.ids[i] for i in pick], type=pa.string()),
        "label": pa.array(labels, type=pa.int64()),
        "group": pa.array([rows.groups[i] for i in pick], type=pa.string()),
        "lexical_key": pa.array([rows.keys[i] for i in pick], type=pa.string()),
    }
    for col, values in rows.inputs.items():
        arrays[col] = pa.array([values[i] for i in pick], type=pa.string())
    return pa.Table.from_arrays([arrays[f.name] for f in schema], schema=schema)


def _seen_share(rows: _Rows, variant: Variant) -> dict[str, Any]:
    """Share of the test split's words (form keys) and lemmas that also occur in train: the
    leakage LINSPECTOR's pair data had (80–94% of SameFeat test words)."""

    def collect(split: str, attr: str) -> set[str]:
        values: set[str] = set()
        for i in variant.indices[split].tolist():
            values.update(getattr(rows, attr)[i])
        return values

    out: dict[str, Any] = {}
    for attr, what in (("words", "forms"), ("lemmas", "lemmas")):
        train, test = collect("train", attr), collect("test", attr)
        out[f"test_{what}"] = len(test)
        out[f"test_{what}_seen_in_train"] = len(test & train)
        out[f"test_{what}_seen_in_train_share"] = (
            round(len(test & train) / len(test), 4) if test else 0.0
        )
    return out


# ------------------------------------------------------------------------------ the build


@dataclass
class _TaskBuild:
    """One task's candidate sets per disjointness mode, ready for the engine."""

    name: str
    level: str
    report: TaskReport
    sets: dict[str, tuple[_Rows, SplitSpec, dict[str, Any]]]  # "form" / "lemma"
    label_names: list[str]


def build_unimorph(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lang: str,
    out: str | os.PathLike[str],
    layout: str | None = None,
    frequencies: Sequence[str | os.PathLike[str]] | None = None,
    wuggy_lexicon: str | os.PathLike[str] | None = None,
    wuggy_output: str | os.PathLike[str] | None = None,
    wuggy_max_seeds: int = 10_000,
    min_forms: int | None = None,
    split_sizes: Sequence[int] = DEFAULT_SPLIT_SIZES,
    scale: bool = False,
    sizes: str | Sequence[SizeSpec] | None = None,
    min_per_class: tuple[int, int, int] | MinPerClass = (50, 20, 20),
    seed: int = 0,
    overwrite: bool = False,
    tasks: Sequence[str] | None = None,
    balances: Sequence[str] = ("natural", "balanced"),
    license_overrides: dict[str, str] | None = None,
    allow_license_mix: bool = False,
    wuggy_cache: str | os.PathLike[str] | None = None,
    log: Callable[[str], None] | None = None,
) -> WordBuildResult:
    """Build the word-level suite for one language from a UniMorph lexicon. Mirrors
    ``polyprobe build unimorph``.

    ``min_forms``: LINSPECTOR's eligibility threshold and task size (default 10,000); with
    ``scale=True`` the size is 50% of the forms carrying the feature and ``min_forms`` is its
    floor (default 1,000). ``split_sizes``: train/validation/test rows (LINSPECTOR 7000/2000/
    1000); with ``scale`` they are the proportions of the derived size. Files in ``paths`` form
    one lexicon; ``frequencies`` are UD treebank folders, CoNLL-U files or word lists.
    ``wuggy_output`` reads a Wuggy table, ``wuggy_lexicon`` generates one offline (cached in
    ``wuggy_cache``). Raises :class:`UsageError` for bad options, ``InputError`` for bad
    input, :class:`InfeasibleError` when no task can be built."""
    from polyprobe.cards.folder import ConfigPayload, DatasetFolderWriter, DatasetMeta
    from polyprobe.loaders.unimorph import UniMorphReader

    say = log or (lambda _msg: None)
    opts = _check_options(
        tasks,
        sizes,
        min_per_class,
        balances,
        split_sizes,
        min_forms,
        scale,
        seed,
        wuggy_lexicon,
        wuggy_output,
        wuggy_max_seeds,
    )
    language = resolve_language(lang)
    code, iso3 = language.code, language.iso639_3
    overrides = dict(license_overrides or {})

    say("reading the lexicon")
    reader = UniMorphReader([Path(p) for p in paths], layout=layout, lang=iso3)
    entries = list(reader)
    if not entries:
        raise InfeasibleError("the UniMorph files hold no entries")
    lex_sources = _lexicon_sources(reader.paths, overrides)
    stats = reader.stats
    unknown_total = sum(stats.unknown_tags.values())
    lexicon_facts: dict[str, Any] = {
        "files": {Path(p).name: layout_ for p, layout_ in stats.files.items()},
        "lines": sum(stats.lines.values()),
        "blank_lines": stats.blank_lines,
        "entries": stats.entries,
        "duplicate_entries": stats.duplicates,
        "layered_entries": stats.layered,
        "forms": len({key_of(e.form) for e in entries}),
        "lemmas": len({e.lemma for e in entries}),
        "forms_with_space": sum(1 for e in entries if has_space(e.form)),
        "unknown_tags_total": unknown_total,
        "unknown_tags": dict(
            sorted(stats.unknown_tags.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
        ),
    }
    layer_dims = sorted({d for e in entries for d in e.features if _is_layer_task(d)})
    lexicon_facts["optional_layer_tasks"] = {
        d: sum(1 for e in entries if d in e.features) for d in layer_dims
    }

    freq = None
    freq_sources: list[Any] = []
    if frequencies:
        say("reading frequency lists")
        freq, freq_sources = _load_frequencies(list(frequencies), overrides)
        lexicon_facts["frequency_words"] = len(freq)

    pseudo: _Pseudo | None = None
    pseudo_reason = None
    if "pseudo" in opts.tasks:
        if wuggy_output is None and wuggy_lexicon is None:
            pseudo_reason = "no Wuggy input: pass --wuggy-output FILE or --wuggy-lexicon FILE"
        else:
            say("pseudowords")
            pseudo = _pseudowords(
                wuggy_lexicon=wuggy_lexicon,
                wuggy_output=wuggy_output,
                forms=sorted({e.form for e in entries}),
                frequency_vocab=freq.vocabulary() if freq is not None else set(),
                max_seeds=wuggy_max_seeds,
                seed=seed,
                lang=code,
                overrides=overrides,
                cache_dir=wuggy_cache,
            )

    form_lemmas: dict[str, tuple[str, ...]] = {}
    for e in entries:
        k = key_of(e.form)
        if e.lemma not in form_lemmas.get(k, ()):
            form_lemmas[k] = (*form_lemmas.get(k, ()), e.lemma)
    n_forms_pairs = len({key_of(e.form) for e in entries if not has_space(e.form)})

    builds: list[_TaskBuild] = []
    for task in opts.tasks:
        say(f"task {task}")
        builds.append(
            _task_build(
                task,
                entries,
                opts,
                freq,
                pseudo,
                pseudo_reason,
                form_lemmas,
                n_forms_pairs,
                iso3,
                code,
            )
        )

    sources = [*lex_sources, *([pseudo.source] if pseudo is not None else [])]
    card_license, mixed = resolve_card_license(
        {s.name: s.license for s in sources}, allow_mix=allow_license_mix
    )
    all_sources = [*sources, *freq_sources]
    parameters: dict[str, Any] = {
        "lang": code,
        "tasks": opts.tasks,
        "layout": layout or "detected per file",
        "min_forms": opts.size_params.min_forms,
        "scale": opts.scale,
        "scale_share": SCALE_SHARE if opts.scale else None,
        "scale_floor": opts.size_params.scale_floor if opts.scale else None,
        "split_sizes": list(opts.split_sizes),
        "split_sizes_meaning": (
            "proportions of each task's derived size (--scale)"
            if opts.scale
            else "train/validation/test rows"
        ),
        "none_share": NONE_SHARE,
        "frequent_share": FREQUENT_SHARE if freq is not None else None,
        "frequencies": [s.name for s in freq_sources],
        "wuggy": pseudo.facts["wuggy_table"] if pseudo is not None else None,
        "wuggy_max_seeds": wuggy_max_seeds if wuggy_lexicon is not None else None,
        "sizes": [s.label for s in opts.sizes],
        "balances": list(opts.balances),
        "min_per_class": {
            "train": opts.floors.train,
            "validation": opts.floors.validation,
            "test": opts.floors.test,
        },
        "seed": seed,
        "allow_license_mix": allow_license_mix,
    }
    profile: dict[str, Any] = {"lexicon": lexicon_facts}
    if pseudo is not None:
        profile["pseudowords"] = pseudo.facts
    fingerprint = _fingerprint(all_sources, builds, parameters, profile)

    say("writing")
    summaries: list[TaskSummary] = []
    feasibility: dict[str, Any] = {}
    default_given = False
    writer = DatasetFolderWriter(Path(out), overwrite=overwrite)
    with writer:
        for b in builds:
            summary = TaskSummary(
                task=b.name,
                candidates=len(b.sets["form"][0].ids) if "form" in b.sets else 0,
                class_counts=dict(b.report.label_counts),
            )
            entry: dict[str, Any] = {
                "eligible": b.report.eligible,
                "reasons": list(b.report.reasons),
                "notes": list(b.report.notes),
                "params": b.report.params,
                "counts": b.report.counts,
                "task_drops": dict(sorted(b.report.drops.items())),
                "class_counts": dict(b.report.label_counts),
                "variants": {},
            }
            if not b.sets:
                summary.infeasible = "; ".join(b.report.reasons) or "no candidates"
            for unit, (rows, spec, facts) in b.sets.items():
                cols = _columns(rows, b.label_names, seed)
                settings = VariantSettings(
                    split=spec, sizes=opts.sizes, balances=opts.balances, min_per_class=opts.floors
                )
                tv = make_variants(cols, b.label_names, settings)
                ventry: dict[str, Any] = {
                    "candidates": len(rows.ids),
                    "split": spec.label if spec.mode == "sizes" else facts.get("split_label"),
                    "engine_notes": list(tv.notes),
                    "engine_drops": dict(sorted(tv.drops.items())),
                    "dropped_classes": dict(tv.dropped_classes),
                    "not_built": list(tv.not_built),
                    "infeasible": tv.infeasible,
                    "built": [],
                    **{k: v for k, v in facts.items() if k != "split_label"},
                }
                entry["variants"][unit] = ventry
                summary.not_built += [f"{unit}: {x}" for x in tv.not_built]
                if tv.infeasible is not None:
                    if unit == "form":
                        summary.infeasible = tv.infeasible
                    continue
                label_index = cols.label
                for cfg_name, variant in _config_entries(b.name, unit, tv):
                    splits = {
                        sp: _table(rows, variant.indices[sp], tv, b.level, label_index)
                        for sp in SPLITS
                    }
                    leak = _seen_share(rows, variant)
                    is_default = not default_given
                    default_given = True
                    split_label = ventry["split"]
                    writer.add_config(
                        ConfigPayload(
                            name=cfg_name,
                            task=b.name,
                            level=b.level,
                            description=_description(b.name),
                            label_names=list(tv.label_names),
                            polyprobe={
                                "task": b.name,
                                "task_type": "probing",
                                "level": b.level,
                                "labels": list(tv.label_names),
                                "recipe_version": RECIPE_VERSION,
                                "variant": {
                                    "balance": variant.balance,
                                    "size": variant.size,
                                    "split": split_label,
                                    "disjoint": LEMMA_DISJOINT if unit == "lemma" else "form",
                                },
                                "seed": seed,
                                "lexical_control": True,
                                "seed_dependent": True,
                            },
                            recipe=_recipe(b, unit, facts, spec, opts, leak),
                            splits=splits,
                            dropped=drop_counts(b.report.drops, tv),
                            dropped_classes=dict(tv.dropped_classes),
                            notes=_notes(b, unit, tv, leak, opts, unknown_total),
                            citation=LINSPECTOR_CITATION,
                            default=is_default,
                        )
                    )
                    ventry["built"].append(cfg_name)
                    ventry.setdefault("leakage", {})[cfg_name] = leak
                    summary.configs.append(cfg_name)
                    if cfg_name == b.name:
                        summary.rows = {sp: t.num_rows for sp, t in splits.items()}
                    del splits
            if b.sets and not summary.configs and summary.infeasible is None:
                summary.infeasible = "; ".join(
                    f"{u}: {v['infeasible']}" for u, v in entry["variants"].items()
                )
            entry["built"] = list(summary.configs)
            entry["not_built"] = list(summary.not_built)
            entry["infeasible"] = summary.infeasible
            feasibility[b.name] = entry
            summaries.append(summary)
        if not any(s.configs for s in summaries):
            raise InfeasibleError(
                "no word task could be built: "
                + "; ".join(f"{s.task}: {s.infeasible}" for s in summaries)
            )
        meta = DatasetMeta(
            pretty_name=f"polyprobe word-level probing suite ({language.name})",
            languages=[code],
            license=card_license,
            sources=all_sources,
            polyprobe_version=polyprobe.__version__,
            fingerprint=fingerprint,
            parameters=parameters,
            feasibility=feasibility,
            profile=profile,
            license_mix_allowed=allow_license_mix and mixed,
            source_datasets=[f"unimorph/{s.name}" for s in lex_sources],
            tags=["probing", "polyprobe", "linspector", "morphology", "word-level"],
            summary=(
                f"Type-level word probing tasks for {language.name} (the suite of LINSPECTOR, "
                f"Şahin et al. 2020) built by polyprobe {polyprobe.__version__} from UniMorph "
                f"({', '.join(s.name for s in lex_sources)}). Word forms never occur in two "
                "splits of a config; `-lemma-disjoint` configs keep every lemma in one split. "
                "Tasks that could not be built are listed with the reason in `report.json`."
            ),
        )
        final = writer.finish(meta)
    return WordBuildResult(
        out=final,
        fingerprint=fingerprint,
        tasks=summaries,
        lexicon=lexicon_facts,
        feasibility=feasibility,
        split=(
            f"sizes {'/'.join(map(str, opts.split_sizes))}"
            + (" (proportions; sizes derived per task with --scale)" if opts.scale else "")
        ),
        wuggy_cached=pseudo.cached if pseudo is not None else False,
    )


def _task_build(
    task: str,
    entries: list[Any],
    opts: _Options,
    freq: Any,
    pseudo: _Pseudo | None,
    pseudo_reason: str | None,
    form_lemmas: dict[str, tuple[str, ...]],
    n_forms_pairs: int,
    iso3: str,
    code: str,
) -> _TaskBuild:
    """Candidates of one task in its two disjointness modes (``form``, ``lemma``)."""
    sets: dict[str, tuple[_Rows, SplitSpec, dict[str, Any]]] = {}
    if task in PAIR_TASKS:
        return _pair_build(task, entries, opts, n_forms_pairs, iso3, code)

    if task == "pseudo":
        result = _pseudo_result(pseudo, opts, pseudo_reason)
    else:
        result = _single_result(task, entries, opts, freq)
    report = result.report
    if not result.candidates:
        return _TaskBuild(task, "word", report, {}, [])
    total = len(result.candidates)
    counts = scaled_split_sizes(total, opts.split_sizes) if opts.scale else opts.split_sizes
    spec = SplitSpec(
        "sizes",
        counts=counts,
        reason=(
            f"{'/'.join(map(str, counts))} rows "
            + (
                "(the task's size in the proportions of --split-sizes, --scale)"
                if opts.scale
                else "(--split-sizes)"
            )
        ),
    )
    labels = _label_order(task, {c.label for c in result.candidates})
    for unit in ("form", "lemma"):
        rows = _rows_of(
            task,
            result.candidates,
            code,
            unit == "lemma",
            pair=False,
            form_lemmas=form_lemmas if task == "pseudo" else None,
        )
        sets[unit] = (rows, spec, {})
    return _TaskBuild(task, "word", report, sets, labels)


def _pair_build(
    task: str, entries: list[Any], opts: _Options, n_forms_pairs: int, iso3: str, code: str
) -> _TaskBuild:
    """The two candidate sets of a pair task.

    Form-disjoint ``same_feature``: its pairs join *different* lemmas through shared values, so
    the pair graph percolates (61% of German pairs in one component, all verbs): moving
    components whole would fill train with one region of the lexicon and skew every split's
    labels. Its pairs are therefore generated inside each split's part of a seeded *form*
    partition. Form-disjoint ``odd_feature``: its pairs stay inside one lemma's paradigm (or
    join lemmas with one identical bundle), so components stay small (German: at most 5
    pairs) while a form partition would tear paradigms apart; it is generated over the whole
    lexicon (LINSPECTOR's way) and split by component. Lemma-disjoint (both tasks): generated
    inside a seeded partition of lemma families (the lemma graph is one component)."""
    total = opts.size_params.target(n_forms_pairs)
    counts = scaled_split_sizes(total, opts.split_sizes) if opts.scale else opts.split_sizes
    shares = "/".join(map(str, counts))
    sets: dict[str, tuple[_Rows, SplitSpec, dict[str, Any]]] = {}
    reports: dict[str, TaskReport] = {}
    for unit in ("form", "lemma"):
        if unit == "form" and task == "odd_feature":
            result = odd_feature(
                entries, lang=iso3, sizes=opts.size_params, n_pairs=total, seed=opts.seed
            )
            reports[unit] = result.report
            if not result.candidates:
                continue
            rows = _rows_of(task, result.candidates, code, lemma_disjoint=False, pair=True)
            spec = SplitSpec(
                "sizes",
                counts=counts,
                reason=f"{shares} pairs; pairs sharing a word form one component and go to "
                "one split whole",
            )
            sets[unit] = (rows, spec, {"component_sizes": _component_stats(rows.groups)})
            continue
        rows, report, facts = _pair_rows(task, entries, unit, counts, opts, iso3, code)
        reports[unit] = report
        if not rows.ids:
            continue
        facts["split_label"] = f"sizes:{shares}"
        facts["component_sizes"] = _component_stats(rows.groups)
        family = "form" if unit == "form" else "lemma-family"
        spec = SplitSpec(
            "ud",
            reason=f"pairs generated inside each split's part of a seeded {family} partition of "
            f"the lexicon (shares {shares}), so that no pair straddles two splits",
        )
        sets[unit] = (rows, spec, facts)
    report = reports["form"]
    lemma_report = reports["lemma"]
    report.counts["target_pairs"] = total
    report.counts["lemma_disjoint"] = {
        "eligible": lemma_report.eligible,
        "reasons": lemma_report.reasons,
        "label_counts": lemma_report.label_counts,
        "drops": dict(sorted(lemma_report.drops.items())),
        "notes": lemma_report.notes,
    }
    if not report.eligible and lemma_report.eligible:
        report.eligible = True
    labels = {*report.label_counts, *lemma_report.label_counts}
    return _TaskBuild(task, "word-pair", report, sets, _label_order(task, labels))


def _config_entries(task: str, unit: str, tv: TaskVariants) -> list[tuple[str, Variant]]:
    """``<task>`` = balanced-full (else natural-full) of the form-disjoint set; the rest are
    ``<task>.<balance>-<size>`` and ``<task>.<balance>-<size>-lemma-disjoint``."""
    if unit == "lemma":
        return [(f"{task}.{v.balance}-{v.size}-{LEMMA_DISJOINT}", v) for v in tv.variants]
    recommended = tv.get("balanced", "full") or tv.get("natural", "full")
    out: list[tuple[str, Variant]] = []
    if recommended is not None:
        out.append((task, recommended))
    out += [(f"{task}.{v.balance}-{v.size}", v) for v in tv.variants if v is not recommended]
    return out


def _description(task: str) -> str:
    if task in _DESCRIPTIONS:
        return _DESCRIPTIONS[task]
    dim = FEATURE_TASKS.get(task, task)
    if task.startswith(LAYER_TASK_PREFIX):
        what = f"person and number of the {task[len(LAYER_TASK_PREFIX) :].upper()} argument"
    else:
        what = dim
    return (
        f"{what} of a word form (UniMorph schema value names, as LINSPECTOR released them), "
        "or `None` for forms that never carry it."
    )


def _recipe(
    b: _TaskBuild,
    unit: str,
    facts: dict[str, Any],
    spec: SplitSpec,
    opts: _Options,
    leak: dict[str, Any],
) -> dict[str, Any]:
    r = b.report
    source = (
        "Wuggy table: real words are its seed words, pseudowords its matches"
        if b.name == "pseudo"
        else "UniMorph lexicon"
    )
    out: dict[str, Any] = {"source": source, "recipe": "LINSPECTOR (Şahin et al. 2020)"}
    out.update(r.params)
    counts = {k: v for k, v in r.counts.items() if k != "lemma_disjoint" and k not in SPLITS}
    out.update({f"count {k}": v for k, v in counts.items()})
    if b.level == "word-pair":
        for s in SPLITS:
            if s in r.counts:
                part = r.counts[s]
                out[f"{s} part"] = {
                    k: v for k, v in part.items() if k in ("forms", "lemmas", "pairs_found")
                }
    out["split_sizes_requested"] = list(opts.split_sizes)
    if spec.mode == "sizes":
        out["split_sizes"] = list(spec.counts or ())
    out.update({k: v for k, v in facts.items() if k != "split_label"})
    out["disjoint"] = LEMMA_DISJOINT if unit == "lemma" else "form"
    if b.level == "word-pair":
        out.update(leak)
    return out


def _notes(
    b: _TaskBuild,
    unit: str,
    tv: TaskVariants,
    leak: dict[str, Any],
    opts: _Options,
    unknown_total: int,
) -> list[str]:
    rows, spec, facts = b.sets[unit]
    notes: list[str] = []
    if opts.scale:
        notes.append(
            "--scale: the task size is 50% of the forms carrying the feature "
            f"(floor {opts.size_params.scale_floor}) and the split sizes are that size in the "
            f"proportions {'/'.join(map(str, opts.split_sizes))}; LINSPECTOR used a fixed "
            "10,000 with 7000/2000/1000"
        )
    notes += list(b.report.notes)
    if b.level == "word-pair" and unit == "lemma":
        notes += [
            f"lemma-disjoint set: {n}"
            for n in b.report.counts.get("lemma_disjoint", {}).get("notes", [])
        ]
    notes.append(f"split: {spec.reason}")
    notes += list(tv.notes)
    notes.append(
        "every word form is in one split only"
        + ("; every lemma is in one split only" if unit == "lemma" else "")
    )
    if b.level == "word-pair":
        notes.append(
            f"test words seen in train: {leak['test_forms_seen_in_train']} of "
            f"{leak['test_forms']} forms ({100 * leak['test_forms_seen_in_train_share']:.1f}%), "
            f"{leak['test_lemmas_seen_in_train']} of {leak['test_lemmas']} lemmas "
            f"({100 * leak['test_lemmas_seen_in_train_share']:.1f}%); LINSPECTOR's SameFeat: "
            "80-94% of test words"
        )
    if unknown_total:
        notes.append(
            f"{unknown_total} lexicon entries carry tags outside the schema (LGSPEC* included); "
            "they are kept, and counted in the card's profile"
        )
    return notes


def _fingerprint(
    sources: Sequence[Any],
    builds: Sequence[_TaskBuild],
    parameters: dict[str, Any],
    profile: dict[str, Any],
) -> str:
    payload = {
        "polyprobe": polyprobe.__version__,
        "inputs": [
            {"kind": s.kind, "source": s.name, "files": s.files, "license": s.license}
            for s in sources
        ],
        "tasks": [
            {"name": b.name, "recipe_version": RECIPE_VERSION, "parameters": b.report.params}
            for b in builds
        ],
        "parameters": parameters,
        "profile": profile,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return digest(blob, size=16).hex()
