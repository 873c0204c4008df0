"""``discourse_relations`` (DR, DiscoEval): which RST relation holds between two adjacent
discourse units?

Every internal node of a document's binarised RST tree (:mod:`.rst_binary`) is a row: the EDU
texts of its left child and of its right child, labelled with the nuclearity and the relation
(``NS-Elaboration``). Relations may be mapped to coarse classes (RST-DT's 78 fine relations to
its 16 classes, say) by a mapping the user gives; without one the relation is kept as written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from polyprobe.builders.citations import CHEN_2019
from polyprobe.builders.discourse.rst_binary import binarise
from polyprobe.builders.task import Candidate, Fit, Observation, Shared, Task
from polyprobe.errors import UsageError
from polyprobe.loaders.rst import RstDocument
from polyprobe.metadata import Level, TaskMetadata


@dataclass(frozen=True)
class DiscourseRelationsOptions:
    """``relation_map``: relation name -> coarse class (a table; names are matched exactly,
    then case-insensitively); relations it does not name are dropped and counted. Default:
    none, every relation is its own class. ``nuclearity``: prefix labels with ``NS``/``SN``/
    ``NN`` (default true, as DiscoEval)."""

    relation_map: Mapping[str, str] = field(default_factory=dict)
    nuclearity: bool = True

    def __post_init__(self) -> None:
        raw = self.relation_map
        if not isinstance(raw, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in raw.items()
        ):
            raise UsageError(
                "[tasks.discourse_relations] relation_map must map relation names to "
                "non-empty class names"
            )
        object.__setattr__(self, "relation_map", dict(raw))
        if not isinstance(self.nuclearity, bool):
            raise UsageError("[tasks.discourse_relations] nuclearity must be true or false")


def _folded(mapping: Mapping[str, str]) -> dict[str, str]:
    return {k.casefold(): v for k, v in mapping.items()}


class RelationCounts(Observation):
    """How often each label (after the mapping) occurs, and the relations the mapping misses."""

    def __init__(self, task: DiscourseRelations) -> None:
        self.task = task
        self.labels: Counter[str] = Counter()
        self.unmapped: Counter[str] = Counter()
        self.documents = 0

    def observe(self, document: RstDocument, shared: Shared) -> None:
        self.documents += 1
        for node in binarise(document.tree).internal():
            label = self.task.label_of(node.nuclearity, node.relation)
            if label is None:
                self.unmapped[node.relation] += 1
            else:
                self.labels[label] += 1

    def merge(self, later: Observation) -> None:
        """Take in the counts of the documents right after this observation's
        (``Counter.update`` adds ``later``'s new keys after this one's, as one pass would)."""
        assert isinstance(later, RelationCounts)
        self.labels.update(later.labels)
        self.unmapped.update(later.unmapped)
        self.documents += later.documents


class DiscourseRelations(Task[RstDocument]):
    """Label = nuclearity and (coarse) relation of a node of the binarised RST tree."""

    metadata: ClassVar[TaskMetadata] = TaskMetadata(
        name="discourse_relations",
        level=Level.DISCOURSE_RELATION,
        description=(
            "Two adjacent discourse units of an RST tree (each a list of elementary discourse "
            "units); predict the relation between them, with its nuclearity."
        ),
        labels_derived=(
            "<nuclearity>-<relation> of every node of the binarised trees (NS, SN, NN), "
            "relations mapped to coarse classes when a relation_map is given; most frequent "
            "first"
        ),
        citation=CHEN_2019,
        record="rst tree",
        notes=(
            "Trees from .rs3 (RSTTool/rstWeb) or .dis (RST-DT) files. Binarisation: a "
            "multinuclear node with more than two nuclei right-branching, (n1, (n2, ... nk)), "
            "each new node NN-<relation>; a nucleus with several satellites gets one node per "
            "satellite, nearest first, right-hand satellites before left-hand ones.",
            "One row per internal node: left = the EDU texts under its left child, right = "
            "under its right child. Group = the document (its file), so a document's rows "
            "never straddle splits; the treebank's own splits (train/dev/test folders) are "
            "kept.",
            "Dropped and counted: relations the relation_map does not name.",
            "Row id: <source>/<file>/discourse_relations/<first EDU>-<last EDU> (1-based).",
        ),
    )
    Options: ClassVar[type] = DiscourseRelationsOptions
    reported: ClassVar[frozenset[str]] = frozenset(
        {"label_counts", "unmapped_relations", "documents"}
    )

    def label_of(self, nuclearity: str, relation: str) -> str | None:
        """The row label of a node, or None when the mapping does not name its relation."""
        mapping = self.options.relation_map
        if mapping:
            coarse = mapping.get(relation)
            if coarse is None:
                coarse = _folded(mapping).get(relation.casefold())
            if coarse is None:
                return None
        else:
            coarse = relation
        return f"{nuclearity}-{coarse}" if self.options.nuclearity else coarse

    def observation(self) -> RelationCounts:
        return RelationCounts(self)

    def fit(self, observation: Observation | None) -> Fit:
        assert isinstance(observation, RelationCounts)
        ranked = sorted(observation.labels.items(), key=lambda kv: (-kv[1], kv[0]))
        labels = tuple(label for label, _ in ranked)
        report = {
            "documents": observation.documents,
            "label_counts": dict(ranked),
            "unmapped_relations": dict(sorted(observation.unmapped.items())),
        }
        infeasible = None if len(labels) >= 2 else "fewer than two relation labels in the trees"
        return Fit(labels, report, infeasible=infeasible)

    def parameters(self, fit: Fit) -> dict[str, Any]:
        return {
            "binarisation": "multinuclear right-branching; satellites nearest first, right "
            "before left",
            "nuclearity": self.options.nuclearity,
            "relation_map": dict(sorted(self.options.relation_map.items())) or "identity",
        }

    def candidates(self, document: RstDocument, fit: Fit, shared: Shared) -> list[Candidate]:
        edus = document.edus
        out: list[Candidate] = []
        for node in binarise(document.tree).internal():
            label = self.label_of(node.nuclearity, node.relation)
            if label is None:
                self.drops["relation not in the relation map"] += 1
                continue
            if label not in fit.label_names:
                self.drops["label not among the fitted labels"] += 1
                continue
            assert node.left is not None and node.right is not None
            left = list(edus[node.left.start : node.left.end + 1])
            right = list(edus[node.right.start : node.right.end + 1])
            out.append(
                Candidate({"left": left, "right": right}, label, f"{node.start + 1}-{node.end + 1}")
            )
        return out
