"""``subject_verb_agreement``: does the main verb agree with its subject?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from polyprobe.builders.rendering import render, sentence_inputs
from polyprobe.builders.sentence.inventory import (
    FeatsKey,
    FormInventory,
    form_key,
    regular_case,
    substitute,
)
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.hashing import choice_index, file_sha256, stable_rng
from polyprobe.loaders.records import Sentence, Word

WEHNER_2019 = (
    "Wehner, Daniel (2019). Interpretability of Sentence Embeddings in Low-Resource "
    "Languages. Master's thesis, Technische Universität Darmstadt. Published with: Eger, "
    "Steffen, Johannes Daxenberger and Iryna Gurevych (2020). How to Probe Sentence "
    "Embeddings in Low-Resource Languages: On Structural Design Choices for Probing Task "
    "Evaluation. In Proceedings of the 24th Conference on Computational Natural Language "
    "Learning (CoNLL 2020). arXiv:2006.09109."
)

DEFAULT_SUBJECT_RELATIONS: tuple[str, ...] = ("nsubj", "nsubj:pass")
DEFAULT_THIRD_PERSON_UPOS: tuple[str, ...] = ("NOUN", "PROPN")
DEFAULT_THRESHOLD = 0.95
VERBAL_UPOS: tuple[str, ...] = ("VERB", "AUX")
# Subject agreement on the verb: plain (most treebanks) or layered (Georgian, Basque mark the
# subject's and the object's person separately: ``Person[subj]``, ``Person[obj]``).
PERSON_KEYS: tuple[str, ...] = ("Person", "Person[subj]")
NUMBER_KEYS: tuple[str, ...] = ("Number", "Number[subj]")
AGREEMENT_KEYS = frozenset(PERSON_KEYS + NUMBER_KEYS)

# UniMorph value names -> UD values (UniMorph schema names, see unimorph_schema).
UNIMORPH_PERSON = {"First person": "1", "Second person": "2", "Third person": "3"}
UNIMORPH_NUMBER = {"Singular": "Sing", "Plural": "Plur", "Dual": "Dual", "Trial": "Tri"}
UNIMORPH_VERBAL_POS = frozenset({"V", "AUX"})
UNIMORPH_NOUN_POS = frozenset({"N"})

Agreement = tuple[str | None, str | None]  # (Person, Number) as UD values


def _first(feats: Mapping[str, str], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = feats.get(key)
        if value:
            return value
    return None


def agreement(feats: Mapping[str, str]) -> Agreement:
    """The subject-agreement features of a verb: plain ``Person``/``Number``, else the
    ``[subj]`` layer."""
    return _first(feats, PERSON_KEYS), _first(feats, NUMBER_KEYS)


def rest_key(feats: Mapping[str, str]) -> FeatsKey:
    """Every feature except subject agreement (``Person[obj]``, ``Number[psor]`` stay)."""
    return tuple(sorted((k, v) for k, v in feats.items() if k not in AGREEMENT_KEYS))


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


class SubjectVerbAgreement(Task):
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

    name: ClassVar[str] = "subject_verb_agreement"
    # 3.7 alone; it always shares a shard with odd_man_out (shard_affinity), whose sentence
    # digest its first pass then reuses: 0.7 less there (bench/build_phases.py timelines).
    relative_cost: ClassVar[float] = 3.0
    shard_affinity: ClassVar[str] = "form_inventory"  # its SentenceDigest memo
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Decide whether the main verb agrees with its subject in person and number (agree) or "
        "has been replaced by a non-agreeing form of the same verb (disagree)."
    )
    label_names: ClassVar[tuple[str, ...]] = ("agree", "disagree")
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = WEHNER_2019
    seed_dependent: ClassVar[bool] = True
    paired_copies: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Each source sentence gives both an 'agree' (original) and a 'disagree' row (same group).",
        "The agreeing word is the finite root VERB, or its single finite auxiliary when the "
        "root is non-finite; subject features are plain, verb features plain or from the "
        "[subj] layer. NOUN/PROPN subjects count as 3rd person.",
        "The replacement has the same lemma, UPOS and all other features, a different form, "
        "is never a NOUN in the corpus and is incompatible with the subject in every analysis "
        "it has. Number-only changes are used only where the corpus shows number agreement in "
        "at least 95% of plural-subject clauses (derived; the recipe records the share).",
        "Originals spelled like their lemma are not used (English 'they go', German 'sie "
        "spielen' are syncretic with the infinitive); a replacement may equal the lemma.",
        "No lexical control: the verb is the probed word in both classes.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0) -> None:
        super().__init__(params, seed)
        # Verbs (cells, spelling) and nouns (the "never a NOUN" test) are all this task reads.
        self.inventory = FormInventory(self.params, VERBAL_UPOS, only_upos=(*VERBAL_UPOS, "NOUN"))
        self.number_clauses: Counter[str] = Counter()  # plural subject: verb Plur / other
        self.person_clauses: Counter[str] = Counter()  # subject person == verb person?
        # (lemma, UPOS, rest) -> form -> analyses (person, number) seen.
        self._paradigms: dict[tuple[str, str, FeatsKey], dict[str, set[Agreement]]] = {}
        # (lemma, form) -> person/number analyses in any verbal cell (syncretism across cells).
        self._analyses: dict[tuple[str, str], set[Agreement]] = {}
        self._unimorph: dict[str, list[tuple[str, str, FeatsKey, Agreement]]] = {}
        self._unimorph_nouns: set[str] = set()
        self._unimorph_spelling: dict[str, str] = {}
        self._number_agreement: bool | None = None
        self._derived: dict[str, Any] = {}
        self.replacement_sources: Counter[str] = Counter()

    # --- options ----------------------------------------------------------------------------
    @property
    def subject_relations(self) -> tuple[str, ...]:
        return tuple(self.option("subject_relations", DEFAULT_SUBJECT_RELATIONS))

    @property
    def third_person_upos(self) -> tuple[str, ...]:
        return tuple(self.option("third_person_upos", DEFAULT_THIRD_PERSON_UPOS))

    @property
    def threshold(self) -> float:
        return float(self.option("number_agreement_threshold", DEFAULT_THRESHOLD))

    @property
    def number_agreement(self) -> bool:
        """Does number count for (in)compatibility? Derived; a profile may force it."""
        forced = self.option("number_agreement")
        if forced is not None:
            return bool(forced)
        return bool(self._number_agreement)

    # --- clause analysis --------------------------------------------------------------------
    def _subject_agreement(self, subj: Word) -> Agreement:
        person = subj.feats.get("Person")
        if person is None and subj.upos in self.third_person_upos:
            person = "3"
        return person, subj.feats.get("Number")

    def _carrier(self, sentence: Sentence, head: Word, relations: tuple[str, ...]) -> Word | str:
        """The word that carries the clause's agreement, or why there is none."""
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

    def compatible(self, subj: Agreement, verb: Agreement, number: bool | None = None) -> bool:
        """May a verb with ``verb`` person/number stand with a subject with ``subj``? Unknown
        values are compatible with anything; number counts only where the corpus agrees in
        number (``number``)."""
        number = self.number_agreement if number is None else number
        if verb[0] is not None and subj[0] is not None and verb[0] != subj[0]:
            return False
        return not (number and verb[1] is not None and subj[1] is not None and verb[1] != subj[1])

    # --- first pass -------------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        self.inventory.observe(sentence)
        relations = self.subject_relations
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
            carrier = self._carrier(sentence, sentence.word(subj.head), ("aux", "cop"))
            if isinstance(carrier, str):
                continue
            s_person, s_number = self._subject_agreement(subj)
            v_person, v_number = agreement(carrier.feats)
            if s_number == "Plur" and v_number is not None:
                self.number_clauses["verb Plur" if v_number == "Plur" else "verb not Plur"] += 1
            if s_person is not None and v_person is not None:
                self.person_clauses["same" if s_person == v_person else "different"] += 1

    def derive(self) -> dict[str, Any]:
        agree = self.number_clauses["verb Plur"]
        total = agree + self.number_clauses["verb not Plur"]
        share = agree / total if total else None
        self._number_agreement = share is not None and share >= self.threshold
        self._paradigms, self._analyses = {}, {}
        for (lemma, upos, feats), forms in self.inventory.cells.items():
            feats_dict = dict(feats)
            analysis = agreement(feats_dict)
            cell = self._paradigms.setdefault((lemma, upos, rest_key(feats_dict)), {})
            for form in forms:
                cell.setdefault(form, set()).add(analysis)
                if analysis != (None, None):
                    self._analyses.setdefault((lemma, form), set()).add(analysis)
        unimorph = self._load_unimorph()
        same = self.person_clauses["same"]
        persons = same + self.person_clauses["different"]
        # Keys that are options carry the option's value (a profile printed by ``polyprobe
        # profile`` can be passed back unchanged); the evidence sits under other keys.
        self._derived = {
            "subject_relations": list(self.subject_relations),
            "third_person_upos": list(self.third_person_upos),
            "number_agreement": self.number_agreement,
            "number_agreement_threshold": self.threshold,
            "number_agreement_evidence": {
                "plural_subject_clauses": total,
                "verb_plural": agree,
                "share": round(share, 4) if share is not None else None,
                "derived": self._number_agreement,
            },
            "person_agreement_share": round(same / persons, 4) if persons else None,
            "paradigm_cells": len(self._paradigms),
        }
        if unimorph is not None:
            # File names and checksums, not paths: the card must not carry local directories
            # (the lexicon is an input, given again with the option when rebuilding).
            self._derived["unimorph_lexicon"] = unimorph
        return dict(self._derived)

    def _load_unimorph(self) -> dict[str, Any] | None:
        self._unimorph, self._unimorph_nouns, self._unimorph_spelling = {}, set(), {}
        paths = self.option("unimorph")
        if not paths:
            return None
        from polyprobe.loaders.unimorph import UniMorphReader

        lang = self.params.lang
        reader = UniMorphReader(
            unimorph_paths(paths), layout=self.option("unimorph_layout"), lang=lang
        )
        entries = 0
        for entry in reader:
            key = form_key(entry.form, lang)
            if entry.pos in UNIMORPH_NOUN_POS:
                self._unimorph_nouns.add(key)
                continue
            if entry.pos not in UNIMORPH_VERBAL_POS or " " in entry.form.strip():
                continue
            feats = entry.features
            person = UNIMORPH_PERSON.get(feats.get("Person", ""))
            number = UNIMORPH_NUMBER.get(feats.get("Number", ""))
            rest = tuple(sorted((k, v) for k, v in feats.items() if k not in ("Person", "Number")))
            self._unimorph.setdefault(form_key(entry.lemma, lang), []).append(
                (key, entry.form, rest, (person, number))
            )
            self._unimorph_spelling.setdefault(key, entry.form)
            entries += 1
        return {
            "files": {Path(p).name: file_sha256(str(p)) for p in reader.paths},
            "verbal_entries": entries,
            "lemmas": len(self._unimorph),
        }

    def parameters(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "predicate": "root VERB; agreeing word = the root if finite, else its single "
            "finite aux",
            "subject": "single non-coordinated subject of the root with Number and a person",
            "subject_relations": list(self.subject_relations),
            "third_person_upos": list(self.third_person_upos),
            "agreement_features": {"person": list(PERSON_KEYS), "number": list(NUMBER_KEYS)},
            "replacement": "same lemma, UPOS and other features; different form; never NOUN; "
            "incompatible with the subject in every attested analysis",
            "number_agreement_threshold": self.threshold,
            "number_only_changes": self.number_agreement,
            "choice": "uniform over sorted candidate forms, stable_rng(seed, task, treebank, "
            "sent_id)",
            "replacement_sources": dict(sorted(self.replacement_sources.items())),
        }
        if self._derived:
            params["number_agreement_evidence"] = self._derived["number_agreement_evidence"]
            params["unimorph_lexicon"] = self._derived.get("unimorph_lexicon")
        return params

    # --- candidates -------------------------------------------------------------------------
    def replacements(self, carrier: Word, subj: Agreement) -> dict[str, str]:
        """Case-folded replacement forms -> where they come from (``treebank``, ``unimorph``,
        ``both``)."""
        lang = self.params.lang
        own = form_key(carrier.form, lang)
        lemma = form_key(carrier.lemma, lang)
        out: dict[str, str] = {}
        number = self.number_agreement  # an option lookup: once, not per analysis
        paradigm = self._paradigms.get((lemma, carrier.upos, rest_key(carrier.feats)), {})
        for form, analyses in paradigm.items():
            if form == own or self.inventory.seen_as(form, "NOUN"):
                continue
            if any(self.compatible(subj, a, number) for a in analyses):
                continue
            if any(self.compatible(subj, a, number) for a in self._analyses.get((lemma, form), ())):
                continue  # agrees in another tense/mood (de 'habe': Ind 1sg and Sub 3sg)
            out[form] = "treebank"
        entries = self._unimorph.get(lemma)
        if entries:
            v_person, v_number = agreement(carrier.feats)
            rests = {
                rest
                for form, _, rest, (p, n) in entries
                if form == own
                and (p is None or v_person is None or p == v_person)
                and (n is None or v_number is None or n == v_number)
            }
            agreeing = {
                f for f, _, _, a in entries if a != (None, None) and self.compatible(subj, a)
            }
            for rest in sorted(rests):
                cell = [e for e in entries if e[2] == rest]
                ok = {f for f, _, _, a in cell if not self.compatible(subj, a)}
                ok -= {f for f, _, _, a in cell if self.compatible(subj, a)} | agreeing
                for form in sorted(ok):
                    if form == own or form in self._unimorph_nouns:
                        continue
                    if self.inventory.seen_as(form, "NOUN"):
                        continue
                    out[form] = "both" if out.get(form) in ("treebank", "both") else "unimorph"
        return out

    def _spelling(self, key: str) -> str:
        return self.inventory.spelling(key) or self._unimorph_spelling.get(key, key)

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        root = sentence.root
        if root.upos != "VERB":
            return self.drop("root is not a VERB")
        relations = self.subject_relations  # an option lookup: once, not per dependent
        subjects = [c for c in sentence.children(root.id) if c.deprel in relations]
        if not subjects:
            return self.drop("no overt subject")
        if len(subjects) > 1:
            return self.drop("more than one subject")
        subj = subjects[0]
        if any(_base(c.deprel) == "conj" for c in sentence.children(subj.id)):
            return self.drop("coordinated subject")
        s_agr = self._subject_agreement(subj)
        if s_agr[1] is None:
            return self.drop("subject without Number")
        if s_agr[0] is None:
            return self.drop("subject without Person")
        carrier = self._carrier(sentence, root, ("aux",))
        if isinstance(carrier, str):
            return self.drop(carrier)
        v_agr = agreement(carrier.feats)
        if v_agr == (None, None):
            return self.drop("verb carries no Person/Number")
        if not self.compatible(s_agr, v_agr):
            return self.drop("original does not agree")
        tokens = sentence.surface_tokens()
        index = next(i for i, t in enumerate(tokens) if carrier.id in t.word_ids)
        if len(tokens[index].word_ids) != 1:
            return self.drop("verb inside a multiword token")
        lang = self.params.lang
        if form_key(carrier.form, lang) == form_key(carrier.lemma, lang):
            return self.drop("original form equals its lemma")
        if not regular_case(self.inventory, tokens, index, lang):
            return self.drop("verb in unusual case")
        options = self.replacements(carrier, s_agr)
        if not options:
            return self.drop("no disagreeing form of the verb")
        forms = sorted(options)
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        form = forms[choice_index(rng, len(forms))]
        changed = substitute(tokens, index, self._spelling(form), self.params)
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


def unimorph_paths(value: str | Path | Iterable[str | Path]) -> list[Path]:
    """The ``unimorph`` option as a list of paths (a single path or a list)."""
    if isinstance(value, str | Path):
        return [Path(value)]
    return [Path(v) for v in value]
