"""Cross-lingual word analogies from two languages' analogy sets (EMBEDDIA's culture-
independent sets, Ulčar et al. 2020, or any two sets whose categories share names): a : b
from the first language, c : d from the second, the same relation.

Two ways a category's questions are paired, decided per category:

* **line-aligned** (the two sets hold the category's questions in the same number, as a
  translated set does: question k of one is the translation of question k of the other):
  question k becomes ``a1 b1 c2 d2``, the first pair of the first language's question and the
  second pair of the second's, as Ulčar et al. build their cross-lingual questions - so the
  answer d2 is never the translation of a question word;
* otherwise, every (first-language pair, second-language pair) combination of the category's
  distinct pairs, seeded-sampled to ``max_questions``
  (:func:`polyprobe.builders.lexical.generate.cross_lingual`, also what UniMorph sets use).

A category only one set has is left out and named in the card's notes.
"""

from __future__ import annotations

from collections import defaultdict

from polyprobe.builders.lexical.generate import cross_lingual
from polyprobe.loaders.analogies import AnalogySet, Question


def cross_from_sets(
    first: AnalogySet,
    second: AnalogySet,
    *,
    name: str,
    languages: tuple[str, str],
    seed: int = 0,
    max_questions: int = 500,
) -> AnalogySet:
    """The cross-lingual set of ``first`` (word1, word2) and ``second`` (word3, word4)."""
    one: dict[str, list[Question]] = defaultdict(list)
    two: dict[str, list[Question]] = defaultdict(list)
    for q in first.questions:
        one[q.category].append(q)
    for q in second.questions:
        two[q.category].append(q)
    shared = [c for c in first.categories if c in two]
    combined = cross_lingual(
        AnalogySet(first.name, tuple(shared), first.semantic, first.questions),
        second,
        name=name,
        seed=seed,
        max_questions=max_questions,
    )[0]
    combos: dict[str, list[Question]] = defaultdict(list)
    for q in combined.questions:
        combos[q.category].append(q)
    questions: list[Question] = []
    how: list[str] = []
    for cat in shared:
        if len(one[cat]) == len(two[cat]):
            for k, (q1, q2) in enumerate(zip(one[cat], two[cat], strict=True)):
                words = (q1.words[0], q1.words[1], q2.words[2], q2.words[3])
                questions.append(Question(words, cat, q1.line, q1.path, f"{cat}/{k}"))
            how.append(f"Category {cat}: {len(one[cat])} line-aligned questions.")
        else:
            questions += combos[cat]
            how.append(
                f"Category {cat}: {len(one[cat])} and {len(two[cat])} questions (not "
                f"line-aligned): {len(combos[cat])} pair combinations (seed {seed})."
            )
    l1, l2 = languages
    only = sorted(set(first.categories) ^ set(second.categories))
    notes = (
        f"Cross-lingual analogies ({l1} → {l2}): word1 : word2 in {l1} ({first.name}), "
        f"word3 : word4 in {l2} ({second.name}); the answer word4 is searched among the "
        f"{l2} words of the set only.",
        *how,
        *([f"Categories in one set only, left out: {', '.join(only)}."] if only else []),
    )
    semantic = {c: first.semantic.get(c, second.semantic.get(c, True)) for c in shared}
    return AnalogySet(name, tuple(shared), semantic, tuple(questions), notes, (l1, l2))
