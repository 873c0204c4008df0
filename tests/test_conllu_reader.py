"""The fast reader against the reference parser (``conllu.parse_incr``) on every sentence of
every shared treebank, plus record semantics on small hand-written inputs.

Why: the reader is hand-rolled for speed, and speed is worthless if it disagrees with the
reference parser on real data; the comparison covers every field the tasks read."""

from __future__ import annotations

import collections
import dataclasses
import gzip
from pathlib import Path

import conllu
import pytest
from conftest import all_treebanks
from conllu.parser import parse_paired_list_value

from polyprobe.loaders.conllu import LazyWord, file_stem, read_conllu, split_of
from polyprobe.loaders.records import Sentence, Word
from polyprobe.loaders.sources import discover, read_sources

# --------------------------------------------------------------------------------------
# how conllu represents what we keep verbatim


def _ours_pairs(d: dict[str, str]) -> dict[str, str]:
    """Our FEATS/MISC dict as conllu sees it. conllu keeps only the text up to a second '='
    (``Cxn=free=rc-obj`` -> ``free``; we keep ``free=rc-obj``) and turns an empty or '_'
    value into None; both sides map that to ''."""
    out = {}
    for k, v in d.items():
        v = v.split("=")[0]
        out[k] = "" if v == "_" else v
    return out


def _theirs_pairs(d: dict | None) -> dict[str, str]:
    return {k: v or "" for k, v in (d or {}).items()}


def _s(v: object) -> str:
    return "_" if v is None else str(v)


def _compare(ours: Sentence, ref: conllu.TokenList, where: str) -> None:
    words = [t for t in ref if isinstance(t["id"], int)]
    ranges = [t for t in ref if isinstance(t["id"], tuple) and t["id"][1] == "-"]
    empties = [t for t in ref if isinstance(t["id"], tuple) and t["id"][1] == "."]
    assert len(ours.words) == len(words), where
    for w, t in zip(ours.words, words, strict=True):
        got = (w.id, w.form, w.lemma, w.upos, w.xpos, w.head, w.deprel)
        exp = (t["id"], t["form"], t["lemma"], t["upos"], _s(t["xpos"]), t["head"], t["deprel"])
        assert got == exp, f"{where} word {w.id}"
        assert _ours_pairs(w.feats) == _theirs_pairs(t["feats"]), f"{where} word {w.id} feats"
        assert _ours_pairs(w.misc) == _theirs_pairs(t["misc"]), f"{where} word {w.id} misc"
        assert parse_paired_list_value(w.deps) == t["deps"], f"{where} word {w.id} deps"
    got_mwt = [(m.first, m.last, m.form, _ours_pairs(m.misc)) for m in ours.multiword]
    exp_mwt = [(t["id"][0], t["id"][2], t["form"], _theirs_pairs(t["misc"])) for t in ranges]
    assert got_mwt == exp_mwt, where
    got_empty = [
        (e.id, e.form, e.lemma, e.upos, e.xpos, _ours_pairs(e.feats), _ours_pairs(e.misc))
        for e in ours.empty
    ]
    exp_empty = [
        (
            f"{t['id'][0]}.{t['id'][2]}",
            t["form"],
            t["lemma"],
            t["upos"],
            _s(t["xpos"]),
            _theirs_pairs(t["feats"]),
            _theirs_pairs(t["misc"]),
        )
        for t in empties
    ]
    assert got_empty == exp_empty, where
    for e, t in zip(ours.empty, empties, strict=True):
        assert parse_paired_list_value(e.deps) == t["deps"], where
    meta = ref.metadata
    assert ours.sent_id == meta["sent_id"], where
    assert ours.text == meta.get("text"), where
    # every `key = value` comment conllu kept, with the same value
    assert {k: v for k, v in ours.comments.items() if v} == {
        k: v for k, v in meta.items() if v is not None
    }, where


def _open_text(path: Path):
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


@pytest.mark.parametrize("treebank", all_treebanks())
def test_same_as_conllu_on_every_sentence(ud_dir: Path, treebank: str) -> None:
    folder = ud_dir / treebank
    files = sorted(p for p in folder.iterdir() if p.name.endswith((".conllu", ".conllu.gz")))
    assert files
    for path in files:
        skipped: collections.Counter[str] = collections.Counter()
        ours = list(read_conllu(path, on_invalid="skip", skipped=skipped))
        assert not skipped, f"{path}: real UD data rejected: {dict(skipped)}"
        with _open_text(path) as fh:
            count = 0
            for i, ref in enumerate(conllu.parse_incr(fh)):
                assert i < len(ours), f"{path}: conllu has more sentences"
                _compare(ours[i], ref, f"{path.name} sentence {i + 1} ({ours[i].sent_id})")
                count += 1
        assert count == len(ours), path
        # sentence lines really point at the sentence's first line
        with _open_text(path) as fh:
            lines = fh.read().split("\n")
        for s in ours[:: max(1, len(ours) // 50)]:
            assert lines[s.line - 1].startswith("#") or lines[s.line - 1].startswith("1")
            assert lines[s.line - 2] == "" if s.line > 1 else True


def test_all_treebanks_present(ud_dir: Path) -> None:
    assert len(all_treebanks()) == 16


# --------------------------------------------------------------------------------------
# record semantics on small inputs

SAMPLE = """\
# newdoc id = d1
# sent_id = s1
# text = Del mar.
1-2\tDel\t_\t_\t_\t_\t_\t_\t_\t_
1\tDe\tde\tADP\t_\t_\t3\tcase\t_\t_
2\tel\tel\tDET\t_\tNumber[psor]=Sing|Definite=Def\t3\tdet\t_\tGloss=the|Odd
3\tmar\tmar\tNOUN\t_\tGender=Masc\t0\troot\t0:root\tSpaceAfter=No|Cxn=a=b
3.1\tvoy\tir\tVERB\t_\t_\t_\t_\t3:conj\t_
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

# a free comment without an equals sign
1\tHola\thola\tINTJ\t_\t_\t0\troot\t_\t_

# newdoc
1\tX\tx\tX\t_\t_\t0\troot\t_\t_
"""


def test_record_semantics(tmp_path: Path) -> None:
    f = tmp_path / "xx_toy-ud-dev.conllu"
    f.write_text(SAMPLE, encoding="utf-8")
    s1, s2, s3 = read_conllu(f, treebank="UD_Toy", split="dev")
    assert s1.sent_id == "s1" and s1.text == "Del mar." and s1.doc_id == "d1" and s1.line == 1
    assert s1.source.treebank == "UD_Toy" and s1.source.split == "dev"
    assert [w.id for w in s1.words] == [1, 2, 3, 4]
    assert [(m.first, m.last, m.form) for m in s1.multiword] == [(1, 2, "Del")]
    assert [e.id for e in s1.empty] == ["3.1"]
    w2 = s1.word(2)
    assert w2.feats == {"Number[psor]": "Sing", "Definite": "Def"}
    assert w2.misc == {"Gloss": "the", "Odd": ""}
    assert s1.word(3).misc == {"SpaceAfter": "No", "Cxn": "a=b"}
    assert s1.word(3).deps == "0:root" and s1.word(1).feats == {} and s1.word(1).misc == {}
    assert not s1.word(3).space_after and s1.root.id == 3
    assert s1.comments == {"newdoc id": "d1", "sent_id": "s1", "text": "Del mar."}
    # fallback sent_id: <file stem>-<n>; doc id carried forward, then generated by `# newdoc`
    assert s2.sent_id == "xx_toy-ud-dev-2" and s2.text is None and s2.doc_id == "d1"
    assert s2.line == 11
    assert s3.sent_id == "xx_toy-ud-dev-3" and s3.doc_id == "xx_toy-ud-dev-doc2"
    assert isinstance(s3.words[0], Word)


def test_gzip_crlf_bom_and_no_final_blank_line(tmp_path: Path) -> None:
    text = "\ufeff" + SAMPLE.rstrip("\n").replace("\n", "\r\n")
    plain = tmp_path / "a.conllu"
    plain.write_text(text, encoding="utf-8")
    gz = tmp_path / "b.conllu.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    a = list(read_conllu(plain))
    b = list(read_conllu(gz))
    assert [s.sent_id for s in a] == ["s1", "a-2", "a-3"]
    assert [[w.misc for w in s.words] for s in a] == [[w.misc for w in s.words] for s in b]
    assert a[0].word(3).misc == {"SpaceAfter": "No", "Cxn": "a=b"}


def test_whitespace_only_lines_separate_sentences(tmp_path: Path) -> None:
    f = tmp_path / "w.conllu"
    one = "1\tX\tx\tX\t_\t_\t0\troot\t_\t_\n"
    f.write_text("  \n" + one + " \t \n\n\n" + one, encoding="utf-8")
    got = list(read_conllu(f))
    assert [s.sent_id for s in got] == ["w-1", "w-2"]
    assert [s.line for s in got] == [2, 6]


def test_long_sentence_beyond_lookup_tables(tmp_path: Path) -> None:
    n = 5000  # longer than the id/head lookup tables
    lines = [f"{i}\tw{i}\tw\tX\t_\t_\t{0 if i == 1 else i - 1}\tdep\t_\t_" for i in range(1, n + 1)]
    f = tmp_path / "long.conllu"
    f.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    (s,) = read_conllu(f)
    assert len(s.words) == n and s.words[-1].head == n - 1 and s.depth() == n


def test_file_names() -> None:
    assert file_stem("x/en_ewt-ud-train.conllu.gz") == "en_ewt-ud-train"
    assert split_of("en_ewt-ud-train.conllu.gz") == "train"
    assert split_of("cs_pdt-ud-train-ca.conllu") == "train"
    assert split_of("en_ewt-ud-dev.conllu") == "dev"
    assert split_of("mine.conllu") is None


def test_read_sources_order(ud_dir: Path) -> None:
    sources = discover([ud_dir / "UD_Czech-PUD", ud_dir / "UD_English-EWT"])
    seen: list[tuple[str, str | None]] = []
    for s in read_sources(sources):
        key = (s.source.treebank, s.source.split)
        if not seen or seen[-1] != key:
            seen.append(key)
    assert seen == [
        ("UD_Czech-PUD", "test"),
        ("UD_English-EWT", "train"),
        ("UD_English-EWT", "dev"),
        ("UD_English-EWT", "test"),
    ]


@pytest.mark.parametrize(
    "rel", ["UD_Spanish-GSD/es_gsd-ud-test.conllu", "UD_English-EWT/en_ewt-ud-dev.conllu"]
)
def test_lazy_words_equal_eager_words(ud_dir: Path, rel: str) -> None:
    eager = list(read_conllu(ud_dir / rel))
    lazy = list(read_conllu(ud_dir / rel, lazy=True))
    assert len(eager) == len(lazy)
    for a, b in zip(eager, lazy, strict=True):
        assert type(b.words[0]) is LazyWord and isinstance(b.words[0], Word)
        assert b.words == a.words and a.words == b.words  # both directions
        assert [w.feats for w in b.words] == [w.feats for w in a.words]
        assert all(type(w.feats) is dict and type(w.misc) is dict for w in b.words)
        assert [w.space_after for w in b.words] == [w.space_after for w in a.words]


def test_lazy_word_behaves_like_a_word() -> None:
    w = LazyWord(1, "a", "a", "X", "_", "Number=Sing|Case=Nom", 0, "root", "_", "SpaceAfter=No")
    assert w.feats == {"Number": "Sing", "Case": "Nom"} and not w.space_after
    w.feats["Number"] = "Plur"  # parsed once, then a normal mutable dict
    assert w.feats["Number"] == "Plur"
    w.misc = {}
    assert w.space_after
    r = dataclasses.replace(w, head=2)
    assert r.head == 2 and r.feats == {"Number": "Plur", "Case": "Nom"}
    assert dataclasses.asdict(r)["misc"] == {}
    assert LazyWord(1, "a", "a", "X", "_", "_", 0, "root", "_", "_") == Word(
        1, "a", "a", "X", "_", {}, 0, "root", "_", {}
    )
    assert "feats={}" in repr(LazyWord(1, "a", "a", "X", "_", "_", 0, "root", "_", "_"))


def test_shared_dicts_are_the_cache_and_no_builder_changes_them(
    ud_dir: Path, tmp_path: Path
) -> None:
    """``shared_dicts=True`` hands out the reader's parsed FEATS/MISC dicts themselves (the
    build's passes read this way), so a builder that changed ``word.feats`` would change every
    word with that column. Every task of the registry builds from shared dicts here; after it
    every cached dict still equals a fresh parse of its column string."""
    from polyprobe import build_ud
    from polyprobe.builders.families.ud import UD
    from polyprobe.loaders import conllu as reader

    src = discover([ud_dir / "UD_German-PUD"])
    plain_words = [w for s in read_sources(src) for w in s.words]
    shared_words = [w for s in read_sources(src, shared_dicts=True) for w in s.words]
    assert plain_words == shared_words  # same values
    by_column: dict[int, list[Word]] = collections.defaultdict(list)
    for w in shared_words:
        by_column[id(w.feats)].append(w)
    assert len(by_column) < len(shared_words) / 3  # words share their dicts...
    assert len({id(w.feats) for w in plain_words}) == len(plain_words)  # ...copies do not

    reader._PAIRS.clear()
    reader._PAIRS["_"] = {}
    for tb, lang in (("UD_German-PUD", "de"), ("UD_English-PUD", "en")):
        build_ud(
            [ud_dir / tb], lang=lang, out=tmp_path / tb, tasks=list(UD.tasks.by_name), jobs=1
        )
    assert len(reader._PAIRS) > 100
    changed = [k for k, v in reader._PAIRS.items() if v != reader._parse_pairs(k)]
    assert changed == []
