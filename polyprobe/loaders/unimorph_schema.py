"""The UniMorph feature schema as a table: tag -> (dimension, value name).

Written for polyprobe from the UniMorph schema (Sylak-Glassman 2016, "The Composition and Use of
the Universal Morphological Feature Schema", and the UniMorph 4.0 additions). Value names are the
schema's own names, which are also the label names LINSPECTOR released (``Nominative``,
``Singular``, ``Third person``), so that our labels stay comparable with theirs.

Why a table in code rather than a data file: the decoder consults it millions of times and the
table is part of the recipe (it decides every label), so it is versioned with the code
(:data:`SCHEMA_VERSION` goes into the card).
"""

from __future__ import annotations

import re
from functools import lru_cache

SCHEMA_VERSION = "1"

# Dimension names. ``POS`` is a dimension too (tag_count counts it, LINSPECTOR did).
CASE = "Case"
NUMBER = "Number"
PERSON = "Person"
TENSE = "Tense"
ASPECT = "Aspect"
MOOD = "Mood"
GENDER = "Gender"
VOICE = "Voice"
POLARITY = "Polarity"
POSSESSION = "Possession"
DEFINITENESS = "Definiteness"
FINITENESS = "Finiteness"
POS = "POS"
COMPARISON = "Comparison"
EVIDENTIALITY = "Evidentiality"
ANIMACY = "Animacy"
POLITENESS = "Politeness"
INTERROGATIVITY = "Interrogativity"
VALENCY = "Valency"
AKTIONSART = "Aktionsart"
DEIXIS = "Deixis"
INFORMATION_STRUCTURE = "Information Structure"
SWITCH_REFERENCE = "Switch-Reference"

_TABLE: dict[str, dict[str, str]] = {
    AKTIONSART: {
        "ACCMP": "Accomplishment",
        "ACH": "Achievement",
        "ACTY": "Activity",
        "ATEL": "Atelic",
        "DUR": "Durative",
        "DYN": "Dynamic",
        "PCT": "Punctual",
        "SEMEL": "Semelfactive",
        "STAT": "Stative",
        "TEL": "Telic",
    },
    ANIMACY: {"ANIM": "Animate", "HUM": "Human", "INAN": "Inanimate", "NHUM": "Non-human"},
    ASPECT: {
        "HAB": "Habitual",
        "IPFV": "Imperfective",
        "ITER": "Iterative",
        "PFV": "Perfective",
        "PRF": "Perfect",
        "PROG": "Progressive",
        "PROSP": "Prospective",
    },
    CASE: {
        "ABL": "Ablative",
        "ABS": "Absolutive",
        "ACC": "Accusative",
        "ALL": "Allative",
        "ANTE": "Near, in front of",
        "APPRX": "Approximative",
        "APUD": "Next to",
        "AT": "At",
        "AVR": "Aversive",
        "BEN": "Benefactive",
        "BYWAY": "Essive-modal",
        "CIRC": "Near",
        "COM": "Comitative",
        "COMPV": "Comparative",
        "DAT": "Dative",
        "EQTV": "Equative",
        "ERG": "Ergative",
        "ESS": "Essive",
        "FRML": "Formal",
        "GEN": "Genitive",
        "IN": "In",
        "INS": "Instrumental",
        "INST": "Instrumental",
        "INTER": "Among",
        "LOC": "Locative",
        "NOM": "Nominative",
        "NOMS": "Nominative, S-only",
        "ON": "On",
        "ONHR": "On (horizontal)",
        "ONVR": "On (vertical)",
        "POST": "Behind",
        "PRIV": "Privative",
        "PROL": "Prolative/translative",
        "PROPR": "Proprietive",
        "PROX": "Proximate",
        "PRP": "Purposive",
        "PRT": "Partitive",
        "REL": "Relative",
        "REM": "Distal",
        "SUB": "Under",
        "TERM": "Terminative",
        "TRANS": "Translative",
        "VERS": "Versative",
        "VOC": "Vocative",
    },
    COMPARISON: {
        "AB": "Absolute",
        "CMPR": "Comparative",
        "EQT": "Equative",
        "RL": "Relative",
        "SPRL": "Superlative",
    },
    DEFINITENESS: {
        "DEF": "Definite",
        "INDF": "Indefinite",
        "NSPEC": "Non-Specific",
        "SPEC": "Specific",
    },
    DEIXIS: {
        "ABV": "Above",
        "BEL": "Below",
        "EVEN": "Even",
        "MED": "Medial",
        "NOREF": "No Reference Point, Distal",
        "NVIS": "Invisible",
        "PHOR": "Phoric, situated in discourse",
        "REF1": "First Person Reference Point",
        "REF2": "Second Person Reference Point",
        "REMT": "Remote",
        "VIS": "Visible",
    },
    EVIDENTIALITY: {
        "ASSUM": "Assumed",
        "AUD": "Auditory",
        "DRCT": "Direct",
        "FH": "Firsthand",
        "HRSY": "Hearsay",
        "INFER": "Inferred",
        "NFH": "Non-firsthand",
        "NVSEN": "Non-visual sensory",
        "QUOT": "Quotative",
        "RPRT": "Reported",
        "SEN": "Sensory",
    },
    FINITENESS: {"FIN": "Finite", "NFIN": "Nonfinite"},
    GENDER: {"FEM": "Feminine", "MASC": "Masculine", "NEUT": "Neuter"},
    INFORMATION_STRUCTURE: {"FOC": "Focus", "TOP": "Topic"},
    INTERROGATIVITY: {"DECL": "Declarative", "INT": "Interrogative"},
    MOOD: {
        "ADM": "Admirative",
        "AUNPRP": "Australian Non-Purposive",
        "AUPRP": "Australian Purposive",
        "COND": "Conditional",
        "DEB": "Debitive",
        "DED": "Deductive",
        "IMP": "Imperative-Jussive",
        "IND": "Indicative",
        "INTEN": "Intentive",
        "IRR": "Irrealis",
        "LKLY": "Likely",
        "OBLIG": "Obligative",
        "OPT": "Optative-Desiderative",
        "PERM": "Permissive",
        "POT": "Potential",
        "PURP": "General Purposive",
        "REAL": "Realis",
        "SBJV": "Subjunctive",
        "SIM": "Simulative",
    },
    NUMBER: {
        "DU": "Dual",
        "GPAUC": "Greater paucal",
        "GRPL": "Greater plural",
        "INVN": "Inverse",
        "PAUC": "Paucal",
        "PL": "Plural",
        "SG": "Singular",
        "TRI": "Trial",
    },
    POS: {
        "ADJ": "Adjective",
        "ADP": "Adposition",
        "ADV": "Adverb",
        "ART": "Article",
        "AUX": "Auxiliary",
        "CLF": "Classifier",
        "COMP": "Complementizer",
        "CONJ": "Conjunction",
        "DET": "Determiner",
        "INTJ": "Interjection",
        "N": "Noun",
        "NUM": "Numeral",
        "PART": "Particle",
        "PRO": "Pronoun",
        "PROPN": "Proper Name",
        "V": "Verb",
        "V.CVB": "Converb",
        "V.MSDR": "Masdar",
        "V.PTCP": "Participle",
    },
    PERSON: {
        "0": "Zero person",
        "1": "First person",
        "2": "Second person",
        "3": "Third person",
        "4": "Fourth person",
        "EXCL": "Exclusive",
        "INCL": "Inclusive",
        "OBV": "Obviative",
        "PRX": "Proximate",
    },
    POLARITY: {"POS": "Positive", "NEG": "Negative"},
    POLITENESS: {
        "AVOID": "Avoidance style",
        "COL": "Colloquial",
        "ELEV": "Formal, Referent Elevating",
        "FOREG": "Formal register",
        "FORM": "Formal",
        "HIGH": "High status",
        "HUMB": "Formal, Speaker Humbling",
        "INFM": "Informal",
        "LIT": "Literary",
        "LOW": "Low status",
        "POL": "Polite",
        "STELEV": "High status, elevated",
        "STSUPR": "High status, supreme",
    },
    POSSESSION: {
        "ALN": "Alienable possession",
        "NALN": "Inalienable possession",
        "PSSD": "Possessed",
    },
    SWITCH_REFERENCE: {
        "CN_R_MN": "SR among NPs in any argument position",
        "DS": "DS",
        "DSADV": "DS Adverbial",
        "LOG": "Logophoric",
        "OR": "Open Reference",
        "SEQMA": "Sequential Multiclausal Aspect",
        "SIMMA": "Simultaneous Multiclausal Aspect",
        "SS": "SS",
        "SSADV": "SS Adverbial",
    },
    TENSE: {
        "1DAY": "Within 1 day",
        "FUT": "Future",
        "HOD": "Hodiernal",
        "IMMED": "Immediate",
        "PRS": "Present",
        "PST": "Past",
        "RCT": "Recent",
        "RMT": "Remote",
    },
    VALENCY: {
        "APPL": "Applicative",
        "CAUS": "Causative",
        "DITR": "Ditransitive",
        "IMPRS": "Impersonal",
        "INTR": "Intransitive",
        "RECP": "Reciprocal",
        "REFL": "Reflexive",
        "TR": "Transitive",
    },
    VOICE: {
        "ACFOC": "Accompanier Focus",
        "ACT": "Active",
        "AGFOC": "Agent Focus",
        "ANTIP": "Antipassive",
        "BFOC": "Beneficiary Focus",
        "CFOC": "Conveyed Focus",
        "DIR": "Direct",
        "IFOC": "Instrument Focus",
        "INV": "Inverse",
        "LFOC": "Location Focus",
        "MID": "Middle",
        "PASS": "Passive",
        "PFOC": "Patient Focus",
    },
}

# Ambiguity inside the schema itself: ``PROX`` is both a Case and a Deixis value. The case
# reading is the one that occurs in UniMorph lexicons.
_PREFERRED = {"PROX": CASE}

# Tag -> (dimension, value name). Built once from the per-dimension table.
TAGS: dict[str, tuple[str, str]] = {}
for _dim, _values in _TABLE.items():
    for _tag, _name in _values.items():
        if _tag in TAGS and _PREFERRED.get(_tag) != _dim:
            continue
        TAGS[_tag] = (_dim, _name)

# Spellings that occur in released UniMorph data but are not schema tags; each maps to the
# schema tag it stands for. Kept small and explicit: anything else is an unknown tag (counted).
ALIASES: dict[str, str] = {
    "V.PCTP": "V.PTCP",  # typo in several UniMorph 2/3 lexicons (e.g. Georgian)
    "INFR": "INFER",  # UniMorph 4 Turkish: inferential (-mIş) evidential
    "PRSP": "PROSP",  # UniMorph 4 Turkish: prospective aspect
    "PAST": "PST",  # UniMorph 4 (Basque and others) spell tenses out
    "PRES": "PRS",
    "FUTR": "FUT",
}

# UniMorph 3/4 argument-marking tags (``ARGNO3S``, ``ARGER1P``, ``ARGAB2SF``): the case of the
# argument the verb agrees with, its person and number (and gender/formality). Decoded into
# argument layers exactly like the layered ``NOM(3,SG)``.
ARGUMENT_TAG_CASES = {
    "NO": "NOM",
    "AC": "ACC",
    "AB": "ABS",
    "ER": "ERG",
    "DA": "DAT",
    "BE": "BEN",
}
ARGUMENT_GENDER = {"F": "FEM", "M": "MASC", "INFM": "INFM", "FORM": "FORM"}

# Split argument tags (UniMorph ``eus``: ``ARGABS3;ARGABSSG;ARGERG1;ARGERGSG;ARGIO2;ARGIOINFM``):
# one tag per feature of an argument, ``ARG<ROLE><PERSON>``, ``ARG<ROLE><NUMBER>``,
# ``ARG<ROLE><GENDER>``, ``ARG<ROLE><POLITENESS>``. The role is spelt as a case (``ABS``,
# ``ERG``, ``NOM``...) or as ``IO`` (indirect object: the dative argument). A bundle's tags
# of one role are gathered into one argument layer, exactly as ``ABS(3,SG)`` would be.
SPLIT_ARGUMENT_ROLES = {
    "NOM": "NOM",
    "ACC": "ACC",
    "ABS": "ABS",
    "ERG": "ERG",
    "DAT": "DAT",
    "IO": "DAT",
    "BEN": "BEN",
}
SPLIT_ARGUMENT_VALUES = frozenset(
    {"1", "2", "3", "4", "SG", "PL", "DU", "MASC", "FEM", "NEUT", "INFM", "FORM", "POL"}
)
_SPLIT_ARGUMENT = re.compile(
    r"^ARG("
    + "|".join(sorted(SPLIT_ARGUMENT_ROLES, key=len, reverse=True))
    + r")("
    + "|".join(sorted(SPLIT_ARGUMENT_VALUES, key=len, reverse=True))
    + r")$"
)
_FUSED_ARGUMENT = re.compile(r"^ARG(NO|AC|AB|ER|DA|BE)(\d)([SPD])?(F|M|INFM|FORM)?$")

# Layers about the addressee rather than an argument (allocutive agreement: Basque *hika*
# forms mark a familiar addressee's gender on verbs whose arguments are all third person):
# their gender is the addressee's, never a noun's gender.
ADDRESSEE_LAYERS = frozenset({"ALLOC", "ALC", "ADDR", "ADR"})


def split_argument(tag: str) -> tuple[str, str] | None:
    """(layer, feature tag) of a split argument tag (``ARGIOSG`` -> (``DAT``, ``SG``)), or
    ``None``."""
    m = _SPLIT_ARGUMENT.match(tag.upper())
    return (SPLIT_ARGUMENT_ROLES[m.group(1)], m.group(2)) if m else None


def argument_tag(tag: str) -> bool:
    """Is ``tag`` an argument-marking tag, fused (``ARGNO3S``) or split (``ARGABSSG``)?"""
    up = tag.upper()
    return bool(_FUSED_ARGUMENT.match(up) or _SPLIT_ARGUMENT.match(up))


def written_tags(bundle: str) -> int:
    """How many tags a bundle holds as UniMorph writes them: every tag name, a layer's name
    included (``V;PRS;NOM(3,SG)``: 5; ``N;ABL(PL;PSS(2,PL))``: 6). What ``tag_count``
    labels: the decoded dimensions undercount a bundle whose tags the decoder merges or does
    not know (``darabilkinate``'s 11 tags were 3 dimensions)."""
    return sum(1 for atom in _ATOM_SPLIT.split(bundle) if atom.strip())


# The layer that indexes the subject, in order of preference: nominative-accusative lexicons
# mark it NOM; ergative ones (Basque) mark the transitive subject ERG and the intransitive one
# ABS, so a bundle with an ERG layer has its subject there, else in ABS.
SUBJECT_LAYERS = ("NOM", "ERG", "ABS")

# Gender marked on a verb that also carries argument-marking tags is the gender of a familiar
# addressee (Basque allocutive agreement, *hika*), not a noun's gender: its own dimension.
ADDRESSEE_GENDER = "Addressee gender"
# Likewise a flat politeness tag beside argument tags (Basque ``INFM;MASC``: the familiar
# addressee of an allocutive form).
ADDRESSEE_POLITENESS = "Addressee politeness"

# POS subtypes written like feature values: in a participle's bundle ``SUB`` is the subject
# participle (Armenian ``V.PTCP;SUB``), not the case "Under".
PARTICIPLE_TYPE = "Participle type"
PARTICIPLE_SUBTYPES = {"SUB": "Subject", "OBJ": "Object"}

# Per-language readings that differ from the schema. Turkish UniMorph uses INTR for the
# interrogative (it contrasts with DECL in the same paradigms), not for "intransitive".
LANGUAGE_OVERRIDES: dict[str, dict[str, tuple[str, str]]] = {
    "tur": {"INTR": (INTERROGATIVITY, "Interrogative")},
}
LANGUAGE_ALIASES = {"tr": "tur"}

# Combined person+number tags of flat UniMorph 2/3 (Turkish predicative nouns: ``1P``, ``3S``)
# and flat possession tags (``PSS1S``). Short number letters -> Number tags.
SHORT_NUMBER = {"S": "SG", "P": "PL", "D": "DU"}
NUMBER_ABBREVIATION = {"SG": "sg", "PL": "pl", "DU": "du", "TRI": "tri", "PAUC": "pauc"}

# Verb forms listed under POS in the schema; decoded into their own dimension (POS stays Verb).
VERB_FORM = "VerbForm"
VERB_FORMS = frozenset({"V.PTCP", "V.CVB", "V.MSDR"})

VERBAL_POS = frozenset({"V", "V.PTCP", "V.CVB", "V.MSDR", "AUX"})

# Dimensions whose values say who an argument layer is about (used to tell an agreement layer,
# ``V;PRS;NOM(3,SG)``, from a nominal's own case with its own number, ``N;NOM(SG)``).
ARGUMENT_DIMENSIONS = frozenset({PERSON, POLITENESS})


def lookup(tag: str, lang: str | None = None) -> tuple[str, str] | None:
    """(dimension, value name) of one atomic tag, or None when the schema does not know it.

    Compound local cases of UniMorph 4 (``IN+ABL``, ``AT+ESS``) and compound voices
    (``ACT+PASS``) are decoded part by part and, when all parts share one dimension, their
    names are joined with ``+`` in alphabetical order (``AT+ALL`` -> ``Allative+At``,
    ``IN+ESS`` -> ``Essive+In``): the labels LINSPECTOR publishes (its Finnish and Hungarian
    ``Case`` files), so exported labels compare with its releases whatever order a lexicon
    writes the parts in. Otherwise the tag is unknown."""
    key = tag.upper()
    if lang is not None:
        code = LANGUAGE_ALIASES.get(lang, lang)
        override = LANGUAGE_OVERRIDES.get(code, {}).get(key)
        if override is not None:
            return override
    key = ALIASES.get(key, key)
    found = TAGS.get(key)
    if found is not None or "+" not in key:
        return found
    parts = [lookup(part, lang) for part in key.split("+")]
    if any(p is None for p in parts):
        return None
    dims = {p[0] for p in parts if p is not None}
    if len(dims) != 1:
        return None
    return parts[0][0], "+".join(sorted(p[1] for p in parts if p is not None))  # type: ignore[index]


def person_number_label(person: str | None, number: str | None) -> str | None:
    """LINSPECTOR's person label: ``Third person Singular`` (person name + number name)."""
    if person is None:
        return None
    return f"{person} {number}" if number else person


def possession_label(person_tag: str | None, number_tag: str | None) -> str:
    """``Possession by 2.pl`` exactly as the schema names PSS2P (``Possession by 3`` when the
    lexicon leaves the possessor's number open, as Finnish ``PSS(3)`` does)."""
    parts = [p for p in (person_tag, NUMBER_ABBREVIATION.get(number_tag or "")) if p]
    return "Possession by " + ".".join(parts)


def dimensions() -> list[str]:
    """Every dimension the table knows, in a fixed order (for reports)."""
    return list(_TABLE)


FEATS_CHARS = re.compile(r"^[A-Za-z0-9.+_;(),\-]+$")
_ATOM = re.compile(r"^[A-Z0-9.+_\-]+$")
_ATOM_SPLIT = re.compile(r"[;(),]+")


@lru_cache(maxsize=1 << 16)
def feats_like(text: str) -> bool:
    """Does a column look like a UniMorph feature bundle? All atoms are upper-case tag-shaped and
    at least half (and at least one) are schema tags; a word such as ``NATO`` or ``Haus`` fails,
    a bundle with a few language-specific tags passes. Bounded cache: it also sees forms."""
    if not text or not FEATS_CHARS.match(text):
        return False
    atoms = [a for a in _ATOM_SPLIT.split(text) if a]
    if not atoms or not all(_ATOM.match(a) for a in atoms):
        return False
    known = 0
    for atom in atoms:
        if (
            atom.isdigit()
            or atom.startswith("LGSPEC")
            or lookup(atom) is not None
            or argument_tag(atom)
        ):
            known += 1
    return known >= 1 and 2 * known >= len(atoms)
