"""Agreement cues: does the main predicate's *form* already say the subject's number?

Why this module: a probe for ``subject_number`` should find the subject's number in a
sentence's representation, but where the finite verb agrees (English *is*/*are*, *has*/
*have*, *was*/*were*, *stands*/*stand*) the answer is also written in one frequent word. A
bag of word vectors reads it: on EWT's recommended ``subject_number`` config the ``random``
encoder (a mean of random word vectors) scored 0.70 while MiniLM scored 0.727; on the items
whose predicate shows no number (past tenses other than *be*'s, modals) ``random`` fell to
chance (0.54) and MiniLM kept 0.73. Which forms show number is a fact of the language, so
it is derived from the treebank, not listed: a finite predicate *cell* (lemma, Tense, Mood)
shows number when the corpus has two or more forms in it that carry different ``Number``
values (a form without ``Number`` counts as its own value, so English *are* against *is*
counts; *went*, alone in its cell, does not). The subject-number task counts the items whose
predicate falls in such a cell (card note) and, with ``agreement_cue = "drop"``, keeps only
the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from polyprobe.builders.sentence.predicates import is_finite, predicate_dependents
from polyprobe.loaders.records import Sentence, Word

CellKey = tuple[str, str, str]  # (case-folded lemma, Tense, Mood)
NO_NUMBER = "-"  # a finite form that carries no Number (English "are", "were")


def finite_predicate(sentence: Sentence, root: Word) -> Word | None:
    """The finite word of the main predicate: the root when finite, else its first finite
    aux/cop (*has gone*, *is happy*); None when nothing in the predicate is finite."""
    if is_finite(root):
        return root
    for dep in predicate_dependents(sentence, root):
        if is_finite(dep):
            return dep
    return None


def cell_key(word: Word) -> CellKey:
    feats = word.feats
    return (word.lemma.casefold(), feats.get("Tense", ""), feats.get("Mood", ""))


def number_of(word: Word) -> str:
    """The number a finite form marks: plain ``Number``, else the ``[subj]`` layer."""
    feats = word.feats
    return feats.get("Number") or feats.get("Number[subj]") or NO_NUMBER


class CueCells:
    """First-pass state: every finite predicate form per cell, with the numbers it marks."""

    def __init__(self) -> None:
        self.forms: dict[CellKey, dict[str, set[str]]] = {}

    def observe(self, sentence: Sentence) -> None:
        for word in sentence.words:
            if word.upos in ("VERB", "AUX") and is_finite(word):
                cell = self.forms.setdefault(cell_key(word), {})
                cell.setdefault(word.form.casefold(), set()).add(number_of(word))

    def merge(self, later: CueCells) -> None:
        """Take in the cells ``later`` saw in the records after this one's: cells and forms
        new here come after the known ones (first-occurrence order), number sets unite.
        :meth:`number_cells` only asks set questions, so set order never matters."""
        for key, forms in later.forms.items():
            cell = self.forms.get(key)
            if cell is None:
                self.forms[key] = forms
                continue
            for form, numbers in forms.items():
                mine = cell.get(form)
                if mine is None:
                    cell[form] = numbers
                else:
                    mine.update(numbers)

    def number_cells(self) -> frozenset[CellKey]:
        """Cells with at least two forms whose number readings differ."""
        out = set()
        for key, forms in self.forms.items():
            if len(forms) < 2:
                continue
            readings = {frozenset(numbers) for numbers in forms.values()}
            if len(readings) >= 2:
                out.add(key)
        return frozenset(out)


def shows_number(sentence: Sentence, root: Word, cells: frozenset[CellKey]) -> bool:
    """Does the main predicate's finite form sit in a cell whose forms show number?"""
    word = finite_predicate(sentence, root)
    return word is not None and cell_key(word) in cells


def cue_note(items: Mapping[str, Counter[bool]], labels: Iterable[str], dropped: bool) -> str:
    """The card note: per label, how many items' predicate shows the subject's number."""
    parts = []
    total = cued = 0
    for label in labels:
        counts = items.get(label, Counter())
        n = counts[True] + counts[False]
        total += n
        cued += counts[True]
        share = f"{counts[True] / n:.0%}" if n else "n/a"
        parts.append(f"{label} {counts[True]:,} of {n:,} ({share})")
    overall = f"{cued / total:.0%}" if total else "n/a"
    action = (
        "these items are dropped (agreement_cue = \"drop\"), so the label must be read from "
        "the subject itself"
        if dropped
        else "a bag of word vectors (the random baseline) reads the label off that one word, "
        "so it scores far above chance: an encoder is to be compared with the random "
        "baseline, not with chance, and only a gap above the test split's detectable "
        'difference tells them apart; agreement_cue = "drop" keeps only the items whose '
        "predicate shows no number"
    )
    return (
        f"agreement cue: {cued:,} of {total:,} candidate items ({overall}) have a main "
        f"predicate whose form shows number (a finite cell with forms of different Number in "
        f"this corpus, e.g. is/are): {', '.join(parts)}; {action}."
    )
