"""Regenerates polyprobe/data/UD_English-PolyprobeDemo/en_demo-ud-*.conllu from the hand-annotated sentences below.

Each sentence: id, then tokens as ``form lemma UPOS HEAD DEPREL [FEATS]``; a form ending in
``~`` has SpaceAfter=No. Annotation follows the UD English guidelines (as in EWT)."""

from __future__ import annotations

import sys
from pathlib import Path

N_S = "Number=Sing"
N_P = "Number=Plur"
DEF = "Definite=Def|PronType=Art"
IND = "Definite=Ind|PronType=Art"
V3S = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
VPR = "Mood=Ind|Tense=Pres|VerbForm=Fin"
VPA = "Mood=Ind|Tense=Past|VerbForm=Fin"
PART = "Tense=Past|VerbForm=Part"
PASS = "Tense=Past|VerbForm=Part|Voice=Pass"
ING = "VerbForm=Ger"
INF = "VerbForm=Inf"

SENTENCES: dict[str, list[tuple[str, list[str]]]] = {
    "train": [
        (
            "demo-train-01",
            [
                "The the DET 2 det " + DEF,
                "dog dog NOUN 3 nsubj " + N_S,
                "sleeps sleep VERB 0 root " + V3S,
                "on on ADP 6 case",
                "the the DET 6 det " + DEF,
                "porch~ porch NOUN 3 obl " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-02",
            [
                "The the DET 2 det " + DEF,
                "children child NOUN 3 nsubj " + N_P,
                "played play VERB 0 root " + VPA,
                "in in ADP 6 case",
                "the the DET 6 det " + DEF,
                "park~ park NOUN 3 obl " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-03",
            [
                "She she PRON 2 nsubj Case=Nom|Gender=Fem|Number=Sing|Person=3|PronType=Prs",
                "reads read VERB 0 root " + V3S,
                "old old ADJ 4 amod Degree=Pos",
                "books~ book NOUN 2 obj " + N_P,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-04",
            [
                "Cats cat NOUN 4 nsubj " + N_P,
                "and and CCONJ 3 cc",
                "dogs dog NOUN 1 conj " + N_P,
                "fight fight VERB 0 root " + VPR,
                "sometimes~ sometimes ADV 4 advmod",
                ". . PUNCT 4 punct",
            ],
        ),
        (
            "demo-train-05",
            [
                "A a DET 2 det " + IND,
                "letter letter NOUN 4 nsubj:pass " + N_S,
                "was be AUX 4 aux:pass Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin",
                "sent send VERB 0 root " + PASS,
                "to to ADP 7 case",
                "the the DET 7 det " + DEF,
                "mayor~ mayor NOUN 4 obl " + N_S,
                ". . PUNCT 4 punct",
            ],
        ),
        (
            "demo-train-06",
            [
                "Farmers farmer NOUN 2 nsubj " + N_P,
                "grow grow VERB 0 root " + VPR,
                "wheat wheat NOUN 2 obj " + N_S,
                "near near ADP 6 case",
                "the the DET 6 det " + DEF,
                "river~ river NOUN 2 obl " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-07",
            [
                "The the DET 2 det " + DEF,
                "teacher teacher NOUN 3 nsubj " + N_S,
                "explained explain VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "rule~ rule NOUN 3 obj " + N_S,
                ", , PUNCT 8 punct",
                "and and CCONJ 8 cc",
                "everyone everyone PRON 9 nsubj " + N_S + "|PronType=Tot",
                "understood~ understand VERB 3 conj " + VPA,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-08",
            [
                "Birds bird NOUN 2 nsubj " + N_P,
                "sing sing VERB 0 root " + VPR,
                "early early ADV 2 advmod Degree=Pos",
                "in in ADP 6 case",
                "the the DET 6 det " + DEF,
                "morning~ morning NOUN 2 obl " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-09",
            [
                "My my PRON 2 nmod:poss Case=Gen|Number=Sing|Person=1|Poss=Yes|PronType=Prs",
                "brother brother NOUN 3 nsubj " + N_S,
                "fixed fix VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "bike bike NOUN 3 obj " + N_S,
                "yesterday~ yesterday NOUN 3 obl:tmod " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-10",
            [
                "Prices price NOUN 2 nsubj " + N_P,
                "rose rise VERB 0 root " + VPA,
                "again~ again ADV 2 advmod",
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-11",
            [
                "The the DET 2 det " + DEF,
                "museum museum NOUN 3 nsubj " + N_S,
                "opens open VERB 0 root " + V3S,
                "at at ADP 5 case",
                "noon~ noon NOUN 3 obl " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-12",
            [
                "Students student NOUN 2 nsubj " + N_P,
                "visited visit VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "old old ADJ 5 amod Degree=Pos",
                "castle castle NOUN 2 obj " + N_S,
                "last last ADJ 7 amod Degree=Pos",
                "week~ week NOUN 2 obl:tmod " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-13",
            [
                "Why why ADV 3 advmod PronType=Int",
                "do do AUX 3 aux " + VPR,
                "clouds cloud NOUN 4 nsubj " + N_P,
                "move~ move VERB 0 root " + INF,
                "? ? PUNCT 4 punct",
            ],
        ),
        (
            "demo-train-14",
            [
                "The the DET 2 det " + DEF,
                "baker baker NOUN 3 nsubj " + N_S,
                "makes make VERB 0 root " + V3S,
                "fresh fresh ADJ 5 amod Degree=Pos",
                "bread bread NOUN 3 obj " + N_S,
                "every every DET 7 det PronType=Tot",
                "day~ day NOUN 3 obl:tmod " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-15",
            [
                "We we PRON 2 nsubj Case=Nom|Number=Plur|Person=1|PronType=Prs",
                "walked walk VERB 0 root " + VPA,
                "home~ home ADV 2 advmod",
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-16",
            [
                "Engineers engineer NOUN 2 nsubj " + N_P,
                "designed design VERB 0 root " + VPA,
                "a a DET 5 det " + IND,
                "new new ADJ 5 amod Degree=Pos",
                "bridge bridge NOUN 2 obj " + N_S,
                "over over ADP 8 case",
                "the the DET 8 det " + DEF,
                "valley~ valley NOUN 5 nmod " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-17",
            [
                "The the DET 2 det " + DEF,
                "storm storm NOUN 3 nsubj " + N_S,
                "damaged damage VERB 0 root " + VPA,
                "several several ADJ 5 amod Degree=Pos",
                "houses~ house NOUN 3 obj " + N_P,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-18",
            [
                "Nurses nurse NOUN 2 nsubj " + N_P,
                "work work VERB 0 root " + VPR,
                "long long ADJ 4 amod Degree=Pos",
                "shifts~ shift NOUN 2 obl:npmod " + N_P,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-19",
            [
                '"~ " PUNCT 2 punct',
                "Stop~ stop VERB 7 ccomp Mood=Imp|VerbForm=Fin",
                ",~ , PUNCT 2 punct",
                '" " PUNCT 2 punct',
                "the the DET 6 det " + DEF,
                "guard guard NOUN 7 nsubj " + N_S,
                "shouted~ shout VERB 0 root " + VPA,
                ". . PUNCT 7 punct",
            ],
        ),
        (
            "demo-train-20",
            [
                "The the DET 2 det " + DEF,
                "trains train NOUN 4 nsubj " + N_P,
                "were be AUX 4 aux Mood=Ind|Number=Plur|Person=3|Tense=Past|VerbForm=Fin",
                "running run VERB 0 root Tense=Pres|VerbForm=Part",
                "late~ late ADV 4 advmod Degree=Pos",
                ". . PUNCT 4 punct",
            ],
        ),
        (
            "demo-train-21",
            [
                "A a DET 2 det " + IND,
                "girl girl NOUN 3 nsubj " + N_S,
                "painted paint VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "fence~ fence NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-22",
            [
                "Tourists tourist NOUN 2 nsubj " + N_P,
                "love love VERB 0 root " + VPR,
                "this this DET 4 det Number=Sing|PronType=Dem",
                "beach~ beach NOUN 2 obj " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-23",
            [
                "The the DET 2 det " + DEF,
                "cook cook NOUN 3 nsubj " + N_S,
                "tasted taste VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "soup soup NOUN 3 obj " + N_S,
                "and and CCONJ 7 cc",
                "added add VERB 3 conj " + VPA,
                "salt~ salt NOUN 7 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-24",
            [
                "Leaves leaf NOUN 2 nsubj " + N_P,
                "fall fall VERB 0 root " + VPR,
                "in in ADP 4 case",
                "autumn~ autumn NOUN 2 obl " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-25",
            [
                "Paris Paris PROPN 2 nsubj " + N_S,
                "attracts attract VERB 0 root " + V3S,
                "many many ADJ 4 amod Degree=Pos",
                "visitors~ visitor NOUN 2 obj " + N_P,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-26",
            [
                "The the DET 2 det " + DEF,
                "pilot pilot NOUN 3 nsubj " + N_S,
                "landed land VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "plane plane NOUN 3 obj " + N_S,
                "safely~ safely ADV 3 advmod",
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-27",
            [
                "Volunteers volunteer NOUN 2 nsubj " + N_P,
                "cleaned clean VERB 0 root " + VPA,
                "the the DET 4 det " + DEF,
                "streets~ street NOUN 2 obj " + N_P,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-28",
            [
                "The the DET 2 det " + DEF,
                "clock clock NOUN 3 nsubj " + N_S,
                "stopped stop VERB 0 root " + VPA,
                "at at ADP 5 case",
                "midnight~ midnight NOUN 3 obl " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-train-29",
            [
                "Doctors doctor NOUN 2 nsubj " + N_P,
                "recommend recommend VERB 0 root " + VPR,
                "regular regular ADJ 4 amod Degree=Pos",
                "exercise~ exercise NOUN 2 obj " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-train-30",
            [
                "The the DET 2 det " + DEF,
                "river river NOUN 3 nsubj " + N_S,
                "flooded flood VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "fields~ field NOUN 3 obj " + N_P,
                ". . PUNCT 3 punct",
            ],
        ),
    ],
    "dev": [
        (
            "demo-dev-01",
            [
                "The the DET 2 det " + DEF,
                "artist artist NOUN 3 nsubj " + N_S,
                "sketched sketch VERB 0 root " + VPA,
                "a a DET 5 det " + IND,
                "portrait~ portrait NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-dev-02",
            [
                "Workers worker NOUN 2 nsubj " + N_P,
                "built build VERB 0 root " + VPA,
                "the the DET 4 det " + DEF,
                "tower~ tower NOUN 2 obj " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-dev-03",
            [
                "They they PRON 2 nsubj Case=Nom|Number=Plur|Person=3|PronType=Prs",
                "laughed~ laugh VERB 0 root " + VPA,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-dev-04",
            [
                "The the DET 2 det " + DEF,
                "singer singer NOUN 3 nsubj " + N_S,
                "thanked thank VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "audience~ audience NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-dev-05",
            [
                "Horses horse NOUN 2 nsubj " + N_P,
                "graze graze VERB 0 root " + VPR,
                "on on ADP 5 case",
                "the the DET 5 det " + DEF,
                "hill~ hill NOUN 2 obl " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-dev-06",
            [
                "The the DET 2 det " + DEF,
                "judge judge NOUN 3 nsubj " + N_S,
                "dismissed dismiss VERB 0 root " + VPA,
                "the the DET 5 det " + DEF,
                "case~ case NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-dev-07",
            [
                "Sailors sailor NOUN 2 nsubj " + N_P,
                "repaired repair VERB 0 root " + VPA,
                "the the DET 4 det " + DEF,
                "sails~ sail NOUN 2 obj " + N_P,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-dev-08",
            [
                "Rain rain NOUN 4 nsubj " + N_S,
                "and and CCONJ 3 cc",
                "wind wind NOUN 1 conj " + N_S,
                "delayed delay VERB 0 root " + VPA,
                "the the DET 6 det " + DEF,
                "match~ match NOUN 4 obj " + N_S,
                ". . PUNCT 4 punct",
            ],
        ),
    ],
    "test": [
        (
            "demo-test-01",
            [
                "The the DET 2 det " + DEF,
                "gardener gardener NOUN 3 nsubj " + N_S,
                "planted plant VERB 0 root " + VPA,
                "roses~ rose NOUN 3 obj " + N_P,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-test-02",
            [
                "Miners miner NOUN 2 nsubj " + N_P,
                "found find VERB 0 root " + VPA,
                "gold~ gold NOUN 2 obj " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-test-03",
            [
                "He he PRON 2 nsubj Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs",
                "waited wait VERB 0 root " + VPA,
                "outside~ outside ADV 2 advmod",
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-test-04",
            [
                "The the DET 2 det " + DEF,
                "kitten kitten NOUN 3 nsubj " + N_S,
                "chased chase VERB 0 root " + VPA,
                "a a DET 5 det " + IND,
                "ball~ ball NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-test-05",
            [
                "Scientists scientist NOUN 2 nsubj " + N_P,
                "measured measure VERB 0 root " + VPA,
                "the the DET 4 det " + DEF,
                "temperature~ temperature NOUN 2 obj " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-test-06",
            [
                "The the DET 2 det " + DEF,
                "poet poet NOUN 3 nsubj " + N_S,
                "wrote write VERB 0 root " + VPA,
                "a a DET 6 det " + IND,
                "short short ADJ 6 amod Degree=Pos",
                "poem~ poem NOUN 3 obj " + N_S,
                ". . PUNCT 3 punct",
            ],
        ),
        (
            "demo-test-07",
            [
                "Wolves wolf NOUN 2 nsubj " + N_P,
                "howled howl VERB 0 root " + VPA,
                "at at ADP 5 case",
                "the the DET 5 det " + DEF,
                "moon~ moon NOUN 2 obl " + N_S,
                ". . PUNCT 2 punct",
            ],
        ),
        (
            "demo-test-08",
            [
                "The the DET 2 det " + DEF,
                "bus bus NOUN 3 nsubj " + N_S,
                "arrived~ arrive VERB 0 root " + VPA,
                ". . PUNCT 3 punct",
            ],
        ),
    ],
}


def _sentence_lines(sent_id: str, specs: list[str]) -> list[str]:
    rows = []
    text = ""
    for i, spec in enumerate(specs, start=1):
        parts = spec.split(" ")
        form, lemma, upos, head, deprel = parts[:5]
        feats = parts[5] if len(parts) > 5 else "_"
        no_space = form.endswith("~") and len(form) > 1
        if no_space:
            form = form[:-1]
        misc = "SpaceAfter=No" if no_space or i == len(specs) else "_"
        if i == len(specs):
            misc = "_"
        rows.append("\t".join([str(i), form, lemma, upos, "_", feats, head, deprel, "_", misc]))
        text += form + ("" if no_space or i == len(specs) else " ")
    return [f"# sent_id = {sent_id}", f"# text = {text}", *rows, ""]


def main(out_dir: str) -> None:
    for split, sentences in SENTENCES.items():
        lines = ["# newdoc id = demo-" + split]
        for sent_id, specs in sentences:
            lines.extend(_sentence_lines(sent_id, specs))
        Path(out_dir, f"en_demo-ud-{split}.conllu").write_text("\n".join(lines) + "\n", "utf-8")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "polyprobe/data/UD_English-PolyprobeDemo")
