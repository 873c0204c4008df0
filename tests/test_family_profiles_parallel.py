"""``build parallel`` honours a profile as its docs say: a ``[family]`` option
(``original_language`` for parallel text: each row's ``sample_creation`` and the wide
config's label) and a ``[tasks.tense]`` option (it reaches every language's ``tense-<lang>``)
change the output and the fingerprint; a misspelt key in ``[family]`` or ``[tasks.<name>]`` is
refused, naming the key and listing the valid ones. Tiny inputs written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe import build_parallel
from polyprobe.cards.card import read_readme
from polyprobe.errors import PolyprobeError

# Two lengths, so that sentence_length has two classes in every document split.
EN = [
    f"Item {i} is short ." if i % 2 else f"Item {i} is a much longer one, {i} ." for i in range(40)
]
DE = [
    f"Satz {i} ist kurz ." if i % 2 else f"Satz {i} ist ein viel längerer, {i} ." for i in range(40)
]
TEXT = {"tasks": ["sentence_length"], "min_per_class": 1}
# Tense of sentence i: Past, Pres, or Imp (a Tense value no label takes unless mapped).
TENSES = ("Past", "Pres", "Imp")
N = 90  # 30 documents: some in each split


def _rows(folder: Path, config: str) -> list[dict]:
    return [r for rows in config_rows(folder, config).values() for r in rows]


def _profile(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _texts(tmp_path: Path) -> list[Path]:
    out = []
    for name, lines in (("corpus.en", EN), ("corpus.de", DE)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(tmp_path / name)
    return out


def _treebank(root: Path, lang: str, name: str) -> Path:
    """Sentence i, "Xi sangi.", in document d(i // 3), its root's Tense TENSES[i % 3]: every
    document (so every split) holds each tense; a verb lemma of its own per sentence (a
    lexical key is in one split only)."""
    folder = root / f"UD_{name}-Tiny"
    folder.mkdir(parents=True)
    lines = []
    for i in range(N):
        feats = f"Mood=Ind|Tense={TENSES[i % 3]}|VerbForm=Fin"
        lines += [f"# newdoc id = d{i // 3}"] if i % 3 == 0 else []
        lines += [
            f"# sent_id = s{i}",
            f"# text = X{i} sang{i}.",
            f"1\tX{i}\tx\tPROPN\t_\tNumber=Sing\t2\tnsubj\t_\t_",
            f"2\tsang{i}\tsing{i}\tVERB\t_\t{feats}\t0\troot\t_\tSpaceAfter=No",
            "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_",
            "",
        ]
    (folder / f"{lang}_tiny-ud-test.conllu").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_family_original_language_from_a_profile(tmp_path: Path) -> None:
    paths = _texts(tmp_path)
    plain = build_parallel(paths, out=tmp_path / "plain", **TEXT)
    profile = _profile(tmp_path / "p.toml", '[family]\noriginal_language = "en"\n')
    told = build_parallel(paths, out=tmp_path / "told", profile=profile, **TEXT)
    assert {r["sample_creation"] for r in _rows(plain.out, "sentence_length-de")} == {"unknown"}
    assert {r["sample_creation"] for r in _rows(told.out, "sentence_length-de")} == {
        "human-translated"
    }
    assert {r["sample_creation"] for r in _rows(told.out, "sentence_length-en")} == {"native"}
    card = read_readme(told.out / "README.md")[0]["polyprobe"]
    assert card["configs"]["parallel"]["labels"] == ["en"]
    assert card["parameters"]["translation"]["original_language"] == "en"
    assert told.fingerprint != plain.fingerprint
    # the command line wins over the profile
    given = build_parallel(
        paths, out=tmp_path / "given", profile=profile, original_language="de", **TEXT
    )
    assert {r["sample_creation"] for r in _rows(given.out, "sentence_length-de")} == {"native"}


def test_tasks_tense_option_reaches_every_language(tmp_path: Path) -> None:
    paths = [_treebank(tmp_path, "en", "English"), _treebank(tmp_path, "de", "German")]
    options = {"tasks": ["tense"], "min_per_class": 1, "original_language": "en"}
    plain = build_parallel(paths, out=tmp_path / "plain", **options)
    profile = _profile(tmp_path / "p.toml", '[tasks.tense]\nmap = { Imp = "Past" }\n')
    mapped = build_parallel(paths, out=tmp_path / "mapped", profile=profile, **options)
    for lang in ("en", "de"):
        before = {r["id"].split("/")[1] for r in _rows(plain.out, f"tense-{lang}")}
        after = {r["id"].split("/")[1] for r in _rows(mapped.out, f"tense-{lang}")}
        imp = {f"s{i}" for i in range(N) if TENSES[i % 3] == "Imp"}
        assert not before & imp and imp <= after, lang
    card = read_readme(mapped.out / "README.md")[0]["polyprobe"]
    assert card["profile"]["languages"]["de"]["overrides"]["tasks"] == {
        "tense": {"map": {"Imp": "Past"}}
    }
    assert mapped.fingerprint != plain.fingerprint


@pytest.mark.parametrize(
    ("text", "key", "valid"),
    [
        ('[family]\noriginal_languge = "en"\n', "original_languge", "original_language"),
        ("[tasks.word_order]\nmin_lenght = 9\n", "min_lenght", "min_length"),
    ],
)
def test_misspelt_profile_keys_are_refused(tmp_path: Path, text: str, key: str, valid: str) -> None:
    profile = _profile(tmp_path / "p.toml", text)
    with pytest.raises(PolyprobeError) as err:
        build_parallel(_texts(tmp_path), out=tmp_path / "out", profile=profile, **TEXT)
    assert key in str(err.value) and valid in str(err.value), str(err.value)
    assert not (tmp_path / "out").exists()
