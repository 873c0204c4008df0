"""The one sentence renderer and the perturbation primitives every task uses.

Why one renderer: a probe sees strings. If an original sentence were rendered from ``# text``
and its perturbed copy from tokens, the two classes would differ in whitespace before they
differ in anything else. So every sentence, original or perturbed, goes through :func:`render`
from its surface tokens, and perturbations are defined on surface tokens with rules chosen so
that the only surface difference between an original and its perturbed copy is the property a
task probes.

Rules (see :func:`permute` for the precise statement):

* a multiword token (Spanish *del*, English *don't*) is one unit: it moves whole;
* ``PUNCT`` tokens never move;
* spacing is positional: the whitespace skeleton of the sentence is unchanged;
* a capital that a word owes to its position (sentence start) stays with the position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polyprobe.builders.task import TaskContext
from polyprobe.hashing import normalise_text, stable_u64
from polyprobe.loaders.records import Sentence, SurfaceToken

# Punctuation forms after which the next word is capitalised because a new (quoted or run-on)
# sentence starts. Only tokens whose UPOS is PUNCT and whose form consists of these characters.
_TERMINAL_CHARS = frozenset(".!?…։።။。！？؟۔।॥")

# Languages whose dotted/dotless i follow the Turkic special casing (Unicode SpecialCasing.txt,
# conditional on the tr/az locale): i <-> İ, ı <-> I.
_TURKIC = frozenset({"tr", "tur", "az", "aze", "azb", "crh", "tt", "tat", "kk", "kaz", "ba", "bak"})

# Words whose capital is lexical although their UPOS is not PROPN (English "I": lowercasing it
# when it leaves the sentence start would create "i", a form no original contains — a surface
# cue for the perturbed class). Derived from the data by the build (forms capitalised in
# almost every non-initial occurrence, see ``builders.profile.derive_capitalisation``) and passed
# as ``TaskContext.keep_case_forms``; a profile may override the list.


def render(tokens: Sequence[SurfaceToken]) -> str:
    """Join surface forms, a single space after each token unless ``SpaceAfter=No``.

    No trailing space, and runs of whitespace in the source text (double spaces, the NBSP that
    EWT records as ``SpacesAfter=\\u00A0``) are rendered as one ordinary space on purpose:
    extra whitespace is an accident of the source, and a perturbation moving it around would
    be a cue. ``# text`` is reproduced exactly wherever the treebank uses single spaces (see
    tests/test_rendering.py for the measured rates).
    """
    n = len(tokens)
    if not n:
        return ""
    # One list comprehension and one join; the last token never gets a space.
    body = [t.form + " " if t.space_after else t.form for t in tokens[: n - 1]]
    body.append(tokens[n - 1].form)
    return "".join(body)


def sentence_inputs(sentence: Sentence) -> dict[str, Any]:
    """The input columns of the unperturbed sentence: ``sentence`` (its rendering) and
    ``tokens`` (its surface forms). Computed once per sentence and shared by every task that
    emits it; callers must not mutate the returned list."""
    memo = sentence._rendered
    if memo is None:
        tokens = sentence.surface_tokens()
        memo = sentence._rendered = (render(tokens), [t.form for t in tokens])
    return {"sentence": memo[0], "tokens": memo[1]}


def text_hash(sentence: Sentence) -> int:
    """``stable_u64("text", normalise_text(text))``: the duplicate-text identity of a sentence
    (its ``# text``, or its rendering when it has none). Sentences with the same identity
    share a group, so they never straddle splits. The build and the tasks that estimate
    duplicate-aware split sizes ask for it through :class:`~polyprobe.builders.task.Shared`, so
    it is computed once per sentence."""
    text = sentence.text if sentence.text is not None else render(sentence.surface_tokens())
    return stable_u64("text", normalise_text(text))


# --- casing -------------------------------------------------------------------------------


def casefold_first(form: str, lang: str = "und") -> str:
    """Lowercase only the first character (``Der`` -> ``der``, ``McCain`` stays ``mcCain``).

    ``str.lower`` rather than ``str.casefold`` on that character: casefolding is for
    comparison and would rewrite letters (``ß`` -> ``ss``). Turkic languages map ``I`` to
    ``ı``; everywhere ``İ`` maps to ``i`` (Python's default gives ``i`` + U+0307, a string no
    text contains).
    """
    if not form:
        return form
    first = form[0]
    if first == "İ":
        low = "i"
    elif first == "I" and lang in _TURKIC:
        low = "ı"
    else:
        low = first.lower()
    return low + form[1:]


def capitalise_first(form: str, lang: str = "und") -> str:
    """Capitalise only the first character, with the titlecase mapping.

    Titlecase, not uppercase: it is what a sentence start uses (``ǆ`` -> ``ǅ``), and it leaves
    Georgian Mkhedruli alone (its uppercase is Mtavruli, which running text never uses at a
    sentence start, so uppercasing would mark every perturbed Georgian sentence). Turkic ``i``
    becomes ``İ``; Dutch ``ij`` becomes ``IJ``.
    """
    if not form:
        return form
    first = form[0]
    if lang in _TURKIC and first == "i":
        return "İ" + form[1:]
    if lang in {"nl", "nld"} and form[:2] == "ij":
        return "IJ" + form[2:]
    title = first.title()
    if len(title) != 1:  # e.g. "ß".title() == "Ss": no single-character capital, leave it
        return form
    return title + form[1:]


def starts_upper(form: str) -> bool:
    """True when the first character is a capital (upper- or titlecase letter)."""
    return bool(form) and (form[0].isupper() or form[0].istitle())


def _all_caps(form: str) -> bool:
    # Shortcut for most forms, exact: if ``form`` is ASCII or all letters, ``not
    # form.isupper()`` means it has no letter or a letter that is not upper, so the answer
    # is False. (Not exact in general: a lowercase non-letter such as U+2170 also makes
    # ``isupper`` False.)
    if not form.isupper() and (form.isascii() or form.isalpha()):
        return False
    letters = [c for c in form if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def keep_case_forms(params: TaskContext) -> frozenset[str]:
    """Forms whose capital is lexical whatever their UPOS (derived from the data by the build
    or set by a profile's ``[language]``)."""
    return params.keep_case_forms


def lexical_case(
    tokens: Sequence[SurfaceToken],
    params: TaskContext,
    sentence: Sentence | None = None,
) -> list[bool]:
    """Per token: is its initial case lexical (kept wherever it stands) rather than positional?

    Lexical: the token's first syntactic word is PROPN (or NOUN when ``params.capitalises_nouns``);
    the form is written in capitals throughout (``NATO``, ``EUROOPAN``); or it is a keep-case form
    (English ``I``). For a multiword token the first word decides (Turkish ``Ankara'dayım`` is
    PROPN + AUX), which needs ``sentence``; without it a multiword token counts as positional.
    """
    keep = keep_case_forms(params)  # once per sentence, not once per token
    nouns = params.capitalises_nouns
    return [_lexical(tok, keep, nouns, sentence) for tok in tokens]


def _is_lexical(tok: SurfaceToken, params: TaskContext, sentence: Sentence | None) -> bool:
    return _lexical(tok, keep_case_forms(params), params.capitalises_nouns, sentence)


def _lexical(
    tok: SurfaceToken, keep: frozenset[str], nouns: bool, sentence: Sentence | None
) -> bool:
    upos = tok.upos
    if upos == "MWT" and sentence is not None:
        upos = sentence.words[tok.word_ids[0] - 1].upos
    if upos == "PROPN" or (nouns and upos == "NOUN"):
        return True
    return tok.form in keep or _all_caps(tok.form)


def capital_slots(tokens: Sequence[SurfaceToken]) -> list[int]:
    """Positions whose capital is positional: the first non-PUNCT token of the sentence and the
    first non-PUNCT token after a sentence-final mark inside it (``... ended. Then ...``)."""
    slots: list[int] = []
    expect = True
    terminal = _TERMINAL_CHARS.issuperset  # C-level "every character is terminal"
    for i, tok in enumerate(tokens):
        if tok.upos == "PUNCT":
            if not expect and tok.form and terminal(tok.form):
                expect = True
        elif expect:
            slots.append(i)
            expect = False
    return slots


# --- permutation --------------------------------------------------------------------------


def permute(
    tokens: Sequence[SurfaceToken],
    new_order: Sequence[int],
    params: TaskContext,
    sentence: Sentence | None = None,
) -> list[SurfaceToken]:
    """Reorder surface tokens: output position ``i`` holds input token ``new_order[i]``.

    Units: each surface token is one unit (a multiword token moves whole). ``PUNCT`` tokens
    must stay where they are (``new_order[i] == i``); anything else is a ``ValueError``.

    **Spacing is positional.** Output position ``i`` gets input position ``i``'s
    ``space_after``, so the sentence keeps exactly its whitespace skeleton and a probe cannot
    tell an original from a perturbed copy by where the spaces are. "A token glued to
    punctuation keeps its own" then holds by construction and means: the gap on either side of
    a punctuation mark is that mark's attachment; marks never move, so the attachment stays
    with the mark, and whichever word lands next to it is glued to it exactly as the word that
    stood there before (``(word)`` -> ``(other)``, ``word,`` -> ``other,``). The word that
    left does *not* take its glue along: carrying a word's own ``SpaceAfter=No`` to its new
    position would produce ``word,`` -> ``word other ,`` or ``wordother``, which no original
    sentence contains. Gaps between two words are positional too: the rare glued word pairs
    (``$|20``, ``3|%``, ``km|²``; 0.7% of word-word gaps in EWT, 0.6% in en-PUD, at most
    0.2% in the other shared treebanks) stay glued, so ``$20`` swapped renders ``20$``.

    **Capitals follow positions.** At every capital slot (see :func:`capital_slots`) whose
    occupant changes: if the original occupant started with a capital, the new occupant is
    capitalised (first character only, :func:`capitalise_first`); the original occupant, now
    elsewhere, is lowercased (:func:`casefold_first`) unless its case is lexical (see
    :func:`lexical_case`: PROPN, NOUN in noun-capitalising languages, all-caps words, English
    ``I``), and a new occupant with lexical case is left as written. If the original occupant
    did not start with a capital (a digit, a lowercase start, a caseless script), nothing
    changes. Result: a perturbed copy has a capital exactly where its original has one, and no
    word with a positional capital appears mid-sentence.
    """
    n = len(tokens)
    if sorted(new_order) != list(range(n)):
        raise ValueError(f"new_order is not a permutation of range({n}): {list(new_order)}")
    for i, j in enumerate(new_order):
        if i != j and (tokens[i].upos == "PUNCT" or tokens[j].upos == "PUNCT"):
            raise ValueError(f"PUNCT tokens may not move (position {i} <- {j})")

    slots = set(capital_slots(tokens))
    lang = params.lang
    keep = keep_case_forms(params)
    nouns = params.capitalises_nouns
    out: list[SurfaceToken] = []
    for i, j in enumerate(new_order):
        src = tokens[j]
        form = src.form
        if i != j and (j in slots or i in slots) and not _lexical(src, keep, nouns, sentence):
            if j in slots and starts_upper(form):
                form = casefold_first(form, lang)
            if i in slots and starts_upper(tokens[i].form):
                form = capitalise_first(form, lang)
        out.append(SurfaceToken(form, src.word_ids, tokens[i].space_after, src.upos))
    return out


def swap_adjacent(
    tokens: Sequence[SurfaceToken],
    i: int,
    params: TaskContext,
    sentence: Sentence | None = None,
) -> list[SurfaceToken]:
    """Swap tokens ``i`` and ``i + 1`` under the rules of :func:`permute`."""
    n = len(tokens)
    if not 0 <= i < n - 1:  # odd positions: let permute report them as it always has
        order = list(range(n))
        order[i], order[i + 1] = order[i + 1], order[i]
        return permute(tokens, order, params, sentence)
    # What permute does with this order, without its O(n log n) permutation check and
    # without rebuilding the tokens that stay where they are: only positions i and i + 1 can
    # differ, and whether they are capital slots depends only on the tokens up to i + 1.
    # Unchanged positions are the input's own token objects (nothing mutates a SurfaceToken).
    j = i + 1
    a = tokens[i]
    b = tokens[j]
    if a.upos == "PUNCT" or b.upos == "PUNCT":
        raise ValueError(f"PUNCT tokens may not move (position {i} <- {j})")
    out = list(tokens)
    slots = capital_slots(tokens[: j + 1])
    if i in slots or j in slots:
        lang = params.lang
        keep = keep_case_forms(params)
        nouns = params.capitalises_nouns
        for pos, src_pos in ((i, j), (j, i)):  # output position <- input position
            src = tokens[src_pos]
            form = src.form
            if not _lexical(src, keep, nouns, sentence):
                if src_pos in slots and starts_upper(form):
                    form = casefold_first(form, lang)
                if pos in slots and starts_upper(tokens[pos].form):
                    form = capitalise_first(form, lang)
            out[pos] = SurfaceToken(form, src.word_ids, tokens[pos].space_after, src.upos)
    else:
        out[i] = SurfaceToken(b.form, b.word_ids, a.space_after, b.upos)
        out[j] = SurfaceToken(a.form, a.word_ids, b.space_after, a.upos)
    return out


def movable(tokens: Sequence[SurfaceToken]) -> list[int]:
    """Positions of tokens a perturbation may move (every non-PUNCT surface token)."""
    return [i for i, tok in enumerate(tokens) if tok.upos != "PUNCT"]
