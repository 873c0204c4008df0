"""Source families, each a recipe on the shared build (:mod:`polyprobe.builders.build`):
``ud`` (treebanks → sentence tasks), ``unimorph`` (lexicons → word tasks), ``trec``
(question classification, a downstream task)."""
