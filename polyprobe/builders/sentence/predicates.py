"""Shared reading of the main predicate for the morphosyntactic tasks (tense, voice, ...).

Why one module: ``tense``, ``voice`` and ``subject_verb_distance`` all ask the same questions of
a root (is it finite? is it a participle? which auxiliaries and copulas belong to it? is it
passive?), and treebanks answer them in different ways (German-PUD and Turkish mark no
``VerbForm`` on finite verbs; German-PUD marks none on participles either). Answering them in
one place keeps the tasks consistent with one another and documents the conventions once.
"""

from __future__ import annotations

from collections.abc import Mapping

from polyprobe.builders.task import RunStatistics
from polyprobe.loaders.records import Sentence, Word

# Relations that make a dependent part of the predicate: auxiliaries (incl. ``aux:pass``) and
# copulas. Compared on the universal relation, without subtypes.
PREDICATE_RELATIONS: tuple[str, ...] = ("aux", "cop")
# UPOS that can be a participle without saying so in VerbForm (see :func:`is_participle`).
_VERBAL_UPOS: frozenset[str] = frozenset({"VERB", "AUX"})


def base_relation(deprel: str) -> str:
    """The universal relation without its subtype: ``aux:pass`` -> ``aux``.

    Asked for every dependent of a root by several tasks: a relation without ``:`` (most of
    them) is its own base, and the ``in`` test is much cheaper than building a split list."""
    return deprel.split(":", 1)[0] if ":" in deprel else deprel


def relation_subtypes(deprel: str) -> tuple[str, ...]:
    """The subtypes of a relation: ``nsubj:pass`` -> ``("pass",)``; ``obl`` -> ``()``."""
    return tuple(deprel.split(":")[1:])


def is_pass_relation(deprel: str) -> bool:
    """``aux:pass``, ``nsubj:pass``, ``csubj:pass``, ``expl:pass`` (any ``:pass`` subtype).

    Asked for every word of every sentence (``voice``): a relation that does not contain the
    text ``:pass`` cannot have the subtype, which a substring test settles without a split."""
    return ":pass" in deprel and "pass" in relation_subtypes(deprel)


def is_finite(word: Word) -> bool:
    """Finite = ``VerbForm=Fin``, or no ``VerbForm`` but ``Mood`` or ``Person`` present.

    The second clause exists because Turkish (IMST, PUD) and German-PUD never write
    ``VerbForm`` on finite verbs; their finite forms are recognisable by mood/person.
    """
    verb_form = word.feats.get("VerbForm")
    if verb_form is not None:
        return verb_form == "Fin"
    return "Mood" in word.feats or "Person" in word.feats


def is_participle(word: Word) -> bool:
    """``VerbForm=Part``, or a verbal word carrying ``Tense`` but none of VerbForm/Mood/Person.

    German-PUD writes past participles as ``VBN Tense=Past`` with no ``VerbForm``: without the
    second clause its perfects ("hat ... gesagt") would be read as finite tensed predicates,
    while German-GSD (``VerbForm=Part``) treats the same construction as periphrastic.
    """
    feats = word.feats
    if feats.get("VerbForm") == "Part":
        return True
    return (
        word.upos in _VERBAL_UPOS
        and "VerbForm" not in feats
        and "Tense" in feats
        and "Mood" not in feats
        and "Person" not in feats
    )


def has_passive_voice(word: Word) -> bool:
    """A ``Voice`` value containing ``Pass`` (``Pass``, ``CauPass``, ...)."""
    return "Pass" in word.feats.get("Voice", "")


def predicate_dependents(sentence: Sentence, word: Word) -> list[Word]:
    """The ``aux``/``cop`` dependents (any subtype) of ``word``, in word order."""
    # Inlined base_relation: this runs for every root in two passes of ``tense``.
    return [
        c
        for c in sentence.children(word.id)
        if (d := c.deprel) in PREDICATE_RELATIONS
        or (":" in d and d.split(":", 1)[0] in PREDICATE_RELATIONS)
    ]


def auxiliaries(sentence: Sentence, word: Word) -> list[Word]:
    """The ``aux`` dependents (``aux``, ``aux:pass``, ...) of ``word``, copulas excluded."""
    return [c for c in sentence.children(word.id) if (d := c.deprel) == "aux" or d[:4] == "aux:"]


# --- layered agreement ------------------------------------------------------------------------
#
# UD writes a verb's agreement with several arguments as *layers* of one feature: Georgian
# ``Person[subj]``/``Person[obj]``, Basque ``Number[erg]``/``Number[abs]``/``Number[dat]``.
# Which layer indexes the subject is a fact of the language and of the clause (Basque: the
# ergative layer in a transitive clause, the absolutive one in an intransitive clause), so
# ``subject_verb_agreement`` derives it from the data per clause type; these helpers read it.

PLAIN_LAYER = "plain"  # the unlayered ``Person``/``Number`` features
TRANSITIVE = "transitive"
INTRANSITIVE = "intransitive"


def layer_keys(layer: str) -> tuple[str, str]:
    """The (person, number) feature names of ``layer``: ``("Person[erg]", "Number[erg]")``;
    ``("Person", "Number")`` for :data:`PLAIN_LAYER`."""
    if layer == PLAIN_LAYER:
        return "Person", "Number"
    return f"Person[{layer}]", f"Number[{layer}]"


def agreement_layers(feats: Mapping[str, str]) -> list[str]:
    """The layers of ``Person``/``Number`` a word carries, sorted: ``Number[abs]=Sing|
    Person[erg]=3`` -> ``["abs", "erg"]`` (the plain layer is not listed)."""
    found = {key[7:-1] for key in feats if key[-1:] == "]" and key[:7] in ("Person[", "Number[")}
    return sorted(found)


def layer_agreement(feats: Mapping[str, str], layer: str) -> tuple[str | None, str | None]:
    """The (person, number) a word marks on ``layer``. A layered reading falls back to the
    plain feature where the layer is absent: a word that marks one argument marks it plain
    (Georgian participles carry plain ``Number``; its finite verbs ``Number[subj]``)."""
    person_key, number_key = layer_keys(layer)
    person = feats.get(person_key) or None
    number = feats.get(number_key) or None
    if layer != PLAIN_LAYER:
        person = person or feats.get("Person") or None
        number = number or feats.get("Number") or None
    return person, number


def transitivity(sentence: Sentence, head: Word) -> str:
    """:data:`TRANSITIVE` when ``head`` has an ``obj`` dependent (any subtype), else
    :data:`INTRANSITIVE`."""
    for c in sentence.children(head.id):
        if base_relation(c.deprel) == "obj":
            return TRANSITIVE
    return INTRANSITIVE


def clause_type(relation: str, transitive: str) -> str:
    """The name of a subject's clause type: ``nsubj/transitive``, ``nsubj:pass/intransitive``."""
    return f"{relation}/{transitive}"


# --- predicate type (the confound audit) ------------------------------------------------------

COPULAR = "copular"
PERIPHRASTIC = "periphrastic"
VERBAL = "synthetic verbal"
OTHER_PREDICATE = "other"
# Non-finite forms an auxiliary builds a periphrastic predicate on (UD VerbForm).
_CHAIN_FORMS = frozenset({"Part", "Inf", "Conv", "Ger"})


def predicate_type(sentence: Sentence, root: Word) -> str:
    """``copular`` (the root has a ``cop`` dependent: *she is happy*), ``periphrastic`` (a
    VERB/AUX root that is a participle, infinitive, converb or gerund with an ``aux``
    dependent: *has gone*, Armenian *գրում եմ*), ``synthetic verbal`` (any other VERB or AUX
    root: one finite word states the predicate) or ``other`` (a nominal or adjectival root
    without a copula: headlines, zero-copula clauses). The confound audit compares classes by
    it (Armenian ``tense``: 83% of Present rows copular, 0% of Past rows; with periphrastic
    presents, 94% of Present rows have an auxiliary or copula and 0% of Past rows)."""
    children = sentence.children(root.id)
    if any(base_relation(c.deprel) == "cop" for c in children):
        return COPULAR
    if root.upos not in _VERBAL_UPOS:
        return OTHER_PREDICATE
    chain = is_participle(root) or root.feats.get("VerbForm") in _CHAIN_FORMS
    if chain and any(base_relation(c.deprel) == "aux" for c in children):
        return PERIPHRASTIC
    return VERBAL


class PredicateTypes(RunStatistics):
    """Run statistics of a task whose label hangs on the main predicate: candidates per
    (label, predicate type), printed as the recipe parameter ``predicate_types`` and audited
    by the 80% rule (:func:`polyprobe.builders.confounds.predicate_flags`)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, int]] = {}

    def update(self, other: PredicateTypes) -> None:
        for label, types in other.counts.items():
            by_type = self.counts.setdefault(label, {})
            for kind, n in types.items():
                by_type[kind] = by_type.get(kind, 0) + n

    def count(self, sentence: Sentence, label: str) -> None:
        kind = predicate_type(sentence, sentence.root)
        by_type = self.counts.setdefault(label, {})
        by_type[kind] = by_type.get(kind, 0) + 1

    def table(self) -> dict[str, dict[str, int]]:
        return {label: dict(sorted(t.items())) for label, t in sorted(self.counts.items())}
