"""Wuggy pseudowords: read real Wuggy output tables, or generate new ones offline.

Reading: a Wuggy output table is tab-separated with a header whose first two columns are
``Word`` (the real seed word) and ``Match`` (the pseudoword); LINSPECTOR's tables add
``Lexicality Old20 ...`` and some have only ``Word Match``.

Generating: the ``wuggy`` package (PyPI ``wuggy``) downloads its official language plugins from
GitHub at run time. polyprobe never lets it: :class:`StagedLexiconPlugin` is our own subclass
of Wuggy's ``BaseLanguagePlugin`` that serves *any* syllabified lexicon
(``word TAB syl-la-bles TAB freq``) with a per-language nucleus definition, and every call into
Wuggy runs with its ``urlopen`` replaced by a function that raises.

Pitfall handled here: Wuggy locates lexicon files relative to the folder of the *plugin class's
source file* (``inspect.getfile(plugin.__class__)``), so an absolute lexicon path cannot be
passed through. We stage a validated copy of the lexicon in the cache (content-addressed) and
give the plugin class a module whose ``__file__`` lies in that folder.

Reproducibility: Wuggy's output depends on a wall-clock search limit (5 s per word in
LINSPECTOR's recipe), so a rerun is not guaranteed to give the same table. Generated tables are
cached by (lexicon checksum, parameters, seed) and returned with their path and checksum; the
build records the cached table as an input, and that table - not a rerun - is what makes a
build reproducible.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import random
import re
import sys
import types
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from polyprobe import progress
from polyprobe.errors import InputError, UsageError
from polyprobe.hashing import choice_index, file_sha256, lexical_key, stable_rng, stable_u64
from polyprobe.loaders.inputs import (
    BadLine,
    bad_encoding,
    check_file,
    no_entries,
    numbered_lines,
    refused_since,
)
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.loaders.sources import treebank_metadata
from polyprobe.metadata import SourceInfo

RECIPE_VERSION = "1"
LEXICON_FILE = "lexicon.txt"
OUTPUT_COLUMNS = ("Word", "Match", "Lexicality", "Old20", "Ned1")

# LINSPECTOR's generation settings (Şahin et al. 2020, section on the Pseudo task).
LINSPECTOR_SETTINGS: dict[str, Any] = {
    "ncandidates": 5,
    "max_time": 5.0,
    "overlap": "2/3",
    "match_segment_length": True,
    "match_letter_length": True,
    "concentric": True,
}
DEFAULT_MAX_SEEDS = 10_000


# --------------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class PseudowordRow:
    """One Wuggy match: the real ``seed`` word, the ``pseudoword``, Wuggy's own lexicality
    verdict (``N``/``W``, None when the table has no such column) and the source line."""

    seed: str
    pseudoword: str
    lexicality: str | None
    line: int


@dataclass
class WuggyTable:
    """A pseudoword table and its provenance (``path`` and ``sha256`` are a build input)."""

    rows: list[PseudowordRow]
    path: str
    sha256: str
    columns: tuple[str, ...]
    generated: bool = False
    cached: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)
    seeds: int = 0


#: Reason keys :func:`read_wuggy_output` counts under ``--on-invalid skip`` (a bad header
#: or an empty file is a whole-file problem and always raises).
REASONS: dict[str, str] = {
    "bad-column-count": "a row has not as many tab-separated columns as the header",
    "empty-field": "the Word or Match column of a row is empty",
    "bad-encoding": "a line is not valid UTF-8",
    "control-character": "a line holds a C0 control character other than tab (NUL, ESC, ...)",
}


def read_wuggy_output(path: str | Path, policy: InvalidPolicy | None = None) -> WuggyTable:
    """Read a Wuggy output table (header ``Word Match ...``). A malformed row is handed to
    ``policy`` (default: raise an InputError naming the line); blank lines are skipped."""
    path = Path(path)
    own = policy if policy is not None else InvalidPolicy("raise")
    reject = own.reject
    before = sum(own.skipped.values())
    rows: list[PseudowordRow] = []
    columns: tuple[str, ...] = ()
    lex_col: int | None = None
    for number, line in numbered_lines(path):
        if isinstance(line, BadLine):
            if not columns:  # without its header no row can be read: never skipped
                problem = bad_encoding(path, number, line).problem
                raise InputError(path, number, f"header: {problem}", "bad-header")
            reject(bad_encoding(path, number, line))
            continue
        if not line.strip():
            continue
        cols = line.split("\t")
        if not columns:
            columns = tuple(c.strip() for c in cols)
            if len(columns) < 2 or columns[0].lower() != "word" or columns[1].lower() != "match":
                raise InputError(
                    path,
                    number,
                    f"not a Wuggy output table: header must start 'Word<TAB>Match', found {line[:60]!r}",
                    "bad-header",
                )
            lowered = [c.lower() for c in columns]
            lex_col = lowered.index("lexicality") if "lexicality" in lowered else None
            continue
        if len(cols) != len(columns):
            reject(
                InputError(
                    path,
                    number,
                    f"expected {len(columns)} tab-separated columns like the header, found {len(cols)}",
                    "bad-column-count",
                )
            )
            continue
        seed, match = cols[0].strip(), cols[1].strip()
        if not seed or not match:
            reject(InputError(path, number, "empty Word or Match", "empty-field"))
            continue
        lex = cols[lex_col].strip() if lex_col is not None else None
        rows.append(PseudowordRow(seed, match, lex or None, number))
    if not columns:
        raise InputError(path, None, "empty file: no Wuggy header", "empty")
    if not rows:
        raise no_entries(path, "only a header, no entries", refused_since(own, before))
    return WuggyTable(rows, str(path), file_sha256(str(path)), columns)


@dataclass
class WuggyOutputSource:
    """A Wuggy output table given as an input (``--wuggy-output``), as a build source.

    Why a source and not just a table: the table is an input of the build like a lexicon, so
    the card lists it with its licence, version and checksum, and its rows are read under
    the build's ``--on-invalid`` policy like every other input's."""

    path: Path
    license: str = "unknown"
    version: str = "unknown"
    sha256: str = ""

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if not self.sha256:
            check_file(self.path, "Wuggy output table")
            self.sha256 = file_sha256(str(self.path))

    @classmethod
    def from_path(
        cls,
        path: str | Path,
        *,
        license_override: str | None = None,
        source_version: str | None = None,
    ) -> WuggyOutputSource:
        """Licence and version from the table's folder, as for a treebank folder."""
        lic, version = treebank_metadata(
            path, license_override=license_override, source_version=source_version
        )
        return cls(Path(path), lic, version)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            kind="wuggy-output",
            name=self.path.name,
            version=self.version,
            license=self.license,
            files=[{"name": self.path.name, "sha256": self.sha256}],
        )

    def table(self, policy: InvalidPolicy) -> WuggyTable:
        """The whole table (rows, columns, checksum as read)."""
        return read_wuggy_output(self.path, policy)

    def records(self, policy: InvalidPolicy) -> Iterator[PseudowordRow]:
        return iter(self.table(policy).rows)


@dataclass
class FilterResult:
    """Pseudowords that survived, and how many were removed, by reason."""

    kept: list[PseudowordRow]
    removed: Counter[str]
    examples: dict[str, list[str]]

    @property
    def removed_count(self) -> int:
        return sum(self.removed.values())

    @property
    def real_words(self) -> int:
        """Pseudowords that are in fact real words (what the card reports): found in a
        vocabulary, marked ``W`` by Wuggy, or equal to their own seed (German *Platz* ->
        *platz*)."""
        return (
            self.removed["real-word"]
            + self.removed["wuggy-lexicality-W"]
            + self.removed["same-as-seed"]
        )


def filter_pseudowords(
    rows: Iterable[PseudowordRow], vocabularies: Iterable[Iterable[str]] = ()
) -> FilterResult:
    """Drop pseudowords that are real words, case-insensitively (NFC + case-fold).

    Real Wuggy outputs contain real words (German *platz*, English *based*, Spanish *sido*)
    because Wuggy's own lexicality check only knows its lexicon; every vocabulary given here
    (the Wuggy lexicon, the UniMorph forms, frequency lists) is checked. Also dropped: rows
    Wuggy itself marked as words (``W``), pseudowords equal to their seed, and repeats of a
    pseudoword already kept (one pseudoword, one group)."""
    vocab: set[str] = set()
    for words in vocabularies:
        vocab.update(lexical_key(w) for w in words)
    kept: list[PseudowordRow] = []
    removed: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    seen: set[str] = set()

    def drop(reason: str, word: str) -> None:
        removed[reason] += 1
        bucket = examples.setdefault(reason, [])
        if len(bucket) < 10:
            bucket.append(word)

    for row in rows:
        key = lexical_key(row.pseudoword)
        if row.lexicality is not None and row.lexicality.upper() == "W":
            drop("wuggy-lexicality-W", row.pseudoword)
        elif key == lexical_key(row.seed):
            drop("same-as-seed", row.pseudoword)
        elif key in vocab:
            drop("real-word", row.pseudoword)
        elif key in seen:
            drop("duplicate", row.pseudoword)
        else:
            seen.add(key)
            kept.append(row)
    return FilterResult(kept, removed, examples)


# ------------------------------------------------------------------------------ the plugin

_BASE_VOWELS = "aeiou"
_EXTRA_VOWELS = "æøœıəаеёиоуыэюяіїєαεηιουωάέήίόύώ"


@dataclass(frozen=True)
class Nucleus:
    """Which letters form a syllable nucleus. A nucleus is a run of vowel letters; ``y`` (when
    ``y_vowel``) is a nucleus only when no vowel follows it, so English *yes* has onset *y* and
    *by* has nucleus *y* - the rule of Wuggy's official English plugin, generalised."""

    vowels: str
    y_vowel: bool = True

    def pattern(self) -> re.Pattern[str]:
        letters = "".join(sorted(set(self.vowels) - {"y"}))
        cls = "[" + re.escape(letters) + "]"
        nucleus = f"{cls}+"
        if self.y_vowel:
            nucleus = f"{nucleus}|y(?!{cls})"
        return re.compile(f"(.*?)({nucleus})(.*)")


NUCLEI: dict[str, Nucleus] = {
    "english": Nucleus("aeiouàâäéèêëïîôöùûü"),
    "spanish": Nucleus("aeiouáéíóúü"),
    "german": Nucleus("aeiouäöüáéíóú"),
    "turkish": Nucleus("aeıioöuüâîû", y_vowel=False),
}
NUCLEUS_ALIASES = {"en": "english", "es": "spanish", "de": "german", "tr": "turkish"}


def derive_nucleus(words: Iterable[str]) -> Nucleus:
    """Vowel letters of a lexicon: every letter whose Unicode base letter is a, e, i, o or u
    (so *é*, *å*, *ü* count) plus a few vowel letters without such a base (æ, ø, ı, Cyrillic,
    Greek). ``y`` is a vowel when the lexicon has a syllable whose only candidate nucleus is
    ``y`` (English *by*), else a consonant."""
    letters: set[str] = set()
    y_only = False
    for word in words:
        for syllable in word.split("-"):
            low = syllable.lower()
            letters.update(ch for ch in low if ch.isalpha())
            if "y" in low and not any(_is_vowel(ch) for ch in low if ch != "y"):
                y_only = True
    vowels = "".join(sorted(ch for ch in letters if _is_vowel(ch)))
    if not vowels:
        raise UsageError("cannot derive vowel letters from the lexicon; pass nucleus=Nucleus(...)")
    return Nucleus(vowels, y_vowel=y_only)


def _is_vowel(ch: str) -> bool:
    if ch in _EXTRA_VOWELS:
        return True
    base = unicodedata.normalize("NFD", ch)[:1]
    return base in _BASE_VOWELS


def _wuggy() -> types.ModuleType:
    try:
        import wuggy
    except ImportError:  # pragma: no cover - depends on the environment
        raise UsageError(
            "pseudoword generation needs the wuggy package: pip install 'polyprobe[wuggy]'"
        ) from None
    return wuggy


def _plugin_base() -> type:
    return _wuggy().BaseLanguagePlugin


_PLUGIN_CLASSES: dict[str, type] = {}


def _staged_plugin_class() -> type:
    """The plugin base class (built lazily so that importing polyprobe never imports wuggy)."""
    cls = _PLUGIN_CLASSES.get("")
    if cls is None:

        class StagedLexiconPlugin(_plugin_base()):  # type: ignore[misc]
            """Wuggy language plugin serving one staged lexicon with a given nucleus pattern.

            All four lexicon roles (bigram data, neighbours, word lexicon, lookup) use the same
            staged file, as Wuggy's official orthographic plugins do."""

            default_data = LEXICON_FILE
            default_neighbor_lexicon = LEXICON_FILE
            default_word_lexicon = LEXICON_FILE
            default_lookup_lexicon = LEXICON_FILE

            def __init__(self, oncpattern: re.Pattern[str]):
                self.oncpattern = oncpattern

            def transform(self, input_sequence: str, frequency: int = 1) -> Any:
                return self.pre_transform(input_sequence, frequency=frequency, language=self)

        cls = _PLUGIN_CLASSES[""] = StagedLexiconPlugin
    return cls


def plugin_for(folder: Path, nucleus: Nucleus) -> Any:
    """A plugin instance whose class "lives" in ``folder`` (where the staged lexicon is), so
    that Wuggy's ``inspect.getfile(plugin.__class__)`` resolves lexicon names there."""
    folder = folder.resolve()
    name = (
        "polyprobe_wuggy_stage_" + hashlib.blake2b(str(folder).encode(), digest_size=8).hexdigest()
    )
    cls = _PLUGIN_CLASSES.get(name)
    if cls is None:
        module = types.ModuleType(name, "Synthetic module anchoring a staged Wuggy lexicon.")
        module.__file__ = str(folder / "plugin.py")
        sys.modules[name] = module
        cls = type("StagedLexiconPlugin", (_staged_plugin_class(),), {"__module__": name})
        module.StagedLexiconPlugin = cls  # type: ignore[attr-defined]
        _PLUGIN_CLASSES[name] = cls
    return cls(nucleus.pattern())


@dataclass(frozen=True)
class StagedLexicon:
    folder: Path
    path: Path
    source: str
    sha256: str
    words: tuple[str, ...]
    syllabified: tuple[str, ...]


def default_cache_dir() -> Path:
    """``$POLYPROBE_CACHE/wuggy``, else ``~/.cache/polyprobe/wuggy`` (the evaluation's
    embeddings sit beside it, under ``embeddings``)."""
    env = os.environ.get("POLYPROBE_CACHE")
    root = Path(env).expanduser() if env else Path.home() / ".cache" / "polyprobe"
    return root / "wuggy"


def stage_lexicon(lexicon: str | Path, cache_dir: str | Path | None = None) -> StagedLexicon:
    """Validate a syllabified lexicon and copy it (normalised: no blank lines, ``\\n`` line
    ends, exactly three columns) into ``<cache>/lexicons/<sha256>/lexicon.txt``.

    Validation matters because Wuggy unpacks every line into exactly three fields and would
    fail with a bare ValueError on a blank line or stray column."""
    lexicon = check_file(lexicon, "Wuggy lexicon")
    sha = file_sha256(str(lexicon))
    folder = Path(cache_dir or default_cache_dir()) / "lexicons" / sha[:32]
    target = folder / LEXICON_FILE
    words: list[str] = []
    syllabified: list[str] = []
    lines: list[str] = []
    # Through the input layer: a bad byte, a control character (it would reach the
    # generated pseudowords) or an over-long line is an error at its line.
    for number, line in numbered_lines(lexicon):
        if isinstance(line, BadLine):
            raise bad_encoding(lexicon, number, line)
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise InputError(
                lexicon,
                number,
                f"expected 'word<TAB>syl-la-bles<TAB>frequency', found {len(cols)} columns",
                "bad-column-count",
            )
        word, syl, freq = (c.strip() for c in cols)
        if not word or not syl:
            raise InputError(lexicon, number, "empty word or syllabification", "empty-field")
        try:
            float(freq)
        except ValueError:
            raise InputError(
                lexicon, number, f"frequency is not a number: {freq!r}", "bad-count"
            ) from None
        words.append(word)
        syllabified.append(syl)
        lines.append(f"{word}\t{syl}\t{freq}\n")
    if not lines:
        raise InputError(lexicon, None, "empty Wuggy lexicon", "empty")
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{LEXICON_FILE}.{os.getpid()}.tmp"
        tmp.write_text("".join(lines), encoding="utf-8")
        os.replace(tmp, target)
        (folder / "plugin.py").write_text(
            "# Anchor for polyprobe's StagedLexiconPlugin: Wuggy resolves lexicon names\n"
            "# relative to the plugin class's folder, which is this one.\n",
            encoding="utf-8",
        )
    return StagedLexicon(folder, target, str(lexicon), sha, tuple(words), tuple(syllabified))


# ---------------------------------------------------------------------------- generating


class NetworkBlocked(RuntimeError):
    """Wuggy tried to reach the network (it must never: plugins are served locally)."""


def _refuse_network(*args: Any, **kwargs: Any) -> Any:
    raise NetworkBlocked("polyprobe blocks Wuggy's plugin download; lexicons are served locally")


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Replace Wuggy's ``urlopen`` for the duration of a call, so that no code path in the
    package (e.g. loading an "official" plugin by name) can download anything."""
    module = sys.modules.get("wuggy.generators.wuggygenerator")
    if module is None:
        _wuggy()
        module = sys.modules["wuggy.generators.wuggygenerator"]
    saved = getattr(module, "urlopen", None)
    module.urlopen = _refuse_network  # type: ignore[attr-defined]
    try:
        yield
    finally:
        module.urlopen = saved  # type: ignore[attr-defined]


@contextlib.contextmanager
def _private_global_random(*seed_parts: object) -> Iterator[None]:
    """Wuggy draws from the global ``random`` module; seed it from stable parts for the call
    and restore the caller's state afterwards."""
    state = random.getstate()
    random.seed(stable_u64(*seed_parts))
    try:
        yield
    finally:
        random.setstate(state)


_GENERATORS: dict[tuple[str, str], Any] = {}


def _generator(staged: StagedLexicon, nucleus: Nucleus) -> Any:
    """A loaded WuggyGenerator for a staged lexicon (loading costs ~2 s for 66k words, so one
    per process and lexicon)."""
    key = (str(staged.folder), nucleus.pattern().pattern)
    gen = _GENERATORS.get(key)
    if gen is None:
        wuggy = _wuggy()
        with _offline(), _private_global_random("wuggy-load", staged.sha256):
            gen = wuggy.WuggyGenerator()
            gen.load(f"polyprobe-{staged.sha256[:16]}", plugin_for(staged.folder, nucleus))
        _GENERATORS[key] = gen
    return gen


def select_seeds(
    lexicon_words: Iterable[str], candidates: Iterable[str] | None, max_seeds: int, seed: int
) -> list[str]:
    """Seed words: the candidates found in the Wuggy lexicon (exactly, else lower-cased), or all
    lexicon words; then a seeded sample of ``max_seeds`` in a stable order."""
    lexicon = set(lexicon_words)
    chosen: set[str] = set()
    if candidates is None:
        chosen = lexicon
    else:
        for word in candidates:
            if word in lexicon:
                chosen.add(word)
            elif word.lower() in lexicon:
                chosen.add(word.lower())
    pool = sorted(chosen)
    rng = stable_rng(seed, "wuggy-seeds")
    k = min(max_seeds, len(pool))
    for i in range(k):  # partial Fisher-Yates with stable draws
        j = i + choice_index(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def generate_pseudowords(
    lexicon: str | Path,
    seeds: Iterable[str] | None = None,
    *,
    max_seeds: int = DEFAULT_MAX_SEEDS,
    seed: int = 0,
    nucleus: Nucleus | str | None = None,
    ncandidates: int = LINSPECTOR_SETTINGS["ncandidates"],
    max_time: float = LINSPECTOR_SETTINGS["max_time"],
    overlap: Fraction | None = Fraction(2, 3),
    match_segment_length: bool = True,
    match_letter_length: bool = True,
    concentric: bool = True,
    cache_dir: str | Path | None = None,
    refresh: bool = False,
) -> WuggyTable:
    """Generate (or fetch from the cache) a Wuggy table for up to ``max_seeds`` seed words.

    Defaults are LINSPECTOR's settings (5 candidates, 5 s per word, matching sub-syllabic
    segment lengths, letter length and transition frequencies (concentric search), 2/3 of the
    segments shared). ``nucleus`` is a :class:`Nucleus`, a language name in :data:`NUCLEI`, or
    None (derived from the lexicon). The table is written as ``Word Match Lexicality Old20
    Ned1`` so that :func:`read_wuggy_output` reads it like a real Wuggy output. The seeds are
    shown as they are generated (:func:`polyprobe.progress.track`: ~0.3 s each)."""
    if max_seeds < 1:
        raise UsageError("max_seeds must be at least 1")
    cache = Path(cache_dir or default_cache_dir())
    staged = stage_lexicon(lexicon, cache)
    if isinstance(nucleus, str):
        name = NUCLEUS_ALIASES.get(nucleus, nucleus)
        if name not in NUCLEI:
            raise UsageError(
                f"no nucleus definition for {nucleus!r}; known: {', '.join(sorted(NUCLEI))}"
            )
        nucleus = NUCLEI[name]
    elif nucleus is None:
        nucleus = derive_nucleus(staged.syllabified)
    chosen = select_seeds(staged.words, seeds, max_seeds, seed)
    if not chosen:
        raise UsageError("no seed word is in the Wuggy lexicon")
    params: dict[str, Any] = {
        "recipe": RECIPE_VERSION,
        "wuggy": _wuggy_version(),
        "lexicon_sha256": staged.sha256,
        "nucleus": nucleus.pattern().pattern,
        "ncandidates": ncandidates,
        "max_time": max_time,
        "overlap": str(overlap) if overlap is not None else None,
        "match_segment_length": match_segment_length,
        "match_letter_length": match_letter_length,
        "concentric": concentric,
        "max_seeds": max_seeds,
        "seed": seed,
        "seeds_sha256": hashlib.sha256("\n".join(chosen).encode()).hexdigest(),
    }
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:32]
    path = cache / "tables" / f"{key}.tsv"
    if path.is_file() and not refresh:
        table = read_wuggy_output(path)
        table.generated, table.cached, table.params, table.seeds = True, True, params, len(chosen)
        return table

    gen = _generator(staged, nucleus)
    lookup = dict(zip(staged.words, staged.syllabified, strict=True))
    out_lines = ["\t".join(OUTPUT_COLUMNS) + "\n"]
    failures: Counter[str] = Counter()
    with _offline():
        for word in progress.track(chosen, "generating pseudowords (Wuggy)", unit=" seed"):
            if word not in lookup:  # pragma: no cover - select_seeds guarantees it
                failures["not-in-lexicon"] += 1
                continue
            with _private_global_random("wuggy", seed, word):
                try:
                    matches = gen.generate_classic(
                        [word],
                        ncandidates_per_sequence=ncandidates,
                        max_search_time_per_sequence=max_time,
                        subsyllabic_segment_overlap_ratio=overlap,
                        match_subsyllabic_segment_length=match_segment_length,
                        match_letter_length=match_letter_length,
                        output_mode="plain",
                        concentric_search=concentric,
                    )
                except NetworkBlocked:
                    raise
                except Exception as exc:  # Wuggy raises bare Exception (e.g. 'LinkError')
                    failures[str(exc)[:40] or type(exc).__name__] += 1
                    continue
            if not matches:
                failures["no-candidate-in-time"] += 1
            for match in matches:
                stats = match.get("statistics", {})
                out_lines.append(
                    "\t".join(
                        [
                            word,
                            str(match["pseudoword"]),
                            str(stats.get("lexicality", "")),
                            _fmt(stats.get("old20")),
                            _fmt(stats.get("ned1")),
                        ]
                    )
                    + "\n"
                )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(out_lines), encoding="utf-8")
    os.replace(tmp, path)
    (path.with_suffix(".json")).write_text(
        json.dumps(
            {"params": params, "failures": dict(sorted(failures.items()))}, indent=1, sort_keys=True
        ),
        encoding="utf-8",
    )
    table = read_wuggy_output(path)
    table.generated, table.params, table.failures, table.seeds = True, params, failures, len(chosen)
    return table


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _wuggy_version() -> str:
    try:
        return importlib.metadata.version("wuggy")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"
