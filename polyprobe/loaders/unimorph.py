"""UniMorph lexicons in every layout that circulates, read as one typed, streaming lexicon.

Layouts (column order is what differs; the feature bundle may be flat or layered in either):

- ``lemma-form-feats``: UniMorph 2/3 lexicons, UniMorph 4 lexicons (flat or layered schema),
  SIGMORPHON 2018 shared-task files. Aliases: ``unimorph``, ``unimorph2``, ``unimorph3``,
  ``unimorph4``, ``sigmorphon2018``.
- ``lemma-feats-form``: SIGMORPHON 2023 shared-task files (note the order). Alias:
  ``sigmorphon2023``.

The layout is detected per file from its content (see :func:`detect_layout`) because file names
say nothing reliable, and a wrong column order would silently turn feature bundles into "words".
Files given together form **one** lexicon: SIGMORPHON's train/dev/test are not our splits, so
entries are merged and identical ``(lemma, form, tag)`` triples are kept once.

Malformed lines go to the shared ``--on-invalid`` policy (:mod:`polyprobe.loaders.source`):
raised with file and true line, or skipped and counted under a :data:`REASONS` key. A line in
the other column order than its file's is one of them (``column-order``): detection looks at
the first lines only, so each line whose feature column is not a bundle while its form column
is gets rejected, instead of publishing a bundle such as ``V;V.PTCP;PRS`` as a word.

Feature bundles are decoded into dimensions with :mod:`polyprobe.loaders.unimorph_schema`.
Layered tags (UniMorph 4): an argument layer on a verb (``NOM(3,SG)``) says who the subject is
and feeds ``Person``/``Number``; other argument layers (``DAT(3,PL)``, ``ACC(1,SG)``) become
their own optional dimensions (``person_dat``, ``person_acc``); a case layer on a nominal
(``N;ABL(PL;PSS(2,PL))``) is the word's own case with its own number and possessor.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from polyprobe.errors import InputError, UsageError
from polyprobe.loaders import unimorph_schema as schema
from polyprobe.loaders.inputs import BadLine, bad_encoding, line_blocks, numbered_lines
from polyprobe.loaders.records import LexEntry
from polyprobe.loaders.sniff import sniff_file
from polyprobe.loaders.source import InvalidPolicy

__all__ = [
    "LAYOUTS",
    "LEMMA_FEATS_FORM",
    "LEMMA_FORM_FEATS",
    "REASONS",
    "Analysis",
    "LexEntry",
    "ReadStats",
    "UniMorphReader",
    "decode",
    "detect_layout",
    "expand_paths",
    "normalise_layout",
    "read_unimorph",
]

LEMMA_FORM_FEATS = "lemma-form-feats"
LEMMA_FEATS_FORM = "lemma-feats-form"
LAYOUTS = (LEMMA_FORM_FEATS, LEMMA_FEATS_FORM)
LAYOUT_ALIASES = {
    "unimorph": LEMMA_FORM_FEATS,
    "unimorph2": LEMMA_FORM_FEATS,
    "unimorph3": LEMMA_FORM_FEATS,
    "unimorph4": LEMMA_FORM_FEATS,
    "sigmorphon2018": LEMMA_FORM_FEATS,
    "sigmorphon2023": LEMMA_FEATS_FORM,
    LEMMA_FORM_FEATS: LEMMA_FORM_FEATS,
    LEMMA_FEATS_FORM: LEMMA_FEATS_FORM,
}

#: Every reason key the reader counts under ``--on-invalid skip`` (stable: cards and tests
#: use them). Whole-file problems (``ambiguous-layout``, ``empty``, ``missing-file``,
#: ``unreadable``, ``undecodable``) are never skipped: see
#: :data:`polyprobe.loaders.source.FATAL_REASONS`.
REASONS: dict[str, str] = {
    "bad-column-count": "a non-blank line has fewer than 3 tab-separated columns",
    "empty-field": "the lemma, form or feature column is empty",
    "bad-features": "the feature column is not a well-formed UniMorph bundle (characters, "
    "parentheses)",
    "column-order": "the feature bundle is in the form's column: the line has the other "
    "layout's column order",
    "bad-encoding": "a line is not valid UTF-8",
    "control-character": "a line holds a C0 control character other than tab (NUL, ESC, ...)",
    "extra-column": "a line has a 4th column that is not a segmentation of its form, or more "
    "than 4 columns",
}

# How many content lines decide the layout. Enough to outvote a few odd lines, small enough
# that detection costs nothing next to the read.
DETECT_LINES = 2000

_FEATS_CHARS = schema.FEATS_CHARS
_feats_like = schema.feats_like
_FLAT_PSS = re.compile(r"^PSS(\d)([SPD])?$")
_ARGUMENT_TAG = re.compile(r"^ARG(NO|AC|AB|ER|DA|BE)(\d)([SPD])?(F|M|INFM|FORM)?$")
_PERSON_NUMBER = re.compile(r"^(\d)([SPD])$")


@dataclass(frozen=True, slots=True)
class Analysis:
    """A decoded feature bundle. Shared by every entry with the same tag (tags repeat a lot),
    so the mappings are read-only views."""

    features: Mapping[str, str]
    layers: Mapping[str, Mapping[str, str]]
    pos: str | None
    unknown_tags: tuple[str, ...]


@dataclass
class ReadStats:
    """What the reader saw: per-file layout and line counts, duplicates, unknown tags."""

    files: dict[str, str] = field(default_factory=dict)  # path -> layout
    lines: Counter[str] = field(default_factory=Counter)  # path -> content lines
    blank_lines: int = 0
    entries: int = 0
    duplicates: int = 0
    unknown_tags: Counter[str] = field(default_factory=Counter)
    # entries with at least one unknown tag (``unknown_tags`` counts tag occurrences)
    entries_with_unknown: int = 0
    layered: int = 0


def normalise_layout(layout: str) -> str:
    try:
        return LAYOUT_ALIASES[layout.lower()]
    except KeyError:
        known = ", ".join(sorted(LAYOUT_ALIASES))
        raise UsageError(f"unknown UniMorph layout {layout!r} (known: {known})") from None


def expand_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Files of one lexicon. A directory means its lexicon files (hidden files, README, LICENSE
    and ``*.md`` left out); a name that does not exist but has numbered parts (``fin`` ->
    ``fin.1``, ``fin.2``) means those parts in numeric order, as UniMorph ships big lexicons."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [
                p
                for p in sorted(path.iterdir())
                if p.is_file()
                and not p.name.startswith(".")
                and not p.name.upper().startswith(("README", "LICENSE"))
                and p.suffix.lower() != ".md"
            ]
            if not found:  # named here, not later as "no UniMorph files given"
                raise InputError(path, None, "the folder holds no lexicon files", "no-input")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            parts = [
                p
                for p in path.parent.glob(path.name + ".*")
                if p.suffix[1:].isdigit() and p.is_file()
            ]
            if not parts:
                raise InputError(
                    path, None, "no such file (nor numbered parts like .1, .2)", "missing-file"
                )
            out.extend(sorted(parts, key=lambda p: int(p.suffix[1:])))
    return out


def detect_layout(path: str | Path, max_lines: int = DETECT_LINES, *, strict: bool = True) -> str:
    """Column order of one file, from its content.

    Rule: among the first ``max_lines`` non-blank lines, a line *votes* for
    ``lemma-form-feats`` when its 3rd column looks like a feature bundle and its 2nd does not,
    and for ``lemma-feats-form`` in the opposite case (lines where both or neither look like one
    do not vote). Exactly one order must get votes; a file with votes for both orders, or with
    none, is ambiguous and rejected (pass ``layout=`` to override).

    A line that cannot vote because it is malformed (too few columns, not UTF-8) raises, unless
    ``strict=False``: a reader that skips malformed lines passes that, so that the line is
    counted once, by the reader, and does not condemn the whole file."""
    path = Path(path)
    votes: dict[str, int] = {LEMMA_FORM_FEATS: 0, LEMMA_FEATS_FORM: 0}
    first: dict[str, int] = {}
    seen = 0
    for number, line in numbered_lines(path, 1 << 16):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) < 3:
            if not strict:
                continue
            if isinstance(line, BadLine):
                raise bad_encoding(path, number, line)
            raise InputError(
                path,
                number,
                f"expected 3 tab-separated columns (lemma, form, features), found {len(cols)}",
                "bad-column-count",
            )
        second, third = _feats_like(cols[1].strip()), _feats_like(cols[2].strip())
        if third and not second:
            votes[LEMMA_FORM_FEATS] += 1
            first.setdefault(LEMMA_FORM_FEATS, number)
        elif second and not third:
            votes[LEMMA_FEATS_FORM] += 1
            first.setdefault(LEMMA_FEATS_FORM, number)
        seen += 1
        if seen >= max_lines:
            break
    if seen == 0:
        raise InputError(path, None, "no entries (empty file or only blank lines)", "empty")
    a, b = votes[LEMMA_FORM_FEATS], votes[LEMMA_FEATS_FORM]
    if a and b:
        raise InputError(
            path,
            max(first.values()),
            f"ambiguous layout: line {first[LEMMA_FORM_FEATS]} has the features in column 3 "
            f"(lemma, form, features) but line {first[LEMMA_FEATS_FORM]} has them in column 2 "
            f"(lemma, features, form); {a} vs {b} of the first {seen} lines; pass layout=",
            "ambiguous-layout",
        )
    if not a and not b:
        raise InputError(
            path,
            None,
            f"ambiguous layout: no column of the first {seen} lines is recognisably a UniMorph "
            "feature bundle (or both are); pass layout=",
            "ambiguous-layout",
        )
    return LEMMA_FORM_FEATS if a else LEMMA_FEATS_FORM


def _split_top(text: str) -> list[str]:
    """Split a bundle on ``;`` outside parentheses (``N;ABL(PL;PSS(2,PL))`` -> 2 parts)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced ')'")
        elif depth == 0 and ch in ";,":
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError("unbalanced '('")
    parts.append(text[start:])
    return [p for p in (x.strip() for x in parts) if p]


def _layer(part: str) -> tuple[str, str] | None:
    """``NOM(3,SG)`` -> (``NOM``, ``3,SG``); None for a flat atom."""
    i = part.find("(")
    if i < 0:
        return None
    if not part.endswith(")"):
        raise ValueError(f"text after ')' in {part!r}")
    return part[:i].strip(), part[i + 1 : -1]


class _Decoder:
    """Accumulates one bundle's dimensions. The subject (``NOM``) layer fills ``Person``,
    ``Number``, ``Gender`` and ``Politeness`` only after the whole bundle is read, so that a
    nominal's own number (``N;PL;...;NOM(1,SG)``) is never overwritten by its subject's."""

    def __init__(self, lang: str | None, verbal: bool = False, participle: bool = False):
        self.lang = lang
        self.verbal = verbal
        self.participle = participle
        self.features: dict[str, str] = {}
        self.layers: dict[str, dict[str, str]] = {}
        self.unknown: list[str] = []
        self.pos_tag: str | None = None
        self.flat_gender: list[str] = []
        self.flat_politeness: list[str] = []
        self.argument_tags = False  # ARGNO3S- or ARGABSSG-style tags seen
        # split argument tags (ARGABS3;ARGABSSG) gathered per layer, decoded in finish()
        self.split: dict[str, list[str]] = {}

    def put(self, target: dict[str, str], dim: str, value: str) -> None:
        old = target.get(dim)
        if old is None:
            target[dim] = value
        elif value not in old.split("+"):
            # Two values of one dimension in one bundle (Turkish ``PRSP;PROG``): conjoined,
            # as the schema writes multi-valued features.
            target[dim] = f"{old}+{value}"

    def atom(self, atom: str, target: dict[str, str], layer_tags: dict[str, str]) -> None:
        """Decode one flat atom into ``target``; ``layer_tags`` records raw person/number tags
        (needed to spell possession labels)."""
        up = atom.upper()
        m = _FLAT_PSS.match(up)
        if m:
            number = schema.SHORT_NUMBER.get(m.group(2) or "")
            self.put(target, schema.POSSESSION, schema.possession_label(m.group(1), number))
            return
        split = schema.split_argument(up) if target is self.features else None
        if split is not None:
            self.split.setdefault(split[0], []).append(split[1])
            self.argument_tags = True
            return
        m = _ARGUMENT_TAG.match(up)
        if m and target is self.features:
            atoms = [m.group(2)]
            if m.group(3):
                atoms.append(schema.SHORT_NUMBER[m.group(3)])
            if m.group(4):
                atoms.append(schema.ARGUMENT_GENDER[m.group(4)])
            self.argument(schema.ARGUMENT_TAG_CASES[m.group(1)], atoms)
            self.argument_tags = True
            return
        if target is self.features and self.participle and up in schema.PARTICIPLE_SUBTYPES:
            self.put(target, schema.PARTICIPLE_TYPE, schema.PARTICIPLE_SUBTYPES[up])
            return
        m = _PERSON_NUMBER.match(up)
        if m and target is self.features:
            # Flat 2/3 person+number of a predicative nominal (Turkish ``N;1P;SG``): the
            # subject's person and number, i.e. a NOM layer.
            self.argument("NOM", [m.group(1), schema.SHORT_NUMBER[m.group(2)]])
            return
        found = schema.lookup(up, self.lang)
        if found is None:
            self.unknown.append(atom)
            return
        dim, value = found
        if dim == schema.GENDER and target is self.features and self.verbal:
            self.flat_gender.append(value)  # subject's or addressee's: decided in finish()
            return
        if dim == schema.POLITENESS and target is self.features and self.verbal:
            self.flat_politeness.append(value)  # the verb's or the addressee's: finish()
            return
        if dim == schema.PERSON:
            layer_tags["person"] = up
        elif dim == schema.NUMBER:
            layer_tags["number"] = up
        if dim == schema.POS:
            tag = schema.ALIASES.get(up, up)
            if tag in schema.VERB_FORMS:
                # V.PTCP/V.CVB/V.MSDR are verb forms (UniMorph writes ``V;V.PTCP;PST``):
                # POS stays Verb, the form goes to its own dimension.
                self.put(target, schema.VERB_FORM, value)
                dim, value, tag = schema.POS, schema.TAGS["V"][1], "V"
            if target is self.features and self.pos_tag is None:
                self.pos_tag = tag
        self.put(target, dim, value)

    def argument(self, name: str, atoms: list[str]) -> None:
        """An agreement layer: its person/number/gender/politeness describe an argument."""
        dims: dict[str, str] = {}
        raw: dict[str, str] = {}
        for atom in atoms:
            self.atom(atom, dims, raw)
        key = name.upper()
        self.layers[key] = dims
        if key != "NOM":
            label = schema.person_number_label(dims.get(schema.PERSON), dims.get(schema.NUMBER))
            if label is None:
                label = dims.get(schema.NUMBER)
            if label is not None:
                self.features[f"person_{key.lower()}"] = label

    def addressee(self, name: str, atoms: list[str]) -> None:
        """An allocutive layer (``ALLOC(MASC,INFM)``): the addressee's gender and politeness,
        kept apart from the word's own gender and from its arguments."""
        dims: dict[str, str] = {}
        for atom in atoms:
            self.atom(atom, dims, {})
        self.layers[name] = dims
        if schema.GENDER in dims:
            self.put(self.features, schema.ADDRESSEE_GENDER, dims[schema.GENDER])

    def possession(self, atoms: list[str]) -> None:
        dims: dict[str, str] = {}
        raw: dict[str, str] = {}
        for atom in atoms:
            self.atom(atom, dims, raw)
        self.layers["PSS"] = dims
        label = schema.possession_label(raw.get("person"), raw.get("number"))
        self.put(self.features, schema.POSSESSION, label)

    def subject_layer(self) -> str | None:
        """The layer that indexes the subject (:data:`schema.SUBJECT_LAYERS`)."""
        return next((name for name in schema.SUBJECT_LAYERS if name in self.layers), None)

    def finish(self) -> None:
        """Let the subject layer fill what the bundle itself left open. A verb's flat gender
        is its subject's (Russian ``V;PST;SG;FEM``), unless the bundle marks its arguments
        with argument tags, where it is a familiar addressee's (Basque allocutive). Split
        argument tags become their layers here, one per role (``ARGIO1;ARGIOSG`` is
        ``DAT(1,SG)``)."""
        for name, atoms in self.split.items():
            self.argument(name, atoms)
        for value in self.flat_gender:
            dim = schema.ADDRESSEE_GENDER if self.argument_tags else schema.GENDER
            self.put(self.features, dim, value)
        for value in self.flat_politeness:
            dim = schema.ADDRESSEE_POLITENESS if self.argument_tags else schema.POLITENESS
            self.put(self.features, dim, value)
        subject = self.subject_layer()
        if self.argument_tags:
            # a gender letter on an argument tag (``ARGER2SF``) is the familiar addressee's
            for layer in self.layers.values():
                # Basque marks gender only on a familiar (hika) second person; a split tag
                # (ARGERGMASC) may leave that person unwritten
                if schema.GENDER in layer and layer.get(schema.PERSON) in ("Second person", None):
                    self.put(self.features, schema.ADDRESSEE_GENDER, layer[schema.GENDER])
        for dim, value in self.layers.get(subject or "NOM", {}).items():
            if dim == schema.GENDER and self.argument_tags:
                continue
            if dim in (schema.PERSON, schema.NUMBER, schema.GENDER, schema.POLITENESS):
                self.features.setdefault(dim, value)
            else:
                self.unknown.append(f"{subject}:{dim}")

    def own(self, parts: list[str]) -> None:
        """Contents of a nominal's own case layer: its number, gender, animacy, possessor."""
        for part in parts:
            inner = _layer(part)
            if inner is None:
                self.atom(part, self.features, {})
            elif inner[0].upper() == "PSS":
                self.possession(_split_top(inner[1]))
            else:
                self.unknown.append(part)


@lru_cache(maxsize=65536)
def decode(tag: str, lang: str | None = None) -> Analysis:
    """Decode one raw feature bundle (cached: lexicons reuse a few hundred distinct bundles).

    Raises ValueError for unbalanced parentheses; the reader turns it into an InputError."""
    parts = _split_top(tag.strip())
    flats = [p for p in parts if "(" not in p]
    # POS first: whether a case layer is an agreement layer depends on it.
    verbal = participle = False
    for part in flats:
        found = schema.lookup(part, lang)
        if found is not None and found[0] == schema.POS:
            pos = schema.ALIASES.get(part.upper(), part.upper())
            verbal = pos in schema.VERBAL_POS
            participle = pos == "V.PTCP" or any(
                schema.ALIASES.get(p.upper(), p.upper()) == "V.PTCP" for p in flats
            )
            break
    dec = _Decoder(lang, verbal, participle)
    for part in parts:
        inner = _layer(part)
        if inner is None:
            dec.atom(part, dec.features, {})
            continue
        name, contents = inner
        upname = name.upper()
        atoms = _split_top(contents)
        if upname == "PSS":
            dec.possession(atoms)
            continue
        if upname in schema.ADDRESSEE_LAYERS:
            dec.addressee(upname, atoms)
            continue
        upname = schema.SPLIT_ARGUMENT_ROLES.get(upname, upname) if upname == "IO" else upname
        found = schema.lookup(upname, lang)
        if found is None or found[0] != schema.CASE:
            dec.unknown.append(part)
            continue
        has_comma = _has_top_level_comma(contents)
        about_argument = any(
            (schema.lookup(a, lang) or ("", ""))[0] in schema.ARGUMENT_DIMENSIONS
            for a in atoms
            if "(" not in a
        )
        if verbal or has_comma or about_argument:
            dec.argument(upname, atoms)
        else:
            dec.put(dec.features, schema.CASE, found[1])
            dec.own(atoms)
    dec.finish()
    return Analysis(
        features=MappingProxyType(dec.features),
        layers=MappingProxyType({k: MappingProxyType(v) for k, v in dec.layers.items()}),
        pos=dec.pos_tag,
        unknown_tags=tuple(dec.unknown),
    )


def _has_top_level_comma(contents: str) -> bool:
    depth = 0
    for ch in contents:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


class UniMorphReader:
    """Streams :class:`LexEntry` records from one lexicon made of one or more files.

    ``layout`` forces a column order for every file (else detected per file); ``lang`` enables
    the schema's per-language readings (Turkish ``INTR``); ``dedupe`` keeps the first of
    identical ``(lemma, form, tag)`` triples across all files. ``policy`` decides what a
    malformed line does (default: raise; with ``skip`` it is counted under a :data:`REASONS`
    key and the reader goes on). ``stats`` fills as you iterate."""

    def __init__(
        self,
        paths: str | Path | Iterable[str | Path],
        layout: str | None = None,
        lang: str | None = None,
        dedupe: bool = True,
        policy: InvalidPolicy | None = None,
    ):
        self.paths = expand_paths(paths)
        if not self.paths:
            raise UsageError("no UniMorph files given")
        self.layout = normalise_layout(layout) if layout else None
        self.lang = lang
        self.dedupe = dedupe
        self.policy = policy if policy is not None else InvalidPolicy("raise")
        self.stats = ReadStats()

    def __iter__(self) -> Iterator[LexEntry]:
        seen: set[tuple[str, str, str]] = set()
        strict = not self.policy.skip
        for path in self.paths:
            sniff_file(path, "unimorph")
            layout = self.layout or detect_layout(path, strict=strict)
            self.stats.files[str(path)] = layout
            yield from self._read(path, layout, seen)

    def _read(self, path: Path, layout: str, seen: set[tuple[str, str, str]]) -> Iterator[LexEntry]:
        """One file. The loop is the hot path: per-tag work (validation, decoding, stats of
        unknown tags) is done once per distinct tag, not once per line, and a malformed line
        costs nothing until it is met (the checks that find it run on a cache miss only)."""
        stats = self.stats
        lang = self.lang
        dedupe = self.dedupe
        reject = self.policy.reject
        source = str(path)
        form_col, feats_col = (1, 2) if layout == LEMMA_FORM_FEATS else (2, 1)
        analyses: dict[str, Analysis] = {}
        per_tag: Counter[str] = Counter()
        blank = lines = duplicates = number = 0
        try:
            for block in line_blocks(path):
                for line in block:
                    number += 1
                    cols = line.split("\t")
                    if len(cols) < 3:
                        if not line or line.isspace():
                            blank += 1
                        else:
                            reject(_short_line(path, number, line, layout, len(cols)))
                        continue
                    lemma = cols[0].strip()
                    form = cols[form_col].strip()
                    tag = cols[feats_col].strip()
                    if len(cols) > 3 and not _segmentation(cols, form):
                        reject(_extra_column(path, number, cols, layout))
                        continue
                    analysis = analyses.get(tag)
                    if analysis is None:
                        try:
                            analysis = _analyse(path, number, tag, form, feats_col, layout, lang)
                        except InputError as err:
                            reject(err)
                            continue
                        if _feats_like(tag):  # else checked again on every line that has it
                            analyses[tag] = analysis
                    if not lemma or not form:
                        reject(InputError(path, number, "empty lemma or form", "empty-field"))
                        continue
                    lines += 1
                    if dedupe:
                        triple = (lemma, form, tag)
                        if triple in seen:
                            duplicates += 1
                            continue
                        seen.add(triple)
                    per_tag[tag] += 1
                    yield LexEntry(
                        lemma,
                        form,
                        tag,
                        analysis.features,
                        analysis.layers,
                        analysis.pos,
                        analysis.unknown_tags,
                        source,
                        number,
                    )
        finally:
            stats.blank_lines += blank
            stats.lines[source] += lines
            stats.duplicates += duplicates
            for tag, n in per_tag.items():
                analysis = analyses.get(tag) or decode(tag, lang)
                stats.entries += n
                if analysis.layers:
                    stats.layered += n
                for unknown in analysis.unknown_tags:
                    stats.unknown_tags[unknown] += n
                if analysis.unknown_tags:
                    stats.entries_with_unknown += n


def _segmentation(cols: list[str], form: str) -> bool:
    """May a line's columns after the 3rd be read? Empty ones (a trailing tab) are nothing;
    a 4th column is UniMorph 4's morpheme segmentation of the form (``lemma, form, features,
    segmentation``, morphs joined by ``|``: ``walk|ed``), which is not published; anything
    else is data this reader would silently drop."""
    extra = [c.strip() for c in cols[3:]]
    if not any(extra):
        return True
    if len(extra) > 1 and any(extra[1:]):
        return False
    seg = extra[0]
    return "|" in seg and "\t" not in seg and all(piece.strip() for piece in seg.split("|"))


def _extra_column(path: Path, number: int, cols: list[str], layout: str) -> InputError:
    extra = next((c for c in cols[3:] if c.strip()), "")
    shown = extra if len(extra) <= 40 else extra[:37] + "..."
    if sum(1 for c in cols[3:] if c.strip()) > 1:
        problem = f"{len(cols)} tab-separated columns; a UniMorph line has 3 ({layout})"
    else:
        problem = (
            f"a 4th column {shown!r} that is not a morpheme segmentation ('|'-joined morphs, "
            f"UniMorph 4's segmentation files); a UniMorph line has 3 columns ({layout})"
        )
    return InputError(path, number, problem, "extra-column")


def _short_line(path: Path, number: int, line: str, layout: str, ncols: int) -> InputError:
    if isinstance(line, BadLine):
        return bad_encoding(path, number, line)
    return InputError(
        path,
        number,
        f"expected 3 tab-separated columns ({layout}), found {ncols}",
        "bad-column-count",
    )


def _analyse(
    path: Path, number: int, tag: str, form: str, feats_col: int, layout: str, lang: str | None
) -> Analysis:
    """Validate and decode a bundle not seen before in this file. ``form`` is the other
    column: a line in the other layout's order has its bundle there, and decoding its form as
    a bundle would silently publish ``V;V.PTCP;PRS`` as a word."""
    if not tag:
        raise InputError(path, number, "empty features", "empty-field")
    if not _feats_like(tag) and _feats_like(form):
        form_col = 3 if feats_col == 1 else 2
        raise InputError(
            path,
            number,
            f"column {feats_col + 1} is not a UniMorph feature bundle but column {form_col} is "
            f"({tag!r}, {form!r}): this line has the other column order than the file's "
            f"{layout}; fix the line (or pass layout= if the whole file is in the other order)",
            "column-order",
        )
    if not _FEATS_CHARS.match(tag):
        raise InputError(
            path,
            number,
            f"column {feats_col + 1} is not a UniMorph feature bundle: {tag!r} (layout {layout})",
            "bad-features",
        )
    try:
        return decode(tag, lang)
    except ValueError as exc:
        raise InputError(
            path, number, f"bad feature bundle {tag!r}: {exc}", "bad-features"
        ) from None


def read_unimorph(
    paths: str | Path | Iterable[str | Path],
    layout: str | None = None,
    lang: str | None = None,
    dedupe: bool = True,
    policy: InvalidPolicy | None = None,
) -> Iterator[LexEntry]:
    """Stream one lexicon's entries (see :class:`UniMorphReader`, which also keeps stats)."""
    return iter(UniMorphReader(paths, layout=layout, lang=lang, dedupe=dedupe, policy=policy))
