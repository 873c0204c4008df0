"""``tense``: is the main clause in the past or the present tense?"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.bigram_shift import CONNEAU_2018
from polyprobe.builders.sentence.predicates import (
    has_passive_voice,
    is_finite,
    is_participle,
    is_pass_relation,
    predicate_dependents,
)
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.errors import UsageError
from polyprobe.hashing import lexical_key
from polyprobe.loaders.records import Sentence, Word

LABELS: tuple[str, ...] = ("Past", "Pres")
# A standalone participle root counts as a finite tense form when at least this share of the
# corpus's participle roots with that Tense stand without aux/cop (and are not passive).
DEFAULT_PARTICIPLE_MIN_SHARE = 0.5
# Moods whose Tense feature states form rather than time: imperatives (Turkish IMST writes
# Tense=Pres on them; SentEval's VB-tagged imperatives had no tense), subjunctives (German
# Konjunktiv II "wäre", "würde" is Tense=Past but counterfactual present) and conditionals
# (Russian "бы", an aux with Mood=Cnd over a past form).
DEFAULT_EXCLUDE_MOODS: tuple[str, ...] = ("Imp", "Sub", "Cnd")
_MOOD_PART = re.compile(r"[A-Z][a-z]*")


def mood_components(value: str) -> list[str]:
    """Mood values may combine several moods: Turkish ``CndPot``, ``GenNecPot``; multi-values
    are comma-separated. ``"CndPot"`` -> ``["Cnd", "Pot"]``."""
    return [m for part in value.split(",") for m in _MOOD_PART.findall(part)]


class Tense(Task):
    """Label = the ``Tense`` of the main predicate (the root plus its ``aux``/``cop``).

    The rules keep only predicates whose tense one feature states unambiguously:

    (a) A participle root is periphrastic (perfect, passive, progressive, Slavic l-participle
        with a person auxiliary) whenever it has an aux/cop: dropped. Standing alone it is
        kept only if it carries ``Tense``, is not passive, and the corpus uses standalone
        participles of that tense as its ordinary finite form (derived, see below).
    (b) Otherwise the ``Tense`` values of the root and its aux/cop are collected: none ->
        dropped; a participle among the aux/cop (Slovenian "bil je", English "has been") ->
        periphrastic, dropped; two different values (after the profile's ``map``) -> dropped as
        conflicting; no finite member -> dropped (an infinitive or gerund root tells no tense).
    (c) ``Past``/``Pres`` are the labels; any other value (Fut, Imp, Pqp, ...) is dropped and
        counted unless the profile's ``map`` sends it to a label (e.g. Spanish ``Imp = "Past"``).

    Finiteness is required in (b) only, and of the predicate as a whole (root or one aux/cop):
    the tense of "did not go" sits on the finite auxiliary while the root is an infinitive.
    Tense is nevertheless collected from every member, finite or not, so a predicate whose
    members disagree is dropped rather than labelled by its auxiliary alone. (German-PUD's
    participles carry Tense but no VerbForm; :func:`is_participle` recognises them, so its
    "hat gesagt" is periphrastic under (a) exactly like German-GSD's.) In (a) the participle is
    non-finite by definition; the derived gate below stands in for finiteness.

    The participle gate of (a) is derived from the data: for each Tense value, the share of
    participle roots that stand alone (no aux/cop, not passive). Czech past l-participles stand
    alone in 71% (FicTree) to 95% (PUD) of root uses -- the language's 3rd-person past; English
    present participles in 8% (EWT: headline/caption fragments such as "Reporting from the town
    ..."), past participles in under 1%. Only tenses at or above ``participle_min_share`` (0.5)
    are admitted; the profile may override the list (``participle_tenses``).
    """

    name: ClassVar[str] = "tense"
    relative_cost: ClassVar[float] = 1.0
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict the tense (past or present) of the main predicate of the sentence."
    )
    label_names: ClassVar[tuple[str, ...]] = LABELS
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = CONNEAU_2018
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = True
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "Predicate = the root plus its aux/cop dependents; label = their Tense feature "
        "(Past | Pres). SentEval labelled the main verb's tense from the parse; UD states it "
        "as a feature, so no tagger is involved.",
        "Periphrastic predicates are dropped: a participle root with an aux/cop (perfects, "
        "passives, progressives, Czech 'Všimla jsem'), or a participle among the aux/cop "
        "(Slovenian 'bil je'). Languages whose past is only periphrastic (Slovenian) are left "
        "with one label and come out infeasible.",
        "A participle root standing alone counts only for tenses whose participles stand alone "
        "in at least participle_min_share of their root uses in the corpus (Czech past: yes; "
        "English -ing fragments: no); recorded as participle_tenses.",
        "Finite = VerbForm=Fin, or no VerbForm but Mood or Person (Turkish and German-PUD write "
        "no VerbForm); a predicate with no finite member is dropped.",
        "Tense values other than Past/Pres (Fut, Imp, Pqp, ...) are dropped and counted unless "
        'the profile maps them ([tasks.tense] map = { Imp = "Past" }); two different values '
        "in one predicate are dropped as conflicting.",
        "Predicates with an imperative, subjunctive or conditional member (Mood Imp/Sub/Cnd, "
        "also inside combined Turkish values such as CndPot) are dropped: their Tense feature "
        "states a form, not a time (German 'wäre' is Tense=Past). Option exclude_moods.",
        "Option exclude_aux_lemmas (default none) drops predicates with those aux/cop lemmas, "
        "e.g. German 'werden', whose present forms build the future ('wird gehen' is "
        "annotated Tense=Pres).",
        "Lexical control: the root's case-folded form never occurs in two splits.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0):
        super().__init__(params, seed)
        # participle roots per raw Tense: [standing alone, all]
        self._participles: dict[str, list[int]] = {}
        self._tense_values: Counter[str] = Counter()
        self._participle_tenses: frozenset[str] | None = None
        self.mapping = self._read_map()
        self.exclude_moods: tuple[str, ...] = tuple(
            str(m) for m in self.option("exclude_moods", DEFAULT_EXCLUDE_MOODS)
        )
        self.exclude_aux_lemmas: tuple[str, ...] = tuple(
            str(m) for m in self.option("exclude_aux_lemmas", ())
        )

    # --- options ----------------------------------------------------------------------
    def _read_map(self) -> dict[str, str]:
        """The profile's ``map`` (raw Tense value -> label); targets must be labels. Read once
        (a bad profile fails when the task is made, not halfway through a build)."""
        raw = self.option("map", {}) or {}
        if not isinstance(raw, dict):
            raise UsageError(f"[tasks.tense] map must be a table, not {raw!r}")
        bad = sorted(str(v) for v in raw.values() if v not in LABELS)
        if bad:
            raise UsageError(f"[tasks.tense] map targets must be one of {list(LABELS)}: {bad}")
        return {str(k): str(v) for k, v in raw.items()}

    @property
    def participle_min_share(self) -> float:
        return float(self.option("participle_min_share", DEFAULT_PARTICIPLE_MIN_SHARE))

    def parameters(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "predicate": "root + aux/cop dependents",
            "labels": "Tense of the predicate: Past | Pres",
            "map": dict(sorted(self.mapping.items())),
            "finite": "VerbForm=Fin, or no VerbForm and Mood or Person",
            "participle_min_share": self.participle_min_share,
            "exclude_moods": list(self.exclude_moods),
            "exclude_aux_lemmas": list(self.exclude_aux_lemmas),
            "drop_if": [
                "participle root with aux/cop",
                "participle aux/cop",
                "standalone participle without Tense, passive, or not a finite tense here",
                "no finite member",
                "excluded mood",
                "excluded aux/cop lemma",
                "no Tense",
                "conflicting Tense values",
                "Tense other than Past/Pres (unless mapped)",
            ],
            "lexical_key": "root form (NFC, case-folded)",
        }
        if self._participle_tenses is not None:
            params["participle_tenses"] = sorted(self._participle_tenses)
        return params

    # --- first pass -------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        """Count, per Tense, participle roots and those standing alone; and every Tense value
        seen on a predicate (so a profile knows what there is to map)."""
        root = sentence.root
        deps = predicate_dependents(sentence, root)
        for w in (root, *deps):
            tense = w.feats.get("Tense")
            if tense is not None:
                self._tense_values[tense] += 1
        tense = root.feats.get("Tense")
        if tense is not None and is_participle(root):
            counts = self._participles.setdefault(tense, [0, 0])
            counts[1] += 1
            if not deps and not self._passive_participle(sentence, root):
                counts[0] += 1

    def derive(self) -> dict[str, Any]:
        share = self.participle_min_share
        derived = sorted(
            t for t, (alone, total) in self._participles.items() if total and alone / total >= share
        )
        override = self.option("participle_tenses")
        chosen = sorted(str(t) for t in override) if override is not None else derived
        self._participle_tenses = frozenset(chosen)
        return {
            "labels": list(LABELS),
            "map": dict(sorted(self.mapping.items())),
            "participle_tenses": chosen,
            "participle_min_share": share,
            "exclude_moods": list(self.exclude_moods),
            "exclude_aux_lemmas": list(self.exclude_aux_lemmas),
            "participle_roots": {
                t: {"standalone": alone, "total": total}
                for t, (alone, total) in sorted(self._participles.items())
            },
            "tense_values": dict(sorted(self._tense_values.items())),
        }

    # --- candidates -------------------------------------------------------------------
    @staticmethod
    def _passive_participle(sentence: Sentence, root: Word) -> bool:
        return has_passive_voice(root) or any(
            is_pass_relation(c.deprel) for c in sentence.children(root.id)
        )

    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self._participle_tenses is None:
            raise RuntimeError("tense: observe() every sentence and call derive() first")
        root = sentence.root
        deps = predicate_dependents(sentence, root)
        if is_participle(root):
            # (a) participle root
            if deps:
                return self.drop("periphrastic: participle root with aux/cop")
            tense = root.feats.get("Tense")
            if tense is None:
                return self.drop("participle root without Tense")
            if self._passive_participle(sentence, root):
                return self.drop("passive participle root")
            if tense not in self._participle_tenses:
                return self.drop("standalone participle not a finite tense in this corpus")
            values = [tense]
        else:
            # (b) finite predicate: the root and its aux/cop together
            members = [root, *deps]
            if any(is_participle(d) for d in deps):
                return self.drop("periphrastic: participle aux/cop")
            if not any(is_finite(w) for w in members):
                return self.drop("no finite verb in the predicate")
            for w in members:
                mood = w.feats.get("Mood")
                if mood is not None and any(m in self.exclude_moods for m in mood_components(mood)):
                    return self.drop(f"excluded mood in the predicate (Mood={mood})")
            if any(d.lemma in self.exclude_aux_lemmas for d in deps):
                return self.drop("aux/cop lemma excluded by the profile")
            values = [w.feats["Tense"] for w in members if "Tense" in w.feats]
            if not values:
                return self.drop("no Tense in the predicate")
        mapping = self.mapping
        labels = sorted({mapping.get(v, v) for v in values})
        if len(labels) > 1:
            return self.drop("conflicting Tense values in the predicate")
        label = labels[0]
        if label not in LABELS:
            return self.drop(f"Tense={label} (not Past/Pres, not mapped)")
        return [
            Candidate(
                sentence_inputs(sentence),
                label,
                copy="0",
                lexical_key=lexical_key(root.form),
            )
        ]
