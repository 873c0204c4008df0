"""Span-level precision, recall and F1 of IOB-tagged sequences with conlleval's semantics.

Why conlleval's and not a stricter reading: NER papers (CoNLL-2003, LINSPECTOR's AllenNLP
``span_f1``, EMBEDDIA's NER benchmark) report conlleval's numbers, and conlleval is lenient
in a precise way: a chunk starts at ``B-X``, at an ``I-X`` after ``O`` or after a chunk of
another type, and at ``S-X``/``U-X``; it ends before a tag that starts a chunk or is ``O``,
after ``E-X``/``L-X``/``S-X``/``U-X``, and at the end of the sentence. A span counts as
correct when its start, end and type all match a gold span (micro-averaged over all spans;
per type likewise). IOB1 and IOB2 follow conlleval's rules exactly; an ``E-``/``S-`` tag
(BIOES, which conlleval predates) always closes its chunk, and ``B-``/``S-`` always opens one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

Span = tuple[int, int, str]  # first token, last token (inclusive), type


def _split(tag: str) -> tuple[str, str]:
    if tag in ("O", "", "-X-"):
        return "O", ""
    prefix, sep, kind = tag.partition("-")
    if not sep:  # a bare type ("PER"): conlleval reads it as I-PER
        return "I", tag
    return prefix.upper(), kind


def _ends(prev: str, prev_type: str, tag: str, kind: str) -> bool:
    """conlleval's endOfChunk(prevTag, tag, prevType, type)."""
    if prev in ("E", "L", "S", "U"):
        return True
    return bool(prev in ("B", "I") and (tag in ("B", "S", "U", "O") or kind != prev_type))


def _starts(prev: str, prev_type: str, tag: str, kind: str) -> bool:
    """conlleval's startOfChunk(prevTag, tag, prevType, type)."""
    if tag in ("B", "S", "U"):
        return True
    return bool(tag in ("I", "E", "L") and (prev in ("E", "L", "S", "U", "O") or kind != prev_type))


def chunks(tags: Sequence[str]) -> list[Span]:
    """The spans of one sentence's tags, as conlleval finds them."""
    out: list[Span] = []
    prev, prev_type, start = "O", "", -1
    for i, raw in enumerate([*tags, "O"]):  # the sentinel closes a trailing chunk
        tag, kind = _split(raw)
        if start >= 0 and _ends(prev, prev_type, tag, kind):
            out.append((start, i - 1, prev_type))
            start = -1
        if i < len(tags) and _starts(prev, prev_type, tag, kind):
            start = i
        prev, prev_type = tag, kind
    return out


def _prf(correct: int, predicted: int, gold: int) -> dict[str, float]:
    p = correct / predicted if predicted else 0.0
    r = correct / gold if gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


def span_scores(
    gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]
) -> dict[str, Any]:
    """Overall and per-type precision/recall/F1 over sentences (micro over spans), and the
    span counts behind them."""
    correct: Counter[str] = Counter()
    n_gold: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    for g, p in zip(gold, predicted, strict=True):
        gs, ps = set(chunks(g)), set(chunks(p))
        n_gold.update(s[2] for s in gs)
        n_pred.update(s[2] for s in ps)
        correct.update(s[2] for s in gs & ps)
    overall = _prf(sum(correct.values()), sum(n_pred.values()), sum(n_gold.values()))
    types = sorted(set(n_gold) | set(n_pred))
    return {
        **overall,
        "gold_spans": sum(n_gold.values()),
        "predicted_spans": sum(n_pred.values()),
        "correct_spans": sum(correct.values()),
        "per_type": {t: _prf(correct[t], n_pred[t], n_gold[t]) for t in types},
    }


def is_iob(label_names: Sequence[str]) -> bool:
    """Labels an IOB-family tagging scheme uses (``O`` and ``B-X``/``I-X``/...): span F1
    then applies (an NER config); UPOS tags do not look like this."""
    names = set(label_names)
    if "O" not in names or len(names) < 2:
        return False
    return all(n == "O" or (len(n) > 2 and n[1] == "-" and n[0] in "BIESLU") for n in names)
