"""``build trec``: the original TREC question-classification files → a downstream dataset
with configs ``coarse`` (the default) and ``fine``, splits train/test as distributed.

With ``translation``: TREC in another language (Wehner 2019 machine-translated it into
German, Russian, Turkish and Georgian) from a translation file aligned with the English
questions (:mod:`polyprobe.loaders.translations`, e.g. ``polyprobe translate``'s output). The
English build is run and only the rows' text replaced
(:mod:`polyprobe.builders.downstream.translated`): same labels, splits, groups and drops; the
card records ``sample_creation`` and the translation's provenance.

The recipe's own choices: TREC is English; its label sets are the benchmark's, so no class
floor applies by default (``--min-per-class`` may set one); only the natural, full variant is
built by default (a downstream benchmark is reported on its full training set).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, BuildResult, CardText, Outcome, Progress, build
from polyprobe.builders.recipes.examples import ExampleFamily
from polyprobe.builders.recipes.translated import TranslatedExamples
from polyprobe.builders.registry import family_tasks, resolve_task_names
from polyprobe.builders.execution.stream import run_record_tasks
from polyprobe.builders.task import TaskContext
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import InputError, UsageError
from polyprobe.hashing import normalise_text
from polyprobe.languages import Language, resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.loaders.source import InvalidPolicy, file_entries
from polyprobe.loaders.translations import TranslationProvenance, read_translations
from polyprobe.loaders.trec import TrecSource, detect_encoding
from polyprobe.metadata import SourceInfo

TREC_DEFAULTS: dict[str, Any] = {
    "lang": "en",
    "balances": ("natural",),
    "min_per_class": (0, 0, 0),
}
SOURCE_SPLITS = SplitSpec(
    "ud",
    reason="the source's own train/test files (TREC has no validation split)",
    source_label="source",
)


@dataclass
class TrecRecipe:
    """``build trec`` on the shared build (translated when ``translation`` is given)."""

    path: str | os.PathLike[str]
    options: BuildOptions
    family: str = "trec"
    translation: str | os.PathLike[str] | None = None
    provenance: TranslationProvenance | None = None

    def __post_init__(self) -> None:
        from polyprobe.builders.profile import checked_profile

        self.task_names = resolve_task_names("trec", self.options.tasks)
        path = self.options.profile
        self.profile = (
            {}
            if path is None
            else {"file": path.name, **checked_profile(path, family_tasks("trec"))}
        )
        self.trec = TrecSource(Path(self.path), source_version=self.options.source_version)

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        if self.translation is not None:
            return []  # the translation is in --lang; the English files are its source
        return [(self.trec.name, self.trec.languages)]  # TREC is English

    def sources(self) -> list[SourceInfo]:
        info = self.trec.info
        override = self.options.license_overrides.get(info.name)
        if override is not None:
            info.license = override
        if self.translation is None:
            return [info]
        path = Path(self.translation)
        translated = SourceInfo(
            kind="translation",
            name=path.name,
            version=self.provenance.version if self.provenance else "unknown",
            license=info.license,
            files=file_entries([(path.name, path)]),
        )
        return [info, translated]

    def _translations(self, options: BuildOptions, skipped: Counter[str]) -> dict[str, str]:
        """The translation of every English question, by its id, else by its text (files
        with a ``source`` column, such as ``polyprobe translate``'s); a question without one
        (or, in a file without sources, an id that is no question) is an InputError naming
        the file, or a count under skip."""
        policy = InvalidPolicy(options.on_invalid, skipped)
        english = list(self.trec.records(InvalidPolicy("skip", Counter())))
        path = Path(str(self.translation))
        found = read_translations(path, policy, order=[e.id for e in english])
        by_source = {normalise_text(t.source): t for t in found.values() if t.source}
        ids = {e.id for e in english}
        for item_id, tr in found.items():
            if item_id not in ids and tr.source is None:
                problem = f"{item_id} is not a TREC question id (train/<line> or test/<line>)"
                policy.reject(InputError(path, tr.line, problem, "unknown-id"))
        out: dict[str, str] = {}
        for example in english:
            tr = found.get(example.id) or by_source.get(normalise_text(example.inputs[0]))
            if tr is None:
                problem = (
                    f"no translation for TREC question {example.id} "
                    f"({Path(example.source.path).name}:{example.line})"
                )
                policy.reject(InputError(path, None, problem, "missing-translation"))
            else:
                out[example.id] = tr.text
        return out

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        encodings = {}
        for path in self.trec.paths.values():
            encodings[path.name] = detect_encoding(path.read_bytes())
        context = TaskContext(lang="en", seed=options.seed, min_per_class=(0, 0, 0), split="source")
        family = ExampleFamily(
            sources=(self.trec,), tasks=family_tasks("trec"), context=context, profile=self.profile
        )
        extra: dict[str, Any] = {}
        skipped: Counter[str] = Counter()
        if self.translation is not None:
            family = TranslatedExamples(
                sources=(self.trec,),
                tasks=family_tasks("trec"),
                context=dataclasses.replace(context, lang=options.lang),
                profile=self.profile,
                translations=self._translations(options, skipped),
            )
            assert self.provenance is not None
            extra["translation"] = self.provenance.card_entry()
        outcome = run_record_tasks(
            family,
            self.task_names,
            options,
            split=SOURCE_SPLITS,
            staging=staging,
            progress=progress,
            parameters={
                "train_copies_of_test": "dropped",
                "encodings": {name: enc for name, (enc, _) in encodings.items()},
                "encoding_notes": {name: note for name, (_, note) in encodings.items() if note},
                **extra,
            },
        )
        if skipped:
            outcome.skipped = dict(Counter(outcome.skipped) + skipped)
        if self.translation is not None and self.provenance is not None:
            # Every row's text is a translation: the published per-row column says how.
            from polyprobe.builders.sample_creation import with_sample_creation

            how = self.provenance.sample_creation
            outcome.assembled = with_sample_creation(staging, outcome.assembled, lambda _: how)
        return outcome

    def card(self, language: Language, outcome: Outcome) -> CardText:
        if self.translation is not None and self.provenance is not None:
            how = self.provenance.sample_creation
            return CardText(
                pretty_name=f"TREC question classification ({language.name}, {how})",
                summary=f"TREC question classification (Li & Roth 2002) in {language.name}: "
                f"the English questions {how.replace('-', ' ')} by {self.provenance.system} "
                f"(version {self.provenance.version}, {self.provenance.date}); labels, "
                "splits, groups and drops are the English build's. sample_creation: "
                f"{how} (every row). The licence of the TREC data is not stated by its "
                "distributors (research data).",
                source_datasets=("original",),
                tags=("downstream", "question-classification", "translated", "polyprobe"),
            )
        return CardText(
            pretty_name="TREC question classification",
            summary="TREC question classification (Li & Roth 2002) as a polyprobe downstream "
            "dataset: the original train/test files, coarse (6) and fine (50) labels. The "
            "licence of the TREC data is not stated by its distributors (research data).",
            source_datasets=("original",),
            tags=("downstream", "question-classification", "polyprobe"),
        )


def provenance_from_sidecar(path: Path) -> TranslationProvenance | None:
    """The provenance ``polyprobe translate`` wrote beside its output (``FILE.json``), or
    None when there is none (then the card says the system is unknown)."""
    import json

    sidecar = path.with_name(path.name + ".json")
    if not sidecar.is_file():
        return None
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
        return TranslationProvenance(
            sample_creation=str(meta.get("sample_creation", "machine-translated")),
            system=str(meta.get("system", "unknown")),
            version=str(meta.get("version", "unknown")),
            date=str(meta.get("date", "unknown")),
            source_language=str(meta.get("source_language", "en")),
            extra={"translator_id": str(meta.get("translator_id", ""))},
        )
    except (ValueError, TypeError, AttributeError) as exc:
        problem = f"not a translation provenance file ({exc})"
        raise InputError(sidecar, None, problem, "bad-json") from None


def build_trec(
    path: str | os.PathLike[str],
    *,
    progress: Progress | None = None,
    translation: str | os.PathLike[str] | None = None,
    provenance: TranslationProvenance | None = None,
    **options: Any,
) -> BuildResult:
    """Build the TREC dataset folder from the folder ``path`` of original files; mirrors
    ``polyprobe build trec``. ``options`` are :meth:`BuildOptions.make`'s, with TREC's
    defaults (English, natural only, no class floors). ``translation``: a translation file
    of the questions (then ``lang`` is its language, and ``provenance`` says how it was
    made; default: the ``FILE.json`` that ``polyprobe translate`` wrote beside it, else
    machine-translated by an unknown system)."""
    opts = BuildOptions.make(**{**TREC_DEFAULTS, **options})
    if translation is not None:
        if resolve_language(opts.lang).code == "en":
            raise UsageError("a translated TREC needs --lang: the translation's language")
        if provenance is None:
            provenance = provenance_from_sidecar(Path(translation))
        provenance = dataclasses.replace(
            provenance or TranslationProvenance(), target_language=resolve_language(opts.lang).code
        )
    recipe = TrecRecipe(path, opts, translation=translation, provenance=provenance)
    return build(recipe, opts, progress=progress)
