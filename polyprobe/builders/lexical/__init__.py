"""Lexical evaluation sets (word similarity, word analogies, bilingual dictionaries, COSTRA)
as tasks on the build spine: one task per published set, made from the set itself."""
