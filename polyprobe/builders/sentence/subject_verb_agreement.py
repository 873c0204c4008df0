"""``subject_verb_agreement``: does the main verb agree with its subject?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import render, sentence_inputs
from polyprobe.builders.sentence.inventory import (
    FeatsKey,
    FormInventory,
    form_key,
    regular_case,
    substitute,
)
from polyprobe.builders.sentence.predicates import (
    INTRANSITIVE,
    PLAIN_LAYER,
    TRANSITIVE,
    agreement_layers,
    clause_type,
    layer_agreement,
    layer_keys,
    transitivity,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task, TaskContext
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, file_sha256, stable_rng
from polyprobe.loaders.records import Sentence, Word
from polyprobe.metadata import Level, TaskMetadata

LABELS: tuple[str, ...] = ("agree", "disagree")
DEFAULT_SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_THIRD_PERSON_UPOS: tuple[str, ...] = ("NOUN", "PROPN")
DEFAULT_THRESHOLD = 0.95
VERBAL_UPOS: tuple[str, ...] = ("VERB", "AUX")
# Subject agreement on the verb: plain (most treebanks) or layered. Georgian marks the subject
# on ``Person[subj]``; Basque has no subject layer but ergative and absolutive ones
# (``Number[erg]``, ``Number[abs]``), so which layer indexes the subject is derived from the
# data per clause type (:func:`choose_layers`). The keys below are the reading every corpus
# had before that derivation (plain, else ``[subj]``), which the card still names when the
# derivation chooses nothing else, and the finite test's "person" keys.
PERSON_KEYS: tuple[str, ...] = ("Person", "Person[subj]")
NUMBER_KEYS: tuple[str, ...] = ("Number", "Number[subj]")
DEFAULT_LAYERS = frozenset({PLAIN_LAYER, "subj"})
# A clause type with fewer observed subject clauses than this takes the layer chosen over all
# clause types (the ``*`` entry): a handful of clauses is no evidence.
DEFAULT_LAYER_MIN_CLAUSES = 10
# How much better (share of the subject number and person comparisons) a layer other than plain
# or ``[subj]`` must repeat the subject to be read instead (see :func:`best_layer`).
LAYER_MARGIN = 0.05
ANY_TYPE = "*"
_TYPE_SUFFIXES = (f"/{TRANSITIVE}", f"/{INTRANSITIVE}")

# UniMorph value names -> UD values (UniMorph schema names, see unimorph_schema).
UNIMORPH_PERSON = {"First person": "1", "Second person": "2", "Third person": "3"}
UNIMORPH_NUMBER = {"Singular": "Sing", "Plural": "Plur", "Dual": "Dual", "Trial": "Tri"}
UNIMORPH_VERBAL_POS = frozenset({"V", "AUX"})
UNIMORPH_NOUN_POS = frozenset({"N"})

Agreement = tuple[str | None, str | None]  # (Person, Number) as UD values
# (form key, form as written, features other than person/number, (person, number)) of one
# verbal UniMorph entry, listed per lemma key.
UniMorphVerb = tuple[str, str, FeatsKey, Agreement]


def agreement(feats: Mapping[str, str], layer: str = PLAIN_LAYER) -> Agreement:
    """The subject-agreement features of a verb on ``layer`` (plain ``Person``/``Number`` by
    default; a layer such as ``erg`` reads ``Person[erg]``/``Number[erg]``, falling back to
    the plain features, see :func:`layer_agreement`)."""
    return layer_agreement(feats, layer)


def rest_key(feats: Mapping[str, str], layer: str = PLAIN_LAYER) -> FeatsKey:
    """Every feature except the subject agreement ``layer`` reads (the plain features and the
    layer's own; ``Person[obj]``, ``Number[abs]`` of a transitive Basque verb read on ``erg``,
    ``Number[psor]`` stay)."""
    skip = {"Person", "Number", *layer_keys(layer)}
    return tuple(sorted((k, v) for k, v in feats.items() if k not in skip))


def carrier_agreement(feats: Mapping[str, str]) -> FeatsKey:
    """The agreement features of a word, plain and layered (``Person``, ``Number[erg]``, ...):
    what the first pass keeps of a clause's agreeing word to evaluate every layer later."""
    return tuple(
        sorted(
            (k, v)
            for k, v in feats.items()
            if k in ("Person", "Number") or (k[-1:] == "]" and k[:7] in ("Person[", "Number["))
        )
    )


def is_finite(word: Word) -> bool:
    """``VerbForm=Fin``, or no ``VerbForm`` but a mood or (subject) person: Turkish and
    German-PUD write no VerbForm on finite verbs (the rule of the ``tense`` task)."""
    feats = word.feats
    verb_form = feats.get("VerbForm")
    if verb_form is not None:
        return verb_form == "Fin"
    return "Mood" in feats or any(k in feats for k in PERSON_KEYS)


def _base(deprel: str) -> str:
    return deprel.split(":", 1)[0]


def subject_agreement(subj: Word, third_person_upos: tuple[str, ...]) -> Agreement:
    """A subject's person and number; words of ``third_person_upos`` (nouns, proper nouns)
    without ``Person`` are 3rd person."""
    person = subj.feats.get("Person")
    if person is None and subj.upos in third_person_upos:
        person = "3"
    return person, subj.feats.get("Number")


def agreement_carrier(sentence: Sentence, head: Word, relations: tuple[str, ...]) -> Word | str:
    """The word that carries the clause's agreement (``head`` when finite, else its single
    finite dependent by one of ``relations``), or why there is none."""
    if is_finite(head):
        return head
    finite = [
        c for c in sentence.children(head.id) if _base(c.deprel) in relations and is_finite(c)
    ]
    if not finite:
        return "root clause not finite"
    if len(finite) > 1:
        return "several finite auxiliaries"
    return finite[0]


def compatible(subj: Agreement, verb: Agreement, number: bool) -> bool:
    """May a verb with ``verb`` person/number stand with a subject with ``subj``? Unknown
    values are compatible with anything; number counts only where the corpus agrees in number
    (``number``)."""
    if verb[0] is not None and subj[0] is not None and verb[0] != subj[0]:
        return False
    return not (number and verb[1] is not None and subj[1] is not None and verb[1] != subj[1])


def _strings(value: Any, key: str) -> tuple[str, ...]:
    """A TOML list of strings as a tuple; anything else is a usage error naming the key."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise UsageError(
            f"[tasks.subject_verb_agreement] {key} must be a list of strings, not {value!r}"
        )
    return tuple(str(v) for v in value)


def _layer_table(value: Any) -> dict[str, str]:
    """The ``subject_layers`` option: clause type (``<relation>/transitive``,
    ``<relation>/intransitive`` or ``*``) -> layer name (``plain``, ``subj``, ``erg``, ...)."""
    key = "[tasks.subject_verb_agreement] subject_layers"
    if not isinstance(value, Mapping):
        raise UsageError(f"{key} must be a table of clause type = layer, not {value!r}")
    table: dict[str, str] = {}
    for ctype, layer in value.items():
        ctype = str(ctype)
        if ctype != ANY_TYPE and not (ctype.endswith(_TYPE_SUFFIXES) and ctype.split("/", 1)[0]):
            raise UsageError(
                f"{key}: clause type {ctype!r} must be '<relation>/transitive', "
                f"'<relation>/intransitive' or '{ANY_TYPE}'"
            )
        if not isinstance(layer, str) or not layer or any(c in layer for c in "[]=|"):
            raise UsageError(
                f"{key}: layer for {ctype!r} must be a layer name such as "
                f"'{PLAIN_LAYER}', 'subj' or 'erg', not {layer!r}"
            )
        table[ctype] = layer
    return dict(sorted(table.items()))


@dataclass(frozen=True)
class SubjectVerbAgreementOptions:
    """``subject_relations``: the relations that make a word the subject (default ``nsubj``,
    ``nsubj:pass``; a treebank with other subject subtypes may add them).
    ``third_person_upos``: subjects of these UPOS without a ``Person`` feature count as 3rd
    person (default NOUN, PROPN: UD writes no person on nouns).
    ``number_agreement_threshold``: the share of plural-subject clauses with a plural verb at
    or above which number counts for (in)compatibility (default 0.95; Turkish plural subjects
    mostly take singular verbs, so there a number-only change is no agreement error).
    ``number_agreement``: force that choice instead of deriving it (default: derived).
    ``unimorph``: a UniMorph lexicon (one path or a list of paths, default none) whose forms
    are offered as replacements too, for languages whose treebank shows few paradigm cells;
    ``unimorph_layout``: its column order, when it cannot be detected (default: detected).
    ``subject_layers``: which agreement layer of the verb indexes the subject, per clause type
    (``{"nsubj/transitive" = "erg", "nsubj/intransitive" = "abs"}``); ``*`` names the layer
    of every type not listed, otherwise types not listed are derived (default: all derived).
    ``layer_min_clauses``: a clause type observed in fewer clauses takes the layer derived
    over all clause types (default 10)."""

    subject_relations: tuple[str, ...] = DEFAULT_SUBJECT_RELATIONS
    third_person_upos: tuple[str, ...] = DEFAULT_THIRD_PERSON_UPOS
    number_agreement_threshold: float = DEFAULT_THRESHOLD
    number_agreement: bool | None = None
    unimorph: tuple[str, ...] = ()
    unimorph_layout: str | None = None
    subject_layers: Mapping[str, str] = field(default_factory=dict)
    layer_min_clauses: int = DEFAULT_LAYER_MIN_CLAUSES

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "subject_layers", _layer_table(self.subject_layers or {}))
        minimum = self.layer_min_clauses
        if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
            raise UsageError(
                "[tasks.subject_verb_agreement] layer_min_clauses must be a whole number of "
                f"at least 1, not {minimum!r}"
            )
        set_(self, "subject_relations", _strings(self.subject_relations, "subject_relations"))
        set_(self, "third_person_upos", _strings(self.third_person_upos, "third_person_upos"))
        try:
            set_(self, "number_agreement_threshold", float(self.number_agreement_threshold))
        except (TypeError, ValueError):
            raise UsageError(
                "[tasks.subject_verb_agreement] number_agreement_threshold must be a number, "
                f"not {self.number_agreement_threshold!r}"
            ) from None
        if self.number_agreement is not None:
            set_(self, "number_agreement", bool(self.number_agreement))
        paths = self.unimorph or ()
        if isinstance(paths, str | Path):
            paths = (paths,)
        set_(self, "unimorph", tuple(str(p) for p in _strings(paths, "unimorph")))
        if self.unimorph_layout is not None and not isinstance(self.unimorph_layout, str):
            raise UsageError(
                "[tasks.subject_verb_agreement] unimorph_layout must be a string, "
                f"not {self.unimorph_layout!r}"
            )


class SubjectVerbAgreementObservation(Observation):
    """The first pass: the form inventory of verbs (cells, spellings) and nouns (the "never a
    NOUN" test), and the agreement evidence: every subject clause as (clause type, the
    subject's person and number, the agreeing word's agreement features on every layer),
    counted. The fit reads each layer off these to choose the one that indexes the subject
    (:func:`layer_evidence`), then the number and person evidence on the chosen layers."""

    def __init__(
        self,
        context: TaskContext,
        relations: tuple[str, ...],
        third_person_upos: tuple[str, ...],
    ) -> None:
        # Verbs (cells, spelling) and nouns (the "never a NOUN" test) are all this task reads.
        self.inventory = FormInventory(context, VERBAL_UPOS, only_upos=(*VERBAL_UPOS, "NOUN"))
        self.relations = relations
        self.third_person_upos = third_person_upos
        self.clauses: Counter[tuple[str, Agreement, FeatsKey]] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        self.inventory.observe(sentence, shared)
        relations = self.relations
        # Most sentences have one subject or none: find them first (a comprehension), then
        # look at their clauses.
        for subj in [w for w in sentence.words if w.deprel in relations]:
            if subj.head == 0:
                continue
            if any(
                c.deprel == "conj" or c.deprel.startswith("conj:")  # _base(deprel) == "conj"
                for c in sentence.children(subj.id)
            ):
                continue
            # Evidence from every clause, copular ones included ("they are happy").
            head = sentence.word(subj.head)
            carrier = agreement_carrier(sentence, head, ("aux", "cop"))
            if isinstance(carrier, str):
                continue
            s_agr = subject_agreement(subj, self.third_person_upos)
            if s_agr == (None, None):
                continue  # no evidence on any layer
            ctype = clause_type(subj.deprel, transitivity(sentence, head))
            self.clauses[(ctype, s_agr, carrier_agreement(carrier.feats))] += 1

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the sentences right after this observation's): the inventories
        merged (:meth:`FormInventory.merge`), the clause counts added (``later``'s new clause
        kinds after this one's, in its order, as one pass would insert them)."""
        if not isinstance(later, SubjectVerbAgreementObservation):
            raise TypeError(f"cannot merge {type(later).__name__} into subject_verb_agreement")
        if (later.relations, later.third_person_upos) != (self.relations, self.third_person_upos):
            raise ValueError("cannot merge subject_verb_agreement observations of other options")
        self.inventory.merge(later.inventory)
        self.clauses.update(later.clauses)


@dataclass
class LayerCounts:
    """How one layer of the agreeing word relates to the subject over the clauses of one
    type: clauses whose subject number (person) the layer repeats (``number_agree``,
    ``person_agree``); plural-subject clauses where the layer has a number, and those with a
    plural one (the number-agreement evidence); clauses where both have a person, and those
    where they are the same."""

    number_agree: int = 0
    person_agree: int = 0
    plural_numbered: int = 0
    plural_plural: int = 0
    person_compared: int = 0
    person_same: int = 0

    @property
    def score(self) -> int:
        return self.number_agree + self.person_agree


@dataclass
class TypeEvidence:
    """The subject clauses of one clause type: how many, how many with a subject number and
    person (the denominators of the agreement rates), and the counts per layer."""

    clauses: int = 0
    subject_number: int = 0
    subject_person: int = 0
    layers: dict[str, LayerCounts] = field(default_factory=dict)

    def rates(self) -> dict[str, dict[str, float | None]]:
        """Per layer: the share of clauses with a subject number (person) whose agreeing word
        repeats it on that layer."""

        def share(n: int, of: int) -> float | None:
            return round(n / of, 4) if of else None

        return {
            layer: {
                "number": share(c.number_agree, self.subject_number),
                "person": share(c.person_agree, self.subject_person),
            }
            for layer, c in sorted(self.layers.items())
        }


def layer_evidence(
    clauses: Mapping[tuple[str, Agreement, FeatsKey], int],
) -> dict[str, TypeEvidence]:
    """Per clause type (and ``*``, all types pooled): every layer seen on an agreeing word
    (and the plain one) read on every clause with :func:`layer_agreement`, as the candidate
    pass reads it, and counted against the subject."""
    layers = sorted(
        {PLAIN_LAYER}
        | {layer for (_, _, items) in clauses for layer in agreement_layers(dict(items))}
    )
    evidence: dict[str, TypeEvidence] = {}
    for (ctype, (s_person, s_number), items), n in clauses.items():
        feats = dict(items)
        for key in (ctype, ANY_TYPE):
            ev = evidence.setdefault(key, TypeEvidence())
            ev.clauses += n
            ev.subject_number += n if s_number is not None else 0
            ev.subject_person += n if s_person is not None else 0
            for layer in layers:
                v_person, v_number = layer_agreement(feats, layer)
                c = ev.layers.setdefault(layer, LayerCounts())
                if s_number is not None and v_number == s_number:
                    c.number_agree += n
                if s_person is not None and v_person == s_person:
                    c.person_agree += n
                if s_number == "Plur" and v_number is not None:
                    c.plural_numbered += n
                    c.plural_plural += n if v_number == "Plur" else 0
                if s_person is not None and v_person is not None:
                    c.person_compared += n
                    c.person_same += n if s_person == v_person else 0
    return evidence


def _layer_rank(layer: str) -> tuple[int, str]:
    """Tie order: the plain features, then UD's subject layer, then the others by name."""
    return (0 if layer == PLAIN_LAYER else 1 if layer == "subj" else 2, layer)


def best_layer(ev: TypeEvidence | None) -> str:
    """The layer that repeats the subject's number and person in the most clauses (ties: see
    :func:`_layer_rank`); the plain one without evidence. A layer other than plain or
    ``[subj]`` must beat the better of those by :data:`LAYER_MARGIN` of the comparisons: a
    layered reading falls back to the plain features, so on a verb that marks the subject plain
    it scores the same, and a handful of clauses must not move a language off its plain
    reading (Turkish IMST transitive clauses: ``[psor]`` 88.2% vs plain 88.0% on number)."""
    if ev is None or not ev.layers:
        return PLAIN_LAYER
    ranked = sorted(ev.layers, key=lambda layer: (-ev.layers[layer].score, _layer_rank(layer)))
    best = ranked[0]
    if best in DEFAULT_LAYERS:
        return best
    defaults = [layer for layer in ranked if layer in DEFAULT_LAYERS]
    fallback = defaults[0] if defaults else PLAIN_LAYER
    comparisons = ev.subject_number + ev.subject_person
    fallback_score = ev.layers[fallback].score if fallback in ev.layers else 0
    if ev.layers[best].score - fallback_score >= LAYER_MARGIN * comparisons:
        return best
    return fallback


def derive_layers(evidence: Mapping[str, TypeEvidence], min_clauses: int) -> dict[str, str]:
    """The layer the data chooses per clause type: the :func:`best_layer` of the type's own
    clauses, or of all clause types pooled (``*``) for a type seen in fewer than
    ``min_clauses`` clauses."""
    pooled = best_layer(evidence.get(ANY_TYPE))
    derived = {ANY_TYPE: pooled}
    for ctype, ev in evidence.items():
        if ctype != ANY_TYPE:
            derived[ctype] = best_layer(ev) if ev.clauses >= min_clauses else pooled
    return dict(sorted(derived.items()))


def choose_layers(derived: Mapping[str, str], forced: Mapping[str, str]) -> dict[str, str]:
    """The layers used: the profile's ``subject_layers`` entries win; a forced ``*`` is the
    layer of every clause type the profile does not list (no derivation then), otherwise
    unlisted types keep their derived layer."""
    default = forced.get(ANY_TYPE)
    chosen = {
        ctype: forced.get(ctype) or default or derived.get(ctype) or PLAIN_LAYER
        for ctype in {*derived, *forced, ANY_TYPE}
    }
    return dict(sorted(chosen.items()))


@dataclass(frozen=True)
class TreebankSpellings:
    """Every answer :meth:`FormInventory.spelling` gives, without the inventory: ``plain``,
    the form keys usually written as the key itself (most of them), and ``respelled``, the
    others with their usual spelling (*Tom*, *ICU*); any other key was never seen (``None``).

    Why every key and not only the verbs': the candidate pass asks for the spelling of the
    agreeing word's form (:func:`regular_case`), a word of the sentence at hand whose UPOS it
    does not check (a finite ``aux`` may carry any tag), and the answer (a spelling, or
    ``None``: dropped as "unusual case") decides the drop reason the report counts. Why not
    the inventory: its counts, cells and UPOS tables are 7 times the size of these answers,
    and the fit is shipped to every process that makes candidates."""

    plain: frozenset[str] = frozenset()
    respelled: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, inventory: FormInventory) -> TreebankSpellings:
        """The spellings of every form key ``inventory`` counted (no other key has one)."""
        spelled = {key: inventory.spelling(key) for key in inventory.form_counts}
        return cls(
            frozenset(key for key, usual in spelled.items() if usual == key),
            {key: usual for key, usual in spelled.items() if usual is not None and usual != key},
        )

    def spelling(self, key: str) -> str | None:
        """:meth:`FormInventory.spelling` of the inventory this was made of."""
        return key if key in self.plain else self.respelled.get(key)


Paradigms = dict[tuple[str, str, str, FeatsKey], dict[str, frozenset[Agreement]]]


@dataclass(frozen=True, kw_only=True)
class SubjectVerbAgreementFit(Fit):
    """What the candidate pass reads, and nothing else (the fit is shipped to every process
    that makes candidates): the treebank's spellings (:class:`TreebankSpellings`), whether
    number counts (``number_agreement``: forced by the profile or derived), the layer that
    indexes the subject per clause type (``subject_layers``, ``*`` for any other type), the
    treebank forms a cell can offer (``paradigms``: see :func:`offered_forms`) and the
    UniMorph lexicon, if any (verbal entries per lemma key; ``unimorph_nouns``: its verb forms
    that are nouns, by a noun entry or a NOUN tag in the treebank; ``unimorph_spelling``: the
    spellings that differ from their form key)."""

    spellings: TreebankSpellings
    number_agreement: bool = False
    subject_layers: dict[str, str] = field(default_factory=lambda: {ANY_TYPE: PLAIN_LAYER})
    paradigms: Paradigms = field(default_factory=dict)
    unimorph: dict[str, list[UniMorphVerb]] = field(default_factory=dict)
    unimorph_nouns: frozenset[str] = frozenset()
    unimorph_spelling: dict[str, str] = field(default_factory=dict)

    def compatible(self, subj: Agreement, verb: Agreement) -> bool:
        """:func:`compatible` with this corpus's choice about number."""
        return compatible(subj, verb, self.number_agreement)

    def layer_for(self, ctype: str) -> str:
        """The layer read for a subject of clause type ``ctype``."""
        layers = self.subject_layers
        return layers.get(ctype) or layers.get(ANY_TYPE) or PLAIN_LAYER


class SubjectVerbAgreement(Task[Sentence]):
    """Original sentence (``agree``) vs. a copy whose agreeing verb form was replaced by a form
    of the same lemma that does not agree with the subject (``disagree``).

    Candidate: the root is a VERB with exactly one overt subject (``nsubj``/``nsubj:pass`` by
    default), not coordinated, with ``Number`` and a person (``Person``, or 3rd for NOUN/PROPN).
    The agreeing word is the root when it is finite, else its single finite auxiliary (English
    *has gone*, Slovenian *je šel*). Its person/number are read plain or from the ``[subj]``
    layer (Georgian). The original must agree (annotation disagreements, e.g. *the team are*,
    are dropped) and must not be spelled like its lemma.

    Replacement: a form of the same lemma and UPOS with every other feature equal (tense,
    mood, object agreement...), a different case-folded form, never seen as NOUN in the corpus,
    and incompatible with the subject in *every* analysis in which it is attested for that
    lemma, in this cell and in any other finite cell (German *spielt* is 3sg and 2pl: it can
    replace *spielen* after *sie* (3pl) but not after *ihr*; *habe* is indicative 1sg and
    subjunctive 3sg, so it never replaces *hat* after *er*).
    Compatibility always compares person; it compares number only where the corpus shows number
    agreement in at least ``number_agreement_threshold`` of its plural-subject clauses with a
    numbered verb (derived: Turkish plural subjects take singular verbs most of the time, so
    there a number-only change would not be an agreement error). The replacement is drawn
    uniformly from the sorted candidates with ``stable_rng(seed, task, treebank, sent_id)``.

    Forms come from the treebanks themselves (every ``(lemma, UPOS, features)`` cell seen) and,
    with the ``unimorph`` option (a path or list of paths), also from a UniMorph lexicon: the
    original form's UniMorph analyses under the same lemma that match its UD person/number give
    the paradigm cells; their other dimensions must be equal.
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="subject_verb_agreement",
        level=Level.SENTENCE,
        description=(
            "Decide whether the main verb agrees with its subject in person and number (agree) "
            "or has been replaced by a non-agreeing form of the same verb (disagree)."
        ),
        labels=LABELS,
        citation=WEHNER_2019,
        seed_dependent=True,
        paired_copies=True,
        lexical_control=False,
        notes=(
            "Each source sentence gives both an 'agree' (original) and a 'disagree' row (same "
            "group).",
            "The agreeing word is the finite root VERB, or its single finite auxiliary when the "
            "root is non-finite; subject features are plain, verb features plain or from the "
            "agreement layer derived per clause type ([subj]; Basque [erg]/[abs]: the layer "
            "note below names it when it is not the plain features or [subj]). NOUN/PROPN "
            "subjects count as 3rd person.",
            "The replacement has the same lemma, UPOS and all other features, a different form, "
            "is never a NOUN in the corpus and is incompatible with the subject in every "
            "analysis it has. Number-only changes are used only where the corpus shows number "
            "agreement in at least 95% of plural-subject clauses (derived; the recipe records "
            "the share).",
            "Originals spelled like their lemma are not used (English 'they go', German 'sie "
            "spielen' are syncretic with the infinitive); a replacement may equal the lemma.",
            "No lexical control: the verb is the probed word in both classes.",
        ),
    )

    Options: ClassVar[type] = SubjectVerbAgreementOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "number_agreement_evidence",
            "person_agreement_share",
            "paradigm_cells",
            "subject_layer_evidence",
            "unimorph_lexicon",
        }
    )

    def __init__(self, options: Any = None, context: TaskContext | None = None) -> None:
        super().__init__(options, context)
        # Where the emitted replacements came from, counted by the candidate pass for the
        # recipe (a tally of what was emitted, like ``drops``; no choice depends on it).
        self.replacement_sources: Counter[str] = Counter()

    # --- first pass -------------------------------------------------------------------------
    def observation(self) -> SubjectVerbAgreementObservation:
        o = self.options
        return SubjectVerbAgreementObservation(
            self.context, o.subject_relations, o.third_person_upos
        )

    def fit(self, observation: Observation | None) -> SubjectVerbAgreementFit:
        assert isinstance(observation, SubjectVerbAgreementObservation)
        o = self.options
        evidence = layer_evidence(observation.clauses)
        derived_layers = derive_layers(evidence, o.layer_min_clauses)
        layers = choose_layers(derived_layers, o.subject_layers)
        # Number and person evidence on the layer each clause type reads.
        agree = total = same = persons = 0
        for ctype, ev in evidence.items():
            if ctype == ANY_TYPE:
                continue
            counts = ev.layers.get(layers.get(ctype, layers[ANY_TYPE]), LayerCounts())
            agree += counts.plural_plural
            total += counts.plural_numbered
            same += counts.person_same
            persons += counts.person_compared
        share = agree / total if total else None
        derived = share is not None and share >= o.number_agreement_threshold
        number = derived if o.number_agreement is None else o.number_agreement
        inventory = observation.inventory
        paradigms: dict[tuple[str, str, str, FeatsKey], dict[str, set[Agreement]]] = {}
        analyses: dict[tuple[str, str, str], set[Agreement]] = {}
        unique: dict[Agreement, Agreement] = {}  # one tuple per analysis: pickled once
        for layer in sorted(set(layers.values())):
            for (lemma, upos, feats), forms in inventory.cells.items():
                feats_dict = dict(feats)
                analysis = agreement(feats_dict, layer)
                analysis = unique.setdefault(analysis, analysis)
                cell = paradigms.setdefault((layer, lemma, upos, rest_key(feats_dict, layer)), {})
                for form in forms:
                    cell.setdefault(form, set()).add(analysis)
                    if analysis != (None, None):
                        analyses.setdefault((layer, lemma, form), set()).add(analysis)
        lexicon = load_unimorph(o.unimorph, o.unimorph_layout, self.context.lang)
        # Keys that are options carry the option's value (a profile printed by ``polyprobe
        # profile`` can be passed back unchanged); the evidence sits under other keys.
        report: dict[str, Any] = {
            "subject_relations": list(o.subject_relations),
            "third_person_upos": list(o.third_person_upos),
            "number_agreement": number,
            "number_agreement_threshold": o.number_agreement_threshold,
            "number_agreement_evidence": {
                "plural_subject_clauses": total,
                "verb_plural": agree,
                "share": round(share, 4) if share is not None else None,
                "derived": derived,
            },
            "person_agreement_share": round(same / persons, 4) if persons else None,
            "paradigm_cells": len(paradigms),
            "subject_layers": layers,
            "layer_min_clauses": o.layer_min_clauses,
            "subject_layer_evidence": {
                ctype: {
                    "clauses": ev.clauses,
                    "subject_number": ev.subject_number,
                    "subject_person": ev.subject_person,
                    "derived": derived_layers[ctype],
                    "basis": "all clause types"
                    if ctype != ANY_TYPE and ev.clauses < o.layer_min_clauses
                    else "own clauses",
                    "rates": ev.rates(),
                }
                for ctype, ev in sorted(evidence.items())
            },
        }
        verbs: dict[str, list[UniMorphVerb]] = {}
        nouns: frozenset[str] = frozenset()
        spellings: dict[str, str] = {}
        if lexicon is not None:
            # File names and checksums, not paths: the card must not carry local directories
            # (the lexicon is an input, given again with the option when rebuilding).
            report["unimorph_lexicon"] = lexicon.report
            verbs = lexicon.verbs
            # The candidate pass asks these only of the lexicon's verb forms (and spells a
            # form as its key when the lexicon has no other spelling).
            offered = {entry[0] for entries in verbs.values() for entry in entries}
            nouns = frozenset(
                form for form in offered if form in lexicon.nouns or inventory.seen_as(form, "NOUN")
            )
            spellings = {
                form: written for form, written in lexicon.spelling.items() if written != form
            }
        return SubjectVerbAgreementFit(
            label_names=LABELS,
            report=report,
            notes=layer_notes(layers, evidence) + number_note(number, derived, share, total, o),
            spellings=TreebankSpellings.of(inventory),
            number_agreement=number,
            subject_layers=layers,
            paradigms=offered_forms(paradigms, analyses, inventory),
            unimorph=verbs,
            unimorph_nouns=nouns,
            unimorph_spelling=spellings,
        )

    def parameters(self, fit: Fit) -> dict[str, Any]:
        o = self.options
        if isinstance(fit, SubjectVerbAgreementFit):
            number = fit.number_agreement
        else:  # not fitted: only a forced choice is known
            number = bool(o.number_agreement)
        params: dict[str, Any] = {
            "predicate": "root VERB; agreeing word = the root if finite, else its single "
            "finite aux",
            "subject": "single non-coordinated subject of the root with Number and a person",
            "subject_relations": list(o.subject_relations),
            "third_person_upos": list(o.third_person_upos),
            "agreement_features": agreement_features(fit),
            "replacement": "same lemma, UPOS and other features; different form; never NOUN; "
            "incompatible with the subject in every attested analysis",
            "number_agreement_threshold": o.number_agreement_threshold,
            "number_only_changes": number,
            "choice": "uniform over sorted candidate forms, stable_rng(seed, task, treebank, "
            "sent_id)",
            "replacement_sources": dict(sorted(self.replacement_sources.items())),
        }
        if isinstance(fit, SubjectVerbAgreementFit):
            if not set(fit.subject_layers.values()) <= DEFAULT_LAYERS:
                params["subject_layers"] = dict(fit.subject_layers)
            params["number_agreement_evidence"] = fit.report["number_agreement_evidence"]
            params["unimorph_lexicon"] = fit.report.get("unimorph_lexicon")
        return params

    # --- candidates -------------------------------------------------------------------------
    def replacements(
        self,
        carrier: Word,
        subj: Agreement,
        fit: SubjectVerbAgreementFit,
        layer: str = PLAIN_LAYER,
    ) -> dict[str, str]:
        """Case-folded replacement forms -> where they come from (``treebank``, ``unimorph``,
        ``both``), the subject's agreement read on ``layer``: every other feature, other
        layers included (a Basque transitive verb keeps its ``[abs]`` object agreement), stays.
        UniMorph's person and number are the subject's only where UD reads it plain or on
        ``[subj]``; for other layers the lexicon is not consulted."""
        lang = self.context.lang
        own = form_key(carrier.form, lang)
        lemma = form_key(carrier.lemma, lang)
        out: dict[str, str] = {}
        number = fit.number_agreement
        paradigm = fit.paradigms.get((layer, lemma, carrier.upos, rest_key(carrier.feats, layer)))
        for form, analyses in (paradigm or {}).items():
            if form == own:
                continue
            # ``analyses``: the form's analyses in every cell of the lemma, so a form that
            # agrees in another tense/mood is not offered (de 'habe': Ind 1sg and Sub 3sg).
            if any(compatible(subj, a, number) for a in analyses):
                continue
            out[form] = "treebank"
        entries = fit.unimorph.get(lemma) if layer in DEFAULT_LAYERS else None
        if entries:
            v_person, v_number = agreement(carrier.feats, layer)
            rests = {
                rest
                for form, _, rest, (p, n) in entries
                if form == own
                and (p is None or v_person is None or p == v_person)
                and (n is None or v_number is None or n == v_number)
            }
            agreeing = {
                f for f, _, _, a in entries if a != (None, None) and compatible(subj, a, number)
            }
            for rest in sorted(rests):
                cell = [e for e in entries if e[2] == rest]
                ok = {f for f, _, _, a in cell if not compatible(subj, a, number)}
                ok -= {f for f, _, _, a in cell if compatible(subj, a, number)} | agreeing
                for form in sorted(ok):
                    if form == own or form in fit.unimorph_nouns:
                        continue
                    out[form] = "both" if out.get(form) in ("treebank", "both") else "unimorph"
        return out

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, SubjectVerbAgreementFit)
        root = sentence.root
        if root.upos != "VERB":
            return self.drop("root is not a VERB")
        o = self.options
        relations = o.subject_relations
        subjects = [c for c in sentence.children(root.id) if c.deprel in relations]
        if not subjects:
            return self.drop("no overt subject")
        if len(subjects) > 1:
            return self.drop("more than one subject")
        subj = subjects[0]
        if any(_base(c.deprel) == "conj" for c in sentence.children(subj.id)):
            return self.drop("coordinated subject")
        s_agr = subject_agreement(subj, o.third_person_upos)
        if s_agr[1] is None:
            return self.drop("subject without Number")
        if s_agr[0] is None:
            return self.drop("subject without Person")
        carrier = agreement_carrier(sentence, root, ("aux",))
        if isinstance(carrier, str):
            return self.drop(carrier)
        layer = fit.layer_for(clause_type(subj.deprel, transitivity(sentence, root)))
        v_agr = agreement(carrier.feats, layer)
        if v_agr == (None, None):
            return self.drop("verb carries no Person/Number")
        if not compatible(s_agr, v_agr, fit.number_agreement):
            return self.drop("original does not agree")
        tokens = sentence.surface_tokens()
        index = next(i for i, t in enumerate(tokens) if carrier.id in t.word_ids)
        if len(tokens[index].word_ids) != 1:
            return self.drop("verb inside a multiword token")
        lang = self.context.lang
        if form_key(carrier.form, lang) == form_key(carrier.lemma, lang):
            return self.drop("original form equals its lemma")
        if not regular_case(fit.spellings, tokens, index, lang):
            return self.drop("verb in unusual case")
        options = self.replacements(carrier, s_agr, fit, layer)
        if not options:
            return self.drop("no disagreeing form of the verb")
        forms = sorted(options)
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        form = forms[choice_index(rng, len(forms))]
        spelling = fit.spellings.spelling(form) or fit.unimorph_spelling.get(form, form)
        changed = substitute(tokens, index, spelling, self.context)
        original = sentence_inputs(sentence)
        original_text = original["sentence"]
        changed_text = render(changed)
        if changed_text == original_text:
            return self.drop("replacement does not change the text")
        self.replacement_sources[options[form]] += 1
        return [
            Candidate(
                original,
                "agree",
                copy="agree",
            ),
            Candidate(
                {"sentence": changed_text, "tokens": [t.form for t in changed]},
                "disagree",
                copy="disagree",
            ),
        ]


def offered_forms(
    paradigms: Mapping[tuple[str, str, str, FeatsKey], Mapping[str, set[Agreement]]],
    analyses: Mapping[tuple[str, str, str], set[Agreement]],
    inventory: FormInventory,
) -> Paradigms:
    """The treebank forms each paradigm cell (``(layer, lemma, UPOS, other features)``) can
    offer as a replacement, each with its analyses in *every* cell of its lemma on that layer
    (syncretism across tenses and moods: the form must disagree in all of them).

    Left out, as the candidate pass would refuse them whatever the subject: forms seen as
    NOUN anywhere in the corpus (a replacement is never a noun), forms with an analysis
    without person and number in the cell (an infinitive, a participle: compatible with every
    subject); cells left empty go too. What remains is tested against the subject alone (the
    cell's own analyses are among the lemma's). Why here and not at candidate time: the fit
    is pickled for every process that makes candidates, and this keeps a fifth of the cells
    (EWT: 1,109 of 5,335) and no inventory; equal analysis sets are one frozenset (EWT: 30
    distinct sets for 1,232 forms), pickled once."""
    shared: dict[frozenset[Agreement], frozenset[Agreement]] = {}
    offered: Paradigms = {}
    for cell, forms in paradigms.items():
        layer, lemma = cell[0], cell[1]
        kept: dict[str, frozenset[Agreement]] = {}
        for form, cell_analyses in forms.items():
            if (None, None) in cell_analyses or inventory.seen_as(form, "NOUN"):
                continue
            every = frozenset(analyses[(layer, lemma, form)])  # holds cell_analyses
            kept[form] = shared.setdefault(every, every)
        if kept:
            offered[cell] = kept
    return offered


def agreement_features(fit: Fit) -> dict[str, list[str]]:
    """The verb features the recipe reads for agreement: plain, else ``[subj]``, when the
    derivation chose only those layers (every corpus read that way before layers were
    derived, whose cards therefore keep their wording); otherwise the chosen layers' keys,
    each with the plain feature as its fallback."""
    layers = fit.subject_layers if isinstance(fit, SubjectVerbAgreementFit) else {}
    chosen = sorted(set(layers.values()), key=_layer_rank)
    if set(chosen) <= DEFAULT_LAYERS:
        return {"person": list(PERSON_KEYS), "number": list(NUMBER_KEYS)}
    keys = [layer_keys(layer) for layer in chosen]
    return {
        "person": list(dict.fromkeys([*(k[0] for k in keys), "Person"])),
        "number": list(dict.fromkeys([*(k[1] for k in keys), "Number"])),
    }


def number_note(
    number: bool,
    derived: bool,
    share: float | None,
    total: int,
    options: SubjectVerbAgreementOptions,
) -> tuple[str, ...]:
    """A card note when number-only changes are off: the disagree copies then change the
    verb's person only (Basque, whose verbs' number is not derived as agreeing), which the
    static notes cannot know."""
    if number:
        return ()
    why = (
        "forced by the profile (number_agreement = false)"
        if options.number_agreement is not None
        else "derived: "
        + (
            f"{share:.1%} of {total} plural-subject clauses have a plural verb on the layer read"
            if share is not None
            else "no plural-subject clause with a numbered verb"
        )
        + f", below number_agreement_threshold {options.number_agreement_threshold}"
    )
    return (
        "Number agreement is not used here (" + why + "): every disagree copy's verb differs "
        "from its subject in person (it may differ in number too); no copy differs in number "
        "alone.",
    )


def layer_notes(layers: Mapping[str, str], evidence: Mapping[str, TypeEvidence]) -> tuple[str, ...]:
    """A card note naming the layer read per clause type and its agreement rates, when the
    derivation chose a layer other than the plain features or ``[subj]`` (Basque: ``[erg]``
    for transitive subjects, ``[abs]`` for intransitive ones)."""
    if set(layers.values()) <= DEFAULT_LAYERS:
        return ()
    parts = []
    for ctype, layer in layers.items():
        ev = evidence.get(ctype)
        rates = ev.rates().get(layer, {}) if ev is not None else {}
        shown = ", ".join(
            f"{feature} {rate:.1%}" for feature, rate in rates.items() if rate is not None
        )
        name = "the plain features" if layer == PLAIN_LAYER else f"[{layer}]"
        parts.append(f"{ctype}: {name}" + (f" ({shown})" if shown else ""))
    return (
        "Verb agreement is read from the layer that repeats the subject's number and person "
        "most often, derived per clause type (* = any other type; the share of clauses whose "
        "agreeing word repeats the subject's value on that layer): " + "; ".join(parts) + ".",
    )


@dataclass(frozen=True)
class UniMorphVerbs:
    """What the task reads of a UniMorph lexicon: ``verbs`` (verbal entries per lemma key),
    ``nouns`` (form keys with a noun entry), ``spelling`` (a form as written per form key, the
    first met) and ``report`` (file names with checksums, counts: the card's entry)."""

    verbs: dict[str, list[UniMorphVerb]]
    nouns: frozenset[str]
    spelling: dict[str, str]
    report: dict[str, Any]


def load_unimorph(
    paths: Iterable[str | Path], layout: str | None, lang: str
) -> UniMorphVerbs | None:
    """The verbal and noun entries of the lexicon at ``paths`` (``None`` when no path is
    given), keyed by :func:`form_key`; person and number mapped to UD values, multi-word forms
    left out."""
    paths = list(paths)
    if not paths:
        return None
    from polyprobe.loaders.unimorph import UniMorphReader

    reader = UniMorphReader(unimorph_paths(paths), layout=layout, lang=lang)
    verbs: dict[str, list[UniMorphVerb]] = {}
    nouns: set[str] = set()
    spelling: dict[str, str] = {}
    entries = 0
    for entry in reader:
        key = form_key(entry.form, lang)
        if entry.pos in UNIMORPH_NOUN_POS:
            nouns.add(key)
            continue
        if entry.pos not in UNIMORPH_VERBAL_POS or " " in entry.form.strip():
            continue
        feats = entry.features
        person = UNIMORPH_PERSON.get(feats.get("Person", ""))
        number = UNIMORPH_NUMBER.get(feats.get("Number", ""))
        rest = tuple(sorted((k, v) for k, v in feats.items() if k not in ("Person", "Number")))
        verbs.setdefault(form_key(entry.lemma, lang), []).append(
            (key, entry.form, rest, (person, number))
        )
        spelling.setdefault(key, entry.form)
        entries += 1
    report = {
        "files": {Path(p).name: file_sha256(str(p)) for p in reader.paths},
        "verbal_entries": entries,
        "lemmas": len(verbs),
    }
    return UniMorphVerbs(verbs, frozenset(nouns), spelling, report)


def unimorph_paths(value: str | Path | Iterable[str | Path]) -> list[Path]:
    """The ``unimorph`` option as a list of paths (a single path or a list)."""
    if isinstance(value, str | Path):
        return [Path(value)]
    return [Path(v) for v in value]
