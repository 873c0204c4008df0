"""Build every family's README example (inputs from the shared data, or written here from it
where the README names a file of the user's) and, with ``--against DIR``, the same examples
with another checkout, then compare the folders byte for byte: the check a refactoring of the
builders must pass (all 14 families, 22 builds).

Run: ``python bench/readme_examples.py [--against /path/to/other/checkout] [--only ud,trec]``.
Outputs go to a temporary folder (``--keep DIR`` keeps them). Prints one line per example:
its build time and, with ``--against``, ``identical`` or the differing files.
"""

from __future__ import annotations

import argparse
import filecmp
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _data import data_root

REPO = Path(__file__).resolve().parent.parent


def _sentences(path: Path, limit: int | None = None) -> list[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    texts = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("# text = "):
                texts.append(line[9:].strip())
                if limit and len(texts) >= limit:
                    break
    return texts


def write_inputs(data: Path, out: Path) -> None:
    """The user files the README's examples name, made from the shared data."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_discourse_rst import DIS, RS3

    for split in ("train", "dev", "test"):
        (out / "rst" / split).mkdir(parents=True, exist_ok=True)
        for i in range(6):
            rs3 = RS3.replace("quarter,", f"quarter of {split}{i},")
            (out / "rst" / split / f"doc{i}.rs3").write_text(rs3, encoding="utf-8")
            dis = DIS.replace("Last year,", f"In {split}{i},")
            (out / "rst" / split / f"wsj{i}.dis").write_text(dis, encoding="utf-8")
    relations = ("elaboration", "elaboration-additional", "circumstance", "attribution")
    classes = ("Expansion", "Expansion", "Temporal", "Attribution")
    (out / "coarse.tsv").write_text(
        "".join(f"{r}\t{c}\n" for r, c in zip(relations, classes, strict=True)), encoding="utf-8"
    )
    en = _sentences(data / "ud/UD_English-EWT/en_ewt-ud-dev.conllu")
    de = _sentences(data / "ud/UD_German-GSD/de_gsd-ud-dev.conllu")
    for split, chunk in (("train", en[:1200]), ("dev", en[1200:1600]), ("test", en[1600:2000])):
        rows = "".join(f"{s}\t{int(len(s.split()) > 12)}\n" for s in chunk if "\t" not in s)
        (out / f"cls-{split}.tsv").write_text("sentence\tlabel\n" + rows, encoding="utf-8")
    pairs = ["id\tsentence1\tsentence2\tlabel"]
    for i in range(0, 1800, 2):
        pairs.append(f"p{i}\t{en[i]}\t{en[i + 1] if i % 4 else en[i].lower()}\t{int(i % 4 == 0)}")
    (out / "paws.tsv").write_text("\n".join(pairs) + "\n", encoding="utf-8")
    head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"
    for split, lo in (("train", 0), ("dev", 1000), ("test", 1400)):
        rows = [head]
        for k, i in enumerate(range(lo, lo + 300, 2)):
            score = (i * 7) % 51 / 10
            rows.append(f"{k}\tnews\tf\t2017\t{k}\ts\ts\t{en[i]}\t{en[i + 1]}\t{score:.1f}")
        (out / f"sts-{split}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (out / "corpus").mkdir(exist_ok=True)
    for d in range(0, 30):
        block = de[d * 25 : (d + 1) * 25]
        paragraphs = [" ".join(block[j : j + 3]) for j in range(0, len(block), 3)]
        (out / "corpus" / f"doc{d:02d}.txt").write_text("\n\n".join(paragraphs) + "\n", "utf-8")
    pud_en = _sentences(data / "ud/UD_English-PUD/en_pud-ud-test.conllu")
    pud_de = _sentences(data / "ud/UD_German-PUD/de_pud-ud-test.conllu")
    (out / "corpus.en").write_text("\n".join(pud_en) + "\n", encoding="utf-8")
    (out / "corpus.de").write_text("\n".join(pud_de) + "\n", encoding="utf-8")
    ids = "".join(f"item{i}\tdoc{i // 10}\n" for i in range(len(pud_en)))
    (out / "corpus.ids").write_text(ids, encoding="utf-8")
    (out / "en.tsv").write_text("".join(f"f{i}\t{t}\n" for i, t in enumerate(pud_en)), "utf-8")
    de_lines = "".join(f"f{i}\t{t}\n" for i, t in enumerate(pud_de) if i % 17)
    (out / "de.tsv").write_text(de_lines, encoding="utf-8")
    questions = []
    for name in ("train_5500.label", "TREC_10.label"):
        for line in (data / "trec" / name).read_bytes().decode("latin-1").splitlines():
            if line.strip():
                questions.append(line.split(" ", 1)[1].upper())
    (out / "trec.de.txt").write_text("\n".join(questions) + "\n", encoding="utf-8")


def examples(data: Path, i: Path) -> dict[str, list[str]]:
    w = data / "word_similarity"
    vecto = w / "vecto_word_benchmarks"
    dumps = sorted(str(p) for p in (data / "wikipedia").glob("enwiki-*.bz2"))
    return {
        "ud": ["ud", f"{data}/ud/UD_English-EWT", "--lang", "en", "--sizes", "10k"],
        "ud-down": ["ud", f"{data}/ud/UD_English-PUD", "--lang", "en", "--tasks", "pos,deprel"],
        "ud-topup": ["ud", f"{data}/ud/UD_English-EWT", "--lang", "en", "--top-up", *dumps],
        "rst": [
            "rst",
            f"{i}/rst",
            "--lang",
            "en",
            "--relation-map",
            f"{i}/coarse.tsv",
            "--min-per-class",
            "2",
        ],  # fmt: skip
        "unimorph": [
            "unimorph",
            f"{data}/unimorph/sigmorphon2018/german-train-high",
            "--lang",
            "de",
            "--scale",
            "--frequencies",
            f"{data}/ud/UD_German-GSD",
            "--wuggy-output",
            f"{data}/wuggy/outputs/ort_german",
        ],  # fmt: skip
        "trec": ["trec", f"{data}/trec"],
        "trec-de": [
            "trec",
            f"{data}/trec",
            "--lang",
            "de",
            "--translation",
            f"{i}/trec.de.txt",
            "--translator",
            "upper",
            "--translator-version",
            "1",
            "--translation-date",
            "2026-11-27",
        ],  # fmt: skip
        "parallel": ["parallel", *sorted(str(p) for p in (data / "ud").glob("UD_*-PUD"))],
        "parallel-text": [
            "parallel",
            f"{i}/corpus.en",
            f"{i}/corpus.de",
            "--line-ids",
            f"{i}/corpus.ids",
            "--original-language",
            "en",
            "--sample-creation",
            "machine-translated",
            "--translator",
            "opus-mt-en-de",
        ],  # fmt: skip
        "parallel-tsv": ["parallel", f"en={i}/en.tsv", f"de={i}/de.tsv"],
        "classification": [
            "classification",
            f"train={i}/cls-train.tsv",
            f"dev={i}/cls-dev.tsv",
            f"test={i}/cls-test.tsv",
            "--preset",
            "sentiment-tsv",
            "--lang",
            "en",
        ],  # fmt: skip
        "pairs": ["pairs", f"{i}/paws.tsv", "--preset", "paws", "--lang", "en"],
        "regression": [
            "regression",
            f"train={i}/sts-train.tsv",
            f"dev={i}/sts-dev.tsv",
            f"test={i}/sts-test.tsv",
            "--preset",
            "sts-b",
            "--lang",
            "en",
        ],  # fmt: skip
        "similarity": [
            "similarity",
            *sorted(str(p) for p in (vecto / "word-similarity/monolingual/en").glob("*.csv")),
            "--lang",
            "en",
        ],  # fmt: skip
        "similarity-msl": [
            "similarity",
            f"{w}/multisimlex_concepticon/Vulic-2020-2244.tsv",
            "--lang",
            "fi",
            "--cross-lingual",
            "en,et",
        ],  # fmt: skip
        "analogies": [
            "analogies",
            f"{vecto}/word-analogy/monolingual/en/google-analogies.csv",
            "--lang",
            "en",
        ],  # fmt: skip
        "analogies-fi": [
            "analogies",
            *sorted(str(p) for p in (w / "finsemevl/analogy").glob("ANA_*.txt")),
            "--lang",
            "fi",
        ],  # fmt: skip
        "analogies-um": [
            "analogies",
            "--unimorph",
            f"{data}/unimorph/lexicons/slv",
            "--frequencies",
            f"{data}/ud/UD_Slovenian-SSJ",
            "--lang",
            "sl",
        ],  # fmt: skip
        "dictionary": [
            "dictionary",
            f"{w}/multisimlex_concepticon/Vulic-2020-2244.tsv",
            "--multisimlex",
            "--lang",
            "fi",
            "--target-lang",
            "en",
        ],  # fmt: skip
        "costra": ["costra", f"{data}/costra"],
        "wiki": ["wiki", *dumps, "--lang", "en"],
        "text": ["text", f"{i}/corpus", "--layout", "documents", "--lang", "de"],
    }


def build(checkout: Path, args: list[str], out: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "polyprobe", "build", *args, "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return time.perf_counter() - start, done.stderr.strip() if done.returncode else ""


def differences(a: Path, b: Path) -> list[str]:
    files = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files |= {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    return sorted(
        str(f)
        for f in files
        if not ((a / f).is_file() and (b / f).is_file() and filecmp.cmp(a / f, b / f, False))
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    ap.add_argument("--only", default="", help="comma-separated example names")
    ap.add_argument("--keep", type=Path, default=None, help="keep the folders here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="polyprobe-readme-") as tmp:
        root = args.keep or Path(tmp)
        write_inputs(args.data, root / "inputs")
        wanted = set(filter(None, args.only.split(",")))
        for name, cmd in examples(args.data, root / "inputs").items():
            if wanted and name not in wanted:
                continue
            seconds, error = build(REPO, cmd, root / "this" / name)
            line = f"{name:16} {seconds:6.1f} s"
            if error:
                print(f"{line}  FAILED: {error.splitlines()[-1]}")
                continue
            if args.against is not None:
                other, error = build(args.against, cmd, root / "other" / name)
                diff = differences(root / "this" / name, root / "other" / name)
                verdict = "identical" if not diff else f"differ: {', '.join(diff[:4])}"
                line += f" (other {other:5.1f} s)  {verdict if not error else 'other FAILED'}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
