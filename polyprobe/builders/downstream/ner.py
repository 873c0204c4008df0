"""``ner``: token-level named-entity tagging from CoNLL-2003 / IOB / WikiANN files
(LINSPECTOR's and EMBEDDIA's NER downstream task).

One row per token (level ``word-in-context``: the sentence as its tokens joined by single
spaces, the tokens, ``target_index``), labelled with its IOB2 tag (``O``, ``B-PER``,
``I-PER``, ...): every token of a sentence is a row, and the rows of a sentence share its
``group``, so splits are by sentence (and a sentence repeated verbatim is in one split). A
tagger is evaluated on the whole sequence, so the family builds the natural variant only and
no class floor: a balanced or floored config would lose tokens (``I-MISC`` first) and the
sentences would no longer be whole.

Label order is fixed, not frequency-ranked: ``O``, then for each entity type in alphabetical
order its ``B-`` and ``I-`` tag (those the corpus has). Two builds with the same types
(CoNLL-2003 English and German, or WikiANN in any language) then give every tag the same
label id, whatever each corpus's counts, and B/I of one type sit side by side.

``map_types`` renames entity types before anything is counted (EMBEDDIA's PER/LOC/ORG/OTHR
from CoNLL's MISC: ``MISC=OTHR``); a type mapped to ``O`` is untagged (its tokens become
``O``). The mapping and each file's tag scheme (as found, converted to IOB2 by the reader)
are in the card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.loaders.iob import TaggedSentence
from polyprobe.loaders.iob_schemes import chunks
from polyprobe.metadata import Level, TaskMetadata

__all__ = ["NerOptions", "NerTagging", "label_order", "mapped_tags", "parse_type_map"]

_TYPE = r"[^\s-][^\s]*"
SPLIT_NAMES = ("train", "dev", "test", "")  # "" : a file without a split in its name


def parse_type_map(value: Any) -> dict[str, str]:
    """``MISC=OTHR,LOC=GPE`` (or repeated items, or a mapping) as ``{old: new}``; ``new``
    may be ``O`` (untag). A type is a tag's part after ``B-``: no whitespace, no leading
    hyphen."""
    import re

    if value is None:
        return {}
    if isinstance(value, Mapping):
        items = [f"{k}={v}" for k, v in value.items()]
    else:
        given = [value] if isinstance(value, str) else [str(v) for v in value]
        items = [v for g in given for v in g.split(",") if v.strip()]
    out: dict[str, str] = {}
    for item in items:
        old, sep, new = (part.strip() for part in item.partition("="))
        if not sep or not re.fullmatch(_TYPE, old) or not re.fullmatch(_TYPE, new):
            raise UsageError(f"--map-types {item!r}: expected TYPE=NEW (e.g. MISC=OTHR, MISC=O)")
        if old in out:
            raise UsageError(f"--map-types: {old} is mapped twice")
        out[old] = new
    return out


def mapped_tags(tags: tuple[str, ...], type_map: Mapping[str, str]) -> tuple[str, ...]:
    """IOB2 ``tags`` with their types renamed by ``type_map`` (a type mapped to ``O``
    untagged); B/I stay as they are, so a chunk stays one chunk."""
    if not type_map:
        return tags
    out: list[str] = []
    for tag in tags:
        new = type_map.get(tag[2:]) if tag != "O" else None
        out.append(tag if new is None else "O" if new == "O" else f"{tag[:2]}{new}")
    return tuple(out)


def label_order(tags: set[str] | frozenset[str]) -> tuple[str, ...]:
    """``O`` first, then per type (alphabetical) ``B-`` before ``I-``: see the module."""
    return tuple(sorted(tags, key=lambda t: ("" if t == "O" else t[2:], t != "O", t[0] != "B")))


@dataclass(frozen=True)
class NerOptions:
    """``map_types``: entity type renames applied before counting (``{"MISC": "OTHR"}``)."""

    map_types: Mapping[str, str] = field(default_factory=dict)


class NerObservation(Observation):
    """Per source split: sentences, tokens, tag and entity counts; each file's scheme."""

    def __init__(self, type_map: Mapping[str, str]) -> None:
        self.type_map = dict(type_map)
        self.tags: Counter[str] = Counter()
        self.sentences: Counter[str] = Counter()
        self.tokens: Counter[str] = Counter()
        self.entities: dict[str, Counter[str]] = {}
        self.schemes: dict[str, str] = {}

    def observe(self, sentence: TaggedSentence, shared: Shared) -> None:
        split = sentence.source.split or ""
        tags = mapped_tags(sentence.tags, self.type_map)
        self.tags.update(tags)
        self.sentences[split] += 1
        self.tokens[split] += len(tags)
        self.entities.setdefault(split, Counter()).update(t for t, _, _ in chunks(tags))
        name = sentence.source.path.rsplit("/", 1)[-1]
        self.schemes.setdefault(name, sentence.scheme.describe())

    def merge(self, later: Observation) -> None:
        """Take in the next range's sentences: counts add up, new keys after the known
        ones (first-occurrence order, as one pass would leave them)."""
        assert isinstance(later, NerObservation)
        self.tags.update(later.tags)
        self.sentences.update(later.sentences)
        self.tokens.update(later.tokens)
        for split, counts in later.entities.items():
            self.entities.setdefault(split, Counter()).update(counts)
        for name, scheme in later.schemes.items():
            self.schemes.setdefault(name, scheme)


class NerTagging(Task[TaggedSentence]):
    """Label = the IOB2 tag of one token; every token of the sentence is a row."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="ner",
        level=Level.WORD_IN_CONTEXT,
        description="Predict the named-entity tag (IOB2: O, B-TYPE, I-TYPE) of the target "
        "token in its sentence (token-level tagging: every token of a sentence is a row).",
        labels_derived="the IOB2 tags of the corpus: O, then B- and I- of each entity type in "
        "alphabetical order (fixed, so builds with the same types share label ids)",
        task_type="downstream",
        record="tagged sentence",
        notes=(
            "Every token is a row; a sentence's rows share its group: splits are by "
            "sentence, never by token.",
            "Natural variant only and no class floor: a tagger needs every token of a sentence.",
            "Tags are IOB2 whatever the files' scheme (IOB1, BIOES, BILOU are converted as "
            "conlleval reads them; the card's profile says what each file had).",
        ),
    )
    Options: ClassVar[type] = NerOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {"tag_counts", "labels", "sentences", "tokens", "entities", "tag_schemes"}
    )

    @property
    def type_map(self) -> dict[str, str]:
        return parse_type_map(self.options.map_types)

    def observation(self) -> NerObservation:
        return NerObservation(self.type_map)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, NerObservation)
        labels = label_order(set(observation.tags))
        order = {s: i for i, s in enumerate(SPLIT_NAMES)}

        def by_split(counts: Mapping[str, Any]) -> dict[str, Any]:
            return {s or "unsplit": counts[s] for s in sorted(counts, key=order.__getitem__)}

        entities = {split: dict(sorted(c.items())) for split, c in observation.entities.items()}
        report: dict[str, Any] = {
            "labels": list(labels),
            "tag_counts": {t: observation.tags[t] for t in labels},
            "sentences": by_split(observation.sentences),
            "tokens": by_split(observation.tokens),
            "entities": by_split(entities),
            "tag_schemes": dict(observation.schemes),
        }
        notes = tuple(f"Tag scheme of {n}: {s}." for n, s in observation.schemes.items())
        if self.type_map:
            mapped = ", ".join(f"{a} → {b}" for a, b in self.type_map.items())
            notes += (f"Entity types mapped: {mapped}.",)
        if not any(t != "O" for t in labels):
            return Fit(label_names=labels, report=report, infeasible="no entity in the corpus")
        return Fit(label_names=labels, report=report, notes=notes)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "label": "IOB2 tag of the target token",
            "rows": "every token",
            "map_types": dict(self.type_map),
        }

    def candidates(self, sentence: TaggedSentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        tags = mapped_tags(sentence.tags, self.type_map)
        tokens = list(sentence.tokens)
        base = {"sentence": " ".join(tokens), "tokens": tokens}
        return [
            Candidate({**base, "target_index": i}, tag, copy=str(i)) for i, tag in enumerate(tags)
        ]
