"""``build parallel`` from parallel text files: line-aligned files (with and without an ids
file), id-aligned TSV files (different orders, gaps), a wide TSV; the per-row
``sample_creation`` column; bad input (misaligned line counts, duplicate ids, empty texts)
as file:line errors or counted skips.

The real-data tests write the sentences of three shared PUD treebanks (en, de, ru) as text
files in the test's folder and check that the build agrees with the treebank build of the
same three languages on ids, splits, texts and sample_creation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import config_rows

from polyprobe import build_parallel
from polyprobe.cards.card import read_readme
from polyprobe.cards.folder import split_file
from polyprobe.cards.validate import validate
from polyprobe.errors import InputError, UsageError
from polyprobe.loaders.aligned_text import language_of_file
from polyprobe.loaders.parallel import document_split, pud_original_language
from polyprobe.loaders.sources import discover, read_sources

REPO = Path(__file__).resolve().parent.parent
PUD = {"en": "English", "de": "German", "ru": "Russian"}
# the fixtures are tiny: one row per class and split is enough
FLOORS = {"min_per_class": (1, 1, 1), "tasks": ["sentence_length"]}


def _all(folder: Path, config: str) -> list[dict]:
    return [r for rows in config_rows(folder, config).values() for r in rows]


# ---------------------------------------------------------------- fixtures written here

# 60 items of two lengths (sentence_length bins 5-8 and 9-12 in both languages), so that
# the document splits (80/10/10 by hash) hold both classes in every split.
N = 60
EN = [
    f"Item {i} is short ."
    if i % 2
    else f"Item {i} is a much longer sentence with many more words ."
    for i in range(N)
]
DE = [
    f"Satz {i} ist kurz ."
    if i % 2
    else f"Satz {i} ist ein viel längerer Satz mit vielen weiteren Wörtern ."
    for i in range(N)
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_line_aligned_files_build_and_validate(tmp_path: Path) -> None:
    en = _write(tmp_path / "corpus.en", EN)
    de = _write(tmp_path / "corpus.de", DE)
    result = build_parallel([en, de], out=tmp_path / "out", original_language="en", **FLOORS)
    assert validate(result.out).ok, str(validate(result.out))
    wide = _all(result.out, "parallel")
    assert sorted(int(r["id"]) for r in wide) == list(range(1, N + 1))
    line3 = next(r for r in wide if r["id"] == "3")
    assert line3["text"] == {"en": EN[2], "de": DE[2]}
    assert line3["sample_creation"] == {"en": "native", "de": "human-translated"}
    assert line3["original_language"] == "en"
    # no ids file: every line is its own document, split by its hash
    for split, rows in config_rows(result.out, "parallel").items():
        for r in rows:
            assert r["doc_id"] == r["id"]
            assert split == {"dev": "validation"}.get(
                document_split(r["id"]), document_split(r["id"])
            )
    de_rows = _all(result.out, "sentence_length-de")
    assert {r["sample_creation"] for r in de_rows} == {"human-translated"}
    assert {r["sample_creation"] for r in _all(result.out, "sentence_length-en")} == {"native"}
    front, _ = read_readme(result.out / "README.md")
    pp = front["polyprobe"]
    assert [s["kind"] for s in pp["sources"]] == ["parallel-text", "parallel-text"]
    assert pp["parameters"]["translation"]["sample_creation"] == "human-translated"
    assert pp["parameters"]["translation"]["original_language"] == "en"
    assert front["language"] == ["en", "de"]


def test_misaligned_line_counts_are_refused_even_under_skip(tmp_path: Path) -> None:
    en = _write(tmp_path / "corpus.en", EN)
    de = _write(tmp_path / "corpus.de", DE[:5])
    for on_invalid in ("raise", "skip"):
        with pytest.raises(InputError) as err:
            build_parallel([en, de], out=tmp_path / "out", on_invalid=on_invalid, **FLOORS)
        assert str(err.value).startswith(
            f"{en}:6: line 6 has no partner: corpus.en has 60 lines but corpus.de has 5"
        )
        assert err.value.reason == "misaligned"
    assert not (tmp_path / "out").exists()


def test_empty_line_is_an_error_or_a_counted_gap(tmp_path: Path) -> None:
    en = _write(tmp_path / "corpus.en", EN)
    de = _write(tmp_path / "corpus.de", [*DE[:2], "   ", *DE[3:]])
    with pytest.raises(InputError, match=r"corpus.de:3: empty text for id 3"):
        build_parallel([en, de], out=tmp_path / "out", **FLOORS)
    result = build_parallel([en, de], out=tmp_path / "out", on_invalid="skip", **FLOORS)
    assert result.skipped_invalid == {"empty-text": 1}
    row = next(r for r in _all(result.out, "parallel") if r["id"] == "3")
    assert row["text"] == {"en": EN[2], "de": None}
    assert row["sample_creation"] == {"en": "unknown", "de": None}
    front, _ = read_readme(result.out / "README.md")
    assert front["polyprobe"]["skipped_invalid"] == {"empty-text": 1}


def test_ids_file_gives_ids_and_documents(tmp_path: Path) -> None:
    en = _write(tmp_path / "a.txt", EN)
    de = _write(tmp_path / "b.txt", DE)
    ids = _write(tmp_path / "ids", [f"s{i}\tdoc{(i + 1) // 2}" for i in range(1, N + 1)])
    result = build_parallel([f"en={en}", f"de={de}"], out=tmp_path / "out", line_ids=ids, **FLOORS)
    wide = _all(result.out, "parallel")
    assert {r["id"]: r["doc_id"] for r in wide} == {
        f"s{i}": f"doc{(i + 1) // 2}" for i in range(1, N + 1)
    }
    split_of = {r["id"]: s for s, rows in config_rows(result.out, "parallel").items() for r in rows}
    assert split_of["s1"] == split_of["s2"] and split_of["s5"] == split_of["s6"]
    # a duplicate id in the ids file: file:line, or the line dropped in every language
    dup = _write(tmp_path / "dup", ["s1", "s2", "s3", "s2", *(f"s{i}" for i in range(5, N + 1))])
    with pytest.raises(InputError, match=r"dup:4: id s2 given twice \(first at line 2\)"):
        build_parallel([f"en={en}", f"de={de}"], out=tmp_path / "x", line_ids=dup, **FLOORS)
    result = build_parallel(
        [f"en={en}", f"de={de}"],
        out=tmp_path / "y",
        line_ids=dup,
        on_invalid="skip",
        **FLOORS,
    )
    assert result.skipped_invalid == {"duplicate-id": 1}
    assert "s4" not in {r["id"] for r in _all(result.out, "parallel")}
    assert len(_all(result.out, "parallel")) == N - 1
    assert {r["text"]["de"] for r in _all(result.out, "parallel") if r["id"] == "s2"} == {DE[1]}
    # an ids file of another length is misaligned
    short = _write(tmp_path / "short", ["s1", "s2"])
    with pytest.raises(InputError, match=r"a.txt:3: line 3 has no partner"):
        build_parallel([f"en={en}", f"de={de}"], out=tmp_path / "z", line_ids=short, **FLOORS)


def test_id_aligned_tsv_in_other_orders_with_gaps(tmp_path: Path) -> None:
    en = _write(tmp_path / "en.tsv", [f"p{i}\t{t}" for i, t in enumerate(EN)])
    # German: reversed order, p2 missing, x999 only German
    de_lines = [f"p{i}\t{t}" for i, t in enumerate(DE) if i != 2][::-1] + [
        "x999\tNur auf Deutsch hier ."
    ]
    de = _write(tmp_path / "de.tsv", de_lines)
    result = build_parallel([en, de], out=tmp_path / "out", **FLOORS)
    assert validate(result.out).ok
    wide = {r["id"]: r for r in _all(result.out, "parallel")}
    # the pivot's rows (x999 has no English sentence: no wide row, counted as a drop)
    assert sorted(wide, key=lambda i: int(i[1:])) == [f"p{i}" for i in range(N)]
    assert wide["p2"]["text"] == {"en": EN[2], "de": None}
    assert wide["p4"]["text"] == {"en": EN[4], "de": DE[4]}
    front, _ = read_readme(result.out / "README.md")
    pp = front["polyprobe"]
    assert pp["profile"]["coverage"] == {"en": N, "de": N}
    de_ids = {r["id"].split("/")[1] for r in _all(result.out, "sentence_length-de")}
    assert "x999" in de_ids and "p2" not in de_ids


def test_tsv_problems_name_file_and_line(tmp_path: Path) -> None:
    en = _write(tmp_path / "en.tsv", [f"x{i}\t{t}" for i, t in enumerate(EN)])
    cases = {
        "dup": (["x0\tA .", "x1\tB .", "x0\tC ."], r"dup.tsv:3: id x0 given twice", "duplicate-id"),
        "empty": (["x0\tA .", "x1\t  "], r"empty.tsv:2: empty de text for id x1", "empty-text"),
        "slash": (["x0\tA .", "a/b\tB ."], r"slash.tsv:2: id 'a/b' holds '/'", "bad-id"),
        "cols": (["x0\tA .", "x1\tB\tC"], r"cols.tsv:2: more than two columns", "bad-line"),
    }
    for name, (lines, message, reason) in cases.items():
        de = _write(tmp_path / f"{name}.tsv", lines)
        with pytest.raises(InputError, match=message):
            build_parallel([en, f"de={de}"], out=tmp_path / f"out-{name}", **FLOORS)
        result = build_parallel(
            [en, f"de={de}"], out=tmp_path / f"skip-{name}", on_invalid="skip", **FLOORS
        )
        assert result.skipped_invalid == {reason: 1}, name


def test_wide_tsv_with_original_language_column(tmp_path: Path) -> None:
    """The issue's source/target layout: one TSV, a column per language, the original
    language per item."""
    lines = ["id\toriginal_language\ten\tde"]
    for i, (e, d) in enumerate(zip(EN, DE, strict=True)):
        lines.append(f"p{i}\t{'de' if i % 2 else 'en'}\t{e}\t{d}")
    wide_tsv = _write(tmp_path / "pairs.tsv", lines)
    result = build_parallel(
        [wide_tsv],
        out=tmp_path / "out",
        sample_creation="machine-translated",
        translator="reverse",
        translator_version="1",
        translation_date="2026-11-27",
        **FLOORS,
    )
    assert validate(result.out).ok
    wide = {r["id"]: r for r in _all(result.out, "parallel")}
    assert wide["p1"]["sample_creation"] == {"en": "machine-translated", "de": "native"}
    assert wide["p2"]["sample_creation"] == {"en": "native", "de": "machine-translated"}
    de_rows = {r["id"].split("/")[1]: r for r in _all(result.out, "sentence_length-de")}
    assert de_rows["p1"]["sample_creation"] == "native"
    assert de_rows["p2"]["sample_creation"] == "machine-translated"
    front, _ = read_readme(result.out / "README.md")
    assert front["polyprobe"]["configs"]["parallel"]["labels"] == ["de", "en"]
    assert front["polyprobe"]["profile"]["sample_creation"]["de"] == {
        "machine-translated": N // 2,
        "native": N // 2,
    }
    translation = front["polyprobe"]["parameters"]["translation"]
    assert (translation["system"], translation["version"], translation["date"]) == (
        "reverse",
        "1",
        "2026-11-27",
    )
    bad = _write(tmp_path / "bad.tsv", ["id\ten\tklingon-ish", "p0\tA .\tB ."])
    with pytest.raises(InputError, match=r"bad.tsv:1: header column 'klingon-ish'"):
        build_parallel([bad], out=tmp_path / "bad", **FLOORS)


def test_usage_errors(tmp_path: Path, data_dir: Path) -> None:
    en = _write(tmp_path / "corpus.en", EN)
    nolang = _write(tmp_path / "corpus.txt", DE)
    with pytest.raises(UsageError, match=r"say the file's language \(e.g. de="):
        build_parallel([en, nolang], out=tmp_path / "o")
    with pytest.raises(UsageError, match="not both"):
        build_parallel([en, data_dir / "ud" / "UD_German-PUD"], out=tmp_path / "o")
    with pytest.raises(UsageError, match="tense"):
        build_parallel([en, f"de={nolang}"], out=tmp_path / "o", tasks=["tense"])
    with pytest.raises(UsageError, match="second input in en"):
        build_parallel([en, f"en={nolang}"], out=tmp_path / "o")
    tsv = _write(tmp_path / "en.tsv", [f"p{i}\t{t}" for i, t in enumerate(EN)])
    with pytest.raises(UsageError, match="no de item has the id of an? en item"):
        build_parallel([tsv, f"de={nolang}"], out=tmp_path / "o")
    with pytest.raises(UsageError, match="'klingon' is not a language code"):
        build_parallel([en, f"klingon={nolang}"], out=tmp_path / "o")
    pud = [data_dir / "ud" / "UD_English-PUD", data_dir / "ud" / "UD_German-PUD"]
    with pytest.raises(UsageError, match="PUD.s sentence ids give each sentence.s original"):
        build_parallel(pud, out=tmp_path / "o", sample_creation="machine-translated")
    assert language_of_file(Path("europarl-v7.de-en.de")) == "de"
    assert language_of_file(Path("deu.tsv")) == "de"
    assert language_of_file(Path("train.txt")) is None


def reverse_words(texts: list[str]) -> list[str]:
    """A deterministic stand-in for a translator (tests only)."""
    return [" ".join(w[::-1] for w in reversed(t.split())) for t in texts]


def test_translate_output_builds_a_parallel_set(tmp_path: Path) -> None:
    """English text -> ``polyprobe translate`` (a callable) -> ``build parallel`` with the
    English file and the translation TSV: ids are line numbers on both sides, the German rows
    are machine-translated (the translation's FILE.json), the English native (its
    source_language), and the card carries the translator."""
    from polyprobe.translate.run import translate_dataset
    from polyprobe.translate.translators import load_translator

    en = _write(tmp_path / "story.en", EN)
    translator = load_translator(f"{__name__}:reverse_words")
    out = tmp_path / "story.de.tsv"
    translate_dataset(en, translator, out, cache_dir=tmp_path / "cache", target_lang="de")
    result = build_parallel([en, f"de={out}"], out=tmp_path / "ds", **FLOORS)
    assert validate(result.out).ok, str(validate(result.out))
    wide = {r["id"]: r for r in _all(result.out, "parallel")}
    assert wide["7"]["text"] == {"en": EN[6], "de": reverse_words([EN[6]])[0]}
    assert wide["7"]["sample_creation"] == {"en": "native", "de": "machine-translated"}
    de_rows = _all(result.out, "sentence_length-de")
    assert de_rows and {r["sample_creation"] for r in de_rows} == {"machine-translated"}
    front, _ = read_readme(result.out / "README.md")
    translation = front["polyprobe"]["parameters"]["translation"]
    assert translation["original_language"] == "en"
    assert translation["translation_file_de"]["system"] == f"{__name__}:reverse_words"
    assert translation["translation_file_de"]["target_language"] == "de"
    # MTEB's metadata says the same: the German config is machine-translated
    from polyprobe.cards.export import mteb_metadata

    meta = mteb_metadata(result.out)
    assert meta["sentence_length-de"]["sample_creation"] == "machine-translated"
    assert meta["sentence_length-en"]["sample_creation"] == "found"


def test_validate_checks_the_sample_creation_values(tmp_path: Path) -> None:
    """A file whose sample_creation says something undocumented, or nothing, is refused by
    ``polyprobe validate`` (the column is a promise of the published schema)."""
    import pyarrow as pa

    en = _write(tmp_path / "corpus.en", EN)
    de = _write(tmp_path / "corpus.de", DE)
    result = build_parallel([en, de], out=tmp_path / "ds", original_language="en", **FLOORS)
    path = result.out / split_file("sentence_length-de", "train")
    table = pq.read_table(path)
    index = table.column_names.index("sample_creation")
    values = ["translated", *([None] * (table.num_rows - 1))]
    table = table.set_column(index, "sample_creation", pa.array(values, pa.string()))
    pq.write_table(table, path)
    report = str(validate(result.out))
    assert "sample_creation values ['translated'] are not among native, human-translated" in report
    assert f"{table.num_rows - 1} row(s) without a sample_creation value" in report


def test_rebuild_is_byte_identical_for_any_jobs(tmp_path: Path) -> None:
    import hashlib

    en = _write(tmp_path / "corpus.en", EN)
    de = _write(tmp_path / "corpus.de", DE)
    digests = []
    for jobs in (1, 2):
        out = build_parallel(
            [en, de],
            out=tmp_path / f"out{jobs}",
            jobs=jobs,
            original_language="en",
            min_per_class=(1, 1, 1),
            tasks=["sentence_length", "bigram_shift"],
        ).out
        digests.append(
            {
                p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(out.rglob("*"))
                if p.is_file()
            }
        )
    assert digests[0] == digests[1]
    assert any(k.startswith("data/bigram_shift-de/") for k in digests[0])


# ---------------------------------------------------------------- PUD-derived (real data)


@pytest.fixture(scope="module")
def pud_files(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The en, de and ru PUD sentences written as (a) id-aligned TSVs with document and
    original_language columns and (b) line-aligned text files with an ids file; the three
    builds (treebanks, TSV, lines) of sentence_length."""
    root = tmp_path_factory.mktemp("pudtext")
    sentences = {
        lang: list(read_sources(discover([data_dir / "ud" / f"UD_{name}-PUD"])))
        for lang, name in PUD.items()
    }
    order = [s.sent_id for s in sentences["en"]]
    tsv: list[Path] = []
    lines: list[str] = []
    for lang, sents in sentences.items():
        by_id = {s.sent_id: s for s in sents}
        rows = ["id\tdocument\toriginal_language\ttext"]
        rows += [
            f"{s.sent_id}\t{s.doc_id}\t{pud_original_language(s.sent_id) or ''}\t{s.text}"
            # de and ru in another order than the pivot's: alignment is by id
            for s in (sents if lang == "en" else reversed(sents))
        ]
        tsv.append(_write(root / f"pud.{lang}.tsv", rows))
        text = [by_id[i].text for i in order]
        lines.append(f"{lang}={_write(root / f'pud-{lang}.txt', text)}")
    ids = _write(
        root / "pud.ids",
        [
            f"{s.sent_id}\t{s.doc_id}\t{pud_original_language(s.sent_id) or ''}"
            for s in sentences["en"]
        ],
    )
    options = {"tasks": ["sentence_length"], "jobs": 1}
    treebank = build_parallel(
        [data_dir / "ud" / f"UD_{name}-PUD" for name in PUD.values()],
        out=root / "treebank",
        **options,
    )
    from_tsv = build_parallel(
        [f"{p.name.split('.')[1]}={p}" for p in tsv], out=root / "tsv", **options
    )
    from_lines = build_parallel(lines, out=root / "lines", line_ids=ids, **options)
    return {"treebank": treebank.out, "tsv": from_tsv.out, "lines": from_lines.out}


def test_text_builds_agree_with_the_treebank_build(pud_files) -> None:
    """Same ids in the same splits, same texts in every language, same sample_creation."""
    tb = config_rows(pud_files["treebank"], "parallel")
    for kind in ("tsv", "lines"):
        assert validate(pud_files[kind]).ok, str(validate(pud_files[kind]))
        got = config_rows(pud_files[kind], "parallel")
        assert sorted(got) == sorted(tb) == ["test", "train", "validation"]
        for split in tb:
            assert [r["sent_id"] for r in got[split]] == [r["sent_id"] for r in tb[split]]
            for a, b in zip(tb[split], got[split], strict=True):
                assert a["text"] == b["text"]
                assert a["doc_id"] == b["doc_id"]
                assert a["sample_creation"] == b["sample_creation"], a["sent_id"]
                assert a["original_language"] == b["original_language"]
        assert sum(len(r) for r in got.values()) == 1000
    # per-language configs: every sentence in its document's split, as the treebank build
    split_of = {r["sent_id"]: s for s, rows in tb.items() for r in rows}
    for lang in PUD:
        rows = config_rows(pud_files["tsv"], f"sentence_length-{lang}")
        ids = set()
        for split, split_rows in rows.items():
            for row in split_rows:
                sid = row["id"].split("/")[1]
                assert split_of[sid] == split
                ids.add(sid)
                expected = "native" if pud_original_language(sid) == lang else "human-translated"
                assert row["sample_creation"] == expected
        assert len(ids) > 750  # sentence_length drops the classes under the floors


def test_hand_checked_rows_of_the_text_build(pud_files) -> None:
    """n01001011 (an English original, document n01001) in the line-aligned build:

    en: “While much of the digital transition is unprecedented in the United States, ...
    de: „Ein Großteil des digitalen Übergangs ist für die Vereinigten Staaten neu, ...
    n02002007 ("Die Beamten konnten die 53-Jährige ...") is a German original: native in de, human-translated in en and ru."""
    wide = {r["sent_id"]: r for r in _all(pud_files["lines"], "parallel")}
    row = wide["n01001011"]
    assert row["doc_id"] == "n01001"
    assert row["text"]["de"].startswith("„Ein Großteil des digitalen Übergangs")
    assert row["text"]["en"].startswith("“While much of the digital transition")
    assert row["sample_creation"] == {
        "en": "native",
        "de": "human-translated",
        "ru": "human-translated",
    }
    assert wide["n02002007"]["text"]["de"].startswith("Die Beamten konnten die 53-Jährige")
    assert wide["n02002007"]["sample_creation"] == {
        "en": "human-translated",
        "de": "native",
        "ru": "human-translated",
    }
    # the line-aligned and the TSV build publish the same wide config, byte for byte
    for split in ("train", "validation", "test"):
        a = (pud_files["lines"] / split_file("parallel", split)).read_bytes()
        b = (pud_files["tsv"] / split_file("parallel", split)).read_bytes()
        assert a == b, split


def test_misaligned_pud_lines_through_the_command(pud_files, tmp_path: Path) -> None:
    """A German file that lost one line: exit 2, one line naming file and line, no
    traceback, nothing written."""
    root = pud_files["lines"].parent
    de = (root / "pud-de.txt").read_text(encoding="utf-8").splitlines()
    short = _write(tmp_path / "short.de", de[:500] + de[501:])
    out = tmp_path / "cli"
    cmd = [
        sys.executable,
        "-m",
        "polyprobe",
        "build",
        "parallel",
        f"en={root / 'pud-en.txt'}",
        str(short),
        "--out",
        str(out),
        "--quiet",
        "--on-invalid",
        "skip",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert (
        "pud-en.txt:1000: line 1000 has no partner: pud-en.txt has 1,000 lines but "
        "short.de has 999" in done.stderr
    )
    assert not out.exists()
