"""``voice``: is the main clause active or passive?"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.predicates import (
    auxiliaries,
    base_relation,
    has_passive_voice,
    is_pass_relation,
)
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.task import Candidate, Level, Task, TaskParams
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, Word

LABELS: tuple[str, ...] = ("active", "passive")
# The two ways a UD treebank can say "passive": a ``:pass`` relation subtype (aux:pass,
# nsubj:pass, csubj:pass, expl:pass) or a Voice feature containing ``Pass`` (Pass, CauPass).
RELATION = "relation"
FEATURE = "feature"
SIGNALS: tuple[str, ...] = (RELATION, FEATURE)


def relation_signal(sentence: Sentence, root: Word) -> bool:
    """A ``:pass`` relation among the root's dependents."""
    return any(is_pass_relation(c.deprel) for c in sentence.children(root.id))


def feature_signal(sentence: Sentence, root: Word) -> bool:
    """A passive Voice value on the root or one of its ``aux`` dependents.

    Only the root and its auxiliaries: Voice on ``amod``/``acl`` participles describes a noun
    phrase, not the clause (EWT marks "stated" in "stated goals" Voice=Pass)."""
    return has_passive_voice(root) or any(has_passive_voice(a) for a in auxiliaries(sentence, root))


def is_verbal_root(root: Word) -> bool:
    """Voice is a property of verbal clauses: a VERB root, or a participle root of any UPOS.

    Czech and Slovenian UD tag passive participles ADJ (``VerbForm=Part|Voice=Pass``): Czech-PUD
    has 99 such passive roots and only 25 passive VERB roots, so a VERB-only rule would make
    Czech passives almost disappear. Copular roots (nouns, plain adjectives) and AUX roots have
    no voice alternation and are dropped."""
    return root.upos == "VERB" or root.feats.get("VerbForm") == "Part"


class Voice(Task):
    """Label = whether the root clause is passive, by the signals every input treebank provides.

    Treebanks mark the passive differently: EWT by ``:pass`` relations and Voice=Pass, English-PUD
    and Spanish only by relations, Turkish only by Voice, Slovenian-SSJ not at all. The first
    pass records, per treebank (``sentence.source.treebank``), which signals occur; the task then
    uses only the signals *all* merged treebanks provide, so that "passive" means the same thing
    in every row. A sentence that only an unshared signal calls passive is dropped rather than
    labelled active (it would be a wrong label). No shared signal -> every sentence is dropped
    and the task is reported infeasible with that reason (Slovenian).
    """

    name: ClassVar[str] = "voice"
    relative_cost: ClassVar[float] = 0.6
    level: ClassVar[Level] = Level.SENTENCE
    description: ClassVar[str] = (
        "Predict whether the main clause of the sentence is active or passive."
    )
    label_names: ClassVar[tuple[str, ...]] = LABELS
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = SentenceLength.citation  # Wehner 2019 / Eger et al. 2020
    seed_dependent: ClassVar[bool] = False
    lexical_control: ClassVar[bool] = False
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
        "passive iff the root has a :pass dependent (aux:pass, nsubj:pass, csubj:pass, "
        "expl:pass) or the root or one of its aux dependents has a Voice value containing Pass "
        "(Pass, CauPass); Voice on amod/acl participles does not count.",
        "Signals are detected per treebank (relation: any :pass relation occurs; feature: any "
        "passive Voice on a root or aux); merged treebanks use only the signals all of them "
        "provide (recorded per treebank); without a shared signal the task is infeasible.",
        "A sentence that only an unshared signal marks passive is dropped, not labelled active.",
        "Candidates: VERB roots and participle roots of any UPOS (Czech tags passive participles "
        "ADJ); copular and AUX roots have no voice and are dropped.",
    )

    def __init__(self, params: TaskParams | None = None, seed: int = 0):
        super().__init__(params, seed)
        # per treebank: sentences, :pass relations anywhere, passive Voice on a root or aux
        self._seen: dict[str, Counter[str]] = {}
        self._signals: tuple[str, ...] | None = None
        self._by_treebank: dict[str, list[str]] = {}
        override = self.option("signals")
        if override is not None:
            bad = sorted(str(s) for s in override if s not in SIGNALS)
            if bad:
                raise UsageError(f"[tasks.voice] signals must be among {list(SIGNALS)}: {bad}")
        self._override: tuple[str, ...] | None = (
            None if override is None else tuple(s for s in SIGNALS if s in override)
        )

    def parameters(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "labels": "active | passive",
            "relation_signal": ["aux:pass", "nsubj:pass", "csubj:pass", "expl:pass"],
            "feature_signal": "Voice containing Pass on the root or its aux",
            "candidate_roots": "VERB, or VerbForm=Part of any UPOS",
            "drop_if": [
                "no shared signal",
                "root not verbal",
                "passive only by an unshared signal",
            ],
        }
        if self._signals is not None:
            params["signals"] = list(self._signals)
            params["signals_by_treebank"] = dict(sorted(self._by_treebank.items()))
        return params

    # --- first pass -------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        seen = self._seen.setdefault(sentence.source.treebank, Counter())
        seen["sentences"] += 1
        # Runs on every word of the corpus: cheap substring tests first (no ":pass" in the
        # relation, no "Pass" in Voice: neither signal), the exact predicates only on a hit.
        for w in sentence.words:
            deprel = w.deprel
            if ":pass" in deprel and is_pass_relation(deprel):
                seen["pass_relations"] += 1
            if (
                "Pass" in w.feats.get("Voice", "")
                and has_passive_voice(w)
                and (w.head == 0 or base_relation(deprel) == "aux")
            ):
                seen["passive_voice_on_root_or_aux"] += 1

    def derive(self) -> dict[str, Any]:
        by_tb: dict[str, list[str]] = {}
        for tb, seen in sorted(self._seen.items()):
            provided = []
            if seen["pass_relations"]:
                provided.append(RELATION)
            if seen["passive_voice_on_root_or_aux"]:
                provided.append(FEATURE)
            by_tb[tb] = provided
        common = [s for s in SIGNALS if by_tb and all(s in p for p in by_tb.values())]
        self._by_treebank = by_tb
        self._signals = tuple(common) if self._override is None else self._override
        return {
            "labels": list(LABELS),
            "signals": list(self._signals),
            "signals_by_treebank": by_tb,
            "counts_by_treebank": {
                tb: dict(sorted(c.items())) for tb, c in sorted(self._seen.items())
            },
        }

    # --- candidates -------------------------------------------------------------------
    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self._signals is None:
            raise RuntimeError("voice: observe() every sentence and call derive() first")
        if not self._signals:
            missing = ", ".join(
                f"{tb}: {'+'.join(p) or 'none'}" for tb, p in sorted(self._by_treebank.items())
            )
            return self.drop(f"no passive signal shared by all treebanks ({missing})")
        root = sentence.root
        if not is_verbal_root(root):
            return self.drop("root is not a verb or participle")
        found = {
            RELATION: relation_signal(sentence, root),
            FEATURE: feature_signal(sentence, root),
        }
        passive = any(found[s] for s in self._signals)
        if not passive and any(found.values()):
            return self.drop("passive only by a signal not shared by all treebanks")
        return [
            Candidate(
                sentence_inputs(sentence),
                "passive" if passive else "active",
                copy="0",
            )
        ]
