"""``voice``: is the main clause active or passive?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.sentence.predicates import (
    auxiliaries,
    base_relation,
    has_passive_voice,
    is_pass_relation,
)
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, Word
from polyprobe.metadata import Level, TaskMetadata

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


@dataclass(frozen=True)
class VoiceOptions:
    """``signals``: the passive signals to use (``relation`` and/or ``feature``), fixed instead
    of derived from the treebanks (default ``None``: the signals every merged treebank
    provides). A profile may force them, e.g. relations only on a treebank that also has
    Voice, to compare with a relation-only treebank. Kept in :data:`SIGNALS` order."""

    signals: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        raw = self.signals
        if raw is None:
            return
        if isinstance(raw, str) or not isinstance(raw, (list, tuple)):
            raise UsageError(f"[tasks.voice] signals must be a list, not {raw!r}")
        bad = sorted(str(s) for s in raw if s not in SIGNALS)
        if bad:
            raise UsageError(f"[tasks.voice] signals must be among {list(SIGNALS)}: {bad}")
        object.__setattr__(self, "signals", tuple(s for s in SIGNALS if s in raw))


@dataclass(frozen=True)
class VoiceFit(Fit):
    """``signals``: those the candidates use; ``signals_by_treebank``: what each treebank
    provides (the card shows it). ``infeasible`` is set when ``signals`` is empty."""

    signals: tuple[str, ...] = ()
    signals_by_treebank: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


class VoiceObservation(Observation):
    """Per treebank: sentences, ``:pass`` relations anywhere, passive Voice on a root or aux."""

    def __init__(self) -> None:
        self.seen: dict[str, Counter[str]] = {}

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        seen = self.seen.get(sentence.source.treebank)
        if seen is None:
            seen = self.seen[sentence.source.treebank] = Counter()
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

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences): per treebank the counts add up;
        treebanks and count keys new here come after the known ones, as one pass inserts
        them."""
        assert isinstance(later, VoiceObservation)
        for treebank, counts in later.seen.items():
            mine = self.seen.get(treebank)
            if mine is None:
                self.seen[treebank] = counts
            else:
                mine.update(counts)


class Voice(Task[Sentence]):
    """Label = whether the root clause is passive, by the signals every input treebank provides.

    Treebanks mark the passive differently: EWT by ``:pass`` relations and Voice=Pass, English-PUD
    and Spanish only by relations, Turkish only by Voice, Slovenian-SSJ not at all. The first
    pass records, per treebank (``sentence.source.treebank``), which signals occur; the task then
    uses only the signals *all* merged treebanks provide, so that "passive" means the same thing
    in every row. A sentence that only an unshared signal calls passive is dropped rather than
    labelled active (it would be a wrong label). No shared signal -> every sentence is dropped
    and the task is reported infeasible with that reason (Slovenian).
    """

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="voice",
        level=Level.SENTENCE,
        description="Predict whether the main clause of the sentence is active or passive.",
        labels=LABELS,
        citation=WEHNER_2019,  # Wehner 2019 / Eger et al. 2020
        notes=(
            "passive iff the root has a :pass dependent (aux:pass, nsubj:pass, csubj:pass, "
            "expl:pass) or the root or one of its aux dependents has a Voice value containing "
            "Pass (Pass, CauPass); Voice on amod/acl participles does not count.",
            "Signals are detected per treebank (relation: any :pass relation occurs; feature: "
            "any passive Voice on a root or aux); merged treebanks use only the signals all of "
            "them provide (recorded per treebank); without a shared signal the task is "
            "infeasible.",
            "A sentence that only an unshared signal marks passive is dropped, not labelled "
            "active.",
            "Candidates: VERB roots and participle roots of any UPOS (Czech tags passive "
            "participles ADJ); copular and AUX roots have no voice and are dropped.",
        ),
    )

    Options: ClassVar[type] = VoiceOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {"labels", "signals_by_treebank", "counts_by_treebank"}
    )

    def parameters(self, fit: Fit) -> dict[str, Any]:
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
        if isinstance(fit, VoiceFit):
            params["signals"] = list(fit.signals)
            params["signals_by_treebank"] = {
                tb: list(p) for tb, p in sorted(fit.signals_by_treebank.items())
            }
        return params

    # --- first pass -------------------------------------------------------------------
    def observation(self) -> VoiceObservation:
        return VoiceObservation()

    def fit(self, observation: Observation | None) -> VoiceFit:
        assert isinstance(observation, VoiceObservation)
        by_tb: dict[str, list[str]] = {}
        for tb, seen in sorted(observation.seen.items()):
            provided = []
            if seen["pass_relations"]:
                provided.append(RELATION)
            if seen["passive_voice_on_root_or_aux"]:
                provided.append(FEATURE)
            by_tb[tb] = provided
        common = [s for s in SIGNALS if by_tb and all(s in p for p in by_tb.values())]
        override = self.options.signals
        signals = tuple(common) if override is None else override
        infeasible = None
        if not signals:
            missing = ", ".join(f"{tb}: {'+'.join(p) or 'none'}" for tb, p in by_tb.items())
            infeasible = f"no passive signal shared by all treebanks ({missing})"
        report = {
            "labels": list(LABELS),
            "signals": list(signals),
            "signals_by_treebank": by_tb,
            "counts_by_treebank": {
                tb: dict(sorted(c.items())) for tb, c in sorted(observation.seen.items())
            },
        }
        return VoiceFit(
            LABELS,
            report,
            infeasible=infeasible,
            signals=signals,
            signals_by_treebank={tb: tuple(p) for tb, p in by_tb.items()},
        )

    # --- candidates -------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, VoiceFit)
        signals = fit.signals
        if not signals:
            assert fit.infeasible is not None
            return self.drop(fit.infeasible)
        root = sentence.root
        if not is_verbal_root(root):
            return self.drop("root is not a verb or participle")
        found = {
            RELATION: relation_signal(sentence, root),
            FEATURE: feature_signal(sentence, root),
        }
        passive = any(found[s] for s in signals)
        if not passive and any(found.values()):
            return self.drop("passive only by a signal not shared by all treebanks")
        return [
            Candidate(
                sentence_inputs(sentence),
                "passive" if passive else "active",
                copy="0",
            )
        ]
