"""Which values of a feature a word task can teach: syncretism at paradigm level, homographs,
and the feature values a form carries in running text (UD).

Why: a form whose value cannot be told from another value must not carry that label. German
noun accusatives are formally identical to another case in almost every paradigm, yet the
SIGMORPHON subset lists each form under one cell only (``Qualifikationen``: ``N;ACC;PL``),
so the lexicon looked unambiguous and ``case`` published an ``Accusative`` class a probe
cannot learn. The evidence is in the data, per paradigm **cell**: for each pair of values of
a feature within one context (one part of speech and the same other features: ``N;PL``,
``NOM`` vs ``ACC``), the share of lemmas that have both cells and spell them the same. A form
is syncretic for the feature when its own lemma spells another cell of its context the same
(attested), or when the lexicon's lemmas (near-)always do for that pair in that context
(inferred: the SIGMORPHON subsets list most lemmas under one cell only, German
``Absichten``: ``N;GEN;PL``, whose plural spells NOM, ACC and GEN alike). Pooling contexts
hid the plural: Genitive and Nominative differ in the singular, so their pooled share was low.
What the build does with a syncretic form is the ``syncretism`` option: ``merge`` (default)
gives it the joined class of the values its cell cannot tell apart
(``Accusative/Genitive/Nominative``), ``drop`` drops it, ``keep`` (LINSPECTOR's choice) keeps
its label and the card flags the share of each published class that is syncretic.

Homographs: forms are compared case-insensitively unless the lexicon shows that case tells
its words apart (German: ``Scheitern`` the noun, ``scheitern`` the verb); whether it does is
decided from the data (:func:`case_distinguishes`). A form whose entries disagree on the
feature — one carries it, another does not, or they carry different values — is ambiguous.

Text evidence: with ``--frequencies`` naming UD treebanks, a form that carries two or more
values of the feature there (German ``Frau``: Nom, Acc, Dat, Gen) is ambiguous too, and the
share of published labels that agree with UD's on shared forms is reported.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.word.common import has_space, key_of
from polyprobe.loaders import unimorph_schema as schema
from polyprobe.loaders.records import LexEntry

SYNCRETISM_MODES = ("merge", "drop", "keep")
DEFAULT_THRESHOLD = 0.9
DEFAULT_MIN_LEMMAS = 20
# case_distinguishes: share of case-variant keys whose spellings have disjoint parts of speech
CASE_SHARE = 0.8
CASE_MIN_KEYS = 10

# UD feature -> UniMorph dimension; UD values -> UniMorph value names (those that occur in the
# shared treebanks; an unmapped value stays distinct as ``ud:<Value>``).
UD_FEATURE = {
    schema.CASE: "Case",
    schema.NUMBER: "Number",
    schema.TENSE: "Tense",
    schema.MOOD: "Mood",
    schema.GENDER: "Gender",
    schema.VOICE: "Voice",
    schema.POLARITY: "Polarity",
    schema.PERSON: "Person",
}
UD_VALUES: dict[str, dict[str, str]] = {
    "Case": {
        "Nom": "Nominative",
        "Acc": "Accusative",
        "Dat": "Dative",
        "Gen": "Genitive",
        "Ins": "Instrumental",
        "Loc": "Locative",
        "Voc": "Vocative",
        "Abl": "Ablative",
        "All": "Allative",
        "Erg": "Ergative",
        "Abs": "Absolutive",
        "Com": "Comitative",
        "Ess": "Essive",
        "Tra": "Translative",
        "Par": "Partitive",
        "Ine": "Essive+In",
        "Ill": "Allative+In",
        "Ela": "Ablative+In",
        "Ade": "At+Essive",
        "Abe": "Privative",
        "Equ": "Equative",
        "Ben": "Benefactive",
        "Ter": "Terminative",
        "Frm": "Formal",
    },
    "Number": {"Sing": "Singular", "Plur": "Plural", "Dual": "Dual"},
    "Tense": {"Pres": "Present", "Past": "Past", "Fut": "Future"},
    "Mood": {
        "Ind": "Indicative",
        "Sub": "Subjunctive",
        "Imp": "Imperative-Jussive",
        "Cnd": "Conditional",
        "Opt": "Optative-Desiderative",
        "Pot": "Potential",
    },
    "Gender": {"Masc": "Masculine", "Fem": "Feminine", "Neut": "Neuter"},
    "Voice": {"Act": "Active", "Pass": "Passive", "Mid": "Middle"},
    "Polarity": {"Pos": "Positive", "Neg": "Negative"},
    "Person": {"1": "First person", "2": "Second person", "3": "Third person"},
}


# Where a treebank and the lexicon name one case differently. UD's ``Abl``/``All`` in Finnish,
# Estonian and Hungarian are the external ("at") local cases (Finnish -lta/-lle, beside
# adessive -lla = ``Ade``), which UniMorph writes AT+ABL/AT+ALL; Finnish UD's ``Ess`` (-na) is
# UniMorph's FRML (LINSPECTOR: ``puolestapuhujana Formal``). Used only when the lexicon has no
# value of the plain name but has this one (a lexicon with both keeps them apart).
EXTERNAL_LOCAL_CASES = {"Ablative": "Ablative+At", "Allative": "Allative+At", "Essive": "Formal"}


def lexicon_name(name: str, known: set[str]) -> str:
    """The lexicon's name for a treebank value name (``Ablative`` -> ``Ablative+At`` when the
    lexicon has only the compound, as Finnish UniMorph does); the name itself otherwise."""
    if name in known:
        return name
    compound = EXTERNAL_LOCAL_CASES.get(name)
    return compound if compound in known else name


def unit_key(form: str, case_sensitive: bool) -> str:
    """The key forms are merged under: NFC (case-sensitive) or the lexical key (NFC +
    case-fold)."""
    return unicodedata.normalize("NFC", form) if case_sensitive else key_of(form)


def case_distinguishes(entries: Iterable[LexEntry]) -> tuple[bool, dict[str, Any]]:
    """Does letter case tell this lexicon's words apart? Among the case-folded keys spelled
    in two or more ways (``Scheitern``/``scheitern``), the share whose spellings have
    disjoint parts of speech; case distinguishes when that share is at least
    :data:`CASE_SHARE` over at least :data:`CASE_MIN_KEYS` keys (German nouns vs verbs:
    85% of 40 keys in the SIGMORPHON 2018 files)."""
    spellings: dict[str, dict[str, set[str]]] = {}
    for e in entries:
        if has_space(e.form):
            continue
        pos = e.features.get(schema.POS, "")
        spellings.setdefault(key_of(e.form), {}).setdefault(
            unicodedata.normalize("NFC", e.form), set()
        ).add(pos)
    multi = [v for v in spellings.values() if len(v) > 1]
    disjoint = sum(
        1 for v in multi if len(set().union(*v.values())) == sum(len(p) for p in v.values())
    )
    share = round(disjoint / len(multi), 4) if multi else 0.0
    decided = len(multi) >= CASE_MIN_KEYS and share >= CASE_SHARE
    return decided, {
        "case_variant_keys": len(multi),
        "case_variant_keys_with_disjoint_pos": disjoint,
        "share": share,
        "rule": f"case-sensitive when >= {CASE_SHARE:.0%} of >= {CASE_MIN_KEYS} case-variant "
        "keys have spellings with disjoint parts of speech",
        "case_sensitive": decided,
    }


@dataclass(frozen=True)
class SyncretismOptions:
    mode: str = "merge"
    threshold: float = DEFAULT_THRESHOLD
    min_lemmas: int = DEFAULT_MIN_LEMMAS


Context = tuple[tuple[str, str], ...]
# What an entry's value becomes in ``drop`` mode when its cell is syncretic.
SYNCRETIC = "\x00syncretic"


def context_name(context: Context) -> str:
    """``N;PL``-like name of a context for the card (its feature values, sorted)."""
    return ";".join(v for _, v in context) or "-"


@dataclass
class Syncretism:
    """The paradigm statistics of one feature and what they decided.

    ``pairs``: pooled over contexts (reported); ``cell_pairs``: per context, the basis of the
    decision; ``syncretic_cells``: the (context, a, b) pairs at the threshold; ``cells``: per
    (lemma, context), each value's form keys. :meth:`entry_value` is what an entry's value
    becomes; :meth:`partners` the values its cell cannot tell it from."""

    pairs: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    cell_pairs: dict[tuple[Context, str, str], tuple[int, int]] = field(default_factory=dict)
    syncretic_cells: set[tuple[Context, str, str]] = field(default_factory=set)
    cells: dict[tuple[str, Context], dict[str, set[str]]] = field(default_factory=dict)
    dims: frozenset[str] = frozenset()
    options: SyncretismOptions = field(default_factory=SyncretismOptions)
    joined: dict[str, frozenset[str]] = field(default_factory=dict)
    # per context, the values some lemma has a cell of
    context_values: dict[Context, set[str]] = field(default_factory=dict)

    @property
    def syncretic(self) -> list[tuple[str, str]]:
        """The value pairs syncretic in at least one context (sorted)."""
        return sorted({(a, b) for _, a, b in self.syncretic_cells})

    def label(self, value: str) -> str | None:
        """The class of an (already cell-decided) value: None for a dropped syncretic form."""
        return None if value == SYNCRETIC else value

    def context(self, entry: LexEntry) -> Context:
        return tuple(sorted((d, x) for d, x in entry.features.items() if d not in self.dims))

    def partners(self, entry: LexEntry, value: str) -> set[str]:
        """The other values of the entry's cell context that its form cannot be told from:
        attested (its lemma spells that cell the same) or inferred (the pair is syncretic in
        this context and the lemma does not spell that cell differently). A context with
        fewer than ``min_lemmas`` lemmas attesting both cells decides nothing by itself: the
        pooled pair decides there (German verbs spread over many tense/mood contexts, each
        with a handful of lemmas attesting both ``1;PL`` and ``3;PL``, which are alike in
        every one)."""
        ctx = self.context(entry)
        cell = self.cells.get((entry.lemma, ctx), {})
        form = key_of(entry.form)
        out = {w for w, forms in cell.items() if w != value and form in forms}
        present = self.context_values.get(ctx, set())
        for a, b in self.pooled_syncretic_pairs | self._context_pairs(ctx):
            if value not in (a, b):
                continue
            other = b if value == a else a
            if other not in present or not self._decides(ctx, a, b):
                continue
            if other not in cell or form in cell[other]:
                out.add(other)
        return out

    def _decides(self, ctx: Context, a: str, b: str) -> bool:
        """Whether the pair is syncretic in ``ctx``: by the context when it has enough
        lemmas with both cells, else by the pooled pair."""
        n = self.cell_pairs.get((ctx, a, b), (0, 0))[0]
        if n >= self.options.min_lemmas:
            return (ctx, a, b) in self.syncretic_cells
        return (a, b) in self.pooled_syncretic_pairs

    def _context_pairs(self, ctx: Context) -> set[tuple[str, str]]:
        return {(a, b) for _c, a, b in self._by_context().get(ctx, ())}

    @property
    def pooled_syncretic_pairs(self) -> set[tuple[str, str]]:
        """Pooled pairs at the threshold: the decision where a context is under-attested."""
        cache = self.__dict__.get("_pooled_cache")
        if cache is None:
            o = self.options
            cache = {
                p for p, (n, k) in self.pairs.items() if n >= o.min_lemmas and k / n >= o.threshold
            }
            self.__dict__["_pooled_cache"] = cache
        return cache

    def entry_value(self, entry: LexEntry, value: str) -> str:
        """What the entry's value becomes under the option: the joined class (``merge``),
        :data:`SYNCRETIC` (``drop``), or the value itself (``keep``; not syncretic)."""
        if self.options.mode == "keep":
            return value
        partners = self.partners(entry, value)
        if not partners:
            return value
        if self.options.mode == "drop":
            return SYNCRETIC
        parts = frozenset({value, *partners})
        name = join_values(parts)
        self.joined[name] = parts
        return name

    def parts(self, label: str) -> frozenset[str]:
        """The base values of a published class (itself, or a joined class's values)."""
        return self.joined.get(label, frozenset({label}))

    def report(self) -> dict[str, Any]:
        return {
            "mode": self.options.mode,
            "threshold": self.options.threshold,
            "min_lemmas": self.options.min_lemmas,
            "rule": "per paradigm cell: for each pair of values within one context (part of "
            "speech and the same other features), the share of lemmas with both cells attested "
            f"whose forms are identical; a pair with >= {self.options.min_lemmas} such lemmas "
            f"and a share >= {self.options.threshold} is syncretic in that context; a form is "
            "syncretic when its lemma spells another cell of its context alike, or the pair is "
            "syncretic there (pooled over contexts where fewer lemmas attest both cells) and "
            "its lemma does not spell that cell differently ("
            + {
                "merge": "it takes the joined class of the values, named by joining them "
                "with '/'",
                "drop": "it is dropped",
                "keep": "it keeps its label and the card reports each class's share "
                "(LINSPECTOR's choice)",
            }[self.options.mode]
            + ")",
            "pairs": {
                f"{a} ~ {b}": {
                    "lemmas_with_both": both,
                    "identical": same,
                    "share": round(same / both, 4) if both else None,
                }
                for (a, b), (both, same) in sorted(self.pairs.items())
            },
            "cell_pairs": {
                f"{context_name(c)}: {a} ~ {b}": {
                    "lemmas_with_both": both,
                    "identical": same,
                    "share": round(same / both, 4) if both else None,
                }
                for (c, a, b), (both, same) in sorted(self.cell_pairs.items())
            },
            "syncretic": [
                f"{context_name(c)}: {a} ~ {b}" for c, a, b in sorted(self.syncretic_cells)
            ],
            "pooled_syncretic": [f"{a} ~ {b}" for a, b in sorted(self.pooled_syncretic_pairs)],
        }

    def _by_context(self) -> dict[Context, list[tuple[Context, str, str]]]:
        cache = self.__dict__.get("_context_cache")
        if cache is None:
            cache = {}
            for triple in sorted(self.syncretic_cells):
                cache.setdefault(triple[0], []).append(triple)
            self.__dict__["_context_cache"] = cache
        return cache


def join_values(values: Iterable[str]) -> str:
    """``Accusative/Genitive/Nominative``: the joined class of base values (sorted). Value
    names may hold a ``/`` themselves (``Prolative/translative``), so a joined class's parts
    are kept by :class:`Syncretism` (``joined``), never re-read from the name."""
    return "/".join(sorted(set(values)))


def paradigm_syncretism(
    entries: Sequence[LexEntry],
    value: Callable[[LexEntry], str | None],
    dims: frozenset[str],
    options: SyncretismOptions,
    sizes: Mapping[str, int] | None = None,
) -> Syncretism:
    """Pairwise syncretism of a feature per context (``value`` reads it, ``dims`` are the
    dimensions it is made of, left out of the context), and the cells the per-entry decision
    reads. ``sizes`` (forms per value) is accepted for reports and not used in the decision."""
    result = Syncretism(options=options, dims=dims)
    cells = result.cells
    for e in entries:
        v = value(e)
        if v is None or has_space(e.form):
            continue
        context = result.context(e)
        cells.setdefault((e.lemma, context), {}).setdefault(v, set()).add(key_of(e.form))
        result.context_values.setdefault(context, set()).add(v)
    both: Counter[tuple[str, str]] = Counter()
    same: Counter[tuple[str, str]] = Counter()
    cell_both: Counter[tuple[Context, str, str]] = Counter()
    cell_same: Counter[tuple[Context, str, str]] = Counter()
    for (_lemma, context), forms in cells.items():
        values = sorted(forms)
        for i, a in enumerate(values):
            for b in values[i + 1 :]:
                identical = bool(forms[a] & forms[b])
                both[(a, b)] += 1
                cell_both[(context, a, b)] += 1
                if identical:
                    same[(a, b)] += 1
                    cell_same[(context, a, b)] += 1
    result.pairs = {p: (both[p], same[p]) for p in sorted(both)}
    result.cell_pairs = {p: (cell_both[p], cell_same[p]) for p in sorted(cell_both)}
    result.syncretic_cells = {
        p
        for p, (n, k) in result.cell_pairs.items()
        if n >= options.min_lemmas and k / n >= options.threshold
    }
    return result


# ------------------------------------------------------------------------------ text evidence


@dataclass
class TextEvidence:
    """Per form (NFC spelling), the UD feature values it carries in the treebanks given as
    frequency sources: ``values[form][feature] = {value: count}``."""

    values: dict[str, dict[str, Counter[str]]] = field(default_factory=dict)
    treebanks: list[str] = field(default_factory=list)
    tokens: int = 0

    def add_file(self, path: Path) -> None:
        """The FEATS of one CoNLL-U file, through the input layer (a line that is not text
        is an error naming its file and line)."""
        from polyprobe.loaders.inputs import text_lines
        from polyprobe.loaders.source import InvalidPolicy

        for _number, line in text_lines(path, InvalidPolicy("raise")):
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 6 or not cols[0].isdigit() or cols[5] in ("_", ""):
                continue
            self.tokens += 1
            form = unicodedata.normalize("NFC", cols[1])
            slot = self.values.setdefault(form, {})
            for pair in cols[5].split("|"):
                name, _, val = pair.partition("=")
                if name in UD_VALUES:
                    for one in val.split(","):
                        slot.setdefault(name, Counter())[one] += 1

    def labels(self, form: str, dim: str, case_sensitive: bool) -> Counter[str]:
        """The UniMorph value names the form carries in the treebanks for ``dim`` (the
        ``person`` task's dimension: person and number together)."""
        out: Counter[str] = Counter()
        spellings = [form] if case_sensitive else self._folded().get(key_of(form), [])
        for spelling in spellings:
            slot = self.values.get(spelling, {})
            if dim == "person":
                continue  # person + number combinations: not compared
            feature = UD_FEATURE.get(dim)
            if feature is None:
                continue
            for v, n in slot.get(feature, {}).items():
                out[UD_VALUES[feature].get(v, f"ud:{v}")] += n
        return out

    def _folded(self) -> dict[str, list[str]]:
        cache = self.__dict__.get("_folded_cache")
        if cache is None:
            cache = {}
            for spelling in self.values:
                cache.setdefault(key_of(spelling), []).append(spelling)
            self.__dict__["_folded_cache"] = cache
        return cache


def text_evidence(paths: Iterable[Path], names: Sequence[str]) -> TextEvidence | None:
    """The UD evidence of the CoNLL-U files of the ``--frequencies`` treebanks (None when no
    frequency source is a treebank)."""
    files = list(paths)
    if not files:
        return None
    evidence = TextEvidence(treebanks=list(names))
    for path in files:
        evidence.add_file(path)
    return evidence
