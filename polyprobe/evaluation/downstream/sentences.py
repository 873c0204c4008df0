"""Whole sentences back from a token-level config's rows.

Why from the rows: evaluation reads a published dataset as a user would, and a ``pos``,
``ner`` or ``parse`` config is one row per token whose rows share the sentence's ``group``
(its tokens in ``tokens``, the row's token at ``target_index``; ``parse`` adds the token's
head, -1 for the root). Grouping by (group, tokens) gives each sentence with a gold label at
every position that has a row; a position without one (a class the build's floors dropped, a
word inside a multiword token, a token whose head is inside one) is masked: it is an input
of the model but neither trained on nor scored. Two source sentences with the same text share
a group and are one sentence here (the first row of a position wins; the count is reported).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from polyprobe.errors import InputError
from polyprobe.evaluation.encoders import Item

MASKED = -100  # a position without a gold label (torch's ignore_index)


@dataclass
class TokenSentence:
    text: str
    tokens: tuple[str, ...]
    group: str
    labels: np.ndarray  # label id per token, MASKED where no row
    heads: np.ndarray | None = None  # parse: head per token, 0 = root, 1..n = token, MASKED

    def items(self) -> list[Item]:
        return [Item(self.text, self.tokens, j) for j in range(len(self.tokens))]


@dataclass
class SplitSentences:
    sentences: list[TokenSentence]
    rows: int  # rows read
    duplicate_rows: int  # rows whose position another row of the same sentence had


def rebuild(rows: dict[str, list[Any]], source: str, split: str, parse: bool) -> SplitSentences:
    """The sentences of one split, in order of their first row."""
    for column in ("tokens", "target_index", *(("head_index",) if parse else ())):
        if column not in rows:
            raise InputError(
                source, None, f"{split}: no {column!r} column: not a token-level config",
                "no-column",
            )  # fmt: skip
    text_col = "sentence" if "sentence" in rows else "text" if "text" in rows else None
    by_key: dict[tuple[str, tuple[str, ...]], TokenSentence] = {}
    duplicates = 0
    labels = rows["_label"]
    groups = rows.get("group") or [None] * len(labels)
    for i, tokens in enumerate(rows["tokens"]):
        toks = tuple(tokens or ())
        group = str(groups[i]) if groups[i] is not None else f"{split}/{i}"
        key = (group, toks)
        sent = by_key.get(key)
        if sent is None:
            text = rows[text_col][i] if text_col else " ".join(toks)
            sent = TokenSentence(
                str(text), toks, group, np.full(len(toks), MASKED, np.int64),
                np.full(len(toks), MASKED, np.int64) if parse else None,
            )  # fmt: skip
            by_key[key] = sent
        j = int(rows["target_index"][i])
        if not 0 <= j < len(toks):
            raise InputError(
                source, None, f"{split}: row {i}: target_index {j} outside its {len(toks)} tokens",
                "bad-index",
            )  # fmt: skip
        if sent.labels[j] != MASKED:
            duplicates += 1
            continue
        sent.labels[j] = int(labels[i])
        if parse:
            assert sent.heads is not None
            h = int(rows["head_index"][i])
            if not -1 <= h < len(toks) or h == j:
                raise InputError(
                    source, None, f"{split}: row {i}: head_index {h} is not -1 (root) or another "
                    f"of its {len(toks)} tokens", "bad-index",
                )  # fmt: skip
            sent.heads[j] = h + 1  # 0 = the root, token j at position j + 1
    return SplitSentences(list(by_key.values()), len(labels), duplicates)
