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
* **Label set from the data.** A value is a class when it has enough items; the derive step
  simulates the exact target draw and the split/lexical drops of the variant engine (under a UD
  split: a dev/test item is dropped when its form was a target in an earlier split), removing
  the weakest value until every kept value meets ``--min-per-class`` in every split and
  ``min_instances`` in all. Fewer than two values → the task is infeasible.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter
from typing import Any, ClassVar

import numpy as np

from polyprobe.builders.rendering import render
from polyprobe.builders.sentence.word_content import DEFAULT_FLOORS, SplitFloors
from polyprobe.builders.task import Candidate, Level, Task
from polyprobe.hashing import choice_index, lexical_key, stable_u64
from polyprobe.loaders.records import Sentence, SurfaceToken

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
_SPLIT_CODE: dict[str, int] = {"train": 0, "dev": 1, "test": 2}

DROP_NO_FEATURE = "no token carries the feature"
DROP_ONLY_MWT = "feature only inside multiword tokens"
DROP_NO_KEPT = "no token with a kept value"

UD_CITATION = (
    "@article{de-marneffe-etal-2021-universal,\n"
    "  title = {Universal {D}ependencies},\n"
    "  author = {de Marneffe, Marie-Catherine and Manning, Christopher D. and Nivre, Joakim "
    "and Zeman, Daniel},\n"
    "  journal = {Computational Linguistics},\n"
    "  volume = {47},\n"
    "  number = {2},\n"
    "  pages = {255--308},\n"
    "  year = {2021}\n"
    "}"
)


def pick_target(u64: int, values: list[str], rank: dict[str, int], selection: str) -> int:
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


class ContextualFeature(Task):
    """Base class: label = the value of ``feature`` on one target token of the sentence.

    Subclasses only set ``feature`` (and get ``name``/``description`` from
    :func:`_make_task`). ``label_names`` is a placeholder on the class: :meth:`derive` sets the
    instance's label names to the kept values, by descending item count (ties by name).

    Profile options (``[tasks.contextual_<feature>]``): ``upos`` (list: only targets with these
    UPOS; default all), ``min_instances`` (items a value needs in all; default the sum of the
    class floors), ``selection`` (``"value"`` or ``"token"``), and from the pipeline
    ``min_per_class`` and ``split``.
    """

    feature: ClassVar[str] = ""
    name: ClassVar[str] = ""
    level: ClassVar[Level] = Level.WORD_IN_CONTEXT
    description: ClassVar[str] = ""
    label_names: ClassVar[tuple[str, ...]] = ()
    recipe_version: ClassVar[str] = "1.0.0"
    citation: ClassVar[str] = UD_CITATION
    seed_dependent: ClassVar[bool] = True
    lexical_control: ClassVar[bool] = True
    needs_observation: ClassVar[bool] = True
    notes: ClassVar[tuple[str, ...]] = (
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        upos = self.option("upos", None)
        self.upos: tuple[str, ...] | None = tuple(upos) if upos else None
        self.floors = SplitFloors(
            self.option("min_per_class", DEFAULT_FLOORS), self.option("split")
        )
        min_instances = self.option("min_instances", None)
        self.min_instances = (
            int(min_instances) if min_instances is not None else int(sum(self.floors.floors))
        )
        self.selection = str(self.option("selection", "value"))
        if self.selection not in SELECTIONS:
            raise ValueError(f"{self.name}: selection must be one of {SELECTIONS}")
        # Observation state: per sentence, its eligible tokens' value/form ids (flat arrays
        # with offsets), its UD split and the seed of its target draw.
        self._value_ids: dict[str, int] = {}
        self._form_ids: dict[str, int] = {}
        self._val = array("i")
        self._form = array("i")
        self._offsets = array("q", [0])
        self._split = array("b")
        self._draw = array("Q")
        self._tokens: Counter[str] = Counter()
        self._sentences: Counter[str] = Counter()
        self._multi_valued: Counter[str] = Counter()
        self._in_mwt: Counter[str] = Counter()
        self._layered: Counter[str] = Counter()
        # Derived state.
        self.derived: dict[str, Any] | None = None
        self.kept: dict[str, int] = {}
        self.infeasible: str | None = None

    def parameters(self) -> dict[str, Any]:
        return {
            "feature": self.feature,
            "unit": "single-word surface token (multiword tokens excluded), not PUNCT",
            "upos": list(self.upos) if self.upos is not None else "all",
            "targets_per_sentence": 1,
            "selection": self.selection,
            "multi_valued": "not a target (e.g. Case=Nom,Acc)",
            "layered_keys": "ignored (e.g. Number[psor] is not Number)",
            "min_instances": self.min_instances,
            "min_per_class": list(self.floors.floors),
            "lexical_key": "target form (NFC, case-folded)",
        }

    # --- eligibility ----------------------------------------------------------------------
    def _value(self, sentence: Sentence, tok: SurfaceToken) -> str | None:
        """The feature's value on a single-word, non-PUNCT, allowed-UPOS token, else None."""
        if len(tok.word_ids) != 1 or tok.upos == "PUNCT":
            return None
        if self.upos is not None and tok.upos not in self.upos:
            return None
        return sentence.words[tok.word_ids[0] - 1].feats.get(self.feature)

    def _draw_seed(self, sentence: Sentence) -> int:
        # Identical to stable_rng(seed, task, treebank, sent_id): stable_rng seeds
        # random.Random with this very integer.
        return stable_u64(self.seed, self.name, sentence.source.treebank, sentence.sent_id)

    # --- observation ----------------------------------------------------------------------
    def observe(self, sentence: Sentence) -> None:
        self.floors.add(sentence)
        self._split.append(_SPLIT_CODE.get(sentence.source.split or "", -1))
        self._draw.append(self._draw_seed(sentence))
        here: set[str] = set()
        prefix = self.feature + "["
        for w in sentence.words:
            for key in w.feats:
                if key.startswith(prefix):
                    self._layered[key] += 1
        for tok in sentence.surface_tokens():
            if len(tok.word_ids) != 1:
                for wid in tok.word_ids:
                    v = sentence.words[wid - 1].feats.get(self.feature)
                    if v is not None:
                        self._in_mwt[v] += 1
                continue
            value = self._value(sentence, tok)
            if value is None:
                continue
            if "," in value:
                self._multi_valued[value] += 1
                continue
            self._tokens[value] += 1
            here.add(value)
            self._val.append(self._value_ids.setdefault(value, len(self._value_ids)))
            self._form.append(self._form_ids.setdefault(lexical_key(tok.form), len(self._form_ids)))
        self._sentences.update(here)
        self._offsets.append(len(self._val))

    # --- derivation -----------------------------------------------------------------------
    def _simulate(self, kept: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per sentence the class index its candidate would get (-1: none or dropped by the
        lexical split) and the per-class split table, for label set ``kept``."""
        names = {i: v for v, i in self._value_ids.items()}
        rank = {v: i for i, v in enumerate(kept)}
        n = len(self._draw)
        classes = np.full(n, -1, dtype=np.int64)
        forms = np.full(n, -1, dtype=np.int64)
        for s in range(n):
            lo, hi = self._offsets[s], self._offsets[s + 1]
            if lo == hi:
                continue
            idx = [j for j in range(lo, hi) if names[self._val[j]] in rank]
            if not idx:
                continue
            values = [names[self._val[j]] for j in idx]
            k = pick_target(self._draw[s], values, rank, self.selection)
            classes[s] = rank[values[k]]
            forms[s] = self._form[idx[k]]
        if self.floors.mode == "ud":
            # The variant engine drops a dev/test item whose lexical key an earlier split used.
            split = np.frombuffer(self._split, dtype=np.int8) if n else np.zeros(0, np.int8)
            seen = np.zeros(0, dtype=np.int64)
            for code in range(3):
                at = np.flatnonzero((split == code) & (classes >= 0))
                late = np.isin(forms[at], seen)
                classes[at[late]] = -1
                seen = np.union1d(seen, forms[at[~late]])
            return classes, self.floors.table(classes, len(kept))
        return classes, self._ratio_table(classes, forms, len(kept))

    def _ratio_table(self, classes: np.ndarray, forms: np.ndarray, n_classes: int) -> np.ndarray:
        """Expected items per class and split under a ratio split with lexical control.

        A ratio split moves whole lexical components: every item of a target form goes to one
        split. Following the documented rule of the variant engine, forms holding >= 1/1000 of
        the items are placed first, largest first, each into the split furthest below its
        target; the other items spread over the remaining room in proportion. A closed-class
        value (German Person=1: a handful of pronouns) therefore gets its share of a split only
        if its forms are spread over enough components, which expected counts alone would miss.
        """
        out = np.zeros((n_classes, 3), dtype=np.float64)
        has = classes >= 0
        if not has.any():
            return out
        cls, frm = classes[has], forms[has]
        n = float(cls.size)
        ratios = np.asarray(self.floors.ratios, dtype=np.float64)
        active = ratios > 0
        target = ratios * n / ratios.sum()
        size = np.bincount(frm)
        count = np.zeros(3, dtype=np.float64)
        big = np.flatnonzero(size * 1000 >= n)
        big = big[np.lexsort((big, -size[big]))]
        is_big = np.zeros(size.size, dtype=bool)
        for f in big.tolist():
            deficit = np.where(active, target - count, -np.inf)
            s = int(np.argmax(deficit))
            count[s] += size[f]
            is_big[f] = True
            np.add.at(out[:, s], cls[frm == f], 1.0)
        room = np.where(active, np.maximum(target - count, 0.0), 0.0)
        if room.sum() <= 0:
            room = np.where(active, target, 0.0)
        small = ~is_big[frm]
        per_class = np.bincount(cls[small], minlength=n_classes).astype(np.float64)
        out += per_class[:, None] * (room / room.sum())[None, :]
        return out

    def derive(self) -> dict[str, Any]:
        self.floors.finish()
        ranked = sorted(self._tokens, key=lambda v: (-self._tokens[v], v))
        out: dict[str, Any] = {
            "feature": self.feature,
            "upos": list(self.upos) if self.upos is not None else "all",
            "tokens_per_value": {v: self._tokens[v] for v in ranked},
            "sentences_per_value": {v: self._sentences[v] for v in ranked},
            "multi_valued_tokens": dict(sorted(self._multi_valued.items())),
            "values_inside_multiword_tokens": dict(sorted(self._in_mwt.items())),
            "layered_keys_ignored": dict(sorted(self._layered.items())),
            "min_instances": self.min_instances,
            **self.floors.describe(),
        }
        # Start from the values with enough sentences (one item per sentence at most), then
        # remove the weakest failing value until the simulated draw satisfies every floor.
        kept = [v for v in ranked if self._sentences[v] >= self.min_instances]
        removed: dict[str, str] = {
            v: f"in {self._sentences[v]} sentences < min_instances {self.min_instances}"
            for v in ranked
            if v not in kept
        }
        table = np.zeros((0, 3))
        while len(kept) >= 2:
            classes, table = self._simulate(kept)
            totals = table.sum(axis=1)
            ok = self.floors.passing(table) & (totals + 1e-9 >= self.min_instances)
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
            self.infeasible = (
                f"fewer than 2 values of {self.feature} with enough items (values found: {found})"
            )
            self.kept = {}
            self.label_names = ()  # type: ignore[misc]
            out.update({"feasible": False, "infeasible": self.infeasible, "labels": []})
        else:
            # Final order: descending simulated item count, ties by name.
            totals = table.sum(axis=1)
            order = sorted(range(len(kept)), key=lambda i: (-totals[i], kept[i]))
            labels = [kept[i] for i in order]
            self.infeasible = None
            self.kept = {v: i for i, v in enumerate(labels)}
            self.label_names = tuple(labels)  # type: ignore[misc]
            out.update(
                {
                    "feasible": True,
                    "labels": labels,
                    "expected_items_per_split": {
                        kept[i]: [round(float(x), 1) for x in table[i]] for i in order
                    },
                }
            )
        self.derived = out
        return out

    # --- candidates -----------------------------------------------------------------------
    def candidates(self, sentence: Sentence) -> list[Candidate]:
        if self.derived is None:
            raise RuntimeError(f"{self.name}: call observe() on every sentence, then derive()")
        if self.infeasible is not None:
            return self.drop(f"task infeasible: {self.infeasible}")
        tokens = sentence.surface_tokens()
        positions: list[int] = []
        values: list[str] = []
        for i, tok in enumerate(tokens):
            value = self._value(sentence, tok)
            if value is not None and value in self.kept:
                positions.append(i)
                values.append(value)
        if not positions:
            if not any(self.feature in w.feats for w in sentence.words):
                return self.drop(DROP_NO_FEATURE)
            if all(self.feature not in sentence.words[t.word_ids[0] - 1].feats
                   for t in tokens if len(t.word_ids) == 1):  # fmt: skip
                return self.drop(DROP_ONLY_MWT)
            return self.drop(DROP_NO_KEPT)
        k = pick_target(self._draw_seed(sentence), values, self.kept, self.selection)
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
    """The task class for one feature (module-level name ``Contextual<Feature>``)."""
    cls = type(
        f"Contextual{feature}",
        (ContextualFeature,),
        {
            "feature": feature,
            "name": f"contextual_{feature.lower()}",
            "description": (
                f"Predict the UD {feature} value of the marked target word in its sentence."
            ),
            "__module__": __name__,
            "__doc__": f"``contextual_{feature.lower()}``: UD {feature} of one token in context.",
        },
    )
    globals()[cls.__name__] = cls
    return cls


CONTEXTUAL_TASKS: tuple[type[Task], ...] = tuple(_make_task(f) for f in FEATURES)
