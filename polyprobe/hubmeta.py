"""The Hugging Face Hub's standard dataset-card fields and what polyprobe's sources say for
them: ``annotations_creators``, ``language_creators``, ``multilinguality``, ``task_ids`` and
``source_datasets`` in the Hub's form.

Why a table per source kind: the Hub's search filters on these fields, and their values are
facts of the inputs, not of polyprobe (a treebank's features were annotated by experts; a
Wuggy pseudoword and a shifted bigram were made by a program; a user's file's labels are as
found). The build knows each row's source and task, so it says which apply
(:func:`polyprobe.builders.cardmeta.hub_fields`); the card writes them. Values are the Hub's
own vocabularies (``huggingface_hub.DatasetCardData``): annotations ``found``,
``crowdsourced``, ``expert-generated``, ``machine-generated``, ``no-annotation``, ``other``;
language ``found``, ``crowdsourced``, ``expert-generated``, ``machine-generated``, ``other``;
multilinguality ``monolingual``, ``multilingual``, ``translation``, ``other``. ``task_ids``
are the Hub's sub-task ids where one fits (``multi-class-classification`` for a class label,
``semantic-similarity-scoring`` for a graded pair score); a lexical set (analogies,
dictionaries, COSTRA's orderings) fits none and adds nothing, so a card of only such configs
says ``task_ids: []``. Only the standard library is imported (a ground-floor module).
"""

from __future__ import annotations

from collections.abc import Iterable

ANNOTATIONS_CREATORS: tuple[str, ...] = (
    "found",
    "crowdsourced",
    "expert-generated",
    "machine-generated",
    "no-annotation",
    "other",
)
LANGUAGE_CREATORS: tuple[str, ...] = (
    "found",
    "crowdsourced",
    "expert-generated",
    "machine-generated",
    "other",
)
MULTILINGUALITY: tuple[str, ...] = ("monolingual", "multilingual", "translation", "other")

MACHINE = "machine-generated"

#: Per source kind (``SourceInfo.kind``): who made its labels and who wrote its texts.
#: Treebanks: expert annotators over found text; UniMorph: Wiktionary's inflection tables
#: (crowdsourced) of found words; similarity sets: crowd raters (SimLex-999 and its
#: translations, SemEval-17, FinnSim, Multi-SimLex); COSTRA: sentences and comparisons written
#: by its annotators; TREC: Li & Roth's hand labels; user files and re-published probing files:
#: labels and texts as found in them.
SOURCE_CREATORS: dict[str, tuple[str, str]] = {
    "ud-treebank": ("expert-generated", "found"),
    "rst-treebank": ("expert-generated", "found"),
    "unimorph": ("crowdsourced", "found"),
    "wuggy-output": (MACHINE, MACHINE),
    "wuggy-generated": (MACHINE, MACHINE),
    "trec": ("expert-generated", "found"),
    "analogies": ("expert-generated", "found"),
    "analogy": (MACHINE, "found"),  # generated from a lexicon
    "costra": ("expert-generated", "expert-generated"),
    "dictionary": ("found", "found"),
    "dictionary-multisimlex": ("expert-generated", "found"),
    "wikipedia-dump": (MACHINE, "found"),
    "text": (MACHINE, "found"),
    "parallel-text": (MACHINE, "found"),
    "parallel-tsv": (MACHINE, "found"),
    "senteval-probing": ("found", "found"),
    "xprobe-probing": ("found", "found"),
    "senteval-sts": ("crowdsourced", "found"),
}
_PREFIX_CREATORS: dict[str, tuple[str, str]] = {
    "similarity-": ("crowdsourced", "found"),
}
#: What a source of an unlisted kind says: its labels and texts as found.
DEFAULT_CREATORS = ("found", "found")

#: Source kinds whose data is a dataset on the Hub: the card says ``extended|<id>``. The ids
#: are the Hub's own (checked against the Hub's pages: ``load_dataset("wikimedia/wikipedia",
#: "20231101.en")``, ``CogComp/trec``, ``universal-dependencies/universal_dependencies``'s
#: ``en_ewt``).
HUB_DATASETS: dict[str, str] = {
    "ud-treebank": "universal-dependencies/universal_dependencies",
    "wikipedia-dump": "wikimedia/wikipedia",
    "trec": "CogComp/trec",
}

#: How a translated row's text was made (``sample_creation``) as a language creator.
TRANSLATION_CREATORS: dict[str, str] = {
    "machine-translated": MACHINE,
    "human-translated": "expert-generated",
}


def source_creators(kind: str) -> tuple[str, str]:
    """``(annotations creator, language creator)`` of a source kind."""
    found = SOURCE_CREATORS.get(kind)
    if found is not None:
        return found
    for prefix, value in _PREFIX_CREATORS.items():
        if kind.startswith(prefix):
            return value
    return DEFAULT_CREATORS


def task_id(level: str, scored: bool, task_type: str) -> str | None:
    """The Hub sub-task id of one config, or ``None`` where none fits."""
    if task_type == "lexical" and not scored:
        return None  # analogies, dictionaries, COSTRA's orderings: no Hub id fits
    if scored:
        return "semantic-similarity-scoring" if level.endswith("pair") else None
    return "multi-class-classification"


def ordered(values: Iterable[str], vocabulary: tuple[str, ...]) -> list[str]:
    """The distinct values in the vocabulary's order (stable cards)."""
    seen = set(values)
    return [v for v in vocabulary if v in seen]


def multilinguality(languages: Iterable[str], translation: bool) -> list[str]:
    """``translation`` for a dataset of translations (a parallel build's aligned texts, a
    bilingual dictionary), else ``multilingual`` for more than one language, else
    ``monolingual``."""
    if translation:
        return ["translation"]
    return ["multilingual"] if len(set(languages)) > 1 else ["monolingual"]


def source_datasets(kinds: Iterable[str], given: Iterable[str]) -> list[str]:
    """The Hub's form of ``source_datasets`` from the kinds of the sources of rows:
    ``extended|<id>`` for each one on the Hub; for the others the family's word, ``original``
    (data first published here: a user's files) when it says so, else ``extended`` (derived
    from a resource that is not on the Hub; a family's ``unimorph/<name>`` says that)."""
    kinds = list(kinds)
    out: list[str] = []
    for kind in kinds:
        hub = HUB_DATASETS.get(kind)
        if hub is not None and f"extended|{hub}" not in out:
            out.append(f"extended|{hub}")
    if not out or any(k not in HUB_DATASETS for k in kinds):
        out.append("original" if "original" in given else "extended")
    return out
