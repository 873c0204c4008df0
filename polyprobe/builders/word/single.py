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

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from polyprobe.builders.word.common import (
    FREQUENT_SHARE,
    MIN_LABEL_FORMS,
    NONE_LABEL,
    NONE_SHARE,
    SizeParams,
    TaskReport,
    TaskResult,
    WordCandidate,
    character_bin,
    frequency_split,
    has_space,
    key_of,
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
    """Per form key: its first spelling, its lemmas, the values of the feature it carries and
    whether some entry does not carry it. Built in one pass over the entries."""

    def __init__(
        self,
        entries: Iterable[LexEntry],
        value: Callable[[LexEntry], str | None],
        report: TaskReport,
    ):
        self.form: dict[str, str] = {}
        self.lemmas: dict[str, list[str]] = {}
        self.values: dict[str, set[str]] = {}
        self.bare: set[str] = set()
        n = 0
        for entry in entries:
            n += 1
            if has_space(entry.form):
                report.drops["form-with-space"] += 1
                continue
            key = key_of(entry.form)
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

    def candidate(self, key: str, label: str) -> WordCandidate:
        lemmas = tuple(self.lemmas[key])
        return WordCandidate(self.form[key], label, key, key, lemmas[0], (key,), lemmas)


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
) -> TaskResult:
    """Candidates of one single-feature task (``case``, ``person``, ... or any dimension name).

    Size: ``sizes.target(forms carrying the feature)`` items in all, ``none_share`` of them
    ``None``; eligible when at least that many unambiguous labelled forms remain (LINSPECTOR:
    10,000) and at least two values survive."""
    sizes = sizes or SizeParams()
    report = TaskReport(task)
    report.params = {
        **sizes.as_dict(),
        "none_share": none_share,
        "min_label_forms": min_label_forms,
        "frequent_share": frequent_share if frequencies is not None else None,
        "seed": seed,
    }
    forms = _Forms(entries, feature_getter(task), report)
    carrying = len(forms.values)
    report.counts["carrying_forms"] = carrying
    ambiguous = sorted(k for k, vs in forms.values.items() if len(vs) > 1)
    report.drops["ambiguous-form"] += len(ambiguous)
    report.counts["ambiguous_examples"] = [forms.form[k] for k in ambiguous[:10]]

    by_label: dict[str, list[str]] = {}
    for key, vs in forms.values.items():
        if len(vs) == 1:
            by_label.setdefault(next(iter(vs)), []).append(key)
    thin = sorted(label for label, keys in by_label.items() if len(keys) < min_label_forms)
    for label in thin:
        report.drops["label-below-min-forms"] += len(by_label.pop(label))
    if thin:
        report.notes.append(f"labels with < {min_label_forms} forms dropped: {', '.join(thin)}")
    labelled = sorted((key, label) for label, keys in by_label.items() for key in keys)
    report.counts["labelled_pool"] = len(labelled)
    none_pool = sorted(k for k in forms.bare if k not in forms.values)
    report.counts["none_pool"] = len(none_pool)

    if carrying == 0:
        report.ineligible(f"no form carries {task}")
    elif len(by_label) < 2:
        values = sorted({v for vs in forms.values.values() for v in vs})
        report.ineligible(
            f"single-valued: only {', '.join(values) or 'nothing'} after dropping ambiguous forms "
            f"and labels with < {min_label_forms} forms"
        )
    target = sizes.target(carrying)
    report.counts["target"] = target
    if report.eligible and len(labelled) < target:
        report.ineligible(
            f"{len(labelled)} unambiguous labelled forms < {target} required"
            + (" (scale: 50% of carrying forms, floor 1,000)" if sizes.scale else " (min_forms)")
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
    n_labelled = target - n_none_wanted
    is_frequent = _frequency_test(forms, frequencies)
    rng = stable_rng(seed, "word", task, "labelled")
    chosen = frequency_split(
        labelled, n_labelled, rng, is_frequent, frequent_share, report, "labelled"
    )
    rng = stable_rng(seed, "word", task, "none")
    none_items = [(k, NONE_LABEL) for k in none_pool]
    chosen_none = frequency_split(
        none_items, n_none, rng, is_frequent, frequent_share, report, "none"
    )
    candidates = [forms.candidate(k, label) for k, label in chosen + chosen_none]
    report.label_counts = dict(sorted(Counter(c.label for c in candidates).items()))
    return TaskResult(task, candidates, report)


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
) -> TaskResult:
    counts = Counter(label for _, label in items)
    thin = sorted(label for label, n in counts.items() if n < min_label_forms)
    if thin:
        report.notes.append(f"labels with < {min_label_forms} forms dropped: {', '.join(thin)}")
        report.drops["label-below-min-forms"] += sum(counts[t] for t in thin)
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


def pos_task(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
) -> TaskResult:
    """Part of speech of a form (no ``None`` class: every entry has a POS). Forms with two
    parts of speech (German *essen*/*Essen* after case-folding) are ambiguous and dropped."""
    sizes = sizes or SizeParams()
    report = TaskReport("pos")
    report.params = {**sizes.as_dict(), "min_label_forms": min_label_forms, "seed": seed}
    forms = _Forms(entries, lambda e: e.features.get(schema.POS), report)
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
    return _finish("pos", chosen, forms.form, forms.lemmas, report, min_label_forms)


def _type_level(
    task: str,
    entries: Iterable[LexEntry],
    label: Callable[[LexEntry], str],
    sizes: SizeParams | None,
    frequencies: FrequencyList | None,
    seed: int,
    min_label_forms: int,
    frequent_share: float,
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
    return _finish(task, items, {k: first[k].form for k in chosen}, lemmas, report, min_label_forms)


def tag_count(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
) -> TaskResult:
    """Number of feature dimensions in the form's (first) tag bundle, POS included."""
    return _type_level(
        "tag_count",
        entries,
        lambda e: str(len(e.features)),
        sizes,
        frequencies,
        seed,
        min_label_forms,
        frequent_share,
    )


def character_bin_task(
    entries: Iterable[LexEntry],
    *,
    sizes: SizeParams | None = None,
    frequencies: FrequencyList | None = None,
    seed: int = 0,
    min_label_forms: int = MIN_LABEL_FORMS,
    frequent_share: float = FREQUENT_SHARE,
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
    )
