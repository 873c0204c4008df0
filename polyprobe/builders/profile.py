"""Language profiles: every language-specific choice a build makes, derived from the data,
written into the card, and overridable with ``--profile FILE.toml`` — so a language polyprobe
has never seen builds without code changes, and a reader can see (and change) what was chosen.

File format (TOML or JSON)::

    [language]
    capitalises_nouns = true          # otherwise derived from the share of capitalised NOUNs

    [family]
    split = "ratio:80/10/10"          # any option of the family's own (build <family> --help)

    [tasks.tense]
    map = { Imp = "Past" }            # any option a task documents, under its name

A value the command line (or the Python call) gives wins over the profile's ``[family]``;
a profile's ``[tasks.<name>]`` wins over a family's defaults and its options for every task
(``--min-forms``), and loses to an option given for that one task (``--unimorph`` for
``subject_verb_agreement``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError, UsageError

_TOP_KEYS = {"language", "tasks", "family"}
# What ``polyprobe profile`` prints besides the overridable sections: accepted and ignored, so
# its output can be edited and passed back with ``--profile`` as it is.
_INFORMATIONAL_KEYS = {"lang", "split", "labels", "sources", "annotation", "overrides"}
_LANGUAGE_KEYS = {"capitalises_nouns", "keep_case_forms"}
_LANGUAGE_INFORMATIONAL = {"capitalised_noun_share", "nouns_inspected"}
# How much of the corpus the capitalisation check looks at (a prefix keeps it cheap).
PROFILE_NOUNS = 5_000
# A non-PROPN form is "keep-case" when at least this share of at least this many non-initial
# occurrences is capitalised.
KEEP_CASE_MIN_COUNT = 20
KEEP_CASE_SHARE = 0.95


def _read(path: str | Path) -> dict[str, Any]:
    """The profile file's tables, its top-level sections checked. Read through the input
    layer: a missing file, a folder, an empty file, bad UTF-8 or a control character is one
    error naming the file (and line)."""
    from polyprobe.loaders.inputs import read_text

    p = Path(path)
    text = read_text(p, "profile")
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            try:
                import tomllib
            except ModuleNotFoundError:  # Python 3.10
                import tomli as tomllib  # type: ignore[no-redef]
            data = tomllib.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(p, line, f"not a valid profile: {exc}", "bad-profile") from None
    if not isinstance(data, dict):
        raise InputError(
            p, None, "a profile must be a table of [language] and [tasks.*]", "bad-profile"
        )
    unknown = sorted(set(data) - _TOP_KEYS - _INFORMATIONAL_KEYS)
    if unknown:
        raise InputError(
            p,
            None,
            f"unknown profile section(s) {unknown}: use [language], [family] and [tasks.<name>]",
            "bad-profile",
        )
    return data


def family_section(path: str | Path, settable: Sequence[str]) -> dict[str, Any]:
    """A profile's ``[family]`` table: values for the family's own options ``settable``; an
    unknown key is an error naming the file and listing the valid ones."""
    table = _read(path).get("family", {})
    if not isinstance(table, dict):
        raise InputError(path, None, "[family] must be a table of options", "bad-profile")
    unknown = sorted(set(table) - set(settable))
    if unknown:
        raise InputError(
            path,
            None,
            f"[family]: unknown option(s) {', '.join(unknown)}; valid options: "
            + (", ".join(settable) or "none"),
            "bad-profile",
        )
    return dict(table)


def load_profile(path: str | Path, known: Iterable[str]) -> dict[str, Any]:
    """Read and check a profile file whose ``[tasks.*]`` may name the tasks ``known``; errors
    name the file and the offending key (each task checks its own table's keys; the
    ``[family]`` table is checked against the family's options when the config is made)."""
    p = Path(path)
    data = _read(p)
    lang = data.get("language", {})
    if not isinstance(lang, dict) or set(lang) - _LANGUAGE_KEYS - _LANGUAGE_INFORMATIONAL:
        raise InputError(
            p, None, f"[language] accepts only {sorted(_LANGUAGE_KEYS)}", "bad-profile"
        )
    lang = {k: v for k, v in lang.items() if k in _LANGUAGE_KEYS}
    tasks = data.get("tasks", {})
    if not isinstance(tasks, dict) or not all(isinstance(v, dict) for v in tasks.values()):
        raise InputError(p, None, "[tasks] must hold one table per task name", "bad-profile")
    known = list(known)
    unknown = sorted(set(tasks) - set(known))
    if unknown:
        raise InputError(
            p,
            None,
            f"profile names unknown task(s) {unknown}; known: {sorted(known)}",
            "bad-profile",
        )
    out = {"language": dict(lang), "tasks": {k: dict(v) for k, v in tasks.items()}}
    if "family" in data:
        out["family"] = dict(data["family"])
    return out


def checked_profile(path: str | Path, known: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`load_profile`, with every ``[tasks.<name>]`` table checked by its task's
    options, built or not: a misspelt key fails before any input is read. ``known`` maps
    task names to task classes."""
    from polyprobe.builders.task import options_from

    profile = load_profile(path, known)
    for name, table in profile["tasks"].items():
        try:
            options_from(known[name], table)
        except UsageError as exc:
            raise InputError(path, None, str(exc), "bad-profile") from None
    return profile


def derive_capitalisation(sentences: Iterable[Any]) -> dict[str, Any]:
    """Capitalisation facts the perturbation rules need, measured on non-initial words of a
    prefix of the corpus: does the language capitalise common nouns (German), and which
    non-PROPN forms keep their capital everywhere (English "I")?"""
    upper = total = 0
    form_upper: Counter[str] = Counter()
    form_total: Counter[str] = Counter()
    for sent in sentences:
        for w in sent.words[1:]:
            if not w.form[:1].isalpha():
                continue
            if w.upos == "NOUN":
                total += 1
                upper += w.form[:1].isupper()
            if w.upos not in ("PROPN", "NOUN", "PUNCT", "X", "SYM"):
                key = w.form.casefold()
                form_total[key] += 1
                form_upper[key] += w.form[:1].isupper()
        if total >= PROFILE_NOUNS:
            break
    share = upper / total if total else 0.0
    keep = sorted(
        _capitalised_form(k)
        for k, n in form_total.items()
        if n >= KEEP_CASE_MIN_COUNT and form_upper[k] >= KEEP_CASE_SHARE * n
    )
    return {
        "capitalises_nouns": total >= 50 and share >= 0.5,
        "capitalised_noun_share": round(share, 4),
        "nouns_inspected": total,
        "keep_case_forms": keep,
    }


def _capitalised_form(key: str) -> str:
    return key[:1].upper() + key[1:]


class FeatureCounter:
    """What annotation a treebank offers: FEATS keys, relation subtypes, UPOS (for profiles)."""

    def __init__(self) -> None:
        self.feats: Counter[str] = Counter()
        self.deprels: Counter[str] = Counter()
        self.upos: Counter[str] = Counter()
        self.sentences = 0
        self.with_doc = 0

    def observe(self, sent: Any) -> None:
        self.sentences += 1
        self.with_doc += sent.doc_id is not None
        for w in sent.words:
            self.upos[w.upos] += 1
            self.deprels[w.deprel] += 1
            for k, v in w.feats.items():
                self.feats[f"{k}={v}"] += 1

    def summary(self) -> dict[str, Any]:
        return {
            "sentences": self.sentences,
            "sentences_with_document": self.with_doc,
            "upos": dict(sorted(self.upos.items())),
            "deprels": dict(sorted(self.deprels.items())),
            "features": dict(sorted(self.feats.items())),
        }
