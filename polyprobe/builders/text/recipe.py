"""The shared part of the raw-text recipes (``build wiki``, ``build text``): sources of
documents → the text family's sentence records → the shared record build; the drops and the
segmentation go into the card."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildOptions, Outcome, Progress
from polyprobe.builders.records.rawtext import SentenceFilter, TextFamily, split_dropped
from polyprobe.builders.variants import SplitSpec, parse_split
from polyprobe.languages import resolve_language
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.metadata import SourceInfo

DEFAULT_SPLIT = SplitSpec(
    "ratio",
    (80, 10, 10),
    reason="raw text has no splits of its own: sentences are split by ratio 80/10/10 "
    "(identical sentences always in one split)",
)


def text_split(split: str | None) -> SplitSpec:
    """``--split ratio:a/b/c`` (raw text has no ``ud`` splits), default 80/10/10."""
    if split is None:
        return DEFAULT_SPLIT
    spec = parse_split(split)
    if spec.mode != "ratio":
        from polyprobe.errors import UsageError

        raise UsageError("--split: raw text has no splits of its own; use ratio:80/10/10")
    return spec


def agreement_options(
    task_options: Mapping[str, Mapping[str, Any]] | None,
    unimorph: Sequence[Any] | None,
    noun_forms: Sequence[Any] | None,
) -> dict[str, dict[str, Any]]:
    """Per-task options with ``--unimorph`` and ``--noun-forms`` handed to the raw-text
    ``subject_verb_agreement`` (explicit task options win)."""
    out = {k: dict(v) for k, v in (task_options or {}).items()}
    agreement = out.setdefault("subject_verb_agreement", {})
    if unimorph:
        agreement.setdefault("unimorph", [str(p) for p in unimorph])
    if noun_forms:
        agreement.setdefault("noun_forms", [str(p) for p in noun_forms])
    if not agreement:
        del out["subject_verb_agreement"]
    return out


@dataclass
class RawTextRecipe:
    """Raw-text sources on the shared build; ``family`` is ``wiki`` or ``text``."""

    family: str
    text_sources: Sequence[Any]
    options: BuildOptions
    sentence_filter: SentenceFilter
    split: SplitSpec = DEFAULT_SPLIT
    nouns: frozenset[str] = frozenset()
    noun_source: str | None = None
    task_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    extra_sources: Sequence[SourceInfo] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    annotate: str | None = None  # "spacy:MODEL" | "stanza:LANG": UD-style records, UD tasks

    def __post_init__(self) -> None:
        from polyprobe.builders.registry import resolve_task_names

        self.annotator = None
        if self.annotate is not None:
            from polyprobe.loaders.annotate import Annotator, parse_annotate

            self.annotator = Annotator(*parse_annotate(self.annotate))
            self.annotator.check()  # an absent model: one line, before anything is read
        self.task_family = "ud" if self.annotator is not None else self.family
        self.task_names = resolve_task_names(self.task_family, self.options.tasks)

    def languages(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return [(s.name, tuple(getattr(s, "languages", ()))) for s in self.text_sources]

    def sources(self) -> list[SourceInfo]:
        infos = []
        for s in self.text_sources:
            info = s.info
            override = self.options.license_overrides.get(info.name)
            if override is not None:
                info.license = override
            infos.append(info)
        return [*infos, *self.extra_sources]

    def default_task_options(self) -> dict[str, dict[str, Any]]:
        """Raw text has no UPOS: ``word_content``'s targets are mid-frequency words of any
        class unless a noun lexicon marks nouns (then nouns only, as on treebanks)."""
        if self.annotator is not None:
            return {}
        return {"word_content": {"noun_share": 0.9 if self.nouns else 0.0}}

    def run(self, options: BuildOptions, staging: Path, progress: Progress | None) -> Outcome:
        """The sentence tasks on the sentence stream, the document (discourse) tasks on the
        sources' documents (:mod:`polyprobe.builders.records.rawdocuments`), merged."""
        from polyprobe.builders.discourse.family import is_document_task
        from polyprobe.builders.execution.stream import RecordStream, run_record_streams
        from polyprobe.builders.registry import family_tasks, get_task
        from polyprobe.runtime.shards import jobs_for

        options_by_task: dict[str, dict[str, Any]] = self.default_task_options()
        for name, table in self.task_options.items():
            options_by_task.setdefault(name, {}).update(table)
        document_names = [
            n for n in self.task_names if is_document_task(get_task(self.task_family, n))
        ]
        sentence_names = [n for n in self.task_names if n not in document_names]
        segmentation = self.text_sources[0].segmenter.describe()
        parameters = {
            "segmentation": segmentation,
            "sentence_filter": self.sentence_filter.describe(),
            "upos": "raw text: PUNCT/SYM/NUM from characters, NOUN from "
            + (self.noun_source or "no lexicon (none marked)")
            + ", everything else X (no tagger)"
            if self.annotator is None
            else "machine-annotated",
            **({"annotation": self.annotator.describe()} if self.annotator is not None else {}),
            "task_options": {k: dict(v) for k, v in sorted(options_by_task.items())},
            **self.parameters,
        }
        streams: list[RecordStream] = []
        size = sum(Path(p).stat().st_size for s in self.text_sources for p in _paths(s))
        if sentence_names:
            family = TextFamily(
                sources=tuple(self.text_sources),
                lang=resolve_language(options.lang).code,
                seed=options.seed,
                min_per_class=options.min_per_class,
                split=self.split,
                tasks=family_tasks(self.task_family),
                sentence_filter=self.sentence_filter,
                nouns=self.nouns,
                task_options=options_by_task,
                profile_path=None if options.profile is None else str(options.profile),
                annotator=self.annotator,
            )
            streams.append(RecordStream(family, tuple(sentence_names), parameters))
        documents, with_documents = None, []
        if document_names:
            documents, with_documents = self.document_family(
                document_names, options_by_task, streams[0].family if streams else None
            )
            if documents is not None:
                streams.append(RecordStream(documents, tuple(document_names)))
        outcomes = (
            run_record_streams(
                streams,
                options,
                split=self.split,
                staging=staging,
                jobs=jobs_for(
                    options.jobs,
                    sentence_names + (document_names if documents is not None else []),
                    size,
                ),
                progress=progress,
            )
            if streams
            else []
        )
        outcome = outcomes.pop(0) if sentence_names else None
        if document_names:
            outcome = self.with_documents(
                outcome,
                outcomes.pop(0) if documents is not None else None,
                document_names,
                with_documents,
                parameters,
                staging,
            )
        assert outcome is not None  # resolve_task_names never gives an empty list
        invalid, dropped = split_dropped(outcome.skipped)
        outcome.skipped = invalid
        outcome.parameters["sentences_dropped"] = dropped
        stats = [dict(getattr(s, "stats", {})) for s in self.text_sources]
        if any(stats):
            outcome.parameters["pages"] = {
                s.name: dict(sorted(st.items()))
                for s, st in zip(self.text_sources, stats, strict=True)
            }
        cleaning = [dict(getattr(s, "cleaning", {})) for s in self.text_sources]
        if any(cleaning):
            outcome.parameters["cleaning_left_out"] = {
                s.name: dict(sorted(c.items()))
                for s, c in zip(self.text_sources, cleaning, strict=True)
            }
        return outcome


    def document_family(
        self,
        names: list[str],
        options_by_task: Mapping[str, Mapping[str, Any]],
        sentences: Any = None,
    ) -> tuple[Any, list[Any]]:
        """The generic document family over the sources that have documents (None when
        none has), and those sources. When every source has documents and the sentence
        family (``sentences``) keeps sentences by the same rule the documents do (no
        exclusions, no annotation), the documents are derived from its records
        (:class:`~polyprobe.builders.records.rawdocuments.SentenceDocuments`): a process that runs
        tasks of both streams reads the sources once per pass for both."""
        from polyprobe.builders.discourse.family import DocumentFamily
        from polyprobe.builders.profile import checked_profile
        from polyprobe.builders.records.rawdocuments import (
            RAW_TEXT_DEFAULTS,
            RawDocumentSource,
            SentenceDocuments,
            derivable,
            has_documents,
        )
        from polyprobe.builders.registry import family_tasks
        from polyprobe.builders.task import TaskContext

        options = self.options
        known = family_tasks(self.task_family)
        with_documents = [s for s in self.text_sources if has_documents(s)]
        if not with_documents:
            return None, []
        profile: dict[str, Any] = {}
        if options.profile is not None:
            profile = {
                "file": Path(options.profile).name,
                **checked_profile(options.profile, dict(known)),
            }
        family = DocumentFamily(
            sources=tuple(RawDocumentSource(s, self.sentence_filter) for s in with_documents),
            tasks=known,
            context=TaskContext(
                lang=resolve_language(options.lang).code,
                seed=options.seed,
                min_per_class=options.min_per_class.as_tuple(),
                split=self.split.label,
            ),
            profile=profile,
            defaults=RAW_TEXT_DEFAULTS,
            task_options={n: dict(options_by_task[n]) for n in names if n in options_by_task},
            **(
                {"base": sentences, "grouping": SentenceDocuments}
                if derivable(sentences, with_documents)
                else {}
            ),
        )
        return family, with_documents

    def with_documents(
        self,
        sentences: Outcome | None,
        documents: Outcome | None,
        names: list[str],
        with_documents: list[Any],
        parameters: dict[str, Any],
        staging: Path,
    ) -> Outcome:
        """The discourse tasks' outcome (``documents``; None when no source has documents:
        every task is then infeasible with the reason) merged into ``sentences`` (the
        sentence tasks' outcome, if any)."""
        from polyprobe.builders.discourse.run import merge_outcomes, run_document_stream
        from polyprobe.builders.records.rawdocuments import LINES_NO_DOCUMENTS

        if documents is None:
            documents = run_document_stream(
                None,
                names,
                self.options,
                split=self.split,
                staging=staging,
                no_documents=LINES_NO_DOCUMENTS,
                task_family=self.task_family,
            )
        note = {
            "sources_with_documents": [s.name for s in with_documents],
            "sources_without_documents": [
                s.name for s in self.text_sources if s not in with_documents
            ],
            "breaks": "a dropped sentence is a break of its document: no window spans it",
        }
        merged = merge_outcomes(sentences, documents, self.task_names, note)
        if sentences is None:
            merged.parameters.update(parameters)
        return merged


def _paths(source: Any) -> list[Path]:
    if hasattr(source, "files"):
        return list(source.files)
    return [source.path]
