"""Which values of a feature a word task can teach: syncretism at paradigm level, homographs,
and the feature values a form carries in running text (UD).

Why: a form whose value cannot be told from another value must not carry that label. German
noun accusatives are formally identical to another case in almost every paradigm, yet the
SIGMORPHON subset lists each form under one cell only (``Qualifikationen``: ``N;ACC;PL``),
so the lexicon looked unambiguous and ``case`` published an ``Accusative`` class a probe
cannot learn. The evidence is in the data, at paradigm level: for each pair of values of a
feature, within one part of speech and the same other features (``N;PL``: ``NOM`` vs
``ACC``), the share of lemmas that have both cells and spell them the same. A value that is
(near-)always identical to another is not a separate class: the two are merged into one
class (``Accusative/Nominative``, the default) or dropped with their forms, and the card
prints the shares.

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


@dataclass
class Syncretism:
    """The paradigm statistics of one feature and what they decided: ``mapping`` from each
    value to the class it becomes (merged name, itself, or None when dropped)."""

    pairs: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    syncretic: list[tuple[str, str]] = field(default_factory=list)
    mapping: dict[str, str | None] = field(default_factory=dict)
    options: SyncretismOptions = field(default_factory=SyncretismOptions)

    def label(self, value: str) -> str | None:
        return self.mapping.get(value, value)

    def report(self) -> dict[str, Any]:
        return {
            "mode": self.options.mode,
            "threshold": self.options.threshold,
            "min_lemmas": self.options.min_lemmas,
            "rule": "for each pair of values, within one part of speech and the same other "
            "features: share of lemmas with both cells attested whose forms are identical; "
            f"a pair with >= {self.options.min_lemmas} such lemmas and a share >= "
            f"{self.options.threshold} is syncretic ("
            + {
                "merge": "its values become one class, named by joining them with '/'",
                "drop": "its values are dropped, with their forms",
                "keep": "reported only",
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
            "syncretic": [f"{a} ~ {b}" for a, b in self.syncretic],
            "classes": {v: m for v, m in sorted(self.mapping.items()) if m != v},
        }


def paradigm_syncretism(
    entries: Sequence[LexEntry],
    value: Callable[[LexEntry], str | None],
    dims: frozenset[str],
    options: SyncretismOptions,
    sizes: Mapping[str, int] | None = None,
) -> Syncretism:
    """Pairwise syncretism of a feature (``value`` reads it, ``dims`` are the dimensions it
    is made of, left out of the context). Syncretic pairs link values into clusters; in
    ``merge`` mode a cluster is one class, in ``drop`` mode none of its values is a class.
    ``sizes`` (forms per value) is accepted for reports and not used in the decision."""
    cells: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, set[str]]] = {}
    for e in entries:
        v = value(e)
        if v is None or has_space(e.form):
            continue
        context = tuple(sorted((d, x) for d, x in e.features.items() if d not in dims))
        cells.setdefault((e.lemma, context), {}).setdefault(v, set()).add(key_of(e.form))
    both: Counter[tuple[str, str]] = Counter()
    same: Counter[tuple[str, str]] = Counter()
    for forms in cells.values():
        values = sorted(forms)
        for i, a in enumerate(values):
            for b in values[i + 1 :]:
                both[(a, b)] += 1
                if forms[a] & forms[b]:
                    same[(a, b)] += 1
    result = Syncretism(options=options)
    result.pairs = {p: (both[p], same[p]) for p in sorted(both)}
    result.syncretic = [
        p
        for p, (n, s) in result.pairs.items()
        if n >= options.min_lemmas and s / n >= options.threshold
    ]
    if options.mode == "keep" or not result.syncretic:
        return result
    # clusters of values linked by syncretic pairs
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b in result.syncretic:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    clusters: dict[str, list[str]] = {}
    for v in parent:
        clusters.setdefault(find(v), []).append(v)
    for members in clusters.values():
        members.sort()
        if options.mode == "merge":
            name = "/".join(members)
            for v in members:
                result.mapping[v] = name
        else:
            for v in members:
                result.mapping[v] = None
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
