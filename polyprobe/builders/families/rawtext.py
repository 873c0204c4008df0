"""What the raw-text families (``build wiki``, ``build text``) share: their options of
segmentation, sentence filter, noun lexicon and annotation, their task set, their two
streams (the kept sentences, and the documents they stand in) and the post-step that moves
the sentence drops into the card. A base class, no family: ``families.wiki`` and
``families.text`` say only where their texts come from and what their cards say.

The recipe: sentences are split and tokenised; one with a template hole or markup left,
fewer than ``min_tokens`` tokens (more than ``max_tokens``) or, where asked, no final
punctuation is dropped and counted in the card; the rest go to the text-only sentence
tasks, the documents to the discourse tasks, split by ratio (raw text has no splits).
With ``--annotate`` the sentences are parsed into UD records and every ``build ud`` task is
offered; ``--reference-treebank`` then compares the machine labels with a treebank's gold
(``docs/raw-text.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from polyprobe.builders.family import Family, Outcome, Plan, Stream, TaskSet
from polyprobe.builders.options import BuildConfig, option, paths_option
from polyprobe.builders.records.documents import is_document_task
from polyprobe.builders.records.rawdocuments import raw_documents
from polyprobe.builders.records.rawtext import (
    SentenceFilter,
    TextRecords,
    card_task_options,
    raw_language,
    source_counts,
    text_split,
)
from polyprobe.builders.records.reference import REFERENCE_SENTENCES
from polyprobe.builders.sentence.raw_agreement import RawSubjectVerbAgreement
from polyprobe.builders.sentence.word_order import WordOrder, WordOrderPermuted
from polyprobe.builders.suites import DISCOURSE_TASKS, SENTENCE_TASKS, TEXT_TASKS
from polyprobe.builders.variants import SplitSpec
from polyprobe.errors import UsageError
from polyprobe.loaders.declared import DeclaredLanguage
from polyprobe.metadata import SourceInfo


@dataclass(frozen=True, kw_only=True)
class RawTextConfig(BuildConfig):
    split: str | None = option(
        None, help="ratio:TRAIN/VALIDATION/TEST percentages (default ratio:80/10/10)"
    )
    sentences: str = option(
        "segtok",
        help="sentence splitter: segtok split_single (best measured boundary F1) or spaCy's "
        "rule-based sentencizer",
        choices=("segtok", "spacy"),
    )
    tokenizer: str = option(
        "auto",
        help="spacy: spacy.blank(LANG)'s tokenizer (xx plus per-script rules where spaCy has "
        "no LANG); segtok: segtok's word tokenizer; auto: spacy when installed; or the name "
        "or folder of an installed spaCy pipeline (never downloaded)",
        metavar="auto|spacy|segtok|PIPELINE",
    )
    min_tokens: int = option(3, help="drop sentences shorter than this", parse=int)
    max_tokens: int | None = option(None, help="drop longer sentences", parse=int)
    final_punct: bool = option(
        True,
        help="keep sentences without sentence-final punctuation (default: dropped)",
        flag="--no-final-punct",
    )
    unimorph: tuple[Path, ...] = paths_option(
        help="a UniMorph lexicon: forms it lists only as nouns are tagged NOUN (word_order "
        "needs nouns; word_content then takes noun targets); its present-tense verb forms "
        "make subject_verb_agreement (--tasks subject_verb_agreement)",
        metavar="FILE",
    )
    annotate: str | None = option(
        None,
        help="parse the sentences with an installed spaCy pipeline or stanza models (never "
        "downloaded) into UD-style records: every build ud task is then offered, recorded "
        "in the card as machine-annotated",
        metavar="spacy:MODEL|stanza:LANG",
    )
    reference_treebank: tuple[Path, ...] = paths_option(
        help="with --annotate: a UD treebank of the same language (folder or CoNLL-U files); "
        "the card compares this build's label shares with the treebank's and gives, per "
        "task, how often the machine labels agree with gold on the treebank's own sentences "
        "(their # text parsed as raw text)",
        metavar="UD_PATH",
    )
    reference_sentences: int = option(
        REFERENCE_SENTENCES,
        help="sentences of --reference-treebank parsed for the agreement (its first ones)",
        parse=int,
        metavar="N",
    )
    noun_forms: tuple[Path, ...] = paths_option(
        help="forms that can be nouns, excluded as subject_verb_agreement verbs: UD "
        "treebanks (their NOUN/PROPN forms) or word lists (one form per line)",
        metavar="UD_PATH|FILE",
    )

    def __post_init__(self) -> None:
        from polyprobe.loaders.annotate import parse_annotate

        super().__post_init__()
        self.sentence_filter()  # --min-tokens / --max-tokens checked before anything is read
        self.text_split()
        if self.annotate is not None:
            parse_annotate(self.annotate)
        if self.reference_treebank and self.annotate is None:
            raise UsageError("--reference-treebank compares machine annotation: give --annotate")
        if self.reference_sentences < 1:
            raise UsageError(
                f"--reference-sentences must be at least 1, not {self.reference_sentences}"
            )

    def sentence_filter(self) -> SentenceFilter:
        return SentenceFilter(self.min_tokens, self.max_tokens, self.final_punct)

    def text_split(self) -> SplitSpec:
        return text_split(self.split)

    def segmenter(self) -> Any:
        from polyprobe.loaders.segmentation import Segmenter

        return Segmenter(self.language.code, sentences=self.sentences, tokenizer=self.tokenizer)

    def given(self) -> dict[str, dict[str, Any]]:
        """``--unimorph`` and ``--noun-forms`` for ``subject_verb_agreement``."""
        agreement: dict[str, Any] = {}
        if self.unimorph:
            agreement["unimorph"] = [str(p) for p in self.unimorph]
        if self.noun_forms:
            agreement["noun_forms"] = [str(p) for p in self.noun_forms]
        return {"subject_verb_agreement": agreement} if agreement else {}


@dataclass
class RawTexts:
    """A raw-text build's inputs: its text sources (dumps, or one plain-text source), the
    noun lexicon's forms and card entries (``--unimorph``), the annotator (``--annotate``),
    the reference treebank's gold sentences (``--reference-treebank``)."""

    texts: list[Any]  # WikiDumpSource | PlainTextSource
    nouns: frozenset[str]
    noun_source: str | None
    lexicon: list[SourceInfo]
    annotator: Any  # loaders.annotate.Annotator | None
    reference: list[Any] | None = None  # --reference-treebank's gold sentences

    def infos(self) -> list[SourceInfo]:
        return [*(s.info for s in self.texts), *self.lexicon]

    def declared(self) -> list[tuple[str, Sequence[DeclaredLanguage]]]:
        return [(s.name, tuple(getattr(s, "languages", ()))) for s in self.texts]


C = TypeVar("C", bound=RawTextConfig)


def machine_mark(annotator: Any) -> dict[str, Any]:
    """The sentence stream's profile entry: its rows come from machine-annotated records."""
    if annotator is None:
        return {}
    return {"records": f"machine-annotated by {annotator.tool}:{annotator.name}"}


def annotation(
    annotator: Any, sentences: Sequence[str], documents: Sequence[str]
) -> dict[str, Any]:
    """The card's annotation entry: the model, and which tasks' rows are machine-annotated
    (every row of the sentence tasks; the discourse tasks read the raw sentences' text)."""
    return {
        **annotator.describe(),
        "machine_annotated_tasks": list(sentences),
        "not_annotated_tasks": list(documents),
    }


# The tasks that read what only a tagger and parser give (UPOS, FEATS, heads, relations):
# what --annotate adds, and what --reference-treebank compares.
PARSED_TASKS: tuple[type[Any], ...] = tuple(
    t for t in SENTENCE_TASKS if t not in TEXT_TASKS or t in (WordOrder, WordOrderPermuted)
)


class RawTextFamily(Family[C, RawTexts]):
    """A raw-text family: a subclass gives :meth:`texts` (and its card)."""

    tasks = TaskSet.of(
        *TEXT_TASKS,
        RawSubjectVerbAgreement,  # Wehner's lexicon recipe: opt-in, needs --unimorph
        *DISCOURSE_TASKS,
        default=(*TEXT_TASKS, *DISCOURSE_TASKS),
        groups={"sentence": TEXT_TASKS, "discourse": DISCOURSE_TASKS},
    )

    def texts(self, config: C) -> list[Any]:
        """The build's text sources, read with ``config.segmenter()``."""
        raise NotImplementedError

    def parameters(self, config: C) -> dict[str, Any]:
        """The family's own card parameters (after the shared ones)."""
        return {}

    def sources(self, config: C) -> RawTexts:
        from polyprobe.loaders.annotate import Annotator, parse_annotate
        from polyprobe.loaders.raw_lexicon import noun_lexicon

        texts = self.texts(config)
        nouns, noun_source, lexicon = noun_lexicon(
            config.unimorph, config.language.code, source_version=config.source_version
        )
        annotator = None
        if config.annotate is not None:
            annotator = Annotator(*parse_annotate(config.annotate))
            annotator.check()  # an absent model: one line, before anything is read
        reference = None
        if config.reference_treebank:  # read now: a bad path stops the build before any work
            from polyprobe.builders.records.reference import gold_sentences

            reference = gold_sentences(
                config.reference_treebank, config.source_version, config.language.iso639_3
            )
        return RawTexts(texts, nouns, noun_source, lexicon, annotator, reference)

    def task_set(self, config: C, sources: RawTexts) -> TaskSet:
        """Annotated sentences are UD-style records: every ``build ud`` task is offered."""
        if sources.annotator is None:
            return self.tasks  # type: ignore[return-value]
        from polyprobe.builders.families.ud import UD

        return UD.tasks  # type: ignore[return-value]

    def plan(self, config: C, sources: RawTexts, names: Sequence[str]) -> Plan:
        return self.plan_on(config, sources, sources.texts, names)

    def plan_on(
        self, config: C, sources: RawTexts, texts: Sequence[Any], names: Sequence[str]
    ) -> Plan:
        """The sentence stream and the document stream over ``texts`` (the sources, or what
        they were prepared into)."""
        task_set = self.task_set(config, sources)
        documents = [n for n in names if is_document_task(task_set.get(n))]
        sentences = [n for n in names if n not in documents]
        keep = config.sentence_filter()
        annotator = sources.annotator
        # Raw text has no UPOS: word_content's targets are mid-frequency words of any class
        # unless a noun lexicon marks nouns (then nouns only, as on treebanks).
        defaults = (
            {} if annotator else {"word_content": {"noun_share": 0.9 if sources.nouns else 0.0}}
        )
        given = config.given()
        streams: list[Stream] = []
        records = None
        if sentences:
            records = TextRecords(tuple(texts), keep, sources.nouns, annotator=annotator)
            streams.append(
                Stream(
                    records,
                    tuple(sentences),
                    defaults=defaults,
                    given=given,
                    language=raw_language,
                    extra_profile=machine_mark(annotator),
                )
            )
        if documents:
            streams.append(raw_documents(texts, documents, keep, records))
        noun_source = sources.noun_source or "no lexicon (none marked)"
        parameters: dict[str, Any] = {
            "segmentation": texts[0].segmenter.describe(),
            "sentence_filter": keep.describe(),
            "upos": "machine-annotated"
            if annotator
            else f"raw text: PUNCT/SYM/NUM from characters, NOUN from {noun_source}, "
            "everything else X (no tagger)",
            **({"annotation": annotation(annotator, sentences, documents)} if annotator else {}),
            "task_options": card_task_options(defaults, given, config.task_options),
            **self.parameters(config),
        }
        return Plan(
            split=config.text_split(),
            streams=tuple(streams),
            order=tuple(names),
            parameters=parameters,
            facts=source_counts(texts),
            inputs=tuple(p for s in texts for p in (s.files if hasattr(s, "files") else [s.path])),
        )

    def finish(self, config: C, sources: RawTexts, outcome: Outcome, staging: Path) -> Outcome:
        """Dropped sentences are no invalid input: the card lists them apart, by reason,
        then what the sources counted while read (pages, lines the cleaner left out); with
        annotation, the parser labels left unmapped and the reference treebank's
        comparison."""
        from polyprobe.builders.records.rawtext import split_dropped, split_unmapped

        unmapped = split_unmapped(outcome.skipped)
        outcome.skipped, dropped = split_dropped(outcome.skipped)
        outcome.parameters["sentences_dropped"] = dropped
        for key in ("pages", "cleaning_left_out"):
            if key in outcome.facts:
                outcome.parameters[key] = outcome.facts[key]
        annotation = outcome.parameters.get("annotation")
        if isinstance(annotation, dict):
            annotation["unmapped_labels"] = unmapped
            annotation["unmapped_total"] = sum(unmapped.values())
        if config.reference_treebank and sources.annotator is not None:
            outcome.parameters["reference_treebank"] = self.reference(config, sources, outcome)
        return outcome

    def reference(self, config: C, sources: RawTexts, outcome: Outcome) -> dict[str, Any]:
        """The machine annotation against ``--reference-treebank`` (see
        :mod:`polyprobe.builders.records.reference`)."""
        from polyprobe.builders.records.reference import (
            REFERENCE_FLOORS,
            compare,
            gold_sentences,
            machine_sentences,
        )
        from polyprobe.builders.task import TaskContext

        gold = sources.reference
        if gold is None:
            gold = gold_sentences(config.reference_treebank, config.source_version)
        parsed = machine_sentences(
            gold[: config.reference_sentences], sources.texts[0].segmenter, sources.annotator
        )
        counts = {
            a.name: a.report.get("class_counts", {})
            for a in outcome.assembled
            if a.report.get("class_counts")
        }
        # the gold fits split as this build does (by ratio), so a dev file alone has splits
        context = TaskContext(
            lang=config.language.code,
            seed=config.seed,
            min_per_class=REFERENCE_FLOORS,
            split=config.text_split().label,
        )
        tasks = compare(PARSED_TASKS, gold, parsed, context, counts)
        return {
            "treebank": ", ".join(str(p) for p in config.reference_treebank),
            "sentences": len(gold),
            "sentences_parsed": len(parsed),
            "class_floors_of_the_fits": list(REFERENCE_FLOORS),
            "agreement_rule": "per task, fitted on the gold sentences; agreement = share of "
            "rows made from both the gold and the machine record of a parsed sentence with "
            "the same label; coverage = share of gold rows the machine record also makes",
            "tasks": tasks,
        }
