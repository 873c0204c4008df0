"""``subject_verb_agreement`` on raw text, by Wehner's (2019) recipe for sentences without
annotation: does the sentence's verb agree with its subject, or was it replaced by another
person/number form of the same verb?

Recipe: the *listed forms* are the present-tense indicative forms of a UniMorph lexicon
(``unimorph``) that differ from their lemma (English ``walks``, not ``walk``, which is also
infinitive and imperative) and cannot be nouns (not a noun in the lexicon, nor in
``noun_forms``: UD treebanks whose NOUN/PROPN forms are excluded, or word lists), of the
``top_verbs`` most frequent verbs of the corpus (counted on the listed forms, first pass). A
sentence qualifies when exactly one of its tokens is a listed form. With probability ½
(stable per sentence) it is published unchanged (``agree``), else with that token replaced
by another present form of the same verb (``disagree``): a form of another person/number
cell, or, where the lexicon lists a single present cell (English: 3rd singular only), the
lemma, which is the other persons' present form. One row per sentence.

Why the noun exclusion: ``walks`` is also a plural noun; replacing it would make no
agreement error at all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from polyprobe.builders.citations import WEHNER_2019
from polyprobe.builders.rendering import capitalise_first, render, sentence_inputs, starts_upper
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.hashing import cached_lexical_key, choice_index, lexical_key, stable_rng
from polyprobe.loaders.records import Sentence, SurfaceToken
from polyprobe.metadata import Level, TaskMetadata

LABELS = ("agree", "disagree")
DEFAULT_TOP_VERBS = 1000


def _paths(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str | Path):
        return (str(value),)
    try:
        return tuple(str(v) for v in value)
    except TypeError:
        raise UsageError(
            f"[tasks.subject_verb_agreement] {key} must be a path or a list of paths"
        ) from None


@dataclass(frozen=True)
class RawAgreementOptions:
    """``unimorph``: the lexicon's files (required); ``noun_forms``: UD treebanks or word lists
    (one form per line) whose forms can be nouns (default none); ``top_verbs``: how many of
    the corpus's most frequent verbs (default 1000)."""

    unimorph: Any = None
    noun_forms: Any = None
    top_verbs: int = DEFAULT_TOP_VERBS

    def __post_init__(self) -> None:
        object.__setattr__(self, "unimorph", _paths(self.unimorph, "unimorph"))
        object.__setattr__(self, "noun_forms", _paths(self.noun_forms, "noun_forms"))
        if not isinstance(self.top_verbs, int) or self.top_verbs < 1:
            raise UsageError(
                "[tasks.subject_verb_agreement] top_verbs must be a positive whole number"
            )


@dataclass(frozen=True)
class RawAgreementFit(Fit):
    """Listed form key -> (lemma key, replacement forms) for the chosen verbs."""

    targets: dict[str, tuple[str, tuple[str, ...]]] | None = None


class RawAgreementObservation(Observation):
    """The listed forms (from the lexicon) and how often each verb's forms occur."""

    def __init__(self, listed: dict[str, tuple[str, tuple[str, ...]]], report: dict) -> None:
        self.listed = listed
        self.report = report
        self.lemma_counts: Counter[str] = Counter()

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        listed = self.listed
        for w in sentence.words:
            key = cached_lexical_key(w.form) or lexical_key(w.form)
            hit = listed.get(key)
            if hit is not None:
                self.lemma_counts[hit[0]] += 1

    def merge(self, later: Observation) -> None:
        """Take in the counts of the sentences right after this observation's. The listed
        forms and their report come from the lexicon alone (the same in every fresh
        observation of the task); only the corpus counts add up, ``later``'s new lemmas after
        this one's as one pass would add them."""
        assert isinstance(later, RawAgreementObservation)
        if len(later.listed) != len(self.listed):
            raise ValueError("cannot merge agreement counts made from another lexicon")
        self.lemma_counts.update(later.lemma_counts)


def noun_form_keys(paths: tuple[str, ...]) -> frozenset[str]:
    """Lexical keys of forms that can be nouns: NOUN/PROPN words of CoNLL-U files and
    treebank folders, every line's first field of other files (through the input layer: a
    line that is not text is an error naming its file and line, never a key)."""
    from polyprobe.loaders.frequency import conllu_files
    from polyprobe.loaders.inputs import text_lines
    from polyprobe.loaders.source import InvalidPolicy

    keys: set[str] = set()
    for raw in paths:
        path = Path(raw)
        conllu = path.is_dir() or path.name.endswith((".conllu", ".conllu.gz"))
        files = conllu_files(path) if conllu else [path]
        for f in files:
            for _, line in text_lines(f, InvalidPolicy("raise")):
                if not line or line.startswith("#"):
                    continue
                cols = line.split("\t")
                if conllu:
                    if len(cols) > 3 and cols[3] in ("NOUN", "PROPN") and cols[0].isdigit():
                        keys.add(lexical_key(cols[1]))
                elif cols[0].strip():
                    keys.add(lexical_key(cols[0].strip()))
    return frozenset(keys)


class RawSubjectVerbAgreement(Task[Sentence]):
    """Label = whether the one listed verb form of the sentence is the original (agree) or
    another person/number form of the same verb (disagree); see the module docstring."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="subject_verb_agreement",
        level=Level.SENTENCE,
        description=(
            "Decide whether the verb agrees with its subject (the original sentence) or was "
            "replaced by another person/number form of the same verb (raw text: Wehner's "
            "lexicon recipe)."
        ),
        labels=LABELS,
        citation=WEHNER_2019,
        seed_dependent=True,
        notes=(
            "Raw-text recipe (no parser): the verb is the sentence's only token that is a "
            "present-tense form, different from its lemma and never a noun, of one of the "
            "corpus's most frequent verbs in the UniMorph lexicon; with probability 1/2 it is "
            "replaced by another present person/number form of the same verb (the lemma where "
            "the lexicon lists one present cell, as for English).",
            "Without a parser the subject is not checked: a listed form that is not the "
            "clause's verb gives a wrong label. Such forms are mostly nouns the noun sources "
            "miss (English 'struggles'), so pass a large noun source (noun_forms: a big "
            "treebank or a noun word list); a listed form capitalised inside the sentence "
            "(a name) drops the sentence.",
        ),
    )
    Options: ClassVar[type] = RawAgreementOptions
    reported: ClassVar[frozenset[str]] = frozenset({"listed_forms", "verbs", "top_lemmas"})

    def observation(self) -> RawAgreementObservation:
        o = self.options
        if not o.unimorph:
            return RawAgreementObservation({}, {"infeasible": "needs a UniMorph lexicon"})
        from polyprobe.loaders.raw_lexicon import read_raw_lexicon
        from polyprobe.loaders.unimorph_source import unimorph_sources

        lexicon = read_raw_lexicon(unimorph_sources(list(o.unimorph)), self.context.lang)
        nouns = lexicon.noun_like | noun_form_keys(o.noun_forms)
        listed: dict[str, tuple[str, tuple[str, ...]]] = {}
        excluded: Counter[str] = Counter()
        for lemma, cells in sorted(lexicon.present.items()):
            forms = sorted(set(cells.values()))
            for form in forms:
                key = lexical_key(form)
                if key == lemma:
                    excluded["identical to the lemma"] += 1
                    continue
                if key in nouns:
                    excluded["can be a noun"] += 1
                    continue
                others = tuple(f for f in forms if lexical_key(f) != key)
                if not others and len(cells) == 1:
                    others = (lemma,)
                if not others:
                    excluded["no other present form"] += 1
                    continue
                listed[key] = (lemma, others)
        report = {
            "listed_forms": len(listed),
            "excluded_forms": dict(sorted(excluded.items())),
            "noun_forms": len(nouns),
        }
        return RawAgreementObservation(listed, report)

    def fit(self, observation: Observation | None) -> RawAgreementFit:
        assert isinstance(observation, RawAgreementObservation)
        if not observation.listed:
            reason = observation.report.get("infeasible", "the lexicon lists no usable form")
            return RawAgreementFit(
                LABELS,
                dict(observation.report),
                infeasible=f"{reason} (build with --unimorph LEXICON)",
            )
        ranked = sorted(observation.lemma_counts.items(), key=lambda kv: (-kv[1], kv[0]))
        verbs = {lemma for lemma, _ in ranked[: self.options.top_verbs]}
        targets = {k: v for k, v in observation.listed.items() if v[0] in verbs}
        report = {
            **observation.report,
            "verbs": len(verbs),
            "top_lemmas": [[lemma, n] for lemma, n in ranked[:10]],
        }
        return RawAgreementFit(LABELS, report, targets=targets)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        o = self.options
        return {
            "unimorph": [Path(p).name for p in o.unimorph],
            "noun_forms": [Path(p).name for p in o.noun_forms],
            "top_verbs": o.top_verbs,
            "replacement": "probability 1/2 per sentence, stable_rng(seed, task, source, id)",
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        assert isinstance(fit, RawAgreementFit)
        if fit.infeasible is not None:
            return self.drop(fit.infeasible)
        targets = fit.targets or {}
        tokens = sentence.surface_tokens()
        hits = [
            i
            for i, t in enumerate(tokens)
            if (cached_lexical_key(t.form) or lexical_key(t.form)) in targets
        ]
        if any(i > 0 and starts_upper(tokens[i].form) for i in hits):
            return self.drop("listed form capitalised inside the sentence (a name)")
        if not hits:
            return self.drop("no listed verb form")
        if len(hits) > 1:
            return self.drop("several listed verb forms")
        i = hits[0]
        rng = stable_rng(self.seed, self.name, sentence.source.treebank, sentence.sent_id)
        if rng.random() < 0.5:
            return [Candidate(sentence_inputs(sentence), "agree", copy="0")]
        old = tokens[i]
        _, others = targets[lexical_key(old.form)]
        form = others[choice_index(rng, len(others))]
        if starts_upper(old.form):
            form = capitalise_first(form, self.context.lang)
        changed = list(tokens)
        changed[i] = SurfaceToken(form, old.word_ids, old.space_after, old.upos)
        return [
            Candidate(
                {"sentence": render(changed), "tokens": [t.form for t in changed]},
                "disagree",
                copy="0",
            )
        ]
