"""Periphrastic tenses (issue 14, point 7): ``tense_periphrastic`` (``tense`` with the option
``periphrastic = "auxiliary"``) keeps the predicates the strict recipe drops and labels them by
the Tense UD writes on the finite auxiliary. Items hand-checked in EWT:

- reviews-079827-0005 "It clearly had been prepared from fresh ingredients." had (Past) +
  been + prepared: Past; the strict recipe drops it.
- email-enronsent35_01-0037 "The call was cancelled." was (Past) + cancelled: Past.
- reviews-138249-0003 "I have never been disappointed." have (Pres) + been + disappointed:
  Pres (the present perfect, as English annotates its auxiliary).
- email-enronsent23_04-0021 "enron is blowing up." is (Pres) + blowing: Pres.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polyprobe.builders.families.ud import UD
from polyprobe.builders.sentence.tense import Tense, TenseFit, TensePeriphrastic
from polyprobe.builders.task import Shared, TaskContext
from polyprobe.errors import UsageError
from polyprobe.loaders.sources import discover, read_sources

PERIPHRASTIC = {
    "reviews-079827-0005": "Past",
    "email-enronsent35_01-0037": "Past",
    "reviews-138249-0003": "Pres",
    "email-enronsent23_04-0021": "Pres",
}


@pytest.fixture(scope="module")
def ewt(ud_dir: Path):
    sentences = list(read_sources(discover([ud_dir / "UD_English-EWT"])))
    strict = Tense.configure({}, TaskContext(lang="en"))
    wide = TensePeriphrastic.configure({}, TaskContext(lang="en"))
    fits = []
    for task in (strict, wide):
        observation = task.observation()
        for s in sentences:
            observation.observe(s, Shared(s))
        fits.append(task.fit(observation))
    return {s.sent_id: s for s in sentences}, strict, wide, fits


def test_periphrastic_predicates_are_labelled_by_the_finite_auxiliary(ewt) -> None:
    sentences, strict, wide, (strict_fit, wide_fit) = ewt
    assert isinstance(wide_fit, TenseFit)
    assert {"Past", "Pres"} <= wide_fit.synthetic_tenses  # English has one-word pasts
    assert not wide_fit.participle_tenses  # no participle is a finite tense in English
    for sid, label in PERIPHRASTIC.items():
        s = sentences[sid]
        assert strict.candidates(s, strict_fit, Shared(s)) == [], sid
        (cand,) = wide.candidates(s, wide_fit, Shared(s))
        assert cand.label == label, sid
    assert strict.drops["periphrastic: participle root with aux/cop"] == 4


def test_the_strict_task_is_the_default_and_the_option_is_checked() -> None:
    default = UD.tasks.resolve(None)
    assert "tense" in default and "tense_periphrastic" not in default
    assert UD.tasks.get("tense_periphrastic") is TensePeriphrastic
    assert Tense.Options().periphrastic == "drop"
    assert TensePeriphrastic.Options().periphrastic == "auxiliary"
    assert any(n.startswith("Recommended config: `tense`") for n in TensePeriphrastic.metadata.notes)
    with pytest.raises(UsageError, match="periphrastic must be one of drop, auxiliary"):
        Tense.configure({"periphrastic": "yes"}, TaskContext(lang="en"))
