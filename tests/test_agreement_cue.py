"""The agreement cue of ``subject_number`` (issue 14, acceptance: MiniLM vs ``random``).

Why ``random`` (a mean of random word vectors) scored 0.70 on EWT's recommended config: in
70% of the items the main predicate's form already shows the subject's number (*were*,
*provide* vs *provides*), so one frequent word carries the label. The cells whose forms show
number are derived from the treebank; the card counts the items and ``agreement_cue =
"drop"`` keeps only the others. Items hand-checked in EWT:

- reviews-338429-0020 "Bugs were a small problem, nothing too bad." Plur; *were* shares the
  (be, Past, Ind) cell with *was* (Number=Sing): shows number.
- email-enronsent00_01-0005 "The above services provide no value to me personally." Plur;
  (provide, Pres, Ind) has *provides* (Number=Sing): shows number.
- answers-20111108101827AALT6Zq_ans-0006 "The pass mark could change." Sing; *could* has one
  form: no cue.
- email-enronsent00_01-0040 "Your buddy Beau invited me." Sing; *invited* (past): no cue.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.builders.sentence.agreement_cue import shows_number
from polyprobe.builders.sentence.subject_number import SubjectNumber, SubjectNumberFit
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.errors import UsageError
from polyprobe.loaders.sources import discover, read_sources

CUED = {
    "reviews-338429-0020": "Plur",
    "email-enronsent00_01-0005": "Plur",
}
UNCUED = {
    "answers-20111108101827AALT6Zq_ans-0006": "Sing",
    "email-enronsent00_01-0040": "Sing",
}


@pytest.fixture(scope="module")
def ewt(ud_dir: Path):
    sentences = list(read_sources(discover([ud_dir / "UD_English-EWT"])))
    keep = SubjectNumber.configure({}, TaskContext(lang="en"))
    drop = SubjectNumber.configure({"agreement_cue": "drop"}, TaskContext(lang="en"))
    observation = keep.observation()
    for s in sentences:
        observation.observe(s, Shared(s))
    fit = keep.fit(observation)
    assert isinstance(fit, SubjectNumberFit)
    return {s.sent_id: s for s in sentences}, keep, drop, fit


def test_cells_that_show_number_are_derived(ewt) -> None:
    sentences, keep, drop, fit = ewt
    assert ("be", "Past", "Ind") in fit.number_cells  # was / were
    assert ("be", "Pres", "Ind") in fit.number_cells  # is / are / am
    assert ("go", "Past", "Ind") not in fit.number_cells  # went only
    for sid, label in {**CUED, **UNCUED}.items():
        s = sentences[sid]
        assert shows_number(s, s.root, fit.number_cells) == (sid in CUED), sid
        (cand,) = keep.candidates(s, fit, Shared(s))
        assert cand.label == label
        # "drop" keeps exactly the uncued items
        assert bool(drop.candidates(s, fit, Shared(s))) == (sid in UNCUED), sid


def test_card_note_counts_the_cue_per_label(ewt) -> None:
    _, _, _, fit = ewt
    items = fit.report["agreement_cue_items"]
    plur, sing = items["Plur"], items["Sing"]
    assert plur["shows_number"] + plur["no_cue"] == 882  # every plural item of EWT
    assert sing["shows_number"] + sing["no_cue"] == 1961
    (note,) = fit.notes
    assert note.startswith("agreement cue: 1,991 of 2,843 candidate items (70%)")
    assert "compared with the random baseline, not with chance" in note


def test_bad_option_value_is_refused() -> None:
    with pytest.raises(UsageError, match="agreement_cue must be one of keep, drop, not 'no'"):
        SubjectNumber.configure({"agreement_cue": "no"}, TaskContext(lang="en"))
