"""Lexical evaluation (word similarity, similarity in context, analogies, cross-lingual
dictionaries, COSTRA): each set scored by its own metric, no probe trained. See :mod:`.run`."""

from polyprobe.evaluation.lexical.run import evaluate_lexical, is_lexical

__all__ = ["evaluate_lexical", "is_lexical"]
