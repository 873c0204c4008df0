"""spaCy's English dependency scheme (ClearNLP-style labels: ``nsubj``, ``dobj``, ``prep``,
``pobj``, ``attr``, ...) converted to Universal Dependencies relations and heads.

Why: the sentence tasks read UD relations (``obj`` for object number, ``:pass`` subtypes for
voice, ``cc`` on the second conjunct for coordination inversion, content-word heads for tree
depth). spaCy's English pipelines parse in their own scheme, so a raw-text build parsed with
one would otherwise find no ``obj``, no passive and prepositions heading their nouns. A model
whose labels are already UD (spaCy's UD-trained pipelines, stanza) is detected by its label
set and passes through unchanged (:func:`is_clear_scheme`).

The conversion, in order (each step documented in ``docs/raw-text.md``, table "spaCy English
dependency labels → UD"):

1. **Prepositional phrases**: ``prep``/``agent``/``dative`` on an ADP heading a ``pobj``:
   the object takes the preposition's place (``obl`` under a verbal, adjectival or adverbial
   head, ``nmod`` under a nominal one; ``agent`` → ``obl:agent``) and the preposition becomes
   its ``case``; heading a ``pcomp`` clause: the clause takes its place (``advcl``/``acl``)
   and the preposition is its ``mark``. The preposition's other dependents move to the new
   head. A preposition without object keeps its head as ``obl``/``nmod``.
2. **Copulas**: ``be`` (a main verb, not an auxiliary) with an ``attr`` or ``acomp``
   dependent, and no ``expl``: the predicate becomes the head (taking ``be``'s relation and
   head), ``be`` its ``cop``, and ``be``'s other dependents move to the predicate. With an
   ``expl`` (*there is a dog*) the ``attr`` is the ``nsubj``. ``attr``/``acomp``/``oprd``
   of any other verb (*seems happy*, *became a doctor*) is ``xcomp``.
3. **Labels one to one** (:data:`LABELS`): ``dobj`` → ``obj``, ``nsubjpass`` →
   ``nsubj:pass``, ``auxpass`` → ``aux:pass``, ``poss`` → ``nmod:poss``, ``neg`` →
   ``advmod``, ``prt`` → ``compound:prt``, ``relcl`` → ``acl:relcl``, ... ; infinitival
   ``to`` tagged ``aux`` → ``mark``; ``npadvmod`` → ``obl:unmarked``/``nmod:unmarked`` by the
   head (EWT r2.16's subtypes).
4. **Coordination**: a conjunct attached to a conjunct moves to the first conjunct; a ``cc``
   (and a comma or semicolon between conjuncts) attaches to the conjunct that follows it.

Labels with no UD counterpart (``dep``, ``meta``) and labels outside the table become ``dep``
and are counted by original label (the card's ``unmapped_labels``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["LABELS", "UNMAPPED", "ParsedToken", "is_clear_scheme", "to_ud"]

# spaCy (ClearNLP-style) label → UD relation, where one label maps to one relation; the
# structural labels (prep, pobj, pcomp, agent, attr, acomp, oprd, npadvmod) are converted
# by the rules of the module docstring.
LABELS: dict[str, str] = {
    "ROOT": "root",
    "acl": "acl",
    "advcl": "advcl",
    "advmod": "advmod",
    "amod": "amod",
    "appos": "appos",
    "aux": "aux",
    "auxpass": "aux:pass",
    "case": "case",
    "cc": "cc",
    "ccomp": "ccomp",
    "compound": "compound",
    "conj": "conj",
    "csubj": "csubj",
    "csubjpass": "csubj:pass",
    "dative": "iobj",
    "det": "det",
    "dobj": "obj",
    "expl": "expl",
    "intj": "discourse",
    "mark": "mark",
    "neg": "advmod",
    "nmod": "nmod",
    "nsubj": "nsubj",
    "nsubjpass": "nsubj:pass",
    "nummod": "nummod",
    "parataxis": "parataxis",
    "poss": "nmod:poss",
    "preconj": "cc:preconj",
    "predet": "det:predet",
    "prt": "compound:prt",
    "punct": "punct",
    "quantmod": "advmod",
    "relcl": "acl:relcl",
    "xcomp": "xcomp",
}
STRUCTURAL = frozenset({"prep", "pobj", "pcomp", "agent", "attr", "acomp", "oprd", "npadvmod"})
UNMAPPED = frozenset({"dep", "meta"})  # no UD counterpart: written as ``dep``, counted
_CLAUSAL = frozenset({"dobj", "ccomp", "xcomp", "nsubjpass", "csubjpass", "expl", "auxpass"})
_VERBAL = frozenset({"VERB", "AUX", "ADJ", "ADV"})
_PREPS = frozenset({"prep", "agent", "dative"})
# what steps 1-2 write (UD already)
_CONVERTED = frozenset(
    {"obl", "nmod", "obl:agent", "case", "mark", "cop", "advcl", "acl", "xcomp", "nsubj"}
    | {"obl:unmarked", "nmod:unmarked"}
)


def is_clear_scheme(labels: Iterable[str]) -> bool:
    """Does a parser's label set look like spaCy's English scheme (``dobj`` or ``pobj``
    among them) rather than UD's?"""
    found = set(labels)
    return bool(found & {"dobj", "pobj", "nsubjpass", "auxpass"})


@dataclass(frozen=True, slots=True)
class ParsedToken:
    """What the conversion reads of one parsed token: ``head`` 0-based (itself: the root)."""

    form: str
    lemma: str
    upos: str
    tag: str
    head: int
    dep: str


def _relation(head_upos: str | None, verbal: str, nominal: str) -> str:
    return verbal if head_upos is None or head_upos in _VERBAL else nominal


def to_ud(
    tokens: Sequence[ParsedToken], unmapped: Counter[str] | None = None
) -> list[tuple[int, str]]:
    """Each token's UD (head, relation), head 1-based (0: the root). Labels with no
    counterpart become ``dep`` and are counted in ``unmapped`` by their spaCy label."""
    n = len(tokens)
    head = [-1 if t.head == i else t.head for i, t in enumerate(tokens)]
    dep = [t.dep for t in tokens]
    upos = [t.upos for t in tokens]

    def children(i: int) -> list[int]:
        return [j for j in range(n) if head[j] == i]

    # 1. prepositional phrases: the object (or clause) takes the preposition's place
    replace: dict[int, int] = {}
    for p in range(n):
        if dep[p] not in _PREPS or (dep[p] == "dative" and upos[p] != "ADP"):
            continue
        kids = children(p)
        obj = next((j for j in kids if dep[j] == "pobj"), None)
        clause = next((j for j in kids if dep[j] == "pcomp"), None) if obj is None else None
        if obj is not None or clause is not None:
            replace[p] = obj if obj is not None else clause  # type: ignore[assignment]
    if replace:
        old_head = list(head)

        def through(h: int) -> int:
            seen = 0
            while h in replace and seen < n:
                h = replace[h]
                seen += 1
            return h

        for p, r in replace.items():
            h = through(old_head[p]) if old_head[p] >= 0 else -1
            head[r] = h
            hu = upos[h] if h >= 0 else None
            if dep[r] == "pobj":
                dep[r] = "obl:agent" if dep[p] == "agent" else _relation(hu, "obl", "nmod")
                dep[p] = "case"
            else:
                dep[r] = _relation(hu, "advcl", "acl")
                dep[p] = "mark"
            if old_head[p] < 0:  # a preposition as root: its object is the root
                dep[r] = "ROOT"
            head[p] = r
        for j in range(n):
            if j in replace or any(j == r for r in replace.values()):
                continue
            if old_head[j] in replace:
                head[j] = replace[old_head[j]]
    for j in range(n):  # prepositions without object, objects without preposition
        if dep[j] in _PREPS and j not in replace and dep[j] != "dative":
            hu = upos[head[j]] if head[j] >= 0 else None
            dep[j] = _relation(hu, "obl", "nmod")
        elif dep[j] in ("pobj", "pcomp"):
            hu = upos[head[j]] if head[j] >= 0 else None
            dep[j] = _relation(hu, "obl", "nmod") if dep[j] == "pobj" else "advcl"

    replaced = set(replace.values())
    # 2. copulas: the predicate heads be; existential there: the attr is the subject
    for v in range(n):
        if tokens[v].lemma.lower() != "be" or dep[v] in ("aux", "auxpass"):
            continue
        kids = children(v)
        pred = next((j for j in kids if dep[j] in ("attr", "acomp")), None)
        if pred is None and not any(dep[j] in _CLAUSAL for j in kids):
            # a predicate prepositional phrase (*is in the house*): its noun heads be
            pred = next((j for j in kids if j > v and dep[j] == "obl" and j in replaced), None)
        if pred is None:
            continue
        if any(dep[j] == "expl" for j in kids):
            for j in kids:
                if dep[j] == "attr":
                    dep[j] = "nsubj"
            continue
        head[pred], dep[pred] = head[v], dep[v]
        for j in kids:
            if j != pred:
                head[j] = pred
        head[v], dep[v] = pred, "cop"
    for j in range(n):
        if dep[j] in ("attr", "acomp", "oprd"):
            dep[j] = "xcomp"
        elif dep[j] == "npadvmod":
            hu = upos[head[j]] if head[j] >= 0 else None
            dep[j] = _relation(hu, "obl:unmarked", "nmod:unmarked")

    # 3. one-to-one labels
    out_dep: list[str] = []
    for j, label in enumerate(dep):
        if head[j] < 0:
            out_dep.append("root")
        elif label == "aux" and tokens[j].tag == "TO":
            out_dep.append("mark")  # infinitival to
        elif label in LABELS:
            out_dep.append(LABELS[label])
        elif label in _CONVERTED:
            out_dep.append(label)
        else:
            if unmapped is not None:
                unmapped[label] += 1
            out_dep.append("dep")

    # 4. coordination: conjuncts on the first conjunct, cc and separators on the next one
    for j in range(n):
        if out_dep[j] == "conj":
            h, steps = head[j], 0
            while h >= 0 and out_dep[h] == "conj" and steps < n:
                h, steps = head[h], steps + 1
            head[j] = h
    for j in range(n):
        is_sep = out_dep[j] == "punct" and tokens[j].form in (",", ";")
        if out_dep[j] != "cc" and not is_sep:
            continue
        h = head[j]
        if h < 0:
            continue
        first = head[h] if out_dep[h] == "conj" else h  # the coordination's first conjunct
        later = [c for c in range(j + 1, n) if head[c] == first and out_dep[c] == "conj"]
        if later and (out_dep[j] == "cc" or first < j):
            head[j] = later[0]
    return [(h + 1, d) for h, d in zip(head, out_dep, strict=True)]
