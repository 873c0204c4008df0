"""``build parallel`` on the seven shared PUD treebanks: the wide ``parallel`` config, the
per-language ``<task>-<lang>`` configs, document splits identical in every language,
hand-checked labels, sample creation and the agreement notes; alignment errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import config_rows

from polyprobe import build_parallel
from polyprobe.cards.card import read_readme
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.parallel import align, document_split, pud_original_language
from polyprobe.loaders.sources import discover

LANGS = ("cs", "de", "en", "es", "fi", "ru", "tr")
PUD = ("Czech", "German", "English", "Spanish", "Finnish", "Russian", "Turkish")


@pytest.fixture(scope="module")
def pud(data_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    paths = [data_dir / "ud" / f"UD_{name}-PUD" for name in PUD]
    out = tmp_path_factory.mktemp("pud") / "pud-parallel"
    result = build_parallel(paths, out=out, jobs=1)
    return result


def test_folder_validates_and_the_wide_config_loads(pud, hf_offline) -> None:
    import datasets

    assert validate(pud.out).ok, str(validate(pud.out))
    ds = datasets.load_dataset(str(pud.out), "parallel")
    assert sum(ds[s].num_rows for s in ds) == 1000
    assert ds["train"].features["label"].names == ["news", "wiki"]
    for split in ds:
        for row in ds[split]:
            assert sorted(row["text"]) == sorted(LANGS)
            assert all(row["text"][lang] for lang in LANGS), row["sent_id"]
    front, _ = read_readme(pud.out / "README.md")
    assert front["language"] == list(LANGS)


def test_two_processes_give_the_same_bytes(pud, data_dir: Path, tmp_path: Path) -> None:
    """The languages' streams are planned together onto the processes (on record ranges:
    each language's treebank cut at its documents); the folder is the one process's, byte
    for byte."""
    paths = [data_dir / "ud" / f"UD_{name}-PUD" for name in PUD]
    two = build_parallel(paths, out=tmp_path / "two", jobs=2)

    def tree(folder: Path) -> dict[str, bytes]:
        return {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }

    assert tree(two.out) == tree(pud.out)
    assert two.fingerprint == pud.fingerprint


def test_same_sent_id_same_split_in_every_config(pud) -> None:
    """Every per-language config (every variant) and the wide config put a sentence in the
    split of its document; no document is in two splits."""
    wide = config_rows(pud.out, "parallel")
    split_of = {r["sent_id"]: s for s, rows in wide.items() for r in rows}
    doc_split: dict[str, str] = {}
    for s, rows in wide.items():
        for r in rows:
            assert doc_split.setdefault(r["doc_id"], s) == s
            assert s == {"dev": "validation"}.get(
                document_split(r["doc_id"]), document_split(r["doc_id"])
            )
    configs = [p.name for p in (pud.out / "data").iterdir() if p.name != "parallel"]
    assert {c.split(".")[0].rpartition("-")[2] for c in configs} == set(LANGS)
    checked = 0
    for config in configs:
        for split, rows in config_rows(pud.out, config).items():
            for row in rows:
                sent_id = row["id"].split("/")[1]
                assert split_of[sent_id] == split, (config, row["id"])
                checked += 1
    assert checked > 20_000


def test_hand_checked_labels_in_three_languages(pud) -> None:
    """Labels of three sentences in en, de and ru (``subject_number``: Number of the root's
    nsubj; ``tense``: the root's Tense, else its aux/cop's), from the CoNLL-U lines:

    n01120020 (en "All the medics were armed, except me.")::

        en  3 medics medic NOUN NNS Number=Plur 5 nsubj
            4 were be AUX VBD Mood=Ind|Tense=Past|VerbForm=Fin 5 cop
            5 armed armed ADJ JJ Degree=Pos 0 root
        de  4 Personal Personal NOUN NN Case=Nom|Gender=Neut|Number=Sing 6 nsubj
            5 war sein AUX VBC Mood=Ind|Number=Sing|Person=3|Tense=Past 6 cop
        ru  4 было быть AUX VBC Aspect=Imp|...|Number=Sing|Tense=Past|... 0 root
            5 оружие оружие NOUN NN ...|Number=Sing 4 nsubj

    w01139090 (en "Another theme of the Skylark novels involves precursors ...")::

        en  2 theme theme NOUN NN Number=Sing 7 nsubj
            7 involves involve VERB VBZ Mood=Ind|Number=Sing|Person=3|Tense=Pres|... 0 root
        de  3 Thema Thema NOUN NN Case=Nom|Gender=Neut|Number=Sing 0 root
            8 sind sein AUX VBC Mood=Ind|Number=Plur|Person=3|Tense=Pres 3 cop
            10 Vorboten Vorbot NOUN NN Case=Nom|Gender=Masc|Number=Plur 3 nsubj
        ru  8 стали стать VERB VBC Aspect=Perf|...|Number=Plur|Tense=Past|... 0 root
            9 предвестники предвестник NOUN NN ...|Number=Plur 8 nsubj

    n05002020 (en "This department now faces new challenges.", originally Spanish)::

        en  2 department department NOUN NN Number=Sing 4 nsubj
            4 faces face VERB VBZ Mood=Ind|Number=Sing|Person=3|Tense=Pres|... 0 root
        de  2 Abteilung Abteilung NOUN NN Case=Nom|Gender=Fem|Number=Sing 10 nsubj
            3 muss müssen AUX VBC Mood=Ind|Number=Sing|Person=3|Tense=Pres 10 aux
        ru  4 стоит стоять VERB VBC Aspect=Imp|...|Tense=Pres|... 0 root
            7 задач задача NOUN NN Animacy=Inan|Case=Gen|Gender=Fem|Number=Plur 4 nsubj
    """
    expected = {
        "n01120020": {"subject_number": ("Plur", "Sing", "Sing"), "tense": ("Past",) * 3},
        "w01139090": {
            "subject_number": ("Sing", "Plur", "Plur"),
            "tense": ("Pres", "Pres", "Past"),
        },
        "n05002020": {"subject_number": ("Sing", "Sing", "Plur"), "tense": ("Pres",) * 3},
    }
    wide = {r["sent_id"]: r for rows in config_rows(pud.out, "parallel").values() for r in rows}
    for sent_id, tasks in expected.items():
        for task, labels in tasks.items():
            for lang, label in zip(("en", "de", "ru"), labels, strict=True):
                assert wide[sent_id][task][lang] == label, (sent_id, task, lang)
                config = config_rows(pud.out, f"{task}-{lang}")
                names = read_readme(pud.out / "README.md")[0]["polyprobe"]["configs"][
                    f"{task}-{lang}"
                ]["labels"]
                found = [
                    names[r["label"]]
                    for rows in config.values()
                    for r in rows
                    if r["id"].split("/")[1] == sent_id
                ]
                assert found == [label], (sent_id, task, lang)
    # sample creation: n05002020 was written in Spanish (id digits 05)
    row = wide["n05002020"]
    assert row["original_language"] == "es"
    assert row["sample_creation"]["es"] == "native"
    assert row["sample_creation"]["en"] == "human-translated"
    assert wide["n01120020"]["sample_creation"]["en"] == "native"
    # the English reference: ``text_en`` (cs, with its malformed comments) and ru's ``english_text``
    assert row["text_en_reference"]["cs"] == row["text"]["en"]
    assert row["text_en_reference"]["ru"] == row["text"]["en"]
    assert row["text_en_reference"]["en"] is None


def test_card_has_agreement_provenance_and_per_language_labels(pud) -> None:
    front, body = read_readme(pud.out / "README.md")
    pp = front["polyprobe"]
    assert pp["parameters"]["translation"]["system"] == "human translation"
    # system, version, date: the version is the treebanks' release
    versions = {s["version"] for s in pp["sources"]}
    assert pp["parameters"]["translation"]["version"] == ", ".join(sorted(versions))
    assert pp["parameters"]["translation"]["date"].startswith("2017")
    agreement = pp["profile"]["agreement"]["tense"]["de"]
    assert agreement["compared"] > 500 and agreement["agree"] / agreement["compared"] > 0.8
    assert "Agreement with the en label of the same sentence" in body
    creation = pp["profile"]["sample_creation"]
    assert creation["en"] == {"human-translated": 250, "native": 750}
    assert creation["de"]["native"] == sum(
        1 for r in align_rows(pud) if pud_original_language(r) == "de"
    )
    # per-language label spaces: Russian tense keeps its own classes
    assert pp["configs"]["tense-en"]["labels"] == ["Past", "Pres"]


def test_every_per_language_row_says_how_it_was_made(pud, hf_offline) -> None:
    """The per-row sample_creation column: n02002007 ("Die Beamten konnten die 53-Jährige bei
    der Tat am Sonntagmorgen überwältigen.") was written in German (PUD id digits 02), so it is
    native in the German configs and human-translated in the English ones; n01001013 (an
    English original) the other way round. Every row of every per-language config has the
    column, with the value its sent_id says."""
    import datasets

    for lang, native, translated in (
        ("de", "n02002007", "n01001013"),
        ("en", "n01001013", "n02002007"),
    ):
        rows = config_rows(pud.out, f"sentence_length-{lang}")
        by_id = {r["id"].split("/")[1]: r for split in rows.values() for r in split}
        assert by_id[native]["sample_creation"] == "native"
        assert by_id[translated]["sample_creation"] == "human-translated"
    checked = 0
    for config in (p.name for p in (pud.out / "data").iterdir() if p.name != "parallel"):
        lang = config.split(".")[0].rpartition("-")[2]
        for rows in config_rows(pud.out, config).values():
            for row in rows:
                sid = row["id"].split("/")[1]
                expected = "native" if pud_original_language(sid) == lang else "human-translated"
                assert row["sample_creation"] == expected, (config, row["id"])
                checked += 1
    assert checked > 20_000
    features = datasets.load_dataset_builder(str(pud.out), "tense-de").info.features
    assert features["sample_creation"].dtype == "string"


def align_rows(pud) -> list[str]:
    rows = config_rows(pud.out, "parallel")
    return [r["sent_id"] for split in rows.values() for r in split]


def _tiny(path: Path, lang: str, docs: list[tuple[str, str]]) -> Path:
    folder = path / f"UD_{lang}-Tiny"
    folder.mkdir(parents=True)
    code = {"English": "en", "German": "de"}[lang]
    lines = []
    for doc, sent in docs:
        lines += [
            f"# newdoc id = {doc}",
            f"# sent_id = {sent}",
            "# text = A b.",
            "1\tA\ta\tNOUN\t_\t_\t0\troot\t_\tSpaceAfter=No",
            "2\tb\tb\tNOUN\t_\t_\t1\tnmod\t_\t_",
            "",
        ]
    (folder / f"{code}_tiny-ud-test.conllu").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_sentence_in_two_documents_is_refused(tmp_path: Path) -> None:
    en = _tiny(tmp_path, "English", [("d1", "s1"), ("d2", "s2")])
    de = _tiny(tmp_path, "German", [("d1", "s1"), ("d1", "s2")])
    sources = discover([en, de])
    with pytest.raises(InputError) as err:
        align([("en", sources[0]), ("de", sources[1])])
    assert "de_tiny-ud-test.conllu:7" in str(err.value)
    assert "s2 is in document d1 here but in d2 in the en treebank" in str(err.value)


def test_one_language_or_no_pivot_is_refused(tmp_path: Path) -> None:
    en = _tiny(tmp_path, "English", [("d1", "s1")])
    de = _tiny(tmp_path, "German", [("d1", "s1")])
    with pytest.raises(UsageError, match="at least two languages"):
        build_parallel([en], out=tmp_path / "out")
    with pytest.raises(UsageError, match="no input is in it"):
        build_parallel([en, de], lang="fi", out=tmp_path / "out")


def test_parallel_treebanks_other_than_pud(tmp_path: Path, data_dir: Path) -> None:
    """Treebanks aligned by sent_id whose ids are not PUD's: no genre and no original
    language in the id, so the wide config's label is the original language the user gives
    (--original-language), else unknown, and sample_creation follows it. On PUD itself,
    the options that describe the texts are refused: its ids say it."""
    docs = [("d1", "s1"), ("d1", "s2"), ("d2", "s3")]
    en = _tiny(tmp_path, "English", docs)
    de = _tiny(tmp_path, "German", docs)
    options = {"tasks": ["sentence_length"], "min_per_class": (1, 1, 1)}
    told = build_parallel([en, de], out=tmp_path / "told", original_language="en", **options)
    assert validate(told.out).ok, str(validate(told.out))
    rows = [r for split in config_rows(told.out, "parallel").values() for r in split]
    assert sorted(r["sent_id"] for r in rows) == ["s1", "s2", "s3"]
    assert {r["label"] for r in rows} == {0}
    assert all(r["sample_creation"] == {"en": "native", "de": "human-translated"} for r in rows)
    front, _ = read_readme(told.out / "README.md")
    assert front["polyprobe"]["configs"]["parallel"]["labels"] == ["en"]
    assert front["pretty_name"] == "polyprobe parallel probing suite (parallel treebanks)"
    untold = build_parallel([en, de], out=tmp_path / "untold", **options)
    rows = [r for split in config_rows(untold.out, "parallel").values() for r in split]
    assert all(r["sample_creation"] == {"en": "unknown", "de": "unknown"} for r in rows)
    pud = [data_dir / "ud" / "UD_English-PUD", data_dir / "ud" / "UD_German-PUD"]
    with pytest.raises(UsageError, match="PUD's sentence ids give each sentence's original"):
        build_parallel(pud, out=tmp_path / "pud", original_language="de", **options)
    with pytest.raises(UsageError, match="--line-ids and --tokenizer describe parallel text"):
        build_parallel(pud, out=tmp_path / "pud", tokenizer="segtok")
