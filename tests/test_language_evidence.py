"""Language evidence from a treebank's content (issue 36 item 5): a UD file named ``en_...``
with German sentences appended is refused like a declared mismatch, ``--allow-language-
mismatch`` records it in the card, a file in another script is refused, and no shared
treebank is refused with its own language (the check must never cost a real build)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from polyprobe.cli import main
from polyprobe.errors import UsageError
from polyprobe.languages import resolve_language
from polyprobe.loaders.language_evidence import check_content, conllu_sentences, evidence
from polyprobe.loaders.sources import discover

TREEBANK_LANGS = {
    "UD_Czech-FicTree": "cs",
    "UD_Czech-PUD": "cs",
    "UD_English-EWT": "en",
    "UD_English-PUD": "en",
    "UD_Finnish-PUD": "fi",
    "UD_Finnish-TDT": "fi",
    "UD_Georgian-GLC": "ka",
    "UD_German-GSD": "de",
    "UD_German-PUD": "de",
    "UD_Russian-GSD": "ru",
    "UD_Russian-PUD": "ru",
    "UD_Slovenian-SSJ": "sl",
    "UD_Spanish-GSD": "es",
    "UD_Spanish-PUD": "es",
    "UD_Turkish-IMST": "tr",
    "UD_Turkish-PUD": "tr",
}


def _blocks(path: Path) -> list[str]:
    return path.read_text("utf-8").rstrip("\n").split("\n\n")


@pytest.fixture
def mixed(tmp_path: Path, data_dir: Path) -> Path:
    """EWT's dev file with GSD's first 1,000 German sentences appended, beside EWT's test."""
    ud = data_dir / "ud"
    folder = tmp_path / "UD_English-Mixed"
    folder.mkdir()
    english = _blocks(ud / "UD_English-EWT" / "en_ewt-ud-dev.conllu")
    german = _blocks(ud / "UD_German-GSD" / "de_gsd-ud-dev.conllu")[:1000]
    (folder / "en_ewt-ud-dev.conllu").write_text(
        "\n\n".join(english + german) + "\n\n", encoding="utf-8"
    )
    test = ud / "UD_English-EWT" / "en_ewt-ud-test.conllu"
    (folder / "en_ewt-ud-test.conllu").write_bytes(test.read_bytes())
    return folder


def test_german_appended_to_an_english_file_is_refused(
    mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["build", "ud", str(mixed), "--lang", "en", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "Traceback" not in err
    dev = mixed / "en_ewt-ud-dev.conllu"
    assert err.startswith(f"polyprobe: error: {dev}: ")
    assert "do not read as English: " in err and "most frequent in most other blocks" in err
    assert "--allow-language-mismatch" in err
    assert not out.exists()
    # the refused lines are German: every sentence of the odd blocks is one of GSD's
    (found,) = [f for f in evidence([dev, mixed / "en_ewt-ud-test.conllu"], _en()) if f.odd]
    text = dev.read_text("utf-8").split("\n")
    ids = [
        line
        for b in found.odd
        for line in text[b.first_line - 1 : b.last_line]
        if line.startswith("# sent_id")
    ]
    assert ids and all(line.startswith("# sent_id = dev-s") for line in ids)
    # most of the German sentences: the block the boundary cuts may read as mixed
    german = len(_blocks(dev)) - 2001
    assert german == 799  # the shared GSD dev file
    assert sum(b.sentences for b in found.odd) >= 0.6 * german
    # counted per file: every sentence in the Latin script; few German ones hold a word
    # that is frequent in most English blocks
    assert found.sentences == 2001 + german
    assert found.sentences_in_script == found.sentences
    odd_matching = sum(b.sentences_matching for b in found.odd)
    assert odd_matching < 0.5 * sum(b.sentences for b in found.odd)


def test_allow_language_mismatch_records_the_content(
    mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["build", "ud", str(mixed), "--lang", "en", "--out", str(out), "--quiet"]
    code = main([*argv, "--tasks", "sentence_length", "--allow-language-mismatch"])
    assert code == 0, capsys.readouterr().err
    front = yaml.safe_load((out / "README.md").read_text("utf-8").split("---")[1])
    params = front["polyprobe"]["parameters"]
    assert params["allow_language_mismatch"] is True
    (entry,) = params["language_mismatch"]["UD_English-Mixed"]
    assert entry.startswith("content: en_ewt-ud-dev.conllu lines ")


def _en():  # type: ignore[no-untyped-def]
    return resolve_language("en")


def test_another_script_is_refused(tmp_path: Path, data_dir: Path) -> None:
    russian = data_dir / "ud" / "UD_Russian-PUD" / "ru_pud-ud-test.conllu"
    loose = tmp_path / "news.conllu"  # a name that declares nothing
    loose.write_bytes(russian.read_bytes())
    (found,) = evidence([loose], _en())
    assert found.sentences == 1000 and found.sentences_in_script <= 5  # a Latin name or two
    assert all(
        re.match(r"[0-2]% of their words are in the English script", b.script_odd)
        for b in found.blocks
    )
    with pytest.raises(UsageError, match=r"news\.conllu: 1,000 of its 1,000 sentences"):
        check_content("en", _en(), discover([loose]), allow=False)
    assert check_content("ru", resolve_language("ru"), discover([loose]), allow=False) == {}


def test_sentences_are_read_with_their_lines(data_dir: Path) -> None:
    path = data_dir / "ud" / "UD_English-PUD" / "en_pud-ud-test.conllu"
    first, last, forms = next(conllu_sentences(path))
    lines = path.read_text("utf-8").split("\n")
    assert lines[first - 1].startswith("1\t") and lines[last].strip() == ""
    assert forms[0] == lines[first - 1].split("\t")[1]


@pytest.mark.parametrize("name", sorted(TREEBANK_LANGS))
def test_every_shared_treebank_reads_as_its_own_language(data_dir: Path, name: str) -> None:
    folder = data_dir / "ud" / name
    assert folder.is_dir(), folder
    language = resolve_language(TREEBANK_LANGS[name])
    files = evidence(sorted(folder.glob("*.conllu*")), language)
    assert files and all(f.sentences > 0 for f in files)
    assert [(f.path.name, b.first_line, b.odd) for f in files for b in f.odd] == []
    # each file mostly in its script and mostly sharing a frequent word with the rest
    for f in files:
        assert f.sentences_in_script >= 0.95 * f.sentences, f.path
    assert check_content(language.code, language, discover([folder]), allow=False) == {}


def test_a_lexicon_in_another_script_is_refused(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lexicon = tmp_path / "lexicon"  # a name that declares nothing
    lexicon.write_bytes((data_dir / "unimorph" / "sigmorphon2018" / "russian-dev").read_bytes())
    out = tmp_path / "out"
    code = main(["build", "unimorph", str(lexicon), "--lang", "en", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and not out.exists()
    assert err.startswith(
        f"polyprobe: error: {lexicon}: 1,000 of its 1,000 forms (lines 1-1000) do not read as "
        "English: 0% of their words are in the English script (Latin)"
    )


def test_every_shared_lexicon_reads_as_its_own_language(data_dir: Path) -> None:
    from polyprobe.loaders.declared import lexicon_languages
    from polyprobe.loaders.language_evidence import lexicon_evidence

    files = [
        p
        for p in sorted((data_dir / "unimorph").rglob("*"))
        if p.is_file() and p.suffix != ".md" and not p.name.upper().startswith(("README", "LIC"))
    ]
    assert len(files) >= 40
    for f in files:
        (declared,) = lexicon_languages([f])
        found = lexicon_evidence(f, resolve_language(declared.code), None)
        assert found.sentences > 0 and not found.odd, f
        assert found.sentences_in_script >= 0.95 * found.sentences, f
