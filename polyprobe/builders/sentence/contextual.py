"""``contextual_<feature>``: word-in-context probing of one UD FEATS dimension.

Input: a sentence, its surface tokens and the index of one target token; label: the value of
one morphological feature (``Number``, ``Case``, ...) on that token, as annotated in UD. One
task class per feature, all generated from :class:`ContextualFeature`; the lead registers
:data:`CONTEXTUAL_TASKS` (``--tasks contextual`` expands to all of them).

Why the recipe looks as it does:

* **One candidate per sentence.** Several targets from one sentence would share a group anyway
  (the pipeline keeps a group in one split), but they would make long sentences weigh more and
  let one sentence dominate a class; one target per sentence keeps the sentence balance.
* **Value first, then token.** The target is drawn by first choosing uniformly among the
  distinct label values present in the sentence, then uniformly among the tokens carrying it
  (``stable_rng(seed, task, treebank, sent_id)``). Drawing tokens uniformly would reproduce the
  token distribution (German ``Case``: mostly Nom/Acc/Dat from articles) and starve the rare
  values the probe is meant to see; the profile option ``selection = "token"`` restores it.
* **Targets are single syntactic words.** A multiword token (Spanish *del*, German *zum*)
  carries several analyses and the label would be ill-defined; PUNCT never carries a label.
* **Lexical control.** The target's case-folded form is the lexical key, so no target form is
  in two splits: a probe cannot memorise "der → Nom".
* **Label set from the data.** A value is a class when it has enough items; the fit simulates
  the exact target draw (the task's own recipe) and asks the variant engine's
  :class:`~polyprobe.builders.variants.SplitEstimate` how those targets, keyed by their forms,
  will split (under a UD split: a dev/test item is dropped when its form was a target in an
  earlier split; under a ratio split: whole forms move together), removing the weakest value
  until every kept value meets ``--min-per-class`` in every split and ``min_instances`` in
  all. Fewer than two values → the task is infeasible.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.citations import UD_CITATION
from polyprobe.builders.merging import extend_remapped, merge_ids
from polyprobe.builders.rendering import render, text_hash
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, SplitEstimate, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import choice_index, lexical_key, stable_u64
from polyprobe.loaders.records import Sentence, SurfaceToken
from polyprobe.metadata import Level, TaskMetadata

# UD universal features probed, in the published (registry) order: nominal, then verbal, then
# the rest. Each gives one task ``contextual_<feature.lower()>``.
FEATURES: tuple[str, ...] = (
    "Number",
    "Case",
    "Gender",
    "Animacy",
    "Definite",
    "Degree",
    "Person",
    "Tense",
    "Mood",
    "Aspect",
    "VerbForm",
    "Voice",
    "Evident",
    "Polarity",
    "Polite",
    "PronType",
    "NumType",
    "Poss",
)

SELECTIONS: tuple[str, ...] = ("value", "token")

DROP_NO_FEATURE = "no token carries the feature"
DROP_ONLY_MWT = "feature only inside multiword tokens"
DROP_NO_KEPT = "no token with a kept value"

NOTES: tuple[str, ...] = (
    "One target per sentence: among the single-word, non-PUNCT surface tokens whose plain "
    "FEATS key has a kept value, a value is drawn uniformly among the distinct values "
    "present, then a token carrying it (seeded per sentence); profile option "
    "selection = 'token' draws tokens uniformly instead.",
    "Tokens inside multiword tokens are never targets (their analysis is split over several "
    "words); target_index indexes the surface tokens.",
    "Only the plain feature key counts: layered keys such as Number[psor] are other "
    "dimensions and are counted, not used. Multi-valued annotations (Case=Nom,Acc; "
    "PronType=Int,Rel) are ambiguous as labels and are not targets (counted).",
    "Label set derived from the data: values are kept while every kept value reaches "
    "min-per-class in every split (simulating the target draw and, under a UD split, the "
    "drop of dev/test items whose form was an earlier split's target) and min_instances "
    "in all; the weakest value is removed otherwise. Fewer than 2 values: infeasible.",
    "Lexical control: the target's case-folded form never occurs in two splits.",
)


def pick_target(u64: int, values: list[str], rank: Mapping[str, int], selection: str) -> int:
    """Index into ``values`` (the eligible tokens' labels, in token order) of the target.

    ``selection == "value"``: a value uniformly among the distinct ones (in label order), then a
    token uniformly among those carrying it; ``"token"``: a token uniformly. Only
    ``rng.random()`` draws, so the choice is stable across Python versions."""
    rng = random.Random(u64)
    if selection == "token":
        return choice_index(rng, len(values))
    distinct = sorted(set(values), key=rank.__getitem__)
    value = distinct[choice_index(rng, len(distinct))]
    positions = [i for i, v in enumerate(values) if v == value]
    return positions[choice_index(rng, len(positions))]


def draw_seed(seed: int, task: str, sentence: Sentence) -> int:
    """The seed of a sentence's target draw. Identical to ``stable_rng(seed, task, treebank,
    sent_id)``: stable_rng seeds random.Random with this very integer."""
    return stable_u64(seed, task, sentence.source.treebank, sentence.sent_id)


def feature_value(
    sentence: Sentence, tok: SurfaceToken, feature: str, upos: tuple[str, ...] | None
) -> str | None:
    """``feature``'s value on a single-word, non-PUNCT token of an allowed UPOS, else None."""
    if len(tok.word_ids) != 1 or tok.upos == "PUNCT":
        return None
    if upos is not None and tok.upos not in upos:
        return None
    return sentence.words[tok.word_ids[0] - 1].feats.get(feature)


# --- options --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextualOptions:
    """Options of one ``contextual_<feature>`` task (``[tasks.contextual_<feature>]``); each
    task class has its own subclass (made by :func:`_make_task`) so that an error names it.

    ``upos``: only tokens with these UPOS tags are targets (e.g. ``["NOUN"]`` to probe nominal
    Number without pronouns and verbs); default ``None`` (or ``"all"``, as the profile prints
    it): every UPOS but PUNCT.
    ``min_instances``: the items a value needs in all splits together to be a class, on top of
    the per-split floors; default ``None``: the sum of the build's ``--min-per-class`` floors.
    ``selection``: ``"value"`` (default) draws a value uniformly among those present in the
    sentence, then a token carrying it, so rare values are not starved by frequent function
    words; ``"token"`` draws a token uniformly (the corpus's token distribution).

    The class floors and the split mode are the build's (:class:`TaskContext`), not options.
    """

    task: ClassVar[str] = "contextual_<feature>"

    upos: tuple[str, ...] | None = None
    min_instances: int | None = None
    selection: str = "value"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        where = f"[tasks.{self.task}]"
        upos = self.upos
        if upos is None or upos == "all":
            set_(self, "upos", None)
        elif not isinstance(upos, (list, tuple)) or not all(isinstance(u, str) for u in upos):
            raise UsageError(f'{where} upos must be a list of UPOS tags or "all", not {upos!r}')
        else:
            set_(self, "upos", tuple(upos) or None)
        n = self.min_instances
        if n is not None:
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise UsageError(f"{where} min_instances must be an integer >= 0, not {n!r}")
            set_(self, "min_instances", int(n))
        if self.selection not in SELECTIONS:
            raise UsageError(
                f"{where} selection must be one of {list(SELECTIONS)}, not {self.selection!r}"
            )


# --- first pass -------------------------------------------------------------------------------


class ContextualObservation(Observation):
    """Per sentence, its eligible tokens' value and form ids (flat arrays with offsets) and the
    seed of its target draw, so that :meth:`ContextualFeature.fit` can replay the draw for any
    candidate label set; the counts the profile shows; and the split estimate."""

    def __init__(
        self,
        feature: str,
        upos: tuple[str, ...] | None,
        seed: int,
        task: str,
        estimate: SplitEstimate,
    ) -> None:
        self.feature = feature
        self.upos = upos
        self.seed = seed
        self.task = task
        self.estimate = estimate
        self.value_ids: dict[str, int] = {}
        self.form_ids: dict[str, int] = {}
        self.val = array("i")
        self.form = array("i")
        self.offsets = array("q", [0])
        self.draw = array("Q")
        self.tokens: Counter[str] = Counter()
        self.sentences: Counter[str] = Counter()
        self.multi_valued: Counter[str] = Counter()
        self.in_mwt: Counter[str] = Counter()
        self.layered: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        source = sentence.source
        self.estimate.add(source.split, shared.get(text_hash), source.treebank)
        self.draw.append(draw_seed(self.seed, self.task, sentence))
        feature, upos = self.feature, self.upos
        # The sentence's values in first-occurrence order (a dict, not a set: the order of
        # ``sentences``' keys must not depend on string hashing, which differs per process).
        here: dict[str, None] = {}
        prefix = feature + "["
        for w in sentence.words:
            for key in w.feats:
                if key.startswith(prefix):
                    self.layered[key] += 1
        for tok in sentence.surface_tokens():
            if len(tok.word_ids) != 1:
                for wid in tok.word_ids:
                    v = sentence.words[wid - 1].feats.get(feature)
                    if v is not None:
                        self.in_mwt[v] += 1
                continue
            value = feature_value(sentence, tok, feature, upos)
            if value is None:
                continue
            if "," in value:
                self.multi_valued[value] += 1
                continue
            self.tokens[value] += 1
            here[value] = None
            self.val.append(self.value_ids.setdefault(value, len(self.value_ids)))
            self.form.append(self.form_ids.setdefault(lexical_key(tok.form), len(self.form_ids)))
        self.sentences.update(here.keys())  # counted once each (not a Mapping of counts)
        self.offsets.append(len(self.val))

    def merge(self, later: Observation) -> None:
        """Take in ``later`` (the next range's sentences of the same task).

        Exact because ids are numbered by first occurrence: later's ids number its own first
        occurrences in order, so a key new to this observation gets the next free id in
        later's id order, exactly as one pass would number it; later's id arrays are remapped
        through that table (vectorised), its offsets shifted by this observation's token
        count. Counters take later's new keys after this one's (``Counter.update``), as one
        pass inserts them."""
        assert isinstance(later, ContextualObservation)
        if later.task != self.task:
            raise ValueError(f"{self.task}: cannot merge an observation of {later.task}")
        self.estimate.merge(later.estimate)
        self.draw.extend(later.draw)
        shift = len(self.val)
        extend_remapped(self.val, later.val, merge_ids(self.value_ids, later.value_ids))
        extend_remapped(self.form, later.form, merge_ids(self.form_ids, later.form_ids))
        ends = np.frombuffer(later.offsets, dtype=np.int64)[1:] + shift  # [0] is the start
        self.offsets.frombytes(ends.tobytes())
        for mine, theirs in (
            (self.tokens, later.tokens),
            (self.sentences, later.sentences),
            (self.multi_valued, later.multi_valued),
            (self.in_mwt, later.in_mwt),
            (self.layered, later.layered),
        ):
            mine.update(theirs)


@dataclass(frozen=True)
class ContextualFit(Fit):
    """``kept``: label value -> label id (the order of ``label_names``); empty if infeasible."""

    kept: Mapping[str, int] = field(default_factory=dict)


# --- the task family --------------------------------------------------------------------------


class ContextualFeature(Task[Sentence]):
    """Base class: label = the value of ``feature`` on one target token of the sentence.

    Subclasses only set ``feature``, ``metadata`` and ``Options`` (made by :func:`_make_task`).
    The label set is derived by :meth:`fit`: the kept values, by descending simulated item
    count (ties by name).
    """

    feature: ClassVar[str] = ""
    Options: ClassVar[type] = ContextualOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {
            "feature",
            "tokens_per_value",
            "sentences_per_value",
            "multi_valued_tokens",
            "values_inside_multiword_tokens",
            "layered_keys_ignored",
            "split_mode",
            "split_mode_reason",
            "min_per_class",
            "split_estimate",
            "values_removed",
            "feasible",
            "infeasible",
            "labels",
            "expected_items_per_split",
        }
    )

    @property
    def min_instances(self) -> int:
        """Items a value needs in all splits: the option, else the sum of the class floors."""
        n = self.options.min_instances
        return int(n) if n is not None else int(sum(self.context.min_per_class))

    def parameters(self, fit: Fit) -> dict[str, Any]:
        o = self.options
        return {
            "feature": self.feature,
            "unit": "single-word surface token (multiword tokens excluded), not PUNCT",
            "upos": list(o.upos) if o.upos is not None else "all",
            "targets_per_sentence": 1,
            "selection": o.selection,
            "multi_valued": "not a target (e.g. Case=Nom,Acc)",
            "layered_keys": "ignored (e.g. Number[psor] is not Number)",
            "min_instances": self.min_instances,
            "min_per_class": list(self.context.min_per_class),
            "lexical_key": "target form (NFC, case-folded)",
        }

    # --- first pass -----------------------------------------------------------------------
    def observation(self) -> ContextualObservation:
        return ContextualObservation(
            self.feature, self.options.upos, self.seed, self.name, self.context.split_estimate()
        )

    def _simulate(
        self, obs: ContextualObservation, kept: list[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per sentence the class index its candidate would get (-1: none) and the per-class
        split table the variant engine's estimate gives for label set ``kept`` (the targets'
        forms are their lexical keys, so the engine applies its lexical-control rules)."""
        names = {i: v for v, i in obs.value_ids.items()}
        rank = {v: i for i, v in enumerate(kept)}
        selection = self.options.selection
        draw, offsets, val, form = obs.draw, obs.offsets, obs.val, obs.form
        n = len(draw)
        classes = np.full(n, -1, dtype=np.int64)
        forms = np.full(n, -1, dtype=np.int64)
        for s in range(n):
            lo, hi = offsets[s], offsets[s + 1]
            if lo == hi:
                continue
            idx = [j for j in range(lo, hi) if names[val[j]] in rank]
            if not idx:
                continue
            values = [names[val[j]] for j in idx]
            k = pick_target(draw[s], values, rank, selection)
            classes[s] = rank[values[k]]
            forms[s] = form[idx[k]]
        return classes, obs.estimate.table(classes, len(kept), keys=forms)

    def fit(self, observation: Observation | None) -> ContextualFit:
        assert isinstance(observation, ContextualObservation)
        obs = observation
        estimate = obs.estimate
        estimate.finish()
        upos = self.options.upos
        min_instances = self.min_instances
        tokens, sentences = obs.tokens, obs.sentences
        ranked = sorted(tokens, key=lambda v: (-tokens[v], v))
        out: dict[str, Any] = {
            "feature": self.feature,
            "upos": list(upos) if upos is not None else "all",
            "tokens_per_value": {v: tokens[v] for v in ranked},
            "sentences_per_value": {v: sentences[v] for v in ranked},
            "multi_valued_tokens": dict(sorted(obs.multi_valued.items())),
            "values_inside_multiword_tokens": dict(sorted(obs.in_mwt.items())),
            "layered_keys_ignored": dict(sorted(obs.layered.items())),
            "min_instances": min_instances,
            **estimate.describe(),
        }
        # Start from the values with enough sentences (one item per sentence at most), then
        # remove the weakest failing value until the simulated draw satisfies every floor.
        kept = [v for v in ranked if sentences[v] >= min_instances]
        removed: dict[str, str] = {
            v: f"in {sentences[v]} sentences < min_instances {min_instances}"
            for v in ranked
            if v not in kept
        }
        table = np.zeros((0, 3))
        while len(kept) >= 2:
            _, table = self._simulate(obs, kept)
            totals = table.sum(axis=1)
            ok = estimate.passing(table) & (totals + 1e-9 >= min_instances)
            if ok.all():
                break
            failing = [i for i in range(len(kept)) if not ok[i]]
            worst = min(failing, key=lambda i: (table[i].min(), totals[i], -i))
            per_split = "/".join(f"{x:g}" for x in np.round(table[worst], 1))
            removed[kept[worst]] = f"below the floors (items per split: {per_split})"
            kept.pop(worst)
        out["values_removed"] = removed
        if len(kept) < 2:
            found = ", ".join(ranked) or "none"
            infeasible = (
                f"fewer than 2 values of {self.feature} with enough items (values found: {found})"
            )
            out.update({"feasible": False, "infeasible": infeasible, "labels": []})
            return ContextualFit((), out, infeasible=infeasible)
        # Final order: descending simulated item count, ties by name.
        totals = table.sum(axis=1)
        order = sorted(range(len(kept)), key=lambda i: (-totals[i], kept[i]))
        labels = [kept[i] for i in order]
        out.update(
            {
                "feasible": True,
                "labels": labels,
                "expected_items_per_split": {
                    kept[i]: [round(float(x), 1) for x in table[i]] for i in order
                },
            }
        )
        return ContextualFit(tuple(labels), out, kept={v: i for i, v in enumerate(labels)})

    # --- candidates -----------------------------------------------------------------------
    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if not isinstance(fit, ContextualFit):
            raise TypeError(f"{self.name}: candidates need this task's fit (ContextualFit)")
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        feature, upos, kept = self.feature, self.options.upos, fit.kept
        tokens = sentence.surface_tokens()
        positions: list[int] = []
        values: list[str] = []
        for i, tok in enumerate(tokens):
            value = feature_value(sentence, tok, feature, upos)
            if value is not None and value in kept:
                positions.append(i)
                values.append(value)
        if not positions:
            if not any(feature in w.feats for w in sentence.words):
                return self.drop(DROP_NO_FEATURE)
            if all(feature not in sentence.words[t.word_ids[0] - 1].feats
                   for t in tokens if len(t.word_ids) == 1):  # fmt: skip
                return self.drop(DROP_ONLY_MWT)
            return self.drop(DROP_NO_KEPT)
        k = pick_target(
            draw_seed(self.seed, self.name, sentence), values, kept, self.options.selection
        )
        index = positions[k]
        return [
            Candidate(
                {
                    "sentence": render(tokens),
                    "tokens": [t.form for t in tokens],
                    "target_index": index,
                },
                values[k],
                copy=str(index),
                lexical_key=lexical_key(tokens[index].form),
            )
        ]


def _make_task(feature: str) -> type[ContextualFeature]:
    """The task class for one feature (module-level name ``Contextual<Feature>``) and its
    options class (``Contextual<Feature>Options``, which names the task in its errors)."""
    name = f"contextual_{feature.lower()}"
    options = type(
        f"Contextual{feature}Options",
        (ContextualOptions,),
        {
            "task": name,
            "__module__": __name__,
            "__doc__": f"Options of ``{name}``: see :class:`ContextualOptions`.",
        },
    )
    cls = type(
        f"Contextual{feature}",
        (ContextualFeature,),
        {
            "feature": feature,
            "metadata": TaskMetadata(
                name=name,
                level=Level.WORD_IN_CONTEXT,
                description=(
                    f"Predict the UD {feature} value of the marked target word in its sentence."
                ),
                labels_derived=(
                    f"the {feature} values whose simulated targets reach the class floors in "
                    "every split, by descending item count"
                ),
                citation=UD_CITATION,
                seed_dependent=True,
                lexical_control=True,
                notes=NOTES,
            ),
            "Options": options,
            "__module__": __name__,
            "__doc__": f"``{name}``: UD {feature} of one token in context.",
        },
    )
    globals()[options.__name__] = options
    globals()[cls.__name__] = cls
    return cls


CONTEXTUAL_TASKS: tuple[type[ContextualFeature], ...] = tuple(_make_task(f) for f in FEATURES)
