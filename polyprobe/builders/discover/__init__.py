"""``polyprobe suite init``: find one language's resources under some folders by the names
they are published under, and write the suite manifest that builds them
(:mod:`polyprobe.builders.manifest`), saying per family what was found and what is missing.

Why by standard names: every resource polyprobe reads is distributed under a name that says
what it is and, mostly, which language it is in (``UD_Finnish-TDT``, ``fi_tdt-ud-test.conllu``,
``finnish-train-high``, ``fin.trn``, ``orthographic_finnish.txt``, ``fiwiki-...-pages-articles
.xml.bz2``, vecto's ``monolingual/fi/``), so a folder of downloads is enough to plan a suite.
What a name does not settle is read the way the loaders read it: a treebank's language from
its file names and README (:mod:`polyprobe.loaders.declared`), a UniMorph file's column order
from its content, a similarity or analogy file's layout from its first lines. Nothing is
guessed: a resource whose language cannot be read is not used.

What it decides, and why (each decision is written into the manifest as a comment):

* **one treebank member** (``ud``) with every treebank of the language (the family merges
  them). A PUD treebank (``UD_*-PUD``: 1,000 test sentences, the same in every language) is
  *not* in a language's suite: its tasks would duplicate the treebank's under prefixed names
  (``tense`` beside a second member's ``pud-tense``) and its parallelism is what it is for, so the parallel suite
  builds it (``suite init --parallel``; shipped as ``pud``). A language whose only treebank
  is its PUD gets it as its ``ud`` member.
* **one UniMorph lexicon** (``unimorph``): a full UniMorph lexicon, else SIGMORPHON 2018's
  ``train-high``/``dev``/``test``, else SIGMORPHON 2023's ``trn``/``dev``/``tst`` (the
  others are listed, not used: two releases of one lexicon would give a paradigm twice, under
  two tag spellings). SIGMORPHON's samples are drawn from UniMorph, so the full lexicon comes
  first; 2018 before 2023 because on the shared data it builds as many tasks or more (Finnish:
  10 against 8). ``scale = true`` when some of LINSPECTOR's features is carried by fewer forms
  than its fixed 10,000-form size but by at least the 1,000 a derived size needs (then only
  ``--scale`` can build that task); the treebanks rank the forms (``frequencies``). A Wuggy
  output table is preferred to a Wuggy lexicon (reading a table is instant; generating costs
  ~0.1-0.3 s per seed word and needs ``polyprobe[wuggy]``). The same lexicon also generates
  morphological analogies (member ``unimorph_analogies``).
* the **similarity** sets of the language (monolingual, and cross-lingual ones it is a side
  of) in one member; for Multi-SimLex the cross-lingual partner is English, the pivot
  (:data:`PIVOT`), and the **dictionary** is the language's Multi-SimLex concepts into
  English (English itself gets neither: every X-en set is in X's suite).
* one **analogies** member per analogy set, Wikipedia dumps (``wiki``), TREC for English,
  COSTRA for Czech (the families' own languages).

Paths: with ``data``, written relative to it (a portable manifest: build it with
``suite build M --data DIR``); without, absolute (read_manifest takes an absolute path as it
is). A resource outside ``data`` is written absolute.

The package: :mod:`.scan` finds resources by their names, :mod:`.plan` holds what a manifest
will say, :mod:`.language` and :mod:`.parallel` decide the members, :mod:`.scale` whether
UniMorph needs ``scale``, :mod:`.write` writes the manifest and the report.
"""

from __future__ import annotations

from polyprobe.builders.discover.write import init_manifest

__all__ = ["init_manifest"]
