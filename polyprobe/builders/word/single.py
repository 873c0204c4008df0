"""Single-word tasks over a UniMorph lexicon: one feature per task (LINSPECTOR's recipe) and the
type-level tasks ``pos``, ``tag_count`` and ``character_bin``.

LINSPECTOR eligibility, made explicit and reported:

- forms containing a space are dropped (multi-word forms are not word types);
- a form that occurs in several entries carrying the feature with *different* values is
  ambiguous (German *Kapitäne*: Nominative/Accusative/Genitive) and dropped - a probe could not
  be right about it;
- labels with fewer than 5 forms are dropped; a feature left with a single value (English
  ``number``: only ``3;SG`` is marked) is ineligible;
- a ``None`` class (30%) is drawn from forms that never carry the feature, so the probe must
  also tell *whether* a word has the feature;
- with a frequency list, 80% of each class's forms are frequent and 20% rare.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any

from polyprobe.builders.floors import format_floors, plan_classes, rows_needed
from polyprobe.builders.word.common import (
    FREQUENT_SHARE,
    MIN_LABEL_FORMS,
    NONE_LABEL,
    NONE_SHARE,
    SCALE_FLOOR,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    character_bin,
    frequency_split,
    has_space,
    key_of,
)
from polyprobe.builders.word.syncretism import (
    SYNCRETIC,
    Syncretism,
    SyncretismOptions,
    TextEvidence,
    context_name,
    lexicon_name,
    paradigm_syncretism,
    unit_key,
)
from polyprobe.hashing import stable_rng
from polyprobe.loaders import unimorph_schema as schema
from polyprobe.loaders.frequency import FrequencyList
from polyprobe.loaders.records import LexEntry

# task name -> UniMorph dimension. ``person`` is special: its label is person + number.
FEATURE_TASKS: dict[str, str] = {
    "case": schema.CASE,
    "gender": schema.GENDER,
    "mood": schema.MOOD,
    "number": schema.NUMBER,
    "person": schema.PERSON,
    "polarity": schema.POLARITY,
    "possession": schema.POSSESSION,
    "tense": schema.TENSE,
    "voice": schema.VOICE,
}
TYPE_TASKS = ("pos", "tag_count", "character_bin")
# Decoded VerbForm values that are parts of speech of their own for ``pos`` (UniMorph
# V.PTCP, V.CVB, V.MSDR).
# The card flags a class when more than this share of its rows is paradigm-syncretic.
SYNCRETIC_FLAG_SHARE = 0.05
VERBAL_POS_FORMS = frozenset(schema.TAGS[t][1] for t in schema.VERB_FORMS)


def person_label(entry: LexEntry) -> str | None:
    """``Third person Singular``: the subject's person and number. From the ``NOM`` layer when
    the bundle is layered (its number, else the bundle's), else from the flat tags."""
    nom = entry.layers.get("NOM")
    if nom is not None and schema.PERSON in nom:
        number = nom.get(schema.NUMBER) or entry.features.get(schema.NUMBER)
        return schema.person_number_label(nom[schema.PERSON], number)
    return schema.person_number_label(
        entry.features.get(schema.PERSON), entry.features.get(schema.NUMBER)
    )


def feature_getter(task: str) -> Callable[[LexEntry], str | None]:
    """The label function of a single-feature task; a task name outside
    :data:`FEATURE_TASKS` is taken as a dimension name (``person_dat``, ``Aspect``)."""
    if task == "person":
        return person_label
    dim = FEATURE_TASKS.get(task, task)
    return lambda entry: entry.features.get(dim)


class _Forms:
    """Per form unit: its first spelling, its lemmas, the values of the feature it carries and
    whether some entry does not carry it. Built in one pass over the entries. The unit is the
    lexical key (NFC + case-fold), or the NFC spelling when ``case_sensitive`` (the lexicon's
    case tells words apart: German ``Scheitern`` the noun, ``scheitern`` the verb)."""

    def __init__(
        self,
        entries: Iterable[LexEntry],
        value: Callable[[LexEntry], str | None],
        report: TaskReport,
        case_sensitive: bool = False,
    ):
        self.case_sensitive = case_sensitive
        self.form: dict[str, str] = {}
        self.lemmas: dict[str, list[str]] = {}
        self.values: dict[str, set[str]] = {}
        self.bare: set[str] = set()
        # case-sensitive: every lemma of the lexical key, so that a lemma-disjoint split keeps
        # ``Scheitern`` (noun) and ``scheitern`` (verb) forms on one side
        self.folded_lemmas: dict[str, list[str]] = {}
        n = 0
        for entry in entries:
            n += 1
            if has_space(entry.form):
                report.drops["form-with-space"] += 1
                continue
            if case_sensitive:
                folded = self.folded_lemmas.setdefault(key_of(entry.form), [])
                if entry.lemma not in folded:
                    folded.append(entry.lemma)
            key = unit_key(entry.form, case_sensitive)
            self.form.setdefault(key, entry.form)
            lemmas = self.lemmas.setdefault(key, [])
            if entry.lemma not in lemmas:
                lemmas.append(entry.lemma)
            v = value(entry)
            if v is None:
                self.bare.add(key)
            else:
                self.values.setdefault(key, set()).add(v)
        report.counts["entries"] = n
        report.counts["forms"] = len(self.form)

    # The feature's own values in the lexicon (before cell decisions), set by the task.
    base_names: set[str] | None = None

    @cached_property
    def value_names(self) -> set[str]:
        """Every value of the feature the lexicon's forms carry (to name treebank values)."""
        if self.base_names is not None:
            return self.base_names
        return set().union(*self.values.values())

    def candidate(self, key: str, label: str) -> WordCandidate:
        lemmas = tuple(self.lemmas[key])
        if not self.case_sensitive:
            return WordCandidate(self.form[key], label, key, key, lemmas[0], (key,), lemmas)
        folded = key_of(self.form[key])
        every = (*lemmas, *(x for x in self.folded_lemmas[folded] if x not in lemmas))
        return WordCandidate(self.form[key], label, key, folded, lemmas[0], (folded,), every)


def _frequency_test(
    forms: _Forms, frequencies: FrequencyList | None
) -> Callable[[tuple[str, str]], bool] | None:
    if frequencies is None:
        return None
    return lambda item: frequencies.is_frequent(forms.form[item[0]])


def single_feature(
    entries: Iterable[LexEntry],
    task: str,
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    none_share: float = NONE_SHARE,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
    class_floor: int = 0,
    floors: tuple[int, int, int] = (0, 0, 0),
    split_sizes: tuple[int, int, int] = (7000, 2000, 1000),
    case_sensitive: bool = False,
    syncretism: SyncretismOptions | None = None,
    evidence: TextEvidence | None = None,
) -> TaskResult:
    """Candidates of one single-feature task (``case``, ``person``, ... or any dimension name).

    Size: ``sizes.target(forms carrying the feature)`` items in all, ``none_share`` of them
    ``None``; eligible when at least that many unambiguous labelled forms remain (LINSPECTOR:
    10,000) and at least two values survive.

    ``class_floor``: the rows a class needs to meet the build's class floors in every split
    (:func:`~polyprobe.builders.variants.rows_needed`). The class set is decided here, from
    the whole pool, before any split: a value with fewer unambiguous forms is dropped with
    that reason, every kept value gets at least ``class_floor`` rows in the sample
    (stratified), and the engine's stratified split then gives each its floor in every
    split; so no class is lost to a chance shortfall in one split."""
    sizes = sizes or SizeParams()
    report = TaskReport(task)
    report.params = {
        **sizes.as_dict(),
        "none_share": none_share,
        "min_label_forms": min_label_forms,
        "frequent_share": frequent_share if frequencies is not None else None,
        "seed": seed,
    }
    entries = entries if isinstance(entries, list) else list(entries)
    value = feature_getter(task)
    sync = None
    labelled_value = value
    if syncretism is not None:
        sync = paradigm_syncretism(entries, value, _task_dims(task), syncretism)
        decided = sync

        def labelled_value(entry: LexEntry) -> str | None:
            v = value(entry)
            return None if v is None else decided.entry_value(entry, v)

    forms = _Forms(entries, labelled_value, report, case_sensitive)
    forms.base_names = {v for e in entries if (v := value(e)) is not None}
    # Forms whose every value is a dropped syncretic cell no longer carry the feature for the
    # task (``--syncretism drop``): the derived size follows what is left.
    carrying = sum(1 for vs in forms.values.values() if vs - {SYNCRETIC})
    report.counts["carrying_forms"] = carrying
    report.params["case_sensitive"] = case_sensitive
    syncretic_with: dict[str, set[str]] = {}
    if sync is not None:
        syncretic_with = _syncretic_units(entries, value, sync, case_sensitive)
        report.counts["syncretism"] = sync.report()
        if sync.syncretic_cells:
            report.notes.append(_syncretism_note(sync, len(syncretic_with)))
    ambiguous, by_label = _label_forms(forms, sync, report)
    report.drops["ambiguous-form"] += len(ambiguous)
    report.counts["ambiguous_examples"] = [forms.form[k] for k in ambiguous[:10]]
    if evidence is not None:
        _drop_text_ambiguous(by_label, forms, evidence, task, sync, report)
    thin = sorted(label for label, keys in by_label.items() if len(keys) < min_label_forms)
    for label in thin:
        report.drops["label-below-min-forms"] += len(by_label.pop(label))
    if thin:
        report.notes.append(f"labels with < {min_label_forms} forms dropped: {', '.join(thin)}")
    before_floors = {label: list(keys) for label, keys in by_label.items()}
    _drop_below_floor(by_label, class_floor, report)
    labelled = sorted((key, label) for label, keys in by_label.items() for key in keys)
    report.counts["labelled_pool"] = len(labelled)
    none_pool = _none_pool(forms, labelled)
    report.counts["none_pool"] = len(none_pool)

    if carrying == 0:
        report.ineligible(f"no form carries {task}")
    elif len(by_label) < 2:
        values = sorted({v for vs in forms.values.values() for v in vs})
        kept = sorted(by_label)
        report.ineligible(
            f"single-valued: only {', '.join(kept) or 'nothing'} left (of "
            f"{', '.join(values) or 'nothing'}) after dropping ambiguous forms, labels with "
            f"< {min_label_forms} forms"
            + (f" and labels below the class floors ({class_floor} forms)" if class_floor else "")
            + (
                "; "
                + plan_remedy(before_floors, len(none_pool), sizes.target(carrying), none_share,
                              split_sizes, floors, class_floor, sizes.scale)
                if class_floor and len(before_floors) >= 2
                else ""
            )
        )
    target = sizes.target(carrying)
    report.counts["target"] = target
    if report.eligible and len(labelled) < target:
        report.ineligible(
            f"{len(labelled)} unambiguous labelled forms < {target} required"
            + (" (scale: 50% of carrying forms, floor 1,000)" if sizes.scale else " (min_forms)")
            + "; "
            + size_remedy(len(labelled), carrying, sizes)
        )
    if not report.eligible:
        return TaskResult(task, [], report)

    n_none_wanted = round(target * none_share)
    n_none = min(n_none_wanted, len(none_pool))
    if n_none < n_none_wanted:
        report.notes.append(
            f"only {len(none_pool)} forms never carry {task}: None class has {n_none} "
            f"instead of {n_none_wanted}"
        )
    plan = None
    if class_floor > 0:
        plan = plan_classes(
            {label: len(keys) for label, keys in by_label.items()},
            len(none_pool),
            target=target,
            none_share=none_share,
            proportions=split_sizes,
            floors=floors,
            reserve=class_floor,
            grow=sizes.scale,
            fixed_counts=None if sizes.scale else split_sizes,
        )
        if plan is None:
            report.ineligible(
                f"no class plan keeps 2 of {len(by_label)} values at their floors "
                f"({'/'.join(map(str, floors))} rows in train/validation/test) within "
                f"{len(labelled)} labelled forms"
                + ("" if sizes.scale else f" and --split-sizes {'/'.join(map(str, split_sizes))}")
                + "; "
                + plan_remedy(by_label, len(none_pool), target, none_share, split_sizes,
                              floors, class_floor, sizes.scale)
            )
            return TaskResult(task, [], report)
    if plan is not None and n_none > 0 and plan.none == 0:
        report.notes.append(f"None class dropped: {n_none} forms < {plan.reserve} its floors need")
        report.drops["label-below-class-floors"] += n_none
    if plan is not None:
        n_none = plan.none
        n_labelled = plan.labelled
        reserve = plan.reserve
        gone = sorted(set(by_label) - set(plan.kept))
        if gone:
            report.drops["label-beyond-task-size"] += sum(len(by_label[g]) for g in gone)
            report.notes.append(
                f"{n_labelled} labelled rows hold {len(plan.kept)} values at their floors "
                f"({reserve} rows each): dropped the rarer {', '.join(gone)}; "
                + plan_remedy(by_label, len(none_pool), target, none_share, split_sizes,
                              floors, class_floor, sizes.scale, keep_all=True)
            )
        report.notes.extend(plan.raised)
        if plan.raised:
            report.counts["class_plan"] = {
                "rows": n_labelled + n_none,
                "split_counts": list(plan.counts),
                "reserve_per_class": reserve,
            }
        labelled = [(k, label) for k, label in labelled if label in set(plan.kept)]
    else:
        n_labelled = target - n_none_wanted
        reserve = class_floor
    is_frequent = _frequency_test(forms, frequencies)
    rng = stable_rng(seed, "word", task, "labelled")
    chosen = _stratified_sample(
        labelled, n_labelled, reserve, rng, is_frequent, frequent_share, report
    )
    rng = stable_rng(seed, "word", task, "none")
    none_items = [(k, NONE_LABEL) for k in none_pool]
    chosen_none = frequency_split(
        none_items, n_none, rng, is_frequent, frequent_share, report, "none"
    )
    candidates = [forms.candidate(k, label) for k, label in chosen + chosen_none]
    report.label_counts = dict(sorted(Counter(c.label for c in candidates).items()))
    if sync is not None:
        shares = syncretic_shares(chosen, forms, syncretic_with, sync)
        report.counts["syncretic_share"] = shares
        report.notes.append(_share_note(shares, sync.options.mode))
    if evidence is not None:
        agreement = ud_agreement(chosen, forms, evidence, task, sync)
        report.counts["ud_agreement"] = agreement
        note = agreement_note(agreement)
        if note:
            report.notes.append(note)
    split_counts = plan.counts if plan is not None and plan.raised else None
    return TaskResult(task, candidates, report, split_counts)


def _task_dims(task: str) -> frozenset[str]:
    """The dimensions a task's label is made of (left out of the syncretism context)."""
    if task == "person":
        return frozenset({schema.PERSON, schema.NUMBER})
    return frozenset({FEATURE_TASKS.get(task, task)})


def _label_forms(
    forms: _Forms, sync: Syncretism | None, report: TaskReport
) -> tuple[list[str], dict[str, list[str]]]:
    """The units with one class each, by class; the ambiguous ones. A unit is ambiguous when
    its entries carry two classes (after syncretic values are merged), when one of its values
    is a dropped syncretic value, or when another of its entries lacks the feature (a
    homograph: ``Melden`` the plural noun, ``melden`` the verb, merged case-insensitively).
    Case-sensitive units of one lexical key keep one spelling: two spellings with classes
    would be one row id (and one word to a lower-casing encoder)."""
    ambiguous: list[str] = []
    by_label: dict[str, list[str]] = {}
    for key in sorted(forms.values):
        vs = forms.values[key]
        mapped = {sync.label(v) if sync else v for v in vs}
        if None in mapped:
            report.drops["syncretic-value"] += 1
            continue
        if len(mapped) > 1:
            ambiguous.append(key)
            continue
        if key in forms.bare:
            report.drops["homograph"] += 1
            report.counts.setdefault("homograph_examples", [])
            if len(report.counts["homograph_examples"]) < 10:
                report.counts["homograph_examples"].append(forms.form[key])
            continue
        by_label.setdefault(str(next(iter(mapped))), []).append(key)
    if forms.case_sensitive:
        spellings: dict[str, list[tuple[str, str]]] = {}
        for label, keys in by_label.items():
            for key in keys:
                spellings.setdefault(key_of(forms.form[key]), []).append((key, label))
        for units in spellings.values():
            if len(units) < 2:
                continue
            drop = units if len({label for _, label in units}) > 1 else sorted(units)[1:]
            for key, label in drop:
                by_label[label].remove(key)
                report.drops["case-variant"] += 1
    return ambiguous, {label: keys for label, keys in by_label.items() if keys}


def _none_pool(forms: _Forms, labelled: list[tuple[str, str]]) -> list[str]:
    """Units that never carry the feature; case-sensitive, one spelling per lexical key and
    none whose key has a labelled spelling."""
    pool = sorted(k for k in forms.bare if k not in forms.values)
    if not forms.case_sensitive:
        return pool
    taken = {key_of(forms.form[k]) for k, _ in labelled}
    taken |= {key_of(forms.form[k]) for k in forms.values}
    out = []
    for k in pool:
        folded = key_of(forms.form[k])
        if folded not in taken:
            taken.add(folded)
            out.append(k)
    return out


def _text_labels(
    forms: _Forms, key: str, evidence: TextEvidence, task: str, sync: Syncretism | None
) -> set[str]:
    """The lexicon's names of the values the form carries in the treebanks."""
    dim = "person" if task == "person" else FEATURE_TASKS.get(task, task)
    seen = evidence.labels(forms.form[key], dim, forms.case_sensitive)
    return {lexicon_name(name, forms.value_names) for name in seen}


def _parts(label: str, sync: Syncretism | None) -> frozenset[str]:
    return sync.parts(label) if sync is not None else frozenset({label})


def _drop_text_ambiguous(
    by_label: dict[str, list[str]],
    forms: _Forms,
    evidence: TextEvidence,
    task: str,
    sync: Syncretism | None,
    report: TaskReport,
) -> None:
    """Drop forms that carry two or more classes of the feature in the UD treebanks given as
    ``--frequencies`` (German ``Frau``: Nom, Acc, Dat, Gen): a probe cannot be right about
    them, whatever the lexicon lists. Values inside the form's joined class are one class."""
    examples: list[str] = []
    for label in list(by_label):
        kept = []
        parts = _parts(label, sync)
        for key in by_label[label]:
            seen = _text_labels(forms, key, evidence, task, sync)
            if len(seen) > 1 and not seen <= parts:
                report.drops["ambiguous-in-treebanks"] += 1
                if len(examples) < 10:
                    examples.append(forms.form[key])
            else:
                kept.append(key)
        if kept:
            by_label[label] = kept
        else:
            del by_label[label]
    report.counts["treebank_ambiguous_examples"] = examples


def ud_agreement(
    chosen: Sequence[tuple[str, str]],
    forms: _Forms,
    evidence: TextEvidence,
    task: str,
    sync: Syncretism | None,
) -> dict[str, Any]:
    """How the published labels compare with the treebanks' on the forms both have: a form
    agrees when every value it carries there is one of its class's values (a joined class
    has several). A disagreeing form is counted as *another cell* when the value the
    treebank gives is one of the feature's values the lexicon lists for other forms - the
    token is the same spelling used in a cell the lexicon does not list for it."""
    shared = agree = 0
    disagree: list[str] = []
    for key, label in chosen:
        seen = _text_labels(forms, key, evidence, task, sync)
        if not seen:
            continue
        shared += 1
        if seen <= _parts(label, sync):
            agree += 1
        elif len(disagree) < 10:
            disagree.append(f"{forms.form[key]}: {label} vs {', '.join(sorted(seen))}")
    return {
        "treebanks": list(evidence.treebanks),
        "labelled_rows": len(chosen),
        "in_treebanks": shared,
        "agree": agree,
        "agreement": round(agree / shared, 4) if shared else None,
        "disagree_examples": disagree,
    }


def agreement_note(agreement: dict[str, Any]) -> str | None:
    """What the treebank agreement figure means, in the card (its numbers, not a boilerplate):
    the lexicon lists a form under the cells it samples, a treebank tags each token in its
    sentence, so a published form that a treebank uses in another cell (an unlisted syncretic
    cell, or a different word spelled alike) disagrees."""
    shared = agreement["in_treebanks"]
    if not shared:
        return None
    examples = "; ".join(agreement["disagree_examples"][:3])
    return (
        f"treebank agreement {agreement['agreement']:.2f}: of {agreement['labelled_rows']} "
        f"labelled rows, {shared} forms occur in {', '.join(agreement['treebanks'])} with the "
        f"feature and {agreement['agree']} carry only their published class there; the other "
        f"{shared - agreement['agree']} are tagged there with another value (the lexicon lists a "
        "form under the cells it samples, the treebank tags each token in its sentence: an "
        "unlisted syncretic cell or another word spelled alike)"
        + (f", e.g. {examples}" if examples else "")
        + "; forms tagged with two or more classes there were dropped before sampling"
    )


def _syncretic_units(
    entries: Sequence[LexEntry],
    value: Callable[[LexEntry], str | None],
    sync: Syncretism,
    case_sensitive: bool,
) -> dict[str, set[str]]:
    """Per form unit, the values its cells cannot tell it from (its own value included),
    for every unit with at least one such cell: what the card's per-class shares count."""
    out: dict[str, set[str]] = {}
    for entry in entries:
        v = value(entry)
        if v is None or has_space(entry.form):
            continue
        partners = sync.partners(entry, v)
        if partners:
            out.setdefault(unit_key(entry.form, case_sensitive), set()).update({v, *partners})
    return out


def syncretic_shares(
    chosen: Sequence[tuple[str, str]],
    forms: _Forms,
    syncretic_with: dict[str, set[str]],
    sync: Syncretism,
) -> dict[str, dict[str, Any]]:
    """Per published class, its rows and how many the paradigm calls syncretic with a value
    outside the class (a merged row's joined class holds its partners: not counted)."""
    out: dict[str, dict[str, Any]] = {}
    for key, label in chosen:
        slot = out.setdefault(label, {"rows": 0, "syncretic": 0, "examples": []})
        slot["rows"] += 1
        others = syncretic_with.get(key, set()) - sync.parts(label)
        if others:
            slot["syncretic"] += 1
            if len(slot["examples"]) < 3:
                slot["examples"].append(f"{forms.form[key]} ~ {', '.join(sorted(others))}")
    for slot in out.values():
        slot["share"] = round(slot["syncretic"] / slot["rows"], 4) if slot["rows"] else 0.0
    return dict(sorted(out.items()))


def _share_note(shares: dict[str, dict[str, Any]], mode: str) -> str:
    worst = max(shares.items(), key=lambda kv: (kv[1]["share"], kv[0]), default=None)
    if worst is None:
        return "paradigm-syncretic rows: no labelled rows"
    flagged = [(k, v) for k, v in shares.items() if v["share"] > SYNCRETIC_FLAG_SHARE]
    if not flagged:
        return (
            f"paradigm-syncretic rows per class at most {worst[1]['share']:.1%} ({worst[0]}); "
            + {
                "merge": "syncretic forms carry the joined class of their cell",
                "drop": "syncretic forms were dropped",
                "keep": "syncretic forms keep their labels (--syncretism keep)",
            }[mode]
        )
    return (
        f"FLAG: classes with more than {SYNCRETIC_FLAG_SHARE:.0%} paradigm-syncretic rows "
        "(their form is also another cell of their lemma's paradigm; kept, as LINSPECTOR keeps "
        "them): "
        + "; ".join(
            f"{k} {v['share']:.0%} ({', '.join(v['examples'][:2])})" for k, v in flagged
        )
        + "; --syncretism merge or drop would relabel or drop them"
    )


def _syncretism_note(sync: Syncretism, units: int) -> str:
    shown = sorted(sync.syncretic_cells, key=lambda t: -sync.cell_pairs[t][0])[:8]
    more = len(sync.syncretic_cells) - len(shown)
    return (
        "syncretic per paradigm cell (lemmas spelling both cells alike / lemmas with both): "
        + "; ".join(
            f"{context_name(c)}: {a} ~ {b} {sync.cell_pairs[(c, a, b)][1]}/"
            f"{sync.cell_pairs[(c, a, b)][0]}"
            for c, a, b in shown
        )
        + (f"; and {more} more pairs (report.json)" if more > 0 else "")
        + f"; {units} forms are syncretic in their cell ("
        + {
            "merge": "they carry the joined class of the values it cannot tell apart",
            "drop": "dropped",
            "keep": "kept with their labels; shares flagged below",
        }[sync.options.mode]
        + ")"
    )


def _drop_below_floor(by_label: dict[str, list[str]], class_floor: int, report: TaskReport) -> None:
    """Drop the values whose whole pool is below ``class_floor`` (they could not meet the
    class floors in every split, whatever the split): decided before splitting, reported."""
    if class_floor <= 0:
        return
    low = sorted(label for label, keys in by_label.items() if len(keys) < class_floor)
    if not low:
        return
    detail = ", ".join(f"{label} ({len(by_label[label])})" for label in low)
    for label in low:
        report.drops["label-below-class-floors"] += len(by_label.pop(label))
    report.notes.append(
        f"values with fewer unambiguous forms than the class floors need in all splits "
        f"({class_floor}) dropped before splitting: {detail}"
    )


def size_remedy(labelled: int, carrying: int, sizes: SizeParams) -> str:
    """The option that lowers a task's size to the unambiguous forms it has: under
    ``--scale`` the size is ``max(--min-forms, 50 % of carrying forms)``, so only the floor
    can be lowered; without it ``--scale`` first, when the derived size fits."""
    half = math.floor(sizes.scale_share * carrying)
    if not sizes.scale and max(SCALE_FLOOR, half) <= labelled:
        return "remedy: --scale (the size follows the lexicon: 50% of carrying forms)"
    if half <= labelled:
        return f"remedy: --min-forms {labelled}" + ("" if sizes.scale else " --scale")
    return (
        f"remedy: a larger lexicon ({half - labelled} more unambiguous forms for 50% of "
        f"{carrying} carrying forms)"
    )


def plan_remedy(
    by_label: dict[str, list[str]],
    none_available: int,
    target: int,
    none_share: float,
    split_sizes: tuple[int, int, int],
    floors: tuple[int, int, int],
    class_floor: int,
    scale: bool,
    *,
    keep_all: bool = False,
) -> str:
    """The cheapest option that makes the class plan keep two classes (``keep_all``: every
    class) on this input, checked by planning again with it: ``--scale`` (the size then
    follows the data and validation/test may be raised), else the highest ``--min-per-class``
    (in tenths of the given floors) that fits; else more forms."""
    available = {label: len(keys) for label, keys in by_label.items()}
    wanted = len(available) if keep_all else 2

    def fits(floors_: tuple[int, int, int], grow: bool) -> bool:
        reserve = rows_needed(split_sizes, floors_) if any(floors_) else 0
        left = {v: n for v, n in available.items() if n >= reserve}
        if len(left) < wanted:
            return False
        plan = plan_classes(
            left, none_available, target=target, none_share=none_share,
            proportions=split_sizes, floors=floors_, reserve=reserve, grow=grow,
            fixed_counts=None if grow else split_sizes,
        )
        return plan is not None and len(plan.kept) >= wanted

    if not scale and fits(floors, True):
        return "remedy: --scale (the size follows the lexicon, validation/test hold the floors)"
    for tenths in range(9, 0, -1):
        lower = tuple(max(1, f * tenths // 10) if f else 0 for f in floors)
        if lower != floors and fits(lower, scale):  # type: ignore[arg-type]
            return (
                f"remedy: --min-per-class {format_floors(lower)} "
                f"(fewer rows per class in each split: less power per class)"
            )
    return "remedy: a larger lexicon (more unambiguous forms of each value)"


def _stratified_sample(
    labelled: list[tuple[str, str]],
    n_rows: int,
    class_floor: int,
    rng: Any,
    is_frequent: Callable[[tuple[str, str]], bool] | None,
    frequent_share: float,
    report: TaskReport,
) -> list[tuple[str, str]]:
    """``n_rows`` of ``labelled``: first ``class_floor`` rows of every value (so each kept
    value can meet its floors in every split), then the rest drawn from what is left as
    LINSPECTOR drew (frequent/rare shares)."""
    if class_floor <= 0:
        return frequency_split(
            labelled, n_rows, rng, is_frequent, frequent_share, report, "labelled"
        )
    by_label: dict[str, list[tuple[str, str]]] = {}
    for item in labelled:
        by_label.setdefault(item[1], []).append(item)
    reserved: list[tuple[str, str]] = []
    scratch = TaskReport(report.task)
    for label in sorted(by_label):
        reserved += frequency_split(
            by_label[label], class_floor, rng, is_frequent, frequent_share, scratch, "reserve"
        )
    taken = set(reserved)
    rest = [item for item in labelled if item not in taken]
    report.counts["labelled_reserved_per_value"] = class_floor
    fill = frequency_split(
        rest, max(n_rows - len(reserved), 0), rng, is_frequent, frequent_share, report, "labelled"
    )
    return reserved + fill


def _first_analyses(
    entries: Iterable[LexEntry], report: TaskReport
) -> tuple[dict[str, LexEntry], dict[str, list[str]]]:
    """Per form key, the first entry (LINSPECTOR: duplicate forms keep their first analysis)
    and all lemmas."""
    first: dict[str, LexEntry] = {}
    lemmas: dict[str, list[str]] = {}
    n = 0
    for entry in entries:
        n += 1
        if has_space(entry.form):
            report.drops["form-with-space"] += 1
            continue
        key = key_of(entry.form)
        if key in first:
            report.drops["duplicate-form"] += 1
        else:
            first[key] = entry
        ls = lemmas.setdefault(key, [])
        if entry.lemma not in ls:
            ls.append(entry.lemma)
    report.counts["entries"] = n
    report.counts["forms"] = len(first)
    return first, lemmas


def _finish(
    task: str,
    items: Sequence[tuple[str, str]],
    form_of: dict[str, str],
    lemmas: dict[str, list[str]],
    report: TaskReport,
    min_label_forms: int,
    class_floor: int = 0,
) -> TaskResult:
    counts = Counter(label for _, label in items)
    thin = sorted(label for label, n in counts.items() if n < min_label_forms)
    if thin:
        report.notes.append(f"labels with < {min_label_forms} forms dropped: {', '.join(thin)}")
        report.drops["label-below-min-forms"] += sum(counts[t] for t in thin)
    low = sorted(label for label, n in counts.items() if label not in thin and n < class_floor)
    if low:
        report.notes.append(
            f"labels with fewer rows than the class floors need in all splits ({class_floor}) "
            f"dropped before splitting: {', '.join(f'{x} ({counts[x]})' for x in low)}"
        )
        report.drops["label-below-class-floors"] += sum(counts[x] for x in low)
        thin = [*thin, *low]
    kept = [(k, label) for k, label in items if label not in thin]
    if len({label for _, label in kept}) < 2:
        report.ineligible(f"fewer than 2 labels with >= {min_label_forms} forms")
        return TaskResult(task, [], report)
    candidates = []
    for key, label in kept:
        ls = tuple(lemmas[key])
        candidates.append(WordCandidate(form_of[key], label, key, key, ls[0], (key,), ls))
    report.label_counts = dict(sorted(Counter(c.label for c in candidates).items()))
    return TaskResult(task, candidates, report)


def pos_label(entry: LexEntry) -> str | None:
    """The ``pos`` task's label: the decoded verb form when it is one of UniMorph's verbal POS
    tags (Participle, Converb, Masdar: the loader keeps them as ``VerbForm`` of a Verb, so the
    feature tasks see one verb paradigm), else the POS. LINSPECTOR's ``pos`` has Participle
    and Converb classes; publishing them as Verb made exported labels disagree with it."""
    form = entry.features.get(schema.VERB_FORM)
    if form in VERBAL_POS_FORMS:
        return form
    return entry.features.get(schema.POS)


def pos_task(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
    class_floor: int = 0,
) -> TaskResult:
    """Part of speech of a form (no ``None`` class: every entry has a POS). Forms with two
    parts of speech (German *essen*/*Essen* after case-folding) are ambiguous and dropped.
    Participles, converbs and masdars are their own parts of speech here (:func:`pos_label`),
    as UniMorph's ``V.PTCP``/``V.CVB``/``V.MSDR`` and LINSPECTOR's POS labels have them."""
    sizes = sizes or SizeParams()
    report = TaskReport("pos")
    report.params = {**sizes.as_dict(), "min_label_forms": min_label_forms, "seed": seed}
    forms = _Forms(entries, pos_label, report)
    ambiguous = [k for k, vs in forms.values.items() if len(vs) > 1]
    report.drops["ambiguous-form"] += len(ambiguous)
    report.drops["no-pos"] += len(forms.bare - set(forms.values))
    pool = sorted((k, next(iter(vs))) for k, vs in forms.values.items() if len(vs) == 1)
    target = sizes.target(len(forms.values))
    report.counts.update(labelled_pool=len(pool), target=target)
    if len(pool) < target:
        report.ineligible(f"{len(pool)} unambiguous forms < {target} required")
        return TaskResult("pos", [], report)
    rng = stable_rng(seed, "word", "pos")
    chosen = frequency_split(
        pool, target, rng, _frequency_test(forms, frequencies), frequent_share, report, "labelled"
    )
    return _finish("pos", chosen, forms.form, forms.lemmas, report, min_label_forms, class_floor)


def _type_level(
    task: str,
    entries: Iterable[LexEntry],
    label: Callable[[LexEntry], str],
    sizes: SizeParams | None,
    frequencies: FrequencyList | None,
    seed: int,
    min_label_forms: int,
    frequent_share: float,
    class_floor: int = 0,
) -> TaskResult:
    """``tag_count`` and ``character_bin`` sample the *same* words (same seed stream, chosen
    before labelling), as LINSPECTOR did, so the two tasks differ only in what they ask."""
    sizes = sizes or SizeParams()
    report = TaskReport(task)
    report.params = {**sizes.as_dict(), "min_label_forms": min_label_forms, "seed": seed}
    first, lemmas = _first_analyses(entries, report)
    pool = sorted(first)
    target = sizes.target(len(pool))
    report.counts.update(labelled_pool=len(pool), target=target)
    if len(pool) < target:
        report.ineligible(f"{len(pool)} forms < {target} required")
        return TaskResult(task, [], report)
    rng = stable_rng(seed, "word", "type-level-words")
    is_frequent = (
        None if frequencies is None else (lambda k: frequencies.is_frequent(first[k].form))
    )
    chosen = frequency_split(pool, target, rng, is_frequent, frequent_share, report, "labelled")
    items = [(k, label(first[k])) for k in chosen]
    forms = {k: first[k].form for k in chosen}
    return _finish(task, items, forms, lemmas, report, min_label_forms, class_floor)


def tag_count(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
    class_floor: int = 0,
) -> TaskResult:
    """Number of tags in the form's (first) bundle as UniMorph writes it, POS included
    (:func:`~polyprobe.loaders.unimorph_schema.written_tags`): the decoded dimensions
    undercounted tags the decoder merges or does not know."""
    return _type_level(
        "tag_count",
        entries,
        lambda e: str(schema.written_tags(e.tag)),
        sizes,
        frequencies,
        seed,
        min_label_forms,
        frequent_share,
        class_floor,
    )


def character_bin_task(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
    class_floor: int = 0,
) -> TaskResult:
    """Length bin of the form in Unicode code points (the same words as ``tag_count``)."""
    return _type_level(
        "character_bin",
        entries,
        lambda e: character_bin(e.form),
        sizes,
        frequencies,
        seed,
        min_label_forms,
        frequent_share,
        class_floor,
    )
