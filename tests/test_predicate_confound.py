"""Label vs predicate type in the confound audit (issue 14, point 8).

Armenian ``tense`` (the issue's finding): 83% of Present rows copular, 0% of Past rows, so a
probe can learn "copula" for "present". The audit flags a class that is >= 80% one predicate
type while another class is not. Predicate types of EWT items, hand-checked:
reviews-305187-0005 "Wine was excellent." copular (excellent <-cop- was);
email-enronsent00_01-0040 "Your buddy Beau invited me." verbal; reviews-338429-0020 "Bugs were
a small problem, nothing too bad." copular (problem <-cop- were)."""

from __future__ import annotations

from pathlib import Path

from polyprobe.builders.confounds import audit_note, predicate_audit
from polyprobe.builders.sentence.predicates import predicate_type
from polyprobe.loaders.sources import discover, read_sources


def test_copular_present_is_flagged() -> None:
    counts = {"Pres": {"copular": 83, "verbal": 17}, "Past": {"verbal": 100}}
    result = predicate_audit(counts, ("Past", "Pres"))
    assert result["flags"] == [
        "predicate type: 100% of Past rows have predicate type 'verbal' (vs Pres 17%)",
        "predicate type: 83% of Pres rows have predicate type 'copular' (vs Past 0%)",
    ]
    note = audit_note(
        {"rows": 200, "length": {}, "flags": result["flags"], "rule": "", "predicate_type": result}
    )
    assert "Pres copular 83%, verbal 17%" in note and "FLAGGED" in note


def test_balanced_types_are_not_flagged() -> None:
    counts = {"Sing": {"verbal": 60, "copular": 40}, "Plur": {"verbal": 55, "copular": 45}}
    assert predicate_audit(counts, ("Sing", "Plur"))["flags"] == []


def test_predicate_types_of_ewt_items(ud_dir: Path) -> None:
    want = {
        "reviews-305187-0005": "copular",
        "email-enronsent00_01-0040": "synthetic verbal",  # issue 37: verbal split in two
        "reviews-338429-0020": "copular",
    }
    source = discover([ud_dir / "UD_English-EWT"])
    found = {s.sent_id: predicate_type(s, s.root) for s in read_sources(source) if s.sent_id in want}
    assert found == want
