"""What the UD downstream tasks (``pos``, ``deprel``) share: which syntactic words have a
surface token of their own, and where.

Why only those: a row's input is the sentence's surface tokens and a ``target_index`` into
them. A word inside a multiword token (Spanish *del* = *de* + *el*, German *zum*) has no token
of its own, so no index can point at it; such words are dropped and counted, never pointed at
the whole multiword token (whose label would be ill-defined).
"""

from __future__ import annotations

from polyprobe.loaders.records import Sentence

DROP_IN_MWT = "word inside a multiword token"


def word_positions(sentence: Sentence) -> dict[int, int]:
    """Word id -> index of its surface token, for words that are a token of their own."""
    out: dict[int, int] = {}
    for index, token in enumerate(sentence.surface_tokens()):
        if len(token.word_ids) == 1:
            out[token.word_ids[0]] = index
    return out
