"""``parse``: dependency parsing from any UD treebank (LINSPECTOR's parsing downstream task as
parsers are scored: every token's head and relation, UAS/LAS).

Level ``arc``, like ``deprel``, but where ``deprel`` gives the gold head and asks for the
relation, ``parse`` is the whole tree: one row per syntactic word that is a surface token of its
own, **the root included** (``head_index = -1``, relation ``root``), so the rows of a sentence
are its tree and a parser (``polyprobe evaluate --probe parser``) can be trained and scored on
them. Words inside a multiword token, and words whose head is inside one, have no token to point
at (or from) and are dropped, counted; the parser then leaves those tokens unscored. Labels are
universal relations unless ``subtypes = true``. A sentence's rows share its group, so splits
are by sentence. A linear probe may read the rows too: a root row's head is then the dependent
itself (``evaluation/data.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from polyprobe.builders.citations import UD_CITATION
from polyprobe.builders.downstream.deprel import (
    DROP_HEAD_IN_MWT,
    DeprelLabelling,
    DeprelObservation,
    relation,
)
from polyprobe.builders.downstream.tokens import DROP_IN_MWT, word_positions
from polyprobe.builders.rendering import sentence_inputs
from polyprobe.builders.task import Candidate, Fit, Shared
from polyprobe.loaders.records import Sentence
from polyprobe.metadata import Level, TaskMetadata

#: ``head_index`` of the root's row: its head is the virtual root, not a token.
ROOT_HEAD = -1


class ParseObservation(DeprelObservation):
    """Relation counts over every word a row is made for, the root's included."""

    def observe(self, sentence: Sentence, shared: Shared) -> None:
        positions = shared.get(word_positions)
        self.counts.update(
            relation(w, self.subtypes)
            for w in sentence.words
            if w.id in positions and (not w.head or w.head in positions)
        )


class DependencyParse(DeprelLabelling):
    """Label = the relation of the target token; ``head_index`` its head (-1: the root).
    Options, fit and report are ``deprel``'s; the rows add the root's."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="parse",
        level=Level.ARC,
        description="The dependency tree of the sentence: for every token its head "
        "(head_index, -1 for the root) and its universal relation (the label); scored by a "
        "parser as UAS/LAS.",
        labels_derived="every universal relation of the corpus, root included, most frequent "
        "first (language-specific subtypes with subtypes = true)",
        citation=UD_CITATION,
        task_type="downstream",
        notes=(
            "Every syntactic word that is a surface token of its own is a row, the root "
            "included (head_index = -1); words inside a multiword token, and words whose "
            "head is inside one, are dropped (counted): the parser leaves them unscored.",
            "A sentence's rows share its group: splits are by sentence, never by token.",
            "A parser needs whole sentences: use the natural variant (balanced variants "
            "subsample a sentence's tokens by class).",
        ),
    )

    def observation(self) -> ParseObservation:
        return ParseObservation(self.options.subtypes)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "label": "relation of the target token to its head (root: head_index -1)",
            "rows": "every token",
            "subtypes": self.options.subtypes,
        }

    def candidates(self, sentence: Sentence, fit: Fit, shared: Shared) -> list[Candidate]:
        if fit.infeasible is not None:
            return self.drop(f"task infeasible: {fit.infeasible}")
        positions = shared.get(word_positions)
        base = sentence_inputs(sentence)
        out: list[Candidate] = []
        for word in sentence.words:
            index = positions.get(word.id)
            if index is None:
                self.drops[DROP_IN_MWT] += 1
                continue
            head = positions.get(word.head, None) if word.head else ROOT_HEAD
            if head is None:
                self.drops[DROP_HEAD_IN_MWT] += 1
                continue
            inputs: dict[str, Any] = {**base, "target_index": index, "head_index": head}
            out.append(Candidate(inputs, relation(word, self.options.subtypes), copy=str(index)))
        return out
