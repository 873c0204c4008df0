"""Binary RST trees from annotated ones: what the discourse-relation task reads.

The rule, fixed and documented because every count of a DR dataset depends on it:

* A **multinuclear** node with k > 2 nuclei is binarised **right-branching**:
  ``(n1, (n2, (... nk)))``, every new node labelled ``NN-<relation>``.
* A nucleus with **satellites** is one relation per satellite: the satellites are attached
  to the nucleus one at a time, nearest first, those on its right before those on its left:
  ``[S1, N, S2, S3]`` -> ``(S1, ((N, S2), S3))``, labelled ``SN-<S1's relation>``,
  ``NS-<S3's relation>``, ``NS-<S2's relation>`` from the top down. A binary node of the
  annotation (one nucleus, one satellite) is kept as it is.
* A node with several nuclei *and* satellites: the nuclei first (right-branching, as above),
  then the satellites as a nucleus's.

Every internal node of the result is one relation instance: ``left`` and ``right`` are the
EDU spans of its two children, its label ``<nuclearity>-<relation>`` (``NS``, ``SN``, ``NN``).
"""

from __future__ import annotations

from dataclasses import dataclass

from polyprobe.loaders.rst import RstNode


@dataclass(frozen=True)
class BinaryNode:
    """A node of a binary RST tree: a leaf (``edu``) or two children and a label."""

    start: int  # first EDU (0-based)
    end: int  # last EDU (inclusive)
    left: BinaryNode | None = None
    right: BinaryNode | None = None
    nuclearity: str = ""  # "NS" | "SN" | "NN" for an internal node
    relation: str = ""

    @property
    def label(self) -> str:
        return f"{self.nuclearity}-{self.relation}"

    def internal(self) -> list[BinaryNode]:
        """Internal nodes, top-down and left to right (pre-order)."""
        if self.left is None or self.right is None:
            return []
        return [self, *self.left.internal(), *self.right.internal()]

    def bracketed(self) -> str:
        """``(NS-elaboration 1 (NN-list 2 3))`` with 1-based EDU numbers: how tests draw trees."""
        if self.left is None or self.right is None:
            return str(self.start + 1)
        return f"({self.label} {self.left.bracketed()} {self.right.bracketed()})"


def _leaf(edu: int) -> BinaryNode:
    return BinaryNode(edu, edu)


def _join(left: BinaryNode, right: BinaryNode, nuclearity: str, relation: str) -> BinaryNode:
    return BinaryNode(left.start, right.end, left, right, nuclearity, relation)


def binarise(node: RstNode) -> BinaryNode:
    """The binary tree of an annotated RST node (see the module's rule)."""
    if node.edu is not None:
        return _leaf(node.edu)
    nuclei = [c for c in node.children if c.role == "N"]
    satellites = [c for c in node.children if c.role != "N"]
    if not nuclei:
        raise ValueError("an RST node without a nucleus")
    if len(nuclei) == 1:
        core = binarise(nuclei[0])
    else:
        relation = next((n.relation for n in nuclei if n.relation != "span"), "span")
        parts = [binarise(n) for n in nuclei]
        core = parts[-1]
        for part in reversed(parts[:-1]):
            core = _join(part, core, "NN", relation)
    right = [s for s in satellites if s.first() > core.end]
    left = [s for s in satellites if s.last() < core.start]
    for sat in right:  # nearest first: they come in text order
        core = _join(core, binarise(sat), "NS", sat.relation)
    for sat in reversed(left):  # nearest first
        core = _join(binarise(sat), core, "SN", sat.relation)
    if len(right) + len(left) != len(satellites):
        raise ValueError("a satellite inside its nucleus's span")
    return core
