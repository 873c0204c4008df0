"""Whether a UniMorph member needs ``scale = true``, counted on the lexicon."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from polyprobe.languages import Language


def scale_decision(paths: Sequence[Path], lang: Language) -> tuple[bool, str]:
    """Whether the unimorph member needs ``scale = true``, and the comment saying why.

    A word task at LINSPECTOR's fixed size takes ``min_forms`` (10,000) forms carrying its
    feature; with ``--scale`` it takes half of them, at least 1,000. So a feature carried by
    fewer than 10,000 forms but by 1,000 or more can only be built with ``--scale`` (a
    necessary condition: ambiguous forms are dropped later). Counted on the lexicon as the
    family reads it (distinct forms, case-folded); the type-level tasks (pos, tag_count,
    character_bin) count every form. On the shared data: SIGMORPHON 2018 Finnish builds 2
    word tasks at fixed sizes and 10 with --scale, UniMorph's Slovenian 7 and 9, UniMorph's
    English verbs 8 and 8 (with three times the rows), which this rule tells apart."""
    from polyprobe.builders.word.common import DEFAULT_MIN_FORMS, SCALE_FLOOR, key_of
    from polyprobe.builders.word.single import FEATURE_TASKS, feature_getter
    from polyprobe.loaders.source import InvalidPolicy
    from polyprobe.loaders.unimorph import UniMorphReader

    getters = {t: feature_getter(t) for t in FEATURE_TASKS}
    carrying: dict[str, set[str]] = {t: set() for t in getters}
    forms: set[str] = set()
    for entry in UniMorphReader(paths, lang=lang.code, policy=InvalidPolicy("skip")):
        key = key_of(entry.form)
        forms.add(key)
        for task, get in getters.items():
            if get(entry) is not None:
                carrying[task].add(key)
    counts = {t: len(v) for t, v in carrying.items() if v}
    counts["every form"] = len(forms)
    listed = ", ".join(f"{t} {n:,}" for t, n in counts.items())
    between = [t for t, n in counts.items() if SCALE_FLOOR <= n < DEFAULT_MIN_FORMS]
    if between:
        return True, (
            f"scale = true: forms carrying each feature: {listed}; {', '.join(between)} "
            f"below LINSPECTOR's fixed {DEFAULT_MIN_FORMS:,} but at least {SCALE_FLOOR:,}: "
            f"only a size derived from the data (50% of the forms, at least {SCALE_FLOOR:,}) "
            "can build them"
        )
    return False, (
        f"scale not set (LINSPECTOR's fixed sizes): forms carrying each feature: {listed}; "
        f"none between {SCALE_FLOOR:,} and {DEFAULT_MIN_FORMS:,}, so --scale builds no task more"
    )
