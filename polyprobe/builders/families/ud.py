"""``build ud``: Universal Dependencies treebanks → the sentence-level probing suite.

The recipe: treebank folders or CoNLL-U files (several treebanks of one language merge), the
sentence tasks and the discourse tasks (on the treebanks' ``# newdoc`` documents, grouped from
the same reading), the treebanks' own splits when every treebank has train, dev and test
(else a ratio split), capitalisation derived from the data (a profile's ``[language]`` wins).
With ``--top-up`` the text-only tasks also take Wikipedia sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.builders.family import CardText, Family, Inputs, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, paths_option
from polyprobe.builders.records.documents import is_document_task, treebank_documents
from polyprobe.builders.records.topup import top_up_parameters, top_up_streams
from polyprobe.builders.records.treebank import TreebankRecords, capitalisation, treebank_split
from polyprobe.builders.sentence.contextual import CONTEXTUAL_TASKS
from polyprobe.builders.suites import (
    DISCOURSE_TASKS,
    DOWNSTREAM_TASKS,
    OPTIONAL_TASKS,
    SENTENCE_TASKS,
)
from polyprobe.languages import Language
from polyprobe.version import __version__


@dataclass(frozen=True, kw_only=True)
class UdConfig(BuildConfig):
    paths: tuple[Path, ...] = paths_option(
        help="treebank folders or CoNLL-U files",
        positional=True,
        profile=False,
    )
    split: str | None = option(
        None,
        help="'ud' (the treebanks' own splits; default when every treebank has train/dev/test) "
        "or 'ratio:80/10/10'",
    )
    unimorph: tuple[Path, ...] = paths_option(
        help="UniMorph lexicon(s) adding replacement forms for subject_verb_agreement",
        metavar="PATH",
    )
    assume_file_order_documents: bool = option(
        False,
        help="end_of_sentence: treat each file as one document when there is no # newdoc markup",
    )
    top_up: tuple[Path, ...] = paths_option(
        help="Wikipedia dump(s) whose sentences top up the text-only tasks (sentence_length, "
        "word_content, bigram_shift, word_order, end_of_sentence); sentences equal to a "
        "treebank sentence are dropped; the card gives the rows per source",
        metavar="DUMP",
    )
    top_up_sentences: int | None = option(
        None,
        help="at most N Wikipedia sentences (default: every kept sentence of the dumps)",
        metavar="N",
    )

    def given(self) -> dict[str, dict[str, Any]]:
        """What this config's own options set for one task."""
        out: dict[str, dict[str, Any]] = {}
        if self.unimorph:
            out["subject_verb_agreement"] = {"unimorph": [str(p) for p in self.unimorph]}
        if self.assume_file_order_documents:
            out["end_of_sentence"] = {"assume_file_order_documents": True}
        return out


@dataclass
class Treebanks(Inputs):
    """The treebanks (``TreebankSource``), then the ``--top-up`` dumps (``WikiDumpSource``,
    with the build's segmenter)."""

    dumps: list[Any] = field(default_factory=list)

    @property
    def treebanks(self) -> list[Any]:
        return self.sources[: len(self.sources) - len(self.dumps)]


class UdFamily(Family[UdConfig, Treebanks]):
    name = "ud"
    help = "probing tasks from Universal Dependencies treebanks"
    description = (
        "Build sentence-level probing tasks from UD treebank folders or CoNLL-U files "
        "(.conllu or .conllu.gz). Several treebanks of one language merge. The discourse "
        "tasks (group 'discourse': sentence_position, binary_sentence_ordering, "
        "discourse_coherence, sentence_section) read the treebanks' '# newdoc id' documents "
        "and are reported infeasible when a treebank marks none."
    )
    Config = UdConfig
    tasks = TaskSet.of(
        *SENTENCE_TASKS,
        *CONTEXTUAL_TASKS,
        *DISCOURSE_TASKS,
        *DOWNSTREAM_TASKS,
        *OPTIONAL_TASKS,
        default=(*SENTENCE_TASKS, *DISCOURSE_TASKS),
        groups={
            "contextual": CONTEXTUAL_TASKS,
            "sentence": SENTENCE_TASKS,
            "discourse": DISCOURSE_TASKS,
            "downstream": DOWNSTREAM_TASKS,
        },
    )

    def sources(self, config: UdConfig) -> Treebanks:
        from polyprobe.loaders.sources import discover

        treebanks = discover(config.paths, source_version=config.source_version)
        dumps = []
        if config.top_up:  # raw text: the segmenter needs the text extra (segtok, spaCy)
            from polyprobe.loaders.segmentation import Segmenter
            from polyprobe.loaders.wikisource import WikiDumpSource

            segmenter = Segmenter(config.language.code)
            dumps = [WikiDumpSource(p, segmenter) for p in config.top_up]
        return Treebanks([*treebanks, *dumps], dumps)

    def plan(self, config: UdConfig, sources: Treebanks, names: Sequence[str]) -> Plan:
        from polyprobe.loaders.sources import input_files

        documents = [n for n in names if is_document_task(self.tasks.get(n))]
        sentences = [n for n in names if n not in documents]
        records = TreebankRecords(tuple(sources.treebanks))
        given = config.given()
        streams: list[Stream] = []
        if sentences and sources.dumps:
            streams += top_up_streams(
                records, sources.dumps, sentences, config.top_up_sentences, given
            )
        elif sentences:
            streams.append(Stream(records, tuple(sentences), given=given, language=capitalisation))
        if documents:
            # grouped from the sentence stream's readings when it reads the treebanks alone
            base = records if sentences and not sources.dumps else None
            streams.append(treebank_documents(sources.treebanks, documents, base, given))
        return Plan(
            split=treebank_split(config.split, sources.treebanks),
            streams=tuple(streams),
            order=tuple(names),
            inputs=input_files(config.paths),
        )

    def finish(
        self, config: UdConfig, sources: Treebanks, outcome: Outcome, staging: Path
    ) -> Outcome:
        if sources.dumps:
            entry = top_up_parameters(outcome, staging, sources.dumps, config.top_up_sentences)
            outcome.parameters["top_up"] = entry
        return outcome

    def card(
        self, config: UdConfig, sources: Treebanks, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.treebanks)
        return CardText(
            pretty_name=f"polyprobe UD probing suite ({language.name})",
            summary=(
                f"Sentence-level probing tasks for {language.name} built by polyprobe "
                f"{__version__} from {names}."
            ),
            source_datasets=tuple(f"universal_dependencies/{s.name}" for s in sources.treebanks),
        )


UD = UdFamily()
