"""The card's description of a blank spaCy tokenizer, found without importing spaCy, is the
one loading the tokenizer gives (``Segmenter._blank_language``): for languages spaCy has
(English, Bulgarian, Faroese) and ones it lacks (Zulu, Georgian: ``xx`` with the script
suffix rules)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from polyprobe.loaders.segmentation import Segmenter


@pytest.mark.parametrize("lang", ["en", "bg", "fo", "zu", "ka"])
def test_description_without_spacy_equals_the_loaded_one(lang: str) -> None:
    unloaded = Segmenter(lang).describe()
    loaded = Segmenter(lang)
    loaded._spacy()
    assert unloaded == loaded.describe()


def test_describing_does_not_import_spacy() -> None:
    code = (
        "import sys; from polyprobe.loaders.segmentation import Segmenter; "
        "d = Segmenter('zu').describe(); "
        "print(d['tokens']['spacy_lang'], 'spacy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["xx", "False"]
