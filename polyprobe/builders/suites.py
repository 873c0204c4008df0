"""The task suites several families share, in the order that decides a dataset's ``default``
config (the first task built). A family composes its task set from them
(:class:`~polyprobe.builders.family.TaskSet`); a new sentence task joins a suite here."""

from __future__ import annotations

from typing import Any

from polyprobe.builders.discourse.binary_sentence_ordering import BinarySentenceOrdering
from polyprobe.builders.discourse.discourse_coherence import DiscourseCoherence
from polyprobe.builders.discourse.sentence_position import SentencePosition
from polyprobe.builders.discourse.sentence_section import SentenceSection
from polyprobe.builders.downstream.deprel import DeprelLabelling
from polyprobe.builders.downstream.parse import DependencyParse
from polyprobe.builders.downstream.pos import PosTagging
from polyprobe.builders.sentence.bigram_shift import BigramShift
from polyprobe.builders.sentence.coordination_inversion import CoordinationInversion
from polyprobe.builders.sentence.end_of_sentence import EndOfSentence
from polyprobe.builders.sentence.object_number import ObjectNumber
from polyprobe.builders.sentence.odd_man_out import OddManOut
from polyprobe.builders.sentence.sentence_length import SentenceLength
from polyprobe.builders.sentence.sentence_length_senteval import SentenceLengthSentEval
from polyprobe.builders.sentence.subject_number import SubjectNumber
from polyprobe.builders.sentence.subject_verb_agreement import SubjectVerbAgreement
from polyprobe.builders.sentence.subject_verb_distance import SubjectVerbDistance
from polyprobe.builders.sentence.tense import Tense, TensePeriphrastic
from polyprobe.builders.sentence.top_dependencies import TopDependencies
from polyprobe.builders.sentence.tree_depth import TreeDepth
from polyprobe.builders.sentence.voice import Voice
from polyprobe.builders.sentence.word_content import WordContent
from polyprobe.builders.sentence.word_order import WordOrder, WordOrderPermuted
from polyprobe.builders.task import Task

# The sentence-level suite of a treebank (SentEval's probing tasks, Wehner's and Eger et
# al.'s additions).
SENTENCE_TASKS: tuple[type[Task[Any]], ...] = (
    SentenceLength,
    SentenceLengthSentEval,
    WordContent,
    TreeDepth,
    TopDependencies,
    BigramShift,
    Tense,
    SubjectNumber,
    ObjectNumber,
    OddManOut,
    CoordinationInversion,
    SubjectVerbAgreement,
    SubjectVerbDistance,
    Voice,
    WordOrder,
    WordOrderPermuted,
    EndOfSentence,
)

# Tasks over documents (DiscoEval's suite).
DISCOURSE_TASKS: tuple[type[Task[Any]], ...] = (
    SentencePosition,
    BinarySentenceOrdering,
    DiscourseCoherence,
    SentenceSection,
)

# The text-only sentence tasks: they read surface tokens, spacing, punctuation and (for
# word_order) nouns only, so they run on raw text.
TEXT_TASKS: tuple[type[Task[Any]], ...] = (
    SentenceLength,
    SentenceLengthSentEval,
    WordContent,
    BigramShift,
    WordOrder,
    WordOrderPermuted,
    EndOfSentence,
)

# Treebank tasks built only when named: LINSPECTOR's correlation targets (group
# ``downstream``), and a suite task under another recipe option.
DOWNSTREAM_TASKS: tuple[type[Task[Any]], ...] = (PosTagging, DeprelLabelling, DependencyParse)
OPTIONAL_TASKS: tuple[type[Task[Any]], ...] = (TensePeriphrastic,)
